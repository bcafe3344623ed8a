"""The best fixed decision in hindsight, min_{w∈C} Σ_t f_t(w), for the regret of the online convex tasks.

docs/papers/smith2013.md, reading R11, and cardoso2019 reading R7:

* squared distance: Σ ½‖x_t − w‖² = (T/2)‖w − x̄‖² + const, so w* = Π_C(x̄) exactly;
* Euclidean distance: w* is the geometric median (in one dimension the median itself; else Weiszfeld from
  the coordinate-wise median,
  w ← Σ(x_t/d_t)/Σ(1/d_t) with d_t = max(‖x_t − w‖, 1e−12), until ‖Δw‖ < 1e−10 or 10⁴ iterations),
  polished by ``scipy.optimize.minimize``; the polish must improve the objective by less than 1e−9
  (relative), else :class:`ComparatorError`.  The median lies in the convex hull of the data, inside
  the ball, so the constrained and unconstrained problems coincide.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from privopt.online.pftal.losses import DISTANCE, SQUARED, loss_code
from privopt.online.pftal.projections import project_ball

__all__ = ["ComparatorError", "best_fixed_squared", "geometric_median", "best_fixed_distance", "best_fixed"]

WEISZFELD_TOL = 1e-10
WEISZFELD_MAX_ITER = 10_000
POLISH_RTOL = 1e-9


class ComparatorError(RuntimeError):
    """The comparator could not be computed to the required accuracy."""


def _distance_sum(w: np.ndarray, x: np.ndarray) -> float:
    return float(np.sqrt(((x - w) ** 2).sum(axis=1)).sum())


def best_fixed_squared(x: np.ndarray, radius: float = 1.0) -> tuple[np.ndarray, float]:
    """(w*, Σ_t ½‖x_t − w*‖²) with w* = Π_{ρB}(x̄) (exact)."""
    x = np.asarray(x, dtype=np.float64)
    w = project_ball(x.mean(axis=0)[None, :], radius)[0]
    return w, float(0.5 * ((x - w) ** 2).sum())


def geometric_median(x: np.ndarray) -> tuple[np.ndarray, float, dict]:
    """(w*, Σ_t ‖x_t − w*‖, diagnostics) by Weiszfeld plus a scipy polish (module docstring)."""
    x = np.asarray(x, dtype=np.float64)
    w = np.median(x, axis=0)
    if x.shape[1] == 1:  # on the line the median minimises Σ|x_t − w| exactly (Weiszfeld crawls there)
        return w, float(np.abs(x[:, 0] - w[0]).sum()), {"iterations": 0, "polish_improvement": 0.0}
    iters = 0
    for iters in range(1, WEISZFELD_MAX_ITER + 1):
        d = np.maximum(np.sqrt(((x - w) ** 2).sum(axis=1)), 1e-12)
        inv = 1.0 / d
        new = (x * inv[:, None]).sum(axis=0) / inv.sum()
        step = float(np.sqrt(((new - w) ** 2).sum()))
        w = new
        if step < WEISZFELD_TOL:
            break
    value = _distance_sum(w, x)

    def fun(v):
        diff = v - x
        dist = np.maximum(np.sqrt((diff**2).sum(axis=1)), 1e-300)
        return float(dist.sum()), (diff / dist[:, None]).sum(axis=0)

    res = optimize.minimize(fun, w, jac=True, method="BFGS", options={"gtol": 1e-12})
    polished = float(res.fun)
    improvement = (value - polished) / max(abs(value), 1e-300)
    if improvement > POLISH_RTOL:
        raise ComparatorError(f"Weiszfeld stopped {improvement:.3g} (relative) above the polished optimum "
                              f"after {iters} iterations")
    if polished < value:
        w, value = np.asarray(res.x, dtype=np.float64), polished
    return w, value, {"iterations": iters, "polish_improvement": max(improvement, 0.0)}


def best_fixed_distance(x: np.ndarray, radius: float = 1.0) -> tuple[np.ndarray, float]:
    """(w*, Σ_t ‖x_t − w*‖): the geometric median, which lies in the ball when the data do."""
    w, value, _ = geometric_median(x)
    if np.sqrt((w**2).sum()) > radius * (1 + 1e-12):
        raise ComparatorError(f"the geometric median {w} lies outside the ball of radius {radius}")
    return w, value


def best_fixed(loss: str, x: np.ndarray, radius: float = 1.0) -> tuple[np.ndarray, float]:
    """The best fixed decision and its cumulative loss for ``loss`` ("sc" or "gc") on the points x (T, p)."""
    code = loss_code(loss)
    if code == SQUARED:
        return best_fixed_squared(x, radius)
    assert code == DISTANCE
    return best_fixed_distance(x, radius)
