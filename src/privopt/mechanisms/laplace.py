"""ℓ2-Laplace ("Gamma-norm") noise: density p(b) ∝ exp(−‖b‖₂/λ) on R^d.

docs/papers/smith2013.md, reading R2 (Smith & Thakurta 2013 §2.1; Rivera Cardoso &
Cummings 2018, Lemma 9 with shape and scale put right).  This is the node noise of the
tree-based aggregation protocol (TBAP) for pure ε-DP: it is *not* coordinate-wise Laplace and
not Gaussian.  Sampling::

    r ~ Gamma(shape = d, scale = λ)          (‖b‖ has the Gamma(d, λ) law)
    u = g / ‖g‖,  g ~ N(0, I_d)              (uniform direction on S^{d−1})
    b = r·u

Moments: E‖b‖ = dλ, sd‖b‖ = √d·λ, E‖b‖² = d(d+1)λ², E b = 0, Cov b = (d+1)λ²·I.
Privacy: for inputs s, s' with ‖s − s'‖₂ ≤ Δ, releasing s + b with λ = Δ/ε is ε-DP, since the
log density ratio at any output y is (‖y − s'‖ − ‖y − s‖)/λ ≤ ‖s − s'‖/λ (triangle inequality);
:func:`l2_laplace_privacy_loss` computes it exactly.

Canonical draw order (shared by the numpy and numba implementations, so equal
:class:`privopt.fastrng.FastGenerator` states give equal vectors): one ``standard_gamma(d)``, then
d standard normals; b_i = (λ·G)·(g_i/‖g‖) with ‖g‖ summed in index order.  ``size`` stacks
independent vectors, drawn one after the other.  λ = 0 means *no noise and no draw* (the
non-private baseline ε = ∞ consumes no random numbers).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.fastrng import rng_gamma_t, rng_load, rng_normal_t, rng_store

__all__ = [
    "l2_laplace_scale",
    "l2_laplace",
    "l2_laplace_rows",
    "l2_laplace_node_sampler",
    "l2_laplace_into",
    "uniform_direction_into",
    "l2_laplace_logpdf",
    "l2_laplace_privacy_loss",
    "l2_laplace_moments",
]


def l2_laplace_scale(sensitivity: float, eps: float) -> float:
    """λ = Δ/ε, the scale that makes one release of a Δ-sensitive vector ε-DP (0 for ε = ∞)."""
    if not sensitivity >= 0:
        raise ValueError(f"sensitivity must be >= 0, got {sensitivity!r}")
    if not eps > 0:
        raise ValueError(f"eps must be > 0 (math.inf for no privacy), got {eps!r}")
    return 0.0 if math.isinf(eps) else float(sensitivity) / float(eps)


def _norm(v) -> float:
    s = 0.0
    for x in v:
        s += float(x) * float(x)
    return math.sqrt(s)


def l2_laplace(rng, d: int, lam: float, *, size: int | None = None) -> np.ndarray:
    """ℓ2-Laplace vector(s) in R^d with scale λ (numpy reference, canonical order of the module doc).

    ``rng``: a numpy ``Generator`` or a :class:`~privopt.fastrng.FastGenerator` (the latter gives
    exactly the numbers of :func:`l2_laplace_into`).  Shape (d,) or (size, d).
    """
    if d < 1:
        raise ValueError("d must be >= 1")
    if not lam >= 0:
        raise ValueError(f"lam must be >= 0, got {lam!r}")
    reps = 1 if size is None else int(size)
    out = np.zeros((reps, d))
    if lam > 0:
        for r in range(reps):
            radius = lam * float(rng.standard_gamma(float(d)))
            g = np.asarray(rng.standard_normal(d), dtype=np.float64)
            out[r] = radius * (g / _norm(g))
    return out[0] if size is None else out


def l2_laplace_rows(rng: np.random.Generator, d: int, lam) -> np.ndarray:
    """One ℓ2-Laplace vector per entry of ``lam`` (R,), vectorised: (R, d) rows of scales ``lam[r]``.

    The same law as :func:`l2_laplace`, drawn in bulk (R gammas, then R·d normals), so *not* the
    canonical per-vector stream; rows with λ = 0 are zero.
    """
    lam = np.asarray(lam, dtype=np.float64)
    radius = lam * rng.standard_gamma(float(d), size=lam.shape[0])
    g = rng.standard_normal((lam.shape[0], d))
    return radius[:, None] * (g / np.linalg.norm(g, axis=1)[:, None])


def l2_laplace_node_sampler(d: int, lam: float):
    """Node-noise sampler ``f(rng) -> (d,)`` for :class:`privopt.mechanisms.tree.TreeAggregator`."""

    def sample(rng) -> np.ndarray:
        return l2_laplace(rng, d, lam)

    return sample


@numba.njit(cache=True)
def uniform_direction_into(state, d, out):
    """u uniform on S^{d−1} into ``out[:d]``: d standard normals g (FastGenerator state), u = g/‖g‖ (‖g‖ summed in
    index order).  The direction part of :func:`l2_laplace_into`, and the exploration of bandit PFTAL."""
    st = rng_load(state)
    ss = 0.0
    for i in range(d):
        z, st = rng_normal_t(st)
        out[i] = z
        ss += z * z
    rng_store(state, st)
    nrm = math.sqrt(ss)
    for i in range(d):
        out[i] = out[i] / nrm


@numba.njit(cache=True)
def l2_laplace_into(state, d, lam, gbuf, out):
    """Numba twin of :func:`l2_laplace` on a FastGenerator state (same draws): writes b into ``out[:d]``.

    ``gbuf``: scratch of length ≥ d.  λ = 0 writes zeros and draws nothing.
    """
    if lam == 0.0:
        for i in range(d):
            out[i] = 0.0
        return
    st = rng_load(state)
    gam, st = rng_gamma_t(st, float(d))
    radius = lam * gam
    ss = 0.0
    for i in range(d):  # the direction, as uniform_direction_into (written out: one call per draw)
        z, st = rng_normal_t(st)
        gbuf[i] = z
        ss += z * z
    rng_store(state, st)
    nrm = math.sqrt(ss)
    for i in range(d):
        out[i] = radius * (gbuf[i] / nrm)


def l2_laplace_logpdf(b, lam: float) -> np.ndarray:
    """log p(b) = −‖b‖/λ − log Z_d(λ), Z_d(λ) = 2π^{d/2} Γ(d) λ^d / Γ(d/2); b of shape (..., d)."""
    b = np.asarray(b, dtype=np.float64)
    d = b.shape[-1]
    log_z = math.log(2.0) + 0.5 * d * math.log(math.pi) + math.lgamma(d) + d * math.log(lam) - math.lgamma(0.5 * d)
    return -np.linalg.norm(b, axis=-1) / lam - log_z


def l2_laplace_privacy_loss(y, s, s_prime, lam: float) -> np.ndarray:
    """log p_s(y)/p_{s'}(y) = (‖y − s'‖ − ‖y − s‖)/λ for releases y = s + b (exact; arrays (..., d))."""
    y = np.asarray(y, dtype=np.float64)
    return (np.linalg.norm(y - np.asarray(s_prime), axis=-1) - np.linalg.norm(y - np.asarray(s), axis=-1)) / lam


def l2_laplace_moments(d: int, lam: float) -> dict[str, float]:
    """Exact moments: E‖b‖ = dλ, Var‖b‖ = dλ², E‖b‖² = d(d+1)λ², E‖b‖⁴ = d(d+1)(d+2)(d+3)λ⁴."""
    return {"mean_norm": d * lam, "var_norm": d * lam**2, "mean_sq": d * (d + 1) * lam**2,
            "mean_fourth": d * (d + 1) * (d + 2) * (d + 3) * lam**4}
