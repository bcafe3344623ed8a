"""Exponential mechanism (spec decomposable-submodular.md §1, §2.5)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from privopt.mechanisms.exponential import (
    exponential_logits,
    exponential_choices,
    exponential_mechanism,
    exponential_probabilities,
    gumbel_argmax,
)

ALPHA = 1e-3


def chi2_ok(counts: np.ndarray, probs: np.ndarray) -> bool:
    """Pearson goodness of fit at level ALPHA over the cells with positive probability."""
    keep = probs > 0
    n = counts.sum()
    expected = n * probs[keep]
    stat = ((counts[keep] - expected) ** 2 / expected).sum()
    return stat < stats.chi2.ppf(1 - ALPHA, df=keep.sum() - 1)


def sample_counts(scores, eps, n_draws, seed, **kw) -> np.ndarray:
    rng = np.random.default_rng(seed)
    counts = np.zeros(len(scores), dtype=np.int64)
    for _ in range(n_draws):
        counts[exponential_mechanism(scores, eps, rng, **kw)] += 1
    return counts


SCORES = np.array([0.0, 10.0, 20.0, 30.0, 5.0, 27.5])


def test_probabilities_closed_form():
    eps = 0.1
    w = np.exp(eps * SCORES / 2)
    np.testing.assert_allclose(exponential_probabilities(SCORES, eps), w / w.sum(), rtol=1e-13)
    # sensitivity rescales the exponent: exp(eps q / (2 Delta))
    w3 = np.exp(eps * SCORES / 6)
    np.testing.assert_allclose(exponential_probabilities(SCORES, eps, sensitivity=3.0), w3 / w3.sum(), rtol=1e-13)
    # shift invariance
    np.testing.assert_allclose(
        exponential_probabilities(SCORES + 1e3, eps), exponential_probabilities(SCORES, eps), rtol=1e-12
    )


def test_probabilities_mask_and_limits():
    mask = np.array([True, False, True, False, True, True])
    p = exponential_probabilities(SCORES, 0.1, mask=mask)
    assert (p[~mask] == 0).all()
    w = np.exp(0.1 * SCORES[mask] / 2)
    np.testing.assert_allclose(p[mask], w / w.sum(), rtol=1e-13)
    np.testing.assert_allclose(exponential_probabilities(SCORES, 0.0), np.full(6, 1 / 6))
    # eps = inf: uniform over the maximisers; huge finite eps does not overflow
    q = np.array([1.0, 3.0, 3.0, 2.0])
    np.testing.assert_array_equal(exponential_probabilities(q, np.inf), [0, 0.5, 0.5, 0])
    np.testing.assert_allclose(exponential_probabilities(q, 1e300), [0, 0.5, 0.5, 0])
    lg = exponential_logits(q, 1.7e308)
    assert not np.isnan(lg).any() and (lg[[1, 2]] == 0).all() and (lg[[0, 3]] < -1e300).all()


def test_dp_ratio_bound():
    """Neighbouring score vectors (|q - q'| <= Delta) change every probability by <= e^eps."""
    rng = np.random.default_rng(5)
    eps, delta_q = 0.7, 2.0
    for _ in range(200):
        q = rng.uniform(0, 10, size=7)
        q2 = q + rng.uniform(-delta_q, delta_q, size=7)
        p = exponential_probabilities(q, eps, sensitivity=delta_q)
        p2 = exponential_probabilities(q2, eps, sensitivity=delta_q)
        assert (p <= np.exp(eps) * p2 * (1 + 1e-12)).all()


def test_frequencies_match_probabilities():
    eps = 0.1
    probs = exponential_probabilities(SCORES, eps)
    counts = sample_counts(SCORES, eps, 20_000, seed=1)
    assert chi2_ok(counts, probs)


def test_frequencies_with_mask_and_sensitivity():
    mask = np.array([True, True, False, True, False, True])
    probs = exponential_probabilities(SCORES, 0.4, sensitivity=2.0, mask=mask)
    counts = sample_counts(SCORES, 0.4, 20_000, seed=2, sensitivity=2.0, mask=mask)
    assert (counts[~mask] == 0).all()
    assert chi2_ok(counts, probs)


def test_chi2_detects_wrong_law():
    """The goodness-of-fit check is able to fail: samples at eps vs probabilities at 2 eps."""
    counts = sample_counts(SCORES, 0.1, 20_000, seed=1)
    assert not chi2_ok(counts, exponential_probabilities(SCORES, 0.2))
    assert not chi2_ok(counts, exponential_probabilities(SCORES, 0.1, sensitivity=2.0))


def test_eps_zero_is_uniform():
    counts = sample_counts(SCORES, 0.0, 12_000, seed=3)
    assert chi2_ok(counts, np.full(6, 1 / 6))


def test_huge_eps_picks_argmax():
    rng = np.random.default_rng(4)
    for _ in range(200):
        q = rng.uniform(0, 1, size=9)
        assert exponential_mechanism(q, 1e12, rng) == int(np.argmax(q))
        assert exponential_mechanism(q, np.inf, rng) == int(np.argmax(q))


def test_single_candidate_and_reproducibility():
    mask = np.zeros(6, dtype=bool)
    mask[4] = True
    assert exponential_mechanism(SCORES, 0.1, np.random.default_rng(0), mask=mask) == 4
    a = [exponential_mechanism(SCORES, 0.1, np.random.default_rng(9)) for _ in range(3)]
    b = [exponential_mechanism(SCORES, 0.1, np.random.default_rng(9)) for _ in range(3)]
    assert a == b


def test_choices_are_the_calls_outputs():
    """k calls of exponential_mechanism on one stream = exponential_choices of the k rows drawn at once, bit for bit
    (masked, one candidate, ε = inf ties, a huge ε whose logits underflow to −inf), and the stream ends in the same
    state."""
    mask = np.array([True, False, True, True, False, True])
    one = np.zeros(6, dtype=bool)
    one[2] = True
    for eps, m in ((0.7, None), (0.7, mask), (np.inf, None), (1e300, mask), (0.3, one)):
        c = int(m.sum()) if m is not None else 6
        calls, rows = np.random.default_rng(5), np.random.default_rng(5)
        expected = [exponential_mechanism(SCORES, eps, calls, mask=m) for _ in range(500)]
        got = exponential_choices(SCORES, eps, rows.gumbel(size=(500, c if c > 1 else 0)), mask=m)
        assert got.dtype == np.int64 and got.tolist() == expected
        assert calls.random() == rows.random()
    with pytest.raises(ValueError, match="columns"):
        exponential_choices(SCORES, 0.7, np.zeros((3, 5)))
    with pytest.raises(ValueError, match="two-dimensional"):
        exponential_choices(SCORES, 0.7, np.zeros(6))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(scores=SCORES, eps=-0.1), "eps"),
        (dict(scores=SCORES, eps=float("nan")), "eps"),
        (dict(scores=np.array([]), eps=0.1), "empty"),
        (dict(scores=SCORES, eps=0.1, mask=np.zeros(6, dtype=bool)), "empty"),
        (dict(scores=np.array([1.0, np.nan]), eps=0.1), "NaN"),
        (dict(scores=np.array([1.0, np.inf]), eps=0.1), "finite"),
        (dict(scores=SCORES, eps=0.1, sensitivity=0.0), "sensitivity"),
        (dict(scores=SCORES, eps=0.1, mask=np.ones(5, dtype=bool)), "shape"),
        (dict(scores=SCORES, eps=0.1, mask=np.ones(6, dtype=int)), "boolean"),
        (dict(scores=SCORES.reshape(2, 3), eps=0.1), "one-dimensional"),
    ],
)
def test_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        exponential_mechanism(rng=np.random.default_rng(0), **kwargs)
    with pytest.raises(ValueError, match=match):
        exponential_probabilities(**kwargs)


def test_nan_outside_mask_is_ignored():
    q = np.array([1.0, np.nan, 2.0])
    mask = np.array([True, False, True])
    p = exponential_probabilities(q, 1.0, mask=mask)
    assert p[1] == 0 and np.isclose(p.sum(), 1)


def test_gumbel_argmax_kernel():
    rng = np.random.default_rng(6)
    q = SCORES
    eps = 0.1
    logits = eps * q / 2
    mask = np.array([True, True, True, False, True, True])
    counts = np.zeros(6, dtype=np.int64)
    for _ in range(20_000):
        u = rng.random(6)
        k = gumbel_argmax(logits, mask, u)
        # agrees with the numpy Gumbel-max on the same noise
        ref = np.where(mask, logits - np.log(-np.log(u)), -np.inf)
        assert k == int(np.argmax(ref))
        counts[k] += 1
    assert counts[3] == 0
    assert chi2_ok(counts, exponential_probabilities(q, eps, mask=mask))
    assert gumbel_argmax(logits, np.zeros(6, dtype=np.bool_), rng.random(6)) == -1
