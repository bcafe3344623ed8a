"""The dyadic binary mechanism as a continual counter ("tree" of :mod:`privopt.mechanisms.counting`).

Chan, Shi & Song 2011 / Dwork, Naor, Pitassi & Rothblum 2010; the "dyadic" construction of
:class:`privopt.mechanisms.tree.TreeAggregator` (what TBAP/PFTAL run), streamed with the same node order and
the same additions, so that for equal node noises the two give bit-identical N(t).

Node (ℓ, j) covers items j·2^ℓ + 1 … (j+1)·2^ℓ; at item t the node (tz(t), t/2^tz(t) − 1) completes and gets
one seed noise; N(t) = Σ_{ℓ ∈ bits(t)} η_{ℓ, ⌊t/2^ℓ⌋−1}, hence

    Var N_i(t) = popcount(t) · v      (v: per-coordinate variance of one node noise).

Item s lies in the noised nodes (ℓ, ⌊(s−1)/2^ℓ⌋) with even index and (j+1)·2^ℓ ≤ T: at most L = bit_length(T)
of them (exactly L for s = 1), so the released stream is a post-processing of L node releases per item:
ℓ1-over-nodes sensitivity L·Δ (pure ε with ℓ2-Laplace nodes) and ℓ2 sensitivity √L·Δ (Gaussian nodes).
L equals :func:`privopt.mechanisms.tree.tree_levels` for T a power of two and is one less otherwise.

State (``buf`` rows): ``eta`` rows 0 … L−1, ``partial`` rows L … 2L (:func:`~privopt.mechanisms.tree.dyadic_noise_update`).
"""

from __future__ import annotations

import numba
import numpy as np

from privopt.mechanisms.node_noise import draw_node_into
from privopt.mechanisms.tree import dyadic_level, dyadic_noise_update

__all__ = ["tree_node_count", "tree_variance_factor", "tree_state_rows", "tree_step", "tree_linear_maps"]


def tree_node_count(T: int) -> int:
    """L = bit_length(T): the most noised nodes holding one item (the levels ℓ with 2^ℓ ≤ T)."""
    return int(T).bit_length()


def tree_variance_factor(T: int) -> np.ndarray:
    """popcount(t) for t = 1..T: Var N_i(t) / v."""
    t = np.arange(1, int(T) + 1)
    return np.array([bin(int(x)).count("1") for x in t], dtype=np.float64)


def tree_state_rows(T: int) -> int:
    L = tree_node_count(T)
    return 2 * L + 1


@numba.njit(cache=True, inline="always")
def tree_step(t, law, scale, p, L, buf, rng_state, gbuf, out):
    """Move to the release after item t ≥ 1 and write N(t) into ``out[:p]`` (one node draw, amortised 2 row copies)."""
    lv = dyadic_level(t)
    draw_node_into(law, rng_state, p, scale, gbuf, buf, lv)
    eta = buf[0:L]
    partial = buf[L:2 * L + 1]
    dyadic_noise_update(eta, partial, t)
    for i in range(p):
        out[i] = partial[0, i]


def tree_linear_maps(T: int) -> tuple[np.ndarray, np.ndarray]:
    """(B, C) with N = B z (z: node noises in draw order, one per item) and C the node incidence (K × T), B C = A."""
    T = int(T)
    nodes = []
    for t in range(1, T + 1):
        lv = (t & -t).bit_length() - 1
        nodes.append((lv, (t >> lv) - 1))
    col = {nd: k for k, nd in enumerate(nodes)}
    B = np.zeros((T, len(nodes)))
    for t in range(1, T + 1):
        for lv in range(T.bit_length()):
            if (t >> lv) & 1:
                B[t - 1, col[(lv, (t >> lv) - 1)]] = 1.0
    C = np.zeros((len(nodes), T))
    for k, (lv, j) in enumerate(nodes):
        C[k, j << lv: (j + 1) << lv] = 1.0
    return B, C
