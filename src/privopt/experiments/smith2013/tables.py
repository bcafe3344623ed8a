"""Tables of the Smith & Thakurta figures: seed means with standard errors and bootstrap intervals.

Every summary row holds mean, std (ddof = 1), sem, n and a 95 % percentile-bootstrap interval of the
mean over seeds (``ci_lo``, ``ci_hi``; 1000 resamples from a stream keyed by the table and the row's
group, so the tables are deterministic; :func:`privopt.pipeline.summary.seed_summary`).  ``eps`` = inf is the non-private baseline.  ST-2 adds the
*excess* regret, private − non-private paired by seed (same points, common random numbers: smith2013 reading R10).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from privopt import seeding
from privopt.experiments.smith2013.streams import PAPER
from privopt.pipeline.parts import Z95
from privopt.pipeline.summary import N_BOOT, add_excess, paired_ratio, seed_summary

__all__ = ["N_BOOT", "summary", "add_excess", "st0_tables", "st1_tables", "st2_tables", "st3_tables", "st4_tables",
           "privacy_tables", "st0c_tables", "st1c_tables", "paired_ratio"]


def summary(runs: pd.DataFrame, by: list[str], value: str, table: str) -> pd.DataFrame:
    """mean, std, sem, n, ci_lo, ci_hi of ``value`` per group of ``by`` (groups sorted)."""
    return seed_summary(runs, by, value, paper=PAPER, table=table, count="n", n_boot=N_BOOT)


def _sorted(runs: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    return runs.sort_values([*by, "eps", "seed"], kind="stable").reset_index(drop=True)


def st0_tables(experiment, frames, settings):
    runs = frames["runs"]
    t = runs.groupby(["d", "t"], sort=True).agg(sum_sq=("sum_sq", "sum"), n=("n", "sum"), lam=("lam", "first"),
                                              theory_sq=("theory_sq", "first")).reset_index()
    t["mean_sq"] = t["sum_sq"] / t["n"]
    t["ratio"] = t["mean_sq"] / t["theory_sq"]
    t["popcount"] = [bin(int(x)).count("1") for x in t["t"]]
    return {"st0": t[["d", "t", "popcount", "n", "lam", "mean_sq", "theory_sq", "ratio"]]}


def st1_tables(experiment, frames, settings):
    runs = _sorted(frames["runs"], ["loss", "T"])
    return {"st1": summary(runs, ["loss", "T", "eps"], "regret", "st1"), "st1_runs": runs}


def st2_tables(experiment, frames, settings):
    runs = add_excess(_sorted(frames["runs"], ["loss", "T"]), ["loss", "T"])
    reg = summary(runs, ["loss", "T", "eps"], "regret", "st2")
    exc = summary(runs, ["loss", "T", "eps"], "excess", "st2")
    exc = exc.rename(columns={c: f"excess_{c}" for c in ("mean", "std", "sem", "n", "ci_lo", "ci_hi")})
    return {"st2": reg.merge(exc, on=["loss", "T", "eps"]), "st2_runs": runs}


def st3_tables(experiment, frames, settings):
    runs = _sorted(frames["runs"], ["loss", "p"])
    return {"st3": summary(runs, ["loss", "p", "T", "eps"], "regret", "st3"), "st3_runs": runs}


def st4_tables(experiment, frames, settings):
    runs = _sorted(frames["runs"], ["beta_rule", "T"])
    table = summary(runs, ["beta_rule", "T", "eps"], "regret", "st4")
    beta = runs.groupby(["beta_rule", "T"], sort=True)[["beta", "beta_capped"]].first().reset_index()
    return {"st4": table.merge(beta, on=["beta_rule", "T"]), "st4_runs": runs}


def privacy_tables(experiment, frames, settings):
    return {"privacy": frames["runs"].reset_index(drop=True)}


#: family-wise level of the per-t tolerance of figure ST-0c (Bonferroni over the T items of every counter)
ST0C_ALPHA = 0.05


def st0c_tables(experiment, frames, settings):
    """``st0c``: per guarantee, counter and t the measured mean N_i(t)² (``mean_sq``) beside the exact ``var``, RMS
    errors, the χ² degrees of freedom ``nu`` and the per-t tolerance [``tol_lo``, ``tol_hi``] of ``ratio``;
    ``st0c_ratio``: per counter the mean over t of the variance (measured, with the SEM over seeds, and exact)
    and its ratio to the tree's under the same guarantee (measured with a 95 % interval, and exact).

    ``nu``: Gaussian seeds give Σ_{seeds, i} N_i(t)²/Var ~ χ²_{n·p} exactly (the p coordinates independent); the
    ℓ2-Laplace seeds are neither Gaussian nor independent across coordinates: one seed z = R·U (R ~ Γ(p, λ), U
    uniform on the sphere) has Var z_i² = (2p + 8)/(p + 1)·m², Cov(z_i², z_j²) = 2/(p + 1)·m² (m = E z_i²), so Y =
    Σ_i z_i²/p has Satterthwaite degrees of freedom 2m²/Var Y = 2p(p + 1)/(4p + 6) per draw; a sum of independent
    seeds is less kurtotic, so ``nu`` = n·2p(p + 1)/(4p + 6) is the conservative (widest) law at every t.  The tolerance is the two-sided χ²_ν/ν interval at level
    ``ST0C_ALPHA``/(K·T) per t, K the number of counters (Bonferroni: every t of every counter inside it with
    probability ≥ 95 %)."""
    from scipy import stats

    runs = frames["runs"]
    keys = ["guarantee", "counter", "t"]
    t = runs.groupby(keys, sort=True).agg(bands=("bands", "first"), T=("T", "first"), p=("p", "first"),
                                          n=("n", "sum"), scale=("scale", "first"), var=("var", "first"),
                                          sum_sq=("sum_sq", "sum"), sum_y2=("sum_y2", "sum")).reset_index()
    n, p = t["n"].to_numpy(dtype=np.float64), t["p"].to_numpy(dtype=np.float64)
    t["mean_sq"] = t["sum_sq"] / (n * p)
    t["ratio"] = t["mean_sq"] / t["var"]
    t["rms"] = np.sqrt(t["mean_sq"])
    t["rms_formula"] = np.sqrt(t["var"])
    t["nu"] = np.where(t["guarantee"] == "gaussian", n * p, n * 2 * p * (p + 1) / (4 * p + 6))
    k = t[["guarantee", "counter"]].drop_duplicates().shape[0]
    a = ST0C_ALPHA / (k * t["T"].to_numpy(dtype=np.float64))
    t["tol_lo"] = stats.chi2.ppf(a / 2, t["nu"]) / t["nu"]
    t["tol_hi"] = stats.chi2.isf(a / 2, t["nu"]) / t["nu"]
    per_t = t[["guarantee", "counter", "bands", "T", "p", "t", "n", "scale", "var", "mean_sq", "ratio", "rms",
               "rms_formula", "nu", "tol_lo", "tol_hi"]]

    seeds = frames["seeds"]
    w = seeds.groupby(["guarantee", "counter"], sort=True)["w"].agg(["mean", "std", "count"]).reset_index()
    w = w.rename(columns={"mean": "mean_var", "count": "n"})
    w["sem"] = w.pop("std") / np.sqrt(w["n"])
    formula = t.groupby(["guarantee", "counter"], sort=True)["var"].mean().rename("mean_var_formula").reset_index()
    r = w.merge(formula, on=["guarantee", "counter"])
    tree = r[r["counter"] == "tree"].set_index("guarantee")
    base = r["guarantee"].map(tree["mean_var"])
    base_sem = r["guarantee"].map(tree["sem"])
    r["ratio"] = r["mean_var"] / base
    r["ratio_formula"] = r["mean_var_formula"] / r["guarantee"].map(tree["mean_var_formula"])
    # log-scale interval; the tree's own row is exactly 1 (same draws)
    se_log = np.sqrt((r["sem"] / r["mean_var"]) ** 2 + (base_sem / base) ** 2)
    se_log = np.where(r["counter"] == "tree", 0.0, se_log)
    r["ratio_se_log"] = se_log
    r["ratio_lo"] = r["ratio"] * np.exp(-Z95 * se_log)
    r["ratio_hi"] = r["ratio"] * np.exp(Z95 * se_log)
    order = {c: i for i, c in enumerate(("tree", "honaker", "sqrt", "sqrt_banded", "smooth"))}
    r = r.sort_values(["guarantee", "counter"], key=lambda s: s.map(order) if s.name == "counter" else s,
                      kind="stable").reset_index(drop=True)
    ratio = r[["guarantee", "counter", "n", "mean_var", "sem", "mean_var_formula", "ratio", "ratio_lo", "ratio_hi",
               "ratio_se_log", "ratio_formula"]]
    return {"st0c": per_t, "st0c_ratio": ratio}


#: the order of the counters in the ST-1c tables
ST1C_ORDER = ("tree", "honaker", "smooth")


def st1c_tables(experiment, frames, settings):
    """``st1c_runs``: every run (counter, loss, T, ε, seed); ``st1c``: per (loss, ε, T, counter) the seed summary of
    the regret (mean, std, sem, n, bootstrap ci_lo/ci_hi, :func:`summary`) and ``ratio`` = mean regret / the tree's
    at the same (loss, ε, T), with its 95 % *paired* percentile-bootstrap interval over the seeds (``ratio_lo``,
    ``ratio_hi``; :func:`paired_ratio`, 1000 resamples from ``seeding.rng(smith2013, "tables/st1c/ratio", {loss, eps,
    T, counter}, 0)``: deterministic); the tree's own row is exactly 1.  ``scale``: the counter's seed scale λ (mean
    over the seeds: it depends on ε and, for the Lipschitz loss, on H*)."""
    runs = frames["runs"]
    order = {c: i for i, c in enumerate(ST1C_ORDER)}
    runs = runs.sort_values(["counter", "loss", "T", "eps", "seed"], key=lambda s: s.map(order) if s.name == "counter"
                            else s, kind="stable").reset_index(drop=True)
    by = ["loss", "eps", "T", "counter"]
    table = summary(runs, by, "regret", "st1c")
    lam = runs.groupby(by, sort=True)["scale"].mean().rename("scale").reset_index()
    table = table.merge(lam, on=by)
    ratio, lo, hi = [], [], []
    for r in table.itertuples():
        if r.counter == "tree":
            ratio.append(1.0), lo.append(1.0), hi.append(1.0)
            continue
        at = runs[(runs["loss"] == r.loss) & (runs["eps"] == r.eps) & (runs["T"] == r.T)]
        pair = at[at["counter"] == r.counter][["seed", "regret"]].merge(
            at[at["counter"] == "tree"][["seed", "regret"]], on="seed", suffixes=("", "_tree")).sort_values("seed")
        if pair.empty:
            ratio.append(math.nan), lo.append(math.nan), hi.append(math.nan)
            continue
        rng = seeding.rng(PAPER, "tables/st1c/ratio", {"loss": str(r.loss), "eps": float(r.eps), "T": int(r.T),
                                                       "counter": str(r.counter)}, 0)
        e, a, b = paired_ratio(pair["regret"].to_numpy(), pair["regret_tree"].to_numpy(), rng)
        ratio.append(e), lo.append(a), hi.append(b)
    table["ratio"], table["ratio_lo"], table["ratio_hi"] = ratio, lo, hi
    table = table.sort_values(by, key=lambda s: s.map(order) if s.name == "counter" else s,
                              kind="stable").reset_index(drop=True)
    return {"st1c": table, "st1c_runs": runs}
