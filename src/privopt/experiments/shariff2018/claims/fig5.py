"""Claims F5.a–F5.e (Figure 5: Experiment 3, regret against ρ_min at each gap)."""

from __future__ import annotations

import math

import numpy as np

from privopt.pipeline.claims import Inconclusive, Outcome, finite
from privopt.pipeline.claims import fmt_sig as _fmt
from privopt.experiments.shariff2018 import runs
from privopt.pipeline.stats import spearman as _spearman
from privopt.pipeline.stats import welch_p as _welch
from privopt.experiments.shariff2018.claims.deciding import (CLAIMS, PAPER_EXP3, _boot_means, _boot_rng, _ci,
                                                             _contrast, _judge, _linear, _pct_ci, _q, _spearman_rows,
                                                             exp3_tier)
from privopt.experiments.shariff2018.claims.fig4 import _outcome


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
