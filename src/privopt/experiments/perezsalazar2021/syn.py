"""SYN-CLICK: the paper's motivating click model, and its variants (perezsalazar2021 reading R18).

Generator (instance seed s₀, numpy ``default_rng(s₀)``, exactly as perezsalazar2021 reading R18 describes)::

    pi ~ Dirichlet(1_M);  P = full((M, n), p_base)
    for m in 0..M−1: liked = rng.choice(n, L, replace=False); P[m, liked] = rng.uniform(0.3, 0.9, L)

Round t: a user of type ``m_t ~ pi`` (i.i.d.) arrives and ``f_t(S) = 1 − Π_{a∈S}(1 − P[m_t, a])`` is the
probability that they click one of the k products shown.  Variants (config ``perezsalazar2021.syn``):
``main`` (n=30, M=20, L=3, s₀=0), ``s2`` (n=10, M=10, L=2, s₀=1; bandit), ``s1`` (n=5, M=6, L=2, s₀=4;
bandit at certified ε), ``pad`` (``s2`` plus n − 10 dummy products with P = p_base for every type: the
ln n sweep; the dummies are dominated, so the exact optimum enumerates the real ones) and ``mle`` (the
multilinear extension of ``main``, Algorithm 4).

Type streams: one stream per (instance, seed), from ``privopt.seeding`` (stream ``syn_types``, keyed by
the instance's parameters); horizon T uses its first T rounds (``u ~ U[0,1)`` per round, inverse CDF of
pi), so every ε, algorithm and horizon of a seed sees the same users (common random numbers).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from privopt import seeding

__all__ = ["PAPER", "click_model", "padded", "instance_matrix", "type_stream", "stream_key"]

PAPER = "perezsalazar2021"


def click_model(n: int, M: int, L: int, p_base: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(pi, P) of SYN-CLICK with the generator of perezsalazar2021 reading R18."""
    if not 1 <= L <= n:
        raise ValueError(f"need 1 <= L <= n, got L={L}, n={n}")
    rng = np.random.default_rng(int(seed))
    pi = rng.dirichlet(np.ones(M))
    P = np.full((M, n), float(p_base))
    for m in range(M):
        liked = rng.choice(n, L, replace=False)
        P[m, liked] = rng.uniform(0.3, 0.9, L)
    return pi, P


def padded(P: np.ndarray, n: int, p_base: float) -> np.ndarray:
    """SYN-CLICK-PAD: ``P`` with n − (its columns) dummy products appended, P = p_base for every type."""
    extra = int(n) - P.shape[1]
    if extra < 0:
        raise ValueError(f"the padded instance needs n >= {P.shape[1]}, got {n}")
    return np.hstack([P, np.full((P.shape[0], extra), float(p_base))])


def instance_matrix(spec: Mapping[str, Any], n: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(pi, P) of an instance spec ``{n, M, L, p_base, seed}``; with ``n`` larger than the instance's, padded."""
    pi, P = click_model(int(spec["n"]), int(spec["M"]), int(spec["L"]), float(spec["p_base"]), int(spec["seed"]))
    if n is not None and int(n) != P.shape[1]:
        P = padded(P, int(n), float(spec["p_base"]))
    return pi, P


def stream_key(spec: Mapping[str, Any]) -> dict:
    """What keys an instance's type streams: its generator parameters (not n of a padding)."""
    return {k: spec[k] for k in ("n", "M", "L", "p_base", "seed")}


def type_stream(pi: np.ndarray, T: int, spec: Mapping[str, Any], seed: int) -> np.ndarray:
    """The first T user types of data stream ``seed`` of the instance ``spec`` (int32)."""
    rng = seeding.rng(PAPER, "syn_types", stream_key(spec), int(seed))
    cdf = np.cumsum(pi)
    cdf[-1] = 1.0
    return np.searchsorted(cdf, rng.random(int(T)), side="right").astype(np.int32)
