"""Claims C5.1–C5.5 (Figure 5: bandit feedback, Lemma 2 and Theorem 8) and C6.1–C6.3 (Figure 6: the variants of
Appendix B and the exploration tail)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from privopt.pipeline.claims import Inconclusive, Outcome, finite, require_range, require_seeds
from privopt.pipeline.claims import fmt_sig as _f
from privopt.pipeline.parts import Part
from privopt.experiments.perezsalazar2021.claims.deciding import (ABS_TOL, BANDIT_T, CLAIMS, REL_TOL, _T, _Boot,
                                                                  _boot, _logslope, _outcome, _point, _sel, _slope,
                                                                  _stat, _table, _with)


# ----------------------------------------------------------------------------- F5


def _bandit_runs(tables) -> pd.DataFrame:
    runs = tables.get("bandit_runs")
    if runs is None or runs.empty:
        raise Inconclusive("no bandit run", needs="the runs of experiment bandit")
    frames = [runs[runs["feedback"] == "bandit"]]
    ub = tables.get("uber_runs")
    if ub is not None and len(ub):
        frames.append(ub[ub["feedback"] == "bandit"])
    runs = pd.concat(frames, ignore_index=True)
    if runs.empty:  # never "reproduced" on no run
        raise Inconclusive("no bandit-feedback run", needs="the bandit-feedback runs of experiment bandit")
    return runs


@CLAIMS.claim("C5.1", "f5", "Lemma 2 pathwise: R_T ≤ Σ_i r_i + M for every bandit run (r_i on the frozen sets).",
              "every run", details="implementation invariant; r_i w.r.t. the true marginals (simulator side)",
              needs=("bandit_runs",))
def _c51(tables, settings):
    runs = _bandit_runs(tables)
    runs = runs[runs["opt_exact"].astype(bool)]
    if runs.empty:
        raise Inconclusive("no bandit run with an exact optimum", needs="a bandit run with an exact optimum")
    tol = ABS_TOL + REL_TOL * runs["OPT"].abs()
    bad = int((runs["R"] > runs["sum_r"] + runs["M"] + tol).sum())
    bad_w = int((runs["R"] > runs["sum_r_weighted"] + runs["M"] + tol).sum())
    return Outcome(f"{len(runs)} runs: {bad} violations ({bad_w} of the weighted form)", bad == 0)


@CLAIMS.claim("C5.2", "f5", "Exploration counts follow Bin(T, γ) and stay below the privacy cap 2γT.",
              "|M/T − γ| ≤ 5·√(γ(1−γ)/T) and M < 2γT in every run", details="implementation invariant",
              needs=("bandit_runs",))
def _c52(tables, settings):
    runs = _bandit_runs(tables)
    g, T, M = runs["gamma"], runs["T"], runs["M"]
    dev = (M / T - g).abs() / np.sqrt(g * (1 - g) / T)
    bad = int(((dev > 5) | (M >= 2 * g * T)).sum())
    return Outcome(f"{len(runs)} runs: max |M/T − γ|/sd = {_f(dev.max())}, {bad} violations", bad == 0)


def _bandit(tables) -> _Boot:
    runs = _table(tables, "bandit_runs")
    if runs.empty:
        raise Inconclusive("no bandit run", needs="the runs of experiment bandit")
    # the streams are keyed by (instance, seed): every group on one instance shares its seeds' streams
    return _boot(_with(runs, y=lambda r: r["REG_OPT"]), ("instance", "group", "feedback", "algo", "eps", "T"), "y",
                 strata=("instance",), firsts=("phi",))


def _series(b: _Boot, **eq) -> _Boot:
    q = _sel(b.points.assign(_i=np.arange(len(b.points))), **eq).sort_values("T")
    return b.take(np.isin(np.arange(len(b.points)), q["_i"].to_numpy())) if len(q) else b.take(np.zeros(len(b.points), bool))


def _fit_range(b: _Boot) -> _Boot:
    """The points with T in [10^5, 3·10^6] (the claims' fit range), after checking what ran covers it."""
    t = b.points["T"]
    require_range(t.min(), t.max(), 1e5, BANDIT_T[1], what="T", fmt=_T)
    return b.take(((t >= 1e5) & (t <= BANDIT_T[1])).to_numpy())


@CLAIMS.claim("C5.3", "f5", "Bandit regret against OPT grows like T^(2/3) (Thm 8) where learning happens.",
              "slope of ln E[REG_OPT] on ln T over T in [1e5, 3e6]: SG-BANDIT-NP on S1 and S2, BanditDP ε=50 on S1 "
              "in [0.55, 0.90]", needs=("bandit_runs",))
def _c53(tables, settings):
    b = _bandit(tables)
    todo = []
    for inst, algo, eps in (("syn_s1", "SG-BANDIT-NP", math.nan), ("syn_s2", "SG-BANDIT-NP", math.nan),
                            ("syn_s1", "BanditDP", 50.0)):
        s = _series(b, instance=inst, algo=algo, eps=eps, group=["s1", "s2"])
        if len(s.points):
            todo.append((f"{inst} {algo}{'' if math.isnan(eps) else f' ε={eps:g}'}", _fit_range(s)))
    if not todo:
        raise Inconclusive("no S1/S2 bandit series", needs="bandit.s1 and bandit.s2")
    return _outcome([_slope(label, s.points["T"].to_numpy(float), s, (0.55, 0.90), len(todo)) for label, s in todo],
                    details="[a, b]: familywise 95 % bootstrap interval over seeds")


@CLAIMS.claim("C5.4", "f5", "Full information beats bandit feedback on the same stream and ε, and learns at a "
              "smaller rate.", "E[REG_OPT] FI-DP ≤ BanditDP at every T (same ε); SG-NP slope over T in [1e5, 3e6] "
              "below SG-BANDIT-NP's by ≥ 0.05 on S1 and S2", needs=("bandit_runs",))
def _c54(tables, settings):
    b = _bandit(tables)
    todo = []
    for inst in ("syn_s1", "syn_s2"):
        fi = _series(b, instance=inst, algo="FI-DP", group=["s1", "s2"])
        for eps in sorted(fi.points["eps"].unique()):
            f = _series(b, instance=inst, algo="FI-DP", eps=float(eps), group=["s1", "s2"])
            d = _series(b, instance=inst, algo="BanditDP", eps=float(eps), group=["s1", "s2"])
            common = sorted(set(f.points["T"]) & set(d.points["T"]))
            for T in common:
                i = int(np.flatnonzero(f.points["T"] == T)[0])
                j = int(np.flatnonzero(d.points["T"] == T)[0])
                todo.append(("pt", f"{inst} ε={eps:g} T={int(T):,}: FI-DP − BanditDP",
                             float(f.points["mean"].iloc[i] - d.points["mean"].iloc[j]), f.col(i) - d.col(j),
                             int(min(f.points["N"].iloc[i], d.points["N"].iloc[j]))))
        sg = _series(b, instance=inst, algo="SG-NP", group=["s1", "s2"])
        sgb = _series(b, instance=inst, algo="SG-BANDIT-NP", group=["s1", "s2"])
        if len(sg.points) >= 2 and len(sgb.points) >= 2:
            try:
                a, c = _fit_range(sg), _fit_range(sgb)
                ta, tc = a.points["T"].to_numpy(float), c.points["T"].to_numpy(float)
                est = _logslope(tc, c.points["mean"].to_numpy(float)) - _logslope(ta, a.points["mean"].to_numpy(float))
                todo.append(("slope", f"{inst} slope SG-BANDIT-NP − SG-NP", est,
                             _logslope(tc, c.reps) - _logslope(ta, a.reps), int(min(a.points["N"].min(), c.points["N"].min()))))
            except Inconclusive as why:
                todo.append(("why", f"{inst} slopes SG-NP vs SG-BANDIT-NP: {why}", why.needs, None, None))
    if not todo:
        raise Inconclusive("no S1/S2 series with both feedbacks", needs="bandit.s1 and bandit.s2 with fi_eps")
    m = sum(1 for t in todo if t[0] != "why")
    parts = []
    for kind, label, est, reps, n in todo:
        if kind == "why":
            parts.append(Part(label, None, est))
        elif kind == "pt":
            parts.append(_stat(label, est, reps, n, (None, 0.0), m, fmt=_f))
            parts[-1] = dataclasses.replace(parts[-1], quiet=True)
        else:
            parts.append(_stat(label, est, reps, n, (0.05, None), m))
    n_pt = sum(1 for t in todo if t[0] == "pt")
    above = sum(1 for t in todo if t[0] == "pt" and t[2] > 0)
    return _outcome(parts, head=f"FI-DP above BanditDP at {above} of {n_pt} (instance, ε, T)",
                    details="[a, b]: familywise 95 % bootstrap interval over seeds (paired: same streams)")


@CLAIMS.claim("C5.5", "f5", "At certified ε BanditDP does not learn on S2 within 3·10^6 rounds (honest negative "
              "result).", "φ = (ALG−UNIF)/(OFF-GREEDY−UNIF) ≤ 0.5 for BanditDP ε ∈ {10, 50} on S2 at every T ≤ 3e6",
              needs=("bandit_runs",))
def _c55(tables, settings):
    runs = _sel(_table(tables, "bandit_runs"), instance="syn_s2", algo="BanditDP", eps=[10.0, 50.0], group="s2")
    runs = runs[runs["T"] <= BANDIT_T[1]] if len(runs) else runs
    if runs.empty:
        raise Inconclusive("BanditDP at ε 10 or 50 on S2 did not run", needs="bandit.s2 at ε 10 and 50")
    require_range(runs["T"].min(), runs["T"].max(), *BANDIT_T, what="T", fmt=_T)
    p = _boot(runs, ("eps", "T"), "phi", resample=False).points
    finite(p["mean"].to_numpy())
    parts = [_point(f"ε={r.eps:g} T={_T(r.T)}", r.mean, r.sem, int(r.N), (None, 0.5), len(p), fmt=lambda x: f"{x:.3f}",
                    quiet=True) for r in p.itertuples()]
    return _outcome(parts, head=f"max φ = {p['mean'].max():.3f} over {len(p)} (ε, T)")


# ----------------------------------------------------------------------------- F6


def _f6(tables, eps: float) -> tuple[_Boot, str]:
    b = _bandit(tables)
    s2 = b.points["instance"] == "syn_s2"
    alg3 = s2 & (b.points["algo"] == "BanditDP") & (b.points["eps"] == eps) & (b.points["group"] == "s2")
    var = s2 & (b.points["group"] == "variants") & (b.points["eps"] == eps)
    if not alg3.any() or not var.any():
        raise Inconclusive(f"Algorithm 3 or the App. B variants at ε = {eps:g} did not run on S2",
                           needs="bandit.s2 and bandit.variants at ε = 1000")
    f = b.take((alg3 | var).to_numpy())
    t = f.points["T"]
    require_range(t.min(), t.max(), 1e5, BANDIT_T[1], what="T", fmt=_T)
    q = f.take((t >= 1e5).to_numpy())
    # REG_OPT at a nominal ε this large is heavy-tailed across seeds: a mean of 2–3 seeds decides nothing
    require_seeds(int(q.points["N"].min()), what="a mean of the heavy-tailed E[REG_OPT] at ε = 1000")
    return q, f"T ≥ 1e5: {sorted(int(x) for x in q.points['T'].unique())}"


def _f6_pairs(q: _Boot, algo: str):
    a3 = q.points.index[q.points["algo"] == "BanditDP"]
    out = []
    for i in a3:
        j = q.points.index[(q.points["algo"] == algo) & (q.points["T"] == q.points.loc[i, "T"])]
        if len(j):
            out.append((int(q.points.loc[i, "T"]), int(j[0]), int(i)))
    if not out:
        raise Inconclusive(f"{algo} and Algorithm 3 share no horizon ≥ 1e5", needs=f"{algo} at the horizons of Algorithm 3")
    return out


@CLAIMS.claim("C6.1", "f6", "Redrawing every round (B1-NAIVE) costs T draws of budget instead of 2γT: it learns "
              "slower than Algorithm 3.", "E[REG_OPT] of B1-NAIVE (same γ) > Algorithm 3's at every T ≥ 1e5 (to 3e6), "
              "ε = 1000*", needs=("bandit_runs",))
def _c61(tables, settings):
    q, note = _f6(tables, 1000.0)
    pairs = _f6_pairs(q, "B1-NAIVE")
    p = q.points
    parts = [_stat(f"T={T:,}: B1 {_f(p.loc[j, 'mean'])} − Alg3 {_f(p.loc[i, 'mean'])}", float(p.loc[j, "mean"] - p.loc[i, "mean"]),
                   q.col(j) - q.col(i), int(min(p.loc[i, "N"], p.loc[j, "N"])), (0.0, None), len(pairs), fmt=_f)
             for T, j, i in pairs]
    return _outcome(parts, details=f"{note}; [a, b]: familywise 95 % bootstrap interval over seeds (paired)")


@CLAIMS.claim("C6.2", "f6", "Presampling the explore times (B2) is no worse than Algorithm 3 (slightly larger η, no "
              "δ-tail).", "E[REG_OPT] of B2-PRESAMPLE ≤ Algorithm 3's (+3·SE combined, the claim's tolerance) at every "
              "T ≥ 1e5 (to 3e6), ε = 1000*", needs=("bandit_runs",))
def _c62(tables, settings):
    q, note = _f6(tables, 1000.0)
    pairs = _f6_pairs(q, "B2-PRESAMPLE")
    p = q.points
    parts = []
    for T, j, i in pairs:
        se = math.hypot(p.loc[i, "sem"], p.loc[j, "sem"])
        parts.append(_stat(f"T={T:,}: B2 {_f(p.loc[j, 'mean'])} − Alg3 {_f(p.loc[i, 'mean'])}",
                           float(p.loc[j, "mean"] - p.loc[i, "mean"]), q.col(j) - q.col(i),
                           int(min(p.loc[i, "N"], p.loc[j, "N"])), (None, 0.0), len(pairs), tol=(None, 3 * se), fmt=_f))
    return _outcome(parts, details=f"{note}; [a, b]: familywise 95 % bootstrap interval over seeds (paired)")


@CLAIMS.claim("C6.3", "f6", "The exploration tail: exact P(M ≥ 2γT) ≤ e^(−2γ²T) (Hoeffding) on the whole grid; the "
              "paper's e^(−8γ²T) is not an upper bound at γ ≈ 0.09.", "log10 exact ≤ log10 Hoeffding at every T",
              needs=("f6_tail",))
def _c63(tables, settings):
    t = tables["f6_tail"]
    ok = bool((t["log10_exact"] <= t["log10_hoeffding"]).all())
    paper_fails = t[t["log10_exact"] > t["log10_paper"]]
    return Outcome(", ".join(f"T={int(r.T):,} (γ={r.gamma:.3f}): exact 1e{r.log10_exact:.0f}, Hoeffding "
                             f"1e{r.log10_hoeffding:.0f}, paper 1e{r.log10_paper:.0f}" for r in t.itertuples()), ok,
                   details=f"exact (closed form); the paper's bound fails at T = {[int(x) for x in paper_fails['T']]}")
