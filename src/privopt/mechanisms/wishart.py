"""Wishart noise by the Bartlett decomposition (shariff2018 reading R7).

W ~ W_D(Σ, k) (D×D, k ≥ D degrees of freedom) is the Gram matrix Σ_{i≤k} g_i g_iᵀ of k i.i.d.
g_i ~ N(0, Σ).  Bartlett: with A lower-triangular,

    A_ii = sqrt(χ²_{k−i})  (i = 0..D−1, 0-based),   A_ij ~ N(0, 1)  (i > j),   all independent,

W = L A Aᵀ Lᵀ where Σ = L Lᵀ (for Σ = s·I simply s·A Aᵀ).  Exact and O(D²) random variates
instead of O(k·D) — essential at k ≈ 1.4·10^5.  Moments (used by the tests):

    E W = k Σ,     Var W_ij = k (Σ_ij² + Σ_ii Σ_jj)      (Σ = s I: Var W_ii = 2k s², Var W_ij = k s²).

Canonical draw order (shared by the numpy and numba implementations, so equal generator states
give equal matrices): first the D chi-squares χ²_{k}, χ²_{k−1}, …, χ²_{k−D+1} (``rng.chisquare``;
on a :class:`privopt.fastrng.FastGenerator` this is 2·Gamma(df/2), exactly what the numba
twin draws), then the D(D−1)/2 normals of the strictly lower triangle row by row — (1,0), (2,0),
(2,1), (3,0), ….  The numpy version accepts any Generator-like object (a numpy ``Generator`` gives
the same law from a different stream).
With ``skip_corner`` the last diagonal factor A_{D−1,D−1} is not drawn (it only enters W_{D−1,D−1},
which the bandit learner never reads; the joint law of all other entries is unchanged).
"""

from __future__ import annotations

import numba
import numpy as np

from privopt.fastrng import rng_gamma_t, rng_load, rng_normal_t, rng_store

__all__ = [
    "bartlett_factor",
    "wishart_bartlett",
    "wishart_node_sampler",
    "wishart_mean",
    "wishart_variance",
    "bartlett_packed_into",
]


def _check(df, dim):
    if dim < 1:
        raise ValueError("dim must be >= 1")
    if not df > dim - 1:
        raise ValueError(f"degrees of freedom must exceed dim − 1 (got df={df}, dim={dim})")


def bartlett_factor(rng: np.random.Generator, df: float, dim: int, *, skip_corner: bool = False) -> np.ndarray:
    """Lower-triangular Bartlett factor A (W_D(I, df) = A Aᵀ), drawn in the canonical order."""
    _check(df, dim)
    a = np.zeros((dim, dim))
    ndiag = dim - 1 if skip_corner else dim
    for i in range(ndiag):
        a[i, i] = np.sqrt(rng.chisquare(df - i))
    rows, cols = np.tril_indices(dim, -1)
    a[rows, cols] = rng.standard_normal(rows.size)
    return a


def wishart_bartlett(rng: np.random.Generator, df: float, dim: int, scale=1.0, *, size: int | None = None,
                     skip_corner: bool = False) -> np.ndarray:
    """Sample W_D(Σ, df) by Bartlett (numpy reference).

    ``scale`` is a scalar s (Σ = s·I) or a D×D positive-definite Σ.  ``size`` stacks independent
    draws.  ``skip_corner`` (scalar scale only) leaves W_{D−1,D−1} incomplete (see module doc).
    """
    _check(df, dim)
    full = np.ndim(scale) == 2
    if full:
        sigma = np.asarray(scale, dtype=np.float64)
        if sigma.shape != (dim, dim):
            raise ValueError(f"scale must be {dim}x{dim}")
        chol = np.linalg.cholesky(sigma)
        if skip_corner:
            raise ValueError("skip_corner needs a scalar scale")
    reps = 1 if size is None else int(size)
    out = np.empty((reps, dim, dim))
    for r in range(reps):
        a = bartlett_factor(rng, df, dim, skip_corner=skip_corner)
        if full:
            la = chol @ a
            out[r] = la @ la.T
        else:
            out[r] = float(scale) * (a @ a.T)
    return out[0] if size is None else out


def wishart_node_sampler(dim: int, df: float, scale=1.0, *, skip_corner: bool = False):
    """Node-noise sampler ``f(rng) -> W_D(scale, df)`` for :class:`privopt.mechanisms.tree.TreeAggregator`."""
    _check(df, dim)

    def sample(rng: np.random.Generator) -> np.ndarray:
        return wishart_bartlett(rng, df, dim, scale, skip_corner=skip_corner)

    return sample


def wishart_mean(df: float, scale) -> np.ndarray:
    """E W = df·Σ."""
    return df * np.asarray(scale, dtype=np.float64)


def wishart_variance(df: float, scale) -> np.ndarray:
    """Entrywise Var W_ij = df·(Σ_ij² + Σ_ii·Σ_jj)."""
    s = np.asarray(scale, dtype=np.float64)
    diag = np.diag(s)
    return df * (s**2 + np.outer(diag, diag))


@numba.njit(cache=True, inline="always")
def bartlett_packed_into(state, df, dim, scale, skip_corner, a, out):
    """Numba twin of :func:`wishart_bartlett` for Σ = scale·I on a
    :class:`privopt.fastrng.FastGenerator` state (same draws, same order).

    ``a`` is a (dim, dim) work buffer (overwritten with the Bartlett factor); ``out`` receives
    the packed lower triangle of scale·A Aᵀ (packed index i(i+1)/2 + j; the corner
    (dim−1, dim−1) is not written when ``skip_corner``).  No allocation.
    """
    ndiag = dim - 1 if skip_corner else dim
    # (only the lower triangle of ``a`` is written and read; the corner is never read if skipped)
    st = rng_load(state)
    for i in range(ndiag):
        gam, st = rng_gamma_t(st, 0.5 * (df - i))
        a[i, i] = np.sqrt(2.0 * gam)  # sqrt(χ²_{df−i})
    for i in range(1, dim):
        for j in range(i):
            z, st = rng_normal_t(st)
            a[i, j] = z
    rng_store(state, st)
    p = 0
    for i in range(dim):
        for j in range(i):
            s = 0.0
            for l in range(j + 1):
                s += a[i, l] * a[j, l]
            out[p] = scale * s
            p += 1
        if i < ndiag:  # diagonal entry (i, i)
            s = 0.0
            for l in range(i + 1):
                s += a[i, l] * a[i, l]
            out[p] = scale * s
            p += 1
