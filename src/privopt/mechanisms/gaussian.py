"""Symmetric Gaussian node noise (the Gaussian mechanism of the tree-based LinUCB).

shariff2018 reading R10 (node noise).

A symmetric Gaussian node of dimension D = d+1 with parameter σ is Z = (Z' + Z'ᵀ)/√2 with
Z' i.i.d. N(0, σ²), i.e. independent entries up to symmetry with

    Var Z_ij = σ² (i ≠ j),    Var Z_ii = 2σ².

Two implementations consume a generator in the *same canonical order* and therefore give
identical matrices for identical states: :func:`symmetric_gaussian` (plain numpy, any
Generator-like object, e.g. :class:`privopt.fastrng.FastGenerator`) and
:func:`sym_gaussian_packed_into` (numba, on a :class:`~privopt.fastrng.FastGenerator` state array,
writes the packed lower triangle into a preallocated buffer; used inside the bandit kernel).

Canonical order: ``D(D+1)/2`` standard normals (``D(D+1)/2 − 1`` with ``skip_corner``), filling
the lower triangle row by row — (0,0), (1,0), (1,1), (2,0), … — which is also the *packed index*
``p(i, j) = i(i+1)/2 + j`` (i ≥ j; :func:`unpack_symmetric` turns a packed triangle back into a
matrix).  With ``skip_corner`` the last entry (D−1, D−1) is neither drawn nor set (the bandit
learner never reads it; shariff2018 reading R1).  Diagonal draws are scaled by σ√2, off-diagonal draws by σ.

The per-node σ for the tree-based LinUCB (σ_noise = 4√m·L̃²·log(4/δ)/ε) lives in
:mod:`privopt.bandits.parameters`; the random variates in :mod:`privopt.fastrng`.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.fastrng import rng_load, rng_normal_t, rng_store

__all__ = [
    "packed_size",
    "symmetric_gaussian",
    "symmetric_gaussian_node_sampler",
    "sym_gaussian_packed_into",
    "unpack_symmetric",
]

SQRT2 = math.sqrt(2.0)


def packed_size(dim: int, skip_corner: bool = False) -> int:
    """Number of stored entries of a packed lower triangle: D(D+1)/2 (− 1 without the corner)."""
    return dim * (dim + 1) // 2 - (1 if skip_corner else 0)


def unpack_symmetric(packed: np.ndarray, dim: int) -> np.ndarray:
    """Full symmetric matrix from a packed lower triangle (missing corner → 0)."""
    out = np.zeros((dim, dim))
    rows, cols = np.tril_indices(dim)
    p = np.asarray(packed, dtype=np.float64)
    k = p.shape[-1]
    out[rows[:k], cols[:k]] = p
    out[cols[:k], rows[:k]] = p
    return out


def symmetric_gaussian(rng: np.random.Generator, dim: int, sigma: float, *, skip_corner: bool = False,
                       size: int | None = None) -> np.ndarray:
    """Symmetric Gaussian matrix (off-diagonal N(0, σ²), diagonal N(0, 2σ²)) — numpy reference.

    Draws in the canonical order of the module docstring; ``size`` stacks independent matrices
    (drawn one after the other).  With ``skip_corner`` the (D−1, D−1) entry is 0 and not drawn.
    """
    if dim < 1:
        raise ValueError("dim must be >= 1")
    if not sigma >= 0:
        raise ValueError("sigma must be >= 0")
    count = packed_size(dim, skip_corner)
    rows, cols = np.tril_indices(dim)
    rows, cols = rows[:count], cols[:count]
    scale = np.where(rows == cols, SQRT2 * sigma, sigma)
    reps = 1 if size is None else int(size)
    out = np.zeros((reps, dim, dim))
    for r in range(reps):
        z = rng.standard_normal(count) * scale
        out[r, rows, cols] = z
        out[r, cols, rows] = z
    return out[0] if size is None else out


def symmetric_gaussian_node_sampler(dim: int, sigma: float, *, skip_corner: bool = False):
    """Node-noise sampler ``f(rng) -> (dim, dim)`` for :class:`privopt.mechanisms.tree.TreeAggregator`."""

    def sample(rng: np.random.Generator) -> np.ndarray:
        return symmetric_gaussian(rng, dim, sigma, skip_corner=skip_corner)

    return sample


@numba.njit(cache=True, inline="always")
def sym_gaussian_packed_into(state, sigma, dim, skip_corner, out):
    """Numba twin of :func:`symmetric_gaussian` on a :class:`~privopt.fastrng.FastGenerator` state (same draws).

    Writes the packed lower triangle into ``out`` (length ≥ packed size); no allocation.
    """
    count = dim * (dim + 1) // 2 - (1 if skip_corner else 0)
    sd = sigma * 1.4142135623730951
    st = rng_load(state)
    p = 0
    for i in range(dim):
        for j in range(i + 1):
            if p < count:
                z, st = rng_normal_t(st)
                out[p] = z * (sd if i == j else sigma)
                p += 1
    rng_store(state, st)
