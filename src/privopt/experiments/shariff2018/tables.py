"""Aggregation of Shariff & Sheffet run records into the tables the figures and claims read."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privopt import seeding
from privopt.experiments.shariff2018 import runs
from privopt.experiments.summary import summarise


def ols_slope(d, r) -> float:
    """Slope b of the OLS fit log r = a + b·log d."""
    x, y = np.log(np.asarray(d, float)), np.log(np.asarray(r, float))
    return float(np.polyfit(x, y, 1)[0])


def bootstrap_slope_ci(runs_df: pd.DataFrame, n_boot: int = 1000, seed: int = 0) -> tuple[float, float]:
    """95% CI of the all-runs OLS slope, resampling runs within each d (spec §7.3); the resampling
    stream is keyed by (shariff2018, fig3_bootstrap, n_boot, seed) like every other stream."""
    rng = seeding.rng("shariff2018", "fig3_bootstrap", {"n_boot": n_boot}, seed)
    groups = [g["regret"].to_numpy() for _, g in runs_df.groupby("d", sort=True)]
    ds = sorted(runs_df["d"].unique())
    slopes = []
    for _ in range(n_boot):
        x, y = [], []
        for d, g in zip(ds, groups):
            s = rng.choice(g, size=g.size, replace=True)
            x += [d] * g.size
            y += list(s)
        slopes.append(ols_slope(x, y))
    return float(np.percentile(slopes, 2.5)), float(np.percentile(slopes, 97.5))


FIT_COLUMNS = ["reward", "n_d", "n_runs", "a", "b", "b_means", "b_ci_low", "b_ci_high", "n_boot"]


def fit_table(exp1_runs: pd.DataFrame, n_boot: int = 1000) -> pd.DataFrame:
    """Figure 3 fits per reward model (spec §7.3): OLS ``log R̂_n = a + b·log d`` over all runs, the
    slope on the per-d means, and the bootstrap 95% CI of ``b`` (the same numbers as claims F3.a/F3.b).
    With fewer than two values of d the fit is undefined (NaN)."""
    rows = []
    for reward, g in exp1_runs.groupby("reward", sort=True):
        row = {"reward": reward, "n_d": int(g["d"].nunique()), "n_runs": len(g), "n_boot": n_boot}
        if row["n_d"] >= 2:
            b, a = np.polyfit(np.log(g["d"].to_numpy(float)), np.log(g["regret"].to_numpy(float)), 1)
            m = g.groupby("d")["regret"].mean()
            lo, hi = bootstrap_slope_ci(g, n_boot=n_boot)
            row.update(a=float(a), b=float(b), b_means=ols_slope(m.index, m.to_numpy()), b_ci_low=lo, b_ci_high=hi)
        rows.append(row)
    return pd.DataFrame(rows, columns=FIT_COLUMNS)


def final_rows(records: pd.DataFrame, by) -> pd.DataFrame:
    """The last recorded point of every run (t = n_rounds)."""
    last = records.groupby(list(by), sort=False)["t"].transform("max")
    return records[records["t"] == last].reset_index(drop=True)


def defaults_table(settings: dict, mechanisms) -> pd.DataFrame:
    """Dotted lines of Fig. 5: mechanism, label, ρ_min (shifted defaults and the unshifted Wishart)."""
    rows = []
    for mech in mechanisms:
        for label, rho in runs.default_rho(mech, settings["n"], settings["d"], settings["eps"], settings["delta"],
                                           k_rule=settings["k_rule"]).items():
            rows.append({"mechanism": mech, "label": label, "rho_min": rho})
    return pd.DataFrame(rows, columns=["mechanism", "label", "rho_min"])


def tables_for(experiment: str, records: pd.DataFrame, settings: dict | None = None,
               mechanisms=None, audits: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """Tables of one experiment: per-figure summaries (mean, std, sem, n) and per-run values.

    ``audits`` (Exp. 2 only): the audit rows of the run blocks, returned as table ``audit``
    sorted by gap, variant, seed, t (claims S.1/S.2).
    """
    keep = ["t", "regret", "pd_failures"]
    if experiment == "exp1":
        records = records.sort_values(["reward", "d", "seed", "t"], kind="stable")
        fin = final_rows(records, ["reward", "d", "seed"])[["reward", "d", "seed", *keep]]
        return {"fig2": summarise(records, ["reward", "d", "t"], "regret", ddof=1),
                "fig3": summarise(fin, ["reward", "d"], "regret", ddof=1),
                "fit": fit_table(fin),
                "runs": fin.reset_index(drop=True)}
    if experiment == "exp2":
        records = records.sort_values(["gap", "variant", "seed", "t"], kind="stable").reset_index(drop=True)
        out = {"fig4": summarise(records, ["gap", "variant", "t"], "regret", ddof=1),
               "runs": records[["gap", "variant", "seed", *keep]]}
        if audits is not None:
            audits = audits if len(audits) else runs.empty_audit()
            out["audit"] = audits.sort_values(["gap", "variant", "seed", "t"], kind="stable").reset_index(drop=True)
        return out
    if experiment == "exp3":
        records = records.sort_values(["mechanism", "gap", "rho_min", "seed", "t"], kind="stable")
        fin = final_rows(records, ["mechanism", "gap", "rho_min", "seed"])
        fin = fin[["mechanism", "gap", "rho_min", "seed", *keep]].reset_index(drop=True)
        out = {"fig5": summarise(fin, ["mechanism", "gap", "rho_min"], "regret", ddof=1), "runs": fin}
        if settings is not None:
            out["defaults"] = defaults_table(settings, mechanisms or sorted(records["mechanism"].unique()))
        return out
    raise ValueError(f"unknown experiment {experiment!r}")
