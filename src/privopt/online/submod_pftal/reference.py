"""The numpy twins of the SubmodPFTAL kernels (:mod:`privopt.online.submod_pftal.kernels`), vectorised over replicas.

Given per-replica :class:`privopt.fastrng.FastGenerator` states they draw the kernels' numbers (equal to rounding
for ε < ∞; at ε = ∞ exact ties between coordinates of x, which the closed-form subgradient here may split by one
ulp, can be broken differently: tests/test_cardoso2019.py); given numpy Generators they draw in bulk (the same law;
the baseline of benchmarks/bench_submod_pftal.py).
"""

from __future__ import annotations

import numpy as np

from privopt.mechanisms.laplace import l2_laplace, l2_laplace_rows
from privopt.mechanisms.tree import TreeAggregator
from privopt.submodular.cuts import CutInstance

__all__ = ["submod_full_reference", "submod_bandit_reference"]


def _incidence(n: int, edges: np.ndarray) -> np.ndarray:
    inc = np.zeros((edges.shape[0], n))
    inc[np.arange(edges.shape[0]), edges[:, 0]] = 1.0
    inc[np.arange(edges.shape[0]), edges[:, 1]] = -1.0
    return inc


def _numpy_round(inst: CutInstance, inc, x, c):
    """Vectorised chain of every replica: (perm, θ, vals (R, n+1), g (R, n)) by the closed form."""
    R, n = x.shape
    perm = np.argsort(-x, axis=1, kind="stable")
    rank = np.empty_like(perm)
    np.put_along_axis(rank, perm, np.arange(n)[None, :], axis=1)
    a = np.broadcast_to(inst.base, (R, n)).copy()
    a[np.arange(R), c] -= inst.demand
    ei, ej = inst.edges[:, 0], inst.edges[:, 1]
    s = np.sign(rank[:, ej] - rank[:, ei]) * inst.w[None, :]
    g = a + s @ inc
    vals = np.zeros((R, n + 1))
    vals[:, 1:] = np.cumsum(np.take_along_axis(g, perm, axis=1), axis=1)
    xs = np.take_along_axis(x, perm, axis=1)
    theta = np.empty((R, n + 1))
    theta[:, 0] = 1.0 - xs[:, 0]
    theta[:, 1:-1] = xs[:, :-1] - xs[:, 1:]
    theta[:, -1] = xs[:, -1]
    return perm, theta, vals, g


def _tree(T, R, n, lam, gens):
    if isinstance(gens, np.random.Generator):
        def sampler(_rng):
            return l2_laplace_rows(gens, n, lam)
    else:
        def sampler(_rng):
            return np.stack([l2_laplace(gens[r], n, float(lam[r])) for r in range(R)])
    return TreeAggregator(T, (R, n), sampler, None, construction="dyadic")


def _uniforms(gens, R):
    if isinstance(gens, np.random.Generator):
        return gens.random(R)
    return np.array([gens[r].random() for r in range(R)])


def submod_full_reference(inst: CutInstance, cells, rows, T, H, mu, lam, noise_gens, play_gens):
    """The numpy version of :func:`submod_full_kernel`, vectorised over replicas.

    ``noise_gens``/``play_gens``: per-replica FastGenerators (the kernel's numbers) or numpy Generators
    (bulk draws).  Returns ``(exp_loss, real_loss, max_ratio)``."""
    H, mu, lam = (np.asarray(v, dtype=np.float64) for v in (H, mu, lam))
    rows = np.asarray(rows, dtype=np.int64)
    R, n = H.shape[0], inst.n
    inc = _incidence(n, inst.edges)
    tree = _tree(T, R, n, lam, noise_gens)
    x = np.zeros((R, n))
    S = np.zeros((R, n))
    xsum = np.zeros((R, n))
    ex, re, worst = np.zeros(R), np.zeros(R), np.zeros(R)
    for t in range(1, T + 1):
        _, theta, vals, g = _numpy_round(inst, inc, x, cells[rows, t - 1])
        ex += np.sum(theta * vals, axis=1)
        tau = _uniforms(play_gens, R)
        re += vals[np.arange(R), np.count_nonzero(x > tau[:, None], axis=1)]
        z = g + H[:, None] * x
        worst = np.maximum(worst, np.sqrt(np.sum(z * z, axis=1)) / mu)
        tree.add(z)
        xsum += z  # the exact sum in the kernel's order (ties at ε = ∞ then break alike)
        S += x
        x = np.clip(S / t - (xsum + tree.noise()) / (H[:, None] * t), 0.0, 1.0)
    return ex, re, worst


def submod_bandit_reference(inst: CutInstance, cells, rows, T, H, gamma, mu, lam, noise_gens, play_gens):
    """The numpy version of :func:`submod_bandit_kernel` (arguments as :func:`submod_full_reference`)."""
    H, gamma, mu, lam = (np.asarray(v, dtype=np.float64) for v in (H, gamma, mu, lam))
    rows = np.asarray(rows, dtype=np.int64)
    R, n = H.shape[0], inst.n
    ar = np.arange(R)
    inc = _incidence(n, inst.edges)
    tree = _tree(T, R, n, lam, noise_gens)
    x = np.zeros((R, n))
    S = np.zeros((R, n))
    xsum = np.zeros((R, n))
    ex, re, worst = np.zeros(R), np.zeros(R), np.zeros(R)
    for t in range(1, T + 1):
        perm, theta, vals, _ = _numpy_round(inst, inc, x, cells[rows, t - 1])
        rho = (1.0 - gamma[:, None]) * theta + (gamma / (n + 1))[:, None]
        ex += np.sum(rho * vals, axis=1)
        if isinstance(play_gens, np.random.Generator):
            u, us = play_gens.random(R), play_gens.random(R)
        else:
            pair = np.array([[play_gens[r].random(), play_gens[r].random()] for r in range(R)]).reshape(R, 2)
            u, us = pair[:, 0], pair[:, 1]
        k = np.minimum(np.sum(np.cumsum(rho, axis=1) <= u[:, None], axis=1), n)
        y = vals[ar, k]
        re += y
        rk = rho[ar, k]
        first, last = k == 0, k == n
        mid = ~first & ~last
        plus = mid & (us < 0.5)
        minus = mid & ~plus
        coord = np.where(first, perm[:, 0], np.where(last, perm[:, n - 1],
                         np.where(plus, perm[ar, np.maximum(k - 1, 0)], perm[ar, np.minimum(k, n - 1)])))
        amount = np.where(first, -y / rk, np.where(last, y / rk, np.where(plus, 2 * y / rk, -2 * y / rk)))
        amount = np.where(minus | plus | first | last, amount, 0.0)
        ghat = np.zeros((R, n))
        ghat[ar, coord] = amount
        z = ghat + H[:, None] * x
        worst = np.maximum(worst, np.sqrt(np.sum(z * z, axis=1)) / mu)
        tree.add(z)
        xsum += z  # the exact sum in the kernel's order (ties at ε = ∞ then break alike)
        S += x
        x = np.clip(S / t - (xsum + tree.noise()) / (H[:, None] * t), 0.0, 1.0)
    return ex, re, worst
