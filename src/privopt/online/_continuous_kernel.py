"""Numba kernel of Algorithm 4 (Perez-Salazar & Cummings, Sec. 5 / App. C) on the multilinear extension of a
coverage stream; every replica in one call (see :mod:`privopt.online.dr_submodular`).

Per round t (1-based) of a replica with K experts E_0..E_{K−1}:

* play ``x_t = (1/K) Σ_j v_t^j`` and receive ``F_t(x_t) = 1 − Π_a (1 − P[m_t, a] x_a)``;
* for j = 0..K−1: ``x_t^j = (1/K) Σ_{i<j} v_t^i`` and ``c_t^j = ∇F_t(x_t^j)``, i.e.
  ``c_a = P[m, a]·Π_{b≠a}(1 − P[m, b] x_b)`` (prefix and suffix products: no division);
* each expert is PFTAL with linear gains: ``v_{t+1}^j = Π_{P_k}(Ĉ_t^j / (H t))`` with ``Ĉ_t^j`` the noisy
  prefix sum of its gradients by tree aggregation ("dyadic" binary mechanism: item t completes the node of
  level tz(t), which gets a fresh noise vector; ``Ĉ_t`` = exact prefix sum + the noises of the levels of the
  set bits of t), ``v_1^j = Π(0) = 0``;
* node noise: the ℓ2-Laplace ("Gamma-norm") law, density ∝ exp(−‖b‖₂/λ): radius ~ Gamma(n, λ), direction
  uniform; canonical draw order one Gamma(n) then n standard normals (replica's xoshiro256++ stream);
* projection on ``P_k = {x ∈ [0,1]^n : Σ x ≤ k}``: clip; if the sum exceeds k, bisection (64 halvings) on τ
  in ``Σ clip(y − τ, 0, 1) = k``.

Recorded: ALG = Σ_t F_t(x_t), each expert's exact gradient sum C^j and its linear gain Σ_t c_t^j·v_t^j
(for the linear regrets r_j = max_{v∈P_k} C^j·v − Σ_t c_t^j·v_t^j of Lemma 7).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.fastrng import rng_gamma_t, rng_load, rng_normal_t, rng_store

__all__ = ["project_capped_simplex", "l2_laplace_draw", "l2_laplace_block", "cont_kernel"]


@numba.njit(cache=True, inline="always")
def l2_laplace_draw(st, lam, out):
    """One ℓ2-Laplace vector (density ∝ exp(−‖b‖₂/λ)) into ``out``: radius Gamma(n)·λ, then n normals for
    the direction; returns the new state tuple."""
    n = out.shape[0]
    radius, st = rng_gamma_t(st, float(n))
    ss = 0.0
    for a in range(n):
        z, st = rng_normal_t(st)
        out[a] = z
        ss += z * z
    scale = lam * radius / math.sqrt(ss)
    for a in range(n):
        out[a] *= scale
    return st


@numba.njit(cache=True)
def l2_laplace_block(state, lam, out):
    """Rows of ``out`` filled with independent :func:`l2_laplace_draw` vectors (tests); advances ``state``."""
    st = rng_load(state)
    for i in range(out.shape[0]):
        st = l2_laplace_draw(st, lam, out[i])
    rng_store(state, st)


@numba.njit(cache=True)
def project_capped_simplex(y, k, out):
    """Euclidean projection of y on {x ∈ [0,1]^n : Σ x ≤ k} into ``out``."""
    n = y.shape[0]
    total = 0.0
    for a in range(n):
        v = min(max(y[a], 0.0), 1.0)
        out[a] = v
        total += v
    if total <= k:
        return
    lo, hi = 0.0, 0.0
    for a in range(n):
        if y[a] > hi:
            hi = y[a]
    for _ in range(64):
        tau = 0.5 * (lo + hi)
        s = 0.0
        for a in range(n):
            s += min(max(y[a] - tau, 0.0), 1.0)
        if s > k:
            lo = tau
        else:
            hi = tau
    for a in range(n):
        out[a] = min(max(y[a] - hi, 0.0), 1.0)


@numba.njit(cache=True, inline="always")
def _gradient(P, m, x, n, pre, c):
    """c = ∇F(x) of F(x) = 1 − Π(1 − P[m,a] x_a); returns F(x)."""
    acc = 1.0
    for a in range(n):
        pre[a] = acc
        acc *= 1.0 - P[m, a] * x[a]
    suf = 1.0
    for a in range(n - 1, -1, -1):
        c[a] = P[m, a] * pre[a] * suf
        suf *= 1.0 - P[m, a] * x[a]
    return 1.0 - acc


@numba.njit(cache=True)
def cont_kernel(P, types, stream_of, k, K_of, T, H, lam, states, alg, C_out, lin_out):
    """Algorithm 4 for every replica (module docstring): ``K_of[r]`` experts, PFTAL parameters ``H[r]`` and
    node-noise scale ``lam[r]`` (λ = 0: no noise, no draws).  Outputs ALG (R,), the exact gradient sums
    C^j (R, Kmax, n) and the linear gains Σ_t c_t^j·v_t^j (R, Kmax)."""
    R = K_of.shape[0]
    n = P.shape[1]
    Kmax = 1
    for r in range(R):
        if K_of[r] > Kmax:
            Kmax = K_of[r]
    L = 1
    while (1 << L) <= T:
        L += 1
    v = np.zeros((Kmax, n))
    C = np.zeros((Kmax, n))
    noise = np.zeros((Kmax, L, n))
    x = np.zeros(n)
    xj = np.zeros(n)
    c = np.zeros(n)
    pre = np.zeros(n)
    y = np.zeros(n)
    for r in range(R):
        K = K_of[r]
        s = stream_of[r]
        st = rng_load(states[r])
        for j in range(K):
            for a in range(n):
                v[j, a] = 0.0
                C[j, a] = 0.0
            lin_out[r, j] = 0.0
            for lv in range(L):
                for a in range(n):
                    noise[j, lv, a] = 0.0
        total = 0.0
        for t in range(1, T + 1):
            m = types[s, t - 1]
            for a in range(n):
                x[a] = 0.0
                xj[a] = 0.0
            for j in range(K):
                for a in range(n):
                    x[a] += v[j, a] / K
            # reward F_t(x_t)
            prod = 1.0
            for a in range(n):
                prod *= 1.0 - P[m, a] * x[a]
            total += 1.0 - prod
            level = 0
            while ((t >> level) & 1) == 0:
                level += 1
            for j in range(K):
                _gradient(P, m, xj, n, pre, c)
                lin = 0.0
                for a in range(n):
                    C[j, a] += c[a]
                    lin += c[a] * v[j, a]
                lin_out[r, j] += lin
                # the node of level tz(t) completes: a fresh noise vector; lower levels are no longer used
                if lam[r] > 0.0:
                    st = l2_laplace_draw(st, lam[r], noise[j, level])
                for a in range(n):
                    y[a] = C[j, a]
                for lv in range(L):
                    if (t >> lv) & 1:
                        for a in range(n):
                            y[a] += noise[j, lv, a]
                for a in range(n):
                    y[a] /= H[r] * t
                # the prefix point of the next expert uses this expert's current v (before its update)
                for a in range(n):
                    xj[a] += v[j, a] / K
                project_capped_simplex(y, float(k), v[j])
        alg[r] = total
        for j in range(K):
            for a in range(n):
                C_out[r, j, a] = C[j, a]
        rng_store(states[r], st)
