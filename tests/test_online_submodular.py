"""Online submodular maximisation (privopt.online): Hedge, the full-information and bandit kernels against the
plain reference (kernel/twin contracts, tests/kernel_contract.py) and brute force, their pathwise invariants, the
exploration counts' law, and Algorithm 4's kernel (continuous DR-submodular) against a plain numpy twin."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

from kernel_contract import KernelTwinContract
from privopt.fastrng import FastGenerator
from privopt.online.osm import kernels as K
from privopt.online.osm.kernels import alg4_kernel
from privopt.online.osm.coverage import Stream, marginal_gains, set_value
from privopt.online.osm.dr_submodular import alg4_params, run_alg4
from privopt.online.osm.hedge import hedge_bound, hedge_distribution, hedge_play_distributions, hedge_pseudo_regret
from privopt.online.osm.reference import bandit_reference, fi_reference
from privopt.online.osm.submodular_max import explore_counts, run_bandit, run_full_information, states_from


def _instance(n=6, M=4, seed=0):
    rng = np.random.default_rng(seed)
    P = rng.uniform(0.0, 0.9, (M, n))
    P[rng.random((M, n)) < 0.3] = 0.0
    return P, rng.dirichlet(np.ones(M))


def _types(pi, T, S=1, seed=1):
    rng = np.random.default_rng(seed)
    return Stream.single(np.stack([rng.choice(pi.size, size=T, p=pi) for _ in range(S)]).astype(np.int32))


def _seqs(R, *key):
    """One SeedSequence per replica: ``[*key, r]``."""
    return [np.random.SeedSequence([*key, r]) for r in range(R)]


def _states(R, base):
    return states_from(_seqs(R, base))


# ----------------------------------------------------------------------------- Hedge


def test_hedge_closed_form_matches_the_weight_recursion_on_a_tiny_stream():
    gains = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.25], [0.5, 0.5, 1.0], [1.0, 1.0, 0.0]])
    eta = 0.7
    w = np.ones(3)
    for t in range(gains.shape[0]):
        np.testing.assert_allclose(hedge_play_distributions(eta, gains)[t], w / w.sum(), rtol=1e-14)
        w = w * np.exp(eta * gains[t])
    np.testing.assert_allclose(hedge_play_distributions(eta, gains)[0], np.full(3, 1 / 3))
    np.testing.assert_allclose(hedge_distribution(eta, gains.sum(0)), w / w.sum(), rtol=1e-14)


@pytest.mark.parametrize("eta", [0.01, 0.3, 1.0])
def test_hedge_inequality_holds_pathwise_on_random_gains(eta):
    rng = np.random.default_rng(3)
    gains = rng.random((200, 7))
    x = hedge_play_distributions(eta, gains)
    assert hedge_pseudo_regret(gains, x) <= hedge_bound(eta, gains, x) + 1e-12


def test_exp_polynomials_are_exact_to_float64_rounding_on_their_ranges():
    for fn, top in ((K.exp_small4, 1e-3), (K.exp_small8, 0.05), (K.exp_small, K.POLY_MAX)):
        xs = np.linspace(0.0, top, 2001)
        got = np.array([fn(x) for x in xs])
        np.testing.assert_allclose(got, np.exp(xs), rtol=4e-16, atol=0)
    assert [K.exp_tier(e) for e in (0.0, 1e-3, 0.04, 0.2, 0.3)] == [4, 4, 8, 12, 0]


def test_one_expert_kernel_accumulates_hedge_closed_form():
    """k = 1: the gains do not depend on the plays, so Σ_t x_tᵀg_t and Σ x_tᵀg_t² are the closed form's."""
    P, pi = _instance()
    stream = _types(pi, 300)
    gains = np.stack([P[m] for m in stream.types[0]])
    for eta in (0.0, 0.004, 0.08, 0.4):  # every exp tier, and UNIF
        runs = run_full_information(P, stream, 1, 300, [eta], _states(1, 7))
        x = hedge_play_distributions(eta, gains)
        np.testing.assert_allclose(runs.expected[0, 0], np.einsum("tn,tn->", x, gains), rtol=1e-12)
        np.testing.assert_allclose(runs.expected_sq[0, 0], np.einsum("tn,tn->", x, gains**2), rtol=1e-12)
        np.testing.assert_allclose(runs.G[0, 0], gains.sum(0), rtol=1e-12)


# ----------------------------------------------------------------------------- full information


def test_feed_forward_equals_brute_force_recomputation_from_the_plays():
    P, pi = _instance(n=7, M=5)
    T, k = 250, 3
    stream = _types(pi, T, S=2)
    runs = run_full_information(P, stream, k, T, [0.05, 0.3], _states(2, 11), stream_of=[0, 1], record_plays=True)
    for r in range(2):
        G = np.zeros((k, P.shape[1]))
        real = np.zeros(k)
        alg = 0.0
        for t in range(T):
            m = stream.types[r, t]
            picks = runs.plays[r, t].tolist()
            for i in range(k):
                g = marginal_gains(P, [m], [1.0], picks[:i])
                G[i] += g
                real[i] += g[picks[i]]
            alg += set_value(P, [m], [1.0], picks)
        np.testing.assert_allclose(runs.G[r], G, rtol=1e-11, atol=1e-11)
        np.testing.assert_allclose(runs.realised[r], real, rtol=1e-11)
        np.testing.assert_allclose(runs.alg[r], alg, rtol=1e-11)


def _mixture(T, M, seed):
    """A mixture stream of T rounds, each of 1 to 3 distinct types of M with Dirichlet weights."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 4, size=T)
    ids = np.concatenate([rng.choice(M, size=m, replace=False) for m in sizes])
    w = np.concatenate([rng.dirichlet(np.ones(m)) for m in sizes])
    return Stream.mixture(np.concatenate(([0], np.cumsum(sizes))), ids, w)


def _fi_case(n, M, inst, T, k, etas, S=1, mixture=False):
    P, pi = _instance(n=n, M=M, seed=inst)
    stream = _mixture(T, M, inst) if mixture else _types(pi, T, S=S)
    return {"P": P, "stream": stream, "k": k, "T": T, "etas": etas, "stream_of": [r % S for r in range(len(etas))],
            "checkpoints": (1, T // 2, T), "tail_from": T // 2}


class TestFullInformationTwin(KernelTwinContract):
    """FI-DP / SG-NP / UNIF's kernel (every replica of one call) against the plain reference
    :func:`privopt.online.osm.reference.fi_reference`, one replica at a time on the same uniforms, Hedge's
    distribution recomputed from G every round: the same plays, gains and rewards and the states left behind; ALG at
    the checkpoints and the played sets after ``tail_from`` (bit masks) follow from the reference's plays."""

    kernels = (K.fi_kernel,)
    CASES = {
        # UNIF and every evaluation of exp(ηg) (exp_tier 4, 8, 8, 12, 0), two data streams
        "every-exp-tier": _fi_case(6, 4, 5, 120, 2, (0.0, 0.0005, 0.002, 0.05, 0.2, 0.5), S=2),
        # η so large that the weights are recomputed from G every round
        "eta=3-refresh-every-round": _fi_case(4, 3, 8, 60, 2, (3.0,)),
        "mixture-stream": _fi_case(5, 3, 2, 30, 2, (0.3, 1.0), mixture=True),
    }
    #: Hedge's expected gains Σ x_tᵀg_t and Σ x_tᵀg_t²: the kernel divides by a weight sum it keeps by multiplicative
    #: updates (Taylor polynomials for exp, four-lane sums, recomputed from G every ``refresh_period`` rounds), the
    #: reference by softmax(ηG) recomputed each round: the same values to a few ulps (≤ 2e-15 relative measured).
    #: Everything else (plays, G, rewards: k = 2, so a product over the set has the same bits in pick and item order)
    #: bit for bit.
    CLOSE = ("expected", "expected_sq")

    def run_kernel(self, variant, case, seed):
        R, T = len(case["etas"]), case["T"]
        states = states_from(_seqs(R, seed))
        runs = run_full_information(case["P"], case["stream"], case["k"], T, case["etas"], states,
                                    stream_of=case["stream_of"], checkpoints=case["checkpoints"],
                                    tail_from=case["tail_from"], record_codes=[True] * R, record_plays=True)
        return {"plays": runs.plays, "alg": runs.alg, "G": runs.G, "realised": runs.realised,
                "expected": runs.expected, "expected_sq": runs.expected_sq, "checkpoints": runs.checkpoints,
                "codes": runs.codes, "states": states}

    def run_twin(self, case, seed):
        P, stream, k, T = case["P"], case["stream"], case["k"], case["T"]
        gens = [FastGenerator(ss) for ss in _seqs(len(case["etas"]), seed)]
        refs = [fi_reference(P, stream, k, T, eta, gen, s=s)
                for eta, gen, s in zip(case["etas"], gens, case["stream_of"])]
        out = {name: np.stack([ref[name] for ref in refs])
               for name in ("plays", "alg", "G", "realised", "expected", "expected_sq")}
        # ALG after each checkpoint round: the reference's rewards f_t(S_t), summed in round order
        alg_by_round = np.array([np.cumsum([set_value(P, *stream.round(s, t), ref["plays"][t]) for t in range(T)])
                                 for ref, s in zip(refs, case["stream_of"])])
        out["checkpoints"] = alg_by_round[:, np.array(case["checkpoints"]) - 1]
        out["codes"] = np.array([[sum(1 << int(a) for a in set(ref["plays"][t])) for t in range(case["tail_from"], T)]
                                 for ref in refs], dtype=np.int64)
        out["states"] = np.stack([gen.state for gen in gens])
        return out

    def assert_agree(self, got, want):
        super().assert_agree(got, {name: v for name, v in want.items() if name not in self.CLOSE})
        for name in self.CLOSE:
            np.testing.assert_allclose(got[name], want[name], rtol=1e-12, atol=0, err_msg=name)


def test_mixture_stream_equals_weighted_sum_of_types():
    P, _ = _instance(n=5, M=3)
    ptr = np.array([0, 2, 3, 6])
    ids = np.array([0, 1, 2, 0, 1, 2])
    w = np.array([0.25, 0.75, 1.0, 0.2, 0.3, 0.5])
    stream = Stream.mixture(ptr, ids, w)
    runs = run_full_information(P, stream, 2, 3, [0.3], _states(1, 4), record_plays=True)
    alg = sum(set_value(P, ids[ptr[t]:ptr[t + 1]], w[ptr[t]:ptr[t + 1]], runs.plays[0, t]) for t in range(3))
    np.testing.assert_allclose(runs.alg[0], alg, rtol=1e-13)


def test_pathwise_invariants_of_full_information_runs():
    """C1.1 (Thm 3 per expert) and C1.2 (Prop. 3: R_T ≤ Σ_i (1−1/k)^(k−i) r_i) on every replica."""
    from privopt.online.osm.coverage import type_totals
    from privopt.online.osm.offline import exact_opt

    P, pi = _instance(n=8, M=5, seed=2)
    T, k = 2000, 3
    stream = _types(pi, T, S=3)
    etas = np.repeat([0.0, 0.01, 0.1, 1.0], 3)
    runs = run_full_information(P, stream, k, T, etas, _states(12, 3), stream_of=np.tile(np.arange(3), 4))
    rhs = runs.hedge_rhs()
    ok = etas > 0
    assert (runs.pseudo_regret[ok] <= rhs[ok] * (1 + 1e-9)).all()
    opt = np.array([exact_opt(P, type_totals(stream, P.shape[0], [T], s), k)[0][0] for s in range(3)])
    R = (1 - math.exp(-1)) * np.tile(opt, 4) - runs.alg
    r = runs.expert_regret
    weighted = r @ ((1 - 1 / k) ** (k - 1 - np.arange(k)))
    assert (R <= weighted + 1e-9).all()
    assert (R[(r >= 0).all(axis=1)] <= r.sum(axis=1)[(r >= 0).all(axis=1)] + 1e-9).all()


def test_draws_follow_softmax_of_eta_G():
    """One expert, a fixed gain vector every round: the frequency of each item at round 2 is softmax(η g)."""
    P = np.array([[0.1, 0.5, 0.9]])
    stream = Stream.single(np.zeros((1, 2), dtype=np.int32))
    R, eta = 40_000, 2.0
    runs = run_full_information(P, stream, 1, 2, np.full(R, eta), _states(R, 17), record_plays=True)
    counts = np.bincount(runs.plays[:, 1, 0], minlength=3)
    p = hedge_distribution(eta, P[0])
    assert stats.chisquare(counts, R * p).pvalue > 1e-4


# ----------------------------------------------------------------------------- bandit


class TestBanditTwin(KernelTwinContract):
    """The bandit kernel (BanditDP / SG-BANDIT-NP; B1-NAIVE with ``redraw_always``) against the plain reference
    :func:`privopt.online.osm.reference.bandit_reference` on the same coin and learner streams, bit for bit: ALG, M,
    the explore rounds, the sets drawn, what the experts were fed (G), the simulator-side true marginals of the frozen
    sets (G_true, realised_true) and both states left behind; and the explore counts B2-PRESAMPLE takes beforehand
    (``count_explores``) are the reference's M.  Two replicas (η in the polynomial tier and at ``math.exp``), two
    data streams."""

    kernels = (K.bandit_kernel, K.count_explores)
    _P, _pi = _instance(n=5, M=4, seed=6)
    _common = {"P": _P, "stream": _types(_pi, 400, S=2), "k": 2, "T": 400, "etas": (0.05, 0.3), "gamma": 0.2,
               "stream_of": (0, 1)}
    CASES = {"BanditDP-redraw-after-explores": {**_common, "redraw": False},
             "B1-NAIVE-redraw-every-round": {**_common, "redraw": True}}

    def run_kernel(self, variant, case, seed):
        R, n = len(case["etas"]), case["P"].shape[1]
        coins, states = states_from(_seqs(R, seed, 0)), states_from(_seqs(R, seed, 1))
        M_pre = explore_counts(coins, np.full(R, case["gamma"]), case["k"], n, case["T"])
        runs = run_bandit(case["P"], case["stream"], case["k"], case["T"], case["etas"], case["gamma"], coins, states,
                          stream_of=case["stream_of"], redraw_always=case["redraw"], record_explores=True)
        return {"alg": runs.alg, "M": runs.M, "M_pre": M_pre, "draws": runs.draws, "explores": runs.explore_rounds,
                "G": runs.G, "G_true": runs.G_true, "realised_true": runs.realised_true, "coin_states": coins,
                "states": states}

    def run_twin(self, case, seed):
        R, T = len(case["etas"]), case["T"]
        coins = [FastGenerator(ss) for ss in _seqs(R, seed, 0)]
        gens = [FastGenerator(ss) for ss in _seqs(R, seed, 1)]
        refs = [bandit_reference(case["P"], case["stream"], case["k"], T, eta, case["gamma"], c, g, s=s,
                                 redraw_always=case["redraw"])
                for eta, c, g, s in zip(case["etas"], coins, gens, case["stream_of"])]
        out = {name: np.array([ref[name] for ref in refs]) for name in ("alg", "M", "draws", "G", "G_true",
                                                                         "realised_true")}
        out["M_pre"] = out["M"]
        out["explores"] = np.zeros((R, T), dtype=np.int64)  # the kernel's record: M rounds, then zeros
        for r, ref in enumerate(refs):
            out["explores"][r, :ref["M"]] = ref["explores"]
        out["coin_states"] = np.stack([c.state for c in coins])
        out["states"] = np.stack([g.state for g in gens])
        return out


def test_bandit_updates_only_after_explore_rounds_and_lemma2_holds():
    from privopt.online.osm.coverage import type_totals
    from privopt.online.osm.offline import exact_opt

    P, pi = _instance(n=6, M=4, seed=9)
    T, k = 3000, 2
    stream = _types(pi, T, S=2)
    runs = run_bandit(P, stream, k, T, [0.05, 0.05, 0.5, 0.5], 0.1, _states(4, 41), _states(4, 42),
                      stream_of=[0, 1, 0, 1], record_explores=True)
    # new sets only after explore rounds: one draw at the start plus one per explore round
    np.testing.assert_array_equal(runs.draws, runs.M + 1)
    # the experts are fed only at explore rounds, one coordinate each: total feedback ≤ M
    assert (runs.G.sum(axis=(1, 2)) <= runs.M + 1e-9).all()
    opt = np.array([exact_opt(P, type_totals(stream, P.shape[0], [T], s), k)[0][0] for s in range(2)])
    R = (1 - math.exp(-1)) * np.tile(opt, 2) - runs.alg
    weighted = runs.expert_regret @ ((1 - 1 / k) ** (k - 1 - np.arange(k)))
    assert (R <= weighted + runs.M + 1e-9).all()  # Lemma 2 (pathwise)


def test_explore_counts_follow_their_binomial_law():
    """M over 4000 independent coin streams against Bin(T, γ): chi-square on the central cells (fixed seeds)."""
    T, gamma, R = 2000, 0.1, 4000
    M = explore_counts(_states(R, 51), np.full(R, gamma), 2, 10, T)
    lo, hi = stats.binom.ppf([0.01, 0.99], T, gamma).astype(int)
    edges = np.arange(lo, hi + 2, 6)
    obs = np.histogram(M, bins=edges)[0]
    exp = R * np.diff(stats.binom.cdf(edges - 1, T, gamma))
    assert stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > 1e-3
    assert abs(M.mean() - T * gamma) <= 4 * math.sqrt(T * gamma * (1 - gamma) / R)
    # C5.2's cap: M < 2γT in every run
    assert (M < 2 * gamma * T).all()


def test_kernel_rejects_bad_inputs():
    P, pi = _instance()
    stream = _types(pi, 50)
    with pytest.raises(ValueError, match="k <= |U|"):
        run_full_information(P, stream, 7, 50, [0.1], _states(1, 1))
    with pytest.raises(ValueError, match="horizon"):
        run_full_information(P, stream, 2, 51, [0.1], _states(1, 1))
    with pytest.raises(ValueError, match="learning rates"):
        run_full_information(P, stream, 2, 50, [-0.1], _states(1, 1))
    with pytest.raises(ValueError, match="exploration"):
        run_bandit(P, stream, 2, 50, [0.1], 0.0, _states(1, 1), _states(1, 2))


# ----------------------------------------------------------------------------- Algorithm 4 (continuous)
# A plain numpy Algorithm 4 (privopt.online.osm.dr_submodular's module docstring), one replica and one expert at a time.
# Its sums and products run over the items in index order (builtin sum, math.prod, cumulative products) as the
# kernel's loops do, so the pair agrees bit for bit.


def _alg4_gradient(p, x):
    """∇F(x) of F(x) = 1 − Π_a(1 − p_a x_a): c_a = p_a · Π_{b<a}(1 − p_b x_b) · Π_{b>a}(1 − p_b x_b)."""
    f = 1.0 - p * x
    before = np.concatenate(([1.0], np.cumprod(f)[:-1]))
    after = np.concatenate((np.cumprod(f[::-1])[::-1][1:], [1.0]))
    return p * before * after


def _alg4_projection(y, k):
    """Π_{P_k}(y): clip to [0, 1]; when the sum exceeds k, clip(y − τ, 0, 1) with τ by 64 halvings of [0, max y]."""
    x = np.clip(y, 0.0, 1.0)
    if sum(x) <= k:
        return x
    lo, hi = 0.0, max(0.0, float(y.max()))
    for _ in range(64):
        tau = 0.5 * (lo + hi)
        if sum(np.clip(y - tau, 0.0, 1.0)) > k:
            lo = tau
        else:
            hi = tau
    return np.clip(y - hi, 0.0, 1.0)


def _alg4_node_noise(gen, lam, n):
    """One ℓ2-Laplace vector: radius λ·Gamma(n), direction n normals normalised (drawn in that order)."""
    radius = gen.standard_gamma(float(n))
    z = gen.standard_normal(n)
    return z * (lam * radius / math.sqrt(sum(z * z)))


def _alg4_twin(P, types, stream_of, k, T, params, gens):
    """ALG, the exact gradient sums C^j and the linear gains Σ_t c_t^j·v_t^j of every replica (``params[r]``,
    random stream ``gens[r]``, data stream ``stream_of[r]``)."""
    n, R, levels = P.shape[1], len(params), T.bit_length()
    Kmax = max(p.K for p in params)
    alg, C_out, lin_out = np.zeros(R), np.zeros((R, Kmax, n)), np.zeros((R, Kmax))
    for r, (p, gen) in enumerate(zip(params, gens)):
        K = p.K
        v, C, noise = np.zeros((K, n)), np.zeros((K, n)), np.zeros((K, levels, n))
        for t in range(1, T + 1):
            row = P[types[stream_of[r], t - 1]]
            x = np.zeros(n)  # the played point (1/K) Σ_j v^j
            for j in range(K):
                x += v[j] / K
            alg[r] += 1.0 - math.prod(1.0 - row * x)
            level = (t & -t).bit_length() - 1  # item t completes the tree node of level tz(t)
            xj = np.zeros(n)  # expert j's point (1/K) Σ_{i<j} v^i
            for j in range(K):
                c = _alg4_gradient(row, xj)
                C[j] += c
                lin_out[r, j] += sum(c * v[j])
                if p.lam > 0:
                    noise[j, level] = _alg4_node_noise(gen, p.lam, n)
                noisy = C[j].copy()  # Ĉ_t: the exact prefix sum plus the noises of the set bits of t
                for lv in range(levels):
                    if (t >> lv) & 1:
                        noisy += noise[j, lv]
                xj += v[j] / K
                v[j] = _alg4_projection(noisy / (p.H * t), float(k))
        C_out[r, :K] = C
    return alg, C_out, lin_out


def _alg4_case(T):
    P, pi = _instance(n=6, M=4, seed=3)
    k = 2
    params = [alg4_params(P, k, T, 1.0, 1e-2, K=3), alg4_params(P, k, T, 10.0, 1e-2, K=2),
              dataclasses.replace(alg4_params(P, k, T, 10.0, 1e-2, K=1), lam=0.0)]  # λ = 0: no noise, no draws
    return {"P": P, "stream": _types(pi, T, S=2), "k": k, "T": T, "params": params, "stream_of": (0, 1, 0)}


class TestAlgorithm4Twin(KernelTwinContract):
    """Algorithm 4's kernel (:func:`privopt.online.osm.dr_submodular.run_alg4`) against the plain numpy
    :func:`_alg4_twin` on the same streams, bit for bit: ALG, C^j, the linear gains and the states left behind.
    Replicas with K = 3, 2, 1 experts (the last without noise), two data streams; H small enough that the
    projection binds in most rounds (the bisection runs) but not all."""

    kernels = (alg4_kernel,)
    CASES = {"T=40": _alg4_case(40), "T=64-top-tree-level": _alg4_case(64)}

    def run_kernel(self, variant, case, seed):
        states = states_from(_seqs(len(case["params"]), seed))
        runs = run_alg4(case["P"], case["stream"], case["k"], case["T"], case["params"], states,
                        stream_of=case["stream_of"])
        return {"alg": runs.alg, "C": runs.C, "linear_gain": runs.linear_gain, "states": states}

    def run_twin(self, case, seed):
        gens = [FastGenerator(ss) for ss in _seqs(len(case["params"]), seed)]
        alg, C, lin = _alg4_twin(case["P"], case["stream"].types, case["stream_of"], case["k"], case["T"],
                                 case["params"], gens)
        return {"alg": alg, "C": C, "linear_gain": lin, "states": np.stack([g.state for g in gens])}
