"""Exact expected value of a uniformly random basis of a partition matroid for the facility objective.

f(S) = Σ_p (1 − min_{l∈S} d[l, p]) (f_p(∅) = 0).  A uniform basis of a partition matroid is, part by
part and independently, a uniform c_k-subset of part P_k (c_k = min(capacity_k, |P_k|)).  For one user
p, sort the candidates by distance (ties in index order; tied candidates give the same value, so the
order among them does not matter).  The candidate at global position j is the closest chosen one iff it
is chosen and none of the candidates before it is.  For the candidate e of part k with a_k' candidates of
each part k' before it (a_k itself counting e's predecessors in its own part):

    P(e closest chosen) = C(|P_k| − a_k − 1, c_k − 1) / C(|P_k|, c_k) · Π_{k' ≠ k} C(|P_k'| − a_k', c_k') / C(|P_k'|, c_k')

so E f(S) = Σ_p Σ_e P(e closest chosen | p) · (1 − d[e, p]).  For a uniform matroid (one part, rank r
over n candidates) the weight of the j-th nearest candidate (1-based) is C(n − j, r − 1) / C(n, r), the
same for every user.  The binomial ratios are computed exactly in integers and rounded once to float.

This is the exact mean of :func:`privopt.submodular.greedy.random_basis` given the data: a reference
without sampling noise (what Random's sampled mean estimates).
"""

from __future__ import annotations

from math import comb

import numpy as np

from privopt.submodular.matroids import PartitionMatroid
from privopt.submodular.objectives import FacilityLocation

__all__ = ["uniform_rank_weights", "expected_random_basis_value", "expected_random_basis_per_agent"]


def uniform_rank_weights(n: int, r: int) -> np.ndarray:
    """w_j = P(the j-th nearest of n candidates is the closest of a uniform r-subset), j = 1..n (shape (n,)).

    >>> uniform_rank_weights(3, 2).tolist()   # C(2,1)/3, C(1,1)/3, C(0,1)/3
    [0.6666666666666666, 0.3333333333333333, 0.0]
    """
    if n < 0 or not 0 <= r <= n:
        raise ValueError(f"need 0 <= r <= n, got n={n}, r={r}")
    if r == 0:
        return np.zeros(n)
    total = comb(n, r)
    return np.array([comb(n - j, r - 1) / total for j in range(1, n + 1)], dtype=np.float64)


def _dist(objective) -> np.ndarray:
    d = objective.dist if isinstance(objective, FacilityLocation) else FacilityLocation(np.asarray(objective)).dist
    return d


def expected_random_basis_per_agent(objective, matroid: PartitionMatroid) -> np.ndarray:
    """E f_p(S) for every user p (shape (m,)), S a uniformly random basis of ``matroid``.

    ``objective``: a :class:`FacilityLocation` or its (n, m) distance matrix in [0, 1].
    """
    if not isinstance(matroid, PartitionMatroid):
        raise TypeError(f"matroid must be a PartitionMatroid, got {type(matroid).__name__}")
    d = _dist(objective)
    n, m = d.shape
    if n != matroid.n:
        raise ValueError(f"the objective has {n} candidates, the matroid {matroid.n}")
    order = np.argsort(d, axis=0, kind="stable")  # (n, m): candidates by distance, ties in index order
    sorted_d = np.take_along_axis(d, order, axis=0)
    if matroid.capacity.size == 1:
        w = uniform_rank_weights(n, matroid.rank)
        return (w[:, None] * (1.0 - sorted_d)).sum(axis=0)
    sizes = matroid.part_sizes.tolist()
    caps = np.minimum(matroid.capacity, matroid.part_sizes).tolist()
    totals = [comb(s, c) for s, c in zip(sizes, caps)]
    out = np.zeros(m)
    # The weights depend on the user only through the order of the parts along its sorted list, so they
    # are computed once per distinct part sequence (few for small n).
    parts_sorted = matroid.part_of[order]  # (n, m)
    sequences, inverse = np.unique(parts_sorted.T, axis=0, return_inverse=True)
    for q, seq in enumerate(sequences):
        before = [0] * len(sizes)
        w = np.zeros(n)
        for j, k in enumerate(seq.tolist()):
            if caps[k] > 0:
                num = comb(sizes[k] - before[k] - 1, caps[k] - 1)
                den = totals[k]
                for k2, (s2, c2) in enumerate(zip(sizes, caps)):
                    if k2 != k:
                        num *= comb(s2 - before[k2], c2)
                        den *= totals[k2]
                w[j] = num / den
            before[k] += 1
        users = np.flatnonzero(inverse.ravel() == q)
        out[users] = (w[:, None] * (1.0 - sorted_d[:, users])).sum(axis=0)
    return out


def expected_random_basis_value(objective, matroid: PartitionMatroid) -> float:
    """E f(S) = Σ_p E f_p(S) for S a uniformly random basis of ``matroid`` (exact up to float rounding)."""
    return float(expected_random_basis_per_agent(objective, matroid).sum())
