"""Machine-checked claims: each is a statement, a measured value, a threshold and a verdict.

A paper's claims live in one :class:`ClaimSet`.  Each claim is a function of the aggregated tables
and the settings that ran, declared once with its id (``F1.a`` style: figure, dot, letter), figure,
statement, threshold and the tables it needs::

    CLAIMS = ClaimSet("mypaper")

    @CLAIMS.claim("F2.b", "fig2", "PCG's advantage grows with m.", "gap(max m) > gap(min m)", needs=("fig2",))
    def _f2b(tables, settings):
        ...
        return Outcome(measured=f"gap = {fmt_fixed(g, 4)}", holds=g > 0)

The function returns an :class:`Outcome` (or a list of them, e.g. one per reading), and raises
:class:`Inconclusive` when what ran cannot decide the claim.  There are three verdicts, decided by
what the data can tell:

* *reproduced*: the data support the claim at its threshold, on the claim's own range and horizon;
* *not reproduced*: the data contradict it (the interval of the measured effect excludes what the
  claim states; :func:`decide` and :func:`against` build this rule);
* *inconclusive at this scale*: the data cannot tell — too few runs (:func:`require_seeds`: a standard
  error needs at least :data:`MIN_SEEDS` seeds per point), a horizon or fit range other than the claim's
  own (:func:`require_range`), missing tables, a non-finite value (:func:`finite`), or an interval
  that straddles the threshold.  Its ``needs`` column says what would decide it ("≈ 30 runs",
  "T ≥ 10^5").

So never ``reproduced`` on a range or horizon other than the claim's own, never on nothing, never
``not reproduced`` on a NaN.  No standard error is pooled across points of different variance.
Thresholds that differ between the paper's scale and a smaller one are chosen from the settings that
actually ran (the claim function decides, and says which in ``details``), never from a label.

A claim that does not hold is a finding: it is reported with its numbers, never tuned away.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "Claim",
    "ClaimSet",
    "Outcome",
    "Inconclusive",
    "NotEvaluated",
    "REPRODUCED",
    "NOT_REPRODUCED",
    "INCONCLUSIVE",
    "NOT_EVALUATED",
    "VERDICTS",
    "COLUMNS",
    "MIN_SEEDS",
    "verdict",
    "decide",
    "decide_seeded",
    "against",
    "require_seeds",
    "require_range",
    "finite",
    "claims_frame",
    "fmt_fixed",
    "fmt_sig",
    "ratio_outcome",
]

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
INCONCLUSIVE = "inconclusive at this scale"
#: the former name of :data:`INCONCLUSIVE`
NOT_EVALUATED = INCONCLUSIVE
VERDICTS = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE)

#: seeds per point below which a standard error decides nothing (a claim gating on one is inconclusive)
MIN_SEEDS = 10

COLUMNS = ["paper", "claim", "figure", "reading", "statement", "measured", "threshold", "verdict", "needs",
           "scale", "details"]

_ID = re.compile(r"^[A-Z][A-Za-z0-9]*\.[a-z0-9]+$")


class Inconclusive(Exception):
    """What ran cannot decide the claim: the message says why (shown as the measured value), ``needs``
    what would decide it (shown in the ``needs`` column)."""

    def __init__(self, why: str, needs: str = ""):
        super().__init__(why)
        self.needs = needs


#: the former name of :class:`Inconclusive`
NotEvaluated = Inconclusive


def verdict(holds: bool | None) -> str:
    """``reproduced`` / ``not reproduced``; *inconclusive* for None (and for NaN, which is not a truth value)."""
    if holds is None or (isinstance(holds, float) and math.isnan(holds)):
        return INCONCLUSIVE
    return REPRODUCED if bool(holds) else NOT_REPRODUCED


def decide(supports: bool, contradicts: bool) -> bool | None:
    """The three-way rule: True when the data support the claim, False when they contradict it (the
    interval of the measured effect excludes what the claim states), None (inconclusive) otherwise.

    >>> decide(True, False), decide(False, True), decide(False, False)
    (True, False, None)
    """
    if supports and contradicts:
        raise ValueError("data cannot both support and contradict a claim: check the interval")
    return True if supports else False if contradicts else None


def decide_seeded(supports: bool, contradicts: bool, seeds: int, *, tested: bool, complete: bool = True) -> bool | None:
    """The three-way rule with the seeds per point behind it: below :data:`MIN_SEEDS` a claim that gates on a test
    or a standard error (``tested``) decides nothing, any other is reproduced on its estimate alone but never
    contradicted (an interval from fewer seeds is not one); from MIN_SEEDS on, True when the data support the
    claim, False when they contradict it without supporting it, None otherwise.  ``complete`` False: points the
    claim speaks of did not run, so it is never reproduced (one that ran may still contradict it).

    >>> decide_seeded(True, False, 3, tested=False), decide_seeded(True, False, 3, tested=True)
    (True, None)
    >>> decide_seeded(False, True, 3, tested=False), decide_seeded(False, True, 10, tested=False)
    (None, False)
    >>> [decide_seeded(s, c, 10, tested=True, complete=False) for s, c in ((True, False), (False, True))]
    [None, False]
    """
    if int(seeds) < MIN_SEEDS:
        return True if supports and not tested and complete else None
    if contradicts and not supports:
        return False
    return True if supports and complete else None


_OPS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def against(estimate: float, lo: float, hi: float, op: str, threshold: float) -> bool | None:
    """Three-way verdict of the claim ``estimate <op> threshold`` given the interval ``[lo, hi]`` of the
    estimate: True when the estimate meets the threshold, False when the whole interval violates it,
    None when the estimate misses it but the interval reaches it (the data cannot tell).

    >>> against(0.4, 0.3, 0.5, "<=", 0.5), against(0.7, 0.6, 0.8, "<=", 0.5), against(0.6, 0.45, 0.75, "<=", 0.5)
    (True, False, None)
    """
    finite(estimate, lo, hi, threshold)
    if not lo <= estimate <= hi:
        raise ValueError(f"estimate {estimate!r} outside its interval [{lo!r}, {hi!r}]")
    meets = _OPS[op]
    return decide(meets(estimate, threshold), not meets(lo, threshold) and not meets(hi, threshold))


def require_seeds(n: int, what: str = "a standard error", minimum: int = MIN_SEEDS) -> None:
    """Raise :class:`Inconclusive` when a claim gating on a standard error has fewer than ``minimum``
    seeds per point (a standard error from 2–3 seeds is itself off by a factor of several)."""
    if int(n) < minimum:
        raise Inconclusive(f"{what} from {int(n)} seed{'s' if int(n) != 1 else ''} per point decides nothing",
                           needs=f"≥ {minimum} seeds per point")


def require_range(have_lo: float, have_hi: float, want_lo: float, want_hi: float, what: str = "T",
                  fmt: Callable[[float], str] = lambda x: f"{x:g}") -> None:
    """Raise :class:`Inconclusive` unless what ran covers the claim's own range ``[want_lo, want_hi]`` of
    ``what`` (a horizon, a fit window): never *reproduced* on another range."""
    if have_lo > want_lo or have_hi < want_hi:
        raise Inconclusive(f"ran {what} ∈ [{fmt(have_lo)}, {fmt(have_hi)}]; the claim speaks of "
                           f"[{fmt(want_lo)}, {fmt(want_hi)}]", needs=f"{what} over [{fmt(want_lo)}, {fmt(want_hi)}]")


def finite(*values: Any, what: str = "a measured value") -> None:
    """Raise :class:`Inconclusive` unless every value is a finite number; its row says what would decide it
    (``what`` as a finite number)."""
    for v in values:
        arr = np.asarray(v, dtype=float)
        if arr.size == 0 or not np.isfinite(arr).all():
            raise Inconclusive(f"{what} is not a finite number ({v!r})", needs=f"{what} as a finite number")


def fmt_fixed(x: Any, digits: int = 3) -> str:
    """Fixed-point format with ``digits`` decimals; ``nan`` for missing or non-finite values."""
    if x is None or not math.isfinite(float(x)):
        return "nan"
    return f"{float(x):.{digits}f}"


def fmt_sig(x: Any, digits: int = 3) -> str:
    """Format with ``digits`` significant digits; ``nan`` for missing or non-finite values."""
    if x is None or not math.isfinite(float(x)):
        return "nan"
    return f"{float(x):.{digits}g}"


@dataclass(frozen=True)
class Claim:
    """One row of a claims table."""

    paper: str
    claim: str
    figure: str
    statement: str
    measured: str
    threshold: str
    verdict: str
    reading: str = ""
    details: str = ""
    needs: str = ""


@dataclass(frozen=True)
class Outcome:
    """What a claim function measured: ``holds`` True/False, or None when the data cannot tell.

    ``threshold`` overrides the declared one (a smaller scale's threshold); ``reading`` labels one of
    several outcomes of the same claim (e.g. per reading of a figure); ``needs`` says, for an
    inconclusive outcome, what would decide it ("≥ 10 seeds per point", "T ≥ 10^5").
    """

    measured: str
    holds: bool | None
    threshold: str | None = None
    details: str = ""
    reading: str = ""
    needs: str = ""


@dataclass(frozen=True)
class _Declared:
    cid: str
    figure: str
    statement: str
    threshold: str
    needs: tuple[str, ...]
    details: str
    fn: Callable[[Mapping[str, pd.DataFrame], Mapping[str, Any]], Outcome | Sequence[Outcome]]


@dataclass
class ClaimSet:
    """The claims of one paper, in the order they are declared."""

    paper: str
    _claims: list[_Declared] = field(default_factory=list)

    def claim(self, cid: str, figure: str, statement: str, threshold: str, *, needs: Sequence[str] = (),
              details: str = ""):
        """Decorator declaring a claim function ``fn(tables, settings) -> Outcome | [Outcome, ...]``."""
        if not _ID.match(cid):
            raise ValueError(f"claim id {cid!r} must look like 'F1.a' (figure, dot, letter)")
        if any(c.cid == cid for c in self._claims):
            raise ValueError(f"claim {cid} of {self.paper} is declared twice")

        def register(fn):
            self._claims.append(_Declared(cid, figure, statement, threshold, tuple(needs), details, fn))
            return fn

        return register

    @property
    def ids(self) -> list[str]:
        return [c.cid for c in self._claims]

    def _row(self, c: _Declared, o: Outcome) -> Claim:
        details = "; ".join(d for d in (c.details, o.details) if d)
        decided = verdict(o.holds)
        return Claim(self.paper, c.cid, c.figure, c.statement, o.measured,
                     o.threshold if o.threshold is not None else c.threshold, decided,
                     reading=o.reading, details=details, needs=o.needs if decided == INCONCLUSIVE else "")

    def evaluate_one(self, cid: str, tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> list[Claim]:
        c = next((c for c in self._claims if c.cid == cid), None)
        if c is None:
            raise KeyError(f"{self.paper} has no claim {cid}")
        missing = [n for n in c.needs if n not in tables or tables[n] is None or len(tables[n]) == 0]
        if missing:
            return [self._row(c, Outcome(f"no data: {', '.join(missing)} missing or empty", None,
                                         needs=f"the tables {', '.join(missing)}"))]
        try:
            result = c.fn(tables, settings)
        except Inconclusive as why:
            return [self._row(c, Outcome(str(why), None, needs=why.needs))]
        outcomes = [result] if isinstance(result, Outcome) else list(result)
        if not outcomes:
            return [self._row(c, Outcome("nothing to evaluate", None))]
        return [self._row(c, o) for o in outcomes]

    def evaluate(self, tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> list[Claim]:
        """Every claim in declaration order; where consecutive claims of one figure give a row per
        reading, the rows are grouped by reading (all claims of the first reading, then the next)."""
        rows = [row for c in self._claims for row in self.evaluate_one(c.cid, tables, settings)]
        out: list[Claim] = []
        start = 0
        for i in range(1, len(rows) + 1):
            if i == len(rows) or rows[i].figure != rows[start].figure:
                block = rows[start:i]
                rank = {r: k for k, r in enumerate(dict.fromkeys(row.reading for row in block))}
                out += sorted(block, key=lambda row: rank[row.reading])
                start = i
        return out


def ratio_outcome(text: str, est: float, lo: float, hi: float, n: int, *, reading: str = "", details: str = "",
                  unit: str = "seeds", where: str = "at this T", longer: str = "a larger T",
                  no_interval: tuple[str, str] = (" (no interval)", "a positive mean of the baseline"),
                  above: bool = False, inseparable: str | None = None) -> Outcome:
    """The outcome of "a ratio of means to a baseline lies below 1" (``above``: above 1) from its paired-bootstrap
    interval [lo, hi] over n ``unit``: reproduced when the interval lies wholly on the claimed side of 1, not
    reproduced when it lies wholly on the other, else inconclusive, needing about N ``unit`` ``where`` (the 1/√N
    shrinking of the log-scale half-width until it no longer reaches 1) or ``longer`` (left out when empty), or,
    at a ratio of exactly 1 (or an interval that reaches 0), ``inseparable`` (by default ``longer``, for the
    counters of issue 27 against their baseline).  Without a finite interval (``no_interval``: what the text adds,
    what would decide it) or with fewer than :data:`MIN_SEEDS` ``unit``, inconclusive."""
    if not all(math.isfinite(x) for x in (est, lo, hi)):
        return Outcome(text + no_interval[0], None, reading=reading, details=details, needs=no_interval[1])
    if n < MIN_SEEDS:
        return Outcome(text + f" ({n} {unit})", None, reading=reading, details=details,
                       needs=f"≥ {MIN_SEEDS} {unit} per point")
    holds = decide(lo > 1.0, hi < 1.0) if above else decide(hi < 1.0, lo > 1.0)
    needs = ""
    if holds is None:
        gap = abs(math.log(est)) if est > 0 else 0.0
        if gap < 1e-9 or not (lo > 0 and hi > 0):
            needs = (inseparable if inseparable is not None
                     else f"{longer} (the regret does not separate the counters here)")
        else:
            half = (math.log(hi) - math.log(lo)) / 2
            needs = (f"≈ {max(n + 1, math.ceil(n * (half / gap) ** 2))} {unit} {where}"
                     + (f", or {longer}" if longer else ""))
    return Outcome(text, holds, reading=reading, details=details, needs=needs)


def claims_frame(claims: Sequence[Claim], scale: str) -> pd.DataFrame:
    """The claims table written to ``results/claims/<paper>.csv`` (``scale`` is a label only)."""
    rows = []
    for c in claims:
        row = asdict(c)
        row["scale"] = scale
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)
