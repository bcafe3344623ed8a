"""Claims F1.a (Figure 1: the decision set) and F2.a–F3.b (Figures 2 and 3: Experiment 1, regret against d)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from privopt.pipeline.claims import Inconclusive, Outcome, finite
from privopt.pipeline.claims import fmt_sig as _fmt
from privopt.experiments.shariff2018.tables import bootstrap_slope_ci, ols_slope
from privopt.pipeline.stats import spearman as _spearman
from privopt.experiments.shariff2018.claims.deciding import (CLAIMS, PAPER_EXP1, _boot_means, _boot_rng, _ci, _judge,
                                                             _pct_ci, _q, _spearman_rows, exp1_tier)


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
