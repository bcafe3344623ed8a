"""The numpy twins of the PFTAL kernels (:mod:`privopt.online.pftal.kernels`): the same arithmetic, vectorised over
replicas, the private prefix sums released by :class:`privopt.mechanisms.tree.TreeAggregator`.

Given one :class:`privopt.fastrng.FastGenerator` per replica they draw the kernels' numbers exactly (the contract
of tests/test_pftal.py); given one numpy ``Generator`` they draw the same law in bulk (the fast numpy version of
benchmarks/bench_pftal.py).
"""

from __future__ import annotations

import numpy as np

from privopt.mechanisms.laplace import l2_laplace, l2_laplace_rows
from privopt.mechanisms.tree import TreeAggregator
from privopt.online.pftal.losses import loss_value_grad, row_norms
from privopt.online.pftal.projections import project_ball

__all__ = ["pftal_reference", "bandit_pftal_reference"]


def pftal_reference(pts, idx, rows, kind, regularised, T, H, mu, lam, radius, gens, record=False):
    """The numpy twin of :func:`~privopt.online.pftal.kernels.pftal_kernel` (same arithmetic, vectorised over replicas).

    ``gens``: one :class:`~privopt.fastrng.FastGenerator` per replica (advanced): the kernel's numbers
    exactly; or one numpy ``Generator`` for all replicas: the same law, node noise drawn in bulk
    (:func:`~privopt.mechanisms.laplace.l2_laplace_rows`; the fast numpy version of the benchmark).
    Returns ``(cum, max_ratio, wrec)`` with ``wrec`` (R, T+1, p) or None.
    """
    H, mu, lam = (np.asarray(a, dtype=np.float64) for a in (H, mu, lam))
    R, p = H.shape[0], pts.shape[1]

    def sampler(_rng):
        if isinstance(gens, np.random.Generator):
            return l2_laplace_rows(gens, p, lam)
        return np.stack([l2_laplace(gens[r], p, float(lam[r])) for r in range(R)])

    tree = TreeAggregator(T, (R, p), sampler, None, construction="dyadic")
    w = np.zeros((R, p))
    S = np.zeros((R, p))
    total = np.zeros(R)
    worst = np.zeros(R)
    wrec = np.zeros((R, T + 1, p)) if record else None
    for t in range(1, T + 1):
        if record:
            wrec[:, t - 1] = w
        f, g = loss_value_grad(kind, w, pts[idx[rows, t - 1]])
        total = total + f
        z = g + H[:, None] * w if regularised else g
        worst = np.maximum(worst, row_norms(z) / mu)
        tree.add(z)
        S = S + w
        w = project_ball(S / t - tree.release() / (H[:, None] * t), radius)
    if record:
        wrec[:, T] = w
    return total, worst, wrec


def bandit_pftal_reference(pts, idx, rows, kind, T, H, beta, mu, lam, radius, noise_gens, explore_gens):
    """The numpy twin of :func:`~privopt.online.pftal.kernels.bandit_pftal_kernel` (same arithmetic, vectorised over replicas).

    Returns ``(cum, max_ratio, max_value)``; the generators are advanced.  ``noise_gens`` and
    ``explore_gens`` are lists of per-replica FastGenerators (the kernel's numbers exactly), or numpy
    ``Generator``s drawing for all replicas at once (same law; the fast numpy version).
    """
    H, beta, mu, lam = (np.asarray(a, dtype=np.float64) for a in (H, beta, mu, lam))
    R, p = H.shape[0], pts.shape[1]
    bulk = isinstance(noise_gens, np.random.Generator)

    def sampler(_rng):
        if bulk:
            return l2_laplace_rows(noise_gens, p, lam)
        return np.stack([l2_laplace(noise_gens[r], p, float(lam[r])) for r in range(R)])

    tree = TreeAggregator(T, (R, p), sampler, None, construction="dyadic")
    shrunk = radius * (1.0 - beta / radius)
    wt = np.zeros((R, p))
    S = np.zeros((R, p))
    total, worst, ymax = np.zeros(R), np.zeros(R), np.zeros(R)
    for t in range(1, T + 1):
        if bulk:
            u = explore_gens.standard_normal((R, p))
        else:
            u = np.stack([np.asarray(explore_gens[r].standard_normal(p), dtype=np.float64) for r in range(R)])
        u = u / row_norms(u)[:, None]
        wp = wt + beta[:, None] * u
        y, _ = loss_value_grad(kind, wp, pts[idx[rows, t - 1]])
        total = total + y
        ymax = np.maximum(ymax, np.abs(y))
        z = (p / beta)[:, None] * y[:, None] * u
        worst = np.maximum(worst, row_norms(z) / mu)
        tree.add(z)
        S = S + wt
        wt = project_ball(S / t - tree.release() / (H[:, None] * t), shrunk)
    return total, worst, ymax
