"""Privacy of online submodular maximisation: the exact T-PRIV enumeration (and that the kernel samples that
very law), its planted bug, certified ε, the bandit δ-tail, and Algorithm 4's node noise and sensitivity."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from privopt.online.osm import parameters as par
from privopt.online.osm.coverage import Stream
from privopt.online.osm.enumeration import TPRIV, output_law, tpriv_functions, tpriv_row
from privopt.online.osm.privacy import (advanced_composition, bandit_tail, eps_cert, is_certified, log10_binom_tail,
                                        nominal_eps)
from privopt.online.osm.submodular_max import run_full_information

ETAS = (0.05, 0.2, 0.5, 1.0)


@pytest.mark.parametrize("eta", ETAS)
def test_tpriv_law_sums_to_one_and_respects_the_pure_bound(eta):
    row = tpriv_row(eta)
    assert row["outputs"] == 6561
    assert abs(row["sum_P"] - 1) <= 1e-12 and abs(row["sum_P_prime"] - 1) <= 1e-12
    assert row["max_log_ratio"] <= row["pure_bound"]
    assert row["max_log_ratio"] > 0.3 * row["pure_bound"]  # the neighbours do differ (not a shift-invariant change)


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_tpriv_at_the_papers_rate_has_no_delta(eps):
    eta = par.fi_eta(eps, TPRIV["k"], TPRIV["T"], 1e-6)
    row = tpriv_row(eta, eps)
    assert row["delta_at_eps"] == 0.0 and row["max_log_ratio"] <= row["pure_bound"] <= eps


@pytest.mark.parametrize("eta", ETAS)
def test_planted_bug_scaled_gains_is_caught(eta):
    row = tpriv_row(eta, gain_scale=3.0)
    assert row["max_log_ratio"] > row["pure_bound"]


def _tpriv_stream(neighbour: bool) -> tuple[np.ndarray, Stream]:
    """T-PRIV as a coverage mixture: types 0, 1, 2 cover items 0, 1, 2; f_t = ½·1{0∈S} + ½·1{1∈S} (t ≠ 2),
    f_2 = 1{0∈S} (or 1{2∈S} for the neighbour)."""
    P = np.eye(3)
    ptr, ids, w = [0], [], []
    for t in range(TPRIV["T"]):
        if t + 1 == TPRIV["t0"]:
            ids += [2 if neighbour else 0]
            w += [1.0]
        else:
            ids += [0, 1]
            w += [0.5, 0.5]
        ptr.append(len(ids))
    return P, Stream.mixture(ptr, ids, w)


@pytest.mark.parametrize("neighbour", [False, True])
def test_the_kernel_samples_the_enumerated_law(neighbour):
    """The privacy check applies to the code that runs: FI-DP's kernel on the T-PRIV instance draws output
    sequences with the enumerated probabilities (chi-square over all 6561 sequences, fixed seeds)."""
    eta = 0.5
    P, stream = _tpriv_stream(neighbour)
    R = 100_000
    states = np.random.default_rng([61, int(neighbour)]).integers(1, 2**63, (R, 4), dtype=np.uint64)
    runs = run_full_information(P, stream, TPRIV["k"], TPRIV["T"], np.full(R, eta), states, record_plays=True)
    index = np.zeros(R, dtype=np.int64)
    for t in range(TPRIV["T"]):
        for i in range(TPRIV["k"]):
            index = index * 3 + runs.plays[:, t, i]
    law = output_law(tpriv_functions(neighbour), 3, TPRIV["k"], eta)
    counts = np.bincount(index, minlength=law.size)
    expected = R * law
    big = expected >= 5
    obs, exp = counts[big], expected[big]
    if (~big).any():
        obs, exp = np.append(obs, counts[~big].sum()), np.append(exp, expected[~big].sum())
    assert stats.chisquare(obs, exp).pvalue > 1e-4


def test_certified_eps_formula_and_its_limit():
    # with the paper's η the certified ε is ≈ ε/2 + ε²/(8k ln(k/δ))
    for k in (1, 3):
        L = math.log(k / 1e-6)
        for eps in (1.0, 10.0, 50.0):
            eta = par.fi_eta(eps, k, 10**6, 1e-6)
            assert eps_cert(eta, 10**6, k, 1e-6) == pytest.approx(eps / 2 + eps**2 / (8 * k * L), rel=0.02)
            assert nominal_eps(eta, 10**6, k, 1e-6) == pytest.approx(eps, rel=1e-12)
        # certified up to about 4k ln(k/δ), not beyond 5k ln(k/δ)
        assert is_certified(3 * k * L, eps_cert(par.fi_eta(3 * k * L, k, 10**5, 1e-6), 10**5, k, 1e-6))
        assert not is_certified(5 * k * L, eps_cert(par.fi_eta(5 * k * L, k, 10**5, 1e-6), 10**5, k, 1e-6))
    assert eps_cert(0.0, 100, 2, 1e-6) == 0.0
    assert advanced_composition(0.1, 1, 0.5) == pytest.approx(math.sqrt(2 * math.log(2)) * 0.1 + 0.1 * math.expm1(0.1))
    # SG-NP's η-equivalent nominal ε does not depend on T (spec §2 remark)
    e1 = nominal_eps(par.sg_eta(3, 30, 1000), 1000, 3, 1e-6)
    e2 = nominal_eps(par.sg_eta(3, 30, 10**6), 10**6, 3, 1e-6)
    assert e1 == pytest.approx(e2) == pytest.approx(3**1.5 * math.sqrt(32 * math.log(30) * math.log(3 / 1e-6)))


def test_bandit_tail_exact_against_scipy_and_bounds():
    # moderate values: the exact tail is scipy's survival function
    assert log10_binom_tail(30, 200, 0.1) == pytest.approx(math.log10(stats.binom.sf(29, 200, 0.1)), rel=1e-10)
    for T in (10**4, 3 * 10**4, 10**5, 10**6):
        tail = bandit_tail(T, par.practical_gamma(T))
        assert tail["log10_exact"] <= tail["log10_hoeffding"]
        assert tail["log10_exact"] <= tail["log10_kl"] + 1e-9  # Chernoff–KL is an upper bound
    # the paper's e^{−8γ²T} is not an upper bound at γ ≈ 0.093 (spec ambiguity 5)
    t = bandit_tail(10**4, par.practical_gamma(10**4))
    assert t["log10_exact"] > t["log10_paper"] and round(t["log10_exact"]) == -179


def test_alg4_node_noise_is_l2_laplace():
    from privopt.fastrng import FastGenerator
    from privopt.online.osm.kernels import l2_laplace_block

    n, lam = 6, 0.7
    out = np.zeros((20_000, n))
    l2_laplace_block(FastGenerator(np.random.SeedSequence(71)).state, lam, out)
    radius = np.linalg.norm(out, axis=1)
    assert stats.kstest(radius, stats.gamma(n, scale=lam).cdf).pvalue > 1e-3
    direction = out / radius[:, None]
    # uniform on the sphere: mean 0 and covariance I/n within 5 standard errors
    assert np.abs(direction.mean(axis=0)).max() < 5 / math.sqrt(20_000 * n)
    np.testing.assert_allclose(np.cov(direction.T), np.eye(n) / n, atol=5 * math.sqrt(2 / 20_000) / n)


def test_alg4_sensitivity_covers_every_pair_of_gradients():
    """Δ₂ = 2G bounds ‖∇F_t(x) − ∇F'_t(x)‖ for any two types at any x (so the node noise is calibrated);
    a planted bug using Δ₂ = G/2 is caught by the same check."""
    from privopt.experiments.perezsalazar2021.syn import click_model
    from privopt.online.osm.kernels import _gradient  # noqa: PLC2701
    from privopt.online.osm.dr_submodular import alg4_params

    _, P = click_model(30, 20, 3, 0.02, 0)
    p = alg4_params(P, 3, 1000, 10.0, 1e-3)
    rng = np.random.default_rng(7)
    worst = 0.0
    c1, c2, pre = np.empty(30), np.empty(30), np.empty(30)
    for _ in range(300):
        x = np.clip(rng.uniform(-0.2, 1.2, 30), 0, 1)
        m1, m2 = rng.integers(0, 20, 2)
        _gradient(P, m1, x, 30, pre, c1)
        _gradient(P, m2, x, 30, pre, c2)
        worst = max(worst, np.linalg.norm(c1 - c2))
    assert worst <= p.sensitivity
    assert worst > p.sensitivity / 4  # the buggy Δ₂ = G/2 would be exceeded
    assert p.lam == pytest.approx(p.sensitivity * p.K * p.levels / 10.0)
