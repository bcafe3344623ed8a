"""Decomposable submodular objectives: f(S) = sum over agents p of f_p(S), f_p in [0, 1].

``FacilityLocation`` is the objective of both Chaturvedi et al. experiments:
f_p(S) = 1 - min_{l in S} d[l, p] with f_p(empty) = 0, where d in [0, 1] is the
normalised distance between candidate location l and pickup p.  It is monotone.

``CutFunction`` (one agent per edge, f_e(S) = 1 iff exactly one endpoint is in S)
is a small non-monotone decomposable function for testing the measured
continuous greedy.

Every objective offers ``values(masks)``: the objective on each row of a boolean
(k, n) membership matrix, vectorised.  Algorithms with a faster special path for
the facility objective take ``dist`` directly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["FacilityLocation", "CutFunction"]


@dataclass(frozen=True)
class FacilityLocation:
    """f(S) = sum_p (1 - min_{l in S} dist[l, p]); dist has shape (n, m), entries in [0, 1]."""

    dist: np.ndarray

    def __post_init__(self) -> None:
        dist = np.ascontiguousarray(self.dist, dtype=np.float64)
        if dist.ndim != 2:
            raise ValueError("dist must be an (n, m) array")
        if dist.size and (dist.min() < 0.0 or dist.max() > 1.0):
            raise ValueError("normalised distances must lie in [0, 1] (sensitivity 1)")
        object.__setattr__(self, "dist", dist)

    @property
    def n(self) -> int:
        return int(self.dist.shape[0])

    @property
    def m(self) -> int:
        return int(self.dist.shape[1])

    def value(self, members) -> float:
        members = np.asarray(members, dtype=np.int64)
        if members.size == 0:
            return 0.0
        return float((1.0 - self.dist[members].min(axis=0)).sum())

    def values(self, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks, dtype=bool)
        out = np.empty(masks.shape[0])
        for i, row in enumerate(masks):
            out[i] = self.value(np.flatnonzero(row))
        return out

    def per_agent(self, members) -> np.ndarray:
        """f_p(S) for every agent p (shape (m,))."""
        members = np.asarray(members, dtype=np.int64)
        if members.size == 0:
            return np.zeros(self.m)
        return 1.0 - self.dist[members].min(axis=0)


@dataclass(frozen=True)
class CutFunction:
    """Undirected cut: one agent per edge (a, b); f_e(S) = 1 iff |S ∩ {a, b}| == 1."""

    n_vertices: int
    edges: np.ndarray  # int64 (m, 2)

    def __post_init__(self) -> None:
        edges = np.asarray(self.edges, dtype=np.int64).reshape(-1, 2)
        if edges.size and (edges.min() < 0 or edges.max() >= self.n_vertices):
            raise ValueError("edge endpoint outside the vertex set")
        object.__setattr__(self, "edges", edges)

    @property
    def n(self) -> int:
        return int(self.n_vertices)

    @property
    def m(self) -> int:
        return int(self.edges.shape[0])

    def value(self, members) -> float:
        mask = np.zeros(self.n, dtype=bool)
        mask[np.asarray(members, dtype=np.int64)] = True
        return float(self.values(mask[None, :])[0])

    def values(self, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks, dtype=bool)
        a = masks[:, self.edges[:, 0]]
        b = masks[:, self.edges[:, 1]]
        return (a ^ b).sum(axis=1).astype(np.float64)
