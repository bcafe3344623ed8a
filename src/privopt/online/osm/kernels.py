"""Numba kernels of online submodular maximisation on coverage streams (Perez-Salazar & Cummings):
the experts of FI-DP and BanditDP (:func:`fi_kernel`, :func:`bandit_kernel`), Algorithm 4 on the multilinear
extension (:func:`alg4_kernel`) and the offline benchmarks (:func:`best_subsets_kernel`,
:func:`mean_over_tuples_kernel`).  Their plain twins: :mod:`privopt.online.osm.reference` (FI-DP, BanditDP)
and the tests (Algorithm 4, the offline enumerations).

## FI-DP and BanditDP

docs/papers/perezsalazar2021.md, readings R4 and R19.  One call runs every replica of one configuration (every
ε × seed of an (instance, algorithm, k, T)): replica r has its own learning rate ``eta[r]``, its own
xoshiro256++ stream(s) (``privopt.fastrng``, seeded by the caller from ``privopt.seeding``) and reads
data stream ``stream_of[r]`` of :class:`privopt.online.osm.coverage.Stream`.  Replicas are independent,
so a result never depends on which other replicas share the call.

**Expert state.**  Expert i of a replica keeps its cumulative gains ``G[i]`` and weights
``w[i] = exp(η(G[i] − ref))``, updated multiplicatively (``w ← w·exp(η g)``) and recomputed exactly
from G every ``refresh`` rounds (≤ 1024, and ≤ 50/η so weights stay below e^50 between refreshes).
``exp(ηg)`` with ηg ≤ 1/4 is the degree-12 Taylor polynomial (relative error < 3·10⁻¹⁸, below
float64 rounding; ``math.exp`` otherwise): it vectorises, where a libm call per coordinate would cost
most of the round.  A draw scans the cumulative weights against ``u·Σw`` (one uniform per draw),
i.e. samples exactly ``softmax(η G)`` — the exponential mechanism of Hedge (Alg. 1).

**Canonical random-number use** (the plain reference :mod:`privopt.online.osm.reference` consumes
the same numbers in the same order):

* full information: per round, one uniform per expert i = 1..k, in order;
* bandit: the *coin* stream gives per round one uniform b (explore iff b < γ) and, when exploring,
  one uniform for the expert i = ⌊u·k⌋ and one for the item a = ⌊u·n⌋; the *learner* stream gives the
  k draws of the initial set and of every redraw.  Algorithm 3 and B2-PRESAMPLE given the same coin
  stream explore at the same rounds.

**Recorded per replica** (full information): total reward ALG; per expert the final G, the realised
gains Σ_t g_t^i(a_t^i), Σ_t x_tᵀg_t and Σ_t x_tᵀ(g_t²) (x_t = w/Σw before the update: Hedge's played
distribution, for the pseudo-regret and Thm 3's right-hand side); ALG at checkpoint rounds; the
played set as a bit mask after round ``tail_from`` (replicas with ``code_row ≥ 0``); optionally every
draw (tests).  Bandit: ALG, the number of explore rounds M, and the simulator-side true marginal gains
of the frozen set S'_t in force at each round (for Lemma 2's Σ_i r_i; the learner never sees them).

## Algorithm 4

The kernel of Algorithm 4 (Perez-Salazar & Cummings, Sec. 5 / App. C) on the multilinear extension of a
coverage stream; every replica in one call (see :mod:`privopt.online.osm.dr_submodular`).

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

## Offline benchmarks

The kernels of the offline benchmarks (:mod:`privopt.online.osm.offline`): enumeration of every
k-subset (exact optimum) and of every pick tuple (UNIF's expected value) of a coverage instance.

Both walk the subsets/tuples depth-first, keeping per type the running product Π(1 − P[m, a]) of the
items chosen so far, so a leaf costs one pass over the types and the count columns (no exp, no log).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.fastrng import rng_gamma_t, rng_load, rng_normal_t, rng_store, rng_uniform_t

__all__ = ["exp_small", "exp_small8", "exp_small4", "exp_tier", "POLY_MAX", "refresh_period", "fi_kernel", "bandit_kernel",
           "count_explores", "project_capped_simplex", "l2_laplace_draw", "l2_laplace_block", "alg4_kernel",
           "best_subsets_kernel", "mean_over_tuples_kernel"]

#: largest η·g evaluated by the polynomial (degree 12: remainder x^13/13!·e^x < 3e-18 at x = 1/4)
POLY_MAX = 0.25
_MAX_REFRESH = 1024
#: item loops of the full-information kernel run over a multiple of this many items
_PAD = 16


@numba.njit(cache=True, inline="always")
def exp_small(x):
    """exp(x) for 0 ≤ x ≤ 1/4 by its degree-12 Taylor polynomial (Horner; remainder < 3e-18)."""
    return 1.0 + x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0 + x * (
        1.0 / 720.0 + x * (1.0 / 5040.0 + x * (1.0 / 40320.0 + x * (1.0 / 362880.0 + x * (
            1.0 / 3628800.0 + x * (1.0 / 39916800.0 + x * (1.0 / 479001600.0))))))))))))


@numba.njit(cache=True, inline="always")
def exp_small8(x):
    """exp(x) for 0 ≤ x ≤ 0.05 by its degree-8 Taylor polynomial (remainder < 6e-18)."""
    return 1.0 + x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0 + x * (
        1.0 / 720.0 + x * (1.0 / 5040.0 + x * (1.0 / 40320.0))))))))


@numba.njit(cache=True, inline="always")
def exp_small4(x):
    """exp(x) for 0 ≤ x ≤ 0.001 by its degree-4 Taylor polynomial (remainder < 9e-18)."""
    return 1.0 + x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0))))


@numba.njit(cache=True)
def exp_tier(eta):
    """Which evaluation of exp(η g), g ∈ [0, 1], is exact to float64 rounding: 4, 8 or 12 (Taylor
    degree) or 0 (``math.exp``)."""
    if eta <= 1e-3:
        return 4
    if eta <= 0.05:
        return 8
    if eta <= POLY_MAX:
        return 12
    return 0


@numba.njit(cache=True)
def refresh_period(eta):
    """Rounds between exact recomputations of the weights from G (module docstring)."""
    if eta <= 0.0:
        return _MAX_REFRESH
    p = int(50.0 / eta)
    if p < 1:
        return 1
    return min(p, _MAX_REFRESH)


@numba.njit(cache=True, inline="always")
def _refresh(G, w, W, i, n, eta):
    top = G[i, 0]
    for a in range(1, n):
        if G[i, a] > top:
            top = G[i, a]
    for a in range(n):
        w[i, a] = math.exp(eta * (G[i, a] - top))
    W[i] = _weight_sum(w[i], n)


@numba.njit(cache=True, inline="always")
def _draw(w, W, i, n, u):
    """Index of the first item whose cumulative weight exceeds u·W[i] (W[i] is summed in another order,
    so when rounding leaves u·W[i] beyond the scan's total, the last positive item: a shift of the
    probabilities below 1e-15)."""
    target = u * W[i]
    acc = 0.0
    for a in range(n):
        acc += w[i, a]
        if target < acc:
            return a
    for a in range(n - 1, -1, -1):
        if w[i, a] > 0.0:
            return a
    return n - 1


@numba.njit(cache=True, inline="always")
def _weight_sum(wi, n):
    """Σ w_i in the order of :func:`_expert_step`."""
    v0 = v1 = v2 = v3 = 0.0
    a = 0
    while a + 4 <= n:
        v0 += wi[a]
        v1 += wi[a + 1]
        v2 += wi[a + 2]
        v3 += wi[a + 3]
        a += 4
    while a < n:
        v0 += wi[a]
        a += 1
    return (v0 + v1) + (v2 + v3)


@numba.njit(cache=True, inline="always")
def _expert_step(Gi, wi, g, n, eta, poly):
    """One expert's round on gains ``g`` (already added to G_i by the caller): returns (Σ w·g, Σ w·g²,
    Σ w_new) with the weights *before* the update in the first two, and sets w_i *= exp(η g).  Four interleaved accumulators
    (a fixed summation order, so the same on every machine) keep the sums off the add latency; the
    weight update is a loop of its own, which the compiler vectorises."""
    sx = 0.0
    sq = 0.0
    for a in range(n):
        x = wi[a] * g[a]
        sx += x
        sq += x * g[a]
    if eta == 0.0:
        return sx, sq, _weight_sum(wi, n)
    if poly == 4:
        for a in range(n):
            wi[a] *= exp_small4(eta * g[a])
    elif poly == 8:
        for a in range(n):
            wi[a] *= exp_small8(eta * g[a])
    elif poly == 12:
        for a in range(n):
            wi[a] *= exp_small(eta * g[a])
    else:
        for a in range(n):
            wi[a] *= math.exp(eta * g[a])
    return sx, sq, _weight_sum(wi, n)


@numba.njit(cache=True)
def fi_kernel(P, types, stream_of, ptr, mix_ids, mix_w, k, T, eta, states, ckpt, tail_from, code_row,
              alg, G_out, real, xg, xg2, ckpt_out, codes, plays):
    """Full-information runs (FI-DP, SG-NP, UNIF: Hedge experts fed marginal gains, Alg. 2) of every
    replica; see the module docstring.  ``types`` is (S, T') for single-type streams, (0, 0) for the
    mixture stream (``ptr``, ``mix_ids``, ``mix_w``).  ``plays`` is (R, T, k) to record every draw, or
    (0, 0, 0)."""
    R = eta.shape[0]
    n = P.shape[1]
    mixture = ptr.shape[0] > 0
    n_ck = ckpt.shape[0]
    record_plays = plays.shape[0] > 0
    # the per-item loops run over npad = n rounded up to 16 items (zero gains and zero weights beyond n),
    # so the vectorised loops have no scalar remainder
    npad = ((n + _PAD - 1) // _PAD) * _PAD
    G = np.zeros((k, npad))
    w = np.zeros((k, npad))
    W = np.zeros(k)
    g = np.zeros(npad)
    mask = np.ones(n)
    prefix = np.zeros(k, dtype=np.int64)
    max_pairs = 1
    if mixture:
        for t in range(ptr.shape[0] - 1):
            if ptr[t + 1] - ptr[t] > max_pairs:
                max_pairs = ptr[t + 1] - ptr[t]
    Uloc = np.ones(max_pairs)
    for r in range(R):
        e = eta[r]
        poly = exp_tier(e)
        period = refresh_period(e)
        s = stream_of[r]
        st = rng_load(states[r])
        for i in range(k):
            for a in range(npad):
                G[i, a] = 0.0
                w[i, a] = 1.0 if a < n else 0.0
            W[i] = float(n)
        since = 0
        total = 0.0
        c_idx = 0
        row = code_row[r]
        for i in range(k):
            real[r, i] = 0.0
            xg[r, i] = 0.0
            xg2[r, i] = 0.0
        for t in range(T):
            if mixture:
                p0 = ptr[t]
                npair = ptr[t + 1] - p0
            else:
                p0 = 0
                npair = 1
            for j in range(npair):
                Uloc[j] = 1.0
            n_pre = 0
            for i in range(k):
                u, st = rng_uniform_t(st)
                a_i = _draw(w, W, i, n, u)
                # marginal gains on the prefix of experts 1..i-1 (feed-forward)
                if mixture:
                    for a in range(n):
                        g[a] = 0.0
                    for j in range(npair):
                        c = mix_w[p0 + j] * Uloc[j]
                        m = mix_ids[p0 + j]
                        for a in range(n):
                            g[a] += c * P[m, a]
                    for a in range(n):
                        g[a] *= mask[a]
                        G[i, a] += g[a]
                else:
                    m = types[s, t]
                    c = Uloc[0]
                    for a in range(n):
                        ga = c * P[m, a] * mask[a]
                        g[a] = ga
                        G[i, a] += ga
                sx, sx2, Wn = _expert_step(G[i], w[i], g, npad, e, poly)
                xg[r, i] += sx / W[i]
                xg2[r, i] += sx2 / W[i]
                W[i] = Wn
                real[r, i] += g[a_i]
                if record_plays:
                    plays[r, t, i] = a_i
                if mask[a_i] != 0.0:
                    mask[a_i] = 0.0
                    prefix[n_pre] = a_i
                    n_pre += 1
                    if mixture:
                        for j in range(npair):
                            Uloc[j] *= 1.0 - P[mix_ids[p0 + j], a_i]
                    else:
                        Uloc[0] *= 1.0 - P[types[s, t], a_i]
            if mixture:
                reward = 0.0
                for j in range(npair):
                    reward += mix_w[p0 + j] * (1.0 - Uloc[j])
            else:
                reward = 1.0 - Uloc[0]
            total += reward
            if row >= 0 and t >= tail_from:
                code = 0
                for q in range(n_pre):
                    code |= 1 << prefix[q]
                codes[row, t - tail_from] = code
            for q in range(n_pre):
                mask[prefix[q]] = 1.0
            while c_idx < n_ck and ckpt[c_idx] == t + 1:
                ckpt_out[r, c_idx] = total
                c_idx += 1
            since += 1
            if since >= period and e > 0.0:
                for i in range(k):
                    _refresh(G, w, W, i, n, e)
                since = 0
        alg[r] = total
        for i in range(k):
            for a in range(n):
                G_out[r, i, a] = G[i, a]
        rng_store(states[r], st)


@numba.njit(cache=True)
def count_explores(coin_states, gamma, k, n, T):
    """Explore rounds M of each replica's coin stream (advances copies the caller passes): the same
    coin use as :func:`bandit_kernel`, so B2-PRESAMPLE knows M before round 1."""
    R = gamma.shape[0]
    M = np.zeros(R, dtype=np.int64)
    for r in range(R):
        cst = rng_load(coin_states[r])
        for t in range(T):
            b, cst = rng_uniform_t(cst)
            if b < gamma[r]:
                M[r] += 1
                _, cst = rng_uniform_t(cst)
                _, cst = rng_uniform_t(cst)
        rng_store(coin_states[r], cst)
    return M


@numba.njit(cache=True)
def bandit_kernel(P, types, stream_of, k, T, eta, gamma, redraw_always, coin_states, states, ckpt,
                  alg, M_out, G_true, real_true, G_out, draws_out, explore_rounds, ckpt_out):
    """Bandit runs (Alg. 3 BanditDP / SG-BANDIT-NP, and B1-NAIVE with ``redraw_always``) of every
    replica on single-type streams; see the module docstring.

    Explore round: expert i and item a uniform, play the prefix {a^1..a^{i−1}} of the current set plus
    a, feed expert i the observed value at coordinate a (no importance weighting), then redraw every
    expert.  Exploit round: play the current set; no update (B1-NAIVE redraws every round anyway).
    ``explore_rounds`` (R, ≥ M) records the explore rounds when it has columns (tests); ALG after each
    checkpoint round goes to ``ckpt_out``."""
    R = eta.shape[0]
    n = P.shape[1]
    G = np.zeros((k, n))
    w = np.ones((k, n))
    W = np.zeros(k)
    cur = np.zeros(k, dtype=np.int64)
    g = np.zeros(n)
    in_prefix = np.zeros(n, dtype=np.bool_)
    prefix = np.zeros(k, dtype=np.int64)
    rec = explore_rounds.shape[1] > 0
    n_ck = ckpt.shape[0]
    for r in range(R):
        e = eta[r]
        poly = exp_tier(e)
        period = refresh_period(e)
        s = stream_of[r]
        st = rng_load(states[r])
        cst = rng_load(coin_states[r])
        for i in range(k):
            for a in range(n):
                G[i, a] = 0.0
                w[i, a] = 1.0
                G_true[r, i, a] = 0.0
            W[i] = float(n)
            real_true[r, i] = 0.0
        for i in range(k):
            u, st = rng_uniform_t(st)
            cur[i] = _draw(w, W, i, n, u)
        n_draws = 1
        since = 0
        total = 0.0
        M = 0
        c_idx = 0
        for t in range(T):
            m = types[s, t]
            b, cst = rng_uniform_t(cst)
            explore = b < gamma[r]
            # simulator side: true marginals on the prefixes of the frozen set S'_t (Lemma 2)
            Uq = 1.0
            n_pre = 0
            for i in range(k):
                for a in range(n):
                    g[a] = Uq * P[m, a]
                for q in range(n_pre):
                    g[prefix[q]] = 0.0
                for a in range(n):
                    G_true[r, i, a] += g[a]
                a_i = cur[i]
                if not in_prefix[a_i]:
                    real_true[r, i] += Uq * P[m, a_i]
                    in_prefix[a_i] = True
                    prefix[n_pre] = a_i
                    n_pre += 1
                    Uq *= 1.0 - P[m, a_i]
            for q in range(n_pre):
                in_prefix[prefix[q]] = False
            if explore:
                ui, cst = rng_uniform_t(cst)
                ua, cst = rng_uniform_t(cst)
                ie = int(ui * k)
                ae = int(ua * n)
                # played set: the prefix {a^1..a^{ie}} of the current set, plus ae
                Up = 1.0
                n_pre = 0
                for i in range(ie):
                    a_i = cur[i]
                    if not in_prefix[a_i]:
                        in_prefix[a_i] = True
                        prefix[n_pre] = a_i
                        n_pre += 1
                        Up *= 1.0 - P[m, a_i]
                if not in_prefix[ae]:
                    Up *= 1.0 - P[m, ae]
                for q in range(n_pre):
                    in_prefix[prefix[q]] = False
                y = 1.0 - Up
                total += y
                if rec:
                    explore_rounds[r, M] = t
                M += 1
                G[ie, ae] += y
                if e > 0.0:
                    if poly != 0:
                        w[ie, ae] *= exp_small(e * y)
                    else:
                        w[ie, ae] *= math.exp(e * y)
                    W[ie] = _weight_sum(w[ie], n)
                    since += 1
                    if since >= period:
                        for i in range(k):
                            _refresh(G, w, W, i, n, e)
                        since = 0
            else:
                total += 1.0 - Uq
            if explore or redraw_always:
                for i in range(k):
                    u, st = rng_uniform_t(st)
                    cur[i] = _draw(w, W, i, n, u)
                n_draws += 1
            while c_idx < n_ck and ckpt[c_idx] == t + 1:
                ckpt_out[r, c_idx] = total
                c_idx += 1
        alg[r] = total
        M_out[r] = M
        draws_out[r] = n_draws
        for i in range(k):
            for a in range(n):
                G_out[r, i, a] = G[i, a]
        rng_store(states[r], st)
        rng_store(coin_states[r], cst)


# Algorithm 4 (the module docstring's second part)


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
def alg4_kernel(P, types, stream_of, k, K_of, T, H, lam, states, alg, C_out, lin_out):
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


# The offline benchmarks (its third part)


@numba.njit(cache=True)
def best_subsets_kernel(P, kept, k, counts, best, arg):
    """For each column j of ``counts`` (M × J): the largest Σ_m counts[m, j]·(1 − Π_{a∈S}(1 − P[m, a])) over
    k-subsets S of ``kept`` (lexicographic order, the first maximiser kept) into ``best[j]``, ``arg[j]``."""
    M = P.shape[0]
    J = counts.shape[1]
    nk = kept.shape[0]
    U = np.ones((k + 1, M))
    idx = np.zeros(k, dtype=np.int64)
    for j in range(J):
        best[j] = -np.inf
    vals = np.zeros(J)
    # iterative lexicographic walk over combinations of positions 0..nk-1
    d = 0
    idx[0] = 0
    while d >= 0:
        if idx[d] > nk - (k - d):
            d -= 1
            if d >= 0:
                idx[d] += 1
            continue
        a = kept[idx[d]]
        for m in range(M):
            U[d + 1, m] = U[d, m] * (1.0 - P[m, a])
        if d == k - 1:
            for j in range(J):
                vals[j] = 0.0
            for m in range(M):
                cov = 1.0 - U[k, m]
                for j in range(J):
                    vals[j] += counts[m, j] * cov
            for j in range(J):
                if vals[j] > best[j]:
                    best[j] = vals[j]
                    for q in range(k):
                        arg[j, q] = kept[idx[q]]
            idx[d] += 1
        else:
            idx[d + 1] = idx[d] + 1
            d += 1


@numba.njit(cache=True)
def mean_over_tuples_kernel(P, k, counts, out):
    """Mean over the n^k pick tuples (duplicates merged into a set) of Σ_m counts[m, j]·(1 − Π(1 − P[m, a]))."""
    M, n = P.shape
    J = counts.shape[1]
    U = np.ones((k + 1, M))
    idx = np.zeros(k, dtype=np.int64)
    for j in range(J):
        out[j] = 0.0
    total = 0
    d = 0
    idx[0] = 0
    while d >= 0:
        if idx[d] >= n:
            d -= 1
            if d >= 0:
                idx[d] += 1
            continue
        a = idx[d]
        dup = False
        for q in range(d):
            if idx[q] == a:
                dup = True
        for m in range(M):
            U[d + 1, m] = U[d, m] if dup else U[d, m] * (1.0 - P[m, a])
        if d == k - 1:
            for m in range(M):
                cov = 1.0 - U[k, m]
                for j in range(J):
                    out[j] += counts[m, j] * cov
            total += 1
            idx[d] += 1
        else:
            idx[d + 1] = 0
            d += 1
    for j in range(J):
        out[j] /= total
