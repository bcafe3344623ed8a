"""Noise samplers: Bartlett Wishart (spec §4.1) and symmetric Gaussian nodes (§5.1), numpy and numba
twins (the random variates themselves are tested in test_fastrng.py)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from privopt.fastrng import FastGenerator
from privopt.mechanisms.gaussian import (
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
