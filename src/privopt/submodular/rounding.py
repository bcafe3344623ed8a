"""Rounding a fractional point of a partition-matroid base polytope to a basis (chaturvedi2021 reading R6).

* :func:`swap_round` — swap rounding of Chekuri, Vondrák and Zenklusen (2010), the
  paper's SwapRound, applied to y = Σ_t β_t·1_{B_t} / Σ_t β_t given as bases B_t
  with weights β_t (PCG: the T per-round bases, equal weights η).
* :func:`pairwise_round` — the authors' per-part pairwise dependent rounding
  (chaturvedi2021 reading R6), applied to y directly.
* :func:`round_fractional` — dispatcher taking bases and weights for either method.

Both output a basis whose marginals are P(u ∈ S) = y_u.  Neither touches the
objective, so both are post-processing (no privacy cost).

The coin flips go through a ``coin(p) -> bool`` callable (``rng.random() < p``
in the public functions); :func:`swap_round_distribution` reuses the same core
with an enumerating coin to give the exact output law of small instances (a test
oracle).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from privopt.submodular.matroids import PartitionMatroid

__all__ = [
    "swap_round",
    "swap_round_distribution",
    "pairwise_round",
    "round_fractional",
    "marginals_from_bases",
    "ROUNDING_METHODS",
]

ROUNDING_METHODS = ("swap", "pairwise")

_TOL = 1e-9


def _check_matroid(matroid) -> None:
    if not isinstance(matroid, PartitionMatroid):
        raise TypeError(f"matroid must be a PartitionMatroid, got {type(matroid).__name__}")


def _check_bases(bases, weights, matroid: PartitionMatroid) -> tuple[np.ndarray, np.ndarray]:
    _check_matroid(matroid)
    bases = np.asarray(bases)
    if bases.ndim != 2:
        raise ValueError(f"bases must be a (T, r) integer array, got shape {bases.shape}")
    if bases.size and not np.issubdtype(bases.dtype, np.integer):
        raise ValueError("bases must hold integer element indices")
    bases = bases.astype(np.int64)
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (bases.shape[0],):
        raise ValueError(f"weights must have shape ({bases.shape[0]},), got {weights.shape}")
    if bases.shape[0] == 0:
        raise ValueError("need at least one basis")
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise ValueError("weights must be finite and non-negative")
    if not weights.sum() > 0:
        raise ValueError("weights must not all be zero")
    if bases.shape[1] != matroid.rank:
        raise ValueError(
            f"every row of bases must be a basis of size rank={matroid.rank}, got rows of length {bases.shape[1]}"
            " (padding with -1 is not supported)"
        )
    if bases.size and (bases.min() < 0 or bases.max() >= matroid.n):
        raise ValueError("bases contain indices outside 0..n-1 (padding with -1 is not supported)")
    if bases.size:
        T, k = bases.shape[0], matroid.capacity.size
        dup = (np.diff(np.sort(bases, axis=1), axis=1) == 0).any(axis=1)
        loads = np.bincount(
            (matroid.part_of[bases] + k * np.arange(T)[:, None]).ravel(), minlength=T * k
        ).reshape(T, k)
        bad = dup | (loads > matroid.capacity[None, :]).any(axis=1)
        if bad.any():
            t = int(np.flatnonzero(bad)[0])
            raise ValueError(f"bases[{t}] = {bases[t].tolist()} is not a basis of the matroid")
    return bases, weights


def marginals_from_bases(bases, weights, n: int) -> np.ndarray:
    """y_u = Σ_t β_t·1[u ∈ B_t] / Σ_t β_t (shape (n,); chaturvedi2021 reading R6)."""
    bases = np.asarray(bases, dtype=np.int64)
    weights = np.asarray(weights, dtype=np.float64)
    y = np.zeros(n)
    for row, w in zip(bases, weights):
        y[row] += w
    return y / weights.sum()


def _swap_core(bases: np.ndarray, weights: np.ndarray, part_of: np.ndarray, coin: Callable[[float], bool]) -> np.ndarray:
    """The swap rounding of chaturvedi2021 reading R6 on Python sets; returns the sorted output basis.

    C ← B_1, β_C ← β_1; for k = 2..T: while C ≠ B_k: i = min(C \\ B_k),
    j = min((B_k \\ C) ∩ part(i)) (a valid exchange pair: both are bases of a
    partition matroid, so part(i) holds equally many elements of each, and
    C − i + j, B_k − j + i keep every part load); with probability
    β_C/(β_C + β_k) set B_k ← B_k − j + i, else C ← C − i + j.  Then β_C += β_k.
    Sets are plain Python sets: r is small and this beats array masks by ~5x.
    """
    part = part_of.tolist()
    c_set = set(bases[0].tolist())
    beta_c = float(weights[0])
    for k in range(1, bases.shape[0]):
        beta_k = float(weights[k])
        if beta_k == 0.0:
            continue  # C wins every swap with probability 1
        b_set = set(bases[k].tolist())
        p_keep = beta_c / (beta_c + beta_k)
        while True:
            only_c = c_set - b_set
            if not only_c:
                break
            i = min(only_c)
            # exists by the exchange property (see docstring)
            j = min(v for v in b_set - c_set if part[v] == part[i])
            if coin(p_keep):
                b_set.remove(j)
                b_set.add(i)
            else:
                c_set.remove(i)
                c_set.add(j)
        beta_c += beta_k
    return np.array(sorted(c_set), dtype=np.int64)


def swap_round(bases, weights, matroid: PartitionMatroid, rng: np.random.Generator) -> np.ndarray:
    """Swap rounding (Chekuri–Vondrák–Zenklusen 2010) of y = Σ_t β_t 1_{B_t}/Σ_t β_t (chaturvedi2021 reading R6).

    ``bases``: (T, r) int array, each row a basis of ``matroid`` (r = rank; −1
    padding is rejected); ``weights``: (T,) non-negative β_t, not all zero (only
    ratios matter, so equal weights η need no rescaling when Tη ≠ 1).

    Procedure: C ← B_1, β_C ← β_1; for k = 2..T, while C ≠ B_k pick i ∈ C \\ B_k
    and j ∈ B_k \\ C in the same part as i (so C − i + j and B_k − j + i are
    bases); with probability β_C/(β_C + β_k) set B_k ← B_k − j + i, else
    C ← C − i + j; finally β_C ← β_C + β_k.  Return C.

    The output is a basis with P(u ∈ C) = y_u for every u (and E f(C) ≥ F(y) for
    submodular f, Lemma 2.6).  Returns the sorted int64 element indices.
    """
    bases, weights = _check_bases(bases, weights, matroid)
    return _swap_core(bases, weights, matroid.part_of, lambda p: rng.random() < p)


def swap_round_distribution(bases, weights, matroid: PartitionMatroid) -> dict[tuple[int, ...], float]:
    """Exact output law of :func:`swap_round`: {sorted basis tuple: probability}.

    Enumerates every sequence of swap outcomes (depth first), so the cost is up to
    2^(number of swaps) ≤ 2^((T−1)·r): meant for small instances in tests.
    """
    bases, weights = _check_bases(bases, weights, matroid)
    law: dict[tuple[int, ...], float] = {}
    # Each run follows a prefix of forced outcomes, then takes "True" for new coins;
    # unexplored "False" branches are pushed on the stack.
    stack: list[list[bool]] = [[]]
    while stack:
        script = stack.pop()
        pos = 0
        prob = 1.0

        def coin(p: float) -> bool:
            nonlocal pos, prob
            if pos < len(script):
                outcome = script[pos]
            else:
                outcome = True
                if p < 1.0:
                    stack.append(script[:pos] + [False])
                script.append(True)
            pos += 1
            prob *= p if outcome else 1.0 - p
            return outcome

        out = tuple(int(u) for u in _swap_core(bases, weights, matroid.part_of, coin))
        if prob > 0.0:
            law[out] = law.get(out, 0.0) + prob
    return law


def pairwise_round(y, matroid: PartitionMatroid, rng: np.random.Generator) -> np.ndarray:
    """Per-part pairwise dependent rounding (the authors' rounding, chaturvedi2021 reading R6).

    ``y``: (n,) point with 0 ≤ y_u ≤ 1 and, for every part P, Σ_{u∈P} y_u an
    integer ≤ capacity(P) (within 1e-6).  Within each part, while two coordinates
    i < j (the two lowest-index fractional ones) are fractional, with s = y_i + y_j:

    * s ≤ 1: w.p. y_i/s set (y_i, y_j) ← (s, 0), else (0, s);
    * s > 1: w.p. (1 − y_j)/(2 − s) set (y_i, y_j) ← (1, s − 1), else (s − 1, 1).

    Each move keeps E[y] and the part sum, and makes a coordinate integral; values
    within 1e-9 of 0 or 1 are snapped.  Output S = {u : y_u = 1}, with
    P(u ∈ S) = y_u and |S ∩ P| = Σ_{u∈P} y_u — a basis when y lies on the base
    polytope (every part sum = min(capacity, |P|)).  Returns sorted int64 indices.
    """
    _check_matroid(matroid)
    y = np.array(y, dtype=np.float64)
    if y.shape != (matroid.n,):
        raise ValueError(f"y must have shape ({matroid.n},), got {y.shape}")
    if not np.isfinite(y).all() or (y < -_TOL).any() or (y > 1.0 + _TOL).any():
        raise ValueError("y must lie in [0, 1]")
    sums = np.bincount(matroid.part_of, weights=y, minlength=matroid.capacity.size)
    rounded = np.rint(sums)
    if (np.abs(sums - rounded) > 1e-6).any():
        raise ValueError(f"every part sum of y must be an integer, got {sums.tolist()}")
    if (rounded > matroid.capacity).any():
        raise ValueError("a part sum of y exceeds the part's capacity (y is not in the matroid polytope)")
    y = np.clip(y, 0.0, 1.0)
    y[y < _TOL] = 0.0
    y[y > 1.0 - _TOL] = 1.0
    for part in range(matroid.capacity.size):
        members = np.flatnonzero(matroid.part_of == part)
        frac = [int(u) for u in members if 0.0 < y[u] < 1.0]
        while len(frac) >= 2:
            i, j = frac[0], frac[1]
            yi, yj = y[i], y[j]
            s = yi + yj
            if s <= 1.0:
                if rng.random() < yi / s:
                    y[i], y[j] = s, 0.0
                else:
                    y[i], y[j] = 0.0, s
            else:
                if rng.random() < (1.0 - yj) / (2.0 - s):
                    y[i], y[j] = 1.0, s - 1.0
                else:
                    y[i], y[j] = s - 1.0, 1.0
            for u in (i, j):
                if y[u] < _TOL:
                    y[u] = 0.0
                elif y[u] > 1.0 - _TOL:
                    y[u] = 1.0
            frac = [u for u in frac if 0.0 < y[u] < 1.0]
        if frac:  # a single leftover: part sum is integral, so this is float drift
            u = frac[0]
            y[u] = 1.0 if y[u] > 0.5 else 0.0
    return np.flatnonzero(y == 1.0).astype(np.int64)


def round_fractional(bases, weights, matroid: PartitionMatroid, rng: np.random.Generator, *, method: str = "swap") -> np.ndarray:
    """Round y = Σ_t β_t 1_{B_t}/Σ_t β_t to a basis with ``method`` in {"swap", "pairwise"} (chaturvedi2021 reading R6).

    "swap" (default, the paper) calls :func:`swap_round`; "pairwise" (the
    authors' code) calls :func:`pairwise_round` on :func:`marginals_from_bases`.
    """
    if method == "swap":
        return swap_round(bases, weights, matroid, rng)
    if method == "pairwise":
        bases, weights = _check_bases(bases, weights, matroid)
        return pairwise_round(marginals_from_bases(bases, weights, matroid.n), matroid, rng)
    raise ValueError(f"method must be one of {ROUNDING_METHODS}, got {method!r}")
