"""Claims C1.1–C1.6 (Figure 1: the full-information regret against T) and C2.1–C2.4 (Figure 2: the collapse on
the effective budget u and the break-even point)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from privopt.pipeline.claims import Inconclusive, Outcome, finite, require_range
from privopt.pipeline.claims import fmt_sig as _f
from privopt.pipeline.parts import Part
from privopt.experiments.perezsalazar2021.claims.deciding import (ABS_TOL, CLAIMS, FI_KEYS, REL_TOL, SYN_T_MAX,
                                                                  U_BURNIN, U_LEARNED, UBER_T_MAX, _T, _boot,
                                                                  _logslope, _nseeds, _outcome, _point, _private,
                                                                  _sel, _slope, _stat, _table, _with)


# ----------------------------------------------------------------------------- F1


def _fi_sources(tables) -> list[tuple[str, pd.DataFrame]]:
    """The full-information T sweeps with k = 3 over a T grid, as run rows: SYN-CLICK and UBER-PICK."""
    out = []
    s = _sel(_table(tables, "fi_runs"), group="syn")
    if len(s):
        out.append(("SYN-CLICK", s))
    u = _sel(_table(tables, "uber_runs"), group="fi")
    if len(u):
        out.append(("UBER-PICK", u))
    if not out:
        raise Inconclusive("no full-information T sweep ran (perezsalazar2021.fi.syn, perezsalazar2021.uber.fi)",
                           needs="the runs of fi.syn or uber.fi")
    return out


def _fi_runs(tables) -> pd.DataFrame:
    frames = [tables[n] for n in ("fi_runs", "uber_runs", "bandit_runs") if tables.get(n) is not None and len(tables[n])]
    if not frames:
        raise Inconclusive("no run rows", needs="the run tables")
    runs = pd.concat(frames, ignore_index=True)
    return runs[runs["feedback"] == "full"]


@CLAIMS.claim("C1.1", "f1", "Pathwise Hedge inequality (Thm 3): every expert of every full-information run with "
              "0 < η ≤ 1 has r̃_i ≤ η Σ_t x_tᵀ(g_t²) + ln n/η.", "every run, relative tolerance 1e-9",
              details="implementation invariant; runs with η > 1 (large nominal ε) are exempt")
def _c11(tables, settings):
    runs = _fi_runs(tables)
    runs = runs[runs["hedge_applies"].astype(bool)]
    if runs.empty:
        raise Inconclusive("no run with 0 < η ≤ 1", needs="a full-information run with η ≤ 1")
    bad = int((~runs["hedge_ok"].astype(bool)).sum())
    return Outcome(f"{len(runs)} runs, {bad} violations; smallest relative slack {_f(runs['hedge_slack'].min())}",
                   bad == 0)


@CLAIMS.claim("C1.2", "f1", "Prop. 3 pathwise: R_T ≤ Σ_i r_i for every full-information run (exact OPT).",
              "every run", details="Prop. 3's proof gives R_T ≤ Σ_i (1−1/k)^(k−i) r_i, which implies the statement "
                                   "when every r_i ≥ 0; both are counted")
def _c12(tables, settings):
    runs = _fi_runs(tables)
    runs = runs[runs["opt_exact"].astype(bool)]
    if runs.empty:
        raise Inconclusive("no run with an exact optimum", needs="a run with an exact optimum")
    tol = ABS_TOL + REL_TOL * runs["OPT"].abs()
    bad = int((runs["R"] > runs["sum_r"] + tol).sum())
    bad_w = int((runs["R"] > runs["sum_r_weighted"] + tol).sum())
    neg = int((runs["min_r_i"] < 0).sum())
    return Outcome(f"{len(runs)} runs: {bad} with R_T > Σ r_i, {bad_w} with R_T > Σ (1−1/k)^(k−i) r_i; "
                   f"{neg} runs with some r_i < 0", bad == 0)


@CLAIMS.claim("C1.3", "f1", "Theorem-6 constants: mean Σ_i r_i ≤ B_FI = k(ηT + ln n/η) for every (T, ε).",
              "mean Σ r_i ≤ B_FI at every (T, ε) of FI-DP (the claim allows +3·SE: with ≥ 10 seeds); not reproduced "
              "when a point's familywise 95 % interval lies above B_FI", needs=("fi_runs",))
def _c13(tables, settings):
    pts = []
    for name, runs in _fi_sources(tables):
        b = _boot(_private(runs), FI_KEYS, "sum_r", firsts=("B_theorem",), resample=False).points
        pts.append(b.assign(source=name))
    p = pd.concat(pts, ignore_index=True)
    finite(p["mean"].to_numpy(), p["B_theorem"].to_numpy())
    m = len(p)
    parts = [_point(f"{r.source} ε={r.eps:g} T={int(r.T):,} Σr/B_FI", r.mean / r.B_theorem,
                    r.sem / r.B_theorem, int(r.N), (None, 1.0), m, tol=(None, 1 + 3 * r.sem / r.B_theorem),
                    fmt=lambda x: f"{x:.3f}", quiet=True) for r in p.itertuples()]
    ratio = p["mean"] / p["B_theorem"]
    head = f"{m} points ({_nseeds(p)}), {int((ratio > 1).sum())} above the bound; " + \
        "; ".join(f"{s}: max mean Σr/B_FI = {_f(ratio[p['source'] == s].max())}" for s in p["source"].unique())
    return _outcome(parts, head)


@CLAIMS.claim("C1.4", "f1", "√T regime: once u ≥ 10 the expert regret grows like √T; SG-NP from T ≈ 10^4.",
              "slope of ln E[Σ r_i] on ln T over the points with u ≥ 10 in [0.35, 0.70] for every ε with ≥ 3 such "
              "points; SG-NP over T ≥ 10^4 (to 10^6 on SYN-CLICK, 3·10^5 on UBER-PICK) in [0.35, 0.65]",
              needs=("fi_runs",))
def _c14(tables, settings):
    todo = []
    for name, runs in _fi_sources(tables):
        b = _boot(runs[runs["algo"].isin(["FI-DP", "SG-NP"])], FI_KEYS, "sum_r", firsts=("u",))
        p = b.points
        for eps in sorted(p.loc[p["algo"] == "FI-DP", "eps"].unique()):
            mask = ((p["algo"] == "FI-DP") & (p["eps"] == eps) & (p["u"] >= U_LEARNED)).to_numpy()
            if mask.sum() >= 3:
                todo.append((f"{name} ε={eps:g} ({int(mask.sum())} pts)", b.take(mask), (0.35, 0.70), None))
        sg = ((p["algo"] == "SG-NP") & (p["T"] >= 1e4)).to_numpy()
        if sg.sum() >= 2:
            t = p.loc[sg, "T"]
            want = SYN_T_MAX if name == "SYN-CLICK" else UBER_T_MAX
            try:
                require_range(t.min(), t.max(), 1e4, want, what="T", fmt=_T)
                todo.append((f"{name} SG-NP", b.take(sg), (0.35, 0.65), None))
            except Inconclusive as why:
                if name == "UBER-PICK":
                    why = Inconclusive(str(why), needs=f"{why.needs} (the full month's pickups)")
                todo.append((f"{name} SG-NP", None, None, why))
    if not todo:
        raise Inconclusive("no ε has 3 horizons with u ≥ 10 and SG-NP has < 2 horizons ≥ 10^4",
                           needs="horizons with u ≥ 10 (the design's T up to 10^6)")
    m = sum(1 for t in todo if t[1] is not None)
    parts = []
    for label, b, band, why in todo:
        if b is None:
            parts.append(Part(f"{label}: {why}", None, why.needs))
        else:
            parts.append(_slope(label, b.points["T"].to_numpy(float), b, band, m))
    return _outcome(parts, details="[a, b]: familywise 95 % bootstrap interval over seeds")


@CLAIMS.claim("C1.5", "f1", "Burn-in: while u < 1 the bound is vacuous and the regret grows linearly.",
              "slope of ln E[Σ r_i] on ln T over the whole grid ≥ 0.8 for every ε with u(T_max) ≤ 1.5",
              needs=("fi_runs",))
def _c15(tables, settings):
    todo = []
    for name, runs in _fi_sources(tables):
        b = _boot(_private(runs), FI_KEYS, "sum_r", firsts=("u",))
        p = b.points
        tmax = p["T"].max()
        for eps in sorted(p["eps"].unique()):
            mask = (p["eps"] == eps).to_numpy()
            last = p[mask & (p["T"] == tmax).to_numpy()]
            if len(last) and float(last["u"].iloc[0]) <= U_BURNIN and mask.sum() >= 2:
                todo.append((f"{name} ε={eps:g}", b.take(mask)))
    if not todo:
        raise Inconclusive("no ε with u(T_max) ≤ 1.5", needs="an ε with u(T_max) ≤ 1.5 in the grid")
    return _outcome([_slope(label, b.points["T"].to_numpy(float), b, (0.8, None), len(todo)) for label, b in todo],
                    details="[a, b]: familywise 95 % bootstrap interval over seeds")


@CLAIMS.claim("C1.6", "f1", "Sign of R_T/T at T_max: negative once learned, positive in burn-in; UNIF always positive.",
              "R_T/T(T_max) < 0 for SG-NP and every ε with u(T_max) ≥ 10; > 0 for every ε with u(T_max) ≤ 1.5; "
              "UNIF R_T/T > 0 at every T", needs=("fi_runs",))
def _c16(tables, settings):
    todo = []
    for name, runs in _fi_sources(tables):
        p = _boot(_with(runs, y=lambda r: r["R"] / r["T"]), FI_KEYS, "y", firsts=("u",), resample=False).points
        tmax = p["T"].max()
        for r in p[p["T"] == tmax].itertuples():
            if r.algo == "SG-NP" or (r.algo == "FI-DP" and r.u >= U_LEARNED):
                todo.append((f"{name} {r.algo}{'' if r.algo == 'SG-NP' else f' ε={r.eps:g}'}", r, (None, 0.0), False))
            elif r.algo == "FI-DP" and r.u <= U_BURNIN:
                todo.append((f"{name} ε={r.eps:g}", r, (0.0, None), False))
        for r in p[p["algo"] == "UNIF"].itertuples():
            todo.append((f"{name} UNIF T={int(r.T):,}", r, (0.0, None), True))
    if not todo:
        raise Inconclusive("no learned, burn-in or UNIF point at T_max", needs="the ε grid of F1")
    parts = [_point(label, r.mean, r.sem, int(r.N), band, len(todo), quiet=quiet) for label, r, band, quiet in todo]
    unif = [r.mean for _, r, _, q in todo if q]
    head = f"UNIF min R_T/T {min(unif):+.3f} over {len(unif)} T" if unif else ""
    return _outcome(parts, head)


# ----------------------------------------------------------------------------- F2


def _collapse_runs(tables) -> pd.DataFrame:
    frames = []
    fi = _table(tables, "fi_runs")
    if len(fi):
        frames.append(_private(fi[fi["group"].isin(["syn", "collapse"])]).assign(source="SYN-CLICK"))
    ub = _table(tables, "uber_runs")
    if len(ub):
        frames.append(_private(_sel(ub, group="fi")).assign(source="UBER-PICK"))
    if not frames:
        raise Inconclusive("no full-information T sweep ran", needs="the runs of fi.syn, fi.collapse or uber.fi")
    runs = pd.concat(frames, ignore_index=True)
    return runs.assign(y=runs["sum_r"] / runs["T"], uy=runs["u"] * runs["sum_r"] / runs["T"])


@CLAIMS.claim("C2.1", "f2", "Collapse: in the learned regime E[Σ r_i]/T ≈ 1/u, whatever (T, ε, k).",
              "u·E[Σ r_i]/T in [0.5, 1.3] at every private point with u ≥ 10; not reproduced when a point's familywise "
              "95 % interval lies outside", needs=("fi_runs",))
def _c21(tables, settings):
    runs = _collapse_runs(tables)
    runs = runs[runs["u"] >= U_LEARNED]
    if runs.empty:
        raise Inconclusive("no private point with u ≥ 10", needs="horizons with u ≥ 10")
    p = _boot(runs, ("source", *FI_KEYS), "uy", firsts=("certified", "eta"), resample=False).points
    finite(p["mean"].to_numpy())
    m = len(p)
    parts = [_point(f"{r.source} k={r.k} ε={r.eps:g}{'' if r.certified else '*'} T={int(r.T):,} (η={r.eta:.3g}, "
                    f"{int(r.N)} seeds)", r.mean, r.sem, int(r.N), (0.5, 1.3), m, fmt=lambda x: f"{x:.2f}", quiet=True)
             for r in p.itertuples()]
    head = (f"{m} points (k = {sorted(p['k'].unique().tolist())}, {_nseeds(p)}): "
            f"u·y in [{_f(p['mean'].min())}, {_f(p['mean'].max())}]")
    return _outcome(parts, head, details="* = nominal ε (not certified)")


@CLAIMS.claim("C2.2", "f2", "Collapse slope: y = E[Σ r_i]/T falls like 1/u.", "OLS slope of ln y on ln u over points "
              "with u ≥ 10 in [−1.15, −0.85]", needs=("fi_runs",))
def _c22(tables, settings):
    runs = _collapse_runs(tables)
    runs = runs[runs["u"] >= U_LEARNED]
    b = _boot(runs, ("source", *FI_KEYS), "y", strata=("source", "group"), firsts=("u",))
    if len(b.points) < 3 or b.points["u"].nunique() < 2:
        raise Inconclusive(f"{len(b.points)} points with u ≥ 10 (need 3)", needs="horizons with u ≥ 10")
    part = _slope(f"slope over {len(b.points)} points", b.points["u"].to_numpy(float), b, (-1.15, -0.85), 1)
    return _outcome([part], details="[a, b]: 95 % bootstrap interval over seeds")


def _crossing(T: np.ndarray, u: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(T*, u*) of each row of Y (R_T/T over the sorted grid T): the first change of sign from + to −,
    interpolated linearly in ln T (as :func:`privopt.experiments.perezsalazar2021.tables.breakeven`); NaN
    without one."""
    Y = np.atleast_2d(Y)
    cond = (Y[:, :-1] > 0) & (Y[:, 1:] <= 0)
    has = cond.any(axis=1)
    j = np.argmax(cond, axis=1)
    y0, y1 = Y[np.arange(len(Y)), j], Y[np.arange(len(Y)), j + 1]
    with np.errstate(all="ignore"):
        w = y0 / (y0 - y1)
        lt0, lt1 = np.log(T[j]), np.log(T[j + 1])
        t_star = np.exp(lt0 + w * (lt1 - lt0))
        u_star = u[j] * np.sqrt(t_star / T[j])
    return np.where(has, t_star, np.nan), np.where(has, u_star, np.nan)


def _breakeven_series(tables) -> list[tuple[int, float, int, float, float, np.ndarray, np.ndarray]]:
    """Per (k, ε) FI-DP series of fi.syn/fi.collapse: (k, ε, seeds, T*, u*, bootstrap T*, bootstrap u*)."""
    fi = _table(tables, "fi_runs")
    runs = _private(fi[fi["group"].isin(["syn", "collapse"])]) if len(fi) else fi
    if runs.empty:
        raise Inconclusive("no full-information T sweep on SYN-CLICK", needs="the runs of fi.syn or fi.collapse")
    b = _boot(_with(runs, y=lambda r: r["R"] / r["T"]), FI_KEYS, "y", firsts=("u",))
    out = []
    for (k, eps), idx in b.points.groupby(["k", "eps"], sort=True).groups.items():
        s = b.take(np.isin(np.arange(len(b.points)), idx))
        order = np.argsort(s.points["T"].to_numpy(float))
        T, u = s.points["T"].to_numpy(float)[order], s.points["u"].to_numpy(float)[order]
        if T.size < 2:
            continue
        ts, us = _crossing(T, u, s.points["mean"].to_numpy(float)[order][None, :])
        tb, ub = _crossing(T, u, s.reps[:, order])
        out.append((int(k), float(eps), int(s.points["N"].min()), float(ts[0]), float(us[0]), tb, ub))
    return out


@CLAIMS.claim("C2.3", "f2", "The break-even point collapses: for each k, R_T/T changes sign at the same u whatever ε.",
              "for each k, u* of every ε whose T-series changes sign agree within a factor 2 (max/min ≤ 2)",
              needs=("fi_runs",))
def _c23(tables, settings):
    by_k: dict[int, list] = {}
    for k, eps, n, ts, us, tb, ub in _breakeven_series(tables):
        if math.isfinite(us):
            by_k.setdefault(k, []).append((eps, n, us, ub))
    todo = {k: v for k, v in by_k.items() if len(v) >= 2}
    if not todo:
        raise Inconclusive("no k has two ε whose R_T/T changes sign inside the T grid",
                           needs="a T grid where two ε change sign (the design's 10^3 … 10^6)")
    parts = []
    for k, v in sorted(todo.items()):
        est = max(x[2] for x in v) / min(x[2] for x in v)
        U = np.column_stack([x[3] for x in v])
        with np.errstate(all="ignore"):
            reps = U.max(axis=1) / U.min(axis=1)
        label = f"k={k}: u* = " + ", ".join(f"{x[2]:.2f} (ε={x[0]:g})" for x in v) + ", max/min"
        parts.append(_stat(label, est, reps, min(x[1] for x in v), (None, 2.0), len(todo)))
    return _outcome(parts, details="[a, b]: familywise 95 % bootstrap interval over seeds")


@CLAIMS.claim("C2.4", "f2", "Break-even horizon T* ∝ ε^-2 (k = 3).", "slope of ln T* on ln ε (k = 3, ε with a sign "
              "change among 5, 10, 20, 40) in [−2.5, −1.5]", needs=("fi_runs",))
def _c24(tables, settings):
    found = [x for x in _breakeven_series(tables) if x[0] == 3 and x[1] in (5, 10, 20, 40) and math.isfinite(x[3])]
    if len(found) < 2:
        raise Inconclusive(f"T* inside the grid for {len(found)} of ε ∈ {{5, 10, 20, 40}} (need 2)",
                           needs="a T grid where two of ε ∈ {5, 10, 20, 40} change sign (the design's 10^3 … 10^6)")
    e = np.array([x[1] for x in found])
    est = _logslope(e, np.array([x[3] for x in found]))
    reps = _logslope(e, np.column_stack([x[5] for x in found]))
    label = "slope (T* = " + ", ".join(f"{x[3]:.3g} at ε={x[1]:g}" for x in found) + ")"
    return _outcome([_stat(label, est, reps, min(x[2] for x in found), (-2.5, -1.5), 1)],
                    details="[a, b]: 95 % bootstrap interval over seeds")
