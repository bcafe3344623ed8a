"""The numba kernels of private follow-the-approximate-leader (Smith & Thakurta 2013; docs/papers/smith2013.md).

:func:`pftal_kernel` (full information, :mod:`privopt.online.pftal.full`) and :func:`bandit_pftal_kernel` (one-point
bandit estimates, :mod:`privopt.online.pftal.bandit`): one replica after the other, no allocation in the loop.
Their plain twins, vectorised over replicas with :class:`privopt.mechanisms.tree.TreeAggregator` as the tree, are
:mod:`privopt.online.pftal.reference`; the two agree bit for bit (tests/test_pftal.py).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.mechanisms.counting import laplace_counter_step
from privopt.mechanisms.dyadic_counter import tree_step
from privopt.mechanisms.laplace import uniform_direction_into
from privopt.mechanisms.node_noise import LAPLACE
from privopt.mechanisms.tbap import tbap_add
from privopt.mechanisms.tree import tree_depth
from privopt.online.pftal.losses import loss_grad_into
from privopt.online.pftal.projections import project_ball_inplace

__all__ = ["pftal_kernel", "bandit_pftal_kernel"]


@numba.njit(cache=True)
def pftal_kernel(pts, idx, rows, kind, regularised, T, H, mu, radius, code, scale, n, params, ibuf0, nrows,
                 states, cum, max_ratio, wrec):
    """PFTAL for every replica r: cumulative loss into ``cum[r]``, max_t ‖z_t‖/μ into ``max_ratio[r]``.

    pts (N, p) points; idx (S, ≥T) point indices per seed row; rows (R,) seed row of each replica;
    kind: loss code; regularised: add H·ŵ_t to the gradient; H, mu (R,); wrec (R, T+1, p) receives
    ŵ_1..ŵ_{T+1}, or has shape (R, 0, p).  The private prefix sum is the exact Σ z_τ plus the noise N(t) of
    a continual counter (:mod:`privopt.mechanisms.counting`), shared by every replica but for its seed scale:
    code, n, params (the :class:`~privopt.mechanisms.counting.CounterState` fields; ℓ2-Laplace seeds, the pure-ε
    law), ``scale`` (R,) each replica's seed scale (0: ε = ∞, no draw), ``ibuf0`` the initial ``ibuf``, ``nrows`` the rows of ``buf``;
    ``states`` (R, 4) the replicas' noise states (advanced in place).  The counter's state is reset per
    replica (``buf`` zeroed, ``ibuf`` back to ``ibuf0``).  One kernel for every counter (docs
    continual-counting.md §4: at most one counter inlined in a loop): the tree's step is inlined (ST-1's path, as
    fast as the former ``tbap_add`` and with its numbers bit for bit at TBAP's λ), the others are a plain call.
    """
    R = H.shape[0]
    p = pts.shape[1]
    w = np.zeros(p)
    g = np.zeros(p)
    z = np.zeros(p)
    S = np.zeros(p)
    xsum = np.zeros(p)
    noise = np.zeros(p)
    gbuf = np.zeros(p)
    buf = np.zeros((nrows, p))
    ibuf = ibuf0.copy()
    record = wrec.shape[1] > 0
    for r in range(R):
        for i in range(p):
            w[i] = 0.0
            S[i] = 0.0
            xsum[i] = 0.0
            noise[i] = 0.0
        buf[:, :] = 0.0
        for j in range(ibuf.shape[0]):
            ibuf[j] = ibuf0[j]
        h = H[r]
        lam = scale[r]
        total = 0.0
        worst = 0.0
        row = rows[r]
        state = states[r]
        for t in range(1, T + 1):
            if record:
                for i in range(p):
                    wrec[r, t - 1, i] = w[i]
            total += loss_grad_into(kind, w, pts, idx[row, t - 1], p, g)
            ss = 0.0
            for i in range(p):
                z[i] = g[i] + h * w[i] if regularised else g[i]
                ss += z[i] * z[i]
            ratio = math.sqrt(ss) / mu[r]
            if ratio > worst:
                worst = ratio
            for i in range(p):
                xsum[i] = xsum[i] + z[i]
            if lam != 0.0:
                if code == 0:  # the tree (TBAP, ST-1's path) inlined: the one counter of this loop
                    tree_step(t, LAPLACE, lam, p, n, buf, state, gbuf, noise)
                else:
                    laplace_counter_step(code, lam, p, n, params, ibuf, buf, state, gbuf, t, noise)
            for i in range(p):
                S[i] = S[i] + w[i]
            for i in range(p):
                w[i] = S[i] / t - (xsum[i] + noise[i]) / (h * t)
            project_ball_inplace(w, p, radius)
        if record:
            for i in range(p):
                wrec[r, T, i] = w[i]
        cum[r] = total
        max_ratio[r] = worst


@numba.njit(cache=True)
def bandit_pftal_kernel(pts, idx, rows, kind, T, H, beta, mu, lam, radius, noise, explore, cum, max_ratio, max_value):
    """Bandit PFTAL for every replica r: Σ_t f_t(ŵ_t) into ``cum[r]``, max_t ‖z_t‖/μ into ``max_ratio[r]``,
    max_t |y_t| into ``max_value[r]``.  H, beta, mu, lam (R,); ``noise``/``explore`` (R, 4) states."""
    R = H.shape[0]
    p = pts.shape[1]
    m = tree_depth(T)
    wt = np.zeros(p)
    wp = np.zeros(p)
    u = np.zeros(p)
    g = np.zeros(p)
    z = np.zeros(p)
    S = np.zeros(p)
    xsum = np.zeros(p)
    gbuf = np.zeros(p)
    eta = np.zeros((m, p))
    partial = np.zeros((m + 1, p))
    for r in range(R):
        for i in range(p):
            wt[i] = 0.0
            S[i] = 0.0
            xsum[i] = 0.0
        eta[:, :] = 0.0
        partial[:, :] = 0.0
        h = H[r]
        b = beta[r]
        shrunk = radius * (1.0 - b / radius)
        total = 0.0
        worst = 0.0
        ymax = 0.0
        row = rows[r]
        noise_r = noise[r]
        explore_r = explore[r]
        for t in range(1, T + 1):
            uniform_direction_into(explore_r, p, u)
            for i in range(p):
                wp[i] = wt[i] + b * u[i]
            y = loss_grad_into(kind, wp, pts, idx[row, t - 1], p, g)
            total += y
            if abs(y) > ymax:
                ymax = abs(y)
            ss = 0.0
            for i in range(p):
                z[i] = (p / b) * y * u[i]
                ss += z[i] * z[i]
            ratio = math.sqrt(ss) / mu[r]
            if ratio > worst:
                worst = ratio
            tbap_add(noise_r, t, p, lam[r], z, xsum, eta, partial, gbuf)
            for i in range(p):
                S[i] = S[i] + wt[i]
            for i in range(p):
                wt[i] = S[i] / t - (xsum[i] + partial[0, i]) / (h * t)
            project_ball_inplace(wt, p, shrunk)
        cum[r] = total
        max_ratio[r] = worst
        max_value[r] = ymax
