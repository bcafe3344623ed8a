"""Tables of the Smith & Thakurta figures: seed means with standard errors and bootstrap intervals.

Every summary row holds mean, std (ddof = 1), sem, n and a 95 % percentile-bootstrap interval of the
mean over seeds (``ci_lo``, ``ci_hi``; 1000 resamples from a stream keyed by the table and the row's
group, so the tables are deterministic).  ``eps`` = inf is the non-private baseline.  ST-2 adds the
*excess* regret, private − non-private paired by seed (same points, spec §3.1 common random numbers).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from privopt import seeding
from privopt.experiments.smith2013.streams import PAPER

__all__ = ["N_BOOT", "summary", "add_excess", "st0_tables", "st1_tables", "st2_tables", "st3_tables", "st4_tables",
           "privacy_tables"]

N_BOOT = 1000


def _key(value):
    if isinstance(value, (np.floating, float)):
        return float(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    return str(value)


def summary(runs: pd.DataFrame, by: list[str], value: str, table: str) -> pd.DataFrame:
    """mean, std, sem, n, ci_lo, ci_hi of ``value`` per group of ``by`` (groups sorted)."""
    out = []
    for keys, g in runs.groupby(by, sort=True):
        keys = keys if isinstance(keys, tuple) else (keys,)
        v = g.sort_values("seed")[value].to_numpy(dtype=np.float64)
        n = len(v)
        rng = seeding.rng(PAPER, f"tables/{table}/{value}", {k: _key(x) for k, x in zip(by, keys)}, 0)
        boot = v[rng.integers(0, n, size=(N_BOOT, n))].mean(axis=1)
        std = float(np.std(v, ddof=1)) if n > 1 else math.nan
        out.append({**dict(zip(by, keys)), "mean": float(v.mean()), "std": std, "sem": std / math.sqrt(n),
                    "n": n, "ci_lo": float(np.percentile(boot, 2.5)), "ci_hi": float(np.percentile(boot, 97.5))})
    return pd.DataFrame(out)


def add_excess(runs: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """``excess`` = regret − regret of ε = ∞ with the same ``by`` keys and seed (NaN where it is missing)."""
    base = runs[np.isinf(runs["eps"])][[*by, "seed", "regret"]].rename(columns={"regret": "regret_nonprivate"})
    out = runs.merge(base, on=[*by, "seed"], how="left")
    out["excess"] = out["regret"] - out["regret_nonprivate"]
    return out


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
