"""The Lovász extension of a set function: chain, value, subgradient and level-set rounding.

docs/papers/cardoso2019.md, reading R3 (Rivera Cardoso & Cummings §2.2, Lemmas 2–3).
For f: 2^[n] → R and x ∈ [0, 1]^n::

    π = argsort(−x, stable)                  ties broken by index (cardoso2019 reading R3)
    B_0 = ∅, B_k = {π[1..k]}                 the maximal chain of x
    θ_0 = 1 − x_{π[1]}, θ_k = x_{π[k]} − x_{π[k+1]} (1 ≤ k < n), θ_n = x_{π[n]}
    f̂(x) = Σ_k θ_k f(B_k) = f(∅) + ⟨g, x⟩,   g[π[k]] = f(B_k) − f(B_{k−1})

g is a subgradient of f̂ at x when f is submodular (then f̂ is convex), and rounding by a level
set S_τ = {i : x_i > τ}, τ ~ U[0, 1), gives E_τ f(S_τ) = f̂(x) exactly: S_τ = B_k with
k = #{i : x_i > τ}, which has probability θ_k.

Two implementations of everything the learners use: generic numpy functions taking a set
function ``f(masks) -> values`` on boolean masks (m, n) (tests, any submodular f), and the numba
kernels of cut + modular functions (:mod:`privopt.submodular.cuts`), which the learners call.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

__all__ = ["chain", "chain_masks", "lovasz_value_grad", "lovasz_by_integral", "round_level_set",
           "all_masks", "is_submodular"]

SetFunction = Callable[[np.ndarray], np.ndarray]


def chain(x) -> tuple[np.ndarray, np.ndarray]:
    """(π, θ): the stable order of −x and the chain weights θ_0..θ_n (θ ≥ 0, Σθ = 1 on [0, 1]^n)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"x must be a vector, got shape {x.shape}")
    perm = np.argsort(-x, kind="stable")
    xs = x[perm]
    theta = np.empty(x.size + 1)
    theta[0] = 1.0 - xs[0] if x.size else 1.0
    theta[1:-1] = xs[:-1] - xs[1:]
    if x.size:
        theta[-1] = xs[-1]
    return perm, theta


def chain_masks(perm: np.ndarray) -> np.ndarray:
    """(n+1, n) boolean masks of B_0..B_n for the order π."""
    n = perm.size
    masks = np.zeros((n + 1, n), dtype=bool)
    for k in range(1, n + 1):
        masks[k] = masks[k - 1]
        masks[k, perm[k - 1]] = True
    return masks


def lovasz_value_grad(f: SetFunction, x) -> tuple[float, np.ndarray]:
    """(f̂(x), g): the Lovász extension at x ∈ [0, 1]^n and the chain subgradient (n+1 calls of f, batched)."""
    x = np.asarray(x, dtype=np.float64)
    if np.any(x < 0) or np.any(x > 1):
        raise ValueError("x must lie in [0, 1]^n")
    perm, theta = chain(x)
    vals = np.asarray(f(chain_masks(perm)), dtype=np.float64)
    g = np.empty(x.size)
    g[perm] = np.diff(vals)
    return float(theta @ vals), g


def lovasz_by_integral(f: SetFunction, x) -> float:
    """f̂(x) = ∫_0^1 f({i : x_i > τ}) dτ, evaluated piecewise between the distinct values of x (a second,
    sort-free implementation for the tests)."""
    x = np.asarray(x, dtype=np.float64)
    cuts = np.unique(np.concatenate([[0.0, 1.0], x]))
    mids = 0.5 * (cuts[:-1] + cuts[1:])
    vals = np.asarray(f(x[None, :] > mids[:, None]), dtype=np.float64)
    return float(np.diff(cuts) @ vals)


def round_level_set(x, tau: float) -> np.ndarray:
    """The level set S_τ = {i : x_i > τ} as a boolean mask (τ ~ U[0, 1) gives E f(S_τ) = f̂(x))."""
    return np.asarray(x, dtype=np.float64) > tau


def all_masks(n: int) -> np.ndarray:
    """(2^n, n) boolean masks of every subset, subset s having bit i = s >> i & 1."""
    s = np.arange(1 << n, dtype=np.int64)
    return ((s[:, None] >> np.arange(n)) & 1).astype(bool)


def is_submodular(f: SetFunction, n: int, tol: float = 1e-9) -> tuple[bool, str]:
    """Exhaustive diminishing-returns check: f(S'∪i) − f(S') ≥ f(S∪i) − f(S) for every S' ⊆ S, i ∉ S.

    Uses the equivalent local form f(A∪i) − f(A) ≥ f(A∪{i,j}) − f(A∪j) for all A, i ≠ j ∉ A (which
    implies the general one by telescoping), and also checks the general form over all pairs for
    n ≤ 6.  Returns (ok, first violation in words).
    """
    vals = np.asarray(f(all_masks(n)), dtype=np.float64)
    for a in range(1 << n):
        for i, j in itertools.permutations(range(n), 2):
            bi, bj = 1 << i, 1 << j
            if a & bi or a & bj:
                continue
            lhs = vals[a | bi] - vals[a]
            rhs = vals[a | bi | bj] - vals[a | bj]
            if lhs < rhs - tol:
                return False, f"A = {a:#b}, i = {i}, j = {j}: {lhs:.6g} < {rhs:.6g}"
    if n <= 6:
        for big in range(1 << n):
            sub = big
            while True:
                for i in range(n):
                    bi = 1 << i
                    if not big & bi and vals[sub | bi] - vals[sub] < vals[big | bi] - vals[big] - tol:
                        return False, f"S' = {sub:#b}, S = {big:#b}, i = {i}"
                if sub == 0:
                    break
                sub = (sub - 1) & big
    return True, ""
