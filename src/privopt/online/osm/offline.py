"""Offline benchmarks of a coverage stream: the exact optimum, greedy in hindsight, an upper bound.

docs/papers/perezsalazar2021.md, readings R13 and R21.  Over the first T rounds,
``Φ(S) = Σ_{t≤T} f_t(S) = Σ_m c_m·(1 − Π_{a∈S}(1 − P[m, a]))`` with ``c`` the total weight of each
type (:func:`privopt.online.osm.coverage.type_totals`), so every k-set is valued by one product per type.

* :func:`exact_opt`: ``OPT_T = max_{|S|=k} Φ(S)`` by enumerating every k-subset of the items that
  survive *k-dominance pruning*: item a is dropped when at least k other items dominate it pointwise
  (``P[:, b] ≥ P[:, a]``, ties broken towards the lower index).  In a k-set containing a, one of
  a's ≥ k dominators is outside the set and swapping it in loses nothing (coverage is monotone in
  P); dominance is a strict partial order, so repeated swaps end inside the kept items.  This is
  what makes SYN-CLICK-PAD (dummy items equal to p_base everywhere) enumerable at n = 1000.  The
  enumeration is refused above ``max_sets`` subsets (2·10⁶, perezsalazar2021 reading R13).
* :func:`greedy`: the offline greedy set on Φ (ties to the lowest index) — OFF-GREEDY.  Its gains and values are
  sums in one fixed order (:mod:`privopt.online.osm.fixed_sums`), not BLAS products, so G is the same bits on every
  CPU.
* :func:`uniform_value`: the exact expected Φ of UNIF (k independent uniform picks, duplicates merged),
  by enumerating the n^k pick tuples.
* :func:`greedy_upper_bound`: ``UB = min_j [Φ(S_j) + Σ_{top-k a} (Φ(S_j + a) − Φ(S_j))]`` over the
  greedy prefixes S_0 = ∅ … S_k (submodularity), the fallback where enumeration is too large.
"""

from __future__ import annotations

import math

import numpy as np

from privopt.online.osm.fixed_sums import dot, dots
from privopt.online.osm.coverage import check_coverage_matrix

__all__ = ["MAX_SETS", "kept_items", "exact_opt", "greedy", "greedy_upper_bound",
           "benchmarks", "uniform_value"]

#: enumeration limit of perezsalazar2021 reading R13
MAX_SETS = 2_000_000


def kept_items(P, k: int) -> np.ndarray:
    """Items that survive k-dominance pruning (module docstring), ascending."""
    P = check_coverage_matrix(P)
    n = P.shape[1]
    cols = P.T  # n × M
    geq = (cols[:, None, :] >= cols[None, :, :]).all(axis=2)  # geq[b, a]: b dominates a weakly
    equal = geq & geq.T
    idx = np.arange(n)
    strictly = geq & ~equal
    tie_lower = equal & (idx[:, None] < idx[None, :])
    dominators = (strictly | tie_lower).sum(axis=0)
    return idx[dominators < k]


def exact_opt(P, counts, k: int, max_sets: int = MAX_SETS) -> tuple[np.ndarray, np.ndarray]:
    """(OPT values, optimal sets): for each column of ``counts`` (M × J) the maximum of Φ over k-sets
    and one maximiser (the first in lexicographic order of the kept items).  Raises ValueError when
    the enumeration would exceed ``max_sets`` subsets."""
    from privopt.online.osm.kernels import best_subsets_kernel

    P = check_coverage_matrix(P)
    counts = np.ascontiguousarray(np.asarray(counts, dtype=float).reshape(P.shape[0], -1))
    n = P.shape[1]
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= n = {n}, got k = {k}")
    kept = kept_items(P, k)
    size = math.comb(kept.size, k)
    if size > max_sets:
        raise ValueError(f"exact optimum needs {size:,} subsets (> {max_sets:,}); use greedy_upper_bound")
    best = np.empty(counts.shape[1])
    arg = np.zeros((counts.shape[1], k), dtype=np.int64)
    best_subsets_kernel(P, kept.astype(np.int64), int(k), counts, best, arg)
    return best, arg


def greedy(P, counts, k: int) -> tuple[float, np.ndarray]:
    """Offline greedy on Φ for one count vector: (Φ(S_k), S_k in pick order), ties to the lowest index."""
    P = check_coverage_matrix(P)
    c = np.asarray(counts, dtype=float).reshape(-1)
    cols = np.ascontiguousarray(P.T)
    uncovered = np.ones(P.shape[0])
    chosen: list[int] = []
    value = 0.0
    for _ in range(k):
        gains = dots(c * uncovered, cols)
        gains[chosen] = -np.inf
        a = int(np.argmax(gains))
        chosen.append(a)
        uncovered = uncovered * (1.0 - P[:, a])
        value = dot(c, 1.0 - uncovered)
    return value, np.array(chosen, dtype=np.int64)


def greedy_upper_bound(P, counts, k: int) -> float:
    """UB = min over greedy prefixes S_j of Φ(S_j) + (sum of the k largest marginals on S_j)."""
    P = check_coverage_matrix(P)
    c = np.asarray(counts, dtype=float).reshape(-1)
    cols = np.ascontiguousarray(P.T)
    uncovered = np.ones(P.shape[0])
    chosen: list[int] = []
    best = math.inf
    for _ in range(k + 1):
        gains = dots(c * uncovered, cols)
        gains[chosen] = 0.0
        best = min(best, dot(c, 1.0 - uncovered) + float(np.sort(gains)[::-1][:k].sum()))
        if len(chosen) == k:
            break
        g = gains.copy()
        g[chosen] = -np.inf
        a = int(np.argmax(g))
        chosen.append(a)
        uncovered = uncovered * (1.0 - P[:, a])
    return best


def benchmarks(P, counts, k: int, max_sets: int = MAX_SETS) -> dict[str, np.ndarray]:
    """OPT (NaN where enumeration is too large), greedy value G, upper bound UB (= OPT when exact) and
    ``exact`` for each column of ``counts``."""
    P = check_coverage_matrix(P)
    counts = np.asarray(counts, dtype=float).reshape(P.shape[0], -1)
    J = counts.shape[1]
    G = np.array([greedy(P, counts[:, j], k)[0] for j in range(J)])
    try:
        opt, _ = exact_opt(P, counts, k, max_sets)
        return {"OPT": opt, "G": G, "UB": opt.copy(), "exact": np.ones(J, dtype=bool)}
    except ValueError:
        UB = np.array([greedy_upper_bound(P, counts[:, j], k) for j in range(J)])
        return {"OPT": np.full(J, np.nan), "G": G, "UB": UB, "exact": np.zeros(J, dtype=bool)}


def uniform_value(P, counts, k: int, max_tuples: int = MAX_SETS) -> np.ndarray:
    """E Φ(S) for S the set of k independent uniform picks (UNIF), exactly, for each column of ``counts``;
    NaN when n^k exceeds ``max_tuples``."""
    from privopt.online.osm.kernels import mean_over_tuples_kernel

    P = check_coverage_matrix(P)
    counts = np.ascontiguousarray(np.asarray(counts, dtype=float).reshape(P.shape[0], -1))
    n = P.shape[1]
    if n ** k > max_tuples:
        return np.full(counts.shape[1], np.nan)
    out = np.empty(counts.shape[1])
    mean_over_tuples_kernel(P, int(k), counts, out)
    return out
