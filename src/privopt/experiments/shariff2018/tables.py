"""Aggregation of Shariff & Sheffet run records into the tables the figures and claims read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from privopt import seeding
from privopt.experiments.shariff2018 import runs
from privopt.pipeline.stats import bootstrap_loglog_slope_ci, loglog_slope
from privopt.pipeline.summary import summarise

ols_slope = loglog_slope  # slope b of the OLS fit log R = a + b·log d


def bootstrap_slope_ci(runs_df: pd.DataFrame, n_boot: int = 1000, seed: int = 0) -> tuple[float, float]:
    """95% CI of the all-runs OLS slope, resampling runs within each d (shariff2018 readings R14, R15); the resampling
    stream is keyed by (shariff2018, fig3_bootstrap, n_boot, seed) like every other stream."""
    rng = seeding.rng("shariff2018", "fig3_bootstrap", {"n_boot": n_boot}, seed)
    groups = [g["regret"].to_numpy() for _, g in runs_df.groupby("d", sort=True)]
    return bootstrap_loglog_slope_ci(sorted(runs_df["d"].unique()), groups, rng, n_boot=n_boot)


FIT_COLUMNS = ["reward", "n_d", "n_runs", "a", "b", "b_means", "b_ci_low", "b_ci_high", "n_boot"]


def fit_table(exp1_runs: pd.DataFrame, n_boot: int = 1000) -> pd.DataFrame:
    """Figure 3 fits per reward model (shariff2018 readings R14, R15): OLS ``log R̂_n = a + b·log d`` over all runs, the
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


BAND_COLUMNS = ["reward", "d", "fit", "band_lo", "band_hi", "n_boot"]


def band_table(exp1_runs: pd.DataFrame, n_boot: int = 1000, n_points: int = 50, seed: int = 0) -> pd.DataFrame:
    """Figure 3's shaded band: the pointwise bootstrap 95 % band of the fitted line ``R̂ = e^a·d^b`` at
    ``n_points`` values of d spaced geometrically over the runs' range, per reward model.  The resamples are
    those of :func:`bootstrap_slope_ci` (runs resampled within each d, the stream (shariff2018,
    fig3_bootstrap, n_boot, seed), the same draws in the same order), each refitted by OLS of log R̂ on log d;
    ``band_lo``/``band_hi`` are the 2.5 and 97.5 percentiles of the refitted lines at each d, ``fit`` the line
    fitted to all runs.  With fewer than two values of d there is no line (no rows)."""
    rows = []
    for reward, g in exp1_runs.groupby("reward", sort=True):
        if g["d"].nunique() < 2:
            continue
        rng = seeding.rng("shariff2018", "fig3_bootstrap", {"n_boot": n_boot}, seed)
        ds = sorted(g["d"].unique())
        groups = [h["regret"].to_numpy() for _, h in g.groupby("d", sort=True)]
        xs = np.geomspace(g["d"].min(), g["d"].max(), n_points)
        lines = np.empty((n_boot, n_points))
        for i in range(n_boot):
            x, y = [], []
            for d, h in zip(ds, groups):
                x += [d] * h.size
                y += list(rng.choice(h, size=h.size, replace=True))
            b, a = np.polyfit(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)), 1)
            lines[i] = np.exp(a + b * np.log(xs))
        b, a = np.polyfit(np.log(g["d"].to_numpy(float)), np.log(g["regret"].to_numpy(float)), 1)
        lo, hi = np.percentile(lines, [2.5, 97.5], axis=0)
        rows += [{"reward": reward, "d": float(x), "fit": float(np.exp(a) * x ** b), "band_lo": float(l),
                  "band_hi": float(h), "n_boot": n_boot} for x, l, h in zip(xs, lo, hi)]
    return pd.DataFrame(rows, columns=BAND_COLUMNS)


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


KEEP = ["t", "regret", "pd_failures"]


def fig1_tables(experiment, frames: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Tables entry point (protocol) of Figure 1: the decision set's points as they were drawn."""
    return {"fig1": frames["runs"]}


def exp1_tables(experiment, frames: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Experiment 1 → Figure 2 curves (``fig2``), Figure 3 per-d summary (``fig3``), fits (``fig3_fit``) and
    the bootstrap band of the fitted line (``fig3_band``), and the final regret of every run (``exp1_runs``)."""
    records = frames["runs"].sort_values(["reward", "d", "seed", "t"], kind="stable")
    fin = final_rows(records, ["reward", "d", "seed"])[["reward", "d", "seed", *KEEP]]
    return {"fig2": summarise(records, ["reward", "d", "t"], "regret", ddof=1),
            "fig3": summarise(fin, ["reward", "d"], "regret", ddof=1),
            "fig3_fit": fit_table(fin),
            "fig3_band": band_table(fin),
            "exp1_runs": fin.reset_index(drop=True)}


def exp2_tables(experiment, frames: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Experiment 2 → Figure 4 curves (``fig4``), every run's curve (``fig4_runs``) and the audited rounds
    (``fig4_audit``, sorted by gap, variant, seed, t; claims S.1/S.2)."""
    records = frames["runs"].sort_values(["gap", "variant", "seed", "t"], kind="stable").reset_index(drop=True)
    audits = frames["audit"] if len(frames["audit"]) else runs.empty_audit()
    return {"fig4": summarise(records, ["gap", "variant", "t"], "regret", ddof=1),
            "fig4_runs": records[["gap", "variant", "seed", *KEEP]],
            "fig4_audit": audits.sort_values(["gap", "variant", "seed", "t"], kind="stable").reset_index(drop=True)}


def exp3_tables(experiment, frames: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Experiment 3 → Figure 5 (``fig5``: final regret per mechanism, gap, ρ_min, with the round ``t`` it is
    read at — n, or the prefix length of a prefix run), every run's final regret (``fig5_runs``) and the
    dotted lines (``fig5_defaults``, from ``settings``: n, d, eps, delta, k_rule, mechanisms)."""
    records = frames["runs"].sort_values(["mechanism", "gap", "rho_min", "seed", "t"], kind="stable")
    fin = final_rows(records, ["mechanism", "gap", "rho_min", "seed"])
    fin = fin[["mechanism", "gap", "rho_min", "seed", *KEEP]].reset_index(drop=True)
    return {"fig5": summarise(fin, ["mechanism", "gap", "rho_min", "t"], "regret", ddof=1), "fig5_runs": fin,
            "fig5_defaults": defaults_table(settings, settings["mechanisms"])}
