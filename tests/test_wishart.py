"""Noise samplers: Bartlett Wishart (spec §4.1), symmetric Gaussian nodes (§5.1) and the fast
random-variate core they share with the bandit kernels (xoshiro256++, ziggurat normal, gamma)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from privopt.mechanisms.gaussian import (
    FastGenerator,
    packed_size,
    sym_gaussian_packed_into,
    symmetric_gaussian,
    unpack_symmetric,
)
from privopt.mechanisms.wishart import (
    bartlett_packed_into,
    wishart_bartlett,
    wishart_mean,
    wishart_variance,
)

P_MIN = 1e-3  # fixed seeds: these are deterministic checks of exact laws


# ----------------------------------------------------------------------------- random-variate core
def test_fast_generator_is_deterministic_and_seeded_by_seed_sequence():
    ss = np.random.SeedSequence(123, spawn_key=(4,))
    a, b = FastGenerator(ss), FastGenerator(np.random.SeedSequence(123, spawn_key=(4,)))
    np.testing.assert_array_equal(a.state, ss.generate_state(4, np.uint64))
    np.testing.assert_array_equal(a.standard_normal(50), b.standard_normal(50))
    assert not np.array_equal(FastGenerator(1).random(5), FastGenerator(2).random(5))
    # array draws == the same number of scalar draws
    c, e = FastGenerator(7), FastGenerator(7)
    np.testing.assert_array_equal(c.standard_normal(6), [e.standard_normal() for _ in range(6)])


def test_uniform_and_normal_laws():
    g = FastGenerator(2024)
    u = g.random(200_000)
    assert u.min() >= 0.0 and u.max() < 1.0
    assert stats.kstest(u, "uniform").pvalue > P_MIN
    z = g.standard_normal(400_000)
    assert stats.kstest(z, "norm").pvalue > P_MIN
    # tail beyond the ziggurat base r = 3.654 (exact tail branch) at its exact rate, within 5 SE
    r = 3.6541528853610088
    p = 2 * stats.norm.sf(r)
    assert abs(np.mean(np.abs(z) > r) - p) < 5 * np.sqrt(p / z.size)
    assert abs(z.mean()) < 5 / np.sqrt(z.size)
    assert abs(z.var() - 1) < 5 * np.sqrt(2 / z.size)


@pytest.mark.parametrize("df", [0.7, 3.0, 12.5, 139_115.0])
def test_chisquare_law(df):
    x = FastGenerator(31).chisquare(df, 50_000)
    assert stats.kstest(x, "chi2", args=(df,)).pvalue > P_MIN


# ----------------------------------------------------------------------------- Wishart (Bartlett)
def _moment_check(draws: np.ndarray, mean: np.ndarray, var: np.ndarray, z: float = 5.0) -> None:
    n = draws.shape[0]
    assert np.all(np.abs(draws.mean(axis=0) - mean) < z * np.sqrt(var / n))
    # SE of a sample variance ≈ sqrt((μ4 − σ⁴)/n), with μ4 estimated from the draws
    dev = draws - draws.mean(axis=0)
    se_var = np.sqrt(np.maximum((dev**4).mean(axis=0) - var**2, 0.0) / n)
    assert np.all(np.abs(draws.var(axis=0) - var) < z * se_var + 1e-12)


@pytest.mark.parametrize("scale", [2.0, np.array([[2.0, 0.5, 0.0], [0.5, 1.0, -0.3], [0.0, -0.3, 1.5]])])
def test_bartlett_moments_match_theory_and_scipy(scale):
    df, dim, n = 7, 3, 40_000
    draws = wishart_bartlett(np.random.default_rng(3), df, dim, scale, size=n)
    sigma = scale * np.eye(dim) if np.ndim(scale) == 0 else scale
    mean, var = wishart_mean(df, sigma), wishart_variance(df, sigma)
    # theory agrees with scipy's Wishart
    np.testing.assert_allclose(mean, stats.wishart(df, sigma).mean())
    np.testing.assert_allclose(var, stats.wishart(df, sigma).var())
    _moment_check(draws, mean, var)
    assert np.all(np.linalg.eigvalsh(draws) > 0)


def test_bartlett_trace_is_chi_square():
    """W ~ W_D(I, k) ⇒ tr W ~ χ²_{kD} and W_00 ~ χ²_k (exact laws; KS)."""
    df, dim = 9, 4
    draws = wishart_bartlett(FastGenerator(99), df, dim, 1.0, size=20_000)
    assert stats.kstest(np.trace(draws, axis1=1, axis2=2), "chi2", args=(df * dim,)).pvalue > P_MIN
    assert stats.kstest(draws[:, 0, 0], "chi2", args=(df,)).pvalue > P_MIN
    ref = stats.wishart(df, np.eye(dim)).rvs(20_000, random_state=np.random.default_rng(1))
    assert stats.ks_2samp(draws[:, 1, 2], ref[:, 1, 2]).pvalue > P_MIN


def test_bartlett_paper_scale_moments():
    """k = 139 115, L̃² = 2 (spec §4.1): E η = 2k I, Var η_ii = 2k·4, Var η_ij = k·4."""
    k, dim = 139_115, 6
    draws = wishart_bartlett(FastGenerator(5), k, dim, 2.0, size=4000)
    _moment_check(draws, wishart_mean(k, 2.0 * np.eye(dim)), wishart_variance(k, 2.0 * np.eye(dim)))


@pytest.mark.parametrize("skip_corner", [False, True])
def test_numba_bartlett_equals_numpy_bartlett(skip_corner):
    df, dim, scale = 139_115.0, 6, 2.0
    g1, g2 = FastGenerator(17), FastGenerator(17)
    a = np.zeros((dim, dim))
    packed = np.zeros(packed_size(dim))
    for _ in range(20):
        bartlett_packed_into(g1.state, df, dim, scale, skip_corner, a, packed)
        ref = wishart_bartlett(g2, df, dim, scale, skip_corner=skip_corner)
        got = unpack_symmetric(packed[: packed_size(dim, skip_corner)], dim)
        if skip_corner:
            ref[-1, -1] = 0.0
        np.testing.assert_allclose(got, ref, rtol=1e-13)
    np.testing.assert_array_equal(g1.state, g2.state)  # identical stream consumption


# ----------------------------------------------------------------------------- symmetric Gaussian
def test_symmetric_gaussian_variances():
    sigma, dim, n = 3.0, 4, 50_000
    draws = symmetric_gaussian(FastGenerator(8), dim, sigma, size=n)
    np.testing.assert_array_equal(draws, np.swapaxes(draws, 1, 2))
    var = sigma**2 * (1.0 + np.eye(dim))
    _moment_check(draws, np.zeros((dim, dim)), var)
    # the (Z' + Z'ᵀ)/√2 construction has the same law
    zp = np.random.default_rng(0).standard_normal((n, dim, dim)) * sigma
    sym = (zp + np.swapaxes(zp, 1, 2)) / np.sqrt(2)
    assert stats.ks_2samp(sym[:, 0, 0], draws[:, 0, 0]).pvalue > P_MIN
    assert stats.ks_2samp(sym[:, 1, 3], draws[:, 1, 3]).pvalue > P_MIN


@pytest.mark.parametrize("skip_corner", [False, True])
def test_numba_symmetric_gaussian_equals_numpy(skip_corner):
    dim, sigma = 6, 153.34
    g1, g2 = FastGenerator(4), FastGenerator(4)
    packed = np.zeros(packed_size(dim))
    for _ in range(10):
        sym_gaussian_packed_into(g1.state, sigma, dim, skip_corner, packed)
        ref = symmetric_gaussian(g2, dim, sigma, skip_corner=skip_corner)
        np.testing.assert_array_equal(unpack_symmetric(packed[: packed_size(dim, skip_corner)], dim), ref)
    np.testing.assert_array_equal(g1.state, g2.state)
