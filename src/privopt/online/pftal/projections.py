"""Euclidean projection onto the ball of radius ρ about the origin: Π(w) = w·min(1, ρ/‖w‖).

The decision set of every Smith & Thakurta task is such a ball (the unit disk of the Uber map, the
unit ball of the synthetic task; the bandit learner's shrunk set (1 − ξ)C).  Numba and numpy
versions do the same operations (norm summed in index order; no change when ‖w‖ ≤ ρ).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.online.pftal.losses import row_norms

__all__ = ["project_ball_inplace", "project_ball"]


@numba.njit(cache=True, inline="always")
def project_ball_inplace(w, p, radius):
    """w[:p] ← Π_{ρB}(w[:p])."""
    ss = 0.0
    for i in range(p):
        ss += w[i] * w[i]
    nrm = math.sqrt(ss)
    if nrm > radius:
        c = radius / nrm
        for i in range(p):
            w[i] = w[i] * c


def project_ball(w: np.ndarray, radius) -> np.ndarray:
    """Projection of each row of w (R, p) onto the ball of radius ``radius`` (scalar or (R,))."""
    nrm = row_norms(w)
    radius = np.broadcast_to(np.asarray(radius, dtype=np.float64), nrm.shape)
    scale = np.ones_like(nrm)
    over = nrm > radius
    scale[over] = radius[over] / nrm[over]
    out = w.copy()
    out[over] = w[over] * scale[over, None]
    return out
