"""Every audit of the library's own mechanisms, and their table.

The papers' pipelines run the audits each paper declares (``Paper.audits``); this catalogue is
the library-wide view used by the tests and by ``benchmarks/bench_audit.py``.
"""

from __future__ import annotations

import pandas as pd

from privopt.audit import continuous, exponential, greedy, noise_law, sampling_law, tree
from privopt.audit.core import COLUMNS, Audit, run_audits

__all__ = ["all_audits", "run_all", "white_box_audits", "white_box_table"]


def all_audits() -> list[Audit]:
    """Every audit, in table order."""
    return [*exponential.audits(), *greedy.audits(), *continuous.audits(), *tree.audits()]


def white_box_audits() -> list:
    """The white-box audits: the noise law of every Gaussian release (:mod:`privopt.audit.noise_law`) and PCG's
    exponential-mechanism draws (:mod:`privopt.audit.sampling_law`); their rows join the audit table in the
    ``privacy_audit`` rule."""
    return [*noise_law.noise_law_audits(), sampling_law.PcgDrawsAudit()]


def white_box_table(seed: int = 0) -> pd.DataFrame:
    """The rows of every white-box audit (correct, planted, subtle), columns :data:`privopt.audit.core.COLUMNS`."""
    return pd.DataFrame([r for a in white_box_audits() for r in a.rows(seed)], columns=COLUMNS)


def run_all(samples_scale="quick", seed: int = 0, *, alpha: float = 0.05, names=None) -> pd.DataFrame:
    """The audit table: one row per (audit, variant), variant "correct", "planted" then "subtle" (tight audits).

    ``samples_scale``: "quick" (about half a minute of CPU), "paper" (10x the samples or more),
    an int (samples per input for every audit) or a dict {audit name or "*": scale or int}.
    ``seed``: every random stream is ``seed_sequence("audit", name, {variant, input,
    samples}, seed)``, so the table is deterministic for a seed.  ``names`` restricts the
    audits run.  Columns: :data:`privopt.audit.core.COLUMNS`; ``confidence`` is 1 − α of
    ``eps_lb``; ``exact_eps`` is NaN where the law is not computed; ``samples`` is per input;
    ``result`` is pass/VIOLATION (correct) or caught/missed (planted, subtle); ``tightness`` says whether
    the audit is tight, loose or diluted (:mod:`privopt.audit.core`).
    """
    chosen = [a for a in all_audits() if names is None or a.name in names]
    return run_audits(chosen, samples_scale, seed, alpha=alpha)
