"""Continual counters (privopt.mechanisms.counting, issue 27): exact variance, streams, privacy.

Every counter is checked four ways, each of which can fail:

* the streamed noise equals the explicit linear form N = B z on the same seed noises (z redrawn from a
  FastGenerator with the same seed in the documented draw order);
* the variance formula of :func:`noise_variance` equals v·diag(B Bᵀ), and for the tree family the independent
  closed forms (popcount, Honaker's 2^ℓ/(2^{ℓ+1}−1), Σ c_k² of the full square root);
* sample variances at fixed seeds lie within a band derived from the law (6 standard deviations of the sample
  variance, with the excess kurtosis of the seed noise bounding that of any weighted sum of seeds);
* privacy: B C = A (so the stream is a post-processing of C x + z) and the encoder's column norms give a
  guarantee within the claim; a planted bug (seed scale too small by √2) is caught for every counter, by the
  exact worst-case ℓ2-Laplace privacy loss (pure ε) or the exact Gaussian ε of the seed mechanism.
"""

from __future__ import annotations

import dataclasses
import math

import numba
import numpy as np
import pytest

from privopt.audit.stats import gaussian_exact_eps
from privopt.fastrng import FastGenerator
from privopt.mechanisms import counting as cc
from privopt.mechanisms.laplace import l2_laplace, l2_laplace_node_sampler, l2_laplace_privacy_loss
from privopt.mechanisms.tree import TreeAggregator

EPS, DELTA = 1.0, 1e-3
CASES = [(name, noise) for name in cc.COUNTERS for noise in cc.NOISES[name]]


def _counter(name, noise, T, p, **kw):
    return cc.make_counter(name, T, p, 1.5, EPS, DELTA if noise == "gaussian" else None, noise=noise, **kw)


def _seed_rows(counter, K, seed):
    """The K seed noises a counter draws, redrawn by the numpy reference samplers on the same seed."""
    fg = FastGenerator(seed)
    if counter.noise == "laplace":
        return np.array([l2_laplace(fg, counter.p, counter.scale) for _ in range(K)]).reshape(K, counter.p)
    return np.array([counter.scale * fg.standard_normal(counter.p) for _ in range(K)]).reshape(K, counter.p)


# ----------------------------------------------------------------------------- streams
@pytest.mark.parametrize("name,noise", CASES)
@pytest.mark.parametrize("T", [1, 2, 7, 16, 37])
def test_stream_equals_the_explicit_linear_form(name, noise, T):
    c = _counter(name, noise, T, 3)
    B, C = cc.linear_maps(c)
    N = cc.prefix_noise(c, FastGenerator(11))
    np.testing.assert_allclose(N, B @ _seed_rows(c, B.shape[1], 11), rtol=1e-11, atol=1e-11 * c.scale)


@numba.njit(cache=True)
def _counter_step(code, law, scale, p, n, params, ibuf, buf, rng_state, gbuf, t, out):
    """N(t) into ``out[:p]`` after item t: the step of any counter and law (the fields of a CounterState, then t)."""
    if code == 0:
        cc.tree_step(t, law, scale, p, n, buf, rng_state, gbuf, out)
    elif code == 1:
        cc.honaker_step(t, law, scale, p, n, params, buf, rng_state, gbuf, out)
    elif code == 2:
        cc.sqrt_step(t, law, scale, p, n, params, buf, rng_state, gbuf, out)
    else:
        cc.smooth_step(t, law, scale, p, n, ibuf, buf, rng_state, gbuf, out)


@pytest.mark.parametrize("name,noise", CASES)
def test_stepping_the_state_gives_prefix_noise(name, noise):
    c = _counter(name, noise, 50, 2)
    st = cc.init_state(c, 5)
    out = np.empty((c.T, c.p))
    for t in range(1, c.T + 1):
        _counter_step(*st, t, out[t - 1])
    assert np.array_equal(out, cc.prefix_noise(c, 5))
    if name != "sqrt":  # the steps the learners call, the law fixed
        fixed = cc.laplace_counter_step if noise == "laplace" else cc.gaussian_counter_step
        st = cc.init_state(c, 5)
        again = np.empty((c.T, c.p))
        for t in range(1, c.T + 1):
            fixed(st.code, st.scale, st.p, st.n, st.params, st.ibuf, st.buf, st.rng_state, st.gbuf, t, again[t - 1])
        assert np.array_equal(again, out)


def test_banded_sqrt_streams_for_every_band_count():
    for b in (1, 2, 3, 8, 40):
        c = cc.make_counter("sqrt", 40, 2, 1.0, EPS, DELTA, bands=b)
        B, _ = cc.linear_maps(c)
        np.testing.assert_allclose(cc.prefix_noise(c, 3), B @ _seed_rows(c, 40, 3), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("noise", ["laplace", "gaussian"])
def test_tree_counter_is_tree_py_dyadic_bit_for_bit(noise):
    """The "tree" counter is TreeAggregator(construction="dyadic") with the same node noises."""
    T, p = 45, 3
    c = _counter("tree", noise, T, p)
    if noise == "laplace":
        sampler = l2_laplace_node_sampler(p, c.scale)
    else:
        def sampler(rng):
            return c.scale * rng.standard_normal(p)
    agg = TreeAggregator(T, (p,), sampler, FastGenerator(9), construction="dyadic")
    ref = np.empty((T, p))
    for t in range(T):
        agg.add(np.zeros(p))
        ref[t] = agg.noise()
    assert np.array_equal(cc.prefix_noise(c, FastGenerator(9)), ref)


def test_no_privacy_means_no_noise_and_no_draws():
    for name, noise in CASES:
        c = cc.make_counter(name, 20, 2, 1.0, math.inf, DELTA if noise == "gaussian" else None, noise=noise)
        fg = FastGenerator(1)
        before = fg.state.copy()
        assert c.scale == 0.0 and not cc.prefix_noise(c, fg).any()
        assert np.array_equal(fg.state, before)


# ----------------------------------------------------------------------------- exact variance
@pytest.mark.parametrize("name,noise", CASES)
@pytest.mark.parametrize("T", [1, 3, 16, 37])
def test_variance_formula_is_the_diagonal_of_B_Bt(name, noise, T):
    c = _counter(name, noise, T, 4)
    B, _ = cc.linear_maps(c)
    np.testing.assert_allclose(cc.noise_variance(c), cc.seed_variance(c) * np.sum(B * B, axis=1), rtol=1e-12)


def test_closed_forms():
    T = 64
    t = np.arange(1, T + 1)
    tree = _counter("tree", "gaussian", T, 1)
    pop = np.array([bin(x).count("1") for x in t])
    np.testing.assert_allclose(cc.noise_variance(tree), tree.scale**2 * pop, rtol=1e-14)
    lap = _counter("tree", "laplace", T, 5)
    np.testing.assert_allclose(cc.noise_variance(lap), 6 * lap.scale**2 * pop, rtol=1e-14)  # (p+1)λ²
    hon = _counter("honaker", "gaussian", T, 1)
    v = cc.noise_variance(hon) / hon.scale**2
    # a single complete node of level ℓ (t = 2^ℓ): 2^ℓ/(2^{ℓ+1} − 1) → 1/2
    for lv in range(7):
        assert v[2**lv - 1] == pytest.approx(2**lv / (2 ** (lv + 1) - 1), rel=1e-14)
    assert v[0] == 1.0 and v[1] == pytest.approx(2 / 3) and v[3] == pytest.approx(4 / 7)
    assert (cc.noise_variance(hon) <= cc.noise_variance(tree) + 1e-12).all()
    full = _counter("sqrt", "gaussian", T, 1)
    ck = np.array([math.comb(2 * k, k) / 4**k for k in range(T)])
    np.testing.assert_allclose(cc.noise_variance(full), full.scale**2 * np.cumsum(ck**2), rtol=1e-12)
    sm = _counter("smooth", "gaussian", T, 1)
    assert np.all(cc.noise_variance(sm) == sm.weight * sm.scale**2)


# ----------------------------------------------------------------------------- sample variance
def _excess_kurtosis(counter):
    """Excess kurtosis of one seed coordinate: 0 (Gaussian), 6/(p+1) (ℓ2-Laplace in R^p: E b_1⁴ = 3(p+1)(p+3)λ⁴).
    A weighted sum of independent seeds has excess kurtosis at most this."""
    return 0.0 if counter.noise == "gaussian" else 6.0 / (counter.p + 1)


@pytest.mark.parametrize("name,noise", CASES)
def test_sample_variance_matches_the_formula(name, noise):
    T, p, R = 32, 3, 2000
    c = _counter(name, noise, T, p)
    fg = FastGenerator(2024)
    draws = np.stack([cc.prefix_noise(c, fg)[:, 0] for _ in range(R)])  # coordinate 0 of R independent streams
    ratio = np.mean(draws**2, axis=0) / cc.noise_variance(c)  # mean is 0 by symmetry: use the second moment
    tol = 6.0 * math.sqrt((2.0 + _excess_kurtosis(c)) / R)
    assert np.all(np.abs(ratio - 1.0) <= tol), (ratio.min(), ratio.max(), tol)


# ----------------------------------------------------------------------------- privacy
def _worst_laplace_loss(counter, C, s):
    """Exact privacy loss of the seed release C x + z (ℓ2-Laplace rows) at the output that maximises it, for
    item s changed by Δ along e_1: y_j = C_j x − R·sign(C_js)·e_1 with R large (x = 0 w.l.o.g.)."""
    p, lam, delta_vec = counter.p, counter.scale, np.zeros(counter.p)
    delta_vec[0] = counter.sensitivity
    loss = 0.0
    for j in range(C.shape[0]):
        y = np.zeros(p)
        y[0] = -1e6 * np.sign(C[j, s])
        loss += float(l2_laplace_privacy_loss(y, np.zeros(p), C[j, s] * delta_vec, lam))
    return loss


def _guarantee_holds(counter):
    """Independent of certify(): B C = A, then the worst case over the items s (enumerated)."""
    B, C = cc.linear_maps(counter)
    assert np.allclose(B @ C, np.tril(np.ones((counter.T, counter.T))), atol=1e-9)
    if counter.noise == "laplace":
        worst = max(_worst_laplace_loss(counter, C, s) for s in range(counter.T))
        return worst <= counter.eps * (1 + 1e-6)
    mu = max(np.linalg.norm(C[:, s]) for s in range(counter.T)) * counter.sensitivity / counter.scale
    return gaussian_exact_eps(mu, counter.delta) <= counter.eps * (1 + 1e-6)


@pytest.mark.parametrize("name,noise", CASES)
@pytest.mark.parametrize("T", [1, 5, 16, 37])
def test_calibration_holds_and_the_sqrt2_bug_is_caught(name, noise, T):
    c = _counter(name, noise, T, 2)
    assert _guarantee_holds(c)
    assert cc.certify(c)["ok"]
    planted = dataclasses.replace(c, scale=c.scale / math.sqrt(2.0))
    assert not _guarantee_holds(planted)
    assert not cc.certify(planted)["ok"]


@pytest.mark.parametrize("name,noise", CASES)
def test_closed_form_sensitivity_is_the_encoder_column_norm(name, noise):
    for T in (1, 2, 5, 16, 31, 37, 64):
        c = _counter(name, noise, T, 1)
        l1, l2 = cc.encoder_norms(name, T, bands=c.bands, height=c.height, weight=c.weight)
        cert = cc.certify(c)
        if name == "smooth":  # h − k is a bound, reached when the last leaf uses the first item's nodes
            assert cert["l1"] <= l1 + 1e-12 and cert["l2"] <= l2 + 1e-12
        else:
            assert cert["l1"] == pytest.approx(l1, rel=1e-12) and cert["l2"] == pytest.approx(l2, rel=1e-12)


def test_smooth_bound_is_reached_on_a_full_tree():
    # T + 1 = C(h, k): every leaf of weight k is used, so the first item's h − k zero bits all count
    for T, noise in ((math.comb(8, 4) - 1, "gaussian"), (math.comb(10, 4) - 1, "gaussian")):
        c = _counter("smooth", noise, T, 1)
        if math.comb(c.height, c.weight) == T + 1:
            assert cc.certify(c)["l1"] == c.height - c.weight


def test_analytic_gaussian_is_tight():
    for sens, eps, delta in ((1.0, 1.0, 1e-5), (3.0, 0.1, 0.1), (0.5, 8.0, 1e-9)):
        sigma = cc.analytic_gaussian_sigma(sens, eps, delta)
        assert cc.gaussian_delta(sens / sigma, eps) <= delta
        assert cc.gaussian_delta(sens / (sigma * (1 - 1e-6)), eps) > delta
        assert gaussian_exact_eps(sens / sigma, delta) == pytest.approx(eps, rel=1e-6)


def test_choices_are_validated():
    with pytest.raises(ValueError, match="ℓ1"):
        cc.make_counter("sqrt", 10, 1, 1.0, 1.0)
    with pytest.raises(ValueError, match="unknown counter"):
        cc.make_counter("bogus", 10, 1, 1.0, 1.0)
    with pytest.raises(ValueError, match="bands"):
        cc.make_counter("tree", 10, 1, 1.0, 1.0, bands=3)
    with pytest.raises(ValueError, match="delta"):
        cc.make_counter("tree", 10, 1, 1.0, 1.0, 1e-3, noise="laplace")
    with pytest.raises(ValueError):
        cc.make_counter("tree", 0, 1, 1.0, 1.0)
    with pytest.raises(ValueError):
        cc.make_counter("sqrt", 10, 1, 1.0, 1.0, 0.0)
    c = cc.make_counter("tree", 10, 1, 1.0, 1.0, scale=2.5)
    assert c.scale == 2.5 and cc.certify(c)["eps"] == pytest.approx(4 / 2.5)


@pytest.mark.parametrize("name", ["tree", "honaker", "smooth", "sqrt"])
def test_peak_variance_is_the_largest_variance_of_the_table(name):
    """peak_variance (by the bits of T, no O(T) table) equals max_t of noise_variance, enumerated, for every T up
    to 300 and a few around powers of two."""
    for T in [*range(1, 301), 1023, 1024, 1025, 4097]:
        c = cc.make_counter(name, T, 3, 1.0, 1.0, 0.1)
        want = cc.noise_variance(c).max()
        assert cc.peak_variance(c) == pytest.approx(want, rel=1e-12, abs=0), (name, T)
