"""What one bandit run returns, shared by both engines: the recording grid and :class:`EpisodeResult`.

:func:`privopt.bandits.episodes.run_episode` (numba kernels) and
:func:`privopt.bandits.linucb.run_episode_reference` (plain numpy) record the cumulative
pseudo-regret R̂_t on the same grid (:func:`record_grid`) and return the same dataclass.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privopt.bandits.parameters import VariantParams

__all__ = ["EpisodeResult", "record_grid"]


def record_grid(n_rounds: int, record=None) -> np.ndarray:
    """Rounds at which the cumulative regret R̂_t is recorded (always includes 0 and n_rounds).

    ``None`` → about 1000 evenly spaced points; int k → every k rounds; array → those rounds.
    """
    if record is None:
        record = max(1, n_rounds // 1000)
    if np.isscalar(record):
        k = int(record)
        if k < 1:
            raise ValueError("record interval must be >= 1")
        grid = np.arange(0, n_rounds + 1, k, dtype=np.int64)
        if grid[-1] != n_rounds:
            grid = np.append(grid, n_rounds)
        return grid
    grid = np.unique(np.asarray(record, dtype=np.int64))
    if grid.size and (grid[0] < 0 or grid[-1] > n_rounds):
        raise ValueError("record rounds must lie in [0, n_rounds]")
    return grid


@dataclass
class EpisodeResult:
    """One run of one variant.  ``regret[i]`` is R̂_t at t = ``t[i]`` (cumulative pseudo-regret)."""

    variant: str
    params: VariantParams
    n_rounds: int
    t: np.ndarray
    regret: np.ndarray
    theta: np.ndarray
    pd_failures: int
    n_optimal: int
    node_draws: int
    wall_s: float
    engine: str
    audit: pd.DataFrame | None = None
    trace: np.ndarray | None = None
    extra: dict = field(default_factory=dict)

    @property
    def final_regret(self) -> float:
        return float(self.regret[-1]) if self.t.size and self.t[-1] == self.n_rounds else float("nan")

    def to_frame(self) -> pd.DataFrame:
        """Tidy curve: columns variant, t, regret."""
        return pd.DataFrame({"variant": self.variant, "t": self.t, "regret": self.regret})

    def summary(self) -> dict:
        """Run metadata (one flat row)."""
        row = {"variant": self.variant, "n_rounds": self.n_rounds, "final_regret": self.final_regret,
               "pd_failures": self.pd_failures, "n_optimal": self.n_optimal,
               "node_draws": self.node_draws, "wall_s": self.wall_s, "engine": self.engine,
               "us_per_round": 1e6 * self.wall_s / max(1, self.n_rounds)}
        row.update({f"param_{k}": v for k, v in self.params.metadata().items() if k != "name"})
        return row
