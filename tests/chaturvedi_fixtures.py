"""Chaturvedi et al.'s point pools from the shared Uber subset, shared by the test modules (test_chaturvedi2021,
test_chaturvedi2021_exact): each module makes it a module-scoped fixture (``pools = pytest.fixture(...)(uber_pools)``)."""

from __future__ import annotations

import pytest

from privopt.experiments.chaturvedi2021 import instances
from workflow_runs import SUBSET


def uber_pools() -> dict:
    """Each figure's pickups inside its box, as (lat, lon) rows; skips without the shared data subset."""
    if not SUBSET.exists():
        pytest.skip(f"shared data subset not found at {SUBSET}")
    from privopt.datasets.uber.parse import read_pickups

    pickups = read_pickups(SUBSET)
    return {fig: instances.in_box(pickups, fig)[["lat", "lon"]].to_numpy() for fig in ("fig1", "fig2")}
