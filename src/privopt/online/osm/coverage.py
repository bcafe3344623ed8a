"""Streams of weighted probabilistic-coverage functions: the online instances of Perez-Salazar & Cummings.

docs/papers/perezsalazar2021.md, readings R14 and R18.  Every instance is a matrix ``P`` (M types × n items, entries
in [0, 1]) and a stream of rounds; round t is a mixture of types ``(m_j, w_j)`` with ``Σ_j w_j = 1``
and its function is::

    f_t(S) = Σ_j w_j · (1 − Π_{a∈S} (1 − P[m_j, a]))        ∈ [0, 1], monotone, submodular, f_t(∅) = 0.

* SYN-CLICK (perezsalazar2021 reading R18): one type per round (the clicking user's type), ``P`` the click probabilities.
* UBER-PICK (perezsalazar2021 reading R14): one type per round, the pickup's *coverage signature*; ``P`` is 0/1 (candidate a
  covers pickups of that signature), so ``f_t(S) = 1{S covers the pickup}``.
* UBER-WIN (perezsalazar2021 reading R14): one window per round, a mixture of signatures weighted by their share of the
  window's pickups, so ``f_t(S)`` = the fraction of the window's pickups S covers.

The marginal gain of item a on a prefix set Q is ``Σ_j w_j·U_j(Q)·P[m_j, a]`` with
``U_j(Q) = Π_{b∈Q}(1 − P[m_j, b])``, and 0 for a ∈ Q.  Sums over a stream depend only on the total
weight of each type (:func:`type_totals`), which is what makes the exact optimum cheap
(:mod:`privopt.online.osm.offline`).

A :class:`Stream` holds either a single type per round (``types``, one row per data stream: the
SYN-CLICK streams differ per seed) or one shared mixture stream in CSR form (``ptr``, ``ids``,
``weights``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

__all__ = ["Stream", "set_value", "marginal_gains", "type_totals", "check_coverage_matrix"]


def check_coverage_matrix(P) -> np.ndarray:
    """``P`` as a C-contiguous float64 M×n array with entries in [0, 1] (ValueError otherwise)."""
    P = np.ascontiguousarray(P, dtype=np.float64)
    if P.ndim != 2 or P.shape[0] < 1 or P.shape[1] < 1:
        raise ValueError(f"P must be a non-empty M×n matrix, got shape {P.shape}")
    if not (np.isfinite(P).all() and (P >= 0).all() and (P <= 1).all()):
        raise ValueError("P must have entries in [0, 1]")
    return P


@dataclass(frozen=True)
class Stream:
    """Rounds of a coverage instance: single types per round, or one mixture stream (module docstring).

    ``types``: int32 (S, T) — row s is data stream s (e.g. one per seed); empty (0, 0) for a mixture.
    ``ptr`` (int64, T + 1), ``ids`` (int32), ``weights`` (float64): round t is the mixture
    ``ids[ptr[t]:ptr[t+1]]`` with weights ``weights[ptr[t]:ptr[t+1]]`` (summing to 1).
    """

    types: np.ndarray
    ptr: np.ndarray
    ids: np.ndarray
    weights: np.ndarray

    @classmethod
    def single(cls, types) -> "Stream":
        types = np.ascontiguousarray(np.atleast_2d(types), dtype=np.int32)
        empty = np.zeros(0, dtype=np.int64)
        return cls(types, empty, np.zeros(0, dtype=np.int32), np.zeros(0))

    @classmethod
    def mixture(cls, ptr, ids, weights) -> "Stream":
        ptr = np.ascontiguousarray(ptr, dtype=np.int64)
        ids = np.ascontiguousarray(ids, dtype=np.int32)
        weights = np.ascontiguousarray(weights, dtype=np.float64)
        if ptr.ndim != 1 or ptr.size < 2 or ptr[0] != 0 or ptr[-1] != ids.size or ids.size != weights.size:
            raise ValueError("a mixture stream needs ptr[0] = 0, ptr[-1] = len(ids) = len(weights)")
        if (np.diff(ptr) < 1).any():
            raise ValueError("every round of a mixture stream needs at least one type")
        return cls(np.zeros((0, 0), dtype=np.int32), ptr, ids, weights)

    @property
    def is_mixture(self) -> bool:
        return self.ptr.size > 0

    @property
    def n_streams(self) -> int:
        return 1 if self.is_mixture else self.types.shape[0]

    @property
    def length(self) -> int:
        return self.ptr.size - 1 if self.is_mixture else self.types.shape[1]

    def round(self, s: int, t: int) -> tuple[np.ndarray, np.ndarray]:
        """(type ids, weights) of round t (0-based) of data stream s."""
        if self.is_mixture:
            a, b = self.ptr[t], self.ptr[t + 1]
            return self.ids[a:b], self.weights[a:b]
        return self.types[s, t:t + 1], np.ones(1)


def set_value(P: np.ndarray, ids, weights, S: Iterable[int]) -> float:
    """f(S) for the round mixture (``ids``, ``weights``)."""
    S = sorted(set(int(a) for a in S))
    total = 0.0
    for m, w in zip(np.atleast_1d(ids), np.atleast_1d(weights)):
        total += float(w) * (1.0 - float(np.prod(1.0 - P[int(m), S]))) if S else 0.0
    return total


def marginal_gains(P: np.ndarray, ids, weights, prefix: Iterable[int]) -> np.ndarray:
    """g(a) = f(Q + a) − f(Q) for every item a, Q = ``prefix`` (0 on Q), by the product formula."""
    Q = sorted(set(int(a) for a in prefix))
    g = np.zeros(P.shape[1])
    for m, w in zip(np.atleast_1d(ids), np.atleast_1d(weights)):
        g += float(w) * float(np.prod(1.0 - P[int(m), Q])) * P[int(m)]
    g[Q] = 0.0
    return g


def type_totals(stream: Stream, n_types: int, horizons, s: int = 0) -> np.ndarray:
    """Total weight of each type over the first T rounds of data stream ``s``, for every T in
    ``horizons``: an (n_types × len(horizons)) matrix; Σ_{t≤T} f_t(S) = Σ_m c_m(T)·(1 − Π(1 − P[m, S]))."""
    horizons = [int(T) for T in horizons]
    out = np.zeros((n_types, len(horizons)))
    for j, T in enumerate(horizons):
        if not 0 <= T <= stream.length:
            raise ValueError(f"horizon {T} outside the stream (length {stream.length})")
        if stream.is_mixture:
            end = stream.ptr[T]
            np.add.at(out[:, j], stream.ids[:end], stream.weights[:end])
        else:
            out[:, j] = np.bincount(stream.types[s, :T], minlength=n_types)[:n_types]
    return out
