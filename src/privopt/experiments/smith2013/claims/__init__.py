"""The checkable claims (docs/papers/smith2013.md, reading R13) for Smith & Thakurta (C-ST0 … C-ST4, C-U1),
and the privacy checks.

The paper has no experiments: each claim is a prediction of its theorems on the new figures, with the
tolerances of the design (calibrated on a prototype at paper-like scale).  Slopes are least-squares fits of
log(seed-mean) on log(x) over the claim's own range (:func:`privopt.pipeline.stats.loglog_slope`).

Three verdicts (:mod:`privopt.pipeline.claims`), decided part by part and then combined (a claim holds
when every part does, is not reproduced when one part is contradicted, and is inconclusive otherwise):

* a part whose estimate meets its threshold *supports* the claim;
* a part whose estimate misses it *contradicts* the claim only when the 95 % interval of the estimate lies
  wholly beyond the threshold, and only with at least :data:`~privopt.pipeline.claims.MIN_SEEDS` seeds
  per point: a standard error from 2–3 seeds of these heavy-tailed regrets is itself off by a factor of
  several.  The interval of a slope comes from the per-point standard errors (:func:`loglog_fit`, delta
  method on log(mean)), that of a ratio of two means from both relative errors (on the log scale), the
  points taken as independent (one seed's streams are prefixes of each other across T: the positive
  correlation this brings mostly narrows the true interval, so the one used is on the wide side); a Spearman ρ is contradicted when no ranking of values inside the means'
  95 % intervals reaches its bar;
* otherwise the part is *inconclusive at this scale*, and ``needs`` says what would decide it (≥ 10 seeds
  per point; ≈ N seeds, N scaled by the 1/√N shrinking of the interval; a horizon the grid lacks).

A claim over a range (a fit window, the ε or p of a figure) is never reproduced on another range: fewer than
two points in the claim's window, or a grid that does not reach the ends of its range, leave it inconclusive.
The parts are :mod:`privopt.pipeline.parts` (they decide the claims of Rivera Cardoso & Cummings too).  A claim
that does not hold is reported with its numbers.

One module per figure group, imported below in the order the claims are declared (the order of the claims
table's rows): :mod:`.deciding` (the claim set and the curve helpers), :mod:`.st0` (ST-0, ST-0c), :mod:`.st1`
(ST-1, ST-1c), :mod:`.st2_4` (ST-2 … ST-4), :mod:`.bound_privacy` (U1.a, P1.a–b) and :mod:`.findings`.
"""

from __future__ import annotations

from privopt.experiments.smith2013.claims.deciding import CLAIMS
# the claims register with CLAIMS as their modules load: this order is the claims table's row order
from privopt.experiments.smith2013.claims import st0, st1, st2_4, bound_privacy  # noqa: F401
from privopt.experiments.smith2013.claims.bound_privacy import regret_bound
from privopt.experiments.smith2013.claims.findings import findings

__all__ = ["CLAIMS", "evaluate", "findings", "regret_bound"]


def evaluate(tables, settings):
    return CLAIMS.evaluate(tables, settings)
