"""The claim set of Chaturvedi et al., the authors' grids, the three-way rule every figure's claims are decided with
and the per-reading plumbing (the rules: :mod:`privopt.experiments.chaturvedi2021.claims`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from privopt.experiments.chaturvedi2021.runs import EXACT_RANDOM
from privopt.experiments.chaturvedi2021.tables import paired_name
from privopt.pipeline.claims import MIN_SEEDS, ClaimSet, Inconclusive, Outcome, decide_seeded
from privopt.pipeline.claims import fmt_fixed as _fmt


PAPER = "chaturvedi2021"
CLAIMS = ClaimSet(PAPER)

#: the authors' grids (chaturvedi2021 readings R11–R13): the points each claim speaks about; runs per point in
#: their CSVs
PAPER_RANKS = (10, 13, 16, 19, 22, 25)
PAPER_MS = tuple(range(1000, 10_001, 1000))
AUTHORS_RUNS = 400
#: half-width of the interval that decides "not reproduced", in standard errors
Z = 2.0

#: the paper's Figure 1 privacy settings, for which it prints ε0 ≈ 0.01006 (chaturvedi2021 reading R3)
PAPER_EPS, PAPER_DELTA, PAPER_EPS0 = 0.1, 1e-3, 0.01006


class _Pivots:
    """mean / sem / eps0 of one reading's table, indexed by point, one column per algorithm."""

    def __init__(self, table: pd.DataFrame):
        self.mean, self.sem, self.eps0 = (table.pivot(index="point", columns="algorithm", values=c).sort_index()
                                          for c in ("mean", "sem", "eps0"))
        self.n = table.pivot(index="point", columns="algorithm", values="n").sort_index() if "n" in table else None

    def need(self, *algorithms: str) -> None:
        missing = [a for a in algorithms if a not in self.mean.columns]
        if missing:
            raise Inconclusive(f"no runs of {', '.join(missing)}", needs=f"runs of {', '.join(missing)}")
        for label, values in (("mean", self.mean), ("SEM", self.sem)):
            for a in algorithms:
                bad = [point for point, v in values[a].items() if not np.isfinite(v)]
                if bad:
                    raise Inconclusive(f"the {label} of {a} at {', '.join(map(str, bad))} is not a finite number",
                                       needs=f"a finite {label} of {a}")

    def runs(self, algorithms, points=None) -> int:
        """The fewest runs behind any of ``algorithms`` at ``points`` (all points by default)."""
        if self.n is None:
            return 0
        cols = [a for a in algorithms if a in self.n.columns]
        sub = self.n.loc[list(points) if points is not None else self.n.index, cols]
        vals = sub.to_numpy(float)
        return int(np.nanmin(vals)) if vals.size and np.isfinite(vals).any() else 0


#: the details of a row evaluated against E[Random] instead of the sampled Random
EXACT_NOTE = f"against {EXACT_RANDOM}: Random's exact expectation on each run's dataset, no sampling noise"


def _judge(supports: bool, contradicts: bool, n: int, *, tested: bool, undecided: str,
           missing: str = "") -> tuple[bool | None, str, str]:
    """(holds, needs, note) under the module's rules (:func:`~privopt.pipeline.claims.decide_seeded`): ``tested``
    claims gate on an SEM (≥ MIN_SEEDS runs per point to decide at all); ``contradicts`` is believed only with
    ≥ MIN_SEEDS runs; ``missing`` names the claim's points that did not run (then it cannot be reproduced)."""
    holds = decide_seeded(bool(supports), bool(contradicts), n, tested=tested, complete=not missing)
    if holds is not None:
        return holds, "", ""
    if n < MIN_SEEDS:
        return (None, missing or f"≥ {MIN_SEEDS} runs per point (the authors ran {AUTHORS_RUNS})",
                f"{n} runs per point: too few for a standard error (≥ {MIN_SEEDS})")
    return None, missing or f"more runs per point (the authors ran {AUTHORS_RUNS}): {undecided}", ""


def _span(run: list[int], grid, lo: float, hi: float, lo_open: bool = False, what: str = "r") -> str:
    """'' when the points that ran within [lo, hi] (or (lo, hi]) span the grid's points there; else what
    would decide (the grid's points there)."""
    inside = [x for x in grid if (lo < x if lo_open else lo <= x) and x <= hi]
    have = [x for x in run if (lo < x if lo_open else lo <= x) and x <= hi]
    if inside and have and min(have) <= min(inside) and max(have) >= max(inside):
        return ""
    return f"{what} ∈ {{{', '.join(map(str, inside))}}} (the authors' points the claim speaks of)"


def _q_reading(points: list[int], grid, what: str) -> str:
    """The prefix of a quick reading's threshold when the points that ran are not the authors' grid."""
    if set(grid) <= set(points):
        return ""
    return f"Q reading on {what} ∈ {{{', '.join(map(str, points))}}} (authors: {grid[0]}–{grid[-1]}): "


def _per_reading(figure: str, fn: Callable[..., Outcome], threshold: str, exact_threshold: str | None = None,
                 quick: Callable[[_Pivots], str] | None = None):
    """A claim function evaluating ``fn`` on each reading of the figure's table, in table order.

    With ``exact_threshold``, ``fn(pivots, settings, reference)`` is evaluated twice per reading: against
    the sampled ``"Random"`` (``threshold``) and against ``E[Random]`` (``exact_threshold``).  With
    ``quick``, the threshold is prefixed by ``quick(pivots)`` (the quick threshold, if that is what
    ran)."""
    references = ("Random", EXACT_RANDOM) if exact_threshold is not None else (None,)

    def each(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> list[Outcome]:
        out = []
        for reading, table in tables[figure].groupby("reading", sort=False):
            p = _Pivots(table)
            prefix = quick(p) if quick is not None else ""
            for ref in references:
                try:
                    o = fn(p, settings) if ref is None else fn(p, settings, ref)
                except Inconclusive as why:
                    o = Outcome(str(why), None, needs=why.needs)
                thr, details = o.threshold if o.threshold is not None else prefix + threshold, o.details
                if ref == EXACT_RANDOM:
                    thr, details = prefix + exact_threshold, "; ".join(d for d in (EXACT_NOTE, o.details) if d)
                out.append(Outcome(o.measured, o.holds, thr, details, reading=str(reading), needs=o.needs))
        return out

    return each


def _claim(cid: str, figure: str, statement: str, threshold: str, fn, *, exact_threshold: str | None = None,
           quick: Callable[[_Pivots], str] | None = None, details: str = ""):
    CLAIMS.claim(cid, figure, statement, threshold, needs=(figure,), details=details)(
        _per_reading(figure, fn, threshold, exact_threshold, quick))


def _outcome(measured: str, judged, details: str = "") -> Outcome:
    holds, needs, note = judged
    return Outcome(measured, holds, details="; ".join(d for d in (details, note) if d), needs=needs)


def _short(ref: str) -> str:
    return "E[R]" if ref == EXACT_RANDOM else "R"


def _paired_sum(p: _Pivots, a: str, b: str, points: list[int]) -> tuple[float, float]:
    """Σ over ``points`` of the paired mean difference a − b, and its standard error √(Σ SEM²)."""
    name = paired_name(a, b)
    if name not in p.mean.columns:
        raise Inconclusive(f"no paired runs of {a} and {b}", needs=f"paired runs of {a} and {b}")
    p.need(name)
    return float(p.mean.loc[points, name].sum()), float(np.sqrt((p.sem.loc[points, name] ** 2).sum()))


def _z(total: float, se: float) -> str:
    return _fmt(total / se, 1) if se > 0 else ("inf" if total else "0")


def _se(p: _Pivots, *algorithms: str):
    """√(Σ SEM²) of the algorithms' means at every point (independent runs)."""
    return np.sqrt(sum(p.sem[a] ** 2 for a in algorithms))


def _ranks(p: _Pivots) -> list[int]:
    return [int(r) for r in p.mean.index]


def _q_ranks(p: _Pivots) -> str:
    return _q_reading(_ranks(p), PAPER_RANKS, "r")


def _ms(p: _Pivots) -> list[int]:
    return [int(m) for m in p.mean.index]


def _q_ms(p: _Pivots) -> str:
    return _q_reading(_ms(p), PAPER_MS, "m")


#: the readings in words (the config keys are ``chaturvedi2021.figN.readings``)
READING_NAMES = {"paper": "paper text", "authors_code": "authors' released code"}


def _reading_name(reading: str) -> str:
    return READING_NAMES.get(reading, reading)
