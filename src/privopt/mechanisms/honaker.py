"""Honaker's streaming estimator on the binary tree ("honaker" of :mod:`privopt.mechanisms.counting`).

Honaker 2015, "Efficient use of differentially private binary trees" (TPDP): every node of the tree is noised,
and a node's estimate combines its own noisy sum with the sum of its two children's estimates, weighted by
inverse variance.  Only the *bottom-up* half of Honaker's estimator can run under continual observation (the
top-down pass needs nodes that complete later), so this is the online variant: it uses, at item t, only
nodes completed by t.

Every complete node (ℓ, j), ℓ = 0 … L−1 (L = bit_length(T)), gets an independent seed noise η of
per-coordinate variance v.  With u_ℓ = Var(estimate error of a level-ℓ node) / v:

    u_0 = 1,    u_ℓ = 1 / (1 + 1/(2 u_{ℓ−1})) = 2^ℓ / (2^{ℓ+1} − 1)   (→ 1/2),
    ê_ℓ = u_ℓ · η_ℓ + (u_ℓ / (2 u_{ℓ−1})) · (ê_left + ê_right)   (the two weights sum to 1),

and the release is the dyadic decomposition with ê in place of η:

    N(t) = Σ_{ℓ ∈ bits(t)} ê_{ℓ, ⌊t/2^ℓ⌋−1},     Var N_i(t) = v · Σ_{ℓ ∈ bits(t)} 2^ℓ / (2^{ℓ+1} − 1).

The estimates of disjoint subtrees are independent, so the variances add.  Privacy: noising all complete nodes
puts each item into exactly one complete node per level, at most L of them — the same count as the dyadic tree
(:mod:`privopt.mechanisms.dyadic_counter`) — so the same node scale gives the same guarantee (pure ε with
ℓ2-Laplace nodes, (ε, δ) with Gaussian nodes); the combination is post-processing.

Streaming: at item t the nodes (ℓ, t/2^ℓ − 1), ℓ = 0 … tz(t), complete (1 + tz(t) draws, amortised 2, in
increasing ℓ); for ℓ ≥ 1 the node's children are the stored left node of level ℓ−1 and the node just estimated.
The top one is a left node (its index is even) and is stored; the release reuses
:func:`~privopt.mechanisms.tree.dyadic_noise_update`.  ``buf`` rows: ``est`` 0 … L−1, ``partial`` L … 2L,
``cur`` 2L+1, ``draw`` 2L+2.
"""

from __future__ import annotations

import numba
import numpy as np

from privopt.mechanisms.node_noise import draw_node_into
from privopt.mechanisms.tree import dyadic_noise_update, trailing_zeros

__all__ = ["honaker_u", "honaker_variance_factor", "honaker_state_rows", "honaker_step", "honaker_linear_maps"]


def honaker_u(L: int) -> np.ndarray:
    """u_ℓ = 2^ℓ/(2^{ℓ+1} − 1), ℓ = 0 … L−1 (variance of a level-ℓ estimate in units of one node's variance)."""
    lv = np.arange(int(L), dtype=np.float64)
    return 2.0**lv / (2.0 ** (lv + 1) - 1.0)


def honaker_variance_factor(T: int) -> np.ndarray:
    """Σ_{ℓ ∈ bits(t)} u_ℓ for t = 1..T: Var N_i(t) / v."""
    T = int(T)
    u = honaker_u(T.bit_length())
    return np.array([sum(u[lv] for lv in range(T.bit_length()) if (t >> lv) & 1) for t in range(1, T + 1)])


def honaker_state_rows(T: int) -> int:
    return 2 * int(T).bit_length() + 3


@numba.njit(cache=True, inline="always")
def honaker_step(t, law, scale, p, L, u, buf, rng_state, gbuf, out):
    """Move to the release after item t ≥ 1, write N(t) into ``out[:p]``.  ``u``: :func:`honaker_u` (length L)."""
    k = trailing_zeros(t)
    cur = buf[2 * L + 1]
    draw = buf[2 * L + 2]
    draw_node_into(law, rng_state, p, scale, gbuf, buf, 2 * L + 1)
    for lv in range(1, k + 1):
        draw_node_into(law, rng_state, p, scale, gbuf, buf, 2 * L + 2)
        a = u[lv]
        b = u[lv] / (2.0 * u[lv - 1])
        for i in range(p):
            cur[i] = a * draw[i] + b * (buf[lv - 1, i] + cur[i])
    for i in range(p):
        buf[k, i] = cur[i]
    dyadic_noise_update(buf[0:L], buf[L:2 * L + 1], t)
    for i in range(p):
        out[i] = buf[L, i]


def honaker_linear_maps(T: int) -> tuple[np.ndarray, np.ndarray]:
    """(B, C): N = B z with z the node noises in draw order (item t: levels 0 … tz(t)); C the node incidence."""
    T = int(T)
    L = T.bit_length()
    u = honaker_u(L)
    nodes = []
    for t in range(1, T + 1):
        k = (t & -t).bit_length() - 1
        nodes += [(lv, (t >> lv) - 1) for lv in range(k + 1)]
    K = len(nodes)
    col = {nd: i for i, nd in enumerate(nodes)}
    est: dict[tuple[int, int], np.ndarray] = {}
    for lv, j in nodes:  # draw order is bottom-up within a subtree, so children come first
        e = np.zeros(K)
        if lv == 0:
            e[col[(0, j)]] = 1.0
        else:
            e[col[(lv, j)]] = u[lv]
            e += u[lv] / (2.0 * u[lv - 1]) * (est[(lv - 1, 2 * j)] + est[(lv - 1, 2 * j + 1)])
        est[(lv, j)] = e
    B = np.zeros((T, K))
    for t in range(1, T + 1):
        for lv in range(L):
            if (t >> lv) & 1:
                B[t - 1] += est[(lv, (t >> lv) - 1)]
    C = np.zeros((K, T))
    for i, (lv, j) in enumerate(nodes):
        C[i, j << lv: (j + 1) << lv] = 1.0
    return B, C
