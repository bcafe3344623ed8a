"""Tables of the Smith & Thakurta figures: seed means with standard errors and bootstrap intervals.

Every summary row holds mean, std (ddof = 1), sem, n and a 95 % percentile-bootstrap interval of the
mean over seeds (``ci_lo``, ``ci_hi``; 1000 resamples from a stream keyed by the table and the row's
group, so the tables are deterministic; :func:`privopt.pipeline.summary.seed_summary`).  ``eps`` = inf is the non-private baseline.  ST-2 adds the
*excess* regret, private − non-private paired by seed (same points, spec §3.1 common random numbers).
"""

from __future__ import annotations

import pandas as pd

from privopt.experiments.smith2013.streams import PAPER
from privopt.pipeline.summary import N_BOOT, add_excess, seed_summary

__all__ = ["N_BOOT", "summary", "add_excess", "st0_tables", "st1_tables", "st2_tables", "st3_tables", "st4_tables",
           "privacy_tables"]


def summary(runs: pd.DataFrame, by: list[str], value: str, table: str) -> pd.DataFrame:
    """mean, std, sem, n, ci_lo, ci_hi of ``value`` per group of ``by`` (groups sorted)."""
    return seed_summary(runs, by, value, paper=PAPER, table=table, count="n", n_boot=N_BOOT)


def _sorted(runs: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    return runs.sort_values([*by, "eps", "seed"], kind="stable").reset_index(drop=True)


def st0_tables(frames, settings):
    runs = frames["runs"]
    t = runs.groupby(["d", "t"], sort=True).agg(sum_sq=("sum_sq", "sum"), n=("n", "sum"), lam=("lam", "first"),
                                              theory_sq=("theory_sq", "first")).reset_index()
    t["mean_sq"] = t["sum_sq"] / t["n"]
    t["ratio"] = t["mean_sq"] / t["theory_sq"]
    t["popcount"] = [bin(int(x)).count("1") for x in t["t"]]
    return {"st0": t[["d", "t", "popcount", "n", "lam", "mean_sq", "theory_sq", "ratio"]]}


def st1_tables(frames, settings):
    runs = _sorted(frames["runs"], ["loss", "T"])
    return {"st1": summary(runs, ["loss", "T", "eps"], "regret", "st1"), "st1_runs": runs}


def st2_tables(frames, settings):
    runs = add_excess(_sorted(frames["runs"], ["loss", "T"]), ["loss", "T"])
    reg = summary(runs, ["loss", "T", "eps"], "regret", "st2")
    exc = summary(runs, ["loss", "T", "eps"], "excess", "st2")
    exc = exc.rename(columns={c: f"excess_{c}" for c in ("mean", "std", "sem", "n", "ci_lo", "ci_hi")})
    return {"st2": reg.merge(exc, on=["loss", "T", "eps"]), "st2_runs": runs}


def st3_tables(frames, settings):
    runs = _sorted(frames["runs"], ["loss", "p"])
    return {"st3": summary(runs, ["loss", "p", "T", "eps"], "regret", "st3"), "st3_runs": runs}


def st4_tables(frames, settings):
    runs = _sorted(frames["runs"], ["beta_rule", "T"])
    table = summary(runs, ["beta_rule", "T", "eps"], "regret", "st4")
    beta = runs.groupby(["beta_rule", "T"], sort=True)[["beta", "beta_capped"]].first().reset_index()
    return {"st4": table.merge(beta, on=["beta_rule", "T"]), "st4_runs": runs}


def privacy_tables(frames, settings):
    return {"privacy": frames["runs"].reset_index(drop=True)}
