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
:class:`NotEvaluated` when the scale that ran lacks what the claim speaks about.  The verdict is
``reproduced``, ``not reproduced`` or ``not evaluated``:

* a claim whose tables are missing or empty is *not evaluated* without being called;
* ``holds=None`` and any non-finite number handed to :func:`finite` give *not evaluated* — never
  ``reproduced`` on nothing, never ``not reproduced`` on a NaN;
* thresholds that differ between the paper's scale and a smaller one are chosen from the settings
  that actually ran (the claim function decides, and says which in ``details``), never from a label.

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
    "NotEvaluated",
    "REPRODUCED",
    "NOT_REPRODUCED",
    "NOT_EVALUATED",
    "VERDICTS",
    "COLUMNS",
    "verdict",
    "finite",
    "claims_frame",
    "fmt_fixed",
    "fmt_sig",
]

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
NOT_EVALUATED = "not evaluated"
VERDICTS = (REPRODUCED, NOT_REPRODUCED, NOT_EVALUATED)

COLUMNS = ["paper", "claim", "figure", "reading", "statement", "measured", "threshold", "verdict", "scale", "details"]

_ID = re.compile(r"^[A-Z][A-Za-z0-9]*\.[a-z0-9]+$")


class NotEvaluated(Exception):
    """The claim cannot be evaluated on what ran; the message says why (shown as the measured value)."""


def verdict(holds: bool | None) -> str:
    """``reproduced`` / ``not reproduced``; ``not evaluated`` for None (and for NaN, which is not a truth value)."""
    if holds is None or (isinstance(holds, float) and math.isnan(holds)):
        return NOT_EVALUATED
    return REPRODUCED if bool(holds) else NOT_REPRODUCED


def finite(*values: Any, what: str = "a measured value") -> None:
    """Raise :class:`NotEvaluated` unless every value is a finite number."""
    for v in values:
        arr = np.asarray(v, dtype=float)
        if arr.size == 0 or not np.isfinite(arr).all():
            raise NotEvaluated(f"{what} is not a finite number ({v!r})")


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


@dataclass(frozen=True)
class Outcome:
    """What a claim function measured: ``holds`` True/False, or None when it cannot tell.

    ``threshold`` overrides the declared one (a smaller scale's threshold); ``reading`` labels one of
    several outcomes of the same claim (e.g. per reading of a figure).
    """

    measured: str
    holds: bool | None
    threshold: str | None = None
    details: str = ""
    reading: str = ""


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
        return Claim(self.paper, c.cid, c.figure, c.statement, o.measured,
                     o.threshold if o.threshold is not None else c.threshold, verdict(o.holds),
                     reading=o.reading, details=details)

    def evaluate_one(self, cid: str, tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> list[Claim]:
        c = next((c for c in self._claims if c.cid == cid), None)
        if c is None:
            raise KeyError(f"{self.paper} has no claim {cid}")
        missing = [n for n in c.needs if n not in tables or tables[n] is None or len(tables[n]) == 0]
        if missing:
            return [self._row(c, Outcome(f"no data: {', '.join(missing)} missing or empty", None))]
        try:
            result = c.fn(tables, settings)
        except NotEvaluated as why:
            return [self._row(c, Outcome(str(why), None))]
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


def claims_frame(claims: Sequence[Claim], scale: str) -> pd.DataFrame:
    """The claims table written to ``results/claims/<paper>.csv`` (``scale`` is a label only)."""
    rows = []
    for c in claims:
        row = asdict(c)
        row["scale"] = scale
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)
