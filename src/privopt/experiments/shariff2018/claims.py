"""The claims of Shariff & Sheffet (spec §8), checked on the aggregated tables and per-run values.

Thresholds are the spec's paper-scale values, or its quick-scale (Q) values where the spec gives them
and the runs that were made fall short of the paper's settings (fewer runs, fewer dimensions or gaps,
prefix runs that stop before the paper's horizon): the tier is decided from the tables and the
settings that ran (:func:`exp1_tier`, :func:`exp2_tier`, :func:`exp3_tier`) and stated in each claim's
details, never from a scale label.  A claim whose settings are not in what ran (e.g. F4.e needs runs
beyond 2·10^7 rounds) is "not evaluated".  Nothing here is tuned to make a claim pass.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from privopt.experiments.claims import ClaimSet, NotEvaluated, Outcome, finite
from privopt.experiments.claims import fmt_sig as _fmt
from privopt.experiments.shariff2018 import runs
from privopt.experiments.shariff2018.tables import bootstrap_slope_ci, ols_slope
from privopt.experiments.stats import spearman as _spearman
from privopt.experiments.stats import welch_p as _welch

PAPER = "shariff2018"
CLAIMS = ClaimSet(PAPER)
VARIANTS_4 = runs.VARIANTS

#: the paper's settings (spec §7, §9.3): Exp. 1 dims (17 values round(2^(2+i/4))), runs and horizons
PAPER_EXP1 = {"n": 100_000, "runs": 100, "dims": (4, 5, 6, 7, 8, 10, 11, 13, 16, 19, 23, 27, 32, 38, 45, 54, 64)}
PAPER_EXP2 = {"t_star": 20_000_000, "runs": 30}
PAPER_EXP3 = {"n": 50_000_000, "runs": 30, "gaps": (0.0, 0.0015625, 0.00625, 0.025, 0.1)}


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


# ----------------------------------------------------------------------------- Figure 1


@CLAIMS.claim("F1.a", "fig1", "The plotted set has K unit vectors in R^d, exactly one with <x,θ*> = 0.75, all others in "
              "[−0.75, 0.75 − Δ].", "exact (1e-9)", needs=("fig1",))
def _f1a(tables, settings, opt_mean: float = 0.75, low: float = -0.75) -> Outcome:
    points = tables["fig1"]
    K, gap = settings["fig1"]["K"], settings["fig1"]["gap"]
    arms = points[points["kind"] != "theta"]
    theta_rows = points[points["kind"] == "theta"]
    if theta_rows.empty:
        raise NotEvaluated("the table has no θ* row")
    theta = theta_rows.filter(regex=r"^x\d+$").to_numpy()[0]
    X = arms.filter(regex=r"^x\d+$").to_numpy()
    if not (np.isfinite(X).all() and np.isfinite(theta).all()):
        raise NotEvaluated("a coordinate of the decision set is not a finite number")
    means = X @ theta
    norms = np.linalg.norm(X, axis=1)
    at_top = np.isclose(means, opt_mean, atol=1e-9)
    others = means[~at_top]
    if others.size == 0:
        raise NotEvaluated("no sub-optimal action in the table")
    in_zone = bool(((others >= low - 1e-9) & (others <= opt_mean - gap + 1e-9)).all())
    holds = len(X) == K and np.allclose(norms, 1, atol=1e-9) and int(at_top.sum()) == 1 and in_zone \
        and bool((arms["kind"] == "optimal").to_numpy()[at_top].all())
    return Outcome(f"{len(X)} points; max |‖x‖−1| = {np.abs(norms - 1).max():.1e}; {int(at_top.sum())} at {opt_mean}; "
                   f"others in [{others.min():.4f}, {others.max():.4f}]", holds,
                   details=f"K = {K} unit vectors in R^{X.shape[1]}, others in [{low}, {opt_mean - gap:g}]")


# ----------------------------------------------------------------------------- Figures 2, 3


@CLAIMS.claim("F2.a", "fig2", "Regret grows with the dimension d (both reward models).",
              "Spearman(d, R̄_n(d)) ≥ 0.95 for each model", needs=("exp1_runs",))
def _f2a(tables, settings) -> Outcome:
    exp1_runs = tables["exp1_runs"]
    quick, why = exp1_tier(exp1_runs, settings["exp1"])
    rho_min = 0.9 if quick else 0.95
    fin = exp1_runs.groupby(["reward", "d"])["regret"].mean()
    parts, ok = [], True
    for reward in sorted(exp1_runs["reward"].unique()):
        s = fin.loc[reward]
        rho = _spearman(s.index.to_numpy(), s.to_numpy()) if len(s) >= 3 else float("nan")
        parts.append(f"{reward}: ρ = {_fmt(rho)} over {len(s)} d")
        if not math.isfinite(rho):
            ok = None
        elif ok is not None:
            ok = ok and rho >= rho_min
    return Outcome("; ".join(parts), ok, threshold=f"Spearman(d, R̄_n(d)) ≥ {rho_min} for each model", details=why)


@CLAIMS.claim("F2.b", "fig2", "Regret curves flatten (logarithmic-type regret on a gap instance).",
              "(R̄_n − R̄_{n/2}) / R̄_n ≤ 0.10 for every d and model", needs=("fig2",))
def _f2b(tables, settings) -> Outcome:
    worst, rows = -np.inf, []
    for (reward, d), g in tables["fig2"].groupby(["reward", "d"]):
        g = g.sort_values("t")
        tn = g["t"].max()
        half = g.iloc[(g["t"] - tn / 2).abs().argmin()]
        rn = float(g["mean"].iloc[-1])
        share = (rn - float(half["mean"])) / rn if rn > 0 else float("nan")
        finite(share, what=f"the second-half share of {reward} d={d}")
        worst = max(worst, share)
        rows.append(f"{reward} d={d}: {_fmt(share, 2)}")
    return Outcome(f"max share of R̄_n added in the second half = {_fmt(worst, 3)}; " + ", ".join(rows), worst <= 0.10)


@CLAIMS.claim("F2.c", "fig2", "±1 rewards give somewhat lower regret than Gaussian N(0,1) noise.",
              "±1 < Gaussian at ≥ 70% of d, geometric-mean ratio in [0.5, 0.97]", needs=("exp1_runs",))
def _f2c(tables, settings) -> Outcome:
    exp1_runs = tables["exp1_runs"]
    if not {"pm1", "gaussian"} <= set(exp1_runs["reward"]):
        raise NotEvaluated("needs both reward models")
    fin = exp1_runs.groupby(["reward", "d"])["regret"].mean()
    pm, ga = fin.loc["pm1"], fin.loc["gaussian"]
    common = pm.index.intersection(ga.index)
    ratio = (pm[common] / ga[common]).to_numpy()
    finite(ratio, what="the ±1/Gaussian regret ratio")
    share = float((ratio < 1).mean())
    geo = float(np.exp(np.log(ratio).mean()))
    return Outcome(f"±1 < Gaussian at {share:.0%} of d; geometric mean ratio = {_fmt(geo)}",
                   share >= 0.7 and 0.5 <= geo <= 0.97)


def _slopes(tables):
    """Per reward model with ≥ 3 values of d: (all-runs slope, per-d-means slope, bootstrap 95% CI)."""
    out = {}
    for reward, g in tables["exp1_runs"].groupby("reward", sort=True):
        if g["d"].nunique() < 3:
            raise NotEvaluated(f"{reward}: fewer than 3 values of d")
        m = g.groupby("d")["regret"].mean()
        out[reward] = (ols_slope(g["d"], g["regret"]), ols_slope(m.index, m.to_numpy()), bootstrap_slope_ci(g))
        finite(out[reward][0], out[reward][1], *out[reward][2], what=f"the {reward} slope")
    return out


@CLAIMS.claim("F3.a", "fig3", "Total regret depends on d super-linearly, roughly quadratically.",
              "OLS slope of log R̂_n on log d in [1.7, 2.3] (all runs and per-d means)", needs=("exp1_runs",))
def _f3a(tables, settings) -> Outcome:
    quick, why = exp1_tier(tables["exp1_runs"], settings["exp1"])
    lo, hi = (1.6, 2.4) if quick else (1.7, 2.3)
    slopes = _slopes(tables)
    parts = [f"{reward}: b = {b_all:.2f} (all runs), {b_mean:.2f} (per-d means)" for reward, (b_all, b_mean, _) in slopes.items()]
    ok = all(lo <= b_all <= hi and lo <= b_mean <= hi for b_all, b_mean, _ in slopes.values())
    return Outcome("; ".join(parts), ok,
                   threshold=f"OLS slope of log R̂_n on log d in [{lo}, {hi}] (all runs and per-d means)", details=why)


@CLAIMS.claim("F3.b", "fig3", "The super-linearity is significant.",
              "lower end of the bootstrap 95% CI of b > 1.3 for both models", needs=("exp1_runs",),
              details="1000 bootstrap resamples of runs within each d")
def _f3b(tables, settings) -> Outcome:
    slopes = _slopes(tables)
    parts = [f"{reward}: 95% CI [{ci[0]:.2f}, {ci[1]:.2f}]" for reward, (_, _, ci) in slopes.items()]
    return Outcome("; ".join(parts), all(ci[0] > 1.3 for _, _, ci in slopes.values()))


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
        self.vals = {(g, v): grp["regret"].to_numpy() for (g, v), grp in at.groupby(["gap", "variant"])}
        self.gaps = sorted(at["gap"].unique())
        self.mean = {k: float(np.mean(v)) for k, v in self.vals.items()}
        self.t_lab = f"t* = {int(at['t'].iloc[0]):,}"
        self.quick, self.why = exp2_tier(self.runs, int(at["t"].iloc[0]))

    def has(self, g, *vs) -> bool:
        return all((g, v) in self.vals for v in vs)


@CLAIMS.claim("F4.a", "fig4", "The Gaussian mechanism beats the (shifted) Wishart mechanism in both panels.",
              "R̄_Gauss < 0.5·R̄_Wishart and one-sided Welch p < 0.01, each Δ", needs=("fig4_runs",))
def _f4a(tables, settings) -> Outcome:
    f = _Fig4(tables, settings)
    parts, ok = [], True
    for g in f.gaps:
        if not f.has(g, "gaussian", "wishart"):
            ok = None
            continue
        p = _welch(f.vals[g, "gaussian"], f.vals[g, "wishart"], "less")
        r = f.mean[g, "gaussian"] / f.mean[g, "wishart"]
        parts.append(f"Δ={g:g}: Gauss/Wishart = {_fmt(r)}, p = {_fmt(p, 2)}")
        if ok is not None:
            finite(p, r, what=f"the Δ={g:g} comparison")
            ok = ok and r < 0.5 and p < 0.01
    return Outcome(f"{f.t_lab}; " + "; ".join(parts), ok)


@CLAIMS.claim("F4.b", "fig4", "NonPrivate regret is negligible on the scale of the private variants.",
              "R̄_NonPrivate < 0.02·min private R̄, each Δ", needs=("fig4_runs",))
def _f4b(tables, settings) -> Outcome:
    f = _Fig4(tables, settings)
    parts, ok = [], True
    for g in f.gaps:
        priv = [f.mean[g, v] for v in ("gaussian", "wishart", "wishart_unshifted") if (g, v) in f.mean]
        if (g, "nonprivate") not in f.mean or not priv:
            ok = None
            continue
        finite(f.mean[g, "nonprivate"], *priv, what=f"the Δ={g:g} mean regret")
        r = f.mean[g, "nonprivate"] / min(priv)
        parts.append(f"Δ={g:g}: NonPrivate / min private = {_fmt(r)}")
        if ok is not None:
            ok = ok and r < 0.02
    return Outcome(f"{f.t_lab}; " + "; ".join(parts), ok)


@CLAIMS.claim("F4.c", "fig4", "Without a gap (Δ = 0) WishartUnshifted has the largest regret.",
              "WU largest and R̄_WU ≥ 1.3·R̄_Wishart, one-sided Welch p < 0.01", needs=("fig4_runs",))
def _f4c(tables, settings) -> Outcome:
    f = _Fig4(tables, settings)
    ratio_thr, p_thr = (1.2, 0.05) if f.quick else (1.3, 0.01)
    threshold = f"WU largest and R̄_WU ≥ {ratio_thr}·R̄_Wishart, one-sided Welch p < {p_thr}"
    if not f.has(0.0, "wishart", "wishart_unshifted"):
        raise NotEvaluated("needs Δ = 0 with Wishart and WishartUnshifted")
    others = [f.mean[0.0, v] for v in VARIANTS_4 if (0.0, v) in f.mean and v != "wishart_unshifted"]
    largest = f.mean[0.0, "wishart_unshifted"] >= max(others)
    r = f.mean[0.0, "wishart_unshifted"] / f.mean[0.0, "wishart"]
    p = _welch(f.vals[0.0, "wishart_unshifted"], f.vals[0.0, "wishart"], "greater")
    finite(p, r, *others, what="the Δ=0 comparison")
    return Outcome(f"{f.t_lab}; Δ=0: WU/Wishart = {_fmt(r)}, p = {_fmt(p, 2)}, WU largest: {bool(largest)}",
                   bool(largest) and r >= ratio_thr and p < p_thr, threshold=threshold, details=f.why)


@CLAIMS.claim("F4.d", "fig4", "With a large gap (Δ = 0.1) WishartUnshifted and Wishart are about equal.",
              "two-sided Welch p > 0.05, |R̄_WU − R̄_W|/R̄_W ≤ 0.15 at Δ=0.1, and ≥ 0.2 smaller than at Δ=0",
              needs=("fig4_runs",))
def _f4d(tables, settings) -> Outcome:
    f = _Fig4(tables, settings)
    if not (f.has(0.1, "wishart", "wishart_unshifted") and f.has(0.0, "wishart", "wishart_unshifted")):
        raise NotEvaluated("needs Δ = 0 and Δ = 0.1 with Wishart and WishartUnshifted")
    rel = {g: f.mean[g, "wishart_unshifted"] / f.mean[g, "wishart"] - 1 for g in (0.0, 0.1)}
    p = _welch(f.vals[0.1, "wishart_unshifted"], f.vals[0.1, "wishart"], "two-sided")
    r01 = rel[0.1]
    finite(r01, rel[0.0], what="the relative differences")
    measured = f"{f.t_lab}; rel. diff. Δ=0.1: {_fmt(r01)} (p = {_fmt(p, 2)}); Δ=0: {_fmt(rel[0.0])}"
    if f.gamma_rule == "claim20":
        return Outcome(measured, abs(r01) <= 0.25 and rel[0.0] - abs(r01) >= 0.2,
                       threshold="claim20 γ': |rel. diff.| ≤ 0.25 at Δ=0.1 and ≥ 0.2 below Δ=0 (p reported only)")
    finite(p, what="the Δ=0.1 Welch p")
    return Outcome(measured, p > 0.05 and abs(r01) <= 0.15 and rel[0.0] - abs(r01) >= 0.2)


@CLAIMS.claim("F4.e", "fig4", "The curves are essentially flat after 2·10^7 rounds.",
              "share of R̄(n) added after 2·10^7 ≤ 0.03 (Δ=0.1, all) and ≤ 0.20 (Δ=0, all but WU)", needs=("fig4_runs",))
def _f4e(tables, settings) -> Outcome:
    f = _Fig4(tables, settings)
    fig4_runs, n = f.runs, f.n
    t_max = int(fig4_runs["t"].max())
    if not (t_max >= n and (fig4_runs["t"] <= 2 * 10**7).any() and t_max > 2 * 10**7):
        raise NotEvaluated(f"runs stop at t = {t_max:,} < n = {n:,} (prefix runs): paper scale only")
    a, b = _at(fig4_runs, 2 * 10**7), _at(fig4_runs, n)
    ma = a.groupby(["gap", "variant"])["regret"].mean()
    mb = b.groupby(["gap", "variant"])["regret"].mean()
    share = (mb - ma) / mb
    finite(share.to_numpy(), what="the share added after 2·10^7")
    ok, parts, checked = True, [], 0
    for (g, v), s in share.items():
        parts.append(f"Δ={g:g} {v}: {_fmt(s, 2)}")
        if g == 0.1:
            ok, checked = ok and s <= 0.03, checked + 1
        elif g == 0.0 and v != "wishart_unshifted":
            ok, checked = ok and s <= 0.20, checked + 1
    if not checked:
        raise NotEvaluated("no curve the claim speaks about (Δ = 0 or Δ = 0.1 without WU)")
    return Outcome("; ".join(parts), ok)


@CLAIMS.claim("F4.f", "fig4", "No Cholesky failures of V_t in any Gaussian or shifted-Wishart run.", "0",
              needs=("fig4_runs",))
def _f4f(tables, settings) -> Outcome:
    fig4_runs = tables["fig4_runs"]
    priv = fig4_runs[fig4_runs["variant"].isin(["gaussian", "wishart"])]
    if priv.empty:
        raise NotEvaluated("no Gaussian or shifted-Wishart run")
    if not np.isfinite(priv["pd_failures"].to_numpy(float)).all():
        raise NotEvaluated("a Cholesky failure count is not a finite number")
    fails = int(priv.groupby(["gap", "variant", "seed"])["pd_failures"].max().sum())
    return Outcome(f"{fails} failures over {priv.groupby(['gap', 'variant', 'seed']).ngroups} runs", fails == 0)


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

    def vals(self, mech, gap, rho):
        r = self.runs
        return r[(r["mechanism"] == mech) & (r["gap"] == gap) & (r["rho_min"] == rho)]["regret"].to_numpy()


@CLAIMS.claim("F5.a", "fig5", "Without a gap, over-regularisation (largest ρ_min) hurts a lot.",
              "R̄(ρ_top, 0) ≥ 1.5·R̄(ρ_def, 0), one-sided Welch p < 0.01, both mechanisms", needs=("fig5_runs",))
def _f5a(tables, settings) -> Outcome:
    f = _Fig5(tables, settings)
    parts, ok = [], True
    for mech in f.mechs:
        rdef, rtop = f.info[mech]
        if rdef is None or 0.0 not in f.gaps:
            ok = None
            parts.append(f"{mech}: default ρ or Δ = 0 not run")
            continue
        r = f.mean[mech, 0.0, rtop] / f.mean[mech, 0.0, rdef]
        p = _welch(f.vals(mech, 0.0, rtop), f.vals(mech, 0.0, rdef), "greater")
        parts.append(f"{mech}: R̄(ρ_top)/R̄(ρ_def) = {_fmt(r)}, p = {_fmt(p, 2)}")
        if ok is not None:
            finite(r, p, what=f"the {mech} comparison")
            ok = ok and r >= 1.5 and p < 0.01
    return Outcome("; ".join(parts), ok)


@CLAIMS.claim("F5.b", "fig5", "With a large gap over-regularisation costs much less (the paper's main point).",
              "Inc(0.1) ≤ 0.35·Inc(0) for both mechanisms", needs=("fig5_runs",))
def _f5b(tables, settings) -> Outcome:
    f = _Fig5(tables, settings)
    thr = 0.6 if f.quick else 0.35
    parts, ok = [], True
    for mech in f.mechs:
        rdef, rtop = f.info[mech]
        if rdef is None or not {0.0, 0.1} <= set(f.gaps):
            ok = None
            continue
        inc0 = f.mean[mech, 0.0, rtop] - f.mean[mech, 0.0, rdef]
        inc1 = f.mean[mech, 0.1, rtop] - f.mean[mech, 0.1, rdef]
        finite(float(inc0), float(inc1), what=f"Inc(0) or Inc(0.1) of {mech}")
        parts.append(f"{mech}: Inc(0.1) = {_fmt(inc1)}, Inc(0) = {_fmt(inc0)}, ratio {_fmt(inc1 / inc0 if inc0 else float('nan'))}")
        if ok is not None:
            ok = ok and inc0 > 0 and inc1 <= thr * inc0
    return Outcome("; ".join(parts) or "not run", ok, threshold=f"Inc(0.1) ≤ {thr}·Inc(0) for both mechanisms",
                   details=f.why)


@CLAIMS.claim("F5.c", "fig5", "Sensitivity to ρ_min (range over ρ ≥ ρ_def) decreases with the gap.",
              "range largest at Δ=0, smallest at Δ=0.1, Spearman(Δ, range) ≤ −0.7", needs=("fig5_runs",))
def _f5c(tables, settings) -> Outcome:
    f = _Fig5(tables, settings)
    two_gaps = f.quick or len(f.gaps) < 5
    parts, ok = [], True
    for mech in f.mechs:
        rdef, _ = f.info[mech]
        if rdef is None or not {0.0, 0.1} <= set(f.gaps):
            ok = None
            continue
        rng_by_gap = {}
        for g in f.gaps:
            s = f.mean[mech, g]
            s = s[s.index >= rdef]
            rng_by_gap[g] = float(s.max() - s.min())
        r = list(rng_by_gap.values())
        finite(r, what=f"the {mech} ranges")
        extremes = rng_by_gap[0.0] == max(r) and rng_by_gap[0.1] == min(r)
        if two_gaps:
            holds = rng_by_gap[0.0] > rng_by_gap[0.1]
            rho = float("nan")
        else:
            rho = _spearman(f.gaps, r)
            finite(rho, what=f"the {mech} rank correlation")
            holds = extremes and rho <= -0.7
        parts.append(f"{mech}: range " + ", ".join(f"Δ={g:g}: {_fmt(v)}" for g, v in rng_by_gap.items())
                     + (f"; Spearman {_fmt(rho, 2)}" if math.isfinite(rho) else ""))
        if ok is not None:
            ok = ok and bool(holds)
    thr_c = ("range(Δ=0) > range(Δ=0.1) (quick: the two extreme gaps only)" if two_gaps
             else "range largest at Δ=0, smallest at Δ=0.1, Spearman(Δ, range) ≤ −0.7")
    return Outcome("; ".join(parts) or "not run", ok, threshold=thr_c, details=f.why)


@CLAIMS.claim("F5.d", "fig5", "At the largest ρ_min, regret decreases with the gap.", "Spearman(Δ, R̄(ρ_top, Δ)) ≤ −0.8",
              needs=("fig5_runs",))
def _f5d(tables, settings) -> Outcome:
    f = _Fig5(tables, settings)
    if len(f.gaps) < 3:
        raise NotEvaluated(f"{len(f.gaps)} gaps run; needs at least 3")
    parts, ok = [], True
    for mech in f.mechs:
        _, rtop = f.info[mech]
        y = [f.mean[mech, g, rtop] for g in f.gaps]
        rho = _spearman(f.gaps, y)
        parts.append(f"{mech}: Spearman(Δ, R̄(ρ_top)) = {_fmt(rho, 2)} over {len(f.gaps)} gaps")
        finite(rho, what=f"the {mech} rank correlation")
        ok = ok and rho <= -0.8
    return Outcome("; ".join(parts), ok, details="" if len(f.gaps) >= 5 else f"{len(f.gaps)} gaps run (paper 5)")


@CLAIMS.claim("F5.e", "fig5", "[descriptive] Location of the minimum over ρ_min per mechanism and gap.",
              "none (the paper states no expectation; reported, not gated)", needs=("fig5_runs",))
def _f5e(tables, settings) -> Outcome:
    f = _Fig5(tables, settings)
    parts = []
    for mech in f.mechs:
        for g in f.gaps:
            s = f.mean[mech, g]
            parts.append(f"{mech} Δ={g:g}: min at ρ = {_fmt(float(s.idxmin()))} (R̄ {_fmt(float(s.min()))})")
    return Outcome("; ".join(parts), None)


# ----------------------------------------------------------------------------- all


S1_THRESHOLD = 0.99   # spec §8 S.1: bounds hold on ≥ 99% of audited rounds, per private configuration
S2_THRESHOLD = 1.0    # spec §8 S.2: the confidence set contains θ* on all audited rounds
S1_SAMPLE = 10_000    # spec §8 S.1: audited rounds per private configuration


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
            raise NotEvaluated("not audited: " + ("the audit is off (shariff2018.exp2.audit_rounds = 0)" if off
                                                  else "no audited rounds in the Exp. 2 runs"))
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
        return Outcome("no private variant audited", None, details=a.sampling)
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
    details = (a.sampling + " | " + " | ".join(extremes)
               + (f" | spec sample: {S1_SAMPLE:,} rounds per configuration" if small else ""))
    return Outcome(f"{len(private)} private configurations, smallest share {_pct(worst)}; "
                   + "; ".join(_share_parts(shares, checks, "s1")), worst >= S1_THRESHOLD, details=details)


@CLAIMS.claim("S.2", "fig4", S2_STATEMENT, "100% of audited rounds in every configuration (variant, Δ)")
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


def evaluate(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]):
    """Claims entry point (protocol): every §8 claim.  ``settings``: the ``fig1``, ``exp1``, ``exp2``, ``exp3``
    values the claims read (:mod:`.paper`); ``tables``: fig1, fig2, exp1_runs, fig4_runs, fig4_audit, fig5_runs."""
    return CLAIMS.evaluate(tables, settings)
