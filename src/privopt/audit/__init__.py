"""Black-box privacy auditing of every private mechanism in ``privopt``.

Given a randomised function and two neighbouring inputs, the auditor samples both,
chooses output events on one half of the samples and evaluates them on the held-out
half, and returns an ε lower bound from Clopper–Pearson intervals with a Bonferroni
correction — for pure ε and for (ε, δ) (log((P0 − δ)/P1)) — in the spirit of StatDP
(Ding et al., CCS 2018) and DP-Sniper (Bichsel et al., S&P 2021).  Where the output law
is exactly computable on the tiny instance, the exact ε of the pair is reported as a
white-box check.  Every audit has a planted bug beside it, a real violation on its
instance, to show that the audit can fail.

Public API
----------
* :func:`audit_discrete`, :func:`audit_continuous` — ε lower bound from two sample sets
  (:mod:`privopt.audit.events`); :func:`exact_eps_discrete`, :func:`gaussian_exact_eps`
  and the Clopper–Pearson helpers (:mod:`privopt.audit.stats`).
* :class:`Audit`, :func:`run_audit` — one mechanism on one instance (:mod:`privopt.audit.core`).
* :func:`all_audits` — the registry: exponential mechanism (numpy, numba), DPG with every
  ε0 rule, PCG (swap/pairwise × G/exact-F), PMCG, tree aggregation (Gaussian, Wishart).
* :func:`run_all` — the audit table, one row per (audit, correct | planted), columns
  :data:`COLUMNS`; :func:`run_audits` the same for a given list of audits (a paper's, as its
  declaration lists them: ``Paper.audits``).
"""

from __future__ import annotations

import pandas as pd

from privopt.audit import continuous, exponential, greedy, tree
from privopt.audit.core import COLUMNS, SCALES, Audit, run_audit, samples_for
from privopt.audit.events import Evidence, audit_continuous, audit_discrete
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
    "all_audits",
    "audit_continuous",
    "audit_discrete",
    "cp_lower",
    "cp_upper",
    "eps_from_bounds",
    "exact_eps_discrete",
    "gaussian_delta",
    "gaussian_exact_eps",
    "run_all",
    "run_audit",
    "run_audits",
    "samples_for",
]


def all_audits() -> list[Audit]:
    """Every audit, in table order."""
    return [*exponential.audits(), *greedy.audits(), *continuous.audits(), *tree.audits()]


def run_audits(audits, samples_scale="quick", seed: int = 0, *, alpha: float = 0.05) -> pd.DataFrame:
    """The audit table of ``audits`` (a list of :class:`Audit`), one row per (audit, variant), correct
    then planted; arguments as :func:`run_all`."""
    rows = []
    for audit in audits:
        n = samples_for(audit, samples_scale)
        for planted in (False, True):
            rows.append(run_audit(audit, planted, n, seed, alpha=alpha))
    return pd.DataFrame(rows, columns=COLUMNS)


def run_all(samples_scale="quick", seed: int = 0, *, alpha: float = 0.05, names=None) -> pd.DataFrame:
    """The audit table: one row per (audit, variant) with variant "correct" then "planted".

    ``samples_scale``: "quick" (about half a minute on one core), "paper" (10x the samples),
    an int (samples per input for every audit) or a dict {audit name or "*": scale or int}.
    ``seed``: every random stream is ``seed_sequence("audit", name, {variant, input,
    samples}, seed)``, so the table is deterministic for a seed.  ``names`` restricts the
    audits run.  Columns: :data:`COLUMNS`; ``confidence`` is 1 − α of ``eps_lb``;
    ``exact_eps`` is NaN where the law is not computed; ``samples`` is per input;
    ``result`` is pass/VIOLATION (correct) or caught/missed (planted).
    """
    chosen = [a for a in all_audits() if names is None or a.name in names]
    return run_audits(chosen, samples_scale, seed, alpha=alpha)
