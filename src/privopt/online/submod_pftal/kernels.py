"""The numba kernels of SubmodPFTAL and BanditSubmodPFTAL (Rivera Cardoso & Cummings; docs/papers/cardoso2019.md).

:func:`submod_full_kernel` (full information, its private sums from any continual counter of
:mod:`privopt.mechanisms.counting`) and :func:`submod_bandit_kernel` (the bandit estimate, TBAP's own step), one
replica after the other; the inline helpers :func:`explore_probs_into` and :func:`bandit_estimate_into` are also
what :func:`privopt.online.submod_pftal.algorithm.bandit_estimate_law` enumerates.  The algorithms, their
parameters and the driver are in :mod:`privopt.online.submod_pftal.algorithm`; the numpy twins in
:mod:`privopt.online.submod_pftal.reference`.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.fastrng import rng_uniform
from privopt.mechanisms.counting import laplace_counter_step
from privopt.mechanisms.dyadic_counter import tree_step
from privopt.mechanisms.node_noise import LAPLACE
from privopt.mechanisms.tbap import tbap_add
from privopt.mechanisms.tree import tree_depth
from privopt.submodular.cuts import cut_chain_into, sort_chain

__all__ = ["explore_probs_into", "bandit_estimate_into", "submod_full_kernel", "submod_bandit_kernel"]


@numba.njit(cache=True, inline="always")
def explore_probs_into(x, perm, n, gm, rho):
    """ρ_k = (1 − γ)θ_k + γ/(n+1), k = 0..n, on the chain ``perm`` of x."""
    unif = gm / (n + 1)
    rho[0] = (1.0 - gm) * (1.0 - x[perm[0]]) + unif
    for k in range(1, n):
        rho[k] = (1.0 - gm) * (x[perm[k - 1]] - x[perm[k]]) + unif
    rho[n] = (1.0 - gm) * x[perm[n - 1]] + unif


@numba.njit(cache=True, inline="always")
def bandit_estimate_into(y, rho, perm, n, k, us, g):
    """ĝ into g for the played chain index k, value y = f(B_k) and sign uniform ``us`` (σ = +1 iff us < ½)."""
    for i in range(n):
        g[i] = 0.0
    if k == 0:
        g[perm[0]] = -y / rho[0]
    elif k == n:
        g[perm[n - 1]] = y / rho[n]
    elif us < 0.5:
        g[perm[k - 1]] = 2.0 * y / rho[k]
    else:
        g[perm[k]] = -2.0 * y / rho[k]


@numba.njit(cache=True)
def submod_full_kernel(base, half, cells, rows, nbr, wts, T, H, mu, code, scale, cn, params, ibuf0, buf, noise, play,
                       exp_loss, real_loss, max_ratio, xrec):
    """SubmodPFTAL for every replica r: Σ_t f̂_t(x_t) into ``exp_loss[r]``, Σ_t f_t(S_t) into
    ``real_loss[r]``, max_t ‖z_t‖/μ into ``max_ratio[r]``.

    base (n,); cells (S, ≥T) cell streams; rows (R,) stream row per replica; nbr, wts the graph
    (:func:`padded_adjacency`); H, mu (R,); the continual counter of the private sum of the z_t:
    ``code, cn, params, ibuf0, buf`` the fields of its :class:`~privopt.mechanisms.counting.CounterState` (ℓ2-Laplace
    seeds; the same counter for every replica; ``buf`` is zeroed and the leaf ``ibuf0`` restored per replica), its
    seed scale per replica ``scale`` (R,) (0: ε = ∞, no draws); noise/play (R, 4) FastGenerator states (advanced);
    xrec (R, T+1, n) gets x_1..x_{T+1}, or is (R, 0, n).  The release after round t is Σ_{τ≤t} z_τ + N(t), N(t)
    from the tree's step, inlined (TBAP, the paper's), or :func:`~privopt.mechanisms.counting.laplace_counter_step`
    (a plain call) for the other counters: at most one counter inlined in the loop (docs/continual-counting.md §4).
    """
    R = H.shape[0]
    n = base.shape[0]
    x = np.zeros(n)
    a = np.zeros(n)
    g = np.zeros(n)
    z = np.zeros(n)
    S = np.zeros(n)
    xsum = np.zeros(n)
    nz = np.zeros(n)
    gbuf = np.zeros(n)
    ibuf = np.zeros_like(ibuf0)
    vals = np.zeros(n + 1)
    inset = np.zeros(n + 1, dtype=np.bool_)
    perm = np.zeros(n, dtype=np.int64)
    scratch = np.zeros(n + 1, dtype=np.int64)
    record = xrec.shape[1] > 0
    for r in range(R):
        for i in range(n):
            x[i] = 0.0
            S[i] = 0.0
            xsum[i] = 0.0
            nz[i] = 0.0
            perm[i] = i
        buf[:, :] = 0.0
        for j in range(ibuf0.shape[0]):
            ibuf[j] = ibuf0[j]
        h = H[r]
        sc = scale[r]
        ex = 0.0
        re = 0.0
        worst = 0.0
        row = rows[r]
        nst = noise[r]
        pst = play[r]
        for t in range(1, T + 1):
            if record:
                for i in range(n):
                    xrec[r, t - 1, i] = x[i]
            for i in range(n):
                a[i] = base[i]
            c = cells[row, t - 1]
            a[c] -= half
            sort_chain(x, perm, n, scratch)
            cut_chain_into(a, nbr, wts, perm, n, inset, vals, g)
            # f̂(x) = Σ_k θ_k f(B_k), θ_0 = 1 − x_{π1}, θ_k = x_{πk} − x_{π(k+1)}, θ_n = x_{πn}
            fh = (1.0 - x[perm[0]]) * vals[0]
            for k in range(1, n):
                fh += (x[perm[k - 1]] - x[perm[k]]) * vals[k]
            fh += x[perm[n - 1]] * vals[n]
            ex += fh
            tau = rng_uniform(pst)
            cnt = 0
            for i in range(n):  # branch-free count (x_i > τ is a coin flip per coordinate under large noise)
                cnt += x[i] > tau
            re += vals[cnt]
            ss = 0.0
            for i in range(n):
                z[i] = g[i] + h * x[i]
                ss += z[i] * z[i]
            ratio = math.sqrt(ss) / mu[r]
            if ratio > worst:
                worst = ratio
            for i in range(n):
                xsum[i] = xsum[i] + z[i]
            if sc > 0.0:  # ε = ∞: N(t) = 0 and no draws
                if code == 0:  # the tree (TBAP, RC-1's path) inlined: the one counter of this loop
                    tree_step(t, LAPLACE, sc, n, cn, buf, nst, gbuf, nz)
                else:
                    laplace_counter_step(code, sc, n, cn, params, ibuf, buf, nst, gbuf, t, nz)
            for i in range(n):
                S[i] = S[i] + x[i]
            for i in range(n):
                v = S[i] / t - (xsum[i] + nz[i]) / (h * t)
                x[i] = 0.0 if v < 0.0 else (1.0 if v > 1.0 else v)
        if record:
            for i in range(n):
                xrec[r, T, i] = x[i]
        exp_loss[r] = ex
        real_loss[r] = re
        max_ratio[r] = worst


@numba.njit(cache=True)
def submod_bandit_kernel(base, half, cells, rows, nbr, wts, T, H, gamma, mu, lam, noise, play,
                         exp_loss, real_loss, max_ratio, krec, vrec):
    """BanditSubmodPFTAL for every replica r: Σ_t Σ_k ρ_k f_t(B_k) into ``exp_loss[r]``, Σ_t f_t(S_t) into
    ``real_loss[r]``, max_t ‖z_t‖/μ into ``max_ratio[r]``.  gamma (R,); krec (R, T) gets the played chain
    index k_t (= |S_t|) and vrec (R, T, n) the releases v̂_t, or they have no columns."""
    R = H.shape[0]
    n = base.shape[0]
    m = tree_depth(T)
    x = np.zeros(n)
    a = np.zeros(n)
    g = np.zeros(n)
    z = np.zeros(n)
    S = np.zeros(n)
    xsum = np.zeros(n)
    gbuf = np.zeros(n)
    vals = np.zeros(n + 1)
    rho = np.zeros(n + 1)
    inset = np.zeros(n + 1, dtype=np.bool_)
    perm = np.zeros(n, dtype=np.int64)
    scratch = np.zeros(n + 1, dtype=np.int64)
    eta = np.zeros((m, n))
    partial = np.zeros((m + 1, n))
    keep_k = krec.shape[1] > 0
    keep_v = vrec.shape[1] > 0
    for r in range(R):
        for i in range(n):
            x[i] = 0.0
            S[i] = 0.0
            xsum[i] = 0.0
            perm[i] = i
        eta[:, :] = 0.0
        partial[:, :] = 0.0
        h = H[r]
        gm = gamma[r]
        ex = 0.0
        re = 0.0
        worst = 0.0
        row = rows[r]
        nst = noise[r]
        pst = play[r]
        for t in range(1, T + 1):
            for i in range(n):
                a[i] = base[i]
            c = cells[row, t - 1]
            a[c] -= half
            sort_chain(x, perm, n, scratch)
            cut_chain_into(a, nbr, wts, perm, n, inset, vals, g)
            explore_probs_into(x, perm, n, gm, rho)
            e = 0.0
            for k in range(n + 1):
                e += rho[k] * vals[k]
            ex += e
            u = rng_uniform(pst)
            us = rng_uniform(pst)
            k = 0
            acc = rho[0]
            while k < n and u >= acc:
                k += 1
                acc += rho[k]
            y = vals[k]
            re += y
            if keep_k:
                krec[r, t - 1] = k
            bandit_estimate_into(y, rho, perm, n, k, us, g)
            ss = 0.0
            for i in range(n):
                z[i] = g[i] + h * x[i]
                ss += z[i] * z[i]
            ratio = math.sqrt(ss) / mu[r]
            if ratio > worst:
                worst = ratio
            tbap_add(nst, t, n, lam[r], z, xsum, eta, partial, gbuf)
            if keep_v:
                for i in range(n):
                    vrec[r, t - 1, i] = xsum[i] + partial[0, i]
            for i in range(n):
                S[i] = S[i] + x[i]
            for i in range(n):
                v = S[i] / t - (xsum[i] + partial[0, i]) / (h * t)
                x[i] = 0.0 if v < 0.0 else (1.0 if v > 1.0 else v)
        exp_loss[r] = ex
        real_loss[r] = re
        max_ratio[r] = worst
