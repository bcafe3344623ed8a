"""Black-box privacy auditing of every private mechanism in ``privopt``.

Given a randomised function and two neighbouring inputs, the auditor samples both,
chooses output events on one half of the samples and evaluates them on the held-out
half, and returns an ε lower bound from Clopper–Pearson intervals with a Bonferroni
correction — for pure ε and for (ε, δ) (log((P0 − δ)/P1)) — in the spirit of StatDP
(Ding et al., CCS 2018) and DP-Sniper (Bichsel et al., S&P 2021).  Where the output law
is exactly computable on the tiny instance, the exact ε of the pair is reported as a
white-box check.  Every audit has a planted bug beside it, a real violation on its
instance, to show that the audit can fail; a tight audit (exact ε of the instance close to the
claim, a near-optimal statistic) has a subtle one too (noise ×1/√2, or the paper's printed constant
alone), and a loose or diluted audit says so in its ``tightness`` column.

Public API
----------
* :func:`audit_discrete`, :func:`audit_continuous` — ε lower bound from two sample sets
  (:mod:`privopt.audit.events`); :func:`audit_statistic` — from a privacy-loss statistic of them (its
  level sets: the optimal events where the output law is known); :func:`exact_eps_discrete`, :func:`gaussian_exact_eps`
  and the Clopper–Pearson helpers (:mod:`privopt.audit.stats`).
* :class:`Audit`, :func:`run_audit` — one mechanism on one instance (:mod:`privopt.audit.core`).
* :func:`run_audits` — the audit table of a list of audits (a paper's, as its declaration lists
  them: ``Paper.audits``), one row per (audit, correct | planted | subtle), columns :data:`COLUMNS`.
* :mod:`privopt.audit.catalogue` — every audit of the library's own mechanisms
  (:func:`~privopt.audit.catalogue.all_audits`: exponential mechanism (numpy, numba), DPG with
  every ε0 rule, PCG (swap/pairwise × G/exact-F), PMCG, tree aggregation (Gaussian, Wishart)) and the
  white-box audits; with the audits the papers declare in their own packages, every audit of the project is
  listed by :func:`privopt.pipeline.audits.every_audit`.

This package imports only the auditing machinery, not the audited mechanisms: a job that audits
one mechanism (``from privopt.audit.core import run_audit``) depends, for the workflow's code
digest, on that mechanism's modules alone (:mod:`privopt.codedigest`).
"""

from __future__ import annotations

from privopt.audit.core import COLUMNS, SCALES, TIGHTNESS, VARIANTS, Audit, run_audit, run_audits, samples_for
from privopt.audit.events import Evidence, audit_continuous, audit_discrete, audit_statistic
from privopt.audit.stats import (
    cp_lower,
    cp_upper,
    eps_from_bounds,
    exact_eps_discrete,
    gaussian_delta,
    gaussian_exact_eps,
)

__all__ = [
    "Audit",
    "Evidence",
    "COLUMNS",
    "SCALES",
    "TIGHTNESS",
    "VARIANTS",
    "audit_continuous",
    "audit_discrete",
    "audit_statistic",
    "cp_lower",
    "cp_upper",
    "eps_from_bounds",
    "exact_eps_discrete",
    "gaussian_delta",
    "gaussian_exact_eps",
    "run_audit",
    "run_audits",
    "samples_for",
]
