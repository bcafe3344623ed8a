"""The claim set of Perez-Salazar & Cummings, the design's constants, the three-way rule its claims are decided
with and the table helpers every figure's claims share (the rules: :mod:`privopt.experiments.perezsalazar2021.claims`).

A claim is decided part by part: each part is a :class:`privopt.pipeline.parts.Part`, and the parts combine by
:func:`privopt.pipeline.parts.all_of`.  What is this paper's own is how one part is decided (:func:`_judge`): from a
given familywise interval — a Student-t interval of a seed mean (:func:`_point`) or a percentile interval of
bootstrap replicates over seeds (:func:`_stat`) — with the claim's tolerance band ("allow +3·SE"), where the shared
:func:`privopt.pipeline.parts.judge` builds a normal interval from a standard error."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from privopt.pipeline.claims import MIN_SEEDS, ClaimSet, Inconclusive, Outcome, finite
from privopt.pipeline.parts import Part, all_of

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


_MARK = {True: "", False: " ✗", None: " ?"}


def _outcome(parts: Sequence[Part], head: str = "", details: str = "", threshold: str | None = None) -> Outcome:
    """Combine the parts (:func:`~privopt.pipeline.parts.all_of`: not reproduced if any part is contradicted,
    inconclusive if any is undecided); the measured value lists at most 12 of them, marked ✗ (contradicted) or
    ? (undecided), a ``quiet`` part only when it does not hold."""
    if not parts:
        raise Inconclusive("nothing to evaluate")
    holds, needs = all_of(parts)
    shown = [p for p in parts if not p.quiet or p.holds is not True]
    listed = "; ".join(p.text + _MARK[p.holds] for p in shown[:12]) + ("; …" if len(shown) > 12 else "")
    measured = "; ".join(x for x in (head, listed) if x)
    if holds is not True:
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
           quiet: bool = False) -> Part:
    """A seed mean against ``band`` with a Student-t interval (familywise over the claim's m points)."""
    finite(est)
    ok = n >= 2 and math.isfinite(se)
    lo, hi = (est - _tq(n, m) * se, est + _tq(n, m) * se) if ok else (math.nan, math.nan)
    holds, needs = _judge(est, lo, hi, band, n, tol)
    return Part(f"{label}: {fmt(est)}", holds, needs, quiet=quiet)


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
          fmt=lambda x: f"{x:.2f}") -> Part:
    """A statistic of seed means against ``band`` with its bootstrap interval (familywise over m parts)."""
    finite(est, what=f"{label}")
    lo, hi = _ci(reps, m)
    holds, needs = _judge(est, lo, hi, band, n, tol)
    shown = f" [{fmt(lo)}, {fmt(hi)}]" if n >= MIN_SEEDS and math.isfinite(lo) and math.isfinite(hi) else f" ({n} seeds)"
    return Part(f"{label}: {fmt(est)}{shown}", holds, needs)


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


def _slope(label: str, x, b: _Boot, band, m: int, scale=None) -> Part:
    """Slope of ln(mean · scale) on ln x over the points of ``b`` with its bootstrap interval."""
    s = np.ones(len(b.points)) if scale is None else np.asarray(scale, float)
    y, Y = b.points["mean"].to_numpy(float) * s, b.reps * s
    return _stat(label, _logslope(x, y), _logslope(x, Y), int(b.points["N"].min()), band, m)


def _nseeds(p: pd.DataFrame) -> str:
    lo, hi = int(p["N"].min()), int(p["N"].max())
    return f"{lo} seeds" if lo == hi else f"{lo}–{hi} seeds"


def _with(runs: pd.DataFrame, **cols: Callable[[pd.DataFrame], Any]) -> pd.DataFrame:
    return runs.assign(**{k: f(runs) for k, f in cols.items()})
