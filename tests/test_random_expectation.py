"""privopt.submodular.random_expectation: E f(uniform basis) for the facility objective, checked by enumeration."""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import numpy as np
import pytest

from privopt.submodular.matroids import partition_matroid, uniform_matroid
from privopt.submodular.objectives import FacilityLocation
from privopt.submodular.random_expectation import (
    expected_random_basis_per_agent,
    expected_random_basis_value,
    uniform_rank_weights,
)


def enumerated_mean(f: FacilityLocation, matroid) -> float:
    """The mean of f over every basis of the matroid (each basis equally likely)."""
    bases = [np.array(s, dtype=np.int64) for s in itertools.combinations(range(matroid.n), matroid.rank)
             if matroid.is_independent(np.array(s, dtype=np.int64))]
    return float(np.mean([f.value(b) for b in bases]))


@pytest.mark.parametrize("seed", range(40))
def test_equals_the_mean_over_every_basis_of_a_random_partition_matroid(seed):
    rng = np.random.default_rng(seed)
    n, m, parts = int(rng.integers(1, 8)), int(rng.integers(1, 6)), int(rng.integers(1, 4))
    # distances on a coarse grid, so ties between candidates are common
    f = FacilityLocation(rng.integers(0, 4, size=(n, m)) / 3.0)
    matroid = partition_matroid(rng.integers(0, parts, size=n), rng.integers(0, 3, size=parts))
    assert expected_random_basis_value(f, matroid) == pytest.approx(enumerated_mean(f, matroid), abs=1e-12)


@pytest.mark.parametrize("n, r", [(1, 1), (5, 2), (6, 6), (7, 3), (7, 0)])
def test_uniform_matroid_matches_enumeration_and_the_weights_are_a_distribution(n, r):
    rng = np.random.default_rng(n * 10 + r)
    f = FacilityLocation(rng.random((n, 4)))
    assert expected_random_basis_value(f, uniform_matroid(n, r)) == pytest.approx(enumerated_mean(f, uniform_matroid(n, r)),
                                                                                  abs=1e-12)
    w = uniform_rank_weights(n, r)
    assert w.sum() == pytest.approx(1.0 if r else 0.0, abs=1e-15) and (np.diff(w) <= 0).all()


def test_weights_are_the_exact_binomial_ratios():
    """w_j = C(n − j, r − 1)/C(n, r): for n = 100, r = 16 (Figure 1) each is the float nearest the fraction."""
    w = uniform_rank_weights(100, 16)
    exact = [Fraction(comb(100 - j, 15), comb(100, 16)) for j in range(1, 101)]
    assert [float(x) for x in exact] == w.tolist()
    assert sum(exact) == 1


def test_two_candidates_one_chosen_is_the_average_of_the_two():
    d = np.array([[0.0, 0.5], [1.0, 0.25]])
    per = expected_random_basis_per_agent(d, uniform_matroid(2, 1))
    assert per.tolist() == [0.5, 0.625]  # ((1 − 0) + (1 − 1))/2, ((1 − .5) + (1 − .25))/2


def test_a_part_of_capacity_zero_never_contributes():
    d = np.array([[0.0], [0.9], [0.6]])
    matroid = partition_matroid([0, 1, 1], [0, 1])  # element 0 can never be chosen
    assert expected_random_basis_value(d, matroid) == pytest.approx(((1 - 0.9) + (1 - 0.6)) / 2)


def test_mismatched_sizes_are_refused():
    with pytest.raises(ValueError, match="candidates"):
        expected_random_basis_value(np.zeros((3, 2)), uniform_matroid(4, 2))
