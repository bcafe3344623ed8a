"""The point streams and random states of the Smith & Thakurta runs (smith2013 reading R10).

* Uber streams (``iid``): x_t drawn uniformly with replacement from the disk pool; the index
  stream of a seed depends only on (experiment, seed) — every ε, loss and horizon of that seed sees
  the same points (common random numbers), and the stream of horizon T is the first T indices of any
  longer one (``Generator.integers`` draws one index after the other).
* Synthetic ST-DIM streams: x_t = Π_B(0.3e₁ + (0.3/√p) g_t), g_t ~ N(0, I_p), keyed by (p, seed).
* Noise and exploration: one :class:`privopt.fastrng.FastGenerator` state per replica, seeded by
  ``privopt.seeding.seed_sequence(paper, "<experiment>/<stream>", params, seed)`` with the replica's
  parameters (loss, T, p, ε, …), so a replica's draws do not depend on the job or block that runs it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from privopt import seeding
from privopt.fastrng import FastGenerator
from privopt.online.pftal.projections import project_ball

__all__ = ["PAPER", "uber_indices", "dim_points", "replica_states"]

PAPER = "smith2013"
DIM_MEAN = 0.3
DIM_SPREAD = 0.3


def uber_indices(pool_size: int, experiment: str, seeds: Sequence[int], T: int) -> np.ndarray:
    """(len(seeds), T) int64 indices into the disk pool, one row per seed."""
    return np.stack([seeding.rng(PAPER, f"{experiment}/data", {}, int(s)).integers(0, pool_size, size=int(T))
                     for s in seeds]).astype(np.int64)


def dim_points(p: int, T: int, experiment: str, seed: int) -> np.ndarray:
    """(T, p) points of the synthetic stream ST-DIM, in the unit ball."""
    g = seeding.rng(PAPER, f"{experiment}/data", {"p": int(p)}, int(seed)).standard_normal((int(T), int(p)))
    x = DIM_SPREAD / np.sqrt(p) * g
    x[:, 0] += DIM_MEAN
    return project_ball(x, 1.0)


def replica_states(experiment: str, stream: str, params: Sequence[Mapping[str, Any]], seeds: Sequence[int]) -> np.ndarray:
    """(R, 4) uint64 FastGenerator states, replica r keyed by ``params[r]`` and ``seeds[r]``."""
    return np.stack([FastGenerator(seeding.seed_sequence(PAPER, f"{experiment}/{stream}", dict(p), int(s))).state
                     for p, s in zip(params, seeds)])
