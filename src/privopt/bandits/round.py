"""One round of Algorithm 1 (private LinUCB, shariff2018 reading R1) for nv variants at once: the round loop
that all four episode kernels share.

A round of every kernel is three steps, and only the middle one differs between the kernels:

1. :func:`round_start` — the noise of round t, once per *noise group* (the path tree of shariff2018 reading R5,
   or a continual counter, issue 27); then for every variant ("lane") the released V_t = G_t + N[:d,:d] + shift·I
   and ũ_t = u_t + N[:d,d], the Cholesky V_t = C Cᵀ (the PD safety net of shariff2018 reading R3 where a pivot
   is bad), log det V_t = 2 Σ log C_ii, y = C⁻¹ũ_t, β_t = σ·sqrt(max(0, κ + log det V_t)) + ξ, B = C⁻¹Q, and
   the audit rows of round t;
2. the kernel's own part — draw the decision set from the environment stream and choose, for every lane v, the
   arm of largest UCB ⟨y, w⟩ + β‖w‖ (w = B x'), writing ``best[v]``, its T in ``mu[v]`` and its x' = (T, sc·g)
   in ``x[:, v]`` (θ* = e₁ basis; ``x[0, v]`` is not read): on the fly (:func:`privopt.bandits.kernels.
   episode_kernel`), by one BLAS product (``episode_kernel_batched``), by float32 scores with a rigorous bound
   (:func:`privopt.bandits.prefilter.episode_kernel_prefilter`), or buffered for several variants
   (:func:`privopt.bandits.lockstep.lockstep_kernel`);
3. :func:`round_end` — the reward coin, drawn once; for every lane the trace, the chosen arm mapped to the
   original basis (x = Q x'), its reward and the statistics update G += x xᵀ, u += y x, the pseudo-regret and
   its records.

A change to the algorithm outside the scoring is therefore made once, here.  :func:`round_start` and
:func:`round_end` are inlined by numba (``inline="always"``) into the lockstep kernel (as plain calls a
one-variant round at d = 5 took 1.56 instead of 1.19 µs, issue 40); the single-variant kernels call them
through the plain functions :func:`round_start_one` and :func:`round_end_one` (one lane), each typed and
compiled once per d and shared by the three (a helper inlined at every call site of every specialisation had
taken half of a cold compilation).  Two things keep that one compilation per d: :func:`round_start_one` types
only the path tree's noise (its kernels' one group never is a continual counter), and the kernels pass it an
``int64`` audit index, not the literal ``0`` (a call typed once with ``Literal[int](0)`` and once with
``int64`` compiles the callee twice); with the counter code typed and compiled twice, a cold on-the-fly kernel
at d = 5 had cost 28.7 CPU-s against 14.1 before the shared loop and 18.3 after these two changes.  The work arrays are allocated inside each kernel
(:func:`round_buffers`, inlined): behind a call, the batched round at d = 16 took 20 % longer.

Lanes (issue 36): the variants' statistics and the arrays of steps 1 and 3 hold the variants along the last
axis, and every step runs lane by lane in loops whose innermost loop is over the lanes (each running sum in a
per-lane accumulator ``acc``), so several variants' chains of dependent operations (square roots, divisions)
overlap; the number of lanes is a compile-time constant (``lane_tag``, a tuple of nv zeros, as ``dim_tag`` is
for d).  Each lane performs exactly the operations, in the order, of the one-variant algorithm: no fast-math
flag is used, so the compiler may not reassociate any sum, and a variant run in a lane of nine gives the same
bits as run alone.  A lane whose Cholesky meets a bad pivot is refactored alone by :func:`_pd_fallback`.

The arrays (built by :func:`round_buffers` and the caller) travel as tuples:

* ``groups`` = (gmech, gm, gdf, gscale, gsigma, gcounter, gcn, gparams, gibuf, gbuf, ggbuf), per noise group:
  mechanism code (0 none, 1 Gaussian, 2 Wishart), tree levels, Wishart df, Wishart node scale, Gaussian node σ,
  and the continual counter (code, −1 for the path tree) with its
  :class:`~privopt.mechanisms.counting.CounterState` fields;
* ``lanes`` = (vgroup, vnoise, vshift, vkappa, vxi, vsigma), per variant: its noise group, whether it adds noise,
  shift, κ, ξ and σ of β_t;
* ``tree`` = (eta, Nsum, abuf, nodebuf, gdraws), per group: the path tree's level noises, their sum (the released
  noise, a packed (d+1)×(d+1) lower triangle without its corner), the node samplers' buffers, node draws;
* ``state`` = (G, u, x, best, mu, yr, cum, n_opt, pd_fail), per variant;
* ``work`` = (V, ut, C, invd, ys, Ci, cv, B, ok, acc, ld, beta, Vs, Cs, invds): the step of round 1, lane-wise,
  and one lane's copies for the PD fallback.

Randomness: the noise groups' states ``noise`` (uint64[ng, 4]) and the environment state (a register tuple,
:func:`privopt.fastrng.rng_load`) are separate streams, so the order of their draws within a round changes no
number; see :mod:`privopt.bandits.kernels` for what each stream draws.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.fastrng import rng_normal_t, rng_uniform_t
from privopt.mechanisms.counting import gaussian_counter_step
from privopt.mechanisms.gaussian import sym_gaussian_packed_into
from privopt.mechanisms.tree import EXACT_REFRESH_LEVEL, path_refresh_top
from privopt.mechanisms.wishart import bartlett_packed_into

__all__ = ["audit_layout", "audit_width", "one_group", "one_lane", "one_variant", "record_start", "round_buffers",
           "round_end", "round_end_one", "round_start", "round_start_one"]

_REFRESH = EXACT_REFRESH_LEVEL


# ---------------------------------------------------------------------------------------------------------------
# the noise of round t: the path tree (shariff2018 reading R5) or a continual counter (issue 27)
# ---------------------------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def _tree_step(noise, mech, t, m, d, df, node_scale, sigma_noise, abuf, nodebuf, eta, Nsum):
    """Move the path-tree noise of a d-dimensional kernel to the release of round t (leaf s = t − 1); return the
    node draws.

    Round 1 draws levels 0..m−1; round t ≥ 2 redraws levels 0..min(tz(t−1), m−1) in increasing
    order.  ``Nsum`` (packed, corner dropped) is updated by Nsum += new − old, and recomputed
    exactly from the m stored noises on round 1 and whenever the refresh reaches
    :data:`privopt.mechanisms.tree.EXACT_REFRESH_LEVEL`.  One call per round and noise group.

    A plain call with d a run-time ``int64``: typed and compiled once for every d, kernel and lane count.  Inlined
    into each kernel it had cost a cold d = 5, 9-lane compilation 42.3 instead of 33.9 CPU-s, and typed per d (d a
    compile-time constant) about 6 CPU-s for every further d — also for the NonPrivate runs of Exp. 1, whose kernels
    hold the private branches without running them.  Neither costs the rounds anything measurable: Fig. 5's rounds
    at 1.013 and 1.002 of the inlined kernel's, then at 1.000 and 0.992 of the per-d step's
    (docs/performance.md)."""
    d1 = d + 1
    npk = d1 * (d1 + 1) // 2 - 1
    top = m - 1 if t == 1 else path_refresh_top(t - 1, m)
    exact = t == 1 or top >= _REFRESH
    for lv in range(top + 1):
        if mech == 1:
            sym_gaussian_packed_into(noise, sigma_noise, d1, True, nodebuf)
        else:
            bartlett_packed_into(noise, df, d1, node_scale, True, abuf, nodebuf)
        if exact:
            for p in range(npk):
                eta[lv, p] = nodebuf[p]
        else:
            for p in range(npk):
                v = nodebuf[p]
                Nsum[p] += v - eta[lv, p]
                eta[lv, p] = v
    if exact:
        for p in range(npk):
            s = 0.0
            for lv in range(m):
                s += eta[lv, p]
            Nsum[p] = s
    return top + 1


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


# ---------------------------------------------------------------------------------------------------------------
# the PD safety net (shariff2018 reading R3), one lane at a time
# ---------------------------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def _cholesky(V, C, invd, d):
    """Lower Cholesky of the lower triangle of V into C; 1/C_ii into invd. False on a bad pivot."""
    for j in range(d):
        s = V[j, j]
        for k in range(j):
            s -= C[j, k] * C[j, k]
        if not (s > 0.0) or not math.isfinite(s):
            return False
        cjj = math.sqrt(s)
        C[j, j] = cjj
        inv = 1.0 / cjj
        invd[j] = inv
        for i in range(j + 1, d):
            s2 = V[i, j]
            for k in range(j):
                s2 -= C[i, k] * C[j, k]
            C[i, j] = s2 * inv
    return True


@numba.njit(cache=True)
def _jacobi_eigh(A, Q, w, d):
    """Cyclic Jacobi eigen-decomposition of the symmetric d×d matrix A (destroyed): A = Q diag(w) Qᵀ.

    Hand-written (no LAPACK) so that the kernels stay quick to compile; used only by the PD fallback.
    """
    for i in range(d):
        for j in range(d):
            Q[i, j] = 1.0 if i == j else 0.0
    for _sweep in range(100):
        off = 0.0
        tot = 0.0
        for i in range(d):
            for j in range(d):
                tot += A[i, j] * A[i, j]
                if i != j:
                    off += A[i, j] * A[i, j]
        if off <= 1e-30 * tot or off == 0.0:
            break
        for p in range(d - 1):
            for q in range(p + 1, d):
                apq = A[p, q]
                if apq == 0.0:
                    continue
                theta = (A[q, q] - A[p, p]) / (2.0 * apq)
                t = (1.0 if theta >= 0 else -1.0) / (abs(theta) + math.sqrt(theta * theta + 1.0))
                c = 1.0 / math.sqrt(t * t + 1.0)
                sn = t * c
                for k in range(d):
                    akp = A[k, p]
                    akq = A[k, q]
                    A[k, p] = c * akp - sn * akq
                    A[k, q] = sn * akp + c * akq
                for k in range(d):
                    apk = A[p, k]
                    aqk = A[q, k]
                    A[p, k] = c * apk - sn * aqk
                    A[q, k] = sn * apk + c * aqk
                for k in range(d):
                    qkp = Q[k, p]
                    qkq = Q[k, q]
                    Q[k, p] = c * qkp - sn * qkq
                    Q[k, q] = sn * qkp + c * qkq
    for i in range(d):
        w[i] = A[i, i]


@numba.njit(cache=True)
def _pd_fallback(V, C, invd, d):
    """The safety net of shariff2018 reading R3: eigen-clip the lower triangle of V at max(1e-8, 1e-12·λ_max), refactor.

    Only reached when the Cholesky of V_t fails (never expected at the paper's shifts).
    """
    full = np.empty((d, d))
    q = np.empty((d, d))
    w = np.empty(d)
    finite = True
    for i in range(d):
        for j in range(i + 1):
            full[i, j] = V[i, j]
            full[j, i] = V[i, j]
            finite = finite and math.isfinite(V[i, j])
    if finite:
        _jacobi_eigh(full, q, w, d)
        wmax = 0.0
        for i in range(d):
            if w[i] > wmax:
                wmax = w[i]
        floor = max(1e-8, 1e-12 * wmax)
        for i in range(d):
            if not (w[i] > floor):
                w[i] = floor
        for i in range(d):
            for j in range(i + 1):
                s = 0.0
                for k in range(d):
                    s += q[i, k] * w[k] * q[j, k]
                V[i, j] = s
    if not finite or not _cholesky(V, C, invd, d):  # non-finite input: fall back to the identity
        for i in range(d):
            for j in range(i):
                V[i, j] = 0.0
            V[i, i] = 1.0
        _cholesky(V, C, invd, d)


# ---------------------------------------------------------------------------------------------------------------
# the audit rows: the released quantities of a round, evaluated in numpy afterwards
# ---------------------------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def _audit_dump(row, t, d, mech, Nsum, shift, V, C, invd, yv, v, beta, logdet, out):
    """Store the released quantities of round t of lane v (V, C, invd, yv lane-wise, the lane last) for the audit.

    Row layout: t, β_t, log det V_t, H_t packed (d(d+1)/2), h_t (d), V_t packed (d(d+1)/2),
    θ̃_t (d) — see :func:`audit_layout`.
    """
    pd_ = d * (d + 1) // 2
    out[row, 0] = t
    out[row, 1] = beta
    out[row, 2] = logdet
    o = 3
    for i in range(d):
        for j in range(i + 1):
            p = i * (i + 1) // 2 + j
            val = Nsum[p] if mech != 0 else 0.0
            if i == j:
                val += shift
            out[row, o + p] = val
    o += pd_
    for i in range(d):
        out[row, o + i] = Nsum[pd_ + i] if mech != 0 else 0.0
    o += d
    for i in range(d):
        for j in range(i + 1):
            out[row, o + i * (i + 1) // 2 + j] = V[i, j, v]
    o += pd_
    # θ̃ = C⁻ᵀ y (back substitution)
    for i in range(d - 1, -1, -1):
        s = yv[i, v]
        for k in range(i + 1, d):
            s -= C[k, i, v] * out[row, o + k]
        out[row, o + i] = s * invd[i, v]


def audit_layout(d: int) -> dict[str, slice]:
    """Column slices of the raw audit rows written by the kernels."""
    pd_ = d * (d + 1) // 2
    return {"t": slice(0, 1), "beta": slice(1, 2), "logdet": slice(2, 3), "H": slice(3, 3 + pd_),
            "h": slice(3 + pd_, 3 + pd_ + d), "V": slice(3 + pd_ + d, 3 + 2 * pd_ + d),
            "theta_hat": slice(3 + 2 * pd_ + d, 3 + 2 * pd_ + 2 * d)}


def audit_width(d: int) -> int:
    return 3 + d * (d + 1) + 2 * d


# ---------------------------------------------------------------------------------------------------------------
# the step of every lane: release, Cholesky, solve, B = C⁻¹Q; the chosen arm's embedding
# ---------------------------------------------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def _release_lanes(G, u, Nsum, vgroup, vnoise, vshift, nv, d, V, ut):
    """V_t = G + N[:d,:d] + shift·I and ũ_t = u + N[:d,d] of every lane (the noise of its group where it adds
    noise): each entry one addition, the shift added to the diagonal last."""
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
    """:func:`_cholesky` of every lane at once: each sum runs in ``acc`` (one entry per lane) in the same order as
    there, the loop over lanes innermost; ok[v] = 0 where a pivot is bad (that lane's C is then junk: the caller
    refactors it)."""
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
    """y = C⁻¹ũ of every lane (forward substitution, increasing i and k; sums in ``acc``)."""
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
    """B = C⁻¹Q = hs·(C⁻¹ − hc·(C⁻¹hv) hvᵀ) of every lane, so that C⁻¹x = B x' for x = Q x' (x' in the θ* = e₁
    basis); sums in ``acc``, the loop over lanes innermost."""
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
def _embed_lanes(mu, x, hv, hc, hs, nv, d):
    """x[:, v] = Q x'_v = hs·(x' − hc·⟨hv, x'⟩·hv) (Householder, Q e₁ = θ*) with x'_v = (mu_v, x[1:, v])."""
    for v in range(nv):
        t = mu[v]
        x[0, v] = t
        proj = hv[0] * t
        for i in range(1, d):
            proj += hv[i] * x[i, v]
        proj *= hc
        for i in range(d):
            x[i, v] = hs * (x[i, v] - proj * hv[i])


# ---------------------------------------------------------------------------------------------------------------
# the round
# ---------------------------------------------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def round_buffers(dim_tag, lane_tag, ng, mmax):
    """The work arrays of a kernel for d = len(dim_tag), nv = len(lane_tag) lanes and ng noise groups (trees of
    at most ``mmax`` levels), allocated once before the round loop: (tree, state, work) of the module docstring."""
    d = len(dim_tag)
    nv = len(lane_tag)
    npk = (d + 1) * (d + 2) // 2 - 1
    tree = (np.zeros((ng, mmax, npk)), np.zeros((ng, npk)), np.zeros((ng, d + 1, d + 1)), np.zeros((ng, npk)),
            np.zeros(ng, dtype=np.int64))
    state = (np.zeros((d, d, nv)), np.zeros((d, nv)), np.zeros((d, nv)), np.zeros(nv, dtype=np.int64),
             np.zeros(nv), np.zeros(nv), np.zeros(nv), np.zeros(nv, dtype=np.int64), np.zeros(nv, dtype=np.int64))
    work = (np.zeros((d, d, nv)), np.zeros((d, nv)), np.zeros((d, d, nv)), np.zeros((d, nv)), np.zeros((d, nv)),
            np.zeros((d, d, nv)), np.zeros((d, nv)), np.zeros((d, d, nv)), np.zeros(nv, dtype=np.int64),
            np.zeros(nv), np.zeros(nv), np.zeros(nv), np.zeros((d, d)), np.zeros((d, d)), np.zeros(d))
    return tree, state, work


@numba.njit(cache=True, inline="always")
def one_group(mech, m, df, node_scale, sigma_noise):
    """``groups`` of one variant's own path tree (no continual counter): the single-variant kernels'."""
    return (np.full(1, mech, dtype=np.int64), np.full(1, m, dtype=np.int64), np.full(1, df), np.full(1, node_scale),
            np.full(1, sigma_noise), np.full(1, -1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros((1, 1)),
            np.zeros((1, 1), dtype=np.int64), np.zeros((1, 1, 1)), np.zeros((1, 1)))


@numba.njit(cache=True, inline="always")
def one_lane(mech, shift, kappa, xi, sigma_r):
    """``lanes`` of one variant in group 0."""
    return (np.zeros(1, dtype=np.int64), np.full(1, mech != 0), np.full(1, shift), np.full(1, kappa), np.full(1, xi),
            np.full(1, sigma_r))


@numba.njit(cache=True, inline="always")
def one_variant(dim_tag, noise, mech, m, df, node_scale, sigma_noise, shift, kappa, xi, sigma_r, rec_out, audit_out,
                trace):
    """The round's arrays of a single-variant kernel (one lane, one noise group), allocated in the kernel:
    (groups, lanes, tree, state, work), the lane's B (d×d) and y (d) as plain views, its β_t (``beta[0]`` after
    :func:`round_start_one`), and the caller's noise state, records, audit rows and trace viewed as lane 0's."""
    d = len(dim_tag)
    groups = one_group(mech, m, df, node_scale, sigma_noise)
    lanes = one_lane(mech, shift, kappa, xi, sigma_r)
    tree, state, work = round_buffers(dim_tag, (0,), 1, m)
    return (groups, lanes, tree, state, work, work[7].reshape((d, d)), work[4].reshape(d), work[11],
            noise.reshape((1, 4)), rec_out.reshape((1, rec_out.shape[0])),
            audit_out.reshape((1, audit_out.shape[0], audit_out.shape[1])), trace.reshape((1, trace.shape[0])))


@numba.njit(cache=True, inline="always")
def _groups_noise(t, dim_tag, noise, groups, tree):
    """The released noise of round t of every noise group: its continual counter's, or its path tree's."""
    d = len(dim_tag)
    npk = (d + 1) * (d + 2) // 2 - 1
    gmech, gm, gdf, gscale, gsigma, gcounter, gcn, gparams, gibuf, gbuf, ggbuf = groups
    eta, Nsum, abuf, nodebuf, gdraws = tree
    for gi in range(gmech.shape[0]):
        if gcounter[gi] >= 0:
            if t >= 2:
                _counter_release(gcounter[gi], gsigma[gi], npk, gcn[gi], gparams[gi], gibuf[gi], gbuf[gi],
                                 noise[gi], ggbuf[gi], t, d, Nsum[gi])
                gdraws[gi] += 1
        elif gmech[gi] != 0:
            gdraws[gi] += _tree_step(noise[gi], gmech[gi], t, gm[gi], np.int64(d), gdf[gi], gscale[gi], gsigma[gi],
                                     abuf[gi], nodebuf[gi], eta[gi], Nsum[gi])


@numba.njit(cache=True, inline="always")
def round_start(t, dim_tag, lane_tag, noise, groups, tree, lanes, state, work, hv, hc, hs, audit_t, audit_out, ai):
    """Step 1 of round t (module docstring): the noise of every group; per lane the released V_t and ũ_t, the
    Cholesky (the PD fallback lane by lane, counted in ``pd_fail``), log det V_t (in ``ld``), y = C⁻¹ũ_t (``ys``),
    β_t (``beta``), B = C⁻¹Q and the audit rows of round t (``audit_out[v]``).  Returns the next audit row."""
    _groups_noise(t, dim_tag, noise, groups, tree)
    return _lanes_step(t, dim_tag, lane_tag, groups, tree, lanes, state, work, hv, hc, hs, audit_t, audit_out, ai)


@numba.njit(cache=True, inline="always")
def _lanes_step(t, dim_tag, lane_tag, groups, tree, lanes, state, work, hv, hc, hs, audit_t, audit_out, ai):
    """:func:`round_start` after the noise: the lanes' release, Cholesky, log det, y, β_t, B and audit rows."""
    d = len(dim_tag)
    nv = len(lane_tag)
    gmech = groups[0]
    Nsum = tree[1]
    vgroup, vnoise, vshift, vkappa, vxi, vsigma = lanes
    G, u, x, best, mu, yr, cum, n_opt, pd_fail = state
    V, ut, C, invd, ys, Ci, cv, B, ok, acc, ld, beta, Vs, Cs, invds = work
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
    for v in range(nv):
        arg = vkappa[v] + ld[v]
        beta[v] = vsigma[v] * math.sqrt(arg if arg > 0.0 else 0.0) + vxi[v]
    n_aud = audit_t.shape[0]
    if ai < n_aud and audit_t[ai] == t:
        a0 = ai
        for v in range(nv):
            ai = a0
            while ai < n_aud and audit_t[ai] == t:
                _audit_dump(ai, t, d, gmech[vgroup[v]], Nsum[vgroup[v]], vshift[v], V, C, invd, ys, v, beta[v], ld[v],
                            audit_out[v])
                ai += 1
    return ai


@numba.njit(cache=True, inline="always")
def round_end(est, t, dim_tag, lane_tag, reward_gauss, jo, opt_mean, hv, hc, hs, state, trace, rec_t, rec_out, ri):
    """Step 3 of round t (module docstring), after the kernel has written ``best``, ``mu`` and x' (``x[1:, v]``)
    of every lane: the trace and the optimal-arm count; the reward coin, drawn once (N(0, 1) for Gaussian rewards,
    else a uniform: reward +1 if below (1 + μ)/2, else −1); per lane x = Q x', its reward, G += x xᵀ (lower),
    u += y x, the pseudo-regret opt_mean − ⟨θ*, x⟩ = opt_mean − μ and its records.  Returns (environment state,
    next record)."""
    d = len(dim_tag)
    nv = len(lane_tag)
    G, u, x, best, mu, yr, cum, n_opt, pd_fail = state
    for v in range(nv):
        if best[v] == jo:
            n_opt[v] += 1
        if trace.shape[1] > 0:
            trace[v, t - 1] = best[v]
    if reward_gauss:
        z, est = rng_normal_t(est)
    else:
        z, est = rng_uniform_t(est)
    _embed_lanes(mu, x, hv, hc, hs, nv, d)
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
    while ri < rec_t.shape[0] and rec_t[ri] == t:
        for v in range(nv):
            rec_out[v, ri] = cum[v]
        ri += 1
    return est, ri


@numba.njit(cache=True)
def round_start_one(t, dim_tag, noise, groups, tree, lanes, state, work, hv, hc, hs, audit_t, audit_out, ai):
    """:func:`round_start` of one lane, a plain call: compiled once per d, shared by the single-variant kernels.
    Their one noise group is a path tree (:func:`one_group`), so the continual counters' code is not typed here."""
    gmech, gm, gdf, gscale, gsigma = groups[0], groups[1], groups[2], groups[3], groups[4]
    eta, Nsum, abuf, nodebuf, gdraws = tree
    if gmech[0] != 0:
        gdraws[0] += _tree_step(noise[0], gmech[0], t, gm[0], np.int64(len(dim_tag)), gdf[0], gscale[0], gsigma[0],
                                abuf[0], nodebuf[0], eta[0], Nsum[0])
    return _lanes_step(t, dim_tag, (0,), groups, tree, lanes, state, work, hv, hc, hs, audit_t, audit_out, ai)


@numba.njit(cache=True)
def round_end_one(est, t, dim_tag, reward_gauss, jo, opt_mean, hv, hc, hs, state, trace, rec_t, rec_out, ri):
    """:func:`round_end` of one lane, a plain call: compiled once per d, shared by the single-variant kernels."""
    return round_end(est, t, dim_tag, (0,), reward_gauss, jo, opt_mean, hv, hc, hs, state, trace, rec_t, rec_out, ri)


@numba.njit(cache=True, inline="always")
def record_start(rec_t, rec_out):
    """R̂ = 0 at the recording rounds ≤ 0 (of every lane: ``rec_out[v]``); returns the index of the first recording
    round still due."""
    ri = 0
    while ri < rec_t.shape[0] and rec_t[ri] <= 0:
        for v in range(rec_out.shape[0]):
            rec_out[v, ri] = 0.0
        ri += 1
    return ri
