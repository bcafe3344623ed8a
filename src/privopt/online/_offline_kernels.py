"""Numba kernels of the offline benchmarks (:mod:`privopt.online.coverage_offline`): enumeration of every
k-subset (exact optimum) and of every pick tuple (UNIF's expected value) of a coverage instance.

Both walk the subsets/tuples depth-first, keeping per type the running product Π(1 − P[m, a]) of the
items chosen so far, so a leaf costs one pass over the types and the count columns (no exp, no log).
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["best_subsets", "mean_over_tuples"]


@numba.njit(cache=True)
def best_subsets(P, kept, k, counts, best, arg):
    """For each column j of ``counts`` (M × J): the largest Σ_m counts[m, j]·(1 − Π_{a∈S}(1 − P[m, a])) over
    k-subsets S of ``kept`` (lexicographic order, the first maximiser kept) into ``best[j]``, ``arg[j]``."""
    M = P.shape[0]
    J = counts.shape[1]
    nk = kept.shape[0]
    U = np.ones((k + 1, M))
    idx = np.zeros(k, dtype=np.int64)
    for j in range(J):
        best[j] = -np.inf
    vals = np.zeros(J)
    # iterative lexicographic walk over combinations of positions 0..nk-1
    d = 0
    idx[0] = 0
    while d >= 0:
        if idx[d] > nk - (k - d):
            d -= 1
            if d >= 0:
                idx[d] += 1
            continue
        a = kept[idx[d]]
        for m in range(M):
            U[d + 1, m] = U[d, m] * (1.0 - P[m, a])
        if d == k - 1:
            for j in range(J):
                vals[j] = 0.0
            for m in range(M):
                cov = 1.0 - U[k, m]
                for j in range(J):
                    vals[j] += counts[m, j] * cov
            for j in range(J):
                if vals[j] > best[j]:
                    best[j] = vals[j]
                    for q in range(k):
                        arg[j, q] = kept[idx[q]]
            idx[d] += 1
        else:
            idx[d + 1] = idx[d] + 1
            d += 1


@numba.njit(cache=True)
def mean_over_tuples(P, k, counts, out):
    """Mean over the n^k pick tuples (duplicates merged into a set) of Σ_m counts[m, j]·(1 − Π(1 − P[m, a]))."""
    M, n = P.shape
    J = counts.shape[1]
    U = np.ones((k + 1, M))
    idx = np.zeros(k, dtype=np.int64)
    for j in range(J):
        out[j] = 0.0
    total = 0
    d = 0
    idx[0] = 0
    while d >= 0:
        if idx[d] >= n:
            d -= 1
            if d >= 0:
                idx[d] += 1
            continue
        a = idx[d]
        dup = False
        for q in range(d):
            if idx[q] == a:
                dup = True
        for m in range(M):
            U[d + 1, m] = U[d, m] if dup else U[d, m] * (1.0 - P[m, a])
        if d == k - 1:
            for m in range(M):
                cov = 1.0 - U[k, m]
                for j in range(J):
                    out[j] += counts[m, j] * cov
            total += 1
            idx[d] += 1
        else:
            idx[d + 1] = 0
            d += 1
    for j in range(J):
        out[j] /= total
