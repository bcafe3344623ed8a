"""The claim set of Shariff & Sheffet, the paper's settings, the tiers (paper or quick scale) and the three-way
rules and intervals every figure's claims are decided with (the rules: :mod:`privopt.experiments.shariff2018.claims`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as _st

from privopt import seeding
from privopt.pipeline.claims import MIN_SEEDS, ClaimSet, Inconclusive, decide
from privopt.pipeline.claims import fmt_sig as _fmt
from privopt.experiments.shariff2018 import runs


#: the former name of :class:`Inconclusive`, kept for readers of older code
NotEvaluated = Inconclusive

PAPER = "shariff2018"
CLAIMS = ClaimSet(PAPER)
VARIANTS_4 = runs.VARIANTS

#: the paper's settings (shariff2018 readings R13–R18): Exp. 1 dims (17 values round(2^(2+i/4))), runs and horizons
PAPER_EXP1 = {"n": 100_000, "runs": 100, "dims": (4, 5, 6, 7, 8, 10, 11, 13, 16, 19, 23, 27, 32, 38, 45, 54, 64)}
PAPER_EXP2 = {"t_star": 20_000_000, "runs": 30}
PAPER_EXP3 = {"n": 50_000_000, "runs": 30, "gaps": (0.0, 0.0015625, 0.00625, 0.025, 0.1)}

#: level of the intervals that decide "not reproduced", and bootstrap resamples
LEVEL, N_BOOT = 0.95, 1000


def _tier(shortfalls: list[str]) -> tuple[bool, str]:
    """(quick, why): the quick (Q) tier when anything fell short of the paper's settings."""
    if shortfalls:
        return True, "quick-scale (Q) threshold: " + "; ".join(shortfalls)
    return False, "paper-scale threshold: the paper's settings ran"


def exp1_tier(exp1_runs: pd.DataFrame, settings: Mapping[str, Any]) -> tuple[bool, str]:
    """Quick tier unless ≥ 100 runs per (model, d), every paper d and the full n = 10^5 rounds ran."""
    short = []
    runs_min = int(exp1_runs.groupby(["reward", "d"]).size().min())
    if runs_min < PAPER_EXP1["runs"]:
        short.append(f"{runs_min} runs per (model, d) (paper {PAPER_EXP1['runs']})")
    missing = sorted(set(PAPER_EXP1["dims"]) - set(int(d) for d in exp1_runs["d"].unique()))
    if missing:
        short.append(f"d = {missing} not run")
    t_end = int(exp1_runs["t"].max())
    if t_end < PAPER_EXP1["n"]:
        short.append(f"runs stop at t = {t_end:,} (paper n = {PAPER_EXP1['n']:,})")
    return _tier(short)


def exp2_tier(fig4_runs: pd.DataFrame, t_star: int) -> tuple[bool, str]:
    """Quick tier unless t* reaches 2·10^7 and ≥ 30 runs per (variant, Δ) ran."""
    short = []
    runs_min = int(fig4_runs.groupby(["gap", "variant"])["seed"].nunique().min())
    if runs_min < PAPER_EXP2["runs"]:
        short.append(f"{runs_min} runs per (variant, Δ) (paper {PAPER_EXP2['runs']})")
    if t_star < PAPER_EXP2["t_star"]:
        short.append(f"t* = {t_star:,} (paper {PAPER_EXP2['t_star']:,})")
    return _tier(short)


def exp3_tier(fig5_runs: pd.DataFrame) -> tuple[bool, str]:
    """Quick tier unless the full n = 5·10^7 rounds, ≥ 30 runs per point and the five paper gaps ran."""
    short = []
    runs_min = int(fig5_runs.groupby(["mechanism", "gap", "rho_min"])["seed"].nunique().min())
    if runs_min < PAPER_EXP3["runs"]:
        short.append(f"{runs_min} runs per (mechanism, Δ, ρ_min) (paper {PAPER_EXP3['runs']})")
    t_end = int(fig5_runs["t"].max())
    if t_end < PAPER_EXP3["n"]:
        short.append(f"regret at t = {t_end:,} (paper n = {PAPER_EXP3['n']:,})")
    missing = sorted(set(PAPER_EXP3["gaps"]) - set(float(g) for g in fig5_runs["gap"].unique()))
    if missing:
        short.append(f"gaps {missing} not run")
    return _tier(short)


# ----------------------------------------------------------------------------- deciding


def _q(quick: bool, threshold: str, reading: str) -> str:
    """The threshold as the row states it: the quick (Q) threshold of shariff2018 reading R20, named with where it was read."""
    return f"Q reading ({reading}): {threshold}" if quick else threshold


def _judge(supports: bool, contradicts: bool, runs_min: int, *, tested: bool, unit: str,
           undecided: str, paper_runs: int = PAPER_EXP2["runs"]) -> tuple[bool | None, str, str]:
    """(holds, needs, note) under the module's rules.

    ``tested``: the claim gates on a test or an interval (needs ≥ MIN_SEEDS runs per point to decide at
    all); ``contradicts`` is only believed with ≥ MIN_SEEDS runs per point (an interval from fewer is not
    one).  ``unit`` names a point ("(variant, Δ)"); ``undecided`` says what is undecided when the data
    straddle the threshold; ``paper_runs`` the paper's runs per point."""
    more = (f"≈ {paper_runs} runs per {unit} as the paper ran; at least {MIN_SEEDS} for any interval"
            if runs_min < paper_runs else
            f"more than the paper's {paper_runs} runs per {unit}, or the paper's horizon where these are prefix runs")
    if runs_min < MIN_SEEDS:
        note = f"{runs_min} runs per {unit}: too few for a standard error (≥ {MIN_SEEDS})"
        if tested:
            return None, more, note
        return (True, "", "") if supports else (None, more, note + f"; {undecided}")
    holds = decide(bool(supports), bool(contradicts) and not supports)
    return holds, ("" if holds is not None else f"more runs: {undecided} ({more})"), ""


def _contrast(a: np.ndarray, b: np.ndarray, c: float = 1.0, level: float = LEVEL) -> tuple[float, float, float]:
    """mean(a) − c·mean(b) and its Welch interval (independent samples, Welch–Satterthwaite df)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    est = float(a.mean() - c * b.mean())
    if a.size < 2 or b.size < 2:
        return est, -math.inf, math.inf
    va, vb = a.var(ddof=1) / a.size, c**2 * b.var(ddof=1) / b.size
    se = math.sqrt(va + vb)
    if se == 0:
        return est, est, est
    df = (va + vb) ** 2 / ((va**2 / (a.size - 1) if va else 0.0) + (vb**2 / (b.size - 1) if vb else 0.0))
    q = float(_st.t.ppf(0.5 + level / 2, df))
    return est, est - q * se, est + q * se


def _linear(means: Sequence[float], sems: Sequence[float], coefs: Sequence[float], dfs: Sequence[int],
            level: float = LEVEL) -> tuple[float, float, float]:
    """Σ c_i·mean_i and its Welch interval from independent groups' means, SEMs and df (= runs − 1)."""
    est = float(sum(c * m for c, m in zip(coefs, means)))
    parts = [(c * s) ** 2 for c, s in zip(coefs, sems)]
    var = sum(parts)
    if var == 0:
        return est, est, est
    df = var**2 / sum(p**2 / max(d, 1) for p, d in zip(parts, dfs) if p)
    q = float(_st.t.ppf(0.5 + level / 2, df))
    return est, est - q * math.sqrt(var), est + q * math.sqrt(var)


def _boot_means(groups: Sequence[np.ndarray], rng: np.random.Generator, n_boot: int = N_BOOT) -> np.ndarray:
    """(n_boot, len(groups)) means of the groups, runs resampled with replacement within each group."""
    out = np.empty((n_boot, len(groups)))
    for j, g in enumerate(groups):
        g = np.asarray(g, float)
        out[:, j] = g[rng.integers(0, g.size, size=(n_boot, g.size))].mean(axis=1)
    return out


def _boot_rng(cid: str, key: str = "") -> np.random.Generator:
    """The seeded resampling stream of one claim (and one model or mechanism)."""
    return seeding.rng(PAPER, "claims_bootstrap", {"claim": cid, "key": key, "n_boot": N_BOOT}, 0)


def _spearman_rows(x: Sequence[float], y: np.ndarray) -> np.ndarray:
    """Spearman's ρ of x with each row of y (NaN where a row is constant)."""
    rx = _st.rankdata(x)
    ry = _st.rankdata(y, axis=1)
    rx, ry = rx - rx.mean(), ry - ry.mean(axis=1, keepdims=True)
    den = np.sqrt((rx**2).sum() * (ry**2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (ry @ rx) / den


def _pct_ci(values: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return float("nan"), float("nan")
    return float(np.percentile(v, 50 * (1 - level))), float(np.percentile(v, 50 * (1 + level)))


def _ci(lo: float, hi: float, digits: int = 3) -> str:
    return f"[{_fmt(lo, digits)}, {_fmt(hi, digits)}]"
