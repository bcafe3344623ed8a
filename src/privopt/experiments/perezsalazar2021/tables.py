"""Aggregation of the Perez-Salazar & Cummings run rows into the tables the figures and claims read.

Every summary table has one row per configuration and algorithm (group, instance, algorithm, ε, k, n, T)
with, for each value v of :data:`VALUES`, its mean over the seeds ``v`` and the standard error of that
mean ``v_sem`` (sd with ddof 1 over √N; NaN for one seed), the number of seeds ``N``, and the
configuration's privacy bookkeeping (η, ε_nominal, ε_cert, certified, δ_tail: the same for every seed,
except B2-PRESAMPLE whose η depends on the seed's explore count: its mean).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from privopt.online.osm import parameters as par
from privopt.online.osm.privacy import bandit_tail

__all__ = ["VALUES", "summary", "breakeven", "breakeven_table", "phi_half", "fi_tables", "uber_tables", "bandit_tables", "cont_tables",
           "privacy_tables"]

VALUES = ("ALG", "OPT", "G", "UB", "E_UNIF", "R", "R_hi", "REG_G", "REG_OPT", "sum_r", "sum_r_weighted",
          "sum_r_pseudo", "M", "phi", "u")
KEYS = ("group", "instance", "unit", "feedback", "algo", "eps", "k", "n", "T", "K")
FIRST = ("eta", "gamma", "eps_nominal", "eps_cert", "delta_tail", "B_theorem", "B_sharp", "cap", "c_H")


def _sort(runs: pd.DataFrame) -> pd.DataFrame:
    keys = [c for c in (*KEYS, "seed") if c in runs.columns]
    return runs.sort_values(keys, kind="stable", na_position="first").reset_index(drop=True)


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean, SEM and N of every value per configuration (module docstring)."""
    if runs.empty:
        return pd.DataFrame()
    keys = [c for c in KEYS if c in runs.columns]
    values = [v for v in VALUES if v in runs.columns]
    grouped = runs.groupby(keys, sort=True, dropna=False)
    out = grouped[values].mean()
    sem = grouped[values].std(ddof=1) / np.sqrt(grouped.size().to_numpy()[:, None])
    sem.columns = [f"{v}_sem" for v in values]
    out = out.join(sem)
    out["N"] = grouped.size()
    firsts = [c for c in FIRST if c in runs.columns]
    if firsts:
        out = out.join(grouped[firsts].mean())
    if "certified" in runs.columns:
        out["certified"] = grouped["certified"].all()
    if "hedge_ok" in runs.columns:
        out["hedge_ok"] = grouped["hedge_ok"].all()
    return out.reset_index()


def breakeven(p: pd.DataFrame) -> tuple[float, float] | None:
    """(T*, u*): where the mean R_T/T of one (k, ε) series first changes sign from + to −, interpolated
    linearly in ln T between grid points (u* = u at T*, u ∝ √T); None without a sign change."""
    p = p.sort_values("T")
    T, y, u = p["T"].to_numpy(float), (p["R"] / p["T"]).to_numpy(float), p["u"].to_numpy(float)
    for j in range(1, T.size):
        if y[j - 1] > 0 >= y[j]:
            w = y[j - 1] / (y[j - 1] - y[j])
            t_star = math.exp(math.log(T[j - 1]) + w * (math.log(T[j]) - math.log(T[j - 1])))
            return t_star, u[j - 1] * math.sqrt(t_star / T[j - 1])
    return None


def breakeven_table(table: pd.DataFrame) -> pd.DataFrame:
    """T* and u* of every (group, k, ε) FI-DP series over a T grid (groups syn and collapse): NaN where
    R_T/T does not change sign inside the grid."""
    rows = []
    if len(table):
        grid = table[table["group"].isin(["syn", "collapse"]) & (table["algo"] == "FI-DP")]
        for (group, k, eps), p in grid.groupby(["group", "k", "eps"], sort=True):
            be = breakeven(p) if p["T"].nunique() > 1 else None
            rows.append({"group": group, "k": int(k), "eps": float(eps), "T_star": be[0] if be else np.nan,
                         "u_star": be[1] if be else np.nan, "T_min": int(p["T"].min()), "T_max": int(p["T"].max())})
    return pd.DataFrame(rows, columns=["group", "k", "eps", "T_star", "u_star", "T_min", "T_max"])


def fi_tables(experiment, frames: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Tables entry point of experiment ``fi``: ``fi`` (summary), ``fi_runs`` (every run) and ``fi_breakeven``
    (the horizon T* and budget u* at which R_T/T turns negative)."""
    runs = _sort(frames["runs"])
    table = summary(runs)
    return {"fi": table, "fi_runs": runs, "fi_breakeven": breakeven_table(table)}


def phi_half(eps: np.ndarray, phi: np.ndarray) -> float:
    """ε where the normalised progress φ first crosses 1/2 from below, interpolated linearly in ln ε
    (NaN when it never crosses inside the grid)."""
    order = np.argsort(eps)
    e, p = np.asarray(eps, float)[order], np.asarray(phi, float)[order]
    for j in range(1, e.size):
        if p[j - 1] < 0.5 <= p[j]:
            w = (0.5 - p[j - 1]) / (p[j] - p[j - 1])
            return float(math.exp(math.log(e[j - 1]) + w * (math.log(e[j]) - math.log(e[j - 1]))))
    return float("nan")


def uber_tables(experiment, frames: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Tables entry point of experiment ``uber``: ``uber`` (summary), ``uber_runs``, ``f4a`` (running average
    reward at the checkpoints), ``f4b`` (the map: density, candidates, OPT set, modal sets), ``f4c`` (φ)."""
    runs = frames["runs"].copy()
    if "unit" not in runs.columns:
        runs["unit"] = ""
    runs["unit"] = runs["unit"].fillna("").astype(str)
    gran = runs["group"] == "granularity"
    runs["phi"] = np.where(gran, (runs["ALG"] - runs["E_UNIF"]) / (runs["G"] - runs["E_UNIF"]), np.nan)
    runs = _sort(runs)
    table = summary(runs)
    curves = frames["curves"]
    if len(curves):
        c = curves.assign(avg=curves["cum_reward"] / curves["t"])
        g = c.groupby(["feedback", "algo", "eps", "t"], sort=True, dropna=False)["avg"]
        f4a = g.agg(mean="mean", std=lambda x: float(np.std(x, ddof=1)) if len(x) > 1 else float("nan"),
                    N="size").reset_index()
        f4a["sem"] = f4a["std"] / np.sqrt(f4a["N"])
        f4a = f4a.drop(columns="std")
    else:
        f4a = pd.DataFrame(columns=["feedback", "algo", "eps", "t", "mean", "N", "sem"])
    maps = frames["map"]
    f4b = maps.copy() if len(maps) else pd.DataFrame(columns=["kind", "x", "y", "value", "item"])
    if "modal_set" in runs.columns:
        modal = runs[runs["modal_set"].notna()]
        for (algo, eps), sub in modal.groupby(["algo", "eps"], dropna=False, sort=True):
            counts = sub["modal_set"].value_counts()
            best = sorted(counts[counts == counts.max()].index)[0]
            label = "SG-NP" if algo == "SG-NP" else f"{algo} ε={eps:g}"
            f4b = pd.concat([f4b, pd.DataFrame([{"kind": "modal", "x": np.nan, "y": np.nan,
                                                  "value": float(counts.max() / len(sub)), "item": -1,
                                                  "label": label, "items": best,
                                                  "freq": float(sub.loc[sub["modal_set"] == best, "modal_freq"].mean())}])],
                            ignore_index=True)
    f4c = table[table["group"] == "granularity"].copy() if len(table) else pd.DataFrame()
    if len(f4c):
        f4c["eps_half"] = np.nan
        for unit, sub in f4c.groupby("unit"):
            f4c.loc[sub.index, "eps_half"] = phi_half(sub["eps"].to_numpy(), sub["phi"].to_numpy())
        f4c = f4c.reset_index(drop=True)
    return {"uber": table, "uber_runs": runs, "f4a": f4a, "f4b": f4b, "f4c": f4c}


def tail_table(horizons, c_gamma: float, k: int, delta: float) -> pd.DataFrame:
    """Figure 6's side table: per T, γ, the printed γ, η ratios and log10 of P(M ≥ 2γT) and its bounds."""
    rows = []
    for T in horizons:
        T = int(T)
        g = par.practical_gamma(T, c_gamma)
        tails = bandit_tail(T, g)
        rows.append({"T": T, "gamma": g, "gamma_printed_k": par.printed_gamma(k, 10, T), "k": k,
                     "gamma_B1_own": par.practical_gamma(T, c_gamma, 0.25), "cap": tails["cap"],
                     "eta_B1_over_alg3": math.sqrt(2 * g), **{k2: v for k2, v in tails.items() if k2 != "cap"}})
    return pd.DataFrame(rows)


def bandit_tables(experiment, frames: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Tables entry point of experiment ``bandit``: ``bandit`` (summary), ``bandit_runs``, ``f6_tail``."""
    runs = frames["runs"].copy()
    if len(runs):
        runs["phi"] = (runs["ALG"] - runs["E_UNIF"]) / (runs["G"] - runs["E_UNIF"])
    runs = _sort(runs)
    return {"bandit": summary(runs), "bandit_runs": runs,
            "f6_tail": tail_table(settings["T"], float(settings["c_gamma"]), int(settings["k"]), float(settings["delta"]))}


def cont_tables(experiment, frames: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Tables entry point of experiment ``cont``: ``cont`` (summary) and ``cont_runs``."""
    runs = _sort(frames["runs"])
    return {"cont": summary(runs), "cont_runs": runs}


def privacy_tables(experiment, frames: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Tables entry point of experiment ``privacy``: ``f8_cert`` and ``tpriv`` (as the run computed them)."""
    return {"f8_cert": frames["runs"].reset_index(drop=True), "tpriv": frames["tpriv"].reset_index(drop=True)}
