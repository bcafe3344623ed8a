"""Modular + cut set functions: values, the closed-form Lovász extension, numba chain kernels, and the
exact minimum (LP of the Lovász extension, and exhaustive enumeration).

docs/papers/cardoso2019.md, readings R3 (closed form) and R7 (the LP).
A function of this family on a graph G = ([n], E) with non-negative edge weights w is::

    f(S) = Σ_{i∈S} a_i + Σ_{(i,j)∈E} w_ij·[|S ∩ {i, j}| = 1]          (submodular for w ≥ 0; f(∅) = 0)
    f̂(x) = Σ_i a_i x_i + Σ_{(i,j)} w_ij |x_i − x_j|
    g_i  = a_i + Σ_{j~i} w_ij·sign(rank_j − rank_i)                    (ranks of the stable sort of −x)

The chain kernels (:func:`sort_chain`, :func:`cut_chain_into`) are what the learners of
:mod:`privopt.online.submod_pftal` call each round: an insertion sort that keeps the previous round's
order (x moves little between rounds, so it is O(n) typically; the key (−x_i, i) makes the order the
stable argsort exactly; a merge sort when it moved much) and the n+1 chain values f(B_0..B_n) in
O(n · max degree) (:func:`padded_adjacency`).

Minimum of a sum Σ_t f_t (itself modular + cut, A = Σ_t a_t, W = Σ_t w_t): the LP
min A·x + Σ_e W_e s_e s.t. s_e ≥ ±(x_i − x_j), 0 ≤ x ≤ 1 (scipy HiGHS) equals min_x f̂(x); every level
set of an optimal x is rounded and the best set kept, so the set's value is ≤ the LP value up to
rounding — the minimum over sets (the extension's minimum is attained at a vertex χ_S).  Exhaustive
enumeration (n ≤ 20) is the cross-check.

:class:`CutInstance` is a stream of such functions f_t whose unary part moves one coordinate per round
(a_t = base − demand·e_{c_t}, fixed edge weights): what :mod:`privopt.online.submod_pftal` learns on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix

__all__ = ["CutInstance", "padded_adjacency", "cut_values", "cut_lovasz_closed", "sort_chain", "cut_chain_into",
           "lp_minimum", "enumerate_minimum", "MAX_ENUMERATE"]

MAX_ENUMERATE = 20


def _check_graph(n: int, edges, w) -> tuple[np.ndarray, np.ndarray]:
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    w = np.broadcast_to(np.asarray(w, dtype=np.float64), (edges.shape[0],)).copy()
    if edges.size and (edges.min() < 0 or edges.max() >= n or np.any(edges[:, 0] == edges[:, 1])):
        raise ValueError(f"edges must join two different nodes of 0..{n - 1}")
    if np.any(w < 0):
        raise ValueError("cut weights must be >= 0 (a negative weight is not submodular)")
    return edges, w


def padded_adjacency(n: int, edges, w) -> tuple[np.ndarray, np.ndarray]:
    """(neighbours (n, D), weights (n, D)), D the largest degree (at least 1): both directions of every edge,
    each node's neighbours in edge order, padded with the sentinel neighbour n and weight 0.

    A fixed number of entries per node (rather than a CSR row of its own length) keeps the chain kernel's
    inner loop free of mispredicted exits; the padding adds −0.0 (:func:`cut_chain_into`), which changes
    no sum."""
    edges, w = _check_graph(n, edges, w)
    src = np.concatenate([edges[:, 0], edges[:, 1]])
    dst = np.concatenate([edges[:, 1], edges[:, 0]])
    ww = np.concatenate([w, w])
    order = np.argsort(src, kind="stable")
    src, dst, ww = src[order], dst[order], ww[order]
    deg = np.bincount(src, minlength=n)
    width = max(1, int(deg.max(initial=0)))
    slot = np.arange(src.size) - np.repeat(np.cumsum(deg) - deg, deg)  # position within the node's row
    nbr = np.full((n, width), n, dtype=np.int64)
    wts = np.zeros((n, width))
    nbr[src, slot] = dst
    wts[src, slot] = ww
    return nbr, wts


def cut_values(a, edges, w, masks) -> np.ndarray:
    """f(S) for every mask row (m, n): Σ_{i∈S} a_i + Σ_e w_e·[e cut]."""
    masks = np.atleast_2d(np.asarray(masks, dtype=bool))
    a = np.asarray(a, dtype=np.float64)
    edges, w = _check_graph(a.size, edges, w)
    val = masks @ a
    if edges.size:
        val = val + (masks[:, edges[:, 0]] != masks[:, edges[:, 1]]) @ w
    return val


def cut_lovasz_closed(a, edges, w, x) -> tuple[float, np.ndarray]:
    """(f̂(x), g) by the closed form (a second implementation of the chain version, ties included)."""
    a = np.asarray(a, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    edges, w = _check_graph(a.size, edges, w)
    rank = np.empty(a.size, dtype=np.int64)
    rank[np.argsort(-x, kind="stable")] = np.arange(a.size)
    val = float(a @ x)
    g = a.copy()
    for (i, j), wij in zip(edges, w):
        val += wij * abs(x[i] - x[j])
        s = np.sign(rank[j] - rank[i])
        g[i] += wij * s
        g[j] -= wij * s
    return val, g


@numba.njit(cache=True)
def _merge_sort_segment(x, perm, lo, hi):
    m = hi - lo
    keys = np.empty(m)
    ids = np.empty(m, dtype=np.int64)
    for q in range(m):
        ids[q] = perm[lo + q]
    ids.sort()  # index order first: the stable sort then breaks ties by index
    for q in range(m):
        keys[q] = -x[ids[q]]
    order = np.argsort(keys, kind="mergesort")
    for q in range(m):
        perm[lo + q] = ids[order[q]]


@numba.njit(cache=True, inline="always")
def sort_chain(x, perm, n, scratch):
    """Sort ``perm`` by the key (−x_i, i), in place, for x ∈ [0, 1]^n: afterwards ``perm`` is argsort(−x, stable).

    The coordinates at 1 come first and those at 0 last, each in index order (the clipped iterates: most
    of them when the noise is large); the interior ones keep the previous round's order and are
    insertion-sorted (O(m) when x moved little); after 4m shifts they are merge-sorted from scratch.
    ``scratch``: int64 of length ≥ n + 1.

    The three partition passes are branch-free (every element is written, the cursor advances by the
    comparison): which coordinates are clipped is close to a coin flip per coordinate under large noise,
    and a branch on it mispredicted half the time cost more than the rest of the step at n = 64."""
    top = 0
    for i in range(n):
        scratch[top] = i
        top += x[i] == 1.0
    lo = top
    for q in range(n):
        e = perm[q]
        scratch[top] = e
        top += (x[e] != 1.0) & (x[e] != 0.0)
    hi = top
    for i in range(n):
        scratch[top] = i
        top += x[i] == 0.0
    for i in range(n):
        perm[i] = scratch[i]
    shifts = 0
    for k in range(lo + 1, hi):
        e = perm[k]
        xe = x[e]
        j = k - 1
        while j >= lo:
            p = perm[j]
            xp = x[p]
            if xp > xe or (xp == xe and p < e):
                break
            perm[j + 1] = p
            j -= 1
            shifts += 1
        perm[j + 1] = e
        if shifts > 4 * (hi - lo):
            _merge_sort_segment(x, perm, lo, hi)
            return


@numba.njit(cache=True, inline="always")
def cut_chain_into(a, nbr, wts, perm, n, inset, vals, g):
    """Chain values vals[k] = f(B_k), k = 0..n, and g[π_k] = f(B_k) − f(B_{k−1}) for f = a·χ + cut on the
    graph of :func:`padded_adjacency` (``nbr``, ``wts``); ``inset`` is bool scratch of length n + 1.
    vals[0] = f(∅) = 0."""
    width = nbr.shape[1]
    for i in range(n):
        inset[i] = False
    inset[n] = True  # the padding's sentinel: weight 0 × (−1) adds −0.0, which leaves every sum as it is
    vals[0] = 0.0
    for k in range(n):
        e = perm[k]
        d = a[e]
        for q in range(width):  # branch-free: ± w by membership (d − w bit for bit)
            d += wts[e, q] * (1.0 - 2.0 * inset[nbr[e, q]])
        inset[e] = True
        g[e] = d
        vals[k + 1] = vals[k] + d


def lp_minimum(A, edges, W) -> dict:
    """Exact min over sets of A·χ_S + Σ_e W_e [e cut] by the LP of its Lovász extension (HiGHS) and
    level-set rounding.  Returns {"value", "mask", "lp_value", "x"}."""
    A = np.asarray(A, dtype=np.float64)
    n = A.size
    edges, W = _check_graph(n, edges, W)
    E = edges.shape[0]
    c = np.concatenate([A, W])
    rows = np.repeat(np.arange(2 * E), 3)
    eidx = np.arange(E)
    # x_i − x_j − s_e ≤ 0 and −x_i + x_j − s_e ≤ 0
    cols = np.stack([np.concatenate([edges[:, 0], edges[:, 0]]), np.concatenate([edges[:, 1], edges[:, 1]]),
                     n + np.concatenate([eidx, eidx])], axis=1).ravel()
    sign = np.concatenate([np.ones(E), -np.ones(E)])
    data = np.stack([sign, -sign, -np.ones(2 * E)], axis=1).ravel()
    A_ub = coo_matrix((data, (rows, cols)), shape=(2 * E, n + E)).tocsr() if E else None
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(2 * E) if E else None,
                  bounds=[(0.0, 1.0)] * n + [(0.0, None)] * E, method="highs")
    if res.status != 0:
        raise RuntimeError(f"the comparator LP failed: {res.message}")
    x = np.clip(res.x[:n], 0.0, 1.0)
    levels = np.unique(np.concatenate([[0.0], x]))
    masks = x[None, :] > (levels[:, None] - 1e-9)
    masks = np.vstack([np.zeros((1, n), dtype=bool), masks, x[None, :] > levels[:, None]])
    vals = cut_values(A, edges, W, masks)
    best = int(np.argmin(vals))
    return {"value": float(vals[best]), "mask": masks[best].copy(), "lp_value": float(res.fun), "x": x}


def enumerate_minimum(A, edges, W, chunk: int = 1 << 14) -> dict:
    """Min over every subset by exhaustive enumeration (n ≤ :data:`MAX_ENUMERATE`); {"value", "mask"}."""
    A = np.asarray(A, dtype=np.float64)
    n = A.size
    if n > MAX_ENUMERATE:
        raise ValueError(f"enumeration is for n <= {MAX_ENUMERATE}, got n = {n}")
    edges, W = _check_graph(n, edges, W)
    best_val, best_mask = np.inf, None
    bits = np.arange(n)
    for start in range(0, 1 << n, chunk):
        s = np.arange(start, min(start + chunk, 1 << n), dtype=np.int64)
        masks = ((s[:, None] >> bits) & 1).astype(bool)
        vals = cut_values(A, edges, W, masks)
        k = int(np.argmin(vals))
        if vals[k] < best_val:
            best_val, best_mask = float(vals[k]), masks[k].copy()
    return {"value": best_val, "mask": best_mask}


@dataclass(frozen=True)
class CutInstance:
    """A stream of losses f_t(S) = (base − demand·e_{c_t})·χ_S + Σ_e w_e [e cut] on the graph ``edges``, the
    round's cell c_t the only thing that changes; ``M`` bounds |f_t|."""

    name: str
    n: int
    edges: np.ndarray
    w: np.ndarray
    base: np.ndarray
    M: float
    demand: float = 0.5

    def unary(self, cell: int) -> np.ndarray:
        a = self.base.copy()
        a[int(cell)] -= self.demand
        return a

    def values(self, masks, cell: int) -> np.ndarray:
        """f_t(S) for the round whose cell is ``cell``."""
        return cut_values(self.unary(cell), self.edges, self.w, masks)

    def total_unary(self, cells) -> np.ndarray:
        """A = Σ_t a_t over the stream's cells."""
        cells = np.asarray(cells, dtype=np.int64)
        return cells.size * self.base - self.demand * np.bincount(cells, minlength=self.n)

    def best(self, cells) -> dict:
        """min_S Σ_t f_t(S) (LP of the Lovász extension + level-set rounding): {"value", "mask", "lp_value", "x"}."""
        return lp_minimum(self.total_unary(cells), self.edges, np.asarray(cells).size * self.w)
