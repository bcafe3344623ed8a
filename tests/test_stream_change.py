"""Issue 24 changed the random stream of the decision sets (counter-based normals, the Gaussian-envelope T sampler),
not their law: the final pseudo-regret of a few small Shariff & Sheffet settings must agree with the previous
stream's (``tests/data/previous_stream_regret.csv``, written by ``benchmarks/stream_regret_summary.py`` with the
checkout before the change, f64647e) within 4 standard errors of the difference (one-sided miss ≈ 3·10⁻⁵ per
setting if the laws agree; the seeds are fixed, so the test is deterministic)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from stream_regret_summary import SETTINGS, summary  # noqa: E402

PREVIOUS = pd.read_csv(Path(__file__).parent / "data" / "previous_stream_regret.csv")


def test_the_table_holds_every_setting():
    assert [tuple(r) for r in PREVIOUS[["variant", "d", "reward", "rounds", "seeds"]].itertuples(index=False)] == \
        [tuple(s) for s in SETTINGS]


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: f"{s[0]}-d{s[1]}-{s[2]}")
def test_regret_law_is_the_previous_streams(setting):
    rows = PREVIOUS[(PREVIOUS["variant"] == setting[0]) & (PREVIOUS["d"] == setting[1]) & (PREVIOUS["reward"] == setting[2])]
    assert len(rows) == 1, setting
    row = rows.iloc[0]
    mean, sem = summary(*setting)
    assert abs(mean - row["mean"]) <= 4.0 * math.hypot(sem, row["sem"]), (mean, row["mean"], sem, row["sem"])
