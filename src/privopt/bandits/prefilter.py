"""The large-d episode kernel: float32 scores with a rigorous error bound, the argmax in float64 (issue 24).

:func:`episode_kernel_prefilter` runs Algorithm 1 (shariff2018 reading R1) and makes, bit for
bit, the decisions of the reference kernel :func:`privopt.bandits.kernels.episode_kernel` — the same
chosen arms, regret records, counters, audit rows and final stream states — at a fraction of the cost
of :func:`~privopt.bandits.kernels.episode_kernel_batched` for the Exp. 1 sizes (K = d² arms, d up to 64).
It changes the method, not the result:

1. **Draws** (the same numbers as the reference kernel): T_j by the shared
   :func:`~privopt.bandits.kernels.draw_arm_t`; the Gaussian directions, stored one arm per row
   (``Gr[j, i]``), by the vectorised fast pass of :mod:`privopt.fastrng.counter_based` and, in a row where
   the ziggurat's first attempt was rejected somewhere, its exact pass.  After each :data:`ARM_BLOCK` arms
   the d − 1 squares of each arm are summed, in the reference's order, for 8 arms at once (independent
   chains).
2. **Scores in float32**: with B = C⁻¹Q (the reference's matrix) and x'_j = (T_j, sc_j·g_j),
   W = fl32(B)·fl32(X') by one BLAS sgemm (``np.dot``), then m_j = Σ_i y_i W_ij and n_j = Σ_i W_ij² in
   float64, and u_j = m_j + β·√n_j.
3. **A rigorous bound** E_j with |u_j − v_j| ≤ E_j, v_j the reference kernel's float64 UCB of arm j
   (the expression of :func:`~privopt.bandits.kernels.episode_kernel`), derived
   below; the candidates are the arms with u_j + E_j ≥ L = max_j (u_j − E_j) (the arm of the true
   maximum is always one), and only they are scored in float64 (:func:`_ucb_reference_many`).
4. **The reference's running argmax** (ties within :data:`~privopt.bandits.kernels.TIE_RTOL` to the
   lowest index) over the candidates in index order (scored :data:`_LANES` at a time).  Let H be the
   largest u_k + E_k of the other arms (so every other v_k ≤ H < L).  The result is the reference's arm
   whenever the first candidate c is arm 0 with v_0 ≥ H, or c > 0 with v_c > H + TIE_RTOL·|H|: when the
   reference reaches c its running best b (a non-candidate, if any) has b + TIE_RTOL·|b| ≤ H + TIE_RTOL·|H|
   < v_c, so c becomes the best; from then on the best is ≥ v_c ≥ H ≥ every non-candidate, which
   therefore never replaces it, and the candidates meet the same comparisons as in the reference.
   Otherwise (or where a score or bound is not finite) the round scores every arm with the reference
   expression and runs the reference argmax (counted in ``stats[0]``; rare: exact ties spanning the
   bound, as in round 1 of NonPrivate, take the first branch).

The bound (u = 2⁻²⁴ for float32, ε = 2⁻⁵³ for float64, γ_n = n·u/(1 − n·u), γ'_n the same with ε; for any
order of summation and with or without fused multiply-adds, |fl(Σ_{k≤n} a_k b_k) − Σ a_k b_k| ≤
γ_n Σ|a_k b_k|, Higham, *Accuracy and Stability of Numerical Algorithms*, §3.1): let w_j = B x'_j in exact
arithmetic, c_ij = Σ_k |B_ik||x'_jk| ≤ ρ_i·‖x'_j‖ (Cauchy–Schwarz, ρ_i = ‖B_i,:‖₂), A = Σ_i |y_i| ρ_i,
F = Σ_i ρ_i², ξ_j² ≥ ‖x'_j‖² (x'_j is a unit vector up to rounding; ξ_j² = T² + sc²·ss in float64,
the last factor absorbing its O(d·ε) error).  The sgemm rounds B and x' to float32 (two roundings, x'
itself one float64 rounding of sc·g) and sums d products: |W_ij − w_ij| ≤ γ_{d+3} c_ij =: g₁ c_ij.  Then

With f_j = √F·ξ_j ≥ (Σ_i c_ij²)^½ and γ' = γ'_{2d+4} (which covers every float64 sum below):

* mean: |m_j − Σ y_i w_ij| ≤ (g₁ + γ'(1 + g₁))·A·ξ_j (float64 products and sum of y_i W_ij);
* squared width: |W² − w²| ≤ |W − w|(2|W| + |W − w|) and Cauchy–Schwarz give
  |n_j − ‖w_j‖²| ≤ D_j := g₁ f_j (2√n_j + g₁ f_j) + γ' n_j (W_ij² is exact in float64);
* width: with n_lo = max(n_j − D_j, 0) ≤ ‖w_j‖², |√n_j − ‖w_j‖| ≤ min(√D_j, D_j/(√n_j + √n_lo));
* the reference's own error (the same analysis in float64: s_i = Σ_{k≥1} B_ik g_k, w_i = T B_i0 + sc s_i,
  mean and ‖w‖² summed in i): |w̃_i − w_i| ≤ γ' c_ij, mean within γ'·A·ξ_j, squared width within
  D'_j = γ' f_j (2s + γ' f_j) + γ'(s + γ' f_j)² with s = √(n_j + D_j) ≥ ‖w_j‖, width within
  min(√D'_j, D'_j/√n_lo);
* the final additions and the product with β: 8ε·(|m_j| + β√n_j + A ξ_j + β f_j).

E_j is the sum of these terms (widths times β), times (1 + 10⁻⁶), which covers the float64 rounding of
ρ_i, A, F, ξ_j and of the bound's own evaluation (each ≤ 10⁻¹³ relative; the float32 terms are ≈ d·6·10⁻⁸).

Everything else — tree noise, release and Cholesky, β_t, B = C⁻¹Q, the chosen arm's embedding, the
reward and the statistics update — is the round every kernel shares (:mod:`privopt.bandits.round`):
:func:`~privopt.bandits.round.round_start_one` and :func:`~privopt.bandits.round.round_end_one`.
BLAS threads: set ``OPENBLAS_NUM_THREADS=1`` when running one job per core.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.bandits.kernels import TIE_RTOL, decision_set_start, draw_arm_t
from privopt.bandits.round import one_variant, record_start, round_end_one, round_start_one
from privopt.fastrng.counter_based import fill_normals, fix_normals
from privopt.fastrng import rng_load, rng_store

__all__ = ["episode_kernel_prefilter", "score_bound", "ARM_BLOCK"]

#: arms drawn between two passes of the vectorised per-arm work (sums of squares, scaling, float32 copy)
ARM_BLOCK = 64
_U32 = 2.0 ** -24
_U64 = 2.0 ** -53
_INFLATE = 1.0 + 1e-6
_LANES = 16


@numba.njit(cache=True, inline="always")
def _gamma(n, unit):
    return n * unit / (1.0 - n * unit)


@numba.njit(cache=True)
def _ucb_reference_many(B, yv, beta, Tb, Sb, Gr, cand, nc, d, gb, tb, sb, vals):
    """vals[q] = the UCB of arm cand[q], q < nc, as the reference kernel computes it (w_i = T·B[i,0] + sc·Σ_{k≥1}
    B[i,k]g_k, mean and ‖w‖² summed in i): :data:`_LANES` arms at a time, each with the reference's operations in
    the reference's order (the lanes are independent: SIMD changes no result)."""
    for q0 in range(0, nc, _LANES):
        nl = min(_LANES, nc - q0)
        for l in range(nl):
            j = cand[q0 + l]
            tb[l] = Tb[j]
            sb[l] = Sb[j]
            for k in range(1, d):
                gb[k, l] = Gr[j, k]
        for l in range(nl, _LANES):
            tb[l] = 0.0
            sb[l] = 0.0
            for k in range(1, d):
                gb[k, l] = 0.0
        mean = np.zeros(_LANES)
        nrm = np.zeros(_LANES)
        s = np.zeros(_LANES)
        for i in range(d):
            for l in range(_LANES):
                s[l] = 0.0
            for k in range(1, d):
                bik = B[i, k]
                for l in range(_LANES):
                    s[l] += bik * gb[k, l]
            bi0 = B[i, 0]
            y_i = yv[i]
            for l in range(_LANES):
                wi = tb[l] * bi0 + sb[l] * s[l]
                mean[l] += y_i * wi
                nrm[l] += wi * wi
        for l in range(nl):
            vals[q0 + l] = mean[l] + beta * math.sqrt(nrm[l])


@numba.njit(cache=True, fastmath={"reassoc", "contract"})
def _means_and_widths(W32, yv, mean, nrm):
    """m_j = Σ_i y_i W_ji and n_j = Σ_i W_ji² in float64, summed in any order (the bound holds for any order:
    reassociation and contraction let the compiler vectorise the sums; W_ji² is exact in float64)."""
    K, d = W32.shape
    for j in range(K):
        m = 0.0
        n = 0.0
        for i in range(d):
            w = np.float64(W32[j, i])
            m += yv[i] * w
            n += w * w
        mean[j] = m
        nrm[j] = n


@numba.njit(cache=True)
def score_bound(d, A, F, beta, m, n, xi2):
    """(u_j, E_j) of the module docstring for one arm: the float32-path score and its error bound."""
    return _score_bound(d, _gamma(d + 3, _U32), A, math.sqrt(F), beta, m, n, xi2)


@numba.njit(cache=True, inline="always")
def _score_bound(d, g1, A, sF, beta, m, n, xi2):
    g64 = _gamma(2 * d + 4, _U64)
    sq = math.sqrt(n)
    u = m + beta * sq
    xi = math.sqrt(xi2)
    fx = sF * xi                      # ≥ √(Σ_i c_ij²)
    # float32 path: |n − ‖w‖²| ≤ Σ|W−w|(|W|+|w|) + γ'_d n ≤ g1·fx·(2√n + g1·fx) + γ'·n
    D = g1 * fx * (2.0 * sq + g1 * fx) + g64 * n
    nlo = n - D
    nlo = nlo if nlo > 0.0 else 0.0
    snlo = math.sqrt(nlo)
    shi = math.sqrt(n + D)            # ≥ ‖w‖
    den = sq + snlo
    es = math.sqrt(D)
    alt = D / den if den > 0.0 else es
    es = alt if alt < es else es
    # the reference's float64 evaluation: |ñ − ‖w‖²| ≤ γ'·fx·(2‖w‖ + γ'·fx) + γ'·(‖w‖ + γ'fx)²
    D64 = g64 * fx * (2.0 * shi + g64 * fx) + g64 * (shi + g64 * fx) ** 2
    es64 = math.sqrt(D64)
    alt64 = D64 / snlo if snlo > 0.0 else es64
    es64 = alt64 if alt64 < es64 else es64
    em = (g1 + g64 * (1.0 + g1) + g64) * A * xi
    err = (em + beta * (es + es64) + 8.0 * _U64 * (abs(m) + beta * sq + A * xi + beta * fx)) * _INFLATE
    return u, err


@numba.njit(cache=True)
def episode_kernel_prefilter(env, noise, dim_tag, K, opt_mean, low, high, om, hv, hc, hs,
                             reward_gauss, mech, m, df, node_scale, sigma_noise, shift, kappa, xi, sigma_r,
                             n_rounds, rec_t, rec_out, audit_t, audit_out, trace, stats):
    """Same arguments, streams and results as :func:`privopt.bandits.kernels.episode_kernel` (module
    docstring); ``stats`` (int64[2]) receives (rounds that fell back to scoring every arm in float64,
    candidates rescored in float64 over the episode).  Returns (pd_failures, n_optimal_choices, node_draws)."""
    d = len(dim_tag)
    groups, lanes, tree, state, work, B, yv, beta_v, noise1, rec1, aud1, tr1 = one_variant(
        dim_tag, noise, mech, m, df, node_scale, sigma_noise, shift, kappa, xi, sigma_r, rec_out, audit_out, trace)
    x, best_v, mu_v = state[2], state[3], state[4]
    Tb = np.zeros(K)
    Sb = np.zeros(K)
    Gr = np.zeros((K, d))      # Gaussian directions, one arm per row (column 0 unused)
    X32 = np.zeros((K, d), dtype=np.float32)   # x'_j = (T_j, sc_j g_j) in float32, one arm per row
    W32 = np.zeros((K, d), dtype=np.float32)
    B32t = np.zeros((d, d), dtype=np.float32)  # fl32(B)ᵀ
    xi2 = np.zeros(K)
    mean = np.zeros(K)
    nrm = np.zeros(K)
    ucb = np.zeros(K)
    err = np.zeros(K)
    cand = np.zeros(K, dtype=np.int64)
    vals = np.zeros(K)
    gb = np.zeros((d, _LANES))
    tb = np.zeros(_LANES)
    sb = np.zeros(_LANES)
    ssb = np.zeros(8)
    ri = record_start(rec_t, rec1)
    ai = np.int64(0)  # not the literal 0: a plain call typed with Literal[int](0) would compile twice
    n_fallback = 0
    n_cand = 0
    cum = 0.0
    g1 = _gamma(d + 3, _U32)
    est = rng_load(env)  # environment state kept in registers for the whole episode
    for t in range(1, n_rounds + 1):
        ai = round_start_one(t, dim_tag, noise1, groups, tree, lanes, state, work, hv, hc, hs, audit_t, aud1, ai)
        beta = beta_v[0]
        # ---- the round's constants of the bound: row norms of B, A = Σ|y_i|ρ_i, F = Σρ_i² ----
        A = 0.0
        F = 0.0
        for i in range(d):
            s = 0.0
            for k in range(d):
                bik = B[i, k]
                s += bik * bik
                B32t[k, i] = np.float32(bik)
            F += s
            A += abs(yv[i]) * math.sqrt(s)
        sF = math.sqrt(F)
        # ---- decision set (environment stream, canonical order), arms one per row ----
        jo, ka, kb, est = decision_set_start(est, K)
        for j0 in range(0, K, ARM_BLOCK):
            j1 = min(K, j0 + ARM_BLOCK)
            for j in range(j0, j1):  # T_j; the normals' vectorised fast pass, then the exact one where needed
                tj, est = draw_arm_t(est, d, j == jo, opt_mean, low, high, om)
                Tb[j] = tj
                p0 = np.uint64(j * (d - 1))
                bad = fill_normals(ka, kb, p0, Gr[j], 1, d - 1)
                if bad:
                    fix_normals(ka, kb, p0, Gr[j], 1, d - 1, bad)
            # the block's sums of squares (each in the reference's order; 8 arms at a time, independent
            # chains), scales and float32 arms
            for j8 in range(j0, j1, 8):
                if j8 + 8 <= j1:
                    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
                    for i in range(1, d):
                        z0 = Gr[j8, i]
                        z1 = Gr[j8 + 1, i]
                        z2 = Gr[j8 + 2, i]
                        z3 = Gr[j8 + 3, i]
                        z4 = Gr[j8 + 4, i]
                        z5 = Gr[j8 + 5, i]
                        z6 = Gr[j8 + 6, i]
                        z7 = Gr[j8 + 7, i]
                        s0 += z0 * z0
                        s1 += z1 * z1
                        s2 += z2 * z2
                        s3 += z3 * z3
                        s4 += z4 * z4
                        s5 += z5 * z5
                        s6 += z6 * z6
                        s7 += z7 * z7
                    ssb[0], ssb[1], ssb[2], ssb[3] = s0, s1, s2, s3
                    ssb[4], ssb[5], ssb[6], ssb[7] = s4, s5, s6, s7
                    nbk = 8
                else:
                    nbk = j1 - j8
                    for l in range(nbk):
                        ss = 0.0
                        for i in range(1, d):
                            z = Gr[j8 + l, i]
                            ss += z * z
                        ssb[l] = ss
                for l in range(nbk):
                    j = j8 + l
                    tj = Tb[j]
                    ss = ssb[l]
                    sc = math.sqrt((1.0 - tj * tj) / ss)
                    Sb[j] = sc
                    xi2[j] = tj * tj + sc * sc * ss
                    X32[j, 0] = np.float32(tj)
                    for i in range(1, d):
                        X32[j, i] = np.float32(sc * Gr[j, i])
        # ---- float32 products W = B X' (BLAS), float64 means and squared widths ----
        np.dot(X32, B32t, W32)
        _means_and_widths(W32, yv, mean, nrm)
        lo_max = -np.inf
        chk = 0.0
        for j in range(K):
            uj, ej = _score_bound(d, g1, A, sF, beta, mean[j], nrm[j], xi2[j])
            ucb[j] = uj
            err[j] = ej
            chk += uj + ej
            lo = uj - ej
            lo_max = lo if lo > lo_max else lo_max
        # ---- candidates: hi_j ≥ L; H = the largest hi_j of the others (every other v_k ≤ H < L) ----
        nc = 0
        H = -np.inf
        if math.isfinite(chk) and math.isfinite(lo_max):
            for j in range(K):
                hj = ucb[j] + err[j]
                if hj >= lo_max:
                    cand[nc] = j
                    nc += 1
                elif hj > H:
                    H = hj
            n_cand += nc
            _ucb_reference_many(B, yv, beta, Tb, Sb, Gr, cand, nc, d, gb, tb, sb, vals)
            c0 = cand[0]
            if (c0 == 0 and vals[0] >= H) or (c0 > 0 and vals[0] > H + TIE_RTOL * abs(H)):
                best, best_ucb = -1, -np.inf
                for q in range(nc):
                    val = vals[q]
                    if best < 0 or val > best_ucb + TIE_RTOL * abs(best_ucb):
                        best_ucb = val
                        best = cand[q]
            else:
                nc = 0
        if nc == 0:  # fallback: the reference's scores and running argmax over every arm
            n_fallback += 1
            for j in range(K):
                cand[j] = j
            _ucb_reference_many(B, yv, beta, Tb, Sb, Gr, cand, K, d, gb, tb, sb, vals)
            best, best_ucb = -1, -np.inf
            for j in range(K):
                val = vals[j]
                if best < 0 or val > best_ucb + TIE_RTOL * abs(best_ucb):
                    best_ucb = val
                    best = j
        best_v[0] = best  # the chosen arm: its T and x' = (T, sc·g)
        mu_v[0] = Tb[best]
        scb = Sb[best]
        for k in range(1, d):
            x[k, 0] = scb * Gr[best, k]
        est, ri = round_end_one(est, t, dim_tag, reward_gauss, jo, opt_mean, hv, hc, hs, state, tr1, rec_t, rec1, ri)
    rng_store(env, est)
    stats[0] = n_fallback
    stats[1] = n_cand
    return state[8][0], state[7][0], tree[4][0]
