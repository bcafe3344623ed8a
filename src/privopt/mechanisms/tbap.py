"""TBAP: the tree-based aggregation protocol of Smith & Thakurta (2013) — private prefix sums of vectors.

smith2013 reading R5.  TBAP is *the project's tree*
(:class:`privopt.mechanisms.tree.TreeAggregator`, ``construction="dyadic"``, the binary mechanism of
Dwork et al. / Chan et al.) with ℓ2-Laplace node noise (:mod:`privopt.mechanisms.laplace`); this
module only fixes the calibration and offers the numba step the PFTAL kernels call::

    K = ⌈log₂ T⌉ + 1 = tree_levels(T)        levels; item t lies in ≤ K noised nodes
    λ = c_sens · μ · K / ε                   node scale, for items with ‖z_t‖₂ ≤ μ
    v̂_t = Σ_{τ≤t} z_τ + Σ_{ℓ : bit ℓ of t set} η_ℓ    (popcount(t) independent node noises)

``c_sens = 2`` (default, smith2013 reading R3): neighbouring loss sequences *replace* one loss, so one item can
move by ‖z − z'‖ ≤ 2μ; ``c_sens = 1`` is the density printed by Rivera Cardoso & Cummings (Alg. 3),
which is 2ε-DP under replacement — kept only as the planted bug of the privacy audit.  ε = ∞ gives
λ = 0: exact prefix sums and no random draws (the non-private baseline).

Exact accuracy (tests, figure ST-0): E‖v̂_t − v_t‖² = popcount(t)·d(d+1)·λ².
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.mechanisms.laplace import l2_laplace_into, l2_laplace_node_sampler
from privopt.mechanisms.tree import TreeAggregator, dyadic_level, dyadic_noise_update, tree_depth, tree_levels

__all__ = ["C_SENS", "tbap_scale", "tbap", "tbap_add", "tbap_releases", "tbap_error_sq",
           "tbap_error_sq_theory"]

#: default sensitivity factor: replacement neighbours move one item by up to 2μ (smith2013 reading R3)
C_SENS = 2.0


def tbap_scale(mu: float, eps: float, T: int, c_sens: float = C_SENS) -> float:
    """Node scale λ = c_sens·μ·K/ε (0 for ε = ∞), K = ⌈log₂ T⌉ + 1 = tree_levels(T) (smith2013 reading R4): the number
    of noised nodes an item can lie in."""
    if not mu > 0:
        raise ValueError(f"the item bound mu must be > 0, got {mu!r}")
    if not eps > 0:
        raise ValueError(f"eps must be > 0 (math.inf for no privacy), got {eps!r}")
    if not c_sens > 0:
        raise ValueError(f"c_sens must be > 0, got {c_sens!r}")
    return 0.0 if math.isinf(eps) else c_sens * mu * tree_levels(T) / eps


def tbap(T: int, d: int, lam: float, rng) -> TreeAggregator:
    """The numpy reference: a dyadic :class:`TreeAggregator` over T items in R^d with ℓ2-Laplace(λ) nodes.

    With a :class:`privopt.fastrng.FastGenerator` it draws exactly what :func:`tbap_add` draws.
    """
    return TreeAggregator(T, (d,), l2_laplace_node_sampler(d, lam), rng, construction="dyadic")


@numba.njit(cache=True, inline="always")
def tbap_add(state, s, d, lam, item, xsum, eta, partial, gbuf):
    """Add item s (1-based): ``xsum += item``, draw the completed node's ℓ2-Laplace noise into
    ``eta[tz(s)]`` and update ``partial`` ((m+1, d), see :func:`dyadic_noise_update`).  The release is
    ``xsum[i] + partial[0, i]``, bit for bit :meth:`TreeAggregator.release` of :func:`tbap`."""
    for i in range(d):
        xsum[i] = xsum[i] + item[i]
    l2_laplace_into(state, d, lam, gbuf, eta[dyadic_level(s)])
    dyadic_noise_update(eta, partial, s)


@numba.njit(cache=True)
def _tbap_kernel(items, lam, states, releases, error_sq):
    """Independent TBAP runs over ``items`` (T, d), one per row of ``states``: the releases into
    ``releases`` (R, T, d) unless it has no rows, and Σ_r ‖v̂_t − v_t‖² into ``error_sq`` (T,)."""
    T, d = items.shape
    m = tree_depth(T)
    eta = np.zeros((m, d))
    partial = np.zeros((m + 1, d))
    xsum = np.zeros(d)
    gbuf = np.zeros(d)
    keep = releases.shape[0] > 0
    for r in range(states.shape[0]):
        eta[:, :] = 0.0
        partial[:, :] = 0.0
        for i in range(d):
            xsum[i] = 0.0
        state = states[r]
        for s in range(1, T + 1):
            tbap_add(state, s, d, lam, items[s - 1], xsum, eta, partial, gbuf)
            e = 0.0
            for i in range(d):
                e += partial[0, i] * partial[0, i]
                if keep:
                    releases[r, s - 1, i] = xsum[i] + partial[0, i]
            error_sq[s - 1] += e


def tbap_releases(items: np.ndarray, lam: float, states: np.ndarray) -> np.ndarray:
    """(R, T, d): the releases v̂_1..v̂_T of TBAP over the items (T, d), one independent run per row of
    ``states`` (FastGenerator states, advanced in place); the horizon is T."""
    items = np.ascontiguousarray(items, dtype=np.float64)
    out = np.zeros((states.shape[0], items.shape[0], items.shape[1]))
    _tbap_kernel(items, float(lam), states, out, np.zeros(items.shape[0]))
    return out


def tbap_error_sq(T: int, d: int, lam: float, states: np.ndarray) -> np.ndarray:
    """Σ over independent TBAP runs (one per row of ``states``, FastGenerator states, advanced in
    place) of ‖v̂_t − v_t‖², t = 1..T.  The error does not depend on the items, so they are zero."""
    out = np.zeros(int(T))
    _tbap_kernel(np.zeros((int(T), int(d))), float(lam), states, np.zeros((0, int(T), int(d))), out)
    return out


def tbap_error_sq_theory(t, d: int, lam: float) -> np.ndarray:
    """E‖v̂_t − v_t‖² = popcount(t)·d(d+1)·λ² (exact)."""
    t = np.asarray(t, dtype=np.int64)
    pop = np.array([bin(int(x)).count("1") for x in t.ravel()]).reshape(t.shape)
    return pop * d * (d + 1) * lam**2
