"""Every audit of the library's own mechanisms, and the white-box audits' table.

The papers' pipelines run the audits each paper declares (``Paper.audits``), some of them the library's
(listed here), some the paper's own (in its package, which the library does not import).  Every audit of the
project, both kinds, each once: :func:`privopt.pipeline.audits.every_audit`.
"""

from __future__ import annotations

import pandas as pd

from privopt.audit import continuous, exponential, greedy, noise_law, sampling_law, tree
from privopt.audit.core import COLUMNS, Audit

__all__ = ["all_audits", "white_box_audits", "white_box_table"]


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

