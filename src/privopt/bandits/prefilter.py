"""The large-d episode kernel: float32 scores with a rigorous error bound, the argmax in float64 (issue 24).

:func:`episode_kernel_prefilter` runs Algorithm 1 (spec private-linear-bandits.md §2.2) and makes, bit for
bit, the decisions of the reference kernel :func:`privopt.bandits.kernels.episode_kernel` — the same
chosen arms, regret records, counters, audit rows and final stream states — at a fraction of the cost
of :func:`~privopt.bandits.kernels.episode_kernel_batched` for the Exp. 1 sizes (K = d² arms, d up to 64).
It changes the method, not the result:

1. **Draws** (the same numbers, :mod:`privopt.bandits.drawbuffer`): the environment stream is read
   through a buffer whose normals' fast path is computed in a vectorised loop; the zone sampler's
   acceptance test f(t)/f(t₀) = r^((d−3)/2) (:func:`privopt.bandits.instances.zone_accept_prob`, a chain
   of d/2 multiplications) is decided by a repeated-squaring power with an error bound, the reference
   product being evaluated only when u lies within that bound of it (:func:`_zone_accept`).  The Gaussian
   directions are stored arms-contiguous (``Gt[i, j]``), so that the d − 1 squares of each arm are summed,
   in the reference's order, for 64 arms at once.
2. **Scores in float32**: with B = C⁻¹Q (the reference's matrix) and x'_j = (T_j, sc_j·g_j),
   W = fl32(B)·fl32(X') by one BLAS sgemm (``np.dot``), then m_j = Σ_i y_i W_ij and n_j = Σ_i W_ij² in
   float64, and u_j = m_j + β·√n_j.
3. **A rigorous bound** E_j with |u_j − v_j| ≤ E_j, v_j the reference kernel's float64 UCB of arm j
   (:func:`_ucb_reference`, the expression of :func:`~privopt.bandits.kernels.episode_kernel`), derived
   below; the candidates are the arms with u_j + E_j ≥ L = max_j (u_j − E_j) (the arm of the true
   maximum is always one), and only they are scored by :func:`_ucb_reference`.
4. **The reference's running argmax** (ties within :data:`~privopt.bandits.kernels.TIE_RTOL` to the
   lowest index) over the candidates in index order.  It returns the reference's arm whenever the
   first candidate c is arm 0 or has v_c > L + TIE_RTOL·|L|: every other arm k has v_k ≤ u_k + E_k < L,
   so when the reference reaches c its running best b (if any) has v_b < L and b + TIE_RTOL·|b| < L +
   TIE_RTOL·|L| < v_c, hence c becomes the best, whose value stays > L; no non-candidate can then replace
   it, and the candidates meet the same comparisons as in the reference.  Otherwise (first candidate
   within TIE_RTOL of L, or a non-finite score or bound anywhere) the round scores all arms with the
   reference expression and runs the reference argmax (counted in ``fallbacks``; never seen in tests).

The bound (u = 2⁻²⁴ for float32, ε = 2⁻⁵³ for float64, γ_n = n·u/(1 − n·u), γ'_n the same with ε; for any
order of summation and with or without fused multiply-adds, |fl(Σ_{k≤n} a_k b_k) − Σ a_k b_k| ≤
γ_n Σ|a_k b_k|, Higham, *Accuracy and Stability of Numerical Algorithms*, §3.1): let w_j = B x'_j in exact
arithmetic, c_ij = Σ_k |B_ik||x'_jk| ≤ ρ_i·‖x'_j‖ (Cauchy–Schwarz, ρ_i = ‖B_i,:‖₂), A = Σ_i |y_i| ρ_i,
F = Σ_i ρ_i², ξ_j² ≥ ‖x'_j‖² (x'_j is a unit vector up to rounding; ξ_j² = T² + sc²·ss in float64,
the last factor absorbing its O(d·ε) error).  The sgemm rounds B and x' to float32 (two roundings, x'
itself one float64 rounding of sc·g) and sums d products: |W_ij − w_ij| ≤ γ_{d+3} c_ij =: g₁ c_ij.  Then

* mean: |m_j − Σ y_i w_ij| ≤ (g₁ + γ'_{d+2}(1 + g₁))·A·ξ_j (float64 products and sum of y_i W_ij);
* squared width: |n_j − ‖w_j‖²| ≤ D_j := (g₁(2 + g₁) + γ'_d (1 + g₁)²)·F·ξ_j²
  (|W² − w²| ≤ |W − w|(|W| + |w|); W_ij² is exact in float64);
* width: with n_lo = max(n_j − D_j, 0) ≤ ‖w_j‖², |√n_j − ‖w_j‖| ≤ min(√D_j, D_j/(√n_j + √n_lo));
* the reference's own error (the same analysis in float64: s_i = Σ_{k≥1} B_ik g_k, w_i = T B_i0 + sc s_i,
  mean and ‖w‖² summed in i): |w̃_i − w_i| ≤ γ'_{d+1} c_ij, mean within γ'_{2d+2}·A·ξ_j, squared width
  within D'_j = (γ'_{d+1}(2 + γ'_{d+1}) + γ'_d (1 + γ'_{d+1})²)·F·ξ_j², width within
  min(√D'_j, D'_j/√n_lo);
* the final additions and the product with β: 8ε·(|m_j| + β√n_j + A ξ_j + β√F ξ_j).

E_j is the sum of these terms (widths times β), times (1 + 10⁻⁶), which covers the float64 rounding of
ρ_i, A, F, ξ_j and of the bound's own evaluation (each ≤ 10⁻¹³ relative; the float32 terms are ≈ d·6·10⁻⁸).

Everything else — tree noise, release and Cholesky, β_t, B = C⁻¹Q, the chosen arm's embedding, the
reward (from the buffered stream) and the statistics update — is the reference kernel's code.
BLAS threads: set ``OPENBLAS_NUM_THREADS=1`` when running one job per core.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.bandits.drawbuffer import bn_buffers, bn_normal, bn_start, bn_state, bn_uniform
from privopt.bandits.instances import _zone_accept_prob_nb
from privopt.bandits.kernels import (
    TIE_RTOL,
    _audit_dump,
    _b_matrix,
    _embed,
    _episode_buffers,
    _record_start,
    _release_and_factor,
    _tree_advance,
)
from privopt.fastrng import rng_store

__all__ = ["episode_kernel_prefilter", "score_bound", "ARM_BLOCK"]

#: arms drawn between two passes of the vectorised per-arm work (sums of squares, scaling, float32 copy)
ARM_BLOCK = 64
_U32 = 2.0 ** -24
_U64 = 2.0 ** -53
_INFLATE = 1.0 + 1e-6


@numba.njit(cache=True, inline="always")
def _gamma(n, unit):
    return n * unit / (1.0 - n * unit)


@numba.njit(cache=True, inline="always")
def _zone_accept(u2, t, om, d):
    """``u2 <= zone_accept_prob(t, om, d)``, decided without the d/2-long product where it is plain.

    q = r^⌊(d−3)/2⌋ (·√r) by repeated squaring (≤ 2·log₂ d + 2 roundings) and the reference product
    (⌊(d−3)/2⌋ + 1 roundings) are both within (d + 2 log₂ d + 4)·ε relative of the exact power; outside
    a margin of twice that around q the comparison is decided by q, inside it by the reference."""
    if d <= 4:
        return u2 <= _zone_accept_prob_nb(t, om, d)
    r = (1.0 - t * t) / om
    e2 = d - 3
    n = e2 // 2
    q = 1.0
    base = r
    while n > 0:
        if n & 1:
            q *= base
        base *= base
        n >>= 1
    if e2 % 2 == 1:
        q *= math.sqrt(r)
    margin = q * (2.0 * (d + 64) * _U64)
    if u2 < q - margin:
        return True
    if u2 > q + margin:
        return False
    return u2 <= _zone_accept_prob_nb(t, om, d)


@numba.njit(cache=True, inline="always")
def _ucb_reference(B, yv, beta, tj, sc, Gt, j, d):
    """The reference kernel's UCB of arm j (:func:`privopt.bandits.kernels.episode_kernel`, same operations
    in the same order): w_i = T·B[i,0] + sc·Σ_{k≥1} B[i,k]g_k, mean and ‖w‖² summed in i."""
    mean = 0.0
    nrm = 0.0
    for i in range(d):
        s = 0.0
        for k in range(1, d):
            s += B[i, k] * Gt[k, j]
        wi = tj * B[i, 0] + sc * s
        mean += yv[i] * wi
        nrm += wi * wi
    return mean + beta * math.sqrt(nrm)


@numba.njit(cache=True)
def score_bound(d, A, F, beta, m, n, xi2):
    """(u_j, E_j) of the module docstring for one arm: the float32-path score and its error bound."""
    g1 = _gamma(d + 3, _U32)
    cm = (g1 + _gamma(d + 2, _U64) * (1.0 + g1) + _gamma(2 * d + 2, _U64)) * A
    gr = _gamma(d + 1, _U64)
    cd = (g1 * (2.0 + g1) + _gamma(d, _U64) * (1.0 + g1) ** 2) * F
    cd64 = (gr * (2.0 + gr) + _gamma(d, _U64) * (1.0 + gr) ** 2) * F
    return _score_bound(cm, cd, cd64, A, math.sqrt(F), beta, m, n, xi2)


@numba.njit(cache=True, inline="always")
def _score_bound(cm, cd, cd64, A, sF, beta, m, n, xi2):
    sq = math.sqrt(n)
    u = m + beta * sq
    xi = math.sqrt(xi2)
    D = cd * xi2
    D64 = cd64 * xi2
    nlo = n - D
    nlo = nlo if nlo > 0.0 else 0.0
    snlo = math.sqrt(nlo)
    den = sq + snlo
    es = math.sqrt(D)
    alt = D / den if den > 0.0 else es
    es = alt if alt < es else es
    es64 = math.sqrt(D64)
    alt64 = D64 / snlo if snlo > 0.0 else es64
    es64 = alt64 if alt64 < es64 else es64
    err = (cm * xi + beta * (es + es64) + 8.0 * _U64 * (abs(m) + beta * sq + A * xi + beta * sF * xi)) * _INFLATE
    return u, err


@numba.njit(cache=True)
def episode_kernel_prefilter(env, noise, dim_tag, K, opt_mean, low, high, om, hv, hc, hs,
                             reward_gauss, mech, m, df, node_scale, sigma_noise, shift, kappa, xi, sigma_r,
                             n_rounds, rec_t, rec_out, audit_t, audit_out, trace, stats):
    """Same arguments, streams and results as :func:`privopt.bandits.kernels.episode_kernel` (module
    docstring); ``stats`` (int64[2]) receives (rounds that fell back to scoring every arm in float64,
    candidates rescored in float64 over the episode).  Returns (pd_failures, n_optimal_choices, node_draws)."""
    d = len(dim_tag)
    G, u, V, C, Ci, B, invd, ut, yv, cv, g, x, eta, Nsum, abuf, nodebuf = _episode_buffers(d, m, mech)
    raw, zx, zok, base = bn_buffers()
    Tb = np.zeros(K)
    Sb = np.zeros(K)
    Gt = np.zeros((d, K))            # Gaussian directions, arms along the contiguous axis (row 0 unused)
    X32 = np.zeros((d, K), dtype=np.float32)   # x'_j = (T_j, sc_j g_j) in float32, arm j = column j
    W32 = np.zeros((d, K), dtype=np.float32)
    B32 = np.zeros((d, d), dtype=np.float32)
    xi2 = np.zeros(K)
    mean = np.zeros(K)
    nrm = np.zeros(K)
    ucb = np.zeros(K)
    err = np.zeros(K)
    cand = np.zeros(K, dtype=np.int64)
    ssb = np.zeros(ARM_BLOCK)
    width = high - low
    do_trace = trace.shape[0] > 0
    n_rec = rec_t.shape[0]
    n_aud = audit_t.shape[0]
    ri = _record_start(rec_t, rec_out)
    ai = 0
    pd_fail = 0
    n_opt = 0
    draws = 0
    n_fallback = 0
    n_cand = 0
    cum = 0.0
    g1 = _gamma(d + 3, _U32)
    gr = _gamma(d + 1, _U64)
    c_m = g1 + _gamma(d + 2, _U64) * (1.0 + g1) + _gamma(2 * d + 2, _U64)
    c_d = g1 * (2.0 + g1) + _gamma(d, _U64) * (1.0 + g1) ** 2
    c_d64 = gr * (2.0 + gr) + _gamma(d, _U64) * (1.0 + gr) ** 2
    pos, st = bn_start(raw, zx, zok, base, env)
    for t in range(1, n_rounds + 1):
        if mech != 0:
            draws += _tree_advance(noise, mech, t, m, dim_tag, df, node_scale, sigma_noise, abuf, nodebuf, eta,
                                   Nsum)
        logdet, failed = _release_and_factor(G, u, Nsum, mech, shift, d, V, C, invd, ut, yv)
        pd_fail += failed
        arg = kappa + logdet
        beta = sigma_r * math.sqrt(arg if arg > 0.0 else 0.0) + xi
        _b_matrix(C, invd, hv, hc, hs, d, Ci, cv, B)
        # ---- the round's constants of the bound: row norms of B, A = Σ|y_i|ρ_i, F = Σρ_i² ----
        A = 0.0
        F = 0.0
        for i in range(d):
            s = 0.0
            for k in range(d):
                bik = B[i, k]
                s += bik * bik
                B32[i, k] = np.float32(bik)
            F += s
            A += abs(yv[i]) * math.sqrt(s)
        cm = c_m * A
        cd = c_d * F
        cd64 = c_d64 * F
        sF = math.sqrt(F)
        # ---- decision set (environment stream through the buffer, canonical order) ----
        u0, pos, st = bn_uniform(raw, zx, zok, base, pos, st)
        jo = int(u0 * K)
        for j0 in range(0, K, ARM_BLOCK):
            j1 = min(K, j0 + ARM_BLOCK)
            for j in range(j0, j1):
                if j == jo:
                    tj = opt_mean
                else:
                    while True:
                        u1, pos, st = bn_uniform(raw, zx, zok, base, pos, st)
                        tj = low + width * u1
                        if d == 3:
                            break
                        u2, pos, st = bn_uniform(raw, zx, zok, base, pos, st)
                        if _zone_accept(u2, tj, om, d):
                            break
                Tb[j] = tj
                for i in range(1, d):
                    z, pos, st = bn_normal(raw, zx, zok, base, pos, st)
                    Gt[i, j] = z
            # the block's sums of squares (each in the reference's order), scales and float32 arms
            nb = j1 - j0
            for l in range(nb):
                ssb[l] = 0.0
            for i in range(1, d):
                for l in range(nb):
                    z = Gt[i, j0 + l]
                    ssb[l] += z * z
            for l in range(nb):
                tj = Tb[j0 + l]
                ss = ssb[l]
                sc = math.sqrt((1.0 - tj * tj) / ss)
                Sb[j0 + l] = sc
                X32[0, j0 + l] = np.float32(tj)
                xi2[j0 + l] = tj * tj + sc * sc * ss
            for i in range(1, d):
                for l in range(nb):
                    X32[i, j0 + l] = np.float32(Sb[j0 + l] * Gt[i, j0 + l])
        # ---- float32 products W = B X' (BLAS), float64 means and squared widths ----
        np.dot(B32, X32, W32)
        for j in range(K):
            mean[j] = 0.0
            nrm[j] = 0.0
        for i in range(d):
            y_i = yv[i]
            for j in range(K):
                w = np.float64(W32[i, j])
                mean[j] += y_i * w
                nrm[j] += w * w
        lo_max = -np.inf
        chk = 0.0
        for j in range(K):
            uj, ej = _score_bound(cm, cd, cd64, A, sF, beta, mean[j], nrm[j], xi2[j])
            ucb[j] = uj
            err[j] = ej
            chk += uj + ej
            lo = uj - ej
            lo_max = lo if lo > lo_max else lo_max
        best = -1
        if math.isfinite(chk) and math.isfinite(lo_max):
            nc = 0
            for j in range(K):
                if ucb[j] + err[j] >= lo_max:
                    cand[nc] = j
                    nc += 1
            n_cand += nc
            c0 = cand[0]
            best_ucb = _ucb_reference(B, yv, beta, Tb[c0], Sb[c0], Gt, c0, d)
            if c0 == 0 or best_ucb > lo_max + TIE_RTOL * abs(lo_max):
                best = c0
                for q in range(1, nc):
                    j = cand[q]
                    val = _ucb_reference(B, yv, beta, Tb[j], Sb[j], Gt, j, d)
                    if val > best_ucb + TIE_RTOL * abs(best_ucb):
                        best_ucb = val
                        best = j
        if best < 0:  # fallback: the reference's scores and running argmax over every arm
            n_fallback += 1
            best_ucb = -np.inf
            for j in range(K):
                val = _ucb_reference(B, yv, beta, Tb[j], Sb[j], Gt, j, d)
                if best < 0 or val > best_ucb + TIE_RTOL * abs(best_ucb):
                    best_ucb = val
                    best = j
        if best == jo:
            n_opt += 1
        if do_trace:
            trace[t - 1] = best
        while ai < n_aud and audit_t[ai] == t:
            _audit_dump(ai, t, d, mech, Nsum, shift, V, C, invd, yv, beta, logdet, audit_out)
            ai += 1
        # ---- the chosen arm in the original basis, reward, statistics, regret ----
        mu = Tb[best]
        for k in range(1, d):
            g[k] = Gt[k, best]
        _embed(mu, Sb[best], g, hv, hc, hs, d, x)
        if reward_gauss:
            z, pos, st = bn_normal(raw, zx, zok, base, pos, st)
            yr = mu + z
        else:
            c, pos, st = bn_uniform(raw, zx, zok, base, pos, st)
            yr = 1.0 if c < 0.5 * (1.0 + mu) else -1.0
        for i in range(d):
            xi_ = x[i]
            for j in range(i + 1):
                G[i, j] += xi_ * x[j]
            u[i] += yr * xi_
        cum += opt_mean - mu
        while ri < n_rec and rec_t[ri] == t:
            rec_out[ri] = cum
            ri += 1
    rng_store(env, bn_state(base, pos))
    stats[0] = n_fallback
    stats[1] = n_cand
    return pd_fail, n_opt, draws
