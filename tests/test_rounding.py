"""Swap rounding and pairwise dependent rounding (spec decomposable-submodular.md §2.6)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from privopt.submodular.matroids import partition_matroid, uniform_matroid
from privopt.submodular.rounding import (
    marginals_from_bases,
    pairwise_round,
    round_fractional,
    swap_round,
    swap_round_distribution,
)

N_ROUNDS = 20_000
Z = 4.5  # tolerance in binomial standard errors


def random_bases(rng, matroid, T):
    """T random bases of a partition matroid (uniform within each part)."""
    out = []
    for _ in range(T):
        row = []
        for k, cap in enumerate(matroid.capacity):
            members = np.flatnonzero(matroid.part_of == k)
            row.extend(rng.choice(members, size=min(cap, members.size), replace=False).tolist())
        out.append(sorted(row))
    return np.array(out, dtype=np.int64)


def check_marginals(freq, y, n_rounds):
    se = np.sqrt(y * (1 - y) / n_rounds)
    exact = (y < 1e-12) | (y > 1 - 1e-12)
    assert np.all(np.abs(freq[exact] - np.round(y[exact])) == 0), (freq, y)
    assert np.all(np.abs(freq - y)[~exact] <= Z * se[~exact]), (freq, y, se)


def sample_marginals(fn, n, n_rounds, matroid):
    counts = np.zeros(n)
    for _ in range(n_rounds):
        S = fn()
        assert matroid.is_basis(S), S
        counts[S] += 1
    return counts / n_rounds


UNIFORM = uniform_matroid(8, 3)
PARTITION = partition_matroid([0, 0, 0, 1, 1, 1, 2, 2], [1, 2, 1])


@pytest.mark.parametrize("matroid", [UNIFORM, PARTITION], ids=["uniform", "partition"])
@pytest.mark.parametrize("weighting", ["equal", "random"])
def test_swap_round_marginals(matroid, weighting):
    rng = np.random.default_rng(101)
    T = 5
    bases = random_bases(rng, matroid, T)
    weights = np.full(T, 1 / T) if weighting == "equal" else rng.dirichlet(np.ones(T))
    y = marginals_from_bases(bases, weights, matroid.n)
    assert y.sum() == pytest.approx(matroid.rank)
    freq = sample_marginals(lambda: swap_round(bases, weights, matroid, rng), matroid.n, N_ROUNDS, matroid)
    check_marginals(freq, y, N_ROUNDS)


@pytest.mark.parametrize("matroid", [UNIFORM, PARTITION], ids=["uniform", "partition"])
def test_swap_round_exact_law(matroid):
    """Exact enumeration: a probability law over bases with marginals exactly y."""
    rng = np.random.default_rng(102)
    for trial in range(15):
        T = int(rng.integers(1, 5))
        bases = random_bases(rng, matroid, T)
        weights = rng.dirichlet(np.ones(T)) if trial % 2 else np.full(T, 0.2)
        law = swap_round_distribution(bases, weights, matroid)
        assert sum(law.values()) == pytest.approx(1.0, abs=1e-12)
        marg = np.zeros(matroid.n)
        for S, p in law.items():
            assert matroid.is_basis(list(S))
            marg[list(S)] += p
        np.testing.assert_allclose(marg, marginals_from_bases(bases, weights, matroid.n), atol=1e-12)


def test_sampler_matches_exact_law():
    rng = np.random.default_rng(103)
    bases = random_bases(rng, PARTITION, 3)
    weights = np.array([0.5, 0.3, 0.2])
    law = swap_round_distribution(bases, weights, PARTITION)
    counts = Counter(tuple(swap_round(bases, weights, PARTITION, rng).tolist()) for _ in range(10_000))
    assert set(counts) <= set(law)
    keys = [k for k in law if law[k] > 0]
    obs = np.array([counts.get(k, 0) for k in keys], dtype=float)
    exp = 10_000 * np.array([law[k] for k in keys])
    assert ((obs - exp) ** 2 / exp).sum() < stats.chi2.ppf(1 - 1e-3, len(keys) - 1)


A, B, C = 0, 1, 2
FIG2 = partition_matroid([0, 1, 1], [1, 1])
AB, AC = [A, B], [A, C]


@pytest.mark.parametrize("k_ab", range(8))
def test_figure2_exact(k_ab):
    """Spec §2.6: mixtures of {A,B} and {A,C} (T = 7, equal weights η = 1/7) give {A,B} w.p. y_B."""
    rng = np.random.default_rng(104 + k_ab)
    rows = [AB] * k_ab + [AC] * (7 - k_ab)
    rng.shuffle(rows)
    bases = np.array(rows)
    weights = np.full(7, 1 / 7)
    y = marginals_from_bases(bases, weights, 3)
    assert y[A] == pytest.approx(1.0) and y[B] == pytest.approx(k_ab / 7)
    law = swap_round_distribution(bases, weights, FIG2)
    assert law.get((A, B), 0.0) == pytest.approx(k_ab / 7, abs=1e-12)
    assert law.get((A, C), 0.0) == pytest.approx(1 - k_ab / 7, abs=1e-12)
    assert set(law) <= {(A, B), (A, C)}


def test_figure2_sampled_and_unequal_weights():
    rng = np.random.default_rng(110)
    bases = np.array([AB, AC, AC, AB, AC])
    weights = np.array([0.1, 0.3, 0.15, 0.25, 0.2])
    y_b = 0.35
    n_rounds = 10_000  # the swap case is also checked exactly in test_figure2_exact
    for method in ("swap", "pairwise"):
        n_ab = 0
        for _ in range(n_rounds):
            S = round_fractional(bases, weights, FIG2, rng, method=method)
            assert S.tolist() in (AB, AC)
            n_ab += S.tolist() == AB
        assert abs(n_ab / n_rounds - y_b) <= Z * math.sqrt(y_b * (1 - y_b) / n_rounds)


@pytest.mark.parametrize("matroid", [UNIFORM, PARTITION], ids=["uniform", "partition"])
def test_pairwise_round_marginals(matroid):
    rng = np.random.default_rng(120)
    bases = random_bases(rng, matroid, 7)
    y = marginals_from_bases(bases, np.full(7, 1 / 7), matroid.n)  # float drift from 1/7 included
    freq = sample_marginals(lambda: pairwise_round(y, matroid, rng), matroid.n, N_ROUNDS, matroid)
    check_marginals(freq, y, N_ROUNDS)


def test_pairwise_round_arbitrary_point():
    """A base-polytope point not built from the listed bases, with the two cases s <= 1 and s > 1."""
    rng = np.random.default_rng(121)
    M = partition_matroid([0, 0, 0, 0, 1, 1], [2, 1])
    y = np.array([0.9, 0.7, 0.3, 0.1, 0.25, 0.75])
    freq = sample_marginals(lambda: pairwise_round(y, M, rng), 6, N_ROUNDS, M)
    check_marginals(freq, y, N_ROUNDS)


def test_deterministic_cases():
    rng = np.random.default_rng(130)
    b = np.array([[1, 4, 6]])
    assert swap_round(b, [1.0], UNIFORM, rng).tolist() == [1, 4, 6]
    same = np.array([[6, 1, 4], [1, 4, 6], [4, 6, 1]])
    assert swap_round(same, [0.2, 0.3, 0.5], UNIFORM, rng).tolist() == [1, 4, 6]
    # a zero-weight basis never influences the result
    bases = np.array([[0, 1, 2], [5, 6, 7]])
    for _ in range(50):
        assert swap_round(bases, [0.4, 0.0], UNIFORM, rng).tolist() == [0, 1, 2]
        assert swap_round(bases, [0.0, 0.4], UNIFORM, rng).tolist() == [5, 6, 7]
    y = np.zeros(8)
    y[[2, 3, 7]] = 1.0
    assert pairwise_round(y, UNIFORM, rng).tolist() == [2, 3, 7]


@pytest.mark.parametrize(
    "bases, weights, match",
    [
        (np.array([[0, 1, -1]]), [1.0], "padding"),
        (np.array([[0, 1]]), [1.0], "rank"),
        (np.array([[0, 1, 2]]), [1.0, 2.0], "weights"),
        (np.array([[0, 1, 2]]), [-1.0], "non-negative"),
        (np.array([[0, 1, 2]]), [0.0], "zero"),
        (np.array([[0, 0, 2]]), [1.0], "not a basis"),
        (np.array([[0.0, 1.0, 2.0]]), [1.0], "integer"),
    ],
)
def test_swap_round_validation(bases, weights, match):
    with pytest.raises(ValueError, match=match):
        swap_round(bases, weights, UNIFORM, np.random.default_rng(0))


def test_partition_validation_and_dispatch():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="not a basis"):
        swap_round(np.array([[0, 1, 3, 6]]), [1.0], PARTITION, rng)  # two elements of part 0
    with pytest.raises(ValueError, match="integer"):
        pairwise_round(np.full(8, 0.3), UNIFORM, rng)
    with pytest.raises(ValueError, match="capacity"):
        pairwise_round(np.ones(8) * 0.5, UNIFORM, rng)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        pairwise_round(np.array([1.5, -0.5, 1, 0, 0, 0, 0, 1]), UNIFORM, rng)
    with pytest.raises(ValueError, match="method"):
        round_fractional(np.array([[0, 1, 2]]), [1.0], UNIFORM, rng, method="bogus")
