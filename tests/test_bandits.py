"""Private contextual linear bandits (spec private-linear-bandits.md): constants (App. B), instances
(§7.1), the numba kernels against the plain-numpy reference, PD regularisers, learning, seeding."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from scipy import stats

from privopt.bandits import (
    VARIANTS,
    BanditInstance,
    gaussian_params,
    nonprivate_params,
    params_for_rho_min,
    record_grid,
    rho_min_grid,
    run_episode,
    run_episodes,
    variant_params,
    wishart_df,
    wishart_params,
)
from privopt.bandits.instances import (
    draw_reward,
    embed,
    householder,
    sample_decision_set,
    sample_zone_inner,
    zone_cdf,
    zone_mode,
)
from privopt.bandits.kernels import episode_kernel, episode_kernel_batched, sample_decision_sets_nb
from privopt.bandits.lockstep import lockstep_kernel
from privopt.bandits.prefilter import episode_kernel_prefilter
from privopt.fastrng import FastGenerator
from privopt.seeding import seed_sequence
from kernel_contract import KernelTwinContract

N_PAPER = 50_000_000
P_MIN = 1e-3


def sig(x: float, digits: int = 4) -> float:
    return float(f"{x:.{digits}g}")


# ----------------------------------------------------------------------------- Appendix B constants
def test_appendix_b_reference_constants():
    wu = variant_params("wishart_unshifted", N_PAPER, 5)
    w = variant_params("wishart", N_PAPER, 5)
    wc = variant_params("wishart", N_PAPER, 5, gamma_rule="claim20")
    ga = variant_params("gaussian", N_PAPER, 5)
    npv = variant_params("nonprivate", N_PAPER, 5)
    assert wu.m == w.m == ga.m == 27
    assert wu.df == w.df == 139_115
    assert wishart_df(27, 5, 1.0, 0.1, "authors_code") == 239_278
    assert wu.alpha == 1 / N_PAPER
    # unshifted Wishart (§4.4)
    assert sig(wu.rho_min, 5) == 7.4279e6 and sig(wu.rho_max, 5) == 7.5969e6
    assert sig(wu.gamma, 5) == 15.187 and wu.shift == 0.0
    # shifted Wishart: c (Eq. 4), ρ'_min, ρ'_max, γ' (prop9 / claim20)
    assert sig(w.extras["c"], 5) == 7.2589e6 and w.shift == -w.extras["c"]
    assert sig(w.rho_min, 5) == 1.6900e5 and sig(w.rho_max, 5) == 3.3801e5
    assert sig(w.gamma, 5) == 204.02 and sig(wc.gamma, 5) == 100.68
    assert math.isclose(w.extras["c"], wu.rho_min - w.rho_min, rel_tol=1e-12)
    assert math.isclose(w.rho_min, wu.rho_max - wu.rho_min, rel_tol=1e-12)  # ρ'_min = ρ_max − ρ_min
    # Gaussian (§5.3)
    assert sig(ga.sigma_noise, 5) == 153.34
    assert sig(ga.extras["upsilon"], 5) == 9.1545e4 and ga.rho_min == ga.extras["upsilon"]
    assert sig(ga.rho_max, 5) == 2.7464e5 and sig(ga.gamma, 5) == 28.280
    assert sig(ga.extras["gamma_loose"], 4) == 53.35 and sig(ga.shift, 5) == 1.8309e5
    # non-private (§6)
    assert npv.rho_min == npv.rho_max == npv.shift == 1.0 and npv.gamma == 0.0
    assert sig(2 * math.log(2 / npv.alpha), 4) == 36.84
    # authors'-code k rule (§4.4): ρ_min 1.281e7, ρ'_min 2.223e5
    wa = wishart_params(N_PAPER, 5, k_rule="authors_code", shifted=False)
    assert sig(wa.rho_min, 4) == 1.281e7
    # spec quotes 2.223e5 from the authors' code, which also uses its own α bookkeeping (α/N inside the
    # mechanism bounds, spec §11.4); with the paper's α = 1/n everywhere the k switch alone gives 2.216e5.
    assert sig(wishart_params(N_PAPER, 5, k_rule="authors_code").rho_min, 3) == 2.22e5
    # Exp. 1 horizon
    assert variant_params("gaussian", 100_000, 5).m == 18


def test_fig5_grid_and_rho_mapping():
    grid = rho_min_grid(N_PAPER, 5)
    expected = [3.800e4, 9.155e4, 1.690e5, 2.205e5, 5.313e5, 1.280e6, 3.083e6, 7.428e6, 1.789e7]
    assert [sig(v, 4) for v in grid] == expected
    ga, wu = gaussian_params(N_PAPER, 5), wishart_params(N_PAPER, 5, shifted=False)
    wc = wishart_params(N_PAPER, 5, gamma_rule="claim20")
    # Gaussian at ρ* = Υ is exactly the §5 variant
    g = params_for_rho_min("gaussian", ga.rho_min, N_PAPER, 5)
    for attr in ("shift", "rho_min", "rho_max", "gamma"):
        assert math.isclose(getattr(g, attr), getattr(ga, attr), rel_tol=1e-12)
    # Wishart at ρ'_min is §4.3 option (b); at the unshifted ρ_min it is WishartUnshifted
    w = params_for_rho_min("wishart", wc.rho_min, N_PAPER, 5)
    for attr in ("shift", "rho_min", "rho_max", "gamma"):
        assert math.isclose(getattr(w, attr), getattr(wc, attr), rel_tol=1e-12)
    w0 = params_for_rho_min("wishart", wu.rho_min, N_PAPER, 5)
    assert abs(w0.shift) < 1e-6 * wu.rho_min and math.isclose(w0.gamma, wu.gamma, rel_tol=1e-12)
    # general point: ρ_max − ρ_min is the noise spread, γ by Claim 20 below / unchanged above
    for rho in grid:
        gw = params_for_rho_min("wishart", rho, N_PAPER, 5)
        assert math.isclose(gw.rho_max - gw.rho_min, wu.rho_max - wu.rho_min, rel_tol=1e-9)
        assert math.isclose(gw.shift, rho - wu.rho_min, rel_tol=1e-12, abs_tol=1e-6)
        expect_gamma = wu.gamma * math.sqrt(wu.rho_min / rho) if rho <= wu.rho_min else wu.gamma
        assert math.isclose(gw.gamma, expect_gamma, rel_tol=1e-12)
        gg = params_for_rho_min("gaussian", rho, N_PAPER, 5)
        assert math.isclose(gg.rho_max, rho + 2 * ga.rho_min, rel_tol=1e-12)
        assert math.isclose(gg.shift, rho + ga.rho_min, rel_tol=1e-12)
        assert math.isclose(gg.gamma, ga.gamma * math.sqrt(ga.rho_min / rho), rel_tol=1e-12)


def test_beta_formula():
    p = variant_params("gaussian", N_PAPER, 5)
    logdet = 61.0
    expect = math.sqrt(2 * math.log(2 / p.alpha) + logdet - 5 * math.log(p.rho_min)) + math.sqrt(p.rho_max) + p.gamma
    assert math.isclose(p.beta(logdet), expect, rel_tol=1e-14)
    assert p.beta(-1e9) == p.xi  # max(0, ·) guard


def test_invalid_parameters_rejected():
    with pytest.raises(ValueError):
        variant_params("laplace", N_PAPER, 5)
    with pytest.raises(ValueError):
        wishart_df(27, 5, 0.0, 0.1)
    with pytest.raises(ValueError):
        params_for_rho_min("wishart", -1.0, N_PAPER, 5)
    with pytest.raises(ValueError):
        run_episode(nonprivate_params(1000, 5), BanditInstance(d=5), 1001, 0)  # prefix must be ≤ n
    with pytest.raises(ValueError):
        run_episode(nonprivate_params(1000, 4), BanditInstance(d=5), 10, 0)
    with pytest.raises(ValueError):
        BanditInstance(d=5, gap=1.6)


# ----------------------------------------------------------------------------- instances (§7.1)
@pytest.mark.parametrize("d", [2, 3, 5, 16])
@pytest.mark.parametrize("gap", [0.0, 0.1])
def test_zone_sampler_exact_law_numpy_and_numba(d, gap):
    a, b = -0.75, 0.75 - gap
    t_np = sample_zone_inner(FastGenerator(d), d, a, b, 20_000)
    assert t_np.min() >= a and t_np.max() <= b
    assert stats.kstest(t_np, lambda t: zone_cdf(t, d, a, b)).pvalue > P_MIN
    # the kernel's sampler (sub-optimal arms of many decision sets)
    theta = np.random.default_rng(d).standard_normal(d)
    theta /= np.linalg.norm(theta)
    hv, hc, hs = householder(theta)
    t0 = zone_mode(a, b, d)
    n_sets, K = 2000, 11
    arms, means, jopt = np.zeros((n_sets, K, d)), np.zeros((n_sets, K)), np.zeros(n_sets, dtype=np.int64)
    sample_decision_sets_nb(FastGenerator(100 + d).state, n_sets, K, 0.75, a, b, 1 - t0 * t0, hv, hc, hs,
                            arms, means, jopt)
    np.testing.assert_allclose(np.linalg.norm(arms, axis=2), 1.0, atol=1e-12)
    np.testing.assert_allclose(arms @ theta, means, atol=1e-12)          # ⟨x, θ*⟩ = T exactly
    opt = means[np.arange(n_sets), jopt]
    assert np.all(opt == 0.75)
    sub = np.delete(means, jopt + K * np.arange(n_sets))                  # all non-optimal arms
    assert sub.min() >= a and sub.max() <= b
    assert stats.kstest(sub, lambda t: zone_cdf(t, d, a, b)).pvalue > P_MIN
    # optimal position uniform over the K slots
    assert stats.chisquare(np.bincount(jopt, minlength=K)).pvalue > P_MIN
    # orthogonal part w = (x − Tθ*)/sqrt(1 − T²) is a unit vector ⊥ θ* with mean ≈ 0
    if d >= 3:
        x = arms.reshape(-1, d)
        t = x @ theta
        w = (x - np.outer(t, theta)) / np.sqrt(1 - t**2)[:, None]
        np.testing.assert_allclose(np.linalg.norm(w, axis=1), 1.0, atol=1e-9)
        assert np.all(np.abs(w.mean(axis=0)) < 5 / np.sqrt(x.shape[0]))


def test_numpy_and_numba_decision_sets_identical():
    d, K = 5, 25
    theta = np.array([0.6, -0.0, 0.8, 0.0, 0.0])
    hv, hc, hs = householder(theta)
    arms_nb, means_nb, jopt_nb = np.zeros((3, K, d)), np.zeros((3, K)), np.zeros(3, dtype=np.int64)
    g1, g2 = FastGenerator(9), FastGenerator(9)
    sample_decision_sets_nb(g1.state, 3, K, 0.75, -0.75, 0.65, 1.0, hv, hc, hs, arms_nb, means_nb, jopt_nb)
    for r in range(3):
        arms, means, jopt = sample_decision_set(g2, theta, K, gap=0.1)
        assert jopt == jopt_nb[r]
        np.testing.assert_array_equal(means, means_nb[r])
        np.testing.assert_allclose(arms, arms_nb[r], atol=1e-15)
    np.testing.assert_array_equal(g1.state, g2.state)
    # Householder map sends e1 to θ* and is orthogonal
    q = embed(theta, np.eye(d))
    np.testing.assert_allclose(q[0], theta, atol=1e-15)
    np.testing.assert_allclose(q @ q.T, np.eye(d), atol=1e-14)


@pytest.mark.parametrize("mu", [-0.7, 0.0, 0.7])
def test_pm1_reward_mean(mu):
    g = FastGenerator(int(10 * mu) + 50)
    y = np.array([draw_reward(g, mu) for _ in range(20_000)])
    assert set(np.unique(y)) <= {-1.0, 1.0}
    assert abs(y.mean() - mu) < 4 * np.sqrt((1 - mu**2) / y.size)


# ----------------------------------------------------------------------------- kernel vs reference
CASES = [
    (BanditInstance(d=5, gap=0.1), 400),
    (BanditInstance(d=5, gap=0.0, reward="gaussian"), 250),
]


def _episode_values(res) -> dict:
    """What a run returns that the kernels and the reference must agree on, bit for bit."""
    return {"trace": res.trace, "regret": res.regret, "theta": res.theta,
            "env_state_end": res.extra["env_state_end"], "n_optimal": res.n_optimal,
            "pd_failures": res.pd_failures, "node_draws": res.node_draws}


#: (variant, index in CASES) by id
TWIN_CASES = {f"{variant}, case {case}": (variant, case) for variant in VARIANTS for case in range(len(CASES))}


@functools.cache
def _reference_episode(variant: str, case: int, seed: int) -> dict:
    inst, n_rounds = CASES[case]
    p = variant_params(variant, N_PAPER, inst.d)  # paper constants (prefix of a 5·10^7-round run)
    return _episode_values(run_episode(p, inst, n_rounds, seed, trace=True, record=25, engine="numpy"))


@pytest.mark.filterwarnings("ignore")
class TestLinUCBKernelsTwin(KernelTwinContract):
    """Same seed ⇒ same streams ⇒ each numba kernel makes the numpy reference's decisions, round by round (the
    reference: privopt.bandits.linucb; the lockstep kernel as "buffered", with this one variant)."""

    kernels = (episode_kernel, episode_kernel_batched, episode_kernel_prefilter, lockstep_kernel)
    VARIANTS = ("onthefly", "buffered", "batched", "prefilter")
    CASES = TWIN_CASES
    SEEDS = (77, 78)

    def run_kernel(self, kernel, case, seed):
        variant, c = case
        inst, n_rounds = CASES[c]
        p = variant_params(variant, N_PAPER, inst.d)
        res = run_episode(p, inst, n_rounds, seed, trace=True, record=25, kernel=kernel)
        assert res.extra["kernel"] == kernel
        return _episode_values(res)

    def run_twin(self, case, seed):
        return _reference_episode(*case, seed)

    def test_no_pd_failure_and_the_path_trees_node_count(self, case_id):
        """The kernel's path tree drew m nodes, then 1 + min(tz(t−1), m−1) in rounds t ≥ 2."""
        variant, c = self.CASES[case_id]
        inst, n_rounds = CASES[c]
        p = variant_params(variant, N_PAPER, inst.d)
        got = self.run_twin(self.CASES[case_id], self.SEEDS[0])
        assert got["pd_failures"] == 0
        expect = (p.m + sum(1 + min((s & -s).bit_length() - 1, p.m - 1) for s in range(1, n_rounds))
                  if p.mechanism != "none" else 0)
        assert got["node_draws"] == expect


# ----------------------------------------------------------------------------- the prefilter kernel (issue 24)
def _same_run(a, b):
    np.testing.assert_array_equal(a.trace, b.trace)
    np.testing.assert_array_equal(a.regret, b.regret)
    np.testing.assert_array_equal(a.extra["env_state_end"], b.extra["env_state_end"])
    np.testing.assert_array_equal(a.extra["noise_state_end"], b.extra["noise_state_end"])
    assert (a.n_optimal, a.pd_failures, a.node_draws) == (b.n_optimal, b.pd_failures, b.node_draws)


# d = 5 (the smoke pipeline's) and d = 64 (Exp. 1's largest, the prefilter's use): every kernel specialisation
# (one per d and kernel, ~25 s of compilation each) is shared with the smoke run or with the d = 64 test below
@pytest.mark.parametrize("d, variant, reward, n_rounds", [
    (5, "nonprivate", "pm1", 300), (5, "wishart", "pm1", 300), (5, "nonprivate", "gaussian", 300),
    (64, "gaussian", "pm1", 100)])
@pytest.mark.filterwarnings("ignore")
def test_prefilter_kernel_equals_reference_kernels(d, variant, reward, n_rounds):
    """float32 scores + rigorous bound + float64 argmax among the candidates = the reference kernel, bit for bit
    (and today's batched kernel), audit rows included; almost every round rescoring one or two arms."""
    inst = BanditInstance(d=d, gap=0.1, reward=reward)
    p = nonprivate_params(100_000, d) if variant == "nonprivate" else variant_params(variant, 1_000_000, d)
    kw = dict(trace=True, record=7, audit=[1, 2, n_rounds // 2, n_rounds])
    new = run_episode(p, inst, n_rounds, 5, kernel="prefilter", **kw)
    _same_run(new, run_episode(p, inst, n_rounds, 5, kernel="onthefly", **kw))
    _same_run(new, run_episode(p, inst, n_rounds, 5, kernel="batched", **kw))
    assert new.audit.equals(run_episode(p, inst, n_rounds, 5, kernel="onthefly", **kw).audit)
    assert new.extra["fallback_rounds"] <= n_rounds // 50  # rare: near-ties across the bound, exact anyway
    assert new.extra["candidates"] < 3 * n_rounds + inst.n_arms  # round 1 of NonPrivate: every arm ties


@pytest.mark.filterwarnings("ignore")
def test_prefilter_kernel_equals_batched_at_d64_prefix():
    """Exp. 1's largest size (d = 64, K = 4096): a prefix run of the pipeline's kernel (prefilter) equals the
    previous large-d kernel (float64 BLAS) bit for bit, and the reference kernel on a shorter prefix."""
    inst = BanditInstance(d=64, gap=0.1, reward="gaussian")
    p = nonprivate_params(100_000, 64)
    new = run_episode(p, inst, 60, 2, kernel="auto", trace=True, record=1)  # auto: prefilter from d = 20
    assert new.extra["kernel"] == "prefilter" and new.extra["fallback_rounds"] <= 2
    _same_run(new, run_episode(p, inst, 60, 2, kernel="batched", trace=True, record=1))
    _same_run(run_episode(p, inst, 8, 3, kernel="prefilter", trace=True, record=1),
              run_episode(p, inst, 8, 3, kernel="onthefly", trace=True, record=1))


@pytest.mark.parametrize("d", [5, 6, 12, 45, 64])
def test_zone_accept_decides_as_the_reference_product(d):
    """The repeated-squaring acceptance test of the prefilter kernel = ``u <= zone_accept_prob`` exactly, also
    for u on and within a few ulps of the reference value (where the squaring's rounding differs)."""
    from privopt.bandits.instances import zone_accept_prob
    from privopt.bandits.kernels import zone_accept as _zone_accept

    rng = np.random.default_rng(d)
    om = 1.0 - zone_mode(-0.75, 0.65, d) ** 2
    ts = rng.uniform(-0.75, 0.65, 300)
    for t in ts:
        p = zone_accept_prob(t, om, d)
        us = [p, np.nextafter(p, 0), np.nextafter(p, 1), p * (1 + 1e-14), p * (1 - 1e-14), rng.random(), 0.0]
        for u in us:
            assert _zone_accept(u, t, om, d) == (u <= p)


@pytest.mark.parametrize("d", [3, 12, 64])
def test_prefilter_score_bound_is_rigorous_and_tight(d):
    """|u_j − v_j| ≤ E_j (u_j: the kernel's float32-product score, v_j: the reference's float64 UCB), with E_j
    tiny against the spread of the scores — on real released matrices (a NonPrivate run's V_t) and on badly
    conditioned ones (where cancellations in w = B x' make the width's relative error large)."""
    from privopt.bandits.prefilter import score_bound

    rng = np.random.default_rng(d)
    K = min(d * d, 150)
    worst, rel = 0.0, []
    for cond in (1.0, 1e3, 1e6):
        q, _ = np.linalg.qr(rng.standard_normal((d, d)))
        B = (q * np.geomspace(1.0, 1.0 / cond, d)) @ np.linalg.qr(rng.standard_normal((d, d)))[0]
        y = rng.standard_normal(d) * 10.0
        beta = 3.7
        T = rng.uniform(-0.75, 0.75, K)
        g = rng.standard_normal((K, d))
        ss = np.array([sum(z * z for z in row[1:]) for row in g])  # sequential, as the kernel
        sc = np.sqrt((1.0 - T * T) / ss)
        xp = np.column_stack([T, sc[:, None] * g[:, 1:]])
        w32 = B.astype(np.float32) @ xp.T.astype(np.float32)
        rho = np.sqrt((B * B).sum(axis=1))
        A, F = float(np.abs(y) @ rho), float((rho * rho).sum())
        for j in range(K):
            w = w32[:, j].astype(np.float64)
            m = n = 0.0
            for i in range(d):
                m += y[i] * w[i]
                n += w[i] * w[i]
            u, e = score_bound(d, A, F, beta, m, n, T[j] ** 2 + sc[j] ** 2 * ss[j])
            # the reference's float64 UCB, the kernel's expression
            mean = nrm = 0.0
            for i in range(d):
                s = 0.0
                for k in range(1, d):
                    s += B[i, k] * g[j, k]
                wi = T[j] * B[i, 0] + sc[j] * s
                mean += y[i] * wi
                nrm += wi * wi
            v = mean + beta * math.sqrt(nrm)
            assert abs(u - v) <= e
            worst = max(worst, abs(u - v) / e)
            rel.append(e / (abs(v) + beta * math.sqrt(F)))
    assert 0.0 < worst < 1.0
    assert max(rel) < 1e-3  # the window is small against the scores' scale: it keeps 1–2 candidates


@pytest.mark.parametrize("variant, rho", [("gaussian", None), ("wishart", None), ("wishart_unshifted", None),
                                          ("gaussian", 3.8e4), ("wishart", 3.8e4)])
def test_regulariser_pd_and_accuracy_every_round(variant, rho):
    """Shifted variants (and the lowest Fig. 5 grid point): H_t ≻ 0 at every audited round, inside the
    (ρ_min, ρ_max, γ) bounds (claim S.1), confidence set contains θ* (S.2), no Cholesky failure."""
    inst = BanditInstance(d=5, gap=0.0)
    p = (variant_params(variant, N_PAPER, 5) if rho is None
         else params_for_rho_min(variant, rho, N_PAPER, 5))
    n_rounds = 2100  # covers a level-11 refresh (t − 1 = 2048) and the exact Nsum recomputation
    res = run_episode(p, inst, n_rounds, 5, audit=np.arange(1, n_rounds + 1))
    aud = res.audit
    assert len(aud) == n_rounds and res.pd_failures == 0
    assert (aud.lambda_min_H > 0).all()
    assert (aud.lambda_min_H >= p.rho_min).all() and (aud.lambda_max_H <= p.rho_max).all()
    assert (aud.h_norm_Hinv <= p.gamma).all()
    assert (aud.conf_norm_V <= aud.beta).all()


def test_nonprivate_learns_easy_instance():
    """Large gap (Δ = 0.5), few arms: LinUCB's regret flattens; a random policy would pay ≈ 1 per round."""
    inst = BanditInstance(d=5, K=10, gap=0.5)
    n = 20_000
    regrets, opt = [], []
    for seed in range(3):
        r = run_episode(nonprivate_params(n, 5), inst, n, seed, record=[n // 2, n])
        regrets.append(r.regret)
        opt.append(r.n_optimal / n)
    regrets = np.array(regrets)
    assert np.all(regrets[:, 1] < 0.02 * n)                       # ≤ 2% of the random-policy regret
    assert np.all(regrets[:, 1] - regrets[:, 0] < 0.2 * regrets[:, 0])  # second half adds < 20%
    assert min(opt) > 0.98


def test_private_worse_than_nonprivate():
    """At the paper's constants the private variants are heavily regularised early on: after 3000 rounds
    NonPrivate's mean regret is below a fifth of the best private variant's (and no Cholesky fails)."""
    inst = BanditInstance(d=5, gap=0.1)
    batch = run_episodes([variant_params(v, N_PAPER, 5) for v in VARIANTS], inst, 3000, seeds=[1, 2],
                         record=1000)
    final = batch.runs.groupby("variant").final_regret.mean()
    assert final["nonprivate"] < 0.2 * final[["gaussian", "wishart", "wishart_unshifted"]].min()
    assert (batch.runs.pd_failures == 0).all()


# ----------------------------------------------------------------------------- API: seeding, CRN, prefixes
def test_common_random_numbers_and_determinism():
    inst = BanditInstance(d=5, gap=0.1)
    ss = seed_sequence("shariff2018", "fig4", {"gap": 0.1}, 3)
    runs = [run_episode(variant_params(v, N_PAPER, 5), inst, 500, ss) for v in VARIANTS]
    # every variant consumed exactly the same environment numbers: same θ*, decision sets, coins
    for r in runs[1:]:
        np.testing.assert_array_equal(r.theta, runs[0].theta)
        np.testing.assert_array_equal(r.extra["env_state_end"], runs[0].extra["env_state_end"])
    # wishart and wishart_unshifted share their tree noise
    np.testing.assert_array_equal(runs[2].extra["noise_state_end"], runs[3].extra["noise_state_end"])
    again = run_episode(variant_params("gaussian", N_PAPER, 5), inst, 500, ss)
    np.testing.assert_array_equal(again.regret, runs[1].regret)
    other = run_episode(variant_params("gaussian", N_PAPER, 5), inst, 500,
                        seed_sequence("shariff2018", "fig4", {"gap": 0.1}, 4))
    assert not np.array_equal(other.regret, runs[1].regret)


def test_prefix_runs_are_exact_prefixes():
    inst = BanditInstance(d=5, gap=0.0)
    p = variant_params("wishart", N_PAPER, 5)
    short = run_episode(p, inst, 1500, 11, record=100)
    long = run_episode(p, inst, 3000, 11, record=100)
    np.testing.assert_array_equal(long.regret[: short.t.size], short.regret)
    np.testing.assert_array_equal(long.t[: short.t.size], short.t)


def test_run_episodes_frames_and_record_grid():
    np.testing.assert_array_equal(record_grid(10, 4), [0, 4, 8, 10])
    np.testing.assert_array_equal(record_grid(10, [3, 1, 3]), [1, 3])
    inst = BanditInstance(d=5)
    batch = run_episodes([nonprivate_params(1000, 5), gaussian_params(1000, 5)], inst, 200,
                         seeds=[seed_sequence("p", "e", {}, s) for s in range(2)], labels=[10, 11],
                         record=50, audit=4)
    assert list(batch.curves.columns) == ["variant", "seed", "t", "regret"]
    assert len(batch.curves) == 2 * 2 * 5 and set(batch.curves.seed) == {10, 11}
    assert (batch.curves.groupby(["variant", "seed"]).regret.diff().dropna() >= 0).all()
    assert len(batch.runs) == 4 and {"final_regret", "pd_failures", "param_m", "param_shift"} <= set(batch.runs)
    assert len(batch.audits) == 4 * 4


@pytest.mark.filterwarnings("ignore")
def test_theta_rotation_equivariance():
    """Spec §7.1.2: the regret law does not depend on θ* (fixed e1 vs uniform θ*, mean within 4 SE)."""
    runs = 40
    p = nonprivate_params(4000, 5)
    fixed = BanditInstance(d=5, gap=0.1, theta=(1.0, 0.0, 0.0, 0.0, 0.0))
    rand = BanditInstance(d=5, gap=0.1)
    a = np.array([run_episode(p, fixed, 4000, 1000 + s, record=[4000]).regret[-1] for s in range(runs)])
    b = np.array([run_episode(p, rand, 4000, 2000 + s, record=[4000]).regret[-1] for s in range(runs)])
    se = np.sqrt(a.var(ddof=1) / runs + b.var(ddof=1) / runs)
    assert abs(a.mean() - b.mean()) < 4 * se
