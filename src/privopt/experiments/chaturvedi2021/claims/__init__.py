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

Beyond the paper, E.a (DPG) and E.b (PCG) read Figure 1–2e's ratio table
(:mod:`privopt.experiments.chaturvedi2021.exact`): per (figure, point, accountant) the mean utility at the exact ε0
over the paper's, decided by its 95 % paired-bootstrap interval (above 1 reproduced, below 1 not reproduced, else
inconclusive, with at least MIN_SEEDS runs: :func:`~privopt.pipeline.claims.ratio_outcome`).

Claims that compare against a random basis (F1.e, F1.z, F2.e) give two rows per reading: against the
sampled Random (what the paper did) and against E[Random], Random's exact expectation on each run's
dataset (no sampling noise).  Paired differences (``"PCG - PCG_perm"`` …) are rows of the summary
table (:mod:`privopt.experiments.chaturvedi2021.tables`).  :func:`findings` turns the diagnostics into the report's
findings.

One module per figure, imported below in the order the claims are declared (the order of the claims table's rows):
:mod:`.deciding` (the claim set, the authors' grids, the three-way rule and the per-reading plumbing), :mod:`.fig1`,
:mod:`.fig2`, :mod:`.fig12e` (beyond the paper) and :mod:`.findings`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from privopt.pipeline.claims import NotEvaluated
from privopt.experiments.chaturvedi2021.claims.deciding import (AUTHORS_RUNS, CLAIMS, EXACT_NOTE, PAPER, PAPER_DELTA,
                                                                PAPER_EPS, PAPER_EPS0, PAPER_MS, PAPER_RANKS,
                                                                READING_NAMES, Z)
# the claims register with CLAIMS as their modules load: this order is the claims table's row order
from privopt.experiments.chaturvedi2021.claims import fig1, fig2, fig12e  # noqa: F401
from privopt.experiments.chaturvedi2021.claims.fig12e import ACCOUNTANT_WORDS, BEYOND
from privopt.experiments.chaturvedi2021.claims.findings import _fig12e_finding, findings

__all__ = ["CLAIMS", "PAPER", "PAPER_RANKS", "PAPER_MS", "AUTHORS_RUNS", "Z", "PAPER_EPS", "PAPER_DELTA", "PAPER_EPS0",
           "EXACT_NOTE", "READING_NAMES", "ACCOUNTANT_WORDS", "BEYOND", "NotEvaluated", "evaluate", "findings",
           "_fig12e_finding"]


def evaluate(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]):
    """Claims entry point (protocol): every claim on the ``fig1``, ``fig2`` and ``fig12e_ratio`` tables."""
    return CLAIMS.evaluate(tables, settings)
