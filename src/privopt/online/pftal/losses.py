"""Losses of the online convex tasks of Smith & Thakurta's figures (smith2013 reading R12).

Two losses of a decision w ∈ C ⊂ R^p against the round's point x_t (one rider's pickup, or a
synthetic point), both with data and decisions in the ball of radius ρ about the origin:

* ``sc`` — squared distance f_t(w) = ½‖w − x_t‖²: H = 1 strongly convex, ∇f = w − x_t, gradient
  bound L = 2ρ (‖w − x‖ ≤ 2ρ on the ball);
* ``gc`` — Euclidean distance f_t(w) = ‖w − x_t‖ (online Fermat–Weber): convex, not strongly
  convex, L = 1; the subgradient at w = x_t is 0.

:func:`loss_grad_into` (numba) and :func:`loss_value_grad` (numpy, vectorised over replicas) do the
same floating-point operations in the same order (sums over coordinates in index order), so the
kernels and their numpy references agree bit for bit.
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["LOSSES", "SQUARED", "DISTANCE", "loss_code", "loss_constants", "loss_grad_into", "loss_value_grad",
           "row_norms"]

SQUARED = 0
DISTANCE = 1
#: loss names → kernel codes
LOSSES = {"sc": SQUARED, "gc": DISTANCE}


def loss_code(name: str) -> int:
    try:
        return LOSSES[name]
    except KeyError:
        raise ValueError(f"unknown loss {name!r}; use one of {sorted(LOSSES)}") from None


def loss_constants(name: str, radius: float = 1.0) -> dict[str, float]:
    """Gradient bound L and strong convexity H of the loss on the ball of radius ρ (data in the same ball)."""
    code = loss_code(name)
    if code == SQUARED:
        return {"L": 2.0 * radius, "H": 1.0}
    return {"L": 1.0, "H": 0.0}


@numba.njit(cache=True, inline="always")
def loss_grad_into(kind, w, pts, j, p, g):
    """f(w) for the round's point x = ``pts[j]``, and a (sub)gradient written into ``g[:p]``."""
    ss = 0.0
    for i in range(p):
        g[i] = w[i] - pts[j, i]
        ss += g[i] * g[i]
    if kind == 0:
        return 0.5 * ss
    nrm = math.sqrt(ss)
    if nrm > 0.0:
        for i in range(p):
            g[i] = g[i] / nrm
    else:
        for i in range(p):
            g[i] = 0.0
    return nrm


def row_norms(a: np.ndarray) -> np.ndarray:
    """Euclidean norms of the rows of a (R, p) array, summing coordinates in index order."""
    ss = np.zeros(a.shape[0])
    for i in range(a.shape[1]):
        ss = ss + a[:, i] * a[:, i]
    return np.sqrt(ss)


def loss_value_grad(kind: int, w: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values (R,) and (sub)gradients (R, p) for decisions w (R, p) against points x (R, p)."""
    g = w - x
    ss = np.zeros(w.shape[0])
    for i in range(w.shape[1]):
        ss = ss + g[:, i] * g[:, i]
    if kind == SQUARED:
        return 0.5 * ss, g
    nrm = np.sqrt(ss)
    grad = np.zeros_like(g)
    np.divide(g, nrm[:, None], out=grad, where=nrm[:, None] > 0.0)
    return nrm, grad
