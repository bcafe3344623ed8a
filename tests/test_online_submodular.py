"""Online submodular maximisation (privopt.online): Hedge, the full-information and bandit kernels against the
plain reference and brute force, their pathwise invariants, and the exploration counts' law."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from privopt.fastrng import FastGenerator
from privopt.online import _osm_kernels as K
from privopt.online.coverage import Stream, marginal_gains, set_value
from privopt.online.hedge import hedge_bound, hedge_distribution, hedge_play_distributions, hedge_pseudo_regret
from privopt.online.osm_reference import bandit_reference, fi_reference
from privopt.online.submodular_max import explore_counts, run_bandit, run_full_information, states_from


def _instance(n=6, M=4, seed=0):
    rng = np.random.default_rng(seed)
    P = rng.uniform(0.0, 0.9, (M, n))
    P[rng.random((M, n)) < 0.3] = 0.0
    return P, rng.dirichlet(np.ones(M))


def _types(pi, T, S=1, seed=1):
    rng = np.random.default_rng(seed)
    return Stream.single(np.stack([rng.choice(pi.size, size=T, p=pi) for _ in range(S)]).astype(np.int32))


def _states(R, base):
    return states_from([np.random.SeedSequence([base, r]) for r in range(R)])


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


@pytest.mark.parametrize("eta", [0.002, 0.05, 0.2, 0.5])
def test_kernel_plays_what_the_plain_reference_plays(eta):
    P, pi = _instance(n=6, M=4, seed=5)
    T, k = 120, 2
    stream = _types(pi, T)
    states = _states(1, 21)
    ref = fi_reference(P, stream, k, T, eta, FastGenerator(np.random.SeedSequence([21, 0])))
    runs = run_full_information(P, stream, k, T, [eta], states, record_plays=True)
    np.testing.assert_array_equal(runs.plays[0], ref["plays"])
    np.testing.assert_allclose(runs.alg[0], ref["alg"], rtol=1e-12)
    np.testing.assert_allclose(runs.expected[0], ref["expected"], rtol=1e-10)


def test_mixture_stream_equals_weighted_sum_of_types():
    P, _ = _instance(n=5, M=3)
    ptr = np.array([0, 2, 3, 6])
    ids = np.array([0, 1, 2, 0, 1, 2])
    w = np.array([0.25, 0.75, 1.0, 0.2, 0.3, 0.5])
    stream = Stream.mixture(ptr, ids, w)
    runs = run_full_information(P, stream, 2, 3, [0.3], _states(1, 4), record_plays=True)
    alg = sum(set_value(P, ids[ptr[t]:ptr[t + 1]], w[ptr[t]:ptr[t + 1]], runs.plays[0, t]) for t in range(3))
    np.testing.assert_allclose(runs.alg[0], alg, rtol=1e-13)


def test_weights_refresh_keeps_the_law_for_large_rates():
    """η large enough that the weights are recomputed from G every round: same plays as the reference."""
    P, pi = _instance(n=4, M=3, seed=8)
    stream = _types(pi, 60)
    ref = fi_reference(P, stream, 2, 60, 3.0, FastGenerator(np.random.SeedSequence([9, 0])))
    runs = run_full_information(P, stream, 2, 60, [3.0], _states(1, 9), record_plays=True)
    np.testing.assert_array_equal(runs.plays[0], ref["plays"])


def test_pathwise_invariants_of_full_information_runs():
    """C1.1 (Thm 3 per expert) and C1.2 (Prop. 3: R_T ≤ Σ_i (1−1/k)^(k−i) r_i) on every replica."""
    from privopt.online.coverage import type_totals
    from privopt.online.coverage_offline import exact_opt

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


@pytest.mark.parametrize("redraw", [False, True])
def test_bandit_kernel_matches_reference(redraw):
    P, pi = _instance(n=5, M=4, seed=6)
    T, k, gamma = 400, 2, 0.2
    stream = _types(pi, T)
    coins, states = _states(1, 31), _states(1, 32)
    ref = bandit_reference(P, stream, k, T, 0.3, gamma, FastGenerator(np.random.SeedSequence([31, 0])),
                           FastGenerator(np.random.SeedSequence([32, 0])), redraw_always=redraw)
    runs = run_bandit(P, stream, k, T, [0.3], gamma, coins, states, redraw_always=redraw, record_explores=True)
    assert runs.M[0] == ref["M"] and runs.draws[0] == ref["draws"]
    np.testing.assert_array_equal(runs.explore_rounds[0, :ref["M"]], ref["explores"])
    np.testing.assert_allclose(runs.alg[0], ref["alg"], rtol=1e-12)
    np.testing.assert_allclose(runs.G[0], ref["G"], rtol=1e-12)
    np.testing.assert_allclose(runs.G_true[0], ref["G_true"], rtol=1e-11, atol=1e-12)


def test_bandit_updates_only_after_explore_rounds_and_lemma2_holds():
    from privopt.online.coverage import type_totals
    from privopt.online.coverage_offline import exact_opt

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
