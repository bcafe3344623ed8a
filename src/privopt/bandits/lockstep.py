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
:func:`privopt.bandits.kernels.episode_kernel` run on that variant alone — the shared round of
:mod:`privopt.bandits.round` (there one lane, here one lane per variant, see Lanes below); the arms drawn by the same sampler from the
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
Lanes (issue 36): the step before the scores and the update after the choice are the round every kernel shares
(:mod:`privopt.bandits.round`), run here with the variants as its lanes (``lane_tag``, the number of variants as a
compile-time constant) and inlined into this kernel; so the variants' chains of dependent operations (square roots,
divisions) overlap.  A Fig. 5 round (9 variants, d = 5) cost 0.79 of the round before the lanes (CPU time; one run
of ``benchmarks/bench_fig5_kernel.py``); one variant alone (Exp. 1 below d = 12) costs no more than before.  Each
round draws the noise, then the decision set: the environment and noise streams are separate, so the order of their
draws changes no number.  The scoring helpers stay inlined by numba (``inline="always"``): as plain calls a round of
one variant at d = 5 took 1.56 instead of 1.19 µs (CPU, side by side; issue 40).

A Gaussian noise group may take its release from a continual counter instead of the paper's path tree
(issue 27, ``VariantParams.counter``): one call of
:func:`privopt.mechanisms.counting.gaussian_counter_step` per round and group (a plain call, compiled once for
every d), on the group's own noise stream.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.bandits.kernels import TIE_RTOL, decision_set_start, draw_arm_t
from privopt.bandits.round import record_start, round_buffers, round_end, round_start
from privopt.fastrng.counter_based import fill_normals, fix_normals
from privopt.fastrng import rng_load, rng_store

__all__ = ["lockstep_kernel", "noise_group_key"]


def noise_group_key(mechanism: str, m: int, df: float, node_scale: float, sigma_noise: float,
                    counter: str = "path") -> tuple:
    """Variants with equal keys draw identical tree noise from the same noise stream (one group)."""
    return (mechanism, int(m), float(df), float(node_scale), float(sigma_noise), counter)


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
    mmax = 1
    for gi in range(ng):
        if gm[gi] > mmax:
            mmax = gm[gi]
    groups = (gmech, gm, gdf, gscale, gsigma, gcounter, gcn, gparams, gibuf, gbuf, ggbuf)
    vnoise = np.zeros(nv, dtype=np.bool_)
    for v in range(nv):
        vnoise[v] = gmech[vgroup[v]] != 0
    lanes = (vgroup, vnoise, vshift, vkappa, vxi, vsigma)
    tree, state, work = round_buffers(dim_tag, lane_tag, ng, mmax)
    x, best, mu = state[2], state[3], state[4]
    B, ys, beta = work[7], work[4], work[11]
    # ---- the decision set of the round (arms along the contiguous axis) ----
    Tb = np.zeros(K)
    Sb = np.zeros(K)
    Gb = np.zeros((d, K))
    flat = np.zeros(K * (d - 1))  # the round's K(d − 1) normals, slot order (one vectorised pass)
    ucbv = np.zeros(K)
    ri = record_start(rec_t, rec_out)
    ai = 0
    est = rng_load(env)
    for t in range(1, n_rounds + 1):
        # ---- the round's noise; every lane's V_t, ũ_t, Cholesky, log det, y = C⁻¹ũ, β_t, B = C⁻¹Q; audit rows ----
        ai = round_start(t, dim_tag, lane_tag, noise, groups, tree, lanes, state, work, hv, hc, hs, audit_t,
                         audit_out, ai)
        # ---- the decision set, drawn once ----
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
        # ---- per variant: the UCB of every arm, the running argmax; the chosen arm's T and x' = (T, sc·g) ----
        for v in range(nv):
            _score_arms(B, ys, v, beta[v], Tb, Sb, Gb, K, d, ucbv)
            bj = _first_max(ucbv, K)
            best[v] = bj
            mu[v] = Tb[bj]
            scb = Sb[bj]
            for k in range(1, d):
                x[k, v] = scb * Gb[k, bj]
        # ---- the reward coin, drawn once; every lane: x = Q x', reward, statistics, regret, records ----
        est, ri = round_end(est, t, dim_tag, lane_tag, reward_gauss, jo, opt_mean, hv, hc, hs, state, trace, rec_t,
                            rec_out, ri)
    rng_store(env, est)
    draws = np.zeros(nv, dtype=np.int64)
    for v in range(nv):
        draws[v] = tree[4][vgroup[v]]
    return state[8], state[7], draws
