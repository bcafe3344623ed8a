"""Claims judged part by part: each part is a three-way check of one estimate against its band, with the
interval of the estimate deciding whether a miss contradicts the claim (:mod:`privopt.pipeline.claims`).

A part whose estimate meets its threshold *supports* the claim; one whose estimate misses it *contradicts*
the claim only when the 95 % interval of the estimate lies wholly beyond the threshold, and only with at
least :data:`~privopt.pipeline.claims.MIN_SEEDS` seeds per point; otherwise it is *inconclusive*, with
what would decide it.  A claim holds when every part does (:func:`all_of`).  The theory papers' claims
(Smith & Thakurta, Rivera Cardoso & Cummings) are written with these.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privopt.pipeline.claims import MIN_SEEDS, Inconclusive, Outcome, finite, fmt_fixed, fmt_sig, require_range

__all__ = ["Z95", "Part", "judge", "range_part", "all_of", "outcome", "loglog_fit", "slope_part", "ratio_part",
           "privacy_correct", "privacy_planted"]

#: two-sided 95 % normal quantile: the interval a part must leave to contradict its claim
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Part:
    """One checked part of a claim: ``holds`` True (supports), False (contradicts), None (cannot tell);
    ``seeds`` > 0 when more seeds per point would decide it (``approx``: a scaled estimate, not the minimum);
    a ``quiet`` part (one of many points of a claim) is listed in the measured value only when it does not hold."""

    text: str
    holds: bool | None
    needs: str = ""
    seeds: int = 0
    approx: bool = False
    quiet: bool = False


def judge(what: str, est: float, se: float, seeds: int, *, lo: float = -math.inf, hi: float = math.inf,
          log: bool = False, fmt: Callable[[float], str] = lambda x: fmt_fixed(x, 2)) -> Part:
    """Three-way check of ``lo ≤ est ≤ hi``: True when the estimate lies in the band; False when the 95 %
    interval (``est ± Z95·se``; ``est·exp(±Z95·se)`` with ``log``, ``se`` then the SE of log est) lies wholly
    outside it and ``seeds`` ≥ MIN_SEEDS; None otherwise, with what would decide it."""
    finite(est, what=what)
    text = f"{what} {fmt(est)}"
    if lo <= est <= hi:
        return Part(text, True)
    if int(seeds) < MIN_SEEDS:
        return Part(f"{text} ({int(seeds)} seed{'s' if int(seeds) != 1 else ''})", None, seeds=MIN_SEEDS)
    if not math.isfinite(se):
        return Part(f"{text} (no standard error)", None, needs="a standard error (≥ 2 seeds per point)")
    half = Z95 * float(se)
    if log:
        if est <= 0:
            raise ValueError(f"{what}: a log-scale interval needs a positive estimate, not {est!r}")
        a, b = est * math.exp(-half), est * math.exp(half)
        gap = math.log(est / hi) if est > hi else math.log(lo / est)
    else:
        a, b = est - half, est + half
        gap = est - hi if est > hi else lo - est
    text += f" (95 % {fmt(a)} … {fmt(b)})"
    if b < lo or a > hi:
        return Part(text, False)
    return Part(text, None, seeds=max(int(seeds) + 1, math.ceil(int(seeds) * (half / gap) ** 2)), approx=True)


def range_part(what: str, have: Sequence[float], want_lo: float, want_hi: float, name: str,
               fmt: Callable[[float], str] = lambda x: f"{x:g}") -> Part | None:
    """None when ``have`` reaches both ends of the claim's range [want_lo, want_hi]; else an inconclusive part."""
    have = [float(x) for x in have]
    try:
        if not have:
            raise Inconclusive(f"no {name} ran", needs=f"{name} over [{fmt(want_lo)}, {fmt(want_hi)}]")
        require_range(min(have), max(have), want_lo, want_hi, what=name, fmt=fmt)
    except Inconclusive as why:
        return Part(f"{what}: {why}", None, needs=why.needs)
    return None


def all_of(parts: Sequence[Part]) -> tuple[bool | None, str]:
    """The claim's verdict from its parts (False if one is contradicted, None if one cannot tell, else
    True) and what would decide the undecided ones."""
    if not parts:
        raise Inconclusive("nothing to check")
    hs = [p.holds for p in parts]
    holds = False if any(h is False for h in hs) else None if any(h is None for h in hs) else True
    undecided = [p for p in parts if p.holds is None]
    needs = []
    if any(p.seeds for p in undecided):
        top = max(undecided, key=lambda p: p.seeds)
        needs.append(f"{'≈' if top.approx else '≥'} {top.seeds} seeds per point")
    needs += [p.needs for p in undecided if p.needs]
    return holds, "; ".join(dict.fromkeys(needs))


def outcome(parts: Sequence[Part], **kw) -> Outcome:
    """An :class:`Outcome` of the parts (their texts joined; a quiet part's only when it does not hold)."""
    holds, needs = all_of(parts)
    return Outcome("; ".join(p.text for p in parts if not p.quiet or p.holds is not True), holds, needs=needs, **kw)


def loglog_fit(x, mean, sem) -> tuple[float, float]:
    """Least-squares slope of log(mean) on log(x) and its standard error from the points' SEMs (delta
    method: Var log mean ≈ (SEM/mean)², the points independent)."""
    lx = np.log(np.asarray(x, dtype=np.float64))
    m, s = np.asarray(mean, dtype=np.float64), np.asarray(sem, dtype=np.float64)
    c = lx - lx.mean()
    w = c / (c @ c)
    return float(w @ np.log(m)), float(math.sqrt(float(np.sum((w * s / m) ** 2))))


def slope_part(what: str, c: pd.DataFrame, x: str, *, lo: float = -math.inf, hi: float = math.inf,
               value: str = "mean", sem: str = "sem", seeds: str = "n") -> Part:
    """Three-way check of the log–log slope of ``c[value]`` on ``c[x]`` (every row of ``c``) against the band
    [lo, hi]; inconclusive with fewer than two points or a value ≤ 0 (no log–log slope)."""
    xs = ", ".join(f"{v:g}" for v in c[x])
    if len(c) < 2:
        return Part(f"{what}: fewer than two values of {x} ({xs or 'none'})", None,
                    needs=f"≥ 2 values of {x} in the claim's range")
    if (c[value] <= 0).any():
        return Part(f"{what}: a {value} ≤ 0 at {x} = {xs}: no log–log slope", None,
                    needs=f"a positive {value} at every {x} (more seeds or a longer horizon)")
    finite(c[value].to_numpy(), what=f"{what}: {value}")
    slope, se = loglog_fit(c[x], c[value], c[sem].fillna(math.inf))
    return judge(f"{what}: slope", slope, se, int(c[seeds].min()), lo=lo, hi=hi)


def ratio_part(what: str, a: float, sa: float, b: float, sb: float, seeds: int, *, lo: float = -math.inf,
               hi: float = math.inf, fmt: Callable[[float], str] = lambda x: fmt_fixed(x, 2)) -> Part:
    """Three-way check of the ratio a/b of two means (SEMs sa, sb; independent runs) against [lo, hi], its
    interval on the log scale."""
    finite(a, b, what=what)
    if a <= 0 or b <= 0:
        return Part(f"{what}: a mean ≤ 0 ({fmt_sig(a)}, {fmt_sig(b)})", None, needs="positive means")
    rse = math.sqrt((sa / a) ** 2 + (sb / b) ** 2) if math.isfinite(sa) and math.isfinite(sb) else math.inf
    return judge(what, a / b, rse, seeds, lo=lo, hi=hi, log=True, fmt=fmt)


# ----------------------------------------------------------------------------- privacy-check tables


def _privacy_parts(c: pd.DataFrame, event: bool) -> str:
    return "; ".join(f"{r.audit}: {r.result}" + (f" (ε_lb {fmt_fixed(r.eps_lb)}, exact {fmt_fixed(r.exact_eps)})"
                                                 if math.isfinite(r.eps_lb) else (f" ({r.event})" if event else ""))
                     for r in c.itertuples())


def privacy_correct(privacy: pd.DataFrame) -> Outcome:
    """Claim P1.a of a paper's privacy table (columns audit, variant, result, eps_lb, exact_eps, claimed_eps,
    event): every ``correct`` row passes, and its exact ε (where computed) is at most the claimed ε."""
    c = privacy[privacy["variant"] == "correct"]
    if c.empty:  # never "reproduced" on no check
        raise Inconclusive("no correct configuration was checked", needs="the privacy checks of the correct configurations")
    exact_ok = bool((c["exact_eps"].dropna() <= c["claimed_eps"][c["exact_eps"].notna()] + 1e-12).all())
    return Outcome(_privacy_parts(c, event=True), bool((c["result"] == "pass").all()) and exact_ok)


def privacy_planted(privacy: pd.DataFrame) -> Outcome:
    """Claim P1.b of a paper's privacy table: every planted bug is detected.  A ``planted`` row (a bug) must be
    caught by its check; a ``subtle`` row (a bug a little past the guarantee, e.g. noise too small by √2) must
    be caught by its check or shown by its exact ε above the claimed ε (a black-box audit of tractable size can
    be too loose to see it: the exact computation is then the check that fails)."""
    c = privacy[privacy["variant"].isin(["planted", "subtle"])]
    if c.empty or not (c["variant"] == "planted").any():  # never "reproduced" on no check
        raise Inconclusive("no planted configuration was checked", needs="the privacy checks of the planted bugs")
    subtle = c["variant"] == "subtle"
    above = c["exact_eps"].notna() & (c["exact_eps"] > c["claimed_eps"] + 1e-12)
    detected = (c["result"] == "caught") | (subtle & above)
    text = _privacy_parts(c[~subtle], event=False)
    if subtle.any():
        text += "; subtle: " + "; ".join(
            f"{r.audit}: {r.result}" + (f", exact ε {fmt_fixed(r.exact_eps)} > {fmt_fixed(r.claimed_eps)}"
                                        if ok and r.result != "caught" else "")
            for r, ok in zip(c[subtle].itertuples(), above[subtle]))
    return Outcome(text, bool(detected.all()))