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

One module per figure group, imported below in the order the claims are declared (the order of the claims
table's rows): :mod:`.deciding` (the claim set, the design's constants, the three-way rule, the seed means and
the bootstrap over seeds), :mod:`.f1_2` (C1–C2), :mod:`.f3_4` (C3–C4), :mod:`.f5_6` (C5–C6), :mod:`.f7_8`
(C7–C8) and :mod:`.findings`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from privopt.experiments.perezsalazar2021.claims.deciding import BOOT, CLAIMS, FI_KEYS, PAPER, _boot, _judge
# the claims register with CLAIMS as their modules load: this order is the claims table's row order
from privopt.experiments.perezsalazar2021.claims import f1_2, f3_4, f5_6, f7_8  # noqa: F401
from privopt.experiments.perezsalazar2021.claims.findings import findings

__all__ = ["CLAIMS", "PAPER", "BOOT", "FI_KEYS", "evaluate", "findings", "_boot", "_judge"]


def evaluate(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]):
    """Claims entry point (protocol): every claim C1.1 … C8.4 on the run and summary tables of F1–F8."""
    return CLAIMS.evaluate(tables, settings)
