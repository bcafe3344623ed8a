"""Matroids used by the experiments, in a numba-friendly array form.

Both constraints of the decomposable-submodular experiments are partition
matroids: a uniform matroid of rank r is the one-part partition matroid with
capacity r.  A matroid is therefore stored as two integer arrays,
``part_of[u]`` (the part of element u) and ``capacity[k]`` (how many elements
part k may hold), which the numba kernels take directly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["PartitionMatroid", "uniform_matroid", "partition_matroid"]


@dataclass(frozen=True)
class PartitionMatroid:
    """I = {S : |S ∩ P_k| <= capacity[k] for every part k}."""

    part_of: np.ndarray  # int64 (n,)
    capacity: np.ndarray  # int64 (k,)

    def __post_init__(self) -> None:
        part_of = np.ascontiguousarray(self.part_of, dtype=np.int64)
        capacity = np.ascontiguousarray(self.capacity, dtype=np.int64)
        if part_of.ndim != 1 or capacity.ndim != 1:
            raise ValueError("part_of and capacity must be one-dimensional")
        if part_of.size and (part_of.min() < 0 or part_of.max() >= capacity.size):
            raise ValueError("part_of refers to a part without a capacity")
        if (capacity < 0).any():
            raise ValueError("capacities must be non-negative")
        object.__setattr__(self, "part_of", part_of)
        object.__setattr__(self, "capacity", capacity)

    @property
    def n(self) -> int:
        """Size of the ground set."""
        return int(self.part_of.size)

    @property
    def part_sizes(self) -> np.ndarray:
        return np.bincount(self.part_of, minlength=self.capacity.size)

    @property
    def rank(self) -> int:
        """Size of every basis: sum_k min(capacity_k, |P_k|)."""
        return int(np.minimum(self.capacity, self.part_sizes).sum())

    def _load(self, members: np.ndarray) -> np.ndarray:
        return np.bincount(self.part_of[members], minlength=self.capacity.size)

    def is_independent(self, members) -> bool:
        """Whether the set of element indices ``members`` (no repeats) is independent."""
        members = np.asarray(members, dtype=np.int64)
        if np.unique(members).size != members.size:
            return False
        return bool((self._load(members) <= self.capacity).all())

    def can_add(self, members) -> np.ndarray:
        """Boolean (n,) mask of elements u not in ``members`` with members + u independent."""
        members = np.asarray(members, dtype=np.int64)
        free = self._load(members) < self.capacity
        mask = free[self.part_of]
        mask[members] = False
        return mask

    def is_basis(self, members) -> bool:
        members = np.asarray(members, dtype=np.int64)
        return self.is_independent(members) and members.size == self.rank


def uniform_matroid(n: int, r: int) -> PartitionMatroid:
    """Cardinality constraint |S| <= r over n elements."""
    if n < 0 or r < 0:
        raise ValueError(f"uniform matroid needs n, r >= 0, got n={n}, r={r}")
    return PartitionMatroid(np.zeros(n, dtype=np.int64), np.array([r], dtype=np.int64))


def partition_matroid(part_of, capacity) -> PartitionMatroid:
    return PartitionMatroid(np.asarray(part_of), np.asarray(capacity))
