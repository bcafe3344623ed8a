"""The claims of Chaturvedi et al. about Figures 1 and 2, checked on the aggregated tables.

Each claim reads the summary table of its figure (columns ``reading, point, algorithm, mean, std,
sem, n, eps0``) and gives one outcome per reading.  Statements and thresholds follow
docs/papers/chaturvedi2021.md, reading R17 (the paper's statements as claims F1.a …, F2.a …).

Three verdicts, decided by what the data can tell (:mod:`privopt.pipeline.claims`):

* **Not reproduced** only when the interval of the measured effect excludes what the claim states: the
  effect ± 2 standard errors (√ of the summed SEM² of the independent means it combines, or the SEM of a
  paired difference) lies wholly on the wrong side of the threshold, at a point the claim speaks about.
  Thresholds that are themselves a test ("each gap > −2·SEM_diff", "> 2 SE", "≤ 3·SEM_diff") are
  contradicted when the test fails.  No standard error is pooled across points.
* **Reproduced** when the estimate meets the threshold on the claim's own points (and its test passes).
* **Inconclusive at this scale** otherwise: a straddling interval (the ``needs`` column asks for more runs,
  the authors ran 400), fewer than :data:`~privopt.pipeline.claims.MIN_SEEDS` runs per point (a claim
  gating on an SEM — F1.c, F1.e, F1.x–z, F2.a, F2.b, F2.c, F2.e — decides nothing then, and no interval is
  believed for the others), or points the claim speaks about that did not run.
* **Points.**  A claim's own points are the authors' grid (r ∈ {10, 13, 16, 19, 22, 25}; m ∈ {1000, 2000,
  …, 10000}) within its range: F1.c and the derived F1.x–z speak of r ∈ (10, 20], i.e. 13–19; F1.d of
  r = 10 and the next rank, 13; F1.e of [10, 20]; F1.f of r ≥ 22 (22 and 25).  The ranks that ran must
  span those points ("never reproduced on another range"), else the claim is inconclusive — unless a point
  that ran already contradicts a per-point condition.  The quick scale (chaturvedi2021 reading R18: r ∈ {10, 16, 22},
  m ∈ {1000, 4000, 7000, 10000}, N = 100) defines a quick reading for F1.b and F1.g ("quick Fig. 1 only
  shows Greedy ≫ {PCG, DPG, R} and Random rising with r") and for every Figure 2 claim ("keeps the
  qualitative picture"); those are judged on the points that ran, and their threshold column then says
  "Q reading on r ∈ {…}" so a reproduced row never stands for the authors' full grid.  F1.a is arithmetic:
  ε/r falls with r, so the smallest rank run decides "every r ≥ 10".

Beyond the paper, E.a (DPG) and E.b (PCG) read Figure 1–2e's ratio table (:mod:`.exact`): per (figure, point,
accountant) the mean utility at the exact ε0 over the paper's, decided by its 95 % paired-bootstrap interval (above
1 reproduced, below 1 not reproduced, else inconclusive, with at least MIN_SEEDS runs).

Claims that compare against a random basis (F1.e, F1.z, F2.e) give two rows per reading: against the
sampled Random (what the paper did) and against E[Random], Random's exact expectation on each run's
dataset (no sampling noise).  Paired differences (``"PCG - PCG_perm"`` …) are rows of the summary
table (:mod:`.tables`).  :func:`findings` turns the diagnostics into the report's findings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from privopt.experiments.chaturvedi2021.runs import EXACT_RANDOM, delta_for
from privopt.experiments.chaturvedi2021.tables import paired_name
from privopt.pipeline.claims import MIN_SEEDS, ClaimSet, Inconclusive, Outcome, decide, finite
from privopt.pipeline.claims import fmt_fixed as _fmt
from privopt.pipeline.protocol import Finding
from privopt.pipeline.stats import spearman, weighted_change
from privopt.mechanisms import accounting

#: the former name of :class:`Inconclusive`, kept for readers of older code
NotEvaluated = Inconclusive

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
    """(holds, needs, note) under the module's rules: ``tested`` claims gate on an SEM (≥ MIN_SEEDS runs
    per point to decide at all); ``contradicts`` is believed only with ≥ MIN_SEEDS runs; ``missing`` names
    the claim's points that did not run (then it cannot be reproduced)."""
    more = f"more runs per point (the authors ran {AUTHORS_RUNS})"
    if n < MIN_SEEDS:
        note = f"{n} runs per point: too few for a standard error (≥ {MIN_SEEDS})"
        if tested or not supports or missing:
            return None, missing or f"≥ {MIN_SEEDS} runs per point (the authors ran {AUTHORS_RUNS})", note
        return True, "", ""
    if contradicts and not supports:
        return False, "", ""
    if missing:
        return None, missing, ""
    holds = decide(bool(supports), False)
    return holds, ("" if holds else f"{more}: {undecided}"), ""


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


# ----------------------------------------------------------------------------- Figure 1


def _f1a(p: _Pivots, settings) -> Outcome:
    p.need("PCG", "DPG")
    eps = float(settings["eps"])
    delta = delta_for(settings["m"], settings["delta_exponent"], settings.get("delta"))
    finite(*p.eps0[["PCG", "DPG"]].to_numpy(float).ravel().tolist(), what="ε0 of PCG or DPG")
    pcg_eps0 = float(p.eps0["PCG"].iloc[0])
    crossover = eps / pcg_eps0
    measured = (f"ε0_PCG = {pcg_eps0:.7f}; crossover r = {crossover:.3f}; DPG ε0 = "
                + ", ".join(f"{e:.5f}" for e in p.eps0["DPG"]))
    details = f"δ = {delta:.3g} (m = {settings['m']}); alg1 rule would give {accounting.pcg_eps0(eps, delta, rule='alg1'):.6f}"
    if not (np.isclose(eps, PAPER_EPS) and np.isclose(delta, PAPER_DELTA)):
        return Outcome(measured, None, details=f"{details}; the paper's ε0 ≈ {PAPER_EPS0} is for ε = {PAPER_EPS}, "
                       f"δ = {PAPER_DELTA:g}: not applicable to ε = {eps:g}, δ = {delta:.3g}",
                       needs=f"ε = {PAPER_EPS}, δ = {PAPER_DELTA:g} (the paper's)")
    holds = abs(pcg_eps0 - PAPER_EPS0) < 5e-5 and all(pcg_eps0 > e for e in p.eps0["DPG"])
    if holds and min(_ranks(p)) > 10:
        return Outcome(measured, None, details=details, needs="r = 10 (ε/r is largest at the smallest rank)")
    return Outcome(measured, holds, details=details)


_claim(
    "F1.a", "fig1",
    "PCG's per-step ε0 is about 0.01006 and exceeds DPG's ε/r for every plotted r ≥ 10 (crossover r = ε/ε0 ≈ 9.93).",
    "|ε0_PCG − 0.01006| < 5e-5 and ε0_PCG > ε0_DPG(r) at every r (at the paper's ε = 0.1, δ = 10^-3)", _f1a,
    details="exact arithmetic (no sampling)")


def _ranks(p: _Pivots) -> list[int]:
    return [int(r) for r in p.mean.index]


def _q_ranks(p: _Pivots) -> str:
    return _q_reading(_ranks(p), PAPER_RANKS, "r")


def _f1b(p: _Pivots, settings) -> Outcome:
    p.need("Greedy", "PCG", "DPG", "Random")
    mean = p.mean
    best = mean[["PCG", "DPG", "Random"]].idxmax(axis=1)
    margins = mean["Greedy"] - mean[["PCG", "DPG", "Random"]].max(axis=1)
    se = pd.Series({r: float(np.hypot(p.sem.loc[r, "Greedy"], p.sem.loc[r, best[r]])) for r in mean.index})
    margin = float(margins.min())
    hi_r, lo_r = mean["Greedy"].idxmax(), mean["Greedy"].idxmin()
    spread = float(mean["Greedy"].max() - mean["Greedy"].min())
    se_spread = float(np.hypot(p.sem.loc[hi_r, "Greedy"], p.sem.loc[lo_r, "Greedy"]))
    judged = _judge(margin > 0 and spread < 1.0,
                    bool((margins + Z * se < 0).any()) or spread - Z * se_spread > 1.0,
                    p.runs(["Greedy", "PCG", "DPG", "Random"]), tested=False,
                    undecided="the interval of the margin or of the range reaches the threshold")
    return _outcome(f"min_r (Greedy − best other) = {_fmt(margin)}; Greedy range over r = {_fmt(spread)}", judged)


_claim("F1.b", "fig1", "Non-private Greedy has the highest mean utility at every rank and is essentially flat in r.",
       "margin > 0 and range < 1.0", _f1b, quick=_q_ranks)


def _f1c(p: _Pivots, settings) -> Outcome:
    p.need("PCG", "DPG")
    mean, sem = p.mean, p.sem
    mid = [r for r in _ranks(p) if 10 < r <= 20]
    if not mid:
        raise Inconclusive("no rank in (10, 20] was run", needs=_span([], PAPER_RANKS, 10, 20, lo_open=True))
    gaps = mean.loc[mid, "PCG"] - mean.loc[mid, "DPG"]
    sem_diff = np.sqrt(sem.loc[mid, "PCG"] ** 2 + sem.loc[mid, "DPG"] ** 2)
    total = float(gaps.sum())
    se_total = float(np.sqrt((sem_diff**2).sum()))
    each_ok = bool((gaps > -2 * sem_diff).all())
    z = total / se_total if se_total > 0 else float("nan")
    measured = f"Σ gap = {_fmt(total)} ({_fmt(z, 1)} SE); " + "; ".join(
        f"r={r}: {_fmt(g)} ± {_fmt(s)}" for r, g, s in zip(mid, gaps, sem_diff))
    missing = _span(mid, PAPER_RANKS, 10, 20, lo_open=True)
    # a per-rank gap below −2·SEM_diff contradicts at that rank; Σ's interval only over the claim's own ranks
    contradicts = not each_ok or (not missing and total + Z * se_total < 0)
    judged = _judge(total > 0 and each_ok, contradicts, p.runs(["PCG", "DPG"], mid), tested=True,
                    undecided="the interval of Σ gap contains 0", missing=missing)
    return _outcome(measured, judged)


_claim("F1.c", "fig1", "For intermediate ranks (10 < r ≤ 20) PCG has higher mean utility than DPG.",
       "Σ_r (mean_PCG − mean_DPG) > 0 and each gap > −2·SEM_diff", _f1c,
       details="a paper-faithful implementation may not reproduce this with the paper's own settings (chaturvedi2021 reading R17)")


def _f1d(p: _Pivots, settings) -> Outcome:
    p.need("PCG", "DPG")
    ranks, mean = _ranks(p), p.mean
    if not (10 in ranks and any(r > 10 for r in ranks)):
        raise Inconclusive("needs r = 10 and a rank above 10", needs="r = 10 and r = 13 (the authors' next rank)")
    se = _se(p, "PCG", "DPG")
    gap10 = float(mean.loc[10, "PCG"] - mean.loc[10, "DPG"])
    r_next = min(r for r in ranks if r > 10)
    gap_next = float(mean.loc[r_next, "PCG"] - mean.loc[r_next, "DPG"])
    near = r_next <= PAPER_RANKS[1]   # "r just above 10": the authors' next rank, 13
    contradicts = abs(gap10) - Z * se[10] > 1.0 or (near and gap_next + Z * se[r_next] < 0)
    judged = _judge(abs(gap10) <= 1.0 and gap_next >= 0, contradicts, p.runs(["PCG", "DPG"], [10, r_next]),
                    tested=False, undecided="the interval of a gap reaches the threshold",
                    missing="" if near else f"r = {PAPER_RANKS[1]} (the authors' next rank; the next rank run is {r_next})")
    return _outcome(f"gap at r=10: {_fmt(gap10)} ± {_fmt(se[10])}; gap at r={r_next}: {_fmt(gap_next)} ± "
                    f"{_fmt(se[r_next])}", judged)


_claim("F1.d", "fig1", "PCG overtakes DPG from about r = 10: within ~1 unit at r = 10, and PCG ≥ DPG at the next rank.",
       "|gap(10)| ≤ 1 and gap(next r) ≥ 0", _f1d)


def _f1e(p: _Pivots, settings, ref: str = "Random") -> Outcome:
    p.need("PCG", "DPG", ref, "Greedy")
    mean, sem = p.mean, p.sem
    band = [r for r in _ranks(p) if 10 <= r <= 20]
    if not band:
        raise Inconclusive("no rank in [10, 20] was run", needs=_span([], PAPER_RANKS, 10, 20))
    pcg_above_r = mean.loc[band, "PCG"] - mean.loc[band, ref]
    se_pr = np.sqrt(sem.loc[band, "PCG"] ** 2 + sem.loc[band, ref] ** 2)
    sem_dr = np.sqrt(sem.loc[band, "DPG"] ** 2 + sem.loc[band, ref] ** 2)
    dpg_above_r = mean.loc[band, "DPG"] - mean.loc[band, ref]
    top = mean.loc[band, ["PCG", "DPG"]].idxmax(axis=1)
    over_g = pd.Series({r: mean.loc[r, top[r]] - mean.loc[r, "Greedy"] for r in band})
    se_g = pd.Series({r: float(np.hypot(sem.loc[r, top[r]], sem.loc[r, "Greedy"])) for r in band})
    dpg_ok = bool((dpg_above_r >= -2 * sem_dr).all())
    supports = bool((pcg_above_r > 0).all() and dpg_ok and (over_g < 0).all())
    contradicts = bool((pcg_above_r + Z * se_pr < 0).any()) or not dpg_ok or bool((over_g - Z * se_g > 0).any())
    judged = _judge(supports, contradicts, p.runs(["PCG", "DPG", ref, "Greedy"], band), tested=True,
                    undecided=f"the interval of PCG − {_short(ref)} or of max − Greedy contains 0",
                    missing=_span(band, PAPER_RANKS, 10, 20))
    r_ = _short(ref)
    measured = "; ".join(f"r={r}: PCG−{r_} {_fmt(a)}, DPG−{r_} {_fmt(b)}" for r, a, b in zip(band, pcg_above_r, dpg_above_r))
    return _outcome(measured, judged)


_claim("F1.e", "fig1", "For r in [10, 20] both private algorithms beat a random basis and fall short of Greedy.",
       "mean_PCG > mean_R; mean_DPG ≥ mean_R − 2·SEM; both < mean_G", _f1e,
       exact_threshold="mean_PCG > E[R]; mean_DPG ≥ E[R] − 2·SEM; both < mean_G")


def _f1f(p: _Pivots, settings) -> Outcome:
    p.need("PCG", "DPG", "Random", "Greedy")
    mean = p.mean
    high = [r for r in _ranks(p) if r >= 22]
    if not high:
        raise Inconclusive("no rank ≥ 22 was run", needs=_span([], PAPER_RANKS, 22, 25))
    d_pcg = (mean.loc[high, "PCG"] - mean.loc[high, "Random"]).abs()
    d_dpg = (mean.loc[high, "DPG"] - mean.loc[high, "Random"]).abs()
    se_pcg, se_dpg = _se(p, "PCG", "Random")[high], _se(p, "DPG", "Random")[high]
    top = mean.loc[high, ["PCG", "DPG"]].idxmax(axis=1)
    below = mean.loc[high, "Greedy"] - mean.loc[high, ["PCG", "DPG"]].max(axis=1)
    se_b = pd.Series({r: float(np.hypot(p.sem.loc[r, top[r]], p.sem.loc[r, "Greedy"])) for r in high})
    supports = bool((d_pcg <= 1.5).all() and (d_dpg <= 1.5).all() and (below >= 3.0).all())
    contradicts = bool((d_pcg - Z * se_pcg > 1.5).any() or (d_dpg - Z * se_dpg > 1.5).any()
                       or (below + Z * se_b < 3.0).any())
    judged = _judge(supports, contradicts, p.runs(["PCG", "DPG", "Random", "Greedy"], high), tested=False,
                    undecided="the interval of a difference reaches its threshold",
                    missing=_span(high, PAPER_RANKS, 22, 25))
    measured = "; ".join(f"r={r}: |PCG−R| {_fmt(a)}, |DPG−R| {_fmt(b)}, G−max {_fmt(c)}"
                         for r, a, b, c in zip(high, d_pcg, d_dpg, below))
    return _outcome(measured, judged)


_claim("F1.f", "fig1", "Around r = 20–25 both private algorithms become equivalent to a uniformly random set.",
       "|mean_X − mean_R| ≤ 1.5 for X ∈ {PCG, DPG}, and Greedy ≥ 3 units above both", _f1f)


def _sum_claim(total: float, se: float, n: int, mid: list[int]) -> tuple[bool | None, str, str]:
    """A claim 'Σ over (10, 20] > 2 SE': reproduced above +2 SE, not reproduced below −2 SE (the interval
    excludes a positive effect), both only over the claim's own ranks."""
    return _judge(total > 2 * se, total + Z * se < 0, n, tested=True, undecided="the interval of Σ contains 0",
                  missing=_span(mid, PAPER_RANKS, 10, 20, lo_open=True))


def _f1x(p: _Pivots, settings) -> Outcome:
    mean, sem = p.mean, p.sem
    mid = [r for r in _ranks(p) if 10 < r <= 20]
    if not mid or "PCG0" not in mean:
        raise Inconclusive("needs a rank in (10, 20] and the PCG0 runs",
                           needs="PCG0 runs at " + _span([], PAPER_RANKS, 10, 20, lo_open=True))
    p.need("PCG", "PCG0", "Random")
    edge = mean.loc[mid, "PCG"] - mean.loc[mid, "PCG0"]
    se = float(np.sqrt((sem.loc[mid, "PCG"] ** 2 + sem.loc[mid, "PCG0"] ** 2).sum()))
    total = float(edge.sum())
    rounding_edge = float((mean.loc[mid, "PCG0"] - mean.loc[mid, "Random"]).mean())
    measured = (
        f"Σ (PCG − PCG0) = {_fmt(total)} ({_z(total, se)} SE); mean (PCG0 − Random) = {_fmt(rounding_edge)}; "
        + "; ".join(f"r={r}: PCG {_fmt(mean.loc[r, 'PCG'], 2)}, PCG0 {_fmt(mean.loc[r, 'PCG0'], 2)}" for r in mid))
    return _outcome(measured, _sum_claim(total, se, p.runs(["PCG", "PCG0"], mid), mid))


_claim(
    "F1.x", "fig1",
    "[derived, not in the paper] PCG's utility in (10, 20] comes from the data: it beats the same algorithm run with ε0 = 0.",
    "Σ_r (mean_PCG − mean_PCG0) > 2 SE", _f1x,
    details="PCG0 picks uniformly at every step (no data); its edge over Random comes from swap rounding of T bases")


def _f1y(p: _Pivots, settings) -> Outcome:
    mid = [r for r in _ranks(p) if 10 < r <= 20]
    if not mid:
        raise Inconclusive("no rank in (10, 20] was run", needs=_span([], PAPER_RANKS, 10, 20, lo_open=True))
    total, se = _paired_sum(p, "PCG", "PCG_perm", mid)
    name = paired_name("PCG", "PCG_perm")
    measured = f"Σ (PCG − PCG_perm) = {_fmt(total)} ({_z(total, se)} SE, paired); " + "; ".join(
        f"r={r}: {_fmt(p.mean.loc[r, name])} ± {_fmt(p.sem.loc[r, name])}" for r in mid)
    if paired_name("PCG0", "PCG0_perm") in p.mean.columns:
        t0, se0 = _paired_sum(p, "PCG0", "PCG0_perm", mid)
        measured += f"; Σ (PCG0 − PCG0_perm) = {_fmt(t0)} ({_z(t0, se0)} SE)"
    return _outcome(measured, _sum_claim(total, se, p.runs([name], mid), mid))


_claim(
    "F1.y", "fig1",
    "[derived, not in the paper] PCG beats its label-permuted self in (10, 20]: rounding in index order (the 20 grid "
    "points are elements 0–19, the north-vertex copies 20–99) adds utility.",
    "Σ_r mean(PCG − PCG_perm) > 2 SE (paired: same fractional point, elements relabelled at random before rounding)",
    _f1y,
    details="PCG_perm rounds PCG's own fractional point after a uniform relabelling of the elements (own seeded stream)")


def _f1z(p: _Pivots, settings, ref: str = "Random") -> Outcome:
    mid = [r for r in _ranks(p) if 10 < r <= 20]
    if not mid:
        raise Inconclusive("no rank in (10, 20] was run", needs=_span([], PAPER_RANKS, 10, 20, lo_open=True))
    total, se = _paired_sum(p, "PCG0", ref, mid)
    name = paired_name("PCG0", ref)
    measured = f"Σ (PCG0 − {_short(ref)}) = {_fmt(total)} ({_z(total, se)} SE, paired by dataset); " + "; ".join(
        f"r={r}: {_fmt(p.mean.loc[r, name])} ± {_fmt(p.sem.loc[r, name])}" for r in mid)
    return _outcome(measured, _sum_claim(total, se, p.runs([name], mid), mid))


_claim(
    "F1.z", "fig1",
    "[derived, not in the paper] PCG0 (PCG with ε0 = 0, which never looks at the data) beats a random basis in (10, 20].",
    "Σ_r mean(PCG0 − R) > 2 SE (paired by dataset)", _f1z,
    exact_threshold="Σ_r mean(PCG0 − E[R]) > 2 SE (paired by dataset)")


def _f1g(p: _Pivots, settings) -> Outcome:
    p.need("Random")
    ranks = _ranks(p)
    rnd = p.mean["Random"].to_numpy()
    if len(rnd) < 2:
        raise Inconclusive("needs at least two ranks", needs="≥ 2 ranks")
    steps = np.diff(rnd)
    se = np.hypot(p.sem["Random"].to_numpy()[1:], p.sem["Random"].to_numpy()[:-1])
    judged = _judge(bool((steps > 0).all()), bool((steps + Z * se < 0).any()), p.runs(["Random"]), tested=False,
                    undecided="the interval of a step contains 0")
    return _outcome("Random means: " + ", ".join(f"r={r}: {_fmt(v, 2)}" for r, v in zip(ranks, rnd)), judged)


_claim("F1.g", "fig1", "The utility of a random basis increases with r (fewer sets made mostly of north-vertex copies).",
       "strictly increasing in r", _f1g, quick=_q_ranks)


# ----------------------------------------------------------------------------- Figure 2


def _ms(p: _Pivots) -> list[int]:
    return [int(m) for m in p.mean.index]


def _q_ms(p: _Pivots) -> str:
    return _q_reading(_ms(p), PAPER_MS, "m")


def _f2a(p: _Pivots, settings) -> Outcome:
    p.need("PCG", "DPG")
    mean, sem = p.mean, p.sem
    gap = mean["PCG"] - mean["DPG"]
    se = _se(p, "PCG", "DPG")
    small = [m for m in _ms(p) if m <= 2000]
    if not small:
        raise Inconclusive("no m ≤ 2000 was run", needs="m ∈ {1000, 2000}")
    overlap = [(abs(gap[m]) < 0.005) or (abs(gap[m]) <= sem["PCG"][m] + sem["DPG"][m]) for m in small]
    contradicts = any(abs(gap[m]) - Z * se[m] > 0.005 for m in small)   # the gap's interval excludes |gap| < 0.005
    judged = _judge(all(overlap), contradicts, p.runs(["PCG", "DPG"], small), tested=True,
                    undecided="the gap's interval reaches 0.005")
    measured = "; ".join(f"m={m}: gap {_fmt(gap[m], 4)} (SEM_PCG {_fmt(sem['PCG'][m], 4)}, SEM_DPG {_fmt(sem['DPG'][m], 4)})"
                         for m in small)
    return _outcome(measured, judged)


_claim("F2.a", "fig2", "For small datasets (m ≤ 2000) PCG and DPG perform comparably.",
       "|gap| < 0.005 or the ±1 SEM bars overlap", _f2a, quick=_q_ms)


def _f2b(p: _Pivots, settings) -> Outcome:
    p.need("PCG", "DPG")
    mean, ms = p.mean, _ms(p)
    if len(ms) < 2:
        raise Inconclusive("needs at least two values of m", needs="≥ 2 values of m")
    gap = mean["PCG"] - mean["DPG"]
    sem_diff = _se(p, "PCG", "DPG")
    grows = float(gap[ms[-1]]) > float(gap[ms[0]])
    significant = all(gap[m] > 3 * sem_diff[m] for m in ms[-3:])
    growth_hi = float(gap[ms[-1]] - gap[ms[0]]) + Z * float(np.hypot(sem_diff[ms[-1]], sem_diff[ms[0]]))
    contradicts = growth_hi < 0 or any(gap[m] + Z * sem_diff[m] < 0 for m in ms[-3:])
    judged = _judge(grows and significant, contradicts, p.runs(["PCG", "DPG"]), tested=True,
                    undecided="a gap within 3 SEM_diff of 0, or its growth within noise")
    measured = "gap (PCG − DPG) in utility/m: " + "; ".join(
        f"m={m}: {_fmt(gap[m], 4)} ({_fmt(gap[m] / sem_diff[m], 1)} SEM)" for m in ms)
    return _outcome(measured, judged)


_claim("F2.b", "fig2", "PCG's improvement over DPG increases with m; the confidence intervals separate for large m.",
       "gap(max m) > gap(min m) and gap > 3·SEM_diff at each of the three largest m", _f2b, quick=_q_ms)


def _f2c(p: _Pivots, settings) -> Outcome:
    p.need("PCG", "DPG")
    mean, sem, ms = p.mean, p.sem, _ms(p)
    if len(ms) < 3:
        raise Inconclusive("needs at least three values of m", needs="≥ 3 values of m")
    dpg_means = mean["DPG"].to_numpy()
    rho = spearman(ms, dpg_means) if np.ptp(dpg_means) > 0 else 0.0
    change = {a: weighted_change(ms, mean[a].to_numpy(), sem[a].to_numpy()) for a in ("PCG", "DPG")}
    (d_pcg, se_pcg), (d_dpg, se_dpg) = change["PCG"], change["DPG"]
    finite(d_pcg, se_pcg, d_dpg, se_dpg, what="the fitted change (weights 1/SEM²)")
    measured = (f"Spearman ρ(m, DPG) = {_fmt(rho, 2)}; fitted change over m: DPG {_fmt(d_dpg, 4)} ± {_fmt(se_dpg, 4)}, "
                f"PCG {_fmt(d_pcg, 4)} ± {_fmt(se_pcg, 4)}")
    # contradicted: DPG's change excludes a decline, or PCG declines beyond 3 SE (the threshold's own test)
    judged = _judge(rho < 0 and d_dpg < -3 * se_dpg and d_pcg > -3 * se_pcg,
                    d_dpg - Z * se_dpg > 0 or d_pcg <= -3 * se_pcg, p.runs(["PCG", "DPG"]), tested=True,
                    undecided="DPG's decline within 3 SE of 0")
    return _outcome(measured, judged)


_claim(
    "F2.c", "fig2",
    "DPG's utility/m decreases with m (the mechanism concentrates on the greedy trap B) while PCG stays roughly flat.",
    "ρ < 0, DPG's fitted change < −3 SE, and PCG's fitted change > −3 SE (no significant decline)", _f2c,
    quick=_q_ms, details="fitted change = weighted least-squares slope × (max m − min m), weights 1/SEM²")


def _f2d(p: _Pivots, settings) -> Outcome:
    p.need("PCG", "DPG", "Greedy", "basis {A,B}", "basis {A,C}")
    mean, sem = p.mean, p.sem
    lo, hi = mean["basis {A,B}"], mean["basis {A,C}"]
    within = bool(((mean["PCG"] >= lo) & (mean["PCG"] <= hi) & (mean["DPG"] >= lo) & (mean["DPG"] <= hi)).all())
    greedy_below = bool((mean["Greedy"] < mean[["PCG", "DPG"]].min(axis=1)).all())
    outside = any(((mean[a] + Z * sem[a] < lo) | (mean[a] - Z * sem[a] > hi)).any() for a in ("PCG", "DPG"))
    above = any((mean["Greedy"] - mean[a] - Z * _se(p, "Greedy", a) > 0).any() for a in ("PCG", "DPG"))
    greedy_at_ab = float((mean["Greedy"] - lo).abs().max())
    judged = _judge(within and greedy_below, outside or above, p.runs(["PCG", "DPG", "Greedy"]), tested=False,
                    undecided="an interval reaches a bound")
    measured = (f"f(AB)/m ∈ [{_fmt(lo.min(), 4)}, {_fmt(lo.max(), 4)}], f(AC)/m ∈ [{_fmt(hi.min(), 4)}, {_fmt(hi.max(), 4)}]; "
                f"max |Greedy − f(AB)/m| = {_fmt(greedy_at_ab, 4)}")
    return _outcome(measured, judged)


_claim("F2.d", "fig2",
       "Greedy ends at the worse basis {A, B}; both private algorithms lie between f(AB)/m and f(AC)/m, above Greedy.",
       "f(AB)/m ≤ PCG, DPG ≤ f(AC)/m and Greedy < both at every m", _f2d, quick=_q_ms)


def _f2e(p: _Pivots, settings, ref: str = "Random") -> Outcome:
    p.need("PCG", ref)
    mean = p.mean
    d_rand = mean["PCG"] - mean[ref]
    sem_rand = _se(p, "PCG", ref)
    measured = f"PCG − {_short(ref)}: " + "; ".join(
        f"m={m}: {_fmt(d_rand[m], 4)} ({_fmt(d_rand[m] / sem_rand[m], 1)} SEM)" for m in _ms(p))
    within = bool((d_rand.abs() <= 3 * sem_rand).all())
    # "indistinguishable" is a test: a difference beyond 3·SEM_diff excludes equality
    return _outcome(measured, _judge(within, not within, p.runs(["PCG", ref]), tested=True, undecided=""))


_claim("F2.e", "fig2",
       "[derived, not in the paper] A random basis is statistically indistinguishable from PCG at every m.",
       "|PCG − Random| ≤ 3·SEM_diff at every m", _f2e,
       exact_threshold="|PCG − E[R]| ≤ 3·SEM_diff at every m", quick=_q_ms)


def _f2f(p: _Pivots, settings) -> Outcome:
    p.need("PCG", "DPG")
    vals = p.mean[["PCG", "DPG"]]
    lo_y, hi_y = float(vals.min().min()), float(vals.max().max())
    sems = p.sem[["PCG", "DPG"]]
    contradicts = bool(((vals + Z * sems < 0.78) | (vals - Z * sems > 0.82)).to_numpy().any())
    judged = _judge(0.78 <= lo_y and hi_y <= 0.82, contradicts, p.runs(["PCG", "DPG"]), tested=False,
                    undecided="a mean's interval reaches 0.78 or 0.82")
    return _outcome(f"range of PCG and DPG means: [{_fmt(lo_y, 4)}, {_fmt(hi_y, 4)}]", judged)


_claim("F2.f", "fig2", "The plotted means fall in the paper's displayed range 0.78–0.82.",
       "0.78 ≤ all means ≤ 0.82", _f2f, quick=_q_ms)


# ----------------------------------------------------------------------------- Figure 1–2e (new, beyond the paper)

BEYOND = "(beyond the paper) "
#: the exact accountants of Figure 1–2e (:data:`privopt.experiments.chaturvedi2021.exact.ACCOUNTANTS`), in words
ACCOUNTANT_WORDS = {"exactDP": "optimal composition of ε0-DP steps (valid adaptively: a certificate)",
                    "exactBR": "optimal composition of ε0-bounded-range steps (the non-adaptive optimum: optimistic)"}
FIGURE_X = {"fig1": "r", "fig2": "m"}


def _f12e_ratio(tables: Mapping[str, pd.DataFrame], family: str) -> list[Outcome]:
    """One outcome per (figure, point, accountant): mean utility at the exact ε0 over the paper's, decided by its 95 %
    paired-bootstrap interval (above 1: reproduced, below 1: not reproduced, else inconclusive)."""
    t = tables["fig12e_ratio"]
    t = t[t["family"] == family]
    if t.empty:
        raise Inconclusive(f"no {family} rows in fig12e_ratio", needs=f"the {family} runs of Figure 1–2e")
    out = []
    for (figure, reading, point, acc), g in t.groupby(["figure", "reading", "point", "accountant"], sort=True):
        r = g.iloc[0]
        label = (f"Fig. {str(figure)[3:]}, {FIGURE_X.get(str(figure), 'x')} = {int(point)}, {acc}"
                 + (f" ({_reading_name(str(reading))})" if reading != "paper" else ""))
        n = int(r["n"])
        est, lo, hi = (float(r[k]) for k in ("ratio", "ratio_lo", "ratio_hi"))
        text = (f"{label}: mean utility {family}_{acc}/{family} = {est:.4f} (95 % paired bootstrap {lo:.4f} … "
                f"{hi:.4f}); ε0 {_fmt(r['eps0_exact'], 5)} against the paper's {_fmt(r['eps0_paper'], 5)} "
                f"(× {float(r['eps0_ratio']):.2f})")
        details = (f"{n} runs, {int(r['steps'])} exponential-mechanism steps per run; {ACCOUNTANT_WORDS.get(acc, acc)}; "
                   f"mean utility {_fmt(r['mean_exact'], 4)} against {_fmt(r['mean_paper'], 4)}")
        if not all(np.isfinite(x) for x in (est, lo, hi)):
            out.append(Outcome(text + " (no interval)", None, reading=label, details=details,
                               needs="a finite paired interval (≥ 2 runs, positive utilities)"))
            continue
        if n < MIN_SEEDS:
            out.append(Outcome(text + f" ({n} runs)", None, reading=label, details=details,
                               needs=f"≥ {MIN_SEEDS} runs per point"))
            continue
        holds = decide(lo > 1.0, hi < 1.0)
        needs = ""
        if holds is None:
            gap = abs(np.log(est)) if est > 0 else 0.0
            if gap < 1e-12 or not lo > 0:
                needs = ("a setting where the two ε0 change the picks (here the runs are identical or nearly so, "
                         "so no number of runs separates them)")
            else:
                half = (np.log(hi) - np.log(lo)) / 2
                needs = f"≈ {max(n + 1, int(np.ceil(n * (half / gap) ** 2)))} runs at this point"
        out.append(Outcome(text, holds, reading=label, details=details, needs=needs))
    return out


_F12E_THRESHOLD = ("per (figure, point, accountant): the 95 % paired-bootstrap interval (over runs) of mean utility "
                   "{v}_exact/{v} lies above 1 (reproduced), below 1 (not reproduced), else inconclusive")


@CLAIMS.claim("E.a", "fig12e", BEYOND + "Setting DPG's per-step ε0 by the exact composition of its r "
              "exponential-mechanism steps at the paper's (ε, δ), instead of the paper's rule (ε/r in Figure 1, the "
              "improved rule in Figure 2), raises its mean utility.", _F12E_THRESHOLD.format(v="DPG"),
              needs=("fig12e_ratio",), details="privacy: the paper's (ε, δ) for both; same datasets and streams")
def _f12ea(tables, settings):
    return _f12e_ratio(tables, "DPG")


@CLAIMS.claim("E.b", "fig12e", BEYOND + "Setting PCG's per-step ε0 by the exact composition of its T·r "
              "exponential-mechanism steps at the paper's (ε, δ), instead of Thm 3.9's rule, raises its mean utility.",
              _F12E_THRESHOLD.format(v="PCG"), needs=("fig12e_ratio",),
              details="privacy: the paper's (ε, δ) for both; same datasets and streams")
def _f12eb(tables, settings):
    return _f12e_ratio(tables, "PCG")


def evaluate(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]):
    """Claims entry point (protocol): every claim on the ``fig1``, ``fig2`` and ``fig12e_ratio`` tables."""
    return CLAIMS.evaluate(tables, settings)


# ----------------------------------------------------------------------------- findings

#: the readings in words (the config keys are ``chaturvedi2021.figN.readings``)
READING_NAMES = {"paper": "paper text", "authors_code": "authors' released code"}


def _reading_name(reading: str) -> str:
    return READING_NAMES.get(reading, reading)


def _label_finding(p: _Pivots, reading: str) -> Finding | None:
    """Figure 1: what the element labels and the data each add to PCG, from the diagnostics."""
    mid = [r for r in _ranks(p) if 10 < r <= 20]
    needed = [paired_name("PCG", "PCG_perm"), paired_name("PCG0", EXACT_RANDOM), "PCG", "PCG_perm", EXACT_RANDOM]
    if not mid or any(a not in p.mean.columns for a in needed):
        return None
    try:
        p.need(*needed)
    except Inconclusive:
        return None
    k = len(mid)
    label, label_se = (v / k for v in _paired_sum(p, "PCG", "PCG_perm", mid))
    pcg0, pcg0_se = (v / k for v in _paired_sum(p, "PCG0", EXACT_RANDOM, mid))
    exact = float(p.mean.loc[mid, EXACT_RANDOM].mean())
    edge = float(p.mean.loc[mid, "PCG"].mean()) - exact
    perm = float(p.mean.loc[mid, "PCG_perm"].mean()) - exact
    perm_se = float(np.sqrt((p.sem.loc[mid, "PCG_perm"] ** 2 + p.sem.loc[mid, EXACT_RANDOM] ** 2).sum())) / k
    ranks = ", ".join(map(str, mid))
    n = int(p.n.loc[mid].min().min()) if p.n is not None else 0
    numbers = (f"Figure 1, {_reading_name(reading)} (r ∈ {{{ranks}}}, {n} runs each): permuting the element labels before "
               f"rounding changes PCG's mean utility by {_fmt(-label, 2)} ± {_fmt(label_se, 2)} (paired, {_z(-label, label_se)} SE), "
               f"leaving it {_fmt(perm, 2)} ± {_fmt(perm_se, 2)} from the exact E[Random] = {_fmt(exact, 2)} (PCG itself: "
               f"{_fmt(edge, 2)} above); PCG0, which never reads the data, is {_fmt(pcg0, 2)} ± {_fmt(pcg0_se, 2)} "
               f"({_z(pcg0, pcg0_se)} SE) above E[Random]")
    if "PCG0_perm" in p.mean.columns and np.isfinite(p.mean.loc[mid, "PCG0_perm"]).all():
        d0 = float(p.mean.loc[mid, "PCG0_perm"].mean()) - exact
        se0 = float(np.sqrt((p.sem.loc[mid, "PCG0_perm"] ** 2 + p.sem.loc[mid, EXACT_RANDOM] ** 2).sum())) / k
        numbers += f" and, with its labels permuted (a uniform basis in law), {_fmt(d0, 2)} ± {_fmt(se0, 2)} from it"
    if label > 2 * label_se and abs(perm) <= 2 * perm_se:
        verdict = "so PCG's edge over a random basis comes from rounding in index order (grid points first), not from the data"
    elif label > 2 * label_se:
        verdict = (f"so rounding in index order accounts for {_fmt(label, 2)} of PCG's {_fmt(edge, 2)} over a random basis, "
                   f"and the rest ({_fmt(perm, 2)}) remains with the labels permuted")
    else:
        verdict = "so the element labels make no detectable difference to PCG at this number of runs (|z| ≤ 2)"
    return Finding(f"{numbers}: {verdict}.", figure="fig1")


def _fig2_finding(p: _Pivots, reading: str) -> Finding | None:
    """Figure 2: PCG and DPG against Random's exact expectation."""
    if any(a not in p.mean.columns for a in ("PCG", "DPG", EXACT_RANDOM)):
        return None
    try:
        p.need("PCG", "DPG", EXACT_RANDOM)
    except Inconclusive:
        return None
    ms = _ms(p)
    d = p.mean["PCG"] - p.mean[EXACT_RANDOM]
    se = np.sqrt(p.sem["PCG"] ** 2 + p.sem[EXACT_RANDOM] ** 2)
    worst = max(ms, key=lambda m: abs(d[m]) / se[m] if se[m] > 0 else np.inf)
    last = ms[-1]
    dd = float(p.mean.loc[last, "DPG"] - p.mean.loc[last, EXACT_RANDOM])
    dse = float(np.sqrt(p.sem.loc[last, "DPG"] ** 2 + p.sem.loc[last, EXACT_RANDOM] ** 2))
    within = int((d.abs() <= 2 * se).sum())
    return Finding(
        f"Figure 2, {_reading_name(reading)}: PCG's utility/m is within 2 SE of the exact E[Random] at {within} of {len(ms)} "
        f"values of m (largest gap {_fmt(d[worst], 4)} at m = {worst}, {_z(float(d[worst]), float(se[worst]))} SE), "
        f"while DPG is {_fmt(dd, 4)} ({_z(dd, dse)} SE) from it at m = {last}.", figure="fig2")


def _fig12e_finding(t: pd.DataFrame) -> Finding | None:
    """Figure 1–2e in one sentence: per algorithm and accountant, per figure, the range of the ε0 ratio and of the
    mean-utility ratio over the points, and at how many points the 95 % paired interval lies above or below 1
    (every point's value is in the figure's claims)."""
    if t is None or t.empty:
        return None

    def span(lo: float, hi: float, digits: int) -> str:
        return f"{lo:.{digits}f}" if f"{lo:.{digits}f}" == f"{hi:.{digits}f}" else f"{lo:.{digits}f}–{hi:.{digits}f}"

    parts = []
    for (family, acc), g in t.groupby(["family", "accountant"], sort=False):
        per = []
        for figure, f in g.groupby("figure", sort=True):
            above, below = int((f["ratio_lo"] > 1).sum()), int((f["ratio_hi"] < 1).sum())
            per.append(f"Fig. {str(figure)[3:]}: ε0 ×{span(f['eps0_ratio'].min(), f['eps0_ratio'].max(), 2)}, utility "
                       f"×{span(f['ratio'].min(), f['ratio'].max(), 3)} (above 1 at {above}, below at {below} of "
                       f"{len(f)} points)")
        parts.append(f"{family} {acc}: " + ", ".join(per))
    return Finding(f"Figure 1–2e (beyond the paper, {int(t['n'].min())} paired runs per point): per-step ε0 from exact "
                   "composition at the paper's (ε, δ) against the paper's rules, as ε0 and mean-utility ratios (95 % "
                   "paired bootstrap intervals): " + "; ".join(parts) + ".", figure="fig12e")


def findings(tables: Mapping[str, pd.DataFrame], claims: pd.DataFrame, settings: Mapping[str, Any]) -> list[Finding]:
    """Findings entry point (protocol, :meth:`privopt.pipeline.protocol.Claims.find`): per reading, the
    label-permutation and PCG0 diagnostics of Figure 1 and PCG against E[Random] in Figure 2, with their numbers;
    Figure 1–2e's ε0 and utility ratios."""
    out: list[Finding] = []
    for figure, make in (("fig1", _label_finding), ("fig2", _fig2_finding)):
        table = tables.get(figure)
        if table is None or len(table) == 0:
            continue
        for reading, sub in table.groupby("reading", sort=False):
            found = make(_Pivots(sub), str(reading))
            if found is not None:
                out.append(found)
    found = _fig12e_finding(tables.get("fig12e_ratio"))
    if found is not None:
        out.append(found)
    return out
