"""Variants in lockstep: one numba kernel runs several variants of one seed together, round by round.

Every sweep of the experiments runs several variants on the same seed with common random numbers
(:mod:`privopt.bandits.streams`): all variants of a seed see the same θ*, decision sets and reward
coins, and variants of the same mechanism with the same node-noise parameters (the two Wishart
variants of Fig. 4, every Wishart — or every Gaussian — ρ_min grid point of Fig. 5) also draw the same
tree noise.  :func:`lockstep_kernel` draws each round's decision set and reward coin once, advances each
*noise group* (variants with the same mechanism, tree size, df, node scale and σ_noise) once, and then
updates every variant.

Exactness (relied upon by the pipeline and asserted by the tests): for every variant the kernel
performs the same floating-point operations, in the same order, as
:func:`privopt.bandits.kernels.episode_kernel` run on that variant alone — those of its release, Cholesky,
β_t and B = C⁻¹Q helpers (here lane by lane, see Lanes below); the arms drawn by the same sampler from the
same environment stream; the UCB of arm j computed with the same expression (s = Σ_{k≥1} B[i,k]·g_k
from 0.0 in increasing k, w_i = T·B[i,0] + sc·s, mean and ‖w‖² accumulated in increasing i,
mean + β·sqrt(‖w‖²)); the same running argmax with ties (:data:`privopt.bandits.kernels.TIE_RTOL`) to the
lowest index; the same reward from the one shared coin.  No fast-math flag is used, so the compiler may not
reassociate any of these sums: the results (regret records, chosen arms, counters, audit rows, final stream states)
are identical, bit for bit, to running the variants one by one.

With one variant this is the "buffered" kernel of :func:`privopt.bandits.episodes.run_episode`, the
default below d = 12: the per-variant runs of Exp. 1 use it too.

Scoring form: the decision set is buffered (T_j, sc_j and the Gaussian directions g_j, arms along the
contiguous axis); each variant computes the UCB of every arm in a loop over arms whose body (the d×d
sums, unrolled since d is a compile-time constant) only writes that arm's UCB — the per-arm sums stay
sequential in i and k, independent across arms, so the compiler can run several arms in SIMD lanes
(square roots included) without changing any result — and then takes the running argmax, by a
branch-free maximum and count where no near-tie makes it ambiguous (:func:`_first_max`, same result).
Lanes (issue 36): the variants' statistics and the step before the scores (released V_t and ũ_t, Cholesky,
log det, y = C⁻¹ũ, B = C⁻¹Q) and the update after the choice are held with the variants along the last axis
and computed lane by lane in loops whose innermost loop runs over the lanes (each running sum in a per-lane
accumulator, in the order of the one-variant helpers of :mod:`privopt.bandits.kernels`), so the variants'
chains of dependent operations (square roots, divisions) overlap instead of following one another; the
number of lanes is a compile-time constant (``lane_tag``, as ``dim_tag`` for d), so the lane loops have fixed
trip counts.  A lane whose Cholesky meets a bad pivot is refactored alone by the PD fallback of
:func:`privopt.bandits.kernels._pd_fallback`, and audit rows are written from one lane at a time, as before.
A Fig. 5 round (9 variants, d = 5) costs 0.79 of the round before the lanes (CPU time; one run of
``benchmarks/bench_fig5_kernel.py``, which times the earlier kernel beside this one); one variant alone
(Exp. 1 below d = 12) costs no more than before.  Each round draws the decision set first, then the step
of every lane: the environment and noise streams are separate, so the order of their draws changes no
number.  The tree step (:func:`privopt.bandits.kernels._tree_advance`) is inlined.  The lockstep kernel keeps
every helper inlined by numba (``inline="always"``): as plain calls a round of one variant at d = 5 took 1.56 instead of 1.19 µs
(CPU, side by side; issue 40).

A Gaussian noise group may take its release from a continual counter instead of the paper's path tree
(issue 27, ``VariantParams.counter``): one call of
:func:`privopt.mechanisms.counting.gaussian_counter_step` per round and group (a plain call, compiled once for
every d), on the group's own noise stream.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.bandits.kernels import (
    TIE_RTOL,
    _audit_dump,
    _pd_fallback,
    _record_start,
    _tree_step,
    decision_set_start,
    draw_arm_t,
)
from privopt.fastrng.counter_based import fill_normals, fix_normals
from privopt.mechanisms.counting import gaussian_counter_step
from privopt.fastrng import rng_load, rng_normal_t, rng_store, rng_uniform_t

__all__ = ["lockstep_kernel", "noise_group_key"]


def noise_group_key(mechanism: str, m: int, df: float, node_scale: float, sigma_noise: float,
                    counter: str = "path") -> tuple:
    """Variants with equal keys draw identical tree noise from the same noise stream (one group)."""
    return (mechanism, int(m), float(df), float(node_scale), float(sigma_noise), counter)


@numba.njit(cache=True, inline="always")
def _counter_release(code, sigma, npk, n, params, ibuf, buf, state, gbuf, t, d, Nsum):
    """The released noise of round t ≥ 2 from a continual counter (issue 27): its prefix N(t − 1) over the packed
    (d+1)×(d+1) triangle without its corner (i.i.d. N(0, σ²) seeds per entry), then the diagonal entries × √2,
    the symmetric node law (:func:`privopt.bandits.parameters.gaussian_counter`)."""
    gaussian_counter_step(code, sigma, npk, n, params, ibuf, buf, state, gbuf, t - 1, Nsum)
    for i in range(d + 1):
        q = i * (i + 3) // 2  # the diagonal entry (i, i) of the packed lower triangle
        if q < npk:
            Nsum[q] *= 1.4142135623730951


@numba.njit(cache=True, inline="always")
def _score_arms(B, y, v, beta, Tb, Sb, Gb, K, d, ucb):
    """ucb[j] = ⟨y, w_j⟩ + β‖w_j‖ with w_j = T_j·B[:,0] + sc_j·B[:,1:]g_j for lane v of B and y, in the exact
    operation order of :func:`privopt.bandits.kernels.episode_kernel` (module docstring); one straight-line
    body per arm."""
    for j in range(K):
        tj = Tb[j]
        scj = Sb[j]
        mj = 0.0
        qj = 0.0
        for i in range(d):
            s = 0.0
            for k in range(1, d):
                s += B[i, k, v] * Gb[k, j]
            wi = tj * B[i, 0, v] + scj * s
            mj += y[i, v] * wi
            qj += wi * wi
        ucb[j] = mj + beta * math.sqrt(qj)


@numba.njit(cache=True, inline="always")
def _first_max_running(ucb, K):
    """The running argmax of the kernels: ties (within :data:`TIE_RTOL` relative) go to the lowest index."""
    bj = -1
    best_ucb = -np.inf
    for j in range(K):
        val = ucb[j]
        if bj < 0 or val > best_ucb + TIE_RTOL * abs(best_ucb):
            best_ucb = val
            bj = j
    return bj


@numba.njit(cache=True, inline="always")
def _first_max(ucb, K):
    """:func:`_first_max_running`, without its chain of data-dependent branches where the result is plain.

    M = max_j ucb[j] and the count of arms with ucb[j] ≥ M − 2·TIE_RTOL·|M| are branch-free loops.  When
    that count is 1 the running argmax returns the arm of M: every value before it is below
    M − 2·TIE_RTOL·|M|, so M exceeds the running best b by more than TIE_RTOL·|b| (for b ≥ 0, b < M(1 − 2r)
    < M/(1 + r); for b < 0 and M ≥ 0, b(1 − r) < 0 ≤ M; for b < 0 and M < 0, b(1 − r) < M(1 + 2r)(1 − r) < M),
    and every value after it is below M.  This needs a finite running best, i.e. a finite ucb[0] (the loop
    keeps index 0 when ucb[0] is NaN or ±inf: every later comparison is with NaN or +inf); a NaN or −inf
    further on is never chosen by either.  Otherwise (near-ties, M infinite, ucb[0] not finite) the running
    loop decides.  ``tests/test_lockstep.py`` checks both paths against the running loop.
    """
    # the maximum in four independent chains (a max is exact in any order; a NaN lane can only send the
    # result to the fallback)
    m0 = m1 = m2 = m3 = ucb[0]
    j = 1
    while j + 3 < K:
        v0, v1, v2, v3 = ucb[j], ucb[j + 1], ucb[j + 2], ucb[j + 3]
        m0 = v0 if v0 > m0 else m0
        m1 = v1 if v1 > m1 else m1
        m2 = v2 if v2 > m2 else m2
        m3 = v3 if v3 > m3 else m3
        j += 4
    while j < K:
        v0 = ucb[j]
        m0 = v0 if v0 > m0 else m0
        j += 1
    m01 = m1 if m1 > m0 else m0
    m23 = m3 if m3 > m2 else m2
    m = m23 if m23 > m01 else m01
    thr = m - 2.0 * TIE_RTOL * abs(m)
    cnt = 0
    at = 0
    for j in range(K):
        hit = ucb[j] >= thr
        cnt += hit
        at += j * hit
    if cnt == 1 and math.isfinite(ucb[0]):
        return at
    return _first_max_running(ucb, K)


@numba.njit(cache=True, inline="always")
def _release_lanes(G, u, Nsum, vgroup, vnoise, vshift, nv, d, V, ut):
    """V_t = G + N[:d,:d] + shift·I and ũ_t = u + N[:d,d] of every variant (lanes v, the last axis), each
    entry by the expression of :func:`privopt.bandits.kernels._release_and_factor`."""
    pd_ = d * (d + 1) // 2
    for i in range(d):
        base = i * (i + 1) // 2
        for j in range(i + 1):
            for v in range(nv):
                g = G[i, j, v]
                V[i, j, v] = g + Nsum[vgroup[v], base + j] if vnoise[v] else g
        for v in range(nv):
            w = u[i, v]
            ut[i, v] = w + Nsum[vgroup[v], pd_ + i] if vnoise[v] else w
        for v in range(nv):
            V[i, i, v] += vshift[v]


@numba.njit(cache=True, inline="always")
def _cholesky_lanes(V, C, invd, nv, d, ok, acc):
    """:func:`privopt.bandits.kernels._cholesky` of every lane at once: each sum runs in ``acc`` (one entry per
    lane) in the same order as there, the loop over lanes innermost; ok[v] = 0 where a pivot is bad (that
    lane's C is then junk: the caller refactors it)."""
    for v in range(nv):
        ok[v] = 1
    for j in range(d):
        for v in range(nv):
            acc[v] = V[j, j, v]
        for k in range(j):
            for v in range(nv):
                c = C[j, k, v]
                acc[v] -= c * c
        for v in range(nv):
            s = acc[v]
            good = s > 0.0 and math.isfinite(s)
            ok[v] = ok[v] & good
            cjj = math.sqrt(s) if good else 1.0
            C[j, j, v] = cjj
            invd[j, v] = 1.0 / cjj
        for i in range(j + 1, d):
            for v in range(nv):
                acc[v] = V[i, j, v]
            for k in range(j):
                for v in range(nv):
                    acc[v] -= C[i, k, v] * C[j, k, v]
            for v in range(nv):
                C[i, j, v] = acc[v] * invd[j, v]


@numba.njit(cache=True, inline="always")
def _solve_lanes(C, invd, ut, nv, d, yv, acc):
    """y = C⁻¹ũ of every lane (forward substitution in the order of ``_release_and_factor``; sums in ``acc``)."""
    for i in range(d):
        for v in range(nv):
            acc[v] = ut[i, v]
        for k in range(i):
            for v in range(nv):
                acc[v] -= C[i, k, v] * yv[k, v]
        for v in range(nv):
            yv[i, v] = acc[v] * invd[i, v]


@numba.njit(cache=True, inline="always")
def _b_matrix_lanes(C, invd, hv, hc, hs, nv, d, Ci, cv, B, acc):
    """:func:`privopt.bandits.kernels._b_matrix` (B = C⁻¹Q) of every lane, the same operations per lane (sums
    in ``acc``, the loop over lanes innermost)."""
    for j in range(d):
        for v in range(nv):
            Ci[j, j, v] = invd[j, v]
        for i in range(j + 1, d):
            for v in range(nv):
                acc[v] = 0.0
            for k in range(j, i):
                for v in range(nv):
                    acc[v] -= C[i, k, v] * Ci[k, j, v]
            for v in range(nv):
                Ci[i, j, v] = acc[v] * invd[i, v]
    for i in range(d):
        for v in range(nv):
            acc[v] = 0.0
        for k in range(i + 1):
            h = hv[k]
            for v in range(nv):
                acc[v] += Ci[i, k, v] * h
        for v in range(nv):
            cv[i, v] = hc * acc[v]
    for i in range(d):
        for k in range(d):
            h = hv[k]
            if k <= i:
                for v in range(nv):
                    B[i, k, v] = hs * (Ci[i, k, v] - cv[i, v] * h)
            else:
                for v in range(nv):
                    B[i, k, v] = hs * (0.0 - cv[i, v] * h)


@numba.njit(cache=True, inline="always")
def _embed_lanes(mu, sc, x, hv, hc, hs, nv, d):
    """x[:, v] = Q x'_v with x'_v = (mu_v, sc_v·g_v) and g_v in x[1:, v] on entry: the operations of
    :func:`privopt.bandits.kernels._embed` lane by lane."""
    for v in range(nv):
        t = mu[v]
        x[0, v] = t
        proj = hv[0] * t
        for i in range(1, d):
            xi = sc[v] * x[i, v]
            x[i, v] = xi
            proj += hv[i] * xi
        proj *= hc
        for i in range(d):
            x[i, v] = hs * (x[i, v] - proj * hv[i])


@numba.njit(cache=True)
def lockstep_kernel(env, noise, dim_tag, lane_tag, K, opt_mean, low, high, om, hv, hc, hs, reward_gauss,
                    vgroup, gmech, gm, gdf, gscale, gsigma, gcounter, gcn, gparams, gibuf, gbuf, ggbuf,
                    vshift, vkappa, vxi, vsigma, n_rounds, rec_t, rec_out, audit_t, audit_out, trace):
    """Run the variants v = 0..nv−1 of one seed together (module docstring).

    Parameters (as :func:`privopt.bandits.kernels.episode_kernel`, per variant or per noise group)
    ----------
    env : uint64[4] environment state (advanced in place; θ* already drawn by the caller).
    lane_tag : tuple of nv zeros (:func:`privopt.bandits.kernels.dim_tag` of nv): the number of variants as a
        compile-time constant (module docstring, Lanes).
    noise : uint64[ng, 4] noise states, one per noise group (advanced in place).
    vgroup : int64[nv] noise group of each variant.
    gmech, gm, gdf, gscale, gsigma : per group — mechanism code, tree levels, Wishart df, Wishart node
        scale (L̃²), Gaussian node σ.
    gcounter, gcn, gparams, gibuf, gbuf, ggbuf : per group — the continual counter that makes the Gaussian
        noise instead of the path tree (:func:`privopt.mechanisms.counting.gaussian_counter_step` code, −1 for
        the path tree) and its :class:`~privopt.mechanisms.counting.CounterState` fields, padded across groups;
        its seeds come from the group's noise stream.  Round 1 releases no noise (no item yet), round t ≥ 2
        the counter's N(t − 1) (:func:`_counter_release`).
    vshift, vkappa, vxi, vsigma : per variant — shift, κ, ξ, σ of β_t.
    rec_out : (nv, len(rec_t)); audit_out : (nv, len(audit_t), audit width); trace : (nv, n_rounds)
        or (nv, 0).

    Returns int64 arrays (pd_failures[nv], n_optimal[nv], node_draws[nv]).
    """
    d = len(dim_tag)
    nv = len(lane_tag)
    ng = gmech.shape[0]
    npk = (d + 1) * (d + 2) // 2 - 1
    mmax = 1
    for gi in range(ng):
        if gm[gi] > mmax:
            mmax = gm[gi]
    # ---- per-variant state, variants along the last (contiguous) axis: the statistics G, u; this round's choice ----
    G = np.zeros((d, d, nv))
    u = np.zeros((d, nv))
    best = np.zeros(nv, dtype=np.int64)
    vnoise = np.zeros(nv, dtype=np.bool_)
    for v in range(nv):
        vnoise[v] = gmech[vgroup[v]] != 0
    # ---- the per-variant step, all lanes together (released V, ũ; Cholesky; y; B = C⁻¹Q) ----
    V = np.zeros((d, d, nv))
    ut = np.zeros((d, nv))
    C = np.zeros((d, d, nv))
    invd = np.zeros((d, nv))
    ys = np.zeros((d, nv))
    Ci = np.zeros((d, d, nv))
    cv = np.zeros((d, nv))
    B = np.zeros((d, d, nv))
    ok = np.zeros(nv, dtype=np.int64)
    acc = np.zeros(nv)  # the running sums of the lane step, one per lane
    ld = np.zeros(nv)
    # ---- one lane at a time: the PD fallback and the audit rows (rare) ----
    Vs = np.zeros((d, d))
    Cs = np.zeros((d, d))
    invds = np.zeros(d)
    yss = np.zeros(d)
    x = np.zeros((d, nv))
    # ---- per-group tree noise ----
    eta = np.zeros((ng, mmax, npk))
    Nsum = np.zeros((ng, npk))
    abuf = np.zeros((ng, d + 1, d + 1))
    nodebuf = np.zeros((ng, npk))
    gdraws = np.zeros(ng, dtype=np.int64)
    # ---- the decision set of the round (arms along the contiguous axis) ----
    Tb = np.zeros(K)
    Sb = np.zeros(K)
    Gb = np.zeros((d, K))
    flat = np.zeros(K * (d - 1))  # the round's K(d − 1) normals, slot order (one vectorised pass)
    ucbv = np.zeros(K)
    mu = np.zeros(nv)
    sc = np.zeros(nv)
    yr = np.zeros(nv)
    pd_fail = np.zeros(nv, dtype=np.int64)
    n_opt = np.zeros(nv, dtype=np.int64)
    draws = np.zeros(nv, dtype=np.int64)
    cum = np.zeros(nv)
    do_trace = trace.shape[1] > 0
    n_rec = rec_t.shape[0]
    n_aud = audit_t.shape[0]
    ri = 0
    for v in range(nv):
        ri = _record_start(rec_t, rec_out[v])
    ai = 0
    est = rng_load(env)
    for t in range(1, n_rounds + 1):
        # ---- tree noise of round t, once per noise group ----
        for gi in range(ng):
            if gcounter[gi] >= 0:
                if t >= 2:
                    _counter_release(gcounter[gi], gsigma[gi], npk, gcn[gi], gparams[gi], gibuf[gi], gbuf[gi],
                                     noise[gi], ggbuf[gi], t, d, Nsum[gi])
                    gdraws[gi] += 1
            elif gmech[gi] != 0:
                gdraws[gi] += _tree_step(noise[gi], gmech[gi], t, gm[gi], dim_tag, gdf[gi], gscale[gi],
                                         gsigma[gi], abuf[gi], nodebuf[gi], eta[gi], Nsum[gi])
        # ---- the decision set, drawn once (its stream is not the noise streams': order immaterial) ----
        jo, ka, kb, est = decision_set_start(est, K)
        nflat = K * (d - 1)
        bad = fill_normals(ka, kb, np.uint64(0), flat, 0, nflat)
        if bad:
            fix_normals(ka, kb, np.uint64(0), flat, 0, nflat, bad)
        for j in range(K):  # T_j, then the arm's normals and scale as draw_arm_prime computes them
            tj, est = draw_arm_t(est, d, j == jo, opt_mean, low, high, om)
            ss = 0.0
            for k in range(1, d):
                z = flat[j * (d - 1) + k - 1]
                Gb[k, j] = z
                ss += z * z
            Tb[j] = tj
            Sb[j] = math.sqrt((1.0 - tj * tj) / ss)
        # ---- every variant: released V_t, ũ_t; Cholesky (the PD fallback lane by lane); log det V_t; y = C⁻¹ũ;
        #      β_t; B = C⁻¹Q ----
        _release_lanes(G, u, Nsum, vgroup, vnoise, vshift, nv, d, V, ut)
        _cholesky_lanes(V, C, invd, nv, d, ok, acc)
        for v in range(nv):
            if ok[v] == 0:
                for i in range(d):
                    for j in range(i + 1):
                        Vs[i, j] = V[i, j, v]
                _pd_fallback(Vs, Cs, invds, d)
                for i in range(d):
                    invd[i, v] = invds[i]
                    for j in range(i + 1):
                        V[i, j, v] = Vs[i, j]
                        C[i, j, v] = Cs[i, j]
                pd_fail[v] += 1
        for v in range(nv):  # log det V = 2 Σ log C_ii (products of ≤ 8 factors between logs)
            logdet = 0.0
            prod = 1.0
            for i in range(d):
                prod *= C[i, i, v]
                if (i & 7) == 7:
                    logdet += math.log(prod)
                    prod = 1.0
            ld[v] = 2.0 * (logdet + math.log(prod))
        _solve_lanes(C, invd, ut, nv, d, ys, acc)
        _b_matrix_lanes(C, invd, hv, hc, hs, nv, d, Ci, cv, B, acc)
        audit_now = ai < n_aud and audit_t[ai] == t
        # ---- per variant: β_t (audit rows here); the UCB of every arm, then the running argmax ----
        for v in range(nv):
            arg = vkappa[v] + ld[v]
            bt = vsigma[v] * math.sqrt(arg if arg > 0.0 else 0.0) + vxi[v]
            if audit_now:
                for i in range(d):
                    yss[i] = ys[i, v]
                    invds[i] = invd[i, v]
                    for j in range(i + 1):
                        Vs[i, j] = V[i, j, v]
                        Cs[i, j] = C[i, j, v]
                a2 = ai
                while a2 < n_aud and audit_t[a2] == t:
                    _audit_dump(a2, t, d, gmech[vgroup[v]], Nsum[vgroup[v]], vshift[v], Vs, Cs, invds, yss, bt, ld[v],
                                audit_out[v])
                    a2 += 1
            _score_arms(B, ys, v, bt, Tb, Sb, Gb, K, d, ucbv)
            bj = _first_max(ucbv, K)
            best[v] = bj
            if bj == jo:
                n_opt[v] += 1
            if do_trace:
                trace[v, t - 1] = bj
        while ai < n_aud and audit_t[ai] == t:
            ai += 1
        # ---- the reward coin, drawn once; every variant: chosen arm x = Q x', reward, statistics, regret ----
        if reward_gauss:
            z, est = rng_normal_t(est)
        else:
            z, est = rng_uniform_t(est)
        for v in range(nv):
            bj = best[v]
            mu[v] = Tb[bj]
            sc[v] = Sb[bj]
            for k in range(1, d):
                x[k, v] = Gb[k, bj]
        _embed_lanes(mu, sc, x, hv, hc, hs, nv, d)
        for v in range(nv):
            if reward_gauss:
                yr[v] = mu[v] + z
            else:
                yr[v] = 1.0 if z < 0.5 * (1.0 + mu[v]) else -1.0
        for i in range(d):
            for j in range(i + 1):
                for v in range(nv):
                    G[i, j, v] += x[i, v] * x[j, v]
            for v in range(nv):
                u[i, v] += yr[v] * x[i, v]
        for v in range(nv):
            cum[v] += opt_mean - mu[v]
        while ri < n_rec and rec_t[ri] == t:
            for v in range(nv):
                rec_out[v, ri] = cum[v]
            ri += 1
    rng_store(env, est)
    for v in range(nv):
        draws[v] = gdraws[vgroup[v]]
    return pd_fail, n_opt, draws
