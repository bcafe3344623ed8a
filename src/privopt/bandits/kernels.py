"""Numba episode kernels of Algorithm 1 for all variants (shariff2018 readings R1, R21).

:func:`episode_kernel` runs one whole episode — the loop over rounds t = 1..n_rounds — inside a
single ``@njit(cache=True)`` function, specialised at compile time on d (see :func:`dim_tag`), with
no allocation in the loop (only the never-expected PD-failure fallback allocates):

* tree noise by the root-to-leaf *path* construction (shariff2018 reading R5): ``eta[ℓ]`` holds the current
  level-ℓ node noise as a packed lower triangle of the (d+1)×(d+1) matrix *without* the unused
  corner; round t ≥ 2 redraws levels 0..min(tz(t−1), m−1) in increasing order (amortised 2 nodes
  per round) and updates the running sum ``Nsum``; whenever a refresh reaches level
  :data:`privopt.mechanisms.tree.EXACT_REFRESH_LEVEL` (every 1024 rounds) ``Nsum`` is recomputed
  from the m stored noises;
* V_t = G_t + Nsum[:d,:d] + shift·I and ũ_t = u_t + Nsum[:d, d]; hand-written lower Cholesky
  V = C Cᵀ, log det V = 2 Σ log C_ii, y = C⁻¹ũ;
* β_t = σ·sqrt(max(0, κ + log det V_t)) + ξ with κ = 2 log(2/α) − d log ρ_min, ξ = S√ρ_max + γ;
* arms generated and scored on the fly (never stored).  An arm is drawn in the θ* = e₁ basis,
  x' = (T, sc·g), and mapped by the Householder reflection Q (Q e₁ = θ*); with B = C⁻¹Q
  (computed once per round) w = C⁻¹x = B x' = T·B[:,0] + sc·B[:,1:]g and
  UCB(x) = ⟨θ̃, x⟩ + β‖x‖_{V⁻¹} = ⟨y, w⟩ + β‖w‖ (θ̃ = C⁻ᵀy), keeping the running argmax
  (ties, i.e. values within :data:`TIE_RTOL` relative, → lowest index); only the chosen arm is
  mapped to the original basis;
* G += x xᵀ, u += y x with the chosen arm; pseudo-regret += opt_mean − ⟨θ*, x_t⟩ (exact T of the arm).

One round loop: the part of a round before the arms (tree noise, release, Cholesky, β_t, B = C⁻¹Q) is
:func:`_round_start`, the part after the choice (trace, audit rows, the chosen arm's embedding, reward,
statistics, regret and its records) is :func:`_round_end`; :func:`episode_kernel`, :func:`episode_kernel_batched`
and :func:`privopt.bandits.prefilter.episode_kernel_prefilter` call both and differ only in how they draw and score
the decision set (the batched kernel passes the chosen row of its arm buffer as x').  On the round functions the
batched kernel's round measured 0.99–1.07 of its own written-out loop's at d = 12 and 16 (medians of 20 interleaved
runs each, NonPrivate and Gaussian; the host's noise ±10 %; docs/performance.md) and its rows are the same bit for
bit.  The lockstep kernel runs the same steps lane by lane (:mod:`privopt.bandits.lockstep`).

:func:`episode_kernel_batched` is the same algorithm with the decision set buffered and scored by one
BLAS product per round (docs/performance.md), faster from d ≈ 12 on (Exp. 1 goes up to d = 64, K = 4096).
Both kernels consume the random streams identically and make identical decisions.  Below d = 12 the
pipeline runs :func:`privopt.bandits.lockstep.lockstep_kernel` instead (also for a single variant:
``kernel="buffered"``), which buffers the decision set and scores it in a vectorised loop; it is
tested bit for bit against :func:`episode_kernel`, which stays the readable reference.

Randomness (documented contract, relied upon by the tests): two xoshiro256++ states
(``FastGenerator.state`` of :mod:`privopt.fastrng`, seeded from SeedSequences by
:func:`privopt.bandits.streams.episode_streams`) are passed in and advanced in place, so the
kernel draws *exactly* the numbers the plain-numpy reference draws from ``FastGenerator``
objects with the same states:

* ``env`` — decision sets and reward coins, in the canonical order of
  :mod:`privopt.bandits.instances` (θ* has already been drawn from it by the caller);
* ``noise`` — tree node noises: m nodes at initialisation (levels 0..m−1), then the refreshed
  levels of each round; Gaussian nodes by
  :func:`privopt.mechanisms.gaussian.sym_gaussian_packed_into`, Wishart nodes by
  :func:`privopt.mechanisms.wishart.bartlett_packed_into` (both with ``skip_corner``).

The decisions never influence which numbers are drawn (rejection counts depend only on the
stream), so the same ``env`` state gives every variant the same decision sets and reward coins
(common random numbers), and a run of T rounds is an exact prefix of a longer run.
Inside the kernels the environment state is carried as a tuple (registers) and written back to
the ``env`` array at the end of the episode.

PD safety net (shariff2018 reading R3): if the Cholesky of V_t fails, V_t is eigen-decomposed (hand-written
Jacobi), its eigenvalues clipped at max(1e-8, 1e-12·λ_max), rebuilt, and a ``pd_failures`` counter
is incremented.  The kernel calls no LAPACK routine at all (which keeps a fresh compilation of one
d-specialisation at a few seconds); audits store raw released quantities that are evaluated in numpy.

Compile cost (issue 40): numba's own inlining (``inline="always"``) re-types a helper's body at every call
site of every kernel specialisation; it took about half of a cold compilation.  :func:`_round_start` and
:func:`_round_end` are plain calls — each typed and compiled once per d and shared by the single-variant
kernels — with the round's helpers inlined into them; one call of each a round costs nothing measurable beside
the scores of the prefilter kernel (d ≥ 20).  The work arrays stay allocated inside each kernel (:func:`_episode_buffers` inlined):
allocated behind a call, the batched round at d = 16 took 20 % longer (LLVM can no longer tell that they do not
overlap).  The helpers called once per *arm*
(:func:`draw_arm_t`, :func:`draw_arm_prime`, :func:`zone_accept`) stay inlined into the kernels: as plain calls
they cost 8 % of a batched round at d = 16 and 4 % of a prefilter round at d = 23; the lockstep kernel (d < 12,
about 1 µs a round) keeps all its helpers inlined but the path tree's step (:func:`_tree_step`, once a round per noise
group), which every lane count shares.
``benchmarks/bench_kernel_compile.py`` measures the compile CPU of each kernel specialisation.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.bandits.instances import _zone_accept_prob_nb, _zone_envelope_accept_nb, _zone_envelope_k_nb
from privopt.fastrng.counter_based import fill_normals, fix_normals
from privopt.fastrng import rng_load, rng_next_t, rng_normal_t, rng_store, rng_uniform_t
from privopt.mechanisms.gaussian import sym_gaussian_packed_into
from privopt.mechanisms.tree import EXACT_REFRESH_LEVEL, path_refresh_top
from privopt.mechanisms.wishart import bartlett_packed_into

__all__ = ["TIE_RTOL", "audit_layout", "audit_width", "decision_set_start", "dim_tag", "draw_arm_prime",
           "draw_arm_t", "episode_kernel", "episode_kernel_batched", "sample_decision_sets_nb", "zone_accept"]

_REFRESH = EXACT_REFRESH_LEVEL
#: UCB values within this relative distance of the running maximum count as ties (→ lowest index).
#: Exact ties occur in round 1 of NonPrivate (θ̃ = 0, V = ρI: every unit arm has the same UCB); the
#: tolerance makes the choice there deterministic and identical across implementations.
TIE_RTOL = 1e-12
_U53 = 2.0 ** -53


def dim_tag(d: int) -> tuple:
    """Tuple of d zeros: passes the dimension to :func:`episode_kernel` as a compile-time constant."""
    return (0,) * int(d)


@numba.njit(cache=True, inline="always")
def zone_accept(u2, t, om, d):
    """``u2 <= zone_accept_prob(t, om, d)``, decided without the d/2-long product where it is plain.

    q = r^⌊(d−3)/2⌋ (·√r) by repeated squaring (≤ 2·log₂ d + 2 roundings) and the reference product
    (⌊(d−3)/2⌋ + 1 roundings) are both within (d + 2 log₂ d + 4)·ε relative of the exact power; outside
    a margin of twice that around q the comparison is decided by q, inside it by the reference product,
    so the answer is always the reference's."""
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
    margin = q * (2.0 * (d + 64) * _U53)
    if u2 < q - margin:
        return True
    if u2 > q + margin:
        return False
    return u2 <= _zone_accept_prob_nb(t, om, d)


@numba.njit(cache=True, inline="always")
def decision_set_start(st, K):
    """The environment draws that open a round's decision set: the optimal arm's index
    jo = ⌊U·K⌋, then the two 64-bit keys (ka, kb) of the set's normals (:mod:`privopt.fastrng.counter_based`).
    Returns (jo, ka, kb, state)."""
    u0, st = rng_uniform_t(st)
    ka, st = rng_next_t(st)
    kb, st = rng_next_t(st)
    return int(u0 * K), ka, kb, st


@numba.njit(cache=True, inline="always")
def draw_arm_t(st, d, is_opt, opt_mean, a, b, om):
    """T of one arm from the environment stream: ``opt_mean`` for the optimal arm, else the zone
    rejection sampler on [a, b] of :mod:`privopt.bandits.instances` (the Gaussian envelope where
    :func:`~privopt.bandits.instances.zone_envelope_k` says so, else the uniform proposal with the test
    :func:`zone_accept`; ``om`` = 1 − t₀²).  Returns (T, state)."""
    if is_opt:
        return opt_mean, st
    k = _zone_envelope_k_nb(a, b, d)
    if k > 0.0:
        s = 1.0 / math.sqrt(2.0 * k)
        while True:
            z, st = rng_normal_t(st)
            t = s * z
            if a <= t <= b:
                u, st = rng_uniform_t(st)
                if _zone_envelope_accept_nb(u, t, k):
                    return t, st
    width = b - a
    while True:
        u1, st = rng_uniform_t(st)
        t = a + width * u1
        if d == 3:
            return t, st
        u2, st = rng_uniform_t(st)
        if zone_accept(u2, t, om, d):
            return t, st


@numba.njit(cache=True, inline="always")
def draw_arm_prime(st, d, is_opt, opt_mean, a, b, om, g, ka, kb, j):
    """Draw arm j in the θ* = e₁ basis, canonical order; return (T, sc, state) with x' = (T, sc·g).

    ``st`` is an environment state tuple (:func:`privopt.fastrng.rng_load`): T by :func:`draw_arm_t`;
    then g[1:] ← the d − 1 normals of slots j(d − 1) … j(d − 1) + d − 2 of the round's stream (ka, kb)
    (:mod:`privopt.fastrng.counter_based`) and sc = sqrt((1 − T²)/‖g‖²).
    """
    t, st = draw_arm_t(st, d, is_opt, opt_mean, a, b, om)
    p0 = np.uint64(j * (d - 1))
    bad = fill_normals(ka, kb, p0, g, 1, d - 1)
    if bad:
        fix_normals(ka, kb, p0, g, 1, d - 1, bad)
    ss = 0.0
    for i in range(1, d):
        z = g[i]
        ss += z * z
    return t, math.sqrt((1.0 - t * t) / ss), st


@numba.njit(cache=True, inline="always")
def _embed(t, sc, g, hv, hc, hs, d, x):
    """x = Q x' with x' = (t, sc·g[1:]) and Q x' = hs·(x' − hc·⟨hv, x'⟩·hv) (Householder, Q e₁ = θ*)."""
    x[0] = t
    proj = hv[0] * t
    for i in range(1, d):
        x[i] = sc * g[i]
        proj += hv[i] * x[i]
    proj *= hc
    for i in range(d):
        x[i] = hs * (x[i] - proj * hv[i])


@numba.njit(cache=True, inline="always")
def _embed_prime(xp, hv, hc, hs, d, x):
    """x = Q x' for x' = ``xp`` (in the θ* = e₁ basis): the operations of :func:`_embed` once x'[1:] = sc·g[1:]."""
    t = xp[0]
    x[0] = t
    proj = hv[0] * t
    for i in range(1, d):
        x[i] = xp[i]
        proj += hv[i] * x[i]
    proj *= hc
    for i in range(d):
        x[i] = hs * (x[i] - proj * hv[i])


@numba.njit(cache=True)
def sample_decision_sets_nb(env, n_sets, K, opt_mean, a, b, om, hv, hc, hs, arms, means, j_opt):
    """``n_sets`` decision sets with the kernel's arm sampler (tests / Fig. 1); arrays preallocated.

    ``env`` is a FastGenerator state; arms are returned in the original basis.
    """
    d = hv.shape[0]
    g = np.zeros(d)
    st = rng_load(env)
    for r in range(n_sets):
        jo, ka, kb, st = decision_set_start(st, K)
        j_opt[r] = jo
        for j in range(K):
            t, sc, st = draw_arm_prime(st, d, j == jo, opt_mean, a, b, om, g, ka, kb, j)
            means[r, j] = t
            _embed(t, sc, g, hv, hc, hs, d, arms[r, j])
    rng_store(env, st)


@numba.njit(cache=True, inline="always")
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
def _cholesky_call(V, C, invd, d):
    return _cholesky(V, C, invd, d)


@numba.njit(cache=True)
def _jacobi_eigh(A, Q, w, d):
    """Cyclic Jacobi eigen-decomposition of the symmetric d×d matrix A (destroyed): A = Q diag(w) Qᵀ.

    Hand-written (no LAPACK) so that the kernel stays quick to compile; used only by the PD fallback.
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
    if not finite or not _cholesky_call(V, C, invd, d):  # non-finite input: fall back to the identity
        for i in range(d):
            for j in range(i):
                V[i, j] = 0.0
            V[i, i] = 1.0
        _cholesky_call(V, C, invd, d)


@numba.njit(cache=True)
def _audit_dump(row, t, d, mech, Nsum, shift, V, C, invd, yv, beta, logdet, out):
    """Store the released quantities of round t for the audit (evaluated in numpy afterwards).

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
            out[row, o + i * (i + 1) // 2 + j] = V[i, j]
    o += pd_
    # θ̃ = C⁻ᵀ y (back substitution)
    for i in range(d - 1, -1, -1):
        s = yv[i]
        for k in range(i + 1, d):
            s -= C[k, i] * out[row, o + k]
        out[row, o + i] = s * invd[i]


def audit_layout(d: int) -> dict[str, slice]:
    """Column slices of the raw audit rows written by the kernel."""
    pd_ = d * (d + 1) // 2
    return {"t": slice(0, 1), "beta": slice(1, 2), "logdet": slice(2, 3), "H": slice(3, 3 + pd_),
            "h": slice(3 + pd_, 3 + pd_ + d), "V": slice(3 + pd_ + d, 3 + 2 * pd_ + d),
            "theta_hat": slice(3 + 2 * pd_ + d, 3 + 2 * pd_ + 2 * d)}


def audit_width(d: int) -> int:
    return 3 + d * (d + 1) + 2 * d


@numba.njit(cache=True, inline="always")
def _tree_advance(noise, mech, t, m, dim_tag, df, node_scale, sigma_noise, abuf, nodebuf, eta, Nsum):
    """Move the path-tree noise to the release of round t (leaf s = t − 1); return the node draws.

    Round 1 draws levels 0..m−1; round t ≥ 2 redraws levels 0..min(tz(t−1), m−1) in increasing
    order.  ``Nsum`` (packed, corner dropped) is updated by Nsum += new − old, and recomputed
    exactly from the m stored noises on round 1 and whenever the refresh reaches
    :data:`privopt.mechanisms.tree.EXACT_REFRESH_LEVEL`.  One call per round
    (d = len(dim_tag) is a compile-time constant, so the node samplers' loops unroll).
    """
    d1 = len(dim_tag) + 1
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


@numba.njit(cache=True)
def _tree_step(noise, mech, t, m, dim_tag, df, node_scale, sigma_noise, abuf, nodebuf, eta, Nsum):
    """:func:`_tree_advance` as a plain call, for the lockstep kernel: typed and compiled once per d and shared by
    every lane count, instead of inlined into each (a cold d = 5, 9-lane compilation 42.3 → 33.9 CPU-s; Fig. 5's
    rounds at 1.013 and 1.002 of the inlined kernel's, within noise: docs/performance.md).  Once a round per
    noise group, its call costs nothing measurable beside the round."""
    return _tree_advance(noise, mech, t, m, dim_tag, df, node_scale, sigma_noise, abuf, nodebuf, eta, Nsum)


@numba.njit(cache=True, inline="always")
def _release_and_factor(G, u, Nsum, mech, shift, d, V, C, invd, ut, yv):
    """V_t = G + N[:d,:d] + shift·I, ũ_t = u + N[:d,d]; Cholesky V = C Cᵀ (PD fallback of shariff2018 reading R3);
    y = C⁻¹ũ.  Returns (log det V_t, 1 if the fallback was used else 0)."""
    pd_ = d * (d + 1) // 2
    for i in range(d):
        base = i * (i + 1) // 2
        if mech != 0:
            for j in range(i + 1):
                V[i, j] = G[i, j] + Nsum[base + j]
            ut[i] = u[i] + Nsum[pd_ + i]
        else:
            for j in range(i + 1):
                V[i, j] = G[i, j]
            ut[i] = u[i]
        V[i, i] += shift
    failed = 0
    if not _cholesky(V, C, invd, d):
        failed = 1
        _pd_fallback(V, C, invd, d)
    # log det V = 2 Σ log C_ii (products of ≤ 8 factors between logs)
    logdet = 0.0
    prod = 1.0
    for i in range(d):
        prod *= C[i, i]
        if (i & 7) == 7:
            logdet += math.log(prod)
            prod = 1.0
    logdet = 2.0 * (logdet + math.log(prod))
    for i in range(d):
        s = ut[i]
        for k in range(i):
            s -= C[i, k] * yv[k]
        yv[i] = s * invd[i]
    return logdet, failed


@numba.njit(cache=True, inline="always")
def _b_matrix(C, invd, hv, hc, hs, d, Ci, cv, B):
    """B = C⁻¹Q = hs·(C⁻¹ − hc·(C⁻¹hv) hvᵀ), so that C⁻¹x = B x' for x = Q x' (x' in the θ* = e₁ basis)."""
    for j in range(d):
        Ci[j, j] = invd[j]
        for i in range(j + 1, d):
            s = 0.0
            for k in range(j, i):
                s -= C[i, k] * Ci[k, j]
            Ci[i, j] = s * invd[i]
    for i in range(d):
        s = 0.0
        for k in range(i + 1):
            s += Ci[i, k] * hv[k]
        cv[i] = hc * s
    for i in range(d):
        for k in range(d):
            cik = Ci[i, k] if k <= i else 0.0
            B[i, k] = hs * (cik - cv[i] * hv[k])


@numba.njit(cache=True, inline="always")
def _observe(st, reward_gauss, mu, x, G, u, d):
    """Draw the reward of the chosen arm (mean μ) and update G += x xᵀ (lower), u += y x.

    Returns the new environment state tuple."""
    if reward_gauss:
        z, st = rng_normal_t(st)
        y = mu + z
    else:
        c, st = rng_uniform_t(st)
        y = 1.0 if c < 0.5 * (1.0 + mu) else -1.0
    for i in range(d):
        xi_ = x[i]
        for j in range(i + 1):
            G[i, j] += xi_ * x[j]
        u[i] += y * xi_
    return st


@numba.njit(cache=True, inline="always")
def _episode_buffers(d, m, mech):
    """Work arrays shared by both kernels, allocated once before the round loop.

    Returns (G, u, V, C, Ci, B, invd, ut, yv, cv, g, x, eta, Nsum, abuf, nodebuf): the statistics
    G = Σ x xᵀ (lower triangle) and u = Σ y x; V_t, its Cholesky factor C, C⁻¹ (lower, ``Ci``),
    B = C⁻¹Q, 1/C_ii (``invd``), ũ_t (``ut``), y = C⁻¹ũ_t (``yv``), ``cv`` = hc·C⁻¹hv; the arm
    scratch vectors g (Gaussian directions) and x (chosen arm); the path-tree level noises ``eta``
    (m × packed (d+1)×(d+1) triangle without the corner), their sum ``Nsum`` and the node samplers'
    buffers ``abuf``/``nodebuf``.
    """
    npk = (d + 1) * (d + 2) // 2 - 1
    G = np.zeros((d, d))
    u = np.zeros(d)
    V = np.zeros((d, d))
    C = np.zeros((d, d))
    Ci = np.zeros((d, d))
    B = np.zeros((d, d))
    invd = np.zeros(d)
    ut = np.zeros(d)
    yv = np.zeros(d)
    cv = np.zeros(d)
    g = np.zeros(d)
    x = np.zeros(d)
    eta = np.zeros((m if mech != 0 else 1, npk))
    Nsum = np.zeros(npk)
    abuf = np.zeros((d + 1, d + 1))
    nodebuf = np.zeros(npk)
    return G, u, V, C, Ci, B, invd, ut, yv, cv, g, x, eta, Nsum, abuf, nodebuf


@numba.njit(cache=True, inline="always")
def _record_start(rec_t, rec_out):
    """R̂ = 0 at the recording rounds ≤ 0; returns the index of the first recording round still due."""
    ri = 0
    while ri < rec_t.shape[0] and rec_t[ri] <= 0:
        rec_out[ri] = 0.0
        ri += 1
    return ri


@numba.njit(cache=True)
def _round_start(noise, mech, t, m, dim_tag, df, node_scale, sigma_noise, abuf, nodebuf, eta, Nsum, G, u, shift,
                 kappa, xi, sigma_r, hv, hc, hs, V, C, invd, ut, yv, Ci, cv, B):
    """The part of round t before the arms, shared by the single-variant kernels: the tree noise of round t (path
    construction, shariff2018 reading R5), the released V_t and ũ_t, the Cholesky V_t = C Cᵀ (PD fallback of
    shariff2018 reading R3), y = C⁻¹ũ_t, β_t = σ·sqrt(max(0, κ + log det V_t)) + ξ and B = C⁻¹Q.

    Returns (node draws, 1 if the PD fallback was used else 0, log det V_t, β_t).  A plain call (LLVM inlines it
    where it pays): one call a round costs nothing measurable beside the scores of the kernels that use it."""
    draws = 0
    if mech != 0:
        draws = _tree_advance(noise, mech, t, m, dim_tag, df, node_scale, sigma_noise, abuf, nodebuf, eta, Nsum)
    d = len(dim_tag)
    logdet, failed = _release_and_factor(G, u, Nsum, mech, shift, d, V, C, invd, ut, yv)
    arg = kappa + logdet
    beta = sigma_r * math.sqrt(arg if arg > 0.0 else 0.0) + xi
    _b_matrix(C, invd, hv, hc, hs, d, Ci, cv, B)
    return draws, failed, logdet, beta


@numba.njit(cache=True)
def _round_end(est, t, best, jo, xp, d, hv, hc, hs, x, reward_gauss, G, u, opt_mean, cum, mech, Nsum, shift, V, C,
               invd, yv, beta, logdet, audit_t, audit_out, ai, rec_t, rec_out, ri, trace):
    """The part of round t after the choice, shared by the single-variant kernels: the trace and the audit rows
    of round t, the chosen arm x' = ``xp`` = (T, sc·g) (θ* = e₁ basis) mapped to the original basis, its reward
    and the statistics update, the pseudo-regret and its records.

    Returns (environment state, cumulative regret, next audit row, next record, 1 if the arm is the optimal one)."""
    if trace.shape[0] > 0:
        trace[t - 1] = best
    while ai < audit_t.shape[0] and audit_t[ai] == t:
        _audit_dump(ai, t, d, mech, Nsum, shift, V, C, invd, yv, beta, logdet, audit_out)
        ai += 1
    mu = xp[0]
    _embed_prime(xp, hv, hc, hs, d, x)
    est = _observe(est, reward_gauss, mu, x, G, u, d)
    cum += opt_mean - mu
    while ri < rec_t.shape[0] and rec_t[ri] == t:
        rec_out[ri] = cum
        ri += 1
    return est, cum, ai, ri, 1 if best == jo else 0


@numba.njit(cache=True)
def episode_kernel(env, noise, dim_tag, K, opt_mean, low, high, om, hv, hc, hs, reward_gauss,
                   mech, m, df, node_scale, sigma_noise, shift, kappa, xi, sigma_r,
                   n_rounds, rec_t, rec_out, audit_t, audit_out, trace):
    """Run one episode of Algorithm 1, arms generated and scored on the fly (small d).

    Parameters
    ----------
    env, noise : uint64[4] FastGenerator states (advanced in place) — environment / tree noise.
    dim_tag : a tuple of d zeros (:func:`dim_tag`).  Its length is part of the numba type, so d is
        a compile-time constant and each d gets its own cached specialisation with fully unrolled
        d×d loops (≈2× faster at d = 5 than a run-time d).
    K, opt_mean, low, high : arms per round, optimal mean, sub-optimal zone [low, high].
    om, hv, hc, hs : 1 − t₀² of the zone sampler; Householder map Q x' = hs·(x' − hc⟨hv, x'⟩hv)
        with Q e₁ = θ* (:func:`privopt.bandits.instances.householder`).
    reward_gauss : False → ±1 rewards, True → μ + N(0, 1).
    mech : :data:`privopt.bandits.parameters.MECH_CODES` of the mechanism — 0 none (H = shift·I),
        1 symmetric Gaussian nodes (σ = ``sigma_noise``), 2 Wishart nodes W_{d+1}(node_scale·I, df).
    m : tree levels (node noises per release).
    shift, kappa, xi, sigma_r : V = G + N + shift·I; β = sigma_r·sqrt(max(0, kappa + log det V)) + xi.
    n_rounds : rounds to simulate (≤ 2^(m−1) for private variants).
    rec_t, rec_out : sorted rounds (0 allowed) at which the cumulative pseudo-regret is stored.
    audit_t, audit_out : sorted rounds to audit; (len, :func:`audit_width`) raw rows
        (:func:`audit_layout`), evaluated by :func:`privopt.bandits.episodes.evaluate_audit`.
    trace : int64 array of length n_rounds (chosen arm index per round) or length 0.

    Returns (pd_failures, n_optimal_choices, node_draws).
    """
    d = len(dim_tag)
    # ---- preallocation (nothing is allocated inside the round loop) ----
    G, u, V, C, Ci, B, invd, ut, yv, cv, g, x, eta, Nsum, abuf, nodebuf = _episode_buffers(d, m, mech)
    bg = np.zeros(d)  # g of the best arm so far
    ri = _record_start(rec_t, rec_out)
    ai = 0
    pd_fail = 0
    n_opt = 0
    draws = 0
    cum = 0.0
    est = rng_load(env)  # environment state kept in registers for the whole episode
    for t in range(1, n_rounds + 1):
        nd, failed, logdet, beta = _round_start(noise, mech, t, m, dim_tag, df, node_scale, sigma_noise, abuf,
                                                nodebuf, eta, Nsum, G, u, shift, kappa, xi, sigma_r, hv, hc, hs, V,
                                                C, invd, ut, yv, Ci, cv, B)
        draws += nd
        pd_fail += failed
        # ---- decision set, scored on the fly: w = B x' = T·B[:,0] + sc·B[:,1:]g ----
        jo, ka, kb, est = decision_set_start(est, K)
        best = -1
        best_ucb = -np.inf
        best_t = 0.0
        best_sc = 0.0
        for j in range(K):
            tj, sc, est = draw_arm_prime(est, d, j == jo, opt_mean, low, high, om, g, ka, kb, j)
            mean = 0.0
            nrm = 0.0
            for i in range(d):
                s = 0.0
                for k in range(1, d):
                    s += B[i, k] * g[k]
                wi = tj * B[i, 0] + sc * s
                mean += yv[i] * wi
                nrm += wi * wi
            ucb = mean + beta * math.sqrt(nrm)
            if best < 0 or ucb > best_ucb + TIE_RTOL * abs(best_ucb):
                best_ucb = ucb
                best = j
                best_t = tj
                best_sc = sc
                for i in range(1, d):
                    bg[i] = g[i]
        bg[0] = best_t  # x' of the chosen arm
        for i in range(1, d):
            bg[i] = best_sc * bg[i]
        est, cum, ai, ri, hit = _round_end(est, t, best, jo, bg, d, hv, hc, hs, x, reward_gauss, G, u, opt_mean, cum,
                                           mech, Nsum, shift, V, C, invd, yv, beta, logdet, audit_t, audit_out, ai,
                                           rec_t, rec_out, ri, trace)
        n_opt += hit
    rng_store(env, est)
    return pd_fail, n_opt, draws


@numba.njit(cache=True)
def episode_kernel_batched(env, noise, dim_tag, K, opt_mean, low, high, om, hv, hc, hs,
                           reward_gauss, mech, m, df, node_scale, sigma_noise, shift, kappa, xi, sigma_r,
                           n_rounds, rec_t, rec_out, audit_t, audit_out, trace):
    """Same algorithm, same random streams and decisions as :func:`episode_kernel`, for large K·d.

    The matrix form.  Each round the K arms are drawn (canonical order) into a K×d buffer X'
    in the θ* = e₁ basis (row j = (T_j, sc_j·g_j)); with B = C⁻¹Q one BLAS matrix product
    W = X' Bᵀ (``np.dot`` into a preallocated buffer) gives all w_j = C⁻¹x_j at once, then
    mean_j = ⟨Bᵀy, x'_j⟩ and ‖w_j‖².  Nothing is allocated inside the
    round loop.  ≈5× faster than :func:`episode_kernel` at d = 64 (K = 4096), slower for d ≲ 10.
    BLAS threads: set ``OPENBLAS_NUM_THREADS=1`` (or equivalent) when running one job per core.
    """
    d = len(dim_tag)
    G, u, V, C, Ci, B, invd, ut, yv, cv, g, x, eta, Nsum, abuf, nodebuf = _episode_buffers(d, m, mech)
    tp = np.zeros(d)   # θ' = Bᵀy (UCB mean coefficients in the e₁ basis)
    Xp = np.zeros((K, d))   # arms as rows (contiguous per arm)
    W = np.zeros((K, d))
    Bt = np.zeros((d, d))
    mean = np.zeros(K)
    nrm = np.zeros(K)
    ri = _record_start(rec_t, rec_out)
    ai = 0
    pd_fail = 0
    n_opt = 0
    draws = 0
    cum = 0.0
    est = rng_load(env)  # environment state kept in registers for the whole episode
    for t in range(1, n_rounds + 1):
        nd, failed, logdet, beta = _round_start(noise, mech, t, m, dim_tag, df, node_scale, sigma_noise, abuf,
                                                nodebuf, eta, Nsum, G, u, shift, kappa, xi, sigma_r, hv, hc, hs, V,
                                                C, invd, ut, yv, Ci, cv, B)
        draws += nd
        pd_fail += failed
        for k in range(d):
            s = 0.0
            for i in range(d):
                s += B[i, k] * yv[i]
            tp[k] = s
        # ---- decision set into X' (rows; θ* = e₁ basis) ----
        jo, ka, kb, est = decision_set_start(est, K)
        for j in range(K):
            tj, sc, est = draw_arm_prime(est, d, j == jo, opt_mean, low, high, om, g, ka, kb, j)
            Xp[j, 0] = tj
            for i in range(1, d):
                Xp[j, i] = sc * g[i]
        # ---- W = X' Bᵀ (BLAS), then means ⟨θ', x'_j⟩ and squared norms ‖w_j‖² ----
        for i in range(d):
            for k in range(d):
                Bt[k, i] = B[i, k]
        np.dot(Xp, Bt, W)
        for j in range(K):
            s = 0.0
            q = 0.0
            for i in range(d):
                s += tp[i] * Xp[j, i]
                q += W[j, i] * W[j, i]
            mean[j] = s
            nrm[j] = q
        best = 0
        best_ucb = mean[0] + beta * math.sqrt(nrm[0])
        for j in range(1, K):
            ucb = mean[j] + beta * math.sqrt(nrm[j])
            if ucb > best_ucb + TIE_RTOL * abs(best_ucb):
                best_ucb = ucb
                best = j
        est, cum, ai, ri, hit = _round_end(est, t, best, jo, Xp[best], d, hv, hc, hs, x, reward_gauss, G, u,
                                           opt_mean, cum, mech, Nsum, shift, V, C, invd, yv, beta, logdet, audit_t,
                                           audit_out, ai, rec_t, rec_out, ri, trace)
        n_opt += hit
    rng_store(env, est)
    return pd_fail, n_opt, draws
