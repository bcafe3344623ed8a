"""The claims of Shariff & Sheffet (shariff2018 reading R20), checked on the aggregated tables and per-run values.

Three verdicts, decided by what the data can tell (:mod:`privopt.pipeline.claims`):

* **Tiers.**  The paper tier applies when the paper's settings ran for the figure (Exp. 1: 100 runs per
  (model, d), the 17 dims, n = 10^5; Exp. 2: 30 runs, read at t* = 2·10^7; Exp. 3: 30 runs, the five gaps,
  regret at n = 5·10^7); anything short of them is the quick tier.  The tier is decided from the tables
  and the settings that ran (:func:`exp1_tier`, :func:`exp2_tier`, :func:`exp3_tier`) and stated in each
  row's details, never from a scale label.
* **Quick (Q) readings.**  The design (shariff2018 readings R19, R20) defines, for every claim of Figures 2–5
  but F4.e, how it reads below the paper's settings: Figure 4 at t* = T_quick (a prefix run with the
  full-horizon constants), Figure 5 on the regret at T_quick, Exp. 1 on fewer dims and runs, with a Q
  threshold where it gives one (F2.a ≥ 0.9, F3.a [1.6, 2.4], F4.c ratio ≥ 1.2 and p < 0.05, F5.b ≤ 0.6,
  F5.c the two extreme gaps only) and the paper's threshold otherwise.  Below the paper's settings a claim
  is judged on that reading only, and its threshold column says so ("Q reading at t* = 2,000,000 (paper
  2·10^7): …"), so a *reproduced* row there never stands for the paper's statement at the paper's horizon
  or range.  F4.e has no Q reading (shariff2018 reading R20: "paper-scale only"): on prefix runs it is *inconclusive*,
  needing runs to n = 5·10^7.
* **Tests and standard errors.**  A claim that gates on a Welch p-value or a bootstrap interval (F3.b,
  F4.a, F4.c, F4.d with the prop9 γ' — its claim20 reading reports p only —, F5.a) needs at least :data:`~privopt.pipeline.claims.MIN_SEEDS` runs per point,
  else it is *inconclusive* (a non-significant test on 3–4 runs says nothing; so does a significant one
  whose standard error rests on 3 degrees of freedom), needing ≈ 30 runs (the paper's).
* **Not reproduced** only when the interval of the measured effect excludes what the claim states: a
  95 % Welch interval of the linear contrast the threshold compares (e.g. R̄_Gauss − 0.5·R̄_Wishart for F4.a,
  Inc(0.1) − 0.35·Inc(0) for F5.b), a 95 % percentile bootstrap interval (runs resampled within each point,
  seeded) for rank correlations, ranges and slopes (F2.a, F2.c, F3.a, F5.c, F5.d), a Clopper–Pearson
  interval for the share of audited rounds (S.1).  Such an interval needs ≥ MIN_SEEDS runs per point; with
  fewer, a claim whose point estimate misses its threshold is *inconclusive*.  A claim whose point
  estimate meets a threshold that is not itself a test (F2.a, F2.b, F2.c, F3.a, F4.b, F5.b–d) is
  *reproduced* on that estimate.  Exact checks (F1.a, F4.f: no Cholesky failure, S.2: θ* inside the
  confidence set on every audited round) are contradicted by a single counterexample.
* F5.e is descriptive (the paper states no expectation): always reported, never gated.
* F4c.a–c (beyond the paper, Figure 4c): each counter's mean regret against the path tree's at the same privacy,
  decided by the 95 % paired-bootstrap interval of the ratio (below 1, above 1, or straddling it), with ≥ MIN_SEEDS
  runs per gap.
* F4e.a–b (beyond the paper, Figure 4e): the Gaussian variant with its node σ calibrated exactly to the paper's (ε, δ)
  (path tree; with the best counter of Figure 4c) against the paper's calibration, per (gap, δ), decided the same way.

:func:`findings` turns the Figure 4 comparisons and the undecided claims into the report's findings.
Nothing here is tuned to make a claim pass.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as _st

from privopt import seeding
from privopt.pipeline.claims import (INCONCLUSIVE, MIN_SEEDS, NOT_REPRODUCED, ClaimSet, Inconclusive, Outcome,
                                        decide, finite, ratio_outcome)
from privopt.pipeline.claims import fmt_sig as _fmt
from privopt.pipeline.protocol import Finding
from privopt.experiments.shariff2018 import runs
from privopt.experiments.shariff2018.exact import delta_name
from privopt.experiments.shariff2018.tables import bootstrap_slope_ci, ols_slope
from privopt.pipeline.stats import spearman as _spearman
from privopt.pipeline.stats import welch_p as _welch

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


# ----------------------------------------------------------------------------- Figure 1


@CLAIMS.claim("F1.a", "fig1", "The plotted set has K unit vectors in R^d, exactly one with <x,θ*> = 0.75, all others in "
              "[−0.75, 0.75 − Δ].", "exact (1e-9)", needs=("fig1",))
def _f1a(tables, settings, opt_mean: float = 0.75, low: float = -0.75) -> Outcome:
    points = tables["fig1"]
    K, gap = settings["fig1"]["K"], settings["fig1"]["gap"]
    arms = points[points["kind"] != "theta"]
    theta_rows = points[points["kind"] == "theta"]
    if theta_rows.empty:
        raise Inconclusive("the table has no θ* row", needs="the θ* row of the Figure 1 table")
    theta = theta_rows.filter(regex=r"^x\d+$").to_numpy()[0]
    X = arms.filter(regex=r"^x\d+$").to_numpy()
    if not (np.isfinite(X).all() and np.isfinite(theta).all()):
        raise Inconclusive("a coordinate of the decision set is not a finite number", needs="a finite decision set")
    means = X @ theta
    norms = np.linalg.norm(X, axis=1)
    at_top = np.isclose(means, opt_mean, atol=1e-9)
    others = means[~at_top]
    if others.size == 0:
        raise Inconclusive("no sub-optimal action in the table", needs="the sub-optimal actions")
    in_zone = bool(((others >= low - 1e-9) & (others <= opt_mean - gap + 1e-9)).all())
    holds = len(X) == K and np.allclose(norms, 1, atol=1e-9) and int(at_top.sum()) == 1 and in_zone \
        and bool((arms["kind"] == "optimal").to_numpy()[at_top].all())
    return Outcome(f"{len(X)} points; max |‖x‖−1| = {np.abs(norms - 1).max():.1e}; {int(at_top.sum())} at {opt_mean}; "
                   f"others in [{others.min():.4f}, {others.max():.4f}]", holds,
                   details=f"K = {K} unit vectors in R^{X.shape[1]}, others in [{low}, {opt_mean - gap:g}]")


# ----------------------------------------------------------------------------- Figures 2, 3


def _exp1_reading(exp1_runs: pd.DataFrame) -> str:
    dims = sorted(int(d) for d in exp1_runs["d"].unique())
    n = int(exp1_runs.groupby(["reward", "d"]).size().min())
    return f"{len(dims)} of the paper's 17 d, {dims[0]}–{dims[-1]}; {n} runs per (model, d)"


def _exp1_groups(g: pd.DataFrame) -> tuple[list[int], list[np.ndarray]]:
    dims = sorted(int(d) for d in g["d"].unique())
    return dims, [g.loc[g["d"] == d, "regret"].to_numpy(float) for d in dims]


@CLAIMS.claim("F2.a", "fig2", "Regret grows with the dimension d (both reward models).",
              "Spearman(d, R̄_n(d)) ≥ 0.95 for each model", needs=("exp1_runs",))
def _f2a(tables, settings) -> Outcome:
    exp1_runs = tables["exp1_runs"]
    quick, why = exp1_tier(exp1_runs, settings["exp1"])
    rho_min = 0.9 if quick else 0.95
    parts, rhos, his = [], [], []
    for reward, g in exp1_runs.groupby("reward", sort=True):
        dims, groups = _exp1_groups(g)
        rho = _spearman(dims, [x.mean() for x in groups]) if len(dims) >= 3 else float("nan")
        lo, hi = _pct_ci(_spearman_rows(dims, _boot_means(groups, _boot_rng("F2.a", reward)))) \
            if len(dims) >= 3 else (float("nan"), float("nan"))
        parts.append(f"{reward}: ρ = {_fmt(rho)} over {len(dims)} d (95% CI {_ci(lo, hi)})")
        rhos.append(rho)
        his.append(hi)
    threshold = _q(quick, f"Spearman(d, R̄_n(d)) ≥ {rho_min} for each model", _exp1_reading(exp1_runs))
    if not all(math.isfinite(r) for r in rhos):
        return Outcome("; ".join(parts), None, threshold=threshold, details=why,
                       needs="≥ 3 values of d with non-constant mean regret")
    n = int(exp1_runs.groupby(["reward", "d"]).size().min())
    holds, needs, note = _judge(all(r >= rho_min for r in rhos), any(h < rho_min for h in his), n, tested=False,
                                unit="(model, d)", paper_runs=PAPER_EXP1["runs"], undecided=f"the interval of ρ reaches {rho_min}")
    return Outcome("; ".join(parts), holds, threshold=threshold, details="; ".join(x for x in (why, note) if x),
                   needs=needs)


@CLAIMS.claim("F2.b", "fig2", "Regret curves flatten (logarithmic-type regret on a gap instance).",
              "(R̄_n − R̄_{n/2}) / R̄_n ≤ 0.10 for every d and model", needs=("fig2",))
def _f2b(tables, settings) -> Outcome:
    worst, worst_lo, rows, n_min = -np.inf, -np.inf, [], None
    for (reward, d), g in tables["fig2"].groupby(["reward", "d"]):
        g = g.sort_values("t")
        tn = g["t"].max()
        half = g.iloc[(g["t"] - tn / 2).abs().argmin()]
        last = g.iloc[-1]
        rn, rh = float(last["mean"]), float(half["mean"])
        share = (rn - rh) / rn if rn > 0 else float("nan")
        finite(share, what=f"the second-half share of {reward} d={d}")
        # its lower end: the difference less 2 (SEM_n + SEM_{n/2}) (no covariance assumed), over R̄_n + 2 SEM_n
        lo = (rn - rh - 2 * (float(last["sem"]) + float(half["sem"]))) / (rn + 2 * float(last["sem"]))
        worst, worst_lo = max(worst, share), max(worst_lo, lo if math.isfinite(lo) else -np.inf)
        n_min = int(last["n"]) if n_min is None else min(n_min, int(last["n"]))
        rows.append(f"{reward} d={d}: {_fmt(share, 2)}")
    holds, needs, note = _judge(worst <= 0.10, worst_lo > 0.10, n_min or 0, tested=False, unit="(model, d)", paper_runs=PAPER_EXP1["runs"],
                                undecided="the interval of a share reaches 0.10")
    return Outcome(f"max share of R̄_n added in the second half = {_fmt(worst, 3)}; " + ", ".join(rows), holds,
                   details=note, needs=needs)


@CLAIMS.claim("F2.c", "fig2", "±1 rewards give somewhat lower regret than Gaussian N(0,1) noise.",
              "±1 < Gaussian at ≥ 70% of d, geometric-mean ratio in [0.5, 0.97]", needs=("exp1_runs",))
def _f2c(tables, settings) -> Outcome:
    exp1_runs = tables["exp1_runs"]
    if not {"pm1", "gaussian"} <= set(exp1_runs["reward"]):
        raise Inconclusive("needs both reward models", needs="runs of both reward models")
    dims_pm, pm = _exp1_groups(exp1_runs[exp1_runs["reward"] == "pm1"])
    dims_ga, ga = _exp1_groups(exp1_runs[exp1_runs["reward"] == "gaussian"])
    common = sorted(set(dims_pm) & set(dims_ga))
    pm = [pm[dims_pm.index(d)] for d in common]
    ga = [ga[dims_ga.index(d)] for d in common]
    ratio = np.array([a.mean() / b.mean() for a, b in zip(pm, ga)])
    finite(ratio, what="the ±1/Gaussian regret ratio")
    share = float((ratio < 1).mean())
    geo = float(np.exp(np.log(ratio).mean()))
    with np.errstate(divide="ignore", invalid="ignore"):
        boot = _boot_means(pm, _boot_rng("F2.c", "pm1")) / _boot_means(ga, _boot_rng("F2.c", "gaussian"))
        geo_lo, geo_hi = _pct_ci(np.exp(np.log(boot).mean(axis=1)))
    above = int(sum(_pct_ci(boot[:, j])[0] >= 1 for j in range(len(common))))  # ±1 significantly ≥ Gaussian
    n = int(exp1_runs.groupby(["reward", "d"]).size().min())
    holds, needs, note = _judge(share >= 0.7 and 0.5 <= geo <= 0.97,
                                geo_hi < 0.5 or geo_lo > 0.97 or above > 0.3 * len(common), n, tested=False,
                                unit="(model, d)", paper_runs=PAPER_EXP1["runs"], undecided="the interval of the ratio reaches the threshold")
    return Outcome(f"±1 < Gaussian at {share:.0%} of d; geometric mean ratio = {_fmt(geo)} (95% CI "
                   f"{_ci(geo_lo, geo_hi)}); ±1 significantly ≥ Gaussian at {above} of {len(common)} d", holds,
                   details=note, needs=needs)


def _slopes(tables):
    """Per reward model with ≥ 3 values of d: (all-runs slope, per-d-means slope, bootstrap 95% CI)."""
    out = {}
    for reward, g in tables["exp1_runs"].groupby("reward", sort=True):
        if g["d"].nunique() < 3:
            raise Inconclusive(f"{reward}: fewer than 3 values of d", needs="≥ 3 values of d")
        m = g.groupby("d")["regret"].mean()
        out[reward] = (ols_slope(g["d"], g["regret"]), ols_slope(m.index, m.to_numpy()), bootstrap_slope_ci(g))
        finite(out[reward][0], out[reward][1], *out[reward][2], what=f"the {reward} slope")
    return out


@CLAIMS.claim("F3.a", "fig3", "Total regret depends on d super-linearly, roughly quadratically.",
              "OLS slope of log R̂_n on log d in [1.7, 2.3] (all runs and per-d means)", needs=("exp1_runs",))
def _f3a(tables, settings) -> Outcome:
    exp1_runs = tables["exp1_runs"]
    quick, why = exp1_tier(exp1_runs, settings["exp1"])
    lo, hi = (1.6, 2.4) if quick else (1.7, 2.3)
    slopes = _slopes(tables)
    parts = [f"{reward}: b = {b_all:.2f} (all runs, 95% CI [{ci[0]:.2f}, {ci[1]:.2f}]), {b_mean:.2f} (per-d means)"
             for reward, (b_all, b_mean, ci) in slopes.items()]
    supports = all(lo <= b_all <= hi and lo <= b_mean <= hi for b_all, b_mean, _ in slopes.values())
    contradicts = any(ci[1] < lo or ci[0] > hi for _, _, ci in slopes.values())
    n = int(exp1_runs.groupby(["reward", "d"]).size().min())
    holds, needs, note = _judge(supports, contradicts, n, tested=False, unit="(model, d)", paper_runs=PAPER_EXP1["runs"],
                                undecided=f"the slope's interval reaches [{lo}, {hi}]")
    threshold = _q(quick, f"OLS slope of log R̂_n on log d in [{lo}, {hi}] (all runs and per-d means)",
                   _exp1_reading(exp1_runs))
    return Outcome("; ".join(parts), holds, threshold=threshold, details="; ".join(x for x in (why, note) if x),
                   needs=needs)


@CLAIMS.claim("F3.b", "fig3", "The super-linearity is significant.",
              "lower end of the bootstrap 95% CI of b > 1.3 for both models", needs=("exp1_runs",),
              details="1000 bootstrap resamples of runs within each d")
def _f3b(tables, settings) -> Outcome:
    exp1_runs = tables["exp1_runs"]
    quick, why = exp1_tier(exp1_runs, settings["exp1"])
    slopes = _slopes(tables)
    parts = [f"{reward}: 95% CI [{ci[0]:.2f}, {ci[1]:.2f}]" for reward, (_, _, ci) in slopes.items()]
    n = int(exp1_runs.groupby(["reward", "d"]).size().min())
    holds, needs, note = _judge(all(ci[0] > 1.3 for _, _, ci in slopes.values()),
                                any(ci[1] <= 1.3 for _, _, ci in slopes.values()), n, tested=True,
                                unit="(model, d)", paper_runs=PAPER_EXP1["runs"], undecided="the interval of b contains 1.3")
    threshold = _q(quick, "lower end of the bootstrap 95% CI of b > 1.3 for both models", _exp1_reading(exp1_runs))
    return Outcome("; ".join(parts), holds, threshold=threshold, details="; ".join(x for x in (why, note) if x),
                   needs=needs)


# ----------------------------------------------------------------------------- Figure 4


def _at(runs_df: pd.DataFrame, t: int) -> pd.DataFrame:
    """Per-run regret at round t (the recorded point closest to t)."""
    ts = np.sort(runs_df["t"].unique())
    t_use = int(ts[np.abs(ts - t).argmin()])
    return runs_df[runs_df["t"] == t_use]


class _Fig4:
    """Per-run regret of every (gap, variant) at t* = min(plot_until, last simulated round)."""

    def __init__(self, tables, settings):
        s2 = settings["exp2"]
        self.runs = tables["fig4_runs"]
        self.n = int(s2["n"])
        t2 = s2["n_rounds"] or s2["n"]
        self.t_star = min(int(s2["plot_until"]), int(t2))
        self.gamma_rule = s2["wishart_gamma_rule"]
        at = _at(self.runs, self.t_star)
        self.vals = {(g, v): grp["regret"].to_numpy(float) for (g, v), grp in at.groupby(["gap", "variant"])}
        self.gaps = sorted(at["gap"].unique())
        self.mean = {k: float(np.mean(v)) for k, v in self.vals.items()}
        self.t_used = int(at["t"].iloc[0])
        self.t_lab = f"t* = {self.t_used:,}"
        self.quick, self.why = exp2_tier(self.runs, self.t_used)
        self.reading = f"{self.t_lab}, the paper's 2·10^7; {self.runs_min} runs per (variant, Δ), the paper's 30"

    @property
    def runs_min(self) -> int:
        return min((v.size for v in self.vals.values()), default=0)

    def has(self, g, *vs) -> bool:
        return all((g, v) in self.vals for v in vs)

    def threshold(self, text: str) -> str:
        return _q(self.quick, text, self.reading)

    def judge(self, supports, contradicts, *, tested: bool, undecided: str, keys=None):
        n = self.runs_min if keys is None else min(self.vals[k].size for k in keys)
        return _judge(supports, contradicts, n, tested=tested, unit="(variant, Δ)", undecided=undecided)


def _outcome(measured: str, judged, threshold: str | None, why: str) -> Outcome:
    holds, needs, note = judged
    return Outcome(measured, holds, threshold=threshold, details="; ".join(x for x in (why, note) if x), needs=needs)


F4A = "R̄_Gauss < 0.5·R̄_Wishart and one-sided Welch p < 0.01, each Δ"


@CLAIMS.claim("F4.a", "fig4", "The Gaussian mechanism beats the (shifted) Wishart mechanism in both panels.", F4A,
              needs=("fig4_runs",))
def _f4a(tables, settings) -> Outcome:
    f = _Fig4(tables, settings)
    parts, supports, contradicts, gaps = [], True, False, []
    for g in f.gaps:
        if not f.has(g, "gaussian", "wishart"):
            continue
        gaps.append(g)
        a, b = f.vals[g, "gaussian"], f.vals[g, "wishart"]
        p = _welch(a, b, "less")
        r = f.mean[g, "gaussian"] / f.mean[g, "wishart"]
        finite(p, r, what=f"the Δ={g:g} comparison")
        _, lo, _ = _contrast(a, b, 0.5)
        parts.append(f"Δ={g:g}: Gauss/Wishart = {_fmt(r)}, p = {_fmt(p, 2)}")
        supports = supports and r < 0.5 and p < 0.01
        contradicts = contradicts or lo > 0          # R̄_Gauss − 0.5·R̄_Wishart > 0 on its whole interval
    if not gaps:
        raise Inconclusive("no Δ with both Gaussian and Wishart runs", needs="Gaussian and Wishart runs")
    judged = f.judge(supports, contradicts, tested=True, undecided="the interval of R̄_Gauss − 0.5·R̄_Wishart contains 0")
    if set(gaps) != set(f.gaps) and judged[0] is not False:
        judged = (None, "Gaussian and Wishart runs at every Δ", judged[2])
    return _outcome(f"{f.t_lab}; " + "; ".join(parts), judged, f.threshold(F4A), f.why)


F4B = "R̄_NonPrivate < 0.02·min private R̄, each Δ"


@CLAIMS.claim("F4.b", "fig4", "NonPrivate regret is negligible on the scale of the private variants.", F4B,
              needs=("fig4_runs",))
def _f4b(tables, settings) -> Outcome:
    f = _Fig4(tables, settings)
    parts, supports, contradicts, complete = [], True, False, True
    for g in f.gaps:
        priv = [v for v in ("gaussian", "wishart", "wishart_unshifted") if (g, v) in f.mean]
        if (g, "nonprivate") not in f.mean or not priv:
            complete = False
            continue
        finite(f.mean[g, "nonprivate"], *[f.mean[g, v] for v in priv], what=f"the Δ={g:g} mean regret")
        low = min(priv, key=lambda v: f.mean[g, v])
        r = f.mean[g, "nonprivate"] / f.mean[g, low]
        _, lo, _ = _contrast(f.vals[g, "nonprivate"], f.vals[g, low], 0.02)
        parts.append(f"Δ={g:g}: NonPrivate / min private = {_fmt(r)}")
        supports = supports and r < 0.02
        contradicts = contradicts or lo > 0
    if not parts:
        raise Inconclusive("no Δ with NonPrivate and a private variant", needs="NonPrivate and private runs")
    holds, needs, note = f.judge(supports, contradicts, tested=False,
                                 undecided="the interval of R̄_NonPrivate − 0.02·min R̄ contains 0")
    if not complete and holds:
        holds, needs = None, "NonPrivate and private runs at every Δ"
    return _outcome(f"{f.t_lab}; " + "; ".join(parts), (holds, needs, note), f.threshold(F4B), f.why)


@CLAIMS.claim("F4.c", "fig4", "Without a gap (Δ = 0) WishartUnshifted has the largest regret.",
              "WU largest and R̄_WU ≥ 1.3·R̄_Wishart, one-sided Welch p < 0.01", needs=("fig4_runs",))
def _f4c(tables, settings) -> Outcome:
    f = _Fig4(tables, settings)
    ratio_thr, p_thr = (1.2, 0.05) if f.quick else (1.3, 0.01)
    threshold = f.threshold(f"WU largest and R̄_WU ≥ {ratio_thr}·R̄_Wishart, one-sided Welch p < {p_thr}")
    if not f.has(0.0, "wishart", "wishart_unshifted"):
        raise Inconclusive("needs Δ = 0 with Wishart and WishartUnshifted", needs="Δ = 0 runs of Wishart and WU")
    wu = f.vals[0.0, "wishart_unshifted"]
    others = [v for v in VARIANTS_4 if (0.0, v) in f.mean and v != "wishart_unshifted"]
    largest = f.mean[0.0, "wishart_unshifted"] >= max(f.mean[0.0, v] for v in others)
    r = f.mean[0.0, "wishart_unshifted"] / f.mean[0.0, "wishart"]
    p = _welch(wu, f.vals[0.0, "wishart"], "greater")
    finite(p, r, *[f.mean[0.0, v] for v in others], what="the Δ=0 comparison")
    _, _, hi = _contrast(wu, f.vals[0.0, "wishart"], ratio_thr)
    below = [v for v in others if _contrast(wu, f.vals[0.0, v])[2] < 0]   # WU significantly below v
    judged = f.judge(bool(largest) and r >= ratio_thr and p < p_thr, hi < 0 or bool(below), tested=True,
                     undecided=f"the interval of R̄_WU − {ratio_thr}·R̄_Wishart contains 0")
    return _outcome(f"{f.t_lab}; Δ=0: WU/Wishart = {_fmt(r)}, p = {_fmt(p, 2)}, WU largest: {bool(largest)}",
                    judged, threshold, f.why)


def _rel(f: _Fig4, g: float) -> tuple[float, float]:
    """R̄_WU/R̄_W − 1 at gap g and its standard error (delta method, independent samples)."""
    a, b = f.vals[g, "wishart_unshifted"], f.vals[g, "wishart"]
    ma, mb = a.mean(), b.mean()
    sa = a.std(ddof=1) / math.sqrt(a.size) if a.size > 1 else math.inf
    sb = b.std(ddof=1) / math.sqrt(b.size) if b.size > 1 else math.inf
    return float(ma / mb - 1), float(ma / mb * math.hypot(sa / ma, sb / mb))


F4D = "two-sided Welch p > 0.05, |R̄_WU − R̄_W|/R̄_W ≤ 0.15 at Δ=0.1, and ≥ 0.2 smaller than at Δ=0"
F4D_CLAIM20 = "claim20 γ': |rel. diff.| ≤ 0.25 at Δ=0.1 and ≥ 0.2 below Δ=0 (p reported only)"


@CLAIMS.claim("F4.d", "fig4", "With a large gap (Δ = 0.1) WishartUnshifted and Wishart are about equal.", F4D,
              needs=("fig4_runs",))
def _f4d(tables, settings) -> Outcome:
    f = _Fig4(tables, settings)
    if not (f.has(0.1, "wishart", "wishart_unshifted") and f.has(0.0, "wishart", "wishart_unshifted")):
        raise Inconclusive("needs Δ = 0 and Δ = 0.1 with Wishart and WishartUnshifted",
                           needs="Δ = 0 and Δ = 0.1 runs of Wishart and WU")
    (r01, se01), (r0, se0) = _rel(f, 0.1), _rel(f, 0.0)
    p = _welch(f.vals[0.1, "wishart_unshifted"], f.vals[0.1, "wishart"], "two-sided")
    finite(r01, r0, what="the relative differences")
    measured = f"{f.t_lab}; rel. diff. Δ=0.1: {_fmt(r01)} (p = {_fmt(p, 2)}); Δ=0: {_fmt(r0)}"
    claim20 = f.gamma_rule == "claim20"
    tol = 0.25 if claim20 else 0.15
    a, b = f.vals[0.1, "wishart_unshifted"], f.vals[0.1, "wishart"]
    outside = _contrast(a, b, 1 + tol)[1] > 0 or _contrast(a, b, 1 - tol)[2] < 0   # |rel| > tol on its interval
    drop, se_drop = r0 - abs(r01), math.hypot(se0, se01)
    no_drop = drop + 2 * se_drop < 0.2
    if claim20:
        supports, contradicts, undecided = abs(r01) <= tol and drop >= 0.2, outside or no_drop, \
            "the interval of the relative difference reaches 0.25"
        threshold = f.threshold(F4D_CLAIM20)
    else:
        finite(p, what="the Δ=0.1 Welch p")
        supports = p > 0.05 and abs(r01) <= tol and drop >= 0.2
        contradicts = p < 0.05 or outside or no_drop      # with ≥ 10 runs: a difference the test detects
        undecided, threshold = "the interval of the relative difference reaches 0.15", f.threshold(F4D)
    judged = f.judge(supports, contradicts, tested=not claim20, undecided=undecided)
    return _outcome(measured, judged, threshold, f.why)


@CLAIMS.claim("F4.e", "fig4", "The curves are essentially flat after 2·10^7 rounds.",
              "share of R̄(n) added after 2·10^7 ≤ 0.03 (Δ=0.1, all) and ≤ 0.20 (Δ=0, all but WU)", needs=("fig4_runs",))
def _f4e(tables, settings) -> Outcome:
    f = _Fig4(tables, settings)
    fig4_runs, n = f.runs, f.n
    t_max = int(fig4_runs["t"].max())
    if not (t_max >= n and (fig4_runs["t"] <= 2 * 10**7).any() and t_max > 2 * 10**7):
        raise Inconclusive(f"runs stop at t = {t_max:,} < n = {n:,} (prefix runs): paper scale only",
                           needs=f"runs to n = {n:,} (F4.e has no quick threshold)")
    a, b = _at(fig4_runs, 2 * 10**7), _at(fig4_runs, n)
    ok, contra, parts, checked, n_min = True, False, [], 0, None
    for (g, v), gb in b.groupby(["gap", "variant"]):
        ga = a[(a["gap"] == g) & (a["variant"] == v)]
        inc = gb.set_index("seed")["regret"] - ga.set_index("seed")["regret"]   # per run: added after 2·10^7
        mb = float(gb["regret"].mean())
        s = float(inc.mean()) / mb
        finite(s, what="the share added after 2·10^7")
        se = float(inc.std(ddof=1) / math.sqrt(inc.size)) / mb if inc.size > 1 else math.inf
        parts.append(f"Δ={g:g} {v}: {_fmt(s, 2)}")
        thr = 0.03 if g == 0.1 else 0.20 if (g == 0.0 and v != "wishart_unshifted") else None
        if thr is not None:
            ok, contra, checked = ok and s <= thr, contra or s - 2 * se > thr, checked + 1
            n_min = inc.size if n_min is None else min(n_min, inc.size)
    if not checked:
        raise Inconclusive("no curve the claim speaks about (Δ = 0 or Δ = 0.1 without WU)",
                           needs="runs at Δ = 0 and Δ = 0.1")
    judged = _judge(ok, contra, n_min, tested=False, unit="(variant, Δ)",
                    undecided="the interval of a share reaches its threshold")
    return _outcome("; ".join(parts), judged, None, "")


@CLAIMS.claim("F4.f", "fig4", "No Cholesky failures of V_t in any Gaussian or shifted-Wishart run.", "0",
              needs=("fig4_runs",),
              details="an exact check over the rounds that ran (shariff2018 reading R3: a failure at the default shifts is a bug)")
def _f4f(tables, settings) -> Outcome:
    fig4_runs = tables["fig4_runs"]
    priv = fig4_runs[fig4_runs["variant"].isin(["gaussian", "wishart"])]
    if priv.empty:
        raise Inconclusive("no Gaussian or shifted-Wishart run", needs="Gaussian and shifted-Wishart runs")
    if not np.isfinite(priv["pd_failures"].to_numpy(float)).all():
        raise Inconclusive("a Cholesky failure count is not a finite number", needs="finite failure counters")
    fails = int(priv.groupby(["gap", "variant", "seed"])["pd_failures"].max().sum())
    return Outcome(f"{fails} failures over {priv.groupby(['gap', 'variant', 'seed']).ngroups} runs of "
                   f"{int(priv['t'].max()):,} rounds", fails == 0)


# ----------------------------------------------------------------------------- Figure 5


class _Fig5:
    """Final regret per (mechanism, gap, ρ_min); ρ_def (the default) and ρ_top (largest) per mechanism."""

    def __init__(self, tables, settings):
        s3 = settings["exp3"]
        self.runs = fig5_runs = tables["fig5_runs"]
        self.mechs = sorted(fig5_runs["mechanism"].unique())
        self.mean = fig5_runs.groupby(["mechanism", "gap", "rho_min"])["regret"].mean()
        defaults = {m: next(iter(runs.default_rho(m, s3["n"], s3["d"], s3["eps"], s3["delta"],
                                                  k_rule=s3["k_rule"]).values())) for m in self.mechs}
        self.info = {}
        for mech in self.mechs:
            grid = np.sort(fig5_runs.loc[fig5_runs["mechanism"] == mech, "rho_min"].unique())
            i = np.abs(np.log(grid) - math.log(defaults[mech])).argmin()
            rdef = float(grid[i]) if abs(math.log(grid[i] / defaults[mech])) < 1e-6 else None
            self.info[mech] = (rdef, float(grid.max()))
        self.gaps = sorted(fig5_runs["gap"].unique())
        self.quick, self.why = exp3_tier(fig5_runs)
        self.runs_min = int(fig5_runs.groupby(["mechanism", "gap", "rho_min"])["seed"].nunique().min())
        t_end = int(fig5_runs["t"].max())
        self.reading = (f"regret at t = {t_end:,}, the paper's at {PAPER_EXP3['n']:,}; {len(self.gaps)} gaps; "
                        f"{self.runs_min} runs per point, the paper's 30")

    def vals(self, mech, gap, rho):
        r = self.runs
        return r[(r["mechanism"] == mech) & (r["gap"] == gap) & (r["rho_min"] == rho)]["regret"].to_numpy(float)

    def threshold(self, text: str) -> str:
        return _q(self.quick, text, self.reading)

    def judge(self, supports, contradicts, *, tested: bool, undecided: str):
        return _judge(supports, contradicts, self.runs_min, tested=tested, unit="(mechanism, Δ, ρ_min)",
                      undecided=undecided)


F5A = "R̄(ρ_top, 0) ≥ 1.5·R̄(ρ_def, 0), one-sided Welch p < 0.01, both mechanisms"


@CLAIMS.claim("F5.a", "fig5", "Without a gap, over-regularisation (largest ρ_min) hurts a lot.", F5A,
              needs=("fig5_runs",))
def _f5a(tables, settings) -> Outcome:
    f = _Fig5(tables, settings)
    parts, supports, contradicts, complete = [], True, False, True
    for mech in f.mechs:
        rdef, rtop = f.info[mech]
        if rdef is None or 0.0 not in f.gaps:
            complete = False
            parts.append(f"{mech}: default ρ or Δ = 0 not run")
            continue
        top, dflt = f.vals(mech, 0.0, rtop), f.vals(mech, 0.0, rdef)
        r = f.mean[mech, 0.0, rtop] / f.mean[mech, 0.0, rdef]
        p = _welch(top, dflt, "greater")
        finite(r, p, what=f"the {mech} comparison")
        parts.append(f"{mech}: R̄(ρ_top)/R̄(ρ_def) = {_fmt(r)}, p = {_fmt(p, 2)}")
        supports = supports and r >= 1.5 and p < 0.01
        contradicts = contradicts or _contrast(top, dflt, 1.5)[2] < 0
    judged = f.judge(supports and complete, contradicts, tested=True,
                     undecided="the interval of R̄(ρ_top, 0) − 1.5·R̄(ρ_def, 0) contains 0")
    if not complete and judged[0] is not False:
        judged = (None, "the default ρ_min and Δ = 0 for both mechanisms", judged[2])
    return _outcome("; ".join(parts), judged, f.threshold(F5A), f.why)


@CLAIMS.claim("F5.b", "fig5", "With a large gap over-regularisation costs much less (the paper's main point).",
              "Inc(0.1) ≤ 0.35·Inc(0) for both mechanisms", needs=("fig5_runs",))
def _f5b(tables, settings) -> Outcome:
    f = _Fig5(tables, settings)
    thr = 0.6 if f.quick else 0.35
    parts, supports, contradicts, complete = [], True, False, True
    for mech in f.mechs:
        rdef, rtop = f.info[mech]
        if rdef is None or not {0.0, 0.1} <= set(f.gaps):
            complete = False
            continue
        cells = [f.vals(mech, 0.1, rtop), f.vals(mech, 0.1, rdef), f.vals(mech, 0.0, rtop), f.vals(mech, 0.0, rdef)]
        inc0 = f.mean[mech, 0.0, rtop] - f.mean[mech, 0.0, rdef]
        inc1 = f.mean[mech, 0.1, rtop] - f.mean[mech, 0.1, rdef]
        finite(float(inc0), float(inc1), what=f"Inc(0) or Inc(0.1) of {mech}")
        means = [c.mean() for c in cells]
        sems = [c.std(ddof=1) / math.sqrt(c.size) if c.size > 1 else math.inf for c in cells]
        dfs = [c.size - 1 for c in cells]
        _, lo, _ = _linear(means, sems, [1, -1, -thr, thr], dfs)          # Inc(0.1) − thr·Inc(0)
        _, _, hi0 = _linear(means[2:], sems[2:], [1, -1], dfs[2:])        # Inc(0)
        parts.append(f"{mech}: Inc(0.1) = {_fmt(inc1)}, Inc(0) = {_fmt(inc0)}, "
                     f"ratio {_fmt(inc1 / inc0 if inc0 else float('nan'))}")
        supports = supports and inc0 > 0 and inc1 <= thr * inc0
        contradicts = contradicts or lo > 0 or hi0 < 0
    if not parts:
        raise Inconclusive("the default ρ_min, Δ = 0 or Δ = 0.1 not run", needs="Δ = 0 and Δ = 0.1 at ρ_def and ρ_top")
    judged = f.judge(supports and complete, contradicts, tested=False,
                     undecided=f"the interval of Inc(0.1) − {thr}·Inc(0) contains 0")
    if not complete and judged[0] is not False:
        judged = (None, "Δ = 0 and Δ = 0.1 at ρ_def and ρ_top for both mechanisms", judged[2])
    return _outcome("; ".join(parts), judged, f.threshold(f"Inc(0.1) ≤ {thr}·Inc(0) for both mechanisms"), f.why)


def _f5_boot(f: _Fig5, mech: str, gaps, rhos_of) -> dict:
    """Bootstrap means (n_boot × |ρ|) per gap of one mechanism, for the ρ values ``rhos_of(gap)``."""
    rng = _boot_rng("fig5", mech)
    return {g: _boot_means([f.vals(mech, g, r) for r in rhos_of(g)], rng) for g in gaps}


@CLAIMS.claim("F5.c", "fig5", "Sensitivity to ρ_min (range over ρ ≥ ρ_def) decreases with the gap.",
              "range largest at Δ=0, smallest at Δ=0.1, Spearman(Δ, range) ≤ −0.7", needs=("fig5_runs",))
def _f5c(tables, settings) -> Outcome:
    f = _Fig5(tables, settings)
    two_gaps = f.quick or len(f.gaps) < 5
    parts, supports, contradicts, complete = [], True, False, True
    for mech in f.mechs:
        rdef, _ = f.info[mech]
        if rdef is None or not {0.0, 0.1} <= set(f.gaps):
            complete = False
            continue
        rng_by_gap = {}
        for g in f.gaps:
            s = f.mean[mech, g]
            s = s[s.index >= rdef]
            rng_by_gap[g] = float(s.max() - s.min())
        r = list(rng_by_gap.values())
        finite(r, what=f"the {mech} ranges")
        grid = sorted(float(x) for x in f.mean[mech, f.gaps[0]].index if x >= rdef)
        boot = _f5_boot(f, mech, f.gaps, lambda g: grid)
        ranges = np.column_stack([np.ptp(boot[g], axis=1) for g in f.gaps])
        extremes = rng_by_gap[0.0] == max(r) and rng_by_gap[0.1] == min(r)
        if two_gaps:
            holds = rng_by_gap[0.0] > rng_by_gap[0.1]
            lo, hi = _pct_ci(ranges[:, f.gaps.index(0.0)] - ranges[:, f.gaps.index(0.1)])
            contra = hi < 0
            rho = float("nan")
            ci = f"; range(0) − range(0.1) 95% CI {_ci(lo, hi)}"
        else:
            rho = _spearman(f.gaps, r)
            finite(rho, what=f"the {mech} rank correlation")
            holds = extremes and rho <= -0.7
            lo, hi = _pct_ci(_spearman_rows(f.gaps, ranges))
            contra = lo > -0.7
            ci = f" (95% CI {_ci(lo, hi, 2)})"
        parts.append(f"{mech}: range " + ", ".join(f"Δ={g:g}: {_fmt(v)}" for g, v in rng_by_gap.items())
                     + (f"; Spearman {_fmt(rho, 2)}" if math.isfinite(rho) else "") + ci)
        supports, contradicts = supports and bool(holds), contradicts or bool(contra)
    if not parts:
        raise Inconclusive("the default ρ_min, Δ = 0 or Δ = 0.1 not run", needs="Δ = 0 and Δ = 0.1 above ρ_def")
    thr_c = ("range(Δ=0) > range(Δ=0.1) (quick: the two extreme gaps only)" if two_gaps
             else "range largest at Δ=0, smallest at Δ=0.1, Spearman(Δ, range) ≤ −0.7")
    judged = f.judge(supports and complete, contradicts, tested=False,
                     undecided="the interval of the comparison reaches its threshold")
    if not complete and judged[0] is not False:
        judged = (None, "Δ = 0 and Δ = 0.1 above ρ_def for both mechanisms", judged[2])
    return _outcome("; ".join(parts), judged, f.threshold(thr_c), f.why)


@CLAIMS.claim("F5.d", "fig5", "At the largest ρ_min, regret decreases with the gap.", "Spearman(Δ, R̄(ρ_top, Δ)) ≤ −0.8",
              needs=("fig5_runs",))
def _f5d(tables, settings) -> Outcome:
    f = _Fig5(tables, settings)
    if len(f.gaps) < 3:
        raise Inconclusive(f"{len(f.gaps)} gaps run; needs at least 3", needs="≥ 3 gaps (the paper: 5)")
    parts, supports, contradicts = [], True, False
    for mech in f.mechs:
        _, rtop = f.info[mech]
        y = [f.mean[mech, g, rtop] for g in f.gaps]
        rho = _spearman(f.gaps, y)
        finite(rho, what=f"the {mech} rank correlation")
        boot = _boot_means([f.vals(mech, g, rtop) for g in f.gaps], _boot_rng("F5.d", mech))
        lo, hi = _pct_ci(_spearman_rows(f.gaps, boot))
        parts.append(f"{mech}: Spearman(Δ, R̄(ρ_top)) = {_fmt(rho, 2)} over {len(f.gaps)} gaps (95% CI {_ci(lo, hi, 2)})")
        supports, contradicts = supports and rho <= -0.8, contradicts or lo > -0.8
    judged = f.judge(supports, contradicts, tested=False, undecided="the interval of ρ reaches −0.8")
    details = "; ".join(x for x in (f.why, "" if len(f.gaps) >= 5 else f"{len(f.gaps)} gaps run (paper 5)") if x)
    return _outcome("; ".join(parts), judged, f.threshold("Spearman(Δ, R̄(ρ_top, Δ)) ≤ −0.8"), details)


@CLAIMS.claim("F5.e", "fig5", "[descriptive] Location of the minimum over ρ_min per mechanism and gap.",
              "none (the paper states no expectation; reported, not gated)", needs=("fig5_runs",))
def _f5e(tables, settings) -> Outcome:
    f = _Fig5(tables, settings)
    parts = []
    for mech in f.mechs:
        for g in f.gaps:
            s = f.mean[mech, g]
            parts.append(f"{mech} Δ={g:g}: min at ρ = {_fmt(float(s.idxmin()))} (R̄ {_fmt(float(s.min()))})")
    return Outcome("; ".join(parts), None, needs="nothing: descriptive, the paper states no expectation")


# ----------------------------------------------------------------------------- all


S1_THRESHOLD = 0.99   # shariff2018 reading R20, S.1: bounds hold on ≥ 99% of audited rounds, per private configuration
S2_THRESHOLD = 1.0    # shariff2018 reading R20, S.2: the confidence set contains θ* on all audited rounds
S1_SAMPLE = 10_000    # shariff2018 reading R20, S.1: audited rounds per private configuration


def _pct(x: float) -> str:
    return "nan" if not math.isfinite(x) else f"{100 * x:.2f}%"


def _is_private(audit: pd.DataFrame) -> pd.Series:
    return audit["mechanism"] != "none" if "mechanism" in audit else audit["variant"] != "nonprivate"


def audit_checks(audit: pd.DataFrame) -> pd.DataFrame:
    """Per audited round, whether each bound holds (non-finite values, e.g. H_t not PD, count as violations):
    ``lam_min_ok`` ρ_min ≤ λ_min(H_t), ``lam_max_ok`` λ_max(H_t) ≤ ρ_max, ``h_ok`` ‖h_t‖_{H_t⁻¹} ≤ γ,
    ``s1`` all three (NaN for non-private variants, to which S.1 does not apply), ``s2`` ‖θ* − θ̃_t‖_{V_t} ≤ β_t."""
    out = pd.DataFrame({"gap": audit["gap"], "variant": audit["variant"]})
    out["lam_min_ok"] = audit["lambda_min_H"] >= audit["rho_min"]
    out["lam_max_ok"] = audit["lambda_max_H"] <= audit["rho_max"]
    out["h_ok"] = audit["h_norm_Hinv"] <= audit["gamma"]
    s1 = (out["lam_min_ok"] & out["lam_max_ok"] & out["h_ok"]).astype(float)
    out["s1"] = s1.where(_is_private(audit))
    out["s2"] = (audit["conf_norm_V"] <= audit["beta"]).astype(float)
    return out


def audit_shares(audit: pd.DataFrame) -> pd.DataFrame:
    """Per configuration (variant, gap): audited rounds ``n`` and the shares ``s1`` (NaN for NonPrivate),
    ``s2``, ``lam_min_ok``, ``lam_max_ok``, ``h_ok`` of rounds where the bounds of S.1/S.2 hold."""
    checks = audit_checks(audit)
    cols = ["s1", "s2", "lam_min_ok", "lam_max_ok", "h_ok"]
    shares = checks.groupby(["variant", "gap"], sort=True)[cols].mean()
    shares.insert(0, "n", checks.groupby(["variant", "gap"], sort=True).size())
    return shares.reset_index()


def _share_parts(shares: pd.DataFrame, checks: pd.DataFrame, col: str) -> list[str]:
    """'variant: pooled share of n (Δ=…: share of n, …)' for each variant with a value of ``col``."""
    parts = []
    for variant, g in shares.dropna(subset=[col]).groupby("variant", sort=True):
        pooled = float(checks.loc[checks["variant"] == variant, col].mean())
        gaps = ", ".join(f"Δ={r.gap:g}: {_pct(getattr(r, col))} of {r.n:,}" for r in g.itertuples())
        parts.append(f"{variant}: {_pct(pooled)} of {int(g['n'].sum()):,} ({gaps})")
    return parts


S1_STATEMENT = "ρ_min ≤ λ_min(H_t), λ_max(H_t) ≤ ρ_max and ‖h_t‖_{H_t⁻¹} ≤ γ on ≥ 99% of audited rounds."
S2_STATEMENT = "The confidence set contains θ*: ‖θ* − θ̃_t‖_{V_t} ≤ β_t on audited rounds."


class _Audit:
    """The audited rounds of Experiment 2 (``fig4_audit``), their checks and per-configuration shares."""

    def __init__(self, tables, settings):
        audit = tables.get("fig4_audit")
        if audit is None or len(audit) == 0:
            off = settings["exp2"].get("audit_rounds") == 0
            raise Inconclusive("not audited: " + ("the audit is off (shariff2018.exp2.audit_rounds = 0)" if off
                                                  else "no audited rounds in the Exp. 2 runs"),
                               needs="audited rounds (shariff2018.exp2.audit_rounds > 0)")
        self.audit = audit
        self.checks, self.shares = audit_checks(audit), audit_shares(audit)
        per_run = audit.groupby(["gap", "variant", "seed"]).size()
        lo_n, hi_n = int(per_run.min()), int(per_run.max())
        self.sampling = (f"Exp. 2 runs; {lo_n if lo_n == hi_n else f'{lo_n}–{hi_n}'} rounds per run drawn at random "
                         f"(seeded audit stream), at least {int(self.shares['n'].min()):,} per (variant, Δ)")


@CLAIMS.claim("S.1", "fig4", S1_STATEMENT,
              f"≥ {S1_THRESHOLD:.0%} of audited rounds in every private configuration (variant, Δ)")
def _s1(tables, settings) -> Outcome:
    """S.1 per private configuration (variant ≠ NonPrivate, Δ): share of audited rounds with ρ_min ≤ λ_min(H_t),
    λ_max(H_t) ≤ ρ_max and ‖h_t‖_{H_t⁻¹} ≤ γ, each ≥ 99%."""
    a = _Audit(tables, settings)
    audit, checks, shares = a.audit, a.checks, a.shares
    private = shares.dropna(subset=["s1"])
    if not len(private):
        return Outcome("no private variant audited", None, details=a.sampling,
                       needs="audited rounds of a private variant")
    worst = float(private["s1"].min())
    extremes = []
    for variant, g in audit[_is_private(audit)].groupby("variant", sort=True):
        c = checks.loc[g.index]
        extremes.append(
            f"{variant}: min λ_min/ρ_min = {_fmt(float((g['lambda_min_H'] / g['rho_min']).min()), 4)}, "
            f"max λ_max/ρ_max = {_fmt(float((g['lambda_max_H'] / g['rho_max']).max()), 4)}, "
            f"max ‖h‖/γ = {_fmt(float((g['h_norm_Hinv'] / g['gamma']).max()), 3)}; shares of the "
            f"λ_min/λ_max/‖h‖ bounds {_pct(float(c['lam_min_ok'].mean()))}/{_pct(float(c['lam_max_ok'].mean()))}/"
            f"{_pct(float(c['h_ok'].mean()))}")
    small = int(private["n"].min()) < S1_SAMPLE
    # the Clopper–Pearson 95% upper end of each configuration's share: below 99% the data exclude the claim
    upper = [_cp_upper(int(round(r.s1 * r.n)), int(r.n)) for r in private.itertuples()]
    holds = decide(worst >= S1_THRESHOLD, min(upper) < S1_THRESHOLD and worst < S1_THRESHOLD)
    details = (a.sampling + " | " + " | ".join(extremes)
               + (f" | design sample: {S1_SAMPLE:,} rounds per configuration" if small else ""))
    return Outcome(f"{len(private)} private configurations, smallest share {_pct(worst)} (95% upper end "
                   f"{_pct(upper[int(np.argmin(private['s1'].to_numpy()))])}); "
                   + "; ".join(_share_parts(shares, checks, "s1")), holds, details=details,
                   needs="" if holds is not None else
                   f"more audited rounds: the interval of the smallest share reaches {S1_THRESHOLD:.0%} "
                   f"(the design: {S1_SAMPLE:,} per configuration)")


def _cp_upper(k: int, n: int, level: float = LEVEL) -> float:
    """Clopper–Pearson upper end of a share of k successes in n."""
    return 1.0 if k >= n else float(_st.beta.ppf(0.5 + level / 2, k + 1, n - k))


@CLAIMS.claim("S.2", "fig4", S2_STATEMENT, "100% of audited rounds in every configuration (variant, Δ)",
              details="exact: one audited round outside the confidence set contradicts it")
def _s2(tables, settings) -> Outcome:
    """S.2 per configuration (all variants): share of audited rounds with ‖θ* − θ̃_t‖_{V_t} ≤ β_t, each 100%."""
    a = _Audit(tables, settings)
    audit, shares = a.audit, a.shares
    worst = float(shares["s2"].min())
    ratio = (audit["conf_norm_V"] / audit["beta"]).groupby(audit["variant"]).max()
    details = (a.sampling + " | max ‖θ* − θ̃_t‖_{V_t}/β_t: "
               + ", ".join(f"{v}: {_fmt(float(r), 3)}" for v, r in ratio.items()))
    return Outcome(f"{len(shares)} configurations, smallest share {_pct(worst)}; "
                   + "; ".join(_share_parts(shares, a.checks, "s2")), worst >= S2_THRESHOLD, details=details)


# ----------------------------------------------------------------------------- Figure 4c (new, beyond the paper)

BEYOND = "(beyond the paper) "
#: what each counter of Figure 4c keeps fixed against the paper's path tree (the claims' statements)
F4C_WHAT = {"tree": "the dyadic binary tree on the same symmetric Gaussian nodes",
            "honaker": "Honaker's estimator on that tree (post-processing)",
            "smooth": "the smooth binary mechanism"}


def _ratio_rows(t: pd.DataFrame, by: list[str], column: str, mine: str, base: str, name, baseline: str,
                details) -> list[Outcome]:
    """One outcome per group ``by`` of a paired-ratio table (Figures 4c and 4e): at its last round, the row
    ``column == mine`` against the row ``column == base`` (mean regret ratio and its 95 % paired-bootstrap
    interval, :func:`~privopt.pipeline.claims.ratio_outcome`); ``name(key)`` names a group, ``details(r, b, n)``
    says what else to show of the two rows."""
    out = []
    for key, g in t.groupby(by, sort=True):
        T = int(g["t"].max())
        at = g[g["t"] == T].set_index(column)
        reading = name(key)
        if mine not in at.index or base not in at.index:
            out.append(Outcome(f"{reading}: the {mine} or {base} runs are missing", None, reading=reading,
                               needs=f"the {mine} and {base} runs"))
            continue
        r, b = at.loc[mine], at.loc[base]
        n = int(r["n"])
        est, lo, hi = (float(r[k]) for k in ("ratio", "ratio_lo", "ratio_hi"))
        text = (f"{reading}, t = {T:,}: mean regret {mine}/{base} = {est:.3f} (95 % paired bootstrap {lo:.3f} … "
                f"{hi:.3f}); {_fmt(r['mean'])} against {_fmt(b['mean'])}")
        out.append(ratio_outcome(text, est, lo, hi, n, reading=reading, details=details(r, b, n), unit="runs",
                                 where="at this horizon", longer="a longer horizon",
                                 no_interval=(" (no interval)", f"a positive mean regret of {baseline}")))
    return out


def _f4c_ratio(tables, counter) -> list[Outcome]:
    def details(r, path, n):
        return (f"{n} runs; ρ_min {_fmt(r['rho_min'])} against the path's {_fmt(path['rho_min'])} (ratio "
                f"{r['rho_min'] / path['rho_min']:.3f}), node σ {_fmt(r['sigma'])} against {_fmt(path['sigma'])}; "
                f"Cholesky fallbacks {int(r['pd_failures'])}")

    return _ratio_rows(tables["fig4c_ratio"], ["gap"], "counter", counter, "path", lambda key: f"Δ = {key[0]:g}",
                       "the path tree", details)


_F4C_THRESHOLD = ("at the last simulated round, per gap: the 95 % paired-bootstrap interval (over runs) of mean regret "
                  "{c}/path lies below 1 (reproduced), above 1 (not reproduced), else inconclusive")


@CLAIMS.claim("F4c.a", "fig4c", BEYOND + "Honaker's estimator on the dyadic tree (the paper's privacy) lowers the "
              "Gaussian variant's regret against the paper's path tree.", _F4C_THRESHOLD.format(c="honaker"),
              needs=("fig4c_ratio",), details="privacy: " + F4C_WHAT["honaker"] + ", equal ‖C‖_col,2/σ")
def _f4ca(tables, settings):
    return _f4c_ratio(tables, "honaker")


@CLAIMS.claim("F4c.b", "fig4c", BEYOND + "The smooth binary mechanism (the paper's privacy) lowers the Gaussian "
              "variant's regret against the paper's path tree.", _F4C_THRESHOLD.format(c="smooth"),
              needs=("fig4c_ratio",), details="privacy: " + F4C_WHAT["smooth"] + ", equal ‖C‖_col,2/σ")
def _f4cb(tables, settings):
    return _f4c_ratio(tables, "smooth")


@CLAIMS.claim("F4c.c", "fig4c", BEYOND + "Releasing only the dyadic decomposition's nodes (the 2010 binary tree, the "
              "paper's privacy) lowers the Gaussian variant's regret against summing all m path nodes.",
              _F4C_THRESHOLD.format(c="tree"), needs=("fig4c_ratio",),
              details="privacy: " + F4C_WHAT["tree"] + ", equal ‖C‖_col,2/σ")
def _f4cc(tables, settings):
    return _f4c_ratio(tables, "tree")


def _f4c_finding(t: pd.DataFrame) -> Finding | None:
    """Figure 4c: each counter's regret ratio to the path tree at the last round, per gap."""
    T = int(t["t"].max())
    last = t[(t["t"] == T) & (t["counter"] != "path")]
    if last.empty:
        return None
    parts = [f"Δ = {gap:g}: " + ", ".join(f"{r.counter} {r.ratio:.2f} [{r.ratio_lo:.2f}, {r.ratio_hi:.2f}]"
                                        for r in g.itertuples()) for gap, g in last.groupby("gap", sort=True)]
    return Finding(f"Figure 4c (beyond the paper), at t = {T:,} ({int(last['n'].min())} runs): the Gaussian variant's "
                   "mean regret with each continual counter as a ratio to the paper's path tree at the same privacy "
                   "(95 % paired bootstrap): " + "; ".join(parts) + ".", figure="fig4c")


# ----------------------------------------------------------------------------- Figure 4e (new, beyond the paper)

#: Figure 4e's variant roles (:data:`privopt.experiments.shariff2018.exact.ROLES`) the claims compare with the
#: paper's calibration ("gaussian"), in words
F4E_WHAT = {"gaussian_exact": "σ calibrated exactly, the paper's path tree",
            "gaussian_exact_counter": "σ calibrated exactly, with the best counter of Figure 4c"}


def _f4e_ratio(tables, role) -> list[Outcome]:
    def details(r, paper, n):
        what = "σ of the counter's seeds" if role == "gaussian_exact_counter" else "node σ"
        return (f"{n} runs; {what} {_fmt(r['sigma'])} against the paper's node σ {_fmt(paper['sigma'])} (ratio "
                f"{paper['sigma'] / r['sigma']:.2f}), ρ_min {_fmt(r['rho_min'])} against {_fmt(paper['rho_min'])}"
                + (f", counter {r['counter']}" if role == "gaussian_exact_counter" else "")
                + f"; Cholesky fallbacks {int(r['pd_failures'])}")

    return _ratio_rows(tables["fig4e_ratio"], ["gap", "delta"], "variant", role, "gaussian",
                       lambda key: f"Δ = {key[0]:g}, {delta_name(key[1])}", "the paper's calibration", details)


_F4E_THRESHOLD = ("at the last simulated round, per (gap, δ): the 95 % paired-bootstrap interval (over runs) of mean "
                  "regret {v}/gaussian lies below 1 (reproduced), above 1 (not reproduced), else inconclusive")


@CLAIMS.claim("F4e.a", "fig4e", BEYOND + "Calibrating the Gaussian variant's node σ exactly to the paper's own (ε, δ) "
              "(the analytic Gaussian mechanism of the m node releases of one item) lowers its regret against the "
              "paper's calibration σ = 4√m·L̃²·log(4/δ)/ε.", _F4E_THRESHOLD.format(v="gaussian_exact"),
              needs=("fig4e_ratio",), details="privacy: the paper's (ε, δ) for both; " + F4E_WHAT["gaussian_exact"])
def _f4ea(tables, settings):
    return _f4e_ratio(tables, "gaussian_exact")


@CLAIMS.claim("F4e.b", "fig4e", BEYOND + "With its node σ calibrated exactly and the best continual counter of "
              "Figure 4c, the Gaussian variant's regret is below the paper's calibration's.",
              _F4E_THRESHOLD.format(v="gaussian_exact_counter"), needs=("fig4e_ratio",),
              details="privacy: the paper's (ε, δ) for both; " + F4E_WHAT["gaussian_exact_counter"])
def _f4eb(tables, settings):
    return _f4e_ratio(tables, "gaussian_exact_counter")


def _f4e_finding(t: pd.DataFrame) -> Finding | None:
    """Figure 4e: each variant's regret ratio to the paper's calibration at the last round, per (gap, δ), and the
    share of the private-to-non-private gap the exact calibration closes."""
    T = int(t["t"].max())
    last = t[t["t"] == T]
    if last.empty or not {"gaussian", "gaussian_exact"} <= set(last["variant"]):
        return None
    parts = []
    for (gap, delta), g in last.groupby(["gap", "delta"], sort=True):
        at = g.set_index("variant")
        if "gaussian" not in at.index:
            continue
        ratios = ", ".join(f"{v} {at.loc[v, 'ratio']:.3f} [{at.loc[v, 'ratio_lo']:.3f}, {at.loc[v, 'ratio_hi']:.3f}]"
                           for v in ("gaussian_exact", "gaussian_exact_counter", "nonprivate") if v in at.index)
        sig = (f"σ {at.loc['gaussian', 'sigma']:.4g} → {at.loc['gaussian_exact', 'sigma']:.4g}"
               if "gaussian_exact" in at.index else "")
        parts.append(f"Δ = {gap:g}, {delta_name(delta)} ({sig}): {ratios}")
    return Finding(f"Figure 4e (beyond the paper), at t = {T:,} ({int(last['n'].min())} runs): the Gaussian variant "
                   "with its node σ calibrated exactly to the paper's (ε, δ), as a ratio of mean regret to the paper's "
                   "calibration (95 % paired bootstrap): " + "; ".join(parts) + ".", figure="fig4e")


def evaluate(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]):
    """Claims entry point (protocol): every §8 claim.  ``settings``: the ``fig1``, ``exp1``, ``exp2``, ``exp3``
    values the claims read (:mod:`.paper`); ``tables``: fig1, fig2, exp1_runs, fig4_runs, fig4_audit, fig4c_ratio,
    fig4e_ratio, fig5_runs."""
    return CLAIMS.evaluate(tables, settings)


# ----------------------------------------------------------------------------- findings

#: claims reported without a gate (their rows are never decided)
DESCRIPTIVE = frozenset({"F5.e"})

_VARIANT_NAMES = {"nonprivate": "NonPrivate", "gaussian": "Gaussian", "wishart": "Wishart",
                  "wishart_unshifted": "WishartUnshifted"}


def _signed_pct(x: float) -> str:
    return f"{abs(100 * x):.1f} % {'below' if x < 0 else 'above'}"


def _wu_finding(tables, settings) -> Finding | None:
    """Figure 4: WishartUnshifted against Wishart at each gap, with p and the interval of the difference."""
    try:
        f = _Fig4(tables, settings)
    except (KeyError, ValueError, IndexError):
        return None
    parts, verdicts = [], []
    for g in sorted(f.gaps, reverse=True):
        if not f.has(g, "wishart", "wishart_unshifted"):
            continue
        a, b = f.vals[g, "wishart_unshifted"], f.vals[g, "wishart"]
        est, lo, hi = _contrast(a, b)
        mb = float(b.mean())
        p = _welch(a, b, "two-sided")
        if not all(math.isfinite(x) for x in (est, mb)) or mb <= 0:
            continue
        rel_lo, rel_hi = lo / mb, hi / mb
        parts.append(f"at Δ = {g:g} WishartUnshifted's mean regret is {_signed_pct(est / mb)} Wishart's "
                     f"(Welch p = {_fmt(p, 2)}; 95 % interval of the difference {100 * rel_lo:+.1f} % to {100 * rel_hi:+.1f} %)")
        if math.isfinite(rel_lo) and math.isfinite(rel_hi):
            verdicts.append((g, rel_lo > 0 or rel_hi < 0))
    if not parts:
        return None
    tier = "paper scale" if not f.quick else "below the paper's settings"
    text = f"Figure 4 at {f.t_lab} ({f.runs_min} runs per variant, {tier}): " + "; ".join(parts)
    if f.runs_min < MIN_SEEDS:
        text += f"; with {f.runs_min} runs these intervals rest on {f.runs_min - 1} degrees of freedom and decide nothing"
    else:
        differ = [g for g, d in verdicts if d]
        text += ("; the two differ beyond noise at Δ = " + ", ".join(f"{g:g}" for g in differ) if differ
                 else "; at no gap do the two differ beyond noise")
    return Finding(text + ".", figure="fig4")


def _inc_finding(tables, settings) -> Finding | None:
    """Figure 5: the cost of over-regularising at Δ = 0 and Δ = 0.1 (the paper's main point)."""
    try:
        f = _Fig5(tables, settings)
    except (KeyError, ValueError, IndexError):
        return None
    if not {0.0, 0.1} <= set(f.gaps):
        return None
    parts = []
    for mech in f.mechs:
        rdef, rtop = f.info[mech]
        if rdef is None:
            continue
        inc = {g: float(f.mean[mech, g, rtop] - f.mean[mech, g, rdef]) for g in (0.0, 0.1)}
        if not all(math.isfinite(v) for v in inc.values()):
            continue
        ratio = inc[0.1] / inc[0.0] if inc[0.0] else float("nan")
        parts.append(f"{_VARIANT_NAMES.get(mech, mech)} {_fmt(inc[0.0])} at Δ = 0 and {_fmt(inc[0.1])} at Δ = 0.1 "
                     f"(ratio {_fmt(ratio, 2)})")
    if not parts:
        return None
    t_end = int(f.runs["t"].max())
    return Finding(f"Figure 5 (regret at t = {t_end:,}, {f.runs_min} runs per point): raising ρ_min from the default "
                   f"to the largest grid value adds " + "; ".join(parts) + ".", figure="fig5")


def _claims_rows(claims) -> pd.DataFrame | None:
    if claims is None:
        return None
    if isinstance(claims, pd.DataFrame):
        return claims
    rows = [c if isinstance(c, Mapping) else vars(c) for c in claims]
    return pd.DataFrame(rows) if rows else None


def _undecided_findings(claims) -> list[Finding]:
    """Which gated claims the data could not decide at this scale (grouped by what would decide them), and
    which they contradict, from the evaluated claims table."""
    rows = _claims_rows(claims)
    if rows is None or not len(rows) or not {"claim", "verdict"} <= set(rows.columns):
        return []
    rows = rows[~rows["claim"].isin(DESCRIPTIVE)]
    out = []
    undecided = rows[rows["verdict"] == INCONCLUSIVE]
    if len(undecided):
        needs = undecided.get("needs", pd.Series("", index=undecided.index)).fillna("").replace("", "—")
        groups = {}
        for cid, need in zip(undecided["claim"], needs):
            groups.setdefault(need, []).append(cid)
        text = "; ".join(f"{', '.join(dict.fromkeys(ids))} (needs {need})" for need, ids in groups.items())
        n_claims = rows["claim"].nunique()
        out.append(Finding(f"{undecided['claim'].nunique()} of {n_claims} gated claims are inconclusive at this scale: "
                           f"{text}."))
    contra = rows[rows["verdict"] == NOT_REPRODUCED]
    if len(contra):
        out.append(Finding("Not reproduced (the interval of the measured effect excludes the claim): "
                           + "; ".join(f"{c} ({m})" for c, m in zip(contra["claim"], contra["measured"])) + "."))
    return out


def findings(tables: Mapping[str, pd.DataFrame], claims, settings: Mapping[str, Any]) -> list[Finding]:
    """Findings entry point (protocol): WishartUnshifted against Wishart in Figure 4 at each gap, the cost of
    over-regularising in Figure 5, and the claims the data could not decide or contradict — all computed from
    the tables and the evaluated claims."""
    out: list[Finding] = []
    if tables.get("fig4_runs") is not None and len(tables["fig4_runs"]):
        found = _wu_finding(tables, settings)
        if found is not None:
            out.append(found)
    if tables.get("fig5_runs") is not None and len(tables["fig5_runs"]):
        found = _inc_finding(tables, settings)
        if found is not None:
            out.append(found)
    if tables.get("fig4c_ratio") is not None and len(tables["fig4c_ratio"]):
        found = _f4c_finding(tables["fig4c_ratio"])
        if found is not None:
            out.append(found)
    if tables.get("fig4e_ratio") is not None and len(tables["fig4e_ratio"]):
        found = _f4e_finding(tables["fig4e_ratio"])
        if found is not None:
            out.append(found)
    return out + _undecided_findings(claims)
