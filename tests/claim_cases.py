"""The every-outcome check of a paper's claims, shared by the ``tests/test_claim_outcomes*.py`` files (one file per
paper, so that pytest-xdist spreads them over the workers).

A paper's cases are :class:`Case` objects: one claim on one small synthetic input (tables with the real column
layout), the verdict it must give and what its rows must say.  :func:`every_outcome` asserts that every claim of the
paper has a case for each of ``reproduced``, ``not reproduced`` and ``inconclusive at this scale`` (only the last
for a descriptive claim), one with its table missing or empty, and, unless it is an exact check, one inconclusive
from the data's power (:data:`POWER`).  Claims that cannot reach an outcome, or have no power to lack, are listed in
:data:`DESCRIPTIVE` and :data:`EXACT` with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from privopt.pipeline.claims import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, VERDICTS

R, NR, NE = REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE

#: claims that report without a gate: "inconclusive" is their only outcome (claim: why)
DESCRIPTIVE: dict[str, dict[str, str]] = {
    "shariff2018": {"F5.e": "reports where the minimum over ρ_min lies; the paper states no threshold"},
    "chaturvedi2021": {},
    "smith2013": {},
    "cardoso2019": {},
    "perezsalazar2021": {},
}
#: exact checks (no sampling: power does not enter), the only claims without a power case (claim: why)
EXACT: dict[str, dict[str, str]] = {
    "shariff2018": {"F1.a": "the decision set is computed, not sampled",
                    "F4.f": "a count of Cholesky failures: one is a contradiction",
                    "S.2": "the confidence set must hold on every audited round: one miss is a contradiction"},
    "chaturvedi2021": {"F1.a": "ε0 of PCG and ε/r are computed from the settings"},
    "smith2013": {"U1.a": "every run against its explicit bound: one run above it is a contradiction",
                  "P1.a": "reads the privacy checks' pass/VIOLATION results (their own confidence is the audit's)",
                  "P1.b": "reads the privacy checks' caught/missed results"},
    "cardoso2019": {"U1.a": "every run against its explicit bound: one run above it is a contradiction",
                    "P1.a": "reads the privacy checks' pass/VIOLATION results (their own confidence is the audit's)",
                    "P1.b": "reads the privacy checks' caught/missed results"},
    "perezsalazar2021": {"C1.1": "Hedge's pathwise inequality on every run: one run above it is a contradiction",
                         "C1.2": "Prop. 3's pathwise R_T ≤ Σ r_i on every run",
                         "C5.1": "Lemma 2's pathwise R_T ≤ Σ r_i + M on every bandit run",
                         "C5.2": "the exploration count of every run against its 5-sd band and the cap 2γT",
                         "C6.3": "the exact tail and Hoeffding's bound are closed forms",
                         "C8.1": "certificates are computed, not sampled",
                         "C8.2": "exact enumeration of FI-DP's output law",
                         "C8.3": "exact enumeration of the planted bug's output law",
                         "C8.4": "exact and the paper's composition are computed, not sampled"},
}
#: labels of the inconclusive cases that come from the data's power, not from a missing table
POWER = ("few-runs", "straddle", "prefix-runs", "points")
#: labels of the inconclusive cases whose table is missing or empty
NO_TABLE = ("missing", "empty", "audit-off")


@dataclass(frozen=True)
class Case:
    """One claim on one synthetic input: the verdict expected, and what its row must say."""

    cid: str
    outcome: str
    build: Callable[[], tuple[dict, dict]]
    label: str = ""
    tier: str | None = None        # "paper" / "quick": the tier the claim must report in ``details``
    threshold: str | None = None   # a substring of the row's threshold
    measured: str | None = None    # a substring of the row's measured value
    reading: str | None = None     # only the rows of this reading are checked (the others may read otherwise)

    @property
    def id(self) -> str:
        return "-".join([self.cid, self.outcome.replace(" ", "-"), *([self.label] if self.label else [])])


def rows_of(module, cid: str, tables: Mapping, settings: Mapping):
    with np.errstate(divide="ignore", invalid="ignore"):  # e.g. weights 1/SEM² with SEM = 0
        return module.CLAIMS.evaluate_one(cid, tables, settings)


def check(module, case: Case):
    """The case's claim on its tables gives the case's verdict (on every row, or every row of its reading)."""
    tables, settings = case.build()
    rows = rows_of(module, case.cid, tables, settings)
    if case.reading is not None:
        rows = [r for r in rows if r.reading == case.reading]
    assert rows and {r.verdict for r in rows} == {case.outcome}, [(r.reading, r.verdict, r.measured) for r in rows]
    for r in rows:
        assert r.claim == case.cid
        if case.tier == "paper":
            assert "paper-scale threshold" in r.details, r.details
        elif case.tier == "quick":
            assert "quick-scale (Q) threshold" in r.details, r.details
        if case.threshold is not None:
            assert case.threshold in r.threshold, r.threshold
        if case.measured is not None:
            assert case.measured in r.measured, r.measured
    return rows


def every_outcome(paper: str, module, cases) -> None:
    """Every claim of ``module`` has a case for each outcome it can reach, one without its table and, unless
    exact, one inconclusive from the data's power; no two cases share an id."""
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    covered: dict[str, set[str]] = {}
    for c in cases:
        covered.setdefault(c.cid, set()).add(c.outcome)
    assert set(covered) == set(module.CLAIMS.ids), set(module.CLAIMS.ids) ^ set(covered)
    assert set(DESCRIPTIVE[paper]) | set(EXACT[paper]) <= set(module.CLAIMS.ids)
    for cid, outcomes in covered.items():
        expected = {NE} if cid in DESCRIPTIVE[paper] else set(VERDICTS)
        assert outcomes == expected, (cid, outcomes)
        assert any(c.cid == cid and c.outcome == NE and c.label in NO_TABLE for c in cases), \
            f"{cid}: no case with its table missing or empty"
        if cid not in DESCRIPTIVE[paper] and cid not in EXACT[paper]:
            assert any(c.cid == cid and c.outcome == NE and c.label.startswith(POWER) for c in cases), \
                f"{cid}: no inconclusive case from the data's power ({', '.join(POWER)})"


def inconclusive_rows_say_what_would_decide_them(module, cases) -> None:
    """Every inconclusive row but a descriptive one has a ``needs``; a decided row has none."""
    for c in cases:
        tables, settings = c.build()
        for r in rows_of(module, c.cid, tables, settings):
            assert bool(r.needs) == (r.verdict == NE), (c.id, r.reading, r.verdict, r.needs)


def nothing_reproduced_on_nothing(module, settings) -> None:
    """With no tables at all, every claim is inconclusive (never "reproduced" on nothing)."""
    rows = module.evaluate({}, settings)
    assert [r.claim for r in rows] == module.CLAIMS.ids
    assert {r.verdict for r in rows} == {NE}


# ----------------------------------------------------------------------------- the privacy-check claims P1.a–b


#: a privacy table's results (rows: correct audit, planted audit, correct guard, planted guard) that fail each claim
PRIV_BAD = {"P1.a": ["VIOLATION", "caught", "pass", "caught"], "P1.b": ["pass", "missed", "pass", "caught"]}


def privacy_cases(tables: Callable, audit: str) -> list[Case]:
    """Every outcome of the privacy-check claims P1.a (correct configurations pass) and P1.b (planted bugs
    caught, a subtle one also by its exact ε above the claim), shared by the papers whose claims read a privacy
    table of the shared layout (audit, variant, result, eps_lb, exact_eps, claimed_eps, event); ``tables(*edits,
    drop=...)`` builds the paper's synthetic tables, whose first privacy row is audit ``audit``."""
    import math

    import pandas as pd

    def results(cid):
        return lambda t: t["privacy"].__setitem__("result", PRIV_BAD[cid])

    def only(variant):
        return lambda t: t.__setitem__("privacy", t["privacy"][t["privacy"]["variant"] == variant])

    def subtle(result, exact):
        """A subtle bug's row (noise a little too small) added: its audit's result, its exact ε."""
        row = {"audit": audit, "variant": "subtle", "eps_lb": 0.8, "exact_eps": exact, "claimed_eps": 1.0,
               "result": result, "event": ""}
        return lambda t: t.__setitem__("privacy", pd.concat([t["privacy"], pd.DataFrame([row])], ignore_index=True))

    cases = []
    for cid, variant, other in (("P1.a", "correct", "planted"), ("P1.b", "planted", "correct")):
        cases += [
            Case(cid, R, tables()),
            Case(cid, NR, tables(results(cid)), measured=f"{audit}:"),
            # only the other variant's rows: nothing of this claim was checked (was: reproduced on no row)
            Case(cid, NE, tables(only(other)), f"no-{variant}", measured=f"no {variant} configuration"),
            Case(cid, NE, tables(drop=("privacy",)), "missing", measured="no data: privacy"),
        ]
    # a subtle bug counts as detected when its audit catches it or its exact ε is above the claim (a black-box
    # audit of tractable size may be too loose for it); missed with an exact ε within the claim, it is not
    return cases + [
        Case("P1.b", R, tables(subtle("caught", 1.3)), "subtle-caught"),
        Case("P1.b", R, tables(subtle("missed", 1.3)), "subtle-exact", measured="exact ε 1.300 > 1.000"),
        Case("P1.b", NR, tables(subtle("missed", 0.9)), "subtle-missed", measured="subtle:"),
        Case("P1.b", NR, tables(subtle("missed", math.nan)), "subtle-no-exact", measured="subtle:"),
    ]
