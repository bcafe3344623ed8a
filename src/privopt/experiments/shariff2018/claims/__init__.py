"""The claims of Shariff & Sheffet (shariff2018 reading R20), checked on the aggregated tables and per-run values.

Three verdicts, decided by what the data can tell (:mod:`privopt.pipeline.claims`):

* **Tiers.**  The paper tier applies when the paper's settings ran for the figure (Exp. 1: 100 runs per
  (model, d), the 17 dims, n = 10^5; Exp. 2: 30 runs, read at t* = 2·10^7; Exp. 3: 30 runs, the five gaps,
  regret at n = 5·10^7); anything short of them is the quick tier.  The tier is decided from the tables
  and the settings that ran (:func:`exp1_tier`, :func:`exp2_tier`, :func:`exp3_tier`) and stated in each
  row's details, never from a scale label.
* **Quick (Q) readings.**  The design (shariff2018 readings R19, R20) defines, for every claim of Figures 2–5
  but F4.e, how it reads below the paper's settings: Figure 4 at t* = T_quick (a prefix run with the
  full-horizon constants), Figure 5 on the regret at T_quick, Exp. 1 on fewer dims and runs, with a Q
  threshold where it gives one (F2.a ≥ 0.9, F3.a [1.6, 2.4], F4.c ratio ≥ 1.2 and p < 0.05, F5.b ≤ 0.6,
  F5.c the two extreme gaps only) and the paper's threshold otherwise.  Below the paper's settings a claim
  is judged on that reading only, and its threshold column says so ("Q reading at t* = 2,000,000 (paper
  2·10^7): …"), so a *reproduced* row there never stands for the paper's statement at the paper's horizon
  or range.  F4.e has no Q reading (shariff2018 reading R20: "paper-scale only"): on prefix runs it is *inconclusive*,
  needing runs to n = 5·10^7.
* **Tests and standard errors.**  A claim that gates on a Welch p-value or a bootstrap interval (F3.b,
  F4.a, F4.c, F4.d with the prop9 γ' — its claim20 reading reports p only —, F5.a) needs at least :data:`~privopt.pipeline.claims.MIN_SEEDS` runs per point,
  else it is *inconclusive* (a non-significant test on 3–4 runs says nothing; so does a significant one
  whose standard error rests on 3 degrees of freedom), needing ≈ 30 runs (the paper's).
* **Not reproduced** only when the interval of the measured effect excludes what the claim states: a
  95 % Welch interval of the linear contrast the threshold compares (e.g. R̄_Gauss − 0.5·R̄_Wishart for F4.a,
  Inc(0.1) − 0.35·Inc(0) for F5.b), a 95 % percentile bootstrap interval (runs resampled within each point,
  seeded) for rank correlations, ranges and slopes (F2.a, F2.c, F3.a, F5.c, F5.d), a Clopper–Pearson
  interval for the share of audited rounds (S.1).  Such an interval needs ≥ MIN_SEEDS runs per point; with
  fewer, a claim whose point estimate misses its threshold is *inconclusive*.  A claim whose point
  estimate meets a threshold that is not itself a test (F2.a, F2.b, F2.c, F3.a, F4.b, F5.b–d) is
  *reproduced* on that estimate.  Exact checks (F1.a, F4.f: no Cholesky failure, S.2: θ* inside the
  confidence set on every audited round) are contradicted by a single counterexample.
* F5.e is descriptive (the paper states no expectation): always reported, never gated.
* F4c.a–c (beyond the paper, Figure 4c): each counter's mean regret against the path tree's at the same privacy,
  decided by the 95 % paired-bootstrap interval of the ratio (below 1, above 1, or straddling it), with ≥ MIN_SEEDS
  runs per gap.
* F4e.a–b (beyond the paper, Figure 4e): the Gaussian variant with its node σ calibrated exactly to the paper's (ε, δ)
  (path tree; with the best counter of Figure 4c) against the paper's calibration, per (gap, δ), decided the same way.

:func:`findings` turns the Figure 4 comparisons and the undecided claims into the report's findings.
Nothing here is tuned to make a claim pass.

One module per figure group, imported below in the order the claims are declared (the order of the claims
table's rows): :mod:`.deciding` (the claim set, the paper's settings, the tiers and the three-way rules),
:mod:`.fig1_3`, :mod:`.fig4`, :mod:`.fig5`, :mod:`.audit` (S.1, S.2), :mod:`.fig4c_4e` (beyond the paper) and
:mod:`.findings`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from privopt.pipeline.claims import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED
from privopt.experiments.shariff2018.tables import bootstrap_slope_ci, ols_slope
from privopt.experiments.shariff2018.claims.deciding import (CLAIMS, LEVEL, N_BOOT, PAPER, PAPER_EXP1, PAPER_EXP2,
                                                             PAPER_EXP3, NotEvaluated, _judge, exp1_tier, exp2_tier,
                                                             exp3_tier)
# the claims register with CLAIMS as their modules load: this order is the claims table's row order
from privopt.experiments.shariff2018.claims import fig1_3, fig4, fig5, audit, fig4c_4e  # noqa: F401
from privopt.experiments.shariff2018.claims.audit import (S1_SAMPLE, S1_THRESHOLD, S2_THRESHOLD, audit_checks,
                                                          audit_shares)
from privopt.experiments.shariff2018.claims.findings import DESCRIPTIVE, findings

__all__ = ["CLAIMS", "PAPER", "PAPER_EXP1", "PAPER_EXP2", "PAPER_EXP3", "LEVEL", "N_BOOT", "DESCRIPTIVE", "S1_SAMPLE",
           "S1_THRESHOLD", "S2_THRESHOLD", "INCONCLUSIVE", "NOT_REPRODUCED", "REPRODUCED", "NotEvaluated", "evaluate",
           "findings", "exp1_tier", "exp2_tier", "exp3_tier", "audit_checks", "audit_shares", "ols_slope",
           "bootstrap_slope_ci", "_judge"]


def evaluate(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]):
    """Claims entry point (protocol): every §8 claim.  ``settings``: the ``fig1``, ``exp1``, ``exp2``, ``exp3``
    values the claims read (:mod:`.paper`); ``tables``: fig1, fig2, exp1_runs, fig4_runs, fig4_audit, fig4c_ratio,
    fig4e_ratio, fig5_runs."""
    return CLAIMS.evaluate(tables, settings)
