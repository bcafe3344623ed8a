"""Seed noises of the continual counters (:mod:`privopt.mechanisms.counting`): one draw of a node/seed noise in R^p.

Two laws, chosen by an integer code so that a numba kernel can dispatch without objects:

``GAUSSIAN`` (0)
    z ~ N(0, σ² I_p): p standard normals (``rng_normal_t``, index order) times σ.  Per-coordinate variance σ².
``LAPLACE`` (1)
    the ℓ2-Laplace vector of :mod:`privopt.mechanisms.laplace` (density ∝ exp(−‖z‖/λ)), drawn as
    :func:`~privopt.mechanisms.laplace.l2_laplace_into` draws it (written out here), in its canonical order (one Gamma(p), then p normals), so
    a stream equals the numpy reference :func:`~privopt.mechanisms.laplace.l2_laplace` run on a
    :class:`~privopt.fastrng.FastGenerator` with the same state.  Per-coordinate variance (p + 1)·λ².

A scale of 0 (ε = ∞) gives zeros but still draws; :func:`privopt.mechanisms.counting.prefix_noise` then
draws nothing at all (as :mod:`privopt.mechanisms.laplace` does for λ = 0).
"""

from __future__ import annotations

import math

import numba

from privopt.fastrng import rng_gamma_t, rng_load, rng_normal_t, rng_store

__all__ = ["GAUSSIAN", "LAPLACE", "NOISE_CODES", "draw_node_into", "coordinate_variance"]

GAUSSIAN = 0
LAPLACE = 1
NOISE_CODES = {"gaussian": GAUSSIAN, "laplace": LAPLACE}


@numba.njit(cache=True)
def _draw_laplace_row(state, p, scale, gbuf, out, row):
    """The ℓ2-Laplace seed into ``out[row, :p]``: l2_laplace_into written out (one Gamma(p), then p normals).
    A called function, not inlined: a Gamma draw costs more than the call, and inlining it into every draw site
    of every counter made the kernels' compilation take minutes."""
    st = rng_load(state)
    gam, st = rng_gamma_t(st, float(p))
    radius = scale * gam
    ss = 0.0
    for i in range(p):
        z, st = rng_normal_t(st)
        gbuf[i] = z
        ss += z * z
    nrm = math.sqrt(ss)
    for i in range(p):
        out[row, i] = radius * (gbuf[i] / nrm)
    rng_store(state, st)


@numba.njit(cache=True, inline="always")
def draw_node_into(law, state, p, scale, gbuf, out, row):
    """One seed noise of law ``law`` (GAUSSIAN/LAPLACE) and scale σ or λ into ``out[row, :p]`` (FastGenerator
    ``state`` advanced in place; ``gbuf``: scratch of length ≥ p).  A row index, not a view: views made in a
    kernel's loop cost reference counting.  Scale 0 gives zeros but still draws (an early ``return`` for it here made
    every step of the inlined kernels ~35 ns slower): callers skip it for ε = ∞.  The Gaussian draw is inlined
    (p normals: a call would cost more than the draw at small p), the ℓ2-Laplace one is a call."""
    if law == LAPLACE:
        _draw_laplace_row(state, p, scale, gbuf, out, row)
    else:
        st = rng_load(state)
        for i in range(p):
            z, st = rng_normal_t(st)
            out[row, i] = scale * z
        rng_store(state, st)


def coordinate_variance(noise: str, p: int, scale: float) -> float:
    """Variance of one coordinate of one seed noise: σ² (Gaussian) or (p + 1)·λ² (ℓ2-Laplace in R^p)."""
    if noise == "gaussian":
        return float(scale) ** 2
    if noise == "laplace":
        return (int(p) + 1) * float(scale) ** 2
    raise ValueError(f"noise must be 'gaussian' or 'laplace', got {noise!r}")
