"""Dot products summed in one fixed order, so that the offline benchmarks (:mod:`privopt.online.osm.offline`)
and the weighted regret sums of Perez-Salazar & Cummings' rows are the same bits on every CPU, whatever BLAS kernel
numpy's OpenBLAS picks.

Hand-written rather than ``x @ y``: OpenBLAS chooses its kernels by the CPU at load time, and its kernel families sum
a dot product in different orders (under Prescott's kernels the offline greedy value G and REG_G = G − ALG of the
Figure 7 reference job moved by up to 4 units in the last place against Haswell's; measured here).  The order is the
one OpenBLAS's Haswell ``ddot`` uses for a strided vector — the case of every greedy value of the committed
references, whose count vectors are columns of a seeds × horizons matrix — so their rows stay bit for bit what they
were, now on every CPU:

* terms taken four at a time: ``t1 += x0·y0 + x2·y2`` and ``t2 += x1·y1 + x3·y3`` (each product rounded, the pair
  summed, then added);
* the remaining ``n mod 4`` terms added to ``t1`` one at a time;
* the result ``t1 + t2``.

:func:`running_dot` sums term after term instead, the order OpenBLAS's Haswell kernels take for a row of fewer than
16 values (the weighted regret sums Σ_i (1 − 1/k)^{k−i} r_i of the references, k ≤ 8).

No fused multiply-add and no reordering: numba compiles these loops without fastmath, so LLVM keeps every rounding.

>>> import numpy as np
>>> x = np.arange(1.0, 40.0)
>>> dot(x, x) == float(np.sum(x * x))  # integers: every order is exact
True
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["dot", "dots", "running_dot"]


@numba.njit(cache=True)
def _dot(x, y):
    n = x.shape[0]
    n4 = n - n % 4
    t1 = 0.0
    t2 = 0.0
    for i in range(0, n4, 4):
        m1 = y[i] * x[i]
        m2 = y[i + 1] * x[i + 1]
        m3 = y[i + 2] * x[i + 2]
        m4 = y[i + 3] * x[i + 3]
        t1 += m1 + m3
        t2 += m2 + m4
    for i in range(n4, n):
        t1 += y[i] * x[i]
    return t1 + t2


@numba.njit(cache=True)
def _dots(v, rows, out):
    for a in range(rows.shape[0]):
        out[a] = _dot(v, rows[a])


def dot(x, y) -> float:
    """Σ_i x[i]·y[i] of two float vectors of one length, in the fixed order of the module docstring."""
    x = np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
    y = np.ascontiguousarray(y, dtype=np.float64).reshape(-1)
    if x.shape != y.shape:
        raise ValueError(f"dot of vectors of lengths {x.size} and {y.size}")
    return float(_dot(x, y))


def dots(v, rows) -> np.ndarray:
    """``rows @ v`` (``rows`` of shape N × M, v of length M): each of the N values the :func:`dot` of a row with
    ``v`` (pass ``P.T`` made contiguous once to get ``v @ P`` column by column)."""
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    v = np.ascontiguousarray(v, dtype=np.float64).reshape(-1)
    if rows.ndim != 2 or rows.shape[1] != v.size:
        raise ValueError(f"dots of a vector of length {v.size} with rows of shape {rows.shape}")
    out = np.empty(rows.shape[0])
    _dots(v, rows, out)
    return out


def running_dot(x, y) -> float:
    """Σ_i x[i]·y[i] summed term after term from i = 0 (each product rounded, then the sum), in Python floats."""
    total = 0.0
    xs = np.asarray(x, dtype=np.float64).reshape(-1).tolist()
    for a, b in zip(xs, np.asarray(y, dtype=np.float64).reshape(-1).tolist(), strict=True):
        total += a * b
    return total
