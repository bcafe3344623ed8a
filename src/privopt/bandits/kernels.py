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

One round loop (:mod:`privopt.bandits.round`): the part of a round before the arms (tree noise, release,
Cholesky, β_t, B = C⁻¹Q, audit rows) is :func:`~privopt.bandits.round.round_start`, the part after the choice (trace,
the chosen arm's embedding, reward, statistics, regret and its records) is :func:`~privopt.bandits.round.round_end`;
all four kernels — :func:`episode_kernel`, :func:`episode_kernel_batched`,
:func:`privopt.bandits.prefilter.episode_kernel_prefilter` and :func:`privopt.bandits.lockstep.lockstep_kernel` —
run them (the single-variant ones as one lane, through ``round_start_one``/``round_end_one``) and differ only in
how they draw and score the decision set.

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
is incremented (:mod:`privopt.bandits.round`).  The kernels call no LAPACK routine at all (which keeps a fresh
compilation of one d-specialisation at a few seconds); audits store raw released quantities that are evaluated in
numpy.

Compile cost (issue 40): numba's own inlining (``inline="always"``) re-types a helper's body at every call site of
every kernel specialisation.  The helpers called once per *arm* (:func:`draw_arm_t`, :func:`draw_arm_prime`,
:func:`zone_accept`) stay inlined into the kernels: as plain calls they cost 8 % of a batched round at d = 16 and 4 %
of a prefilter round at d = 23; the round's two steps are plain calls for the single-variant kernels (compiled
once per d, shared) and inlined into the lockstep kernel (:mod:`privopt.bandits.round`).
``benchmarks/bench_kernel_compile.py`` measures the compile CPU of each kernel specialisation.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.bandits.instances import _zone_accept_prob_nb, _zone_envelope_accept_nb, _zone_envelope_k_nb
from privopt.fastrng.counter_based import fill_normals, fix_normals
from privopt.fastrng import rng_load, rng_next_t, rng_normal_t, rng_store, rng_uniform_t
from privopt.bandits.round import audit_layout, audit_width, one_variant, record_start, round_end_one, round_start_one

__all__ = ["TIE_RTOL", "audit_layout", "audit_width", "decision_set_start", "dim_tag", "draw_arm_prime",
           "draw_arm_t", "episode_kernel", "episode_kernel_batched", "sample_decision_sets_nb", "zone_accept"]

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
    groups, lanes, tree, state, work, B, yv, beta_v, noise1, rec1, aud1, tr1 = one_variant(
        dim_tag, noise, mech, m, df, node_scale, sigma_noise, shift, kappa, xi, sigma_r, rec_out, audit_out, trace)
    x, best_v, mu_v = state[2], state[3], state[4]
    g = np.zeros(d)
    bg = np.zeros(d)  # g of the best arm so far
    ri = record_start(rec_t, rec1)
    ai = np.int64(0)  # not the literal 0: a plain call typed with Literal[int](0) would compile twice
    est = rng_load(env)  # environment state kept in registers for the whole episode
    for t in range(1, n_rounds + 1):
        ai = round_start_one(t, dim_tag, noise1, groups, tree, lanes, state, work, hv, hc, hs, audit_t, aud1, ai)
        beta = beta_v[0]
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
        best_v[0] = best  # the chosen arm: its T and x' = (T, sc·g)
        mu_v[0] = best_t
        for i in range(1, d):
            x[i, 0] = best_sc * bg[i]
        est, ri = round_end_one(est, t, dim_tag, reward_gauss, jo, opt_mean, hv, hc, hs, state, tr1, rec_t, rec1, ri)
    rng_store(env, est)
    return state[8][0], state[7][0], tree[4][0]


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
    groups, lanes, tree, state, work, B, yv, beta_v, noise1, rec1, aud1, tr1 = one_variant(
        dim_tag, noise, mech, m, df, node_scale, sigma_noise, shift, kappa, xi, sigma_r, rec_out, audit_out, trace)
    x, best_v, mu_v = state[2], state[3], state[4]
    g = np.zeros(d)
    tp = np.zeros(d)   # θ' = Bᵀy (UCB mean coefficients in the e₁ basis)
    Xp = np.zeros((K, d))   # arms as rows (contiguous per arm)
    W = np.zeros((K, d))
    Bt = np.zeros((d, d))
    mean = np.zeros(K)
    nrm = np.zeros(K)
    ri = record_start(rec_t, rec1)
    ai = np.int64(0)  # not the literal 0: a plain call typed with Literal[int](0) would compile twice
    est = rng_load(env)  # environment state kept in registers for the whole episode
    for t in range(1, n_rounds + 1):
        ai = round_start_one(t, dim_tag, noise1, groups, tree, lanes, state, work, hv, hc, hs, audit_t, aud1, ai)
        beta = beta_v[0]
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
        best_v[0] = best  # the chosen arm: its T and x' (row best of X')
        mu_v[0] = Xp[best, 0]
        for i in range(1, d):
            x[i, 0] = Xp[best, i]
        est, ri = round_end_one(est, t, dim_tag, reward_gauss, jo, opt_mean, hv, hc, hs, state, tr1, rec_t, rec1, ri)
    rng_store(env, est)
    return state[8][0], state[7][0], tree[4][0]
