"""The smooth binary mechanism ("smooth" of :mod:`privopt.mechanisms.counting`).

Andersson & Pagh, "A smooth binary mechanism for efficient private continual observation" (NeurIPS 2023): run
the binary tree on a slightly higher tree of height h, but put the items only on the leaves whose h-bit index
has exactly k ones.  Every prefix then needs the same number of nodes, so every release has the *same*
variance, and balancing k ≈ h/2 gives Var ≈ (1 + o(1))·log²T/(8ρ) under ρ-zCDP against the binary
mechanism's ≈ log²T/(2ρ)·(popcount/log T).

The variant implemented here (our exact bookkeeping of their idea): L_1 < L_2 < … are the h-bit integers with
exactly k ones in increasing order (Gosper's hack steps from one to the next); item t sits on leaf L_t; the
release after item t is the dyadic prefix of the *integer* L_{t+1}, i.e. the sum of the leaves < L_{t+1},
which holds exactly the items 1 … t (other leaves are empty):

    N(t) = Σ_{q ∈ bits(L_{t+1})} η_{q, ⌊L_{t+1}/2^q⌋ − 1},   exactly k node noises:  Var N_i(t) = k·σ²  (every t).

A node (q, j) is used only when its index j is even (a left child); leaf a lies in such a node at level q iff
bit q of a is 0, so an item lies in at most h − k noised nodes: ℓ2 sensitivity √(h − k)·Δ (Gaussian nodes).
Under pure ε with ℓ2-Laplace nodes the same count h − k is the ℓ1-over-nodes cost (λ = (h − k)·Δ/ε): the
mechanism is tree-structured (a 0/1 factorisation whose columns hold h − k ones), so it is valid there too.
(h, k) is the pair with C(h, k) ≥ T + 1 (T + 1 leaves) that minimises the variance at unit privacy —
k·(h − k) for Gaussian nodes (σ² ∝ h − k), k·(h − k)² for ℓ2-Laplace nodes (λ² ∝ (h − k)²) — ties to the
smaller h (docs/continual-counting.md §2.4).

Streaming: from L_t to L_{t+1} the nodes of the set bits above the highest changed bit are unchanged; the set
bits at or below it are new nodes and get fresh draws (increasing q; at t = 1 all k bits are drawn).  Worst case
h draws, amortised O(1).  ``ibuf[0]`` holds the current leaf; ``buf`` rows: ``eta`` 0 … h−1, ``partial`` h … 2h.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.mechanisms.node_noise import draw_node_into

__all__ = ["smooth_shape", "smooth_leaves", "smooth_state_rows", "smooth_step", "next_same_weight",
           "smooth_linear_maps"]

_MAX_HEIGHT = 62


def smooth_shape(T: int, noise: str = "gaussian") -> tuple[int, int]:
    """(h, k): C(h, k) ≥ T + 1, minimising k·(h − k) ("gaussian") or k·(h − k)² ("laplace"), then h."""
    T = int(T)
    power = {"gaussian": 1, "laplace": 2}.get(noise)
    if power is None:
        raise ValueError(f"noise must be 'gaussian' or 'laplace', got {noise!r}")
    if T < 1:
        raise ValueError(f"T must be >= 1, got {T}")
    best = None
    for h in range(1, _MAX_HEIGHT + 1):
        for k in range(1, h):
            if math.comb(h, k) >= T + 1:
                key = (k * (h - k) ** power, h, k)
                if best is None or key < best:
                    best = key
    if best is None:
        raise ValueError(f"T = {T} too large for a {_MAX_HEIGHT}-bit smooth tree")
    return best[1], best[2]


@numba.njit(cache=True, inline="always")
def next_same_weight(x):
    """The next larger integer with the same number of one bits (Gosper's hack; x ≥ 1)."""
    c = x & -x
    r = x + c
    return (((r ^ x) >> 2) // c) | r


def smooth_leaves(T: int, k: int) -> np.ndarray:
    """L_1 … L_{T+1} (int64): the first T + 1 integers with exactly k one bits."""
    out = np.empty(int(T) + 1, dtype=np.int64)
    x = (1 << k) - 1
    for i in range(int(T) + 1):
        out[i] = x
        x = int(next_same_weight(np.int64(x)))
    return out


def smooth_state_rows(h: int) -> int:
    return 2 * int(h) + 1


@numba.njit(cache=True, inline="always")
def smooth_step(t, law, scale, p, h, ibuf, buf, rng_state, gbuf, out):
    """Move to the release after item t ≥ 1, write N(t) into ``out[:p]``.  ``ibuf[0]``: the current leaf
    (L_t; (1 << k) − 1 before item 1)."""
    prev = ibuf[0]
    cur = next_same_weight(prev)
    ibuf[0] = cur
    if t == 1:
        top = h - 1
    else:
        d = prev ^ cur
        top = -1
        while d:
            d >>= 1
            top += 1
    for q in range(top + 1):
        if (cur >> q) & 1:
            draw_node_into(law, rng_state, p, scale, gbuf, buf, q)
    for q in range(top, -1, -1):
        if (cur >> q) & 1:
            for i in range(p):
                buf[h + q, i] = buf[h + q + 1, i] + buf[q, i]
        else:
            for i in range(p):
                buf[h + q, i] = buf[h + q + 1, i]
    for i in range(p):
        out[i] = buf[h, i]


def smooth_linear_maps(T: int, h: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(B, C): N = B z with z the node noises in draw order, C the incidence of the drawn nodes on the items."""
    T = int(T)
    leaves = [int(x) for x in smooth_leaves(T, k)]
    nodes: list[tuple[int, int]] = []
    col: dict[tuple[int, int], int] = {}
    rows = []
    for t in range(1, T + 1):
        c = leaves[t]
        use = []
        for q in range(h):
            if (c >> q) & 1:
                nd = (q, (c >> q) - 1)
                if nd not in col:
                    col[nd] = len(nodes)
                    nodes.append(nd)
                use.append(col[nd])
        rows.append(use)
    B = np.zeros((T, len(nodes)))
    for t, use in enumerate(rows):
        B[t, use] = 1.0
    C = np.zeros((len(nodes), T))
    for i, (q, j) in enumerate(nodes):
        lo, hi = j << q, (j + 1) << q
        for s in range(T):
            if lo <= leaves[s] < hi:
                C[i, s] = 1.0
    return B, C
