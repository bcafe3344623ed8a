"""Machine-checked claims: each is a statement, a measured value, a threshold and a verdict.

A claim function reads aggregated tables and returns :class:`Claim` objects.  The
verdict is one of ``reproduced``, ``not reproduced`` or ``not evaluated`` (the
scale that was run does not contain the settings the claim speaks about).  A claim
that does not hold is a finding: it is reported with its numbers, never tuned away.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import pandas as pd

__all__ = ["Claim", "REPRODUCED", "NOT_REPRODUCED", "NOT_EVALUATED", "verdict", "claims_frame"]

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
NOT_EVALUATED = "not evaluated"

COLUMNS = ["paper", "claim", "figure", "reading", "statement", "measured", "threshold", "verdict", "scale", "details"]


def verdict(holds: bool | None) -> str:
    if holds is None:
        return NOT_EVALUATED
    return REPRODUCED if bool(holds) else NOT_REPRODUCED


@dataclass
class Claim:
    paper: str
    claim: str
    figure: str
    statement: str
    measured: str
    threshold: str
    verdict: str
    reading: str = ""
    scale: str = ""
    details: str = field(default="")


def claims_frame(claims: list[Claim], scale: str) -> pd.DataFrame:
    rows = []
    for c in claims:
        row = asdict(c)
        row["scale"] = scale
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)
