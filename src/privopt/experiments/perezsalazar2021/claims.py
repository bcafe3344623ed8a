"""The checkable claims (docs/papers/perezsalazar2021.md, reading R20: C1.1 … C8.3) on the regenerated
tables, at the scale that ran.

The paper has no figures, so every "claim" is a prediction of its theorems for the pipeline's own
figures, with the thresholds the design calibrated on a prototype.  Nothing is tuned.  Three verdicts
(:mod:`privopt.pipeline.claims`), decided by what the data can tell:

* *reproduced*: the seed means meet the claim's threshold (where the claim allows a tolerance in
  standard errors, "allow +3·SE", the tolerance counts only with ≥ :data:`MIN_SEEDS` seeds per point);
* *not reproduced*: the interval of the measured effect excludes the threshold — a per-point Student-t
  interval of the seed mean, or a percentile bootstrap interval over seeds (perezsalazar2021 reading R21:
  1000 resamples,
  seeds resampled jointly for every point that shares them) for slopes, ratios and differences; each
  claim's intervals are familywise 95 % (Bonferroni over its points or parts), so the worst of 32 noisy
  points is not mistaken for a contradiction; and only with ≥ :data:`MIN_SEEDS` seeds per point;
* *inconclusive at this scale* otherwise, with what would decide it: more seeds, or the claim's own
  horizon when what ran does not reach it.

Horizons: a claim that names its range (C1.4's SG-NP "T ≥ 10^4", C5.3/C5.4 "T ∈ [10^5, 3·10^6]", C5.5
"T ≤ 3·10^6", C6.1/C6.2 "T ≥ 10^5", C7.3 "T ≥ 10^4") is decided only when the horizons that ran cover
that range on the design's grid (:func:`require_range`; "T ≥ x" runs to the figure's largest horizon).  A
claim stated on the effective budget u (u ≥ 10 learned, u ≤ 1.5 burn-in) is evaluated on the points
that ran with that u; a part whose precondition fails at what ran (C3.3: u ≥ 10 at every k ≤ 6; C4.2:
ε ≥ 30 learned by the end of the stream) is inconclusive and says which T would meet it.
Implementation invariants (C1.1, C1.2, C5.1, C5.2, C6.3, C8.1, C8.2) are exact checks on every run.

Claims marked [derived] are checks added by the pipeline (the planted privacy bug is caught).
:func:`findings` computes the sentences the report shows first.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from privopt.pipeline.claims import (MIN_SEEDS, ClaimSet, Inconclusive, Outcome, finite, require_range,
                                        require_seeds)
from privopt.pipeline.claims import fmt_sig as _f
from privopt.experiments.perezsalazar2021.tables import phi_half
from privopt.pipeline.protocol import Finding

PAPER = "perezsalazar2021"
CLAIMS = ClaimSet(PAPER)
REL_TOL = 1e-9
ABS_TOL = 1e-9
#: familywise error of each claim's intervals (Bonferroni over its points or parts)
ALPHA = 0.05
#: bootstrap resamples over seeds (perezsalazar2021 reading R21) and the fixed stream they are drawn from
BOOT = 1000
BOOT_SEED = 2021
#: the effective budget of the learned regime and the burn-in (perezsalazar2021 reading R20, C1.4–C1.6, C2.1)
U_LEARNED = 10.0
U_BURNIN = 1.5
#: the largest horizons of the design's grids (perezsalazar2021 reading R20): F1/F2 fine grid (SYN), F1 row 2
#: coarse grid within the full month's ≈ 4.5·10^5 pickups (UBER), F5/F6 (bandit), F7 (Algorithm 4)
SYN_T_MAX = 1e6
UBER_T_MAX = 3e5
BANDIT_T = (1e4, 3e6)
CONT_T_MAX = 1e5
FI_KEYS = ("group", "algo", "eps", "k", "n", "T")


def _T(x: float) -> str:
    """A horizon: 10^k, c·10^k or a plain integer."""
    x = float(x)
    e = math.floor(math.log10(x)) if x > 0 else 0
    c = x / 10 ** e
    if abs(c - 1) < 1e-9:
        return f"10^{e}"
    if abs(c - round(c)) < 1e-9 and e >= 4:
        return f"{int(round(c))}·10^{e}"
    return f"{int(round(x)):,}"


def _sci(x: float) -> str:
    """Two significant digits as c·10^k (8.3·10^5)."""
    e = math.floor(math.log10(float(x)))
    c = float(x) / 10 ** e
    if round(c, 1) >= 10:
        c, e = c / 10, e + 1
    return f"{c:.1f}·10^{e}"


def _sel(t: pd.DataFrame, **eq) -> pd.DataFrame:
    m = np.ones(len(t), dtype=bool)
    for k, v in eq.items():
        if k not in t.columns:
            return t.iloc[0:0]
        if isinstance(v, (list, tuple, set)):
            m &= t[k].isin(list(v)).to_numpy()
        elif isinstance(v, float) and math.isnan(v):
            m &= t[k].isna().to_numpy()
        else:
            m &= (t[k] == v).to_numpy()
    return t[m]


def _private(t: pd.DataFrame) -> pd.DataFrame:
    return t[t["algo"] == "FI-DP"]


def _table(tables, name: str) -> pd.DataFrame:
    t = tables.get(name)
    return t if t is not None and len(t) else pd.DataFrame()


# ----------------------------------------------------------------------------- the three-way rule


@dataclass(frozen=True)
class _Part:
    """One checked part of a claim: its text, True/False/None, what would decide it; ``quiet`` parts are
    listed in the measured value only when they do not hold."""

    text: str
    holds: bool | None
    needs: str = ""
    quiet: bool = False


_MARK = {True: "", False: " ✗", None: " ?"}


def _outcome(parts: Sequence[_Part], head: str = "", details: str = "", threshold: str | None = None) -> Outcome:
    """Combine the parts: not reproduced if any part is contradicted, inconclusive if any is undecided."""
    if not parts:
        raise Inconclusive("nothing to evaluate")
    hs = [p.holds for p in parts]
    holds = False if any(h is False for h in hs) else None if any(h is None for h in hs) else True
    needs = "; ".join(dict.fromkeys(p.needs for p in parts if p.holds is None and p.needs))
    shown = [p for p in parts if not p.quiet or p.holds is not True]
    listed = "; ".join(p.text + _MARK[p.holds] for p in shown[:12]) + ("; …" if len(shown) > 12 else "")
    measured = "; ".join(x for x in (head, listed) if x)
    if any(p.holds is not True for p in parts):
        details = "; ".join(x for x in (details, "✗ = the interval excludes the threshold, ? = undecided") if x)
    return Outcome(measured, holds, threshold=threshold, details=details, needs=needs)


def _inside(x: float, band: tuple[float | None, float | None]) -> bool:
    return (band[0] is None or x >= band[0]) and (band[1] is None or x <= band[1])


def _judge(est: float, lo: float, hi: float, band, n: int, tol=None) -> tuple[bool | None, str]:
    """The estimate ``est`` with its familywise interval ``[lo, hi]`` against ``band`` (lower, upper; None =
    open): True when the estimate is inside (or, with ≥ MIN_SEEDS seeds, inside the claim's tolerance band
    ``tol``), False when the interval lies wholly outside (≥ MIN_SEEDS seeds), else None and what would decide."""
    finite(est)
    if _inside(est, band):
        return True, ""
    if n < MIN_SEEDS:
        return None, f"≥ {MIN_SEEDS} seeds per point"
    if tol is not None and _inside(est, tol):
        return True, ""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None, "an interval (bootstrap resamples without a value)"
    if (band[0] is not None and hi < band[0]) or (band[1] is not None and lo > band[1]):
        return False, ""
    if band[1] is not None and est > band[1]:
        d, w = est - band[1], est - lo
    else:
        d, w = band[0] - est, hi - est
    return None, f"≈ {math.ceil(n * (w / d) ** 2)} seeds per point (the interval reaches the threshold)"


def _tq(n: int, m: int) -> float:
    """The two-sided Student-t quantile of a familywise 1 − ALPHA interval over m points, n seeds each."""
    return float(stats.t.ppf(1 - ALPHA / (2 * max(m, 1)), max(int(n) - 1, 1)))


def _point(label: str, est: float, se: float, n: int, band, m: int, tol=None, fmt=lambda x: f"{x:+.3f}",
           quiet: bool = False) -> _Part:
    """A seed mean against ``band`` with a Student-t interval (familywise over the claim's m points)."""
    finite(est)
    ok = n >= 2 and math.isfinite(se)
    lo, hi = (est - _tq(n, m) * se, est + _tq(n, m) * se) if ok else (math.nan, math.nan)
    holds, needs = _judge(est, lo, hi, band, n, tol)
    return _Part(f"{label}: {fmt(est)}", holds, needs, quiet)


def _ci(reps: np.ndarray, m: int) -> tuple[float, float]:
    """Percentile interval of bootstrap replicates, familywise over m parts; unbounded when more than the
    tail's share of replicates has no value (e.g. no sign change)."""
    q = ALPHA / (2 * max(m, 1))
    r = np.asarray(reps, float)
    if r.size == 0 or np.mean(~np.isfinite(r)) > q:
        return -math.inf, math.inf
    lo, hi = np.quantile(r[np.isfinite(r)], [q, 1 - q])
    return float(lo), float(hi)


def _stat(label: str, est: float, reps: np.ndarray, n: int, band, m: int, tol=None,
          fmt=lambda x: f"{x:.2f}") -> _Part:
    """A statistic of seed means against ``band`` with its bootstrap interval (familywise over m parts)."""
    finite(est, what=f"{label}")
    lo, hi = _ci(reps, m)
    holds, needs = _judge(est, lo, hi, band, n, tol)
    shown = f" [{fmt(lo)}, {fmt(hi)}]" if n >= MIN_SEEDS and math.isfinite(lo) and math.isfinite(hi) else f" ({n} seeds)"
    return _Part(f"{label}: {fmt(est)}{shown}", holds, needs)


# ----------------------------------------------------------------------------- seed means and the bootstrap


@dataclass(frozen=True)
class _Boot:
    """Per point (one row of keys): seed mean, SEM, seeds N, the first value of some columns; and BOOT
    bootstrap means (``reps[b, point]``), the seeds resampled with replacement within each stratum,
    jointly for all its points (the points of a stratum share their seeds' streams)."""

    points: pd.DataFrame
    reps: np.ndarray

    def take(self, mask) -> _Boot:
        idx = np.flatnonzero(np.asarray(mask, bool))
        return _Boot(self.points.iloc[idx].reset_index(drop=True), self.reps[:, idx])

    def col(self, i: int) -> np.ndarray:
        return self.reps[:, i]


def _boot(runs: pd.DataFrame, keys: Sequence[str], value: str, strata: Sequence[str] = ("group",),
          firsts: Sequence[str] = (), resample: bool = True) -> _Boot:
    runs = runs.reset_index(drop=True)
    keys = [k for k in keys if k in runs.columns]
    g = runs.groupby(keys, dropna=False, sort=True)
    points = g[value].agg(["mean", "std", "count"]).reset_index().rename(columns={"count": "N"})
    points["sem"] = points["std"] / np.sqrt(points["N"])
    for c in firsts:
        if c in runs.columns:
            points[c] = g[c].first().to_numpy()
    reps = np.full((BOOT if resample else 0, len(points)), np.nan)
    if resample and len(points):
        pid = g.ngroup().to_numpy()
        strata = [s for s in strata if s in runs.columns]
        sid = runs.groupby(strata, dropna=False, sort=True).ngroup().to_numpy() if strata else np.zeros(len(runs), int)
        vals = runs[value].to_numpy(float)
        seeds_all = runs["seed"].to_numpy()
        rng = np.random.default_rng(BOOT_SEED)
        for s in np.unique(sid):
            rows = np.flatnonzero(sid == s)
            seeds, col = np.unique(seeds_all[rows], return_inverse=True)
            pts, prow = np.unique(pid[rows], return_inverse=True)
            mat = np.full((pts.size, seeds.size), np.nan)
            mat[prow, col] = vals[rows]
            idx = rng.integers(0, seeds.size, size=(BOOT, seeds.size))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                reps[:, pts] = np.nanmean(mat[:, idx], axis=2).T
    return _Boot(points, reps)


def _logslope(x, y) -> np.ndarray | float:
    """OLS slope of ln y on ln x along the last axis (y may be [..., P]; NaN where some y ≤ 0)."""
    lx = np.log(np.asarray(x, float))
    lxc = lx - lx.mean()
    with np.errstate(all="ignore"):
        ly = np.log(np.asarray(y, float))
        out = ((ly - ly.mean(axis=-1, keepdims=True)) * lxc).sum(axis=-1) / (lxc ** 2).sum()
    return float(out) if np.ndim(out) == 0 else out


def _slope(label: str, x, b: _Boot, band, m: int, scale=None) -> _Part:
    """Slope of ln(mean · scale) on ln x over the points of ``b`` with its bootstrap interval."""
    s = np.ones(len(b.points)) if scale is None else np.asarray(scale, float)
    y, Y = b.points["mean"].to_numpy(float) * s, b.reps * s
    return _stat(label, _logslope(x, y), _logslope(x, Y), int(b.points["N"].min()), band, m)


def _nseeds(p: pd.DataFrame) -> str:
    lo, hi = int(p["N"].min()), int(p["N"].max())
    return f"{lo} seeds" if lo == hi else f"{lo}–{hi} seeds"


def _with(runs: pd.DataFrame, **cols: Callable[[pd.DataFrame], Any]) -> pd.DataFrame:
    return runs.assign(**{k: f(runs) for k, f in cols.items()})


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
            parts.append(_Part(f"{label}: {why}", None, why.needs))
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


# ----------------------------------------------------------------------------- F3


def _syn_tmax(tables) -> _Boot:
    fi = _sel(_table(tables, "fi_runs"), group="syn")
    if fi.empty:
        raise Inconclusive("perezsalazar2021.fi.syn did not run", needs="the runs of fi.syn")
    return _boot(fi[fi["T"] == fi["T"].max()], FI_KEYS, "sum_r", firsts=("u", "certified"))


@CLAIMS.claim("C3.1", "f3", "ε-scaling at fixed T: E[Σ r_i] ∝ 1/ε in the learned regime.",
              "slope of ln E[Σ r_i] on ln ε over certified points with u ≥ 10 at T_max in [−1.2, −0.8]",
              needs=("fi_runs",))
def _c31(tables, settings):
    b = _syn_tmax(tables)
    p = b.points
    mask = ((p["algo"] == "FI-DP") & (p["u"] >= U_LEARNED) & p["certified"].astype(bool)).to_numpy()
    if mask.sum() < 2:
        raise Inconclusive(f"{int(mask.sum())} certified ε with u ≥ 10 at T = {int(p['T'].max()):,} (need 2)",
                           needs="a horizon where two certified ε have u ≥ 10 (the design's T = 10^6)")
    q = b.take(mask)
    label = f"slope over ε = {sorted(q.points['eps'].tolist())} at T = {int(q.points['T'].iloc[0]):,}"
    return _outcome([_slope(label, q.points["eps"].to_numpy(float), q, (-1.2, -0.8), 1)],
                    details="[a, b]: 95 % bootstrap interval over seeds")


@CLAIMS.claim("C3.2", "f3", "Below u = 1 FI-DP is no better than uniform play.", "at the smallest ε (u < 1) E[Σ r_i] "
              "within 25% of UNIF's at T_max", needs=("fi_runs",))
def _c32(tables, settings):
    b = _syn_tmax(tables)
    p = b.points
    low = p[(p["algo"] == "FI-DP") & (p["u"] < 1)].sort_values("eps")
    unif = p[p["algo"] == "UNIF"]
    if low.empty or unif.empty:
        raise Inconclusive("no ε with u < 1, or no UNIF run, at T_max", needs="ε with u < 1 and UNIF at T_max")
    i, j = int(low.index[0]), int(unif.index[0])
    a, c = float(p.loc[i, "mean"]), float(p.loc[j, "mean"])
    with np.errstate(all="ignore"):
        reps = np.abs(b.col(i) / b.col(j) - 1)
    label = f"ε={p.loc[i, 'eps']:g} (u={p.loc[i, 'u']:.2f}): Σr {_f(a)} vs UNIF {_f(c)}, |ratio − 1|"
    return _outcome([_stat(label, abs(a / c - 1), reps, int(min(p.loc[i, "N"], p.loc[j, "N"])), (None, 0.25), 1,
                           fmt=lambda x: f"{x:.1%}")], details="[a, b]: 95 % bootstrap interval over seeds")


@CLAIMS.claim("C3.3", "f3", "k-scaling: E[Σ r_i] ∝ k² for FI-DP (the price of privacy) against √k for SG-NP.",
              "k-slope at ε = 30 over k ≤ 6, u ≥ 10 at every k (the design's T = 10^6), in [1.7, 2.3]; SG-NP k-slope "
              "over k ≤ 6 in [0.3, 0.75]", needs=("fi_runs",))
def _c33(tables, settings):
    s = _sel(_table(tables, "fi_runs"), group="kscan")
    if s.empty:
        raise Inconclusive("perezsalazar2021.fi.kscan did not run", needs="the runs of fi.kscan (T = 10^6)")
    s = s[s["k"] <= 6]
    b = _boot(s, FI_KEYS, "sum_r", firsts=("u",))
    p = b.points
    fi = ((p["algo"] == "FI-DP") & (p["eps"] == 30.0)).to_numpy()
    low = p[fi & (p["u"] < U_LEARNED).to_numpy()]
    if fi.sum() == 0:
        raise Inconclusive("no FI-DP run at ε = 30", needs="fi.kscan at ε = 30")
    if len(low):
        t_need = float((low["T"] * (U_LEARNED / low["u"]) ** 2).max())
        raise Inconclusive(f"ε = 30 has u < 10 at k = {sorted(low['k'].tolist())} (T = {int(p['T'].max()):,}): the k² "
                           f"law is the learned regime's", needs=f"T ≥ {_sci(t_need)} (u ≥ 10 at every k ≤ 6; the design "
                           f"runs T = 10^6)")
    if fi.sum() < 3:
        raise Inconclusive(f"ε = 30 ran at k = {sorted(p.loc[fi, 'k'].tolist())} only", needs="≥ 3 values of k ≤ 6")
    todo = [("FI-DP ε=30 over k = " + str(sorted(p.loc[fi, 'k'].tolist())), b.take(fi), (1.7, 2.3))]
    sg = (p["algo"] == "SG-NP").to_numpy()
    if sg.sum() >= 2:
        todo.append(("SG-NP over k ≤ 6", b.take(sg), (0.3, 0.75)))
    return _outcome([_slope(label, q.points["k"].to_numpy(float), q, band, len(todo)) for label, q, band in todo],
                    details="[a, b]: familywise 95 % bootstrap interval over seeds")


@CLAIMS.claim("C3.4", "f3", "ln n-scaling on SYN-CLICK-PAD: E[Σ r_i] ∝ ln n for FI-DP, ∝ √ln n for SG-NP.",
              "slope of ln E[Σ r_i] on ln ln n for ε = 30 and 100 in [0.7, 1.3]; SG-NP in [0.3, 0.7]", needs=("fi_runs",))
def _c34(tables, settings):
    s = _sel(_table(tables, "fi_runs"), group="nscan")
    if s.empty or s["n"].nunique() < 2:
        raise Inconclusive("perezsalazar2021.fi.nscan did not run on two n", needs="the runs of fi.nscan")
    b = _boot(s, FI_KEYS, "sum_r")
    p = b.points
    todo = []
    for (algo, eps), idx in p.groupby(["algo", "eps"], dropna=False, sort=True).groups.items():
        if algo in ("FI-DP", "SG-NP"):
            q = b.take(np.isin(np.arange(len(p)), idx))
            todo.append((f"ε={eps:g}" if algo == "FI-DP" else "SG-NP", q, (0.7, 1.3) if algo == "FI-DP" else (0.3, 0.7)))
    parts = [_slope(label, np.log(q.points["n"].to_numpy(float)), q, band, len(todo)) for label, q, band in todo]
    return _outcome(parts, head=f"T = {int(s['T'].max()):,}, n = {sorted(s['n'].unique().tolist())}",
                    details="[a, b]: familywise 95 % bootstrap interval over seeds")


# ----------------------------------------------------------------------------- F4


def _anytime(tables) -> _Boot:
    s = _sel(_table(tables, "uber_runs"), group="anytime")
    if s.empty:
        raise Inconclusive("perezsalazar2021.uber.anytime did not run", needs="the runs of uber.anytime")
    return _boot(_with(s, avg=lambda r: r["ALG"] / r["T"]), ("feedback", "algo", "eps", "T"), "avg",
                 firsts=("u", "OPT", "R"))


@CLAIMS.claim("C4.1", "f4", "On the Uber pickups the final average reward grows with ε and stays below OPT/T.",
              "ALG/T non-decreasing in ε and ≤ OPT/T for every ε (the claim allows 2 SE and 3 SE: with ≥ 10 seeds)",
              needs=("uber_runs",))
def _c41(tables, settings):
    b = _anytime(tables)
    p = b.points
    idx = p.index[(p["feedback"] == "full") & (p["algo"] == "FI-DP")]
    idx = list(p.loc[idx].sort_values("eps").index)
    if not idx:
        raise Inconclusive("no FI-DP run on the pickups", needs="uber.anytime")
    m = 2 * len(idx) - 1
    parts = []
    for i, j in zip(idx, idx[1:]):
        d = float(p.loc[j, "mean"] - p.loc[i, "mean"])
        se = math.hypot(p.loc[i, "sem"], p.loc[j, "sem"])
        parts.append(_stat(f"ε {p.loc[i, 'eps']:g}→{p.loc[j, 'eps']:g}: Δ ALG/T", d, b.col(j) - b.col(i),
                           int(min(p.loc[i, "N"], p.loc[j, "N"])), (0.0, None), m, tol=(-2 * se, None),
                           fmt=lambda x: f"{x:+.4f}"))
    opt = float(p.loc[idx[0], "OPT"] / p.loc[idx[0], "T"])
    for i in idx:
        parts.append(_stat(f"ε={p.loc[i, 'eps']:g}: ALG/T", float(p.loc[i, "mean"]), b.col(i), int(p.loc[i, "N"]),
                           (None, opt), m, tol=(None, opt + 3 * float(p.loc[i, "sem"])), fmt=lambda x: f"{x:.4f}"))
    return _outcome(parts, head=f"OPT/T = {opt:.4f}", details="[a, b]: familywise 95 % bootstrap interval over seeds")


@CLAIMS.claim("C4.2", "f4", "Sign of R_T at the end of the Uber stream.", "R_T < 0 for ε ≥ 30 (learned: u ≥ 10) and "
              "SG-NP; R_T > 0 for ε ≤ 1 (full information)", needs=("uber_runs",))
def _c42(tables, settings):
    s = _sel(_table(tables, "uber_runs"), group="anytime")
    if s.empty:
        raise Inconclusive("perezsalazar2021.uber.anytime did not run", needs="the runs of uber.anytime")
    s = s[s["feedback"] == "full"]
    p = _boot(_with(s, y=lambda r: r["R"] / r["T"]), ("algo", "eps", "T"), "y", firsts=("u",), resample=False).points
    todo = []
    for r in p.itertuples():
        if r.algo == "SG-NP":
            todo.append(("SG-NP", r, (None, 0.0)))
        elif r.algo == "FI-DP" and r.eps >= 30:
            todo.append((f"FI-DP ε={r.eps:g} (u={r.u:.1f})", r, (None, 0.0)))
        elif r.algo == "FI-DP" and r.eps <= 1:
            todo.append((f"ε={r.eps:g}", r, (0.0, None)))
    if not todo:
        raise Inconclusive("no ε ≥ 30, ε ≤ 1 or SG-NP run", needs="uber.anytime with those ε")
    parts = []
    for label, r, band in todo:
        if r.algo == "FI-DP" and r.eps >= 30 and r.u < U_LEARNED:
            t_need = r.T * (U_LEARNED / r.u) ** 2
            parts.append(_Part(f"{label}: {r.mean:+.4f}, not yet learned (u < 10)", None,
                               f"T ≥ {int(math.ceil(t_need)):,} pickups (u ≥ 10 at ε = {r.eps:g})"))
        else:
            parts.append(_point(label, r.mean, r.sem, int(r.N), band, len(todo), fmt=lambda x: f"{x:+.4f}"))
    return _outcome(parts, head=f"R_T/T at T = {int(p['T'].max()):,}")


@CLAIMS.claim("C4.3", "f4", "Privacy-unit scaling: learning needs ε√T ≳ const, so ε_½ ∝ T^(-1/2) across units.",
              "ln(ε_½(w=60)/ε_½(pick)) / ln √(T_pick/T_w60) in [0.6, 1.5]", needs=("f4c",))
def _c43(tables, settings):
    f4c = tables["f4c"]
    by = {str(u): g for u, g in f4c.groupby("unit")}
    if "60" not in by or "pick" not in by:
        raise Inconclusive(f"units run: {sorted(by)} (need 60 and pick)", needs="uber.granularity with units 60 and pick")
    e60, ep = float(by["60"]["eps_half"].iloc[0]), float(by["pick"]["eps_half"].iloc[0])
    t60, tp = int(by["60"]["T"].iloc[0]), int(by["pick"]["T"].iloc[0])
    extra = "; ".join(f"ε_½(w={u}) = {_f(g['eps_half'].iloc[0])} (T = {int(g['T'].iloc[0]):,})" for u, g in by.items())
    if not (math.isfinite(e60) and math.isfinite(ep)):
        raise Inconclusive(f"φ does not cross 1/2 inside the ε grid for every unit: {extra}",
                           needs="an ε grid where φ crosses 1/2 for both units")
    scale = math.log(math.sqrt(tp / t60))
    est = math.log(e60 / ep) / scale
    runs = _sel(_table(tables, "uber_runs"), group="granularity")
    runs = runs[runs["unit"].astype(str).isin(["60", "pick"])] if len(runs) else runs
    if runs.empty:
        reps, n = np.full(BOOT, np.nan), 0
    else:
        b = _boot(runs.assign(unit=runs["unit"].astype(str)), ("unit", "eps"), "phi")
        half = {}
        for unit in ("60", "pick"):
            mask = (b.points["unit"] == unit).to_numpy()
            e = b.points.loc[mask, "eps"].to_numpy(float)
            half[unit] = np.array([phi_half(e, row) for row in b.reps[:, mask]])
        with np.errstate(all="ignore"):
            reps = np.log(half["60"] / half["pick"]) / scale
        n = int(b.points["N"].min())
    return _outcome([_stat("ratio", est, reps, n, (0.6, 1.5), 1)], head=extra,
                    details="[a, b]: 95 % bootstrap interval over seeds")


@CLAIMS.claim("C4.4", "f4", "Full information beats bandit feedback at equal ε on the Uber pickups.",
              "final ALG/T of FI-DP ε=30 ≥ BanditDP ε=30, and SG-NP ≥ SG-BANDIT-NP", needs=("uber_runs",))
def _c44(tables, settings):
    b = _anytime(tables)
    p = b.points

    def find(algo, eps=math.nan):
        q = _sel(p, algo=algo, eps=eps)
        return int(q.index[0]) if len(q) else None

    pairs = [("FI-DP ε=30 − BanditDP ε=30", find("FI-DP", 30.0), find("BanditDP", 30.0)),
             ("SG-NP − SG-BANDIT-NP", find("SG-NP"), find("SG-BANDIT-NP"))]
    if any(i is None or j is None for _, i, j in pairs):
        raise Inconclusive("needs FI-DP and BanditDP at ε = 30, SG-NP and SG-BANDIT-NP",
                           needs="uber.anytime with bandit_eps 30")
    parts = [_stat(f"{label} (ALG/T {p.loc[i, 'mean']:.4f} vs {p.loc[j, 'mean']:.4f})",
                   float(p.loc[i, "mean"] - p.loc[j, "mean"]), b.col(i) - b.col(j),
                   int(min(p.loc[i, "N"], p.loc[j, "N"])), (0.0, None), 2, fmt=lambda x: f"{x:+.4f}")
             for label, i, j in pairs]
    return _outcome(parts, details="[a, b]: familywise 95 % bootstrap interval over seeds (paired: same pickups)")


# ----------------------------------------------------------------------------- F5


def _bandit_runs(tables) -> pd.DataFrame:
    runs = tables.get("bandit_runs")
    if runs is None or runs.empty:
        raise Inconclusive("no bandit run", needs="the runs of experiment bandit")
    frames = [runs[runs["feedback"] == "bandit"]]
    ub = tables.get("uber_runs")
    if ub is not None and len(ub):
        frames.append(ub[ub["feedback"] == "bandit"])
    return pd.concat(frames, ignore_index=True)


@CLAIMS.claim("C5.1", "f5", "Lemma 2 pathwise: R_T ≤ Σ_i r_i + M for every bandit run (r_i on the frozen sets).",
              "every run", details="implementation invariant; r_i w.r.t. the true marginals (simulator side)",
              needs=("bandit_runs",))
def _c51(tables, settings):
    runs = _bandit_runs(tables)
    runs = runs[runs["opt_exact"].astype(bool)]
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
            parts.append(_Part(label, None, est))
        elif kind == "pt":
            parts.append(_stat(label, est, reps, n, (None, 0.0), m, fmt=_f))
            parts[-1] = _Part(parts[-1].text, parts[-1].holds, parts[-1].needs, quiet=True)
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


# ----------------------------------------------------------------------------- F7


def _cont(tables, value: str, fn) -> _Boot:
    c = _sel(_table(tables, "cont_runs"), group="sweep")
    if c.empty:
        raise Inconclusive("perezsalazar2021.cont.sweep did not run", needs="the runs of cont.sweep")
    return _boot(c.assign(**{value: fn(c)}), ("eps", "T"), value, firsts=("R",))


@CLAIMS.claim("C7.1", "f7", "Algorithm 4: at each T the reward grows with ε.", "ALG/T increasing in ε at every T",
              needs=("cont_runs",))
def _c71(tables, settings):
    b = _cont(tables, "avg", lambda c: c["ALG"] / c["T"])
    p = b.points
    todo = []
    for T, g in p.groupby("T", sort=True):
        idx = list(g.sort_values("eps").index)
        todo += [(T, i, j) for i, j in zip(idx, idx[1:])]
    if not todo:
        raise Inconclusive("needs two ε at one horizon", needs="cont.sweep with two ε")
    parts = [_stat(f"T={int(T):,} ε {p.loc[i, 'eps']:g}→{p.loc[j, 'eps']:g}: {p.loc[i, 'mean']:.3f}→{p.loc[j, 'mean']:.3f}",
                   float(p.loc[j, "mean"] - p.loc[i, "mean"]), b.col(j) - b.col(i), int(min(p.loc[i, "N"], p.loc[j, "N"])),
                   (0.0, None), len(todo), fmt=lambda x: f"{x:+.3f}") for T, i, j in todo]
    return _outcome(parts, details="Δ ALG/T between consecutive ε; [a, b]: familywise 95 % bootstrap interval over seeds")


@CLAIMS.claim("C7.2", "f7", "Algorithm 4 learns: for ε ≥ 10, REG_OPT/T decreases in T.", "REG_OPT/T decreasing in T for "
              "every ε ≥ 10", needs=("cont_runs",))
def _c72(tables, settings):
    b = _cont(tables, "regt", lambda c: c["REG_OPT"] / c["T"])
    p = b.points
    todo = []
    for eps, g in p[p["eps"] >= 10].groupby("eps", sort=True):
        idx = list(g.sort_values("T").index)
        todo += [(eps, i, j) for i, j in zip(idx, idx[1:])]
    if not todo:
        raise Inconclusive("needs ε ≥ 10 at two horizons", needs="cont.sweep with ε ≥ 10 at two T")
    parts = [_stat(f"ε={eps:g} T {int(p.loc[i, 'T']):,}→{int(p.loc[j, 'T']):,}: {p.loc[i, 'mean']:.3f}→{p.loc[j, 'mean']:.3f}",
                   float(p.loc[j, "mean"] - p.loc[i, "mean"]), b.col(j) - b.col(i), int(min(p.loc[i, "N"], p.loc[j, "N"])),
                   (None, 0.0), len(todo), fmt=lambda x: f"{x:+.3f}") for eps, i, j in todo]
    return _outcome(parts, details="Δ REG_OPT/T between consecutive T; [a, b]: familywise 95 % bootstrap interval over seeds")


@CLAIMS.claim("C7.3", "f7", "Algorithm 4 beats (1−1/e)·OPT once T ≥ 10^4 for ε ≥ 10.", "R_T < 0 at every T ≥ 1e4 "
              "(to 1e5) for ε ≥ 10", needs=("cont_runs",))
def _c73(tables, settings):
    b = _cont(tables, "y", lambda c: c["R"] / c["T"])
    p = b.points
    require_range(p["T"].min(), p["T"].max(), 1e4, CONT_T_MAX, what="T", fmt=_T)
    q = p[(p["T"] >= 1e4) & (p["eps"] >= 10)]
    if q.empty:
        raise Inconclusive("no ε ≥ 10 ran", needs="cont.sweep with ε ≥ 10")
    return _outcome([_point(f"ε={r.eps:g}, T={int(r.T):,}: R/T", r.mean, r.sem, int(r.N), (None, 0.0), len(q))
                     for r in q.itertuples()])


# ----------------------------------------------------------------------------- F8


@CLAIMS.claim("C8.1", "f8", "Points drawn as certified are certified: ε_cert ≤ ε_nominal.",
              "every FI-DP/BanditDP summary point marked certified; the FI ε grid (≤ 100 at k = 3) is all certified")
def _c81(tables, settings):
    frames = [tables[n] for n in ("fi", "uber", "bandit", "cont") if tables.get(n) is not None and len(tables[n])]
    if not frames:
        raise Inconclusive("no summary", needs="the summary tables")
    t = pd.concat(frames, ignore_index=True)
    t = t[t["algo"].isin(["FI-DP", "BanditDP", "B1-NAIVE", "B1-NAIVE-OWN", "B2-PRESAMPLE"])]
    cert = t[t["certified"].astype(bool)]
    bad = int((cert["eps_cert"] > cert["eps_nominal"] * (1 + 1e-12)).sum())
    grid = _sel(_private(t), k=3)
    grid = grid[grid["eps"] <= 100]
    uncert = int((~grid["certified"].astype(bool)).sum())
    return Outcome(f"{len(cert)} certified points, {bad} with ε_cert > ε_nominal; {len(t) - len(cert)} nominal-only; "
                   f"k = 3, ε ≤ 100: {uncert} of {len(grid)} not certified", bad == 0 and uncert == 0)


@CLAIMS.claim("C8.2", "f8", "T-PRIV (exact enumeration of FI-DP's output law, feed-forward of Lemma 1): "
              "probabilities sum to 1, max |ln P/P'| ≤ 2ηk(T−t₀), and δ(ε) = 0 at the paper's η.",
              "sums 1 ± 1e-12; bound at every η; δ(ε_nominal) = 0", details="implementation invariant", needs=("tpriv",))
def _c82(tables, settings):
    t = tables["tpriv"]
    t = t[t["variant"] == "as implemented"]
    if t.empty:
        raise Inconclusive("no T-PRIV rows", needs="the T-PRIV table")
    sums = bool(((t["sum_P"] - 1).abs().max() <= 1e-12) and ((t["sum_P_prime"] - 1).abs().max() <= 1e-12))
    bound = bool((t["max_log_ratio"] <= t["pure_bound"] * (1 + 1e-12)).all())
    paper = t[t["rate"] == "paper"]
    zero = bool((paper["delta_at_eps"] == 0).all())
    return Outcome(", ".join(f"η={r.eta:.3g}: {r.max_log_ratio:.3f} ≤ {r.pure_bound:.3f}" for r in t.itertuples())
                   + f"; δ(ε) at the paper's η: {sorted(set(paper['delta_at_eps'].tolist()))}", sums and bound and zero)


@CLAIMS.claim("C8.3", "f8", "[derived] The T-PRIV check catches a planted bug (gains scaled, sensitivity > 1).",
              "max |ln P/P'| > 2ηk(T−t₀) for at least one η of the buggy variant", needs=("tpriv",))
def _c83(tables, settings):
    t = tables["tpriv"]
    bug = t[t["variant"] != "as implemented"]
    if bug.empty:
        raise Inconclusive("no planted-bug rows", needs="the T-PRIV table with its planted bug")
    over = bug[bug["max_log_ratio"] > bug["pure_bound"] * (1 + 1e-12)]
    return Outcome(f"{bug['variant'].iloc[0]}: bound exceeded at {len(over)} of {len(bug)} rates", len(over) > 0)


@CLAIMS.claim("C8.4", "f8", "(beyond the paper) Under exact (optimal) composition of its k·T draws as 2η-DP steps, "
              "FI-DP spends a smaller ε than the paper's analysis certifies (advanced composition per expert, basic "
              "over the k experts) at every nominal ε, so exact accounting certifies a larger nominal ε.",
              "max over the FI-DP grid of ε_exact/ε_cert ≤ 1 (reproduced), > 1 at some point (not reproduced)",
              needs=("f8_cert",), details="perezsalazar2021 reading R23; the gain per (k, T) in the measured value")
def _c84(tables, settings):
    t = tables["f8_cert"]
    if "eps_exact" not in t.columns:
        raise Inconclusive("f8_cert has no eps_exact column", needs="the F8 table with its exact-composition column")
    t = t[t["algo"] == "FI-DP"]
    if t.empty:
        raise Inconclusive("no FI-DP rows in f8_cert", needs="the FI-DP curves of F8")
    ratio = (t["eps_exact"] / t["eps_cert"]).to_numpy(float)
    finite(*ratio, what="ε_exact/ε_cert")
    parts = []
    for (k, T), p in t.groupby(["k", "T"], sort=True):
        r = p["eps_exact"] / p["eps_cert"]
        top = [p.loc[p[c].astype(bool), "eps_nominal"].max() for c in ("certified", "certified_exact")]
        parts.append(f"k = {int(k)}, T = {int(T):,}: ε_exact/ε_cert {r.min():.3f}–{r.max():.3f}, largest certified "
                     f"nominal ε {_f(top[0])} → {_f(top[1])}")
    worst = float(ratio.max())
    return Outcome("; ".join(parts) + f" (max ratio {worst:.4f})", bool(worst <= 1.0 + 1e-12),
                   details=f"δ = {settings.get('delta', '?')}; {len(t)} grid points")


def evaluate(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]):
    return CLAIMS.evaluate(tables, settings)


# ----------------------------------------------------------------------------- findings


def _learning_finding(tables) -> Finding | None:
    """Figures 1–2: which ε beat (1−1/e)·OPT by the largest horizon on SYN-CLICK, and the break-even budget."""
    fi = _sel(_table(tables, "fi"), group="syn")
    if fi.empty:
        return None
    last = _private(fi[fi["T"] == fi["T"].max()]).sort_values("eps")
    learned, behind = last[last["R"] < 0], last[last["R"] > 0]
    if learned.empty or behind.empty:
        return None
    be = _table(tables, "fi_breakeven")
    be = be[(be["k"] == 3)].dropna(subset=["u_star"]) if len(be) else be
    star = (f"; R_T/T changes sign at u* = {_f(be['u_star'].min(), 2)}–{_f(be['u_star'].max(), 2)} "
            f"({len(be)} ε)") if len(be) else ""
    lo, hi = learned.iloc[0], behind.iloc[-1]
    return Finding(f"SYN-CLICK, k = 3, T = {int(lo['T']):,}: FI-DP beats (1−1/e)·OPT (mean R_T < 0) only from ε = "
                   f"{lo['eps']:g} (u = {lo['u']:.1f}); at ε ≤ {hi['eps']:g} (u ≤ {hi['u']:.1f}) its reward is still below that"
                   f"{star}.", figure="f2")


def _unit_finding(tables) -> Finding | None:
    """Figure 4c: the ε at which φ reaches ½ per privacy unit."""
    f4c = _table(tables, "f4c")
    if f4c.empty:
        return None
    by = {str(u): (float(g["eps_half"].iloc[0]), int(g["T"].iloc[0])) for u, g in f4c.groupby("unit")}
    if "pick" not in by or not math.isfinite(by["pick"][0]):
        return None
    others = [(u, e, T) for u, (e, T) in by.items() if u != "pick" and math.isfinite(e)]
    if not others:
        return None
    e_p, t_p = by["pick"]
    parts = ", ".join(f"≈ {e:.0f} per {u}-minute window (T = {T:,}, {e / e_p:.0f}× as much)" for u, e, T in others)
    return Finding(f"Uber pickups: FI-DP reaches half of the greedy's gain over uniform play (φ = ½) at ε ≈ {e_p:.0f} "
                   f"per pickup (T = {t_p:,}) but only at ε {parts}: over the same pickups, the coarser privacy unit "
                   f"needs that much more ε.", figure="f4")


def _bandit_finding(tables) -> Finding | None:
    """Figure 5: BanditDP at certified ε against full information on S2."""
    b = _sel(_table(tables, "bandit"), instance="syn_s2")
    if b.empty:
        return None
    tmax = b["T"].max()
    last = b[b["T"] == tmax]
    cert = last[(last["algo"] == "BanditDP") & last["certified"].astype(bool)]
    fi = last[(last["algo"] == "FI-DP")]
    if cert.empty or fi.empty:
        return None
    c = cert.loc[cert["phi"].idxmax()]
    f = fi.iloc[0]
    return Finding(f"SYN-CLICK-S2 (k = 2), T = {int(tmax):,}: BanditDP at certified ε ≤ {cert['eps'].max():g} reaches "
                   f"at most φ = {c['phi']:.2f} of the greedy's gain over uniform play, against φ = {f['phi']:.2f} for "
                   f"full-information FI-DP at ε = {f['eps']:g} on the same streams: at certified ε the bandit "
                   f"algorithm stays below the φ = ½ that C5.5 calls useful learning.", figure="f5")


def _tail_finding(tables) -> Finding | None:
    """Figure 6's table: the paper's exploration-tail bound against the exact tail."""
    t = _table(tables, "f6_tail")
    if t.empty:
        return None
    bad = t[t["log10_exact"] > t["log10_paper"]]
    if bad.empty:
        return None
    r = bad.iloc[0]
    return Finding(f"The paper's tail bound P(M ≥ 2γT) ≤ e^(−8γ²T) is not an upper bound at T = "
                   f"{', '.join(f'{int(x):,}' for x in bad['T'])} (T = {int(r['T']):,}, γ = {r['gamma']:.3f}: exact "
                   f"1e{r['log10_exact']:.0f} > 1e{r['log10_paper']:.0f}); Hoeffding's e^(−2γ²T) "
                   f"{'holds' if (t['log10_exact'] <= t['log10_hoeffding']).all() else 'fails too'} on the whole grid.",
                   figure="f6")


def _cert_finding(tables) -> Finding | None:
    """Figure 8: where certification stops (larger ε are nominal: hollow markers, no guarantee)."""
    c = _table(tables, "f8_cert")
    if c.empty:
        return None
    c = c[(c["algo"] == "FI-DP") & c["certified"].astype(bool)]
    if c.empty:
        return None
    tmax = c["T"].max()
    lim = c[c["T"] == tmax].groupby("k")["eps_nominal"].max()
    return Finding("FI-DP's privacy is certified only up to ε ≈ " + ", ".join(f"{v:.0f} (k = {k})" for k, v in lim.items())
                   + f" at T = {int(tmax):,}: every larger ε in the figures (hollow markers, *) is nominal, "
                   f"with no guarantee.", figure="f8")


def findings(tables: Mapping[str, pd.DataFrame], claims: pd.DataFrame, settings: Mapping[str, Any]) -> list[Finding]:
    """Findings entry point (protocol, :meth:`privopt.pipeline.protocol.Claims.find`): what learns and what
    does not (F2, F4c, F5), the paper's tail bound (F6), where certification stops (F8), all from the tables."""
    out = []
    for make in (_learning_finding, _unit_finding, _bandit_finding, _tail_finding, _cert_finding):
        try:
            found = make(tables)
        except (KeyError, ValueError, IndexError):
            found = None
        if found is not None:
            out.append(found)
    return out
