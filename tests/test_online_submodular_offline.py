"""Offline benchmarks of coverage streams: the exact optimum against brute-force enumeration (with k-dominance
pruning), greedy and its upper bound, UNIF's exact expected value, and the multilinear extension's pieces."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from privopt.online.coverage import Stream, set_value, type_totals
from privopt.online.coverage_offline import (benchmarks, exact_opt, greedy, greedy_upper_bound, kept_items,
                                             uniform_value)


def _phi(P, counts, S):
    return sum(c * set_value(P, [m], [1.0], S) for m, c in enumerate(counts))


def _brute_opt(P, counts, k):
    return max(_phi(P, counts, S) for S in itertools.combinations(range(P.shape[1]), k))


@pytest.mark.parametrize("seed", range(4))
def test_exact_opt_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    P = rng.uniform(0, 1, (5, 8)) * (rng.random((5, 8)) < 0.6)
    counts = rng.integers(0, 20, 5).astype(float)
    for k in (1, 2, 3, 4):
        opt, arg = exact_opt(P, counts, k)
        assert opt[0] == pytest.approx(_brute_opt(P, counts, k), rel=1e-12)
        assert _phi(P, counts, arg[0]) == pytest.approx(opt[0], rel=1e-12)
        G, S = greedy(P, counts, k)
        assert G <= opt[0] + 1e-9
        assert greedy_upper_bound(P, counts, k) >= opt[0] - 1e-9
        assert G >= (1 - np.exp(-1)) * opt[0] - 1e-9


def test_dominance_pruning_keeps_the_optimum_of_a_padded_instance():
    """SYN-CLICK-PAD: dummy items equal to p_base everywhere are dominated and pruned; identical dummies keep
    the first k of them, so the optimum is still exact."""
    rng = np.random.default_rng(1)
    real = rng.uniform(0.3, 0.9, (4, 4))
    P = np.hstack([np.maximum(real, 0.02), np.full((4, 6), 0.02)])
    counts = np.array([3.0, 1.0, 5.0, 2.0])
    kept = kept_items(P, 3)
    assert set(range(4)) <= set(kept.tolist()) and kept.size < P.shape[1]
    assert exact_opt(P, counts, 3)[0][0] == pytest.approx(_brute_opt(P, counts, 3), rel=1e-12)
    # all identical: the first k survive
    assert kept_items(np.full((2, 6), 0.5), 2).tolist() == [0, 1]


def test_exact_opt_handles_many_count_columns_and_binary_coverage():
    rng = np.random.default_rng(2)
    P = (rng.random((9, 7)) < 0.3).astype(float)
    cols = rng.integers(0, 9, (9, 5)).astype(float)
    opt, _ = exact_opt(P, cols, 3)
    for j in range(5):
        assert opt[j] == pytest.approx(_brute_opt(P, cols[:, j], 3), rel=1e-12)


def test_enumeration_limit_falls_back_to_greedy_bounds():
    rng = np.random.default_rng(3)
    P = rng.uniform(0.1, 0.9, (3, 12))
    counts = np.ones((3, 1))
    b = benchmarks(P, counts, 4)
    assert b["exact"].all()
    with pytest.raises(ValueError, match="subsets"):
        exact_opt(P, counts, 4, max_sets=10)
    small = {k: v for k, v in zip(("OPT", "G", "UB"), (b["OPT"][0], b["G"][0], b["UB"][0]))}
    assert small["G"] <= small["OPT"] <= small["UB"] + 1e-12


@pytest.mark.parametrize("k", [1, 2, 3])
def test_uniform_value_is_the_mean_over_pick_tuples(k):
    rng = np.random.default_rng(4)
    P = rng.uniform(0, 0.9, (3, 5))
    counts = np.array([2.0, 1.0, 4.0])
    brute = np.mean([_phi(P, counts, set(t)) for t in itertools.product(range(5), repeat=k)])
    assert uniform_value(P, counts, k)[0] == pytest.approx(brute, rel=1e-12)
    assert np.isnan(uniform_value(P, counts, k, max_tuples=4)[0])


def test_type_totals_of_single_and_mixture_streams():
    single = Stream.single(np.array([[0, 1, 1, 2, 0]]))
    np.testing.assert_array_equal(type_totals(single, 3, [2, 5]), [[1, 2], [1, 2], [0, 1]])
    mix = Stream.mixture([0, 2, 3], [0, 1, 1], [0.25, 0.75, 1.0])
    np.testing.assert_allclose(type_totals(mix, 2, [1, 2]), [[0.25, 0.25], [0.75, 1.75]])
    with pytest.raises(ValueError, match="outside the stream"):
        type_totals(single, 3, [6])


def test_capped_simplex_projection_satisfies_its_optimality_conditions():
    from privopt.online._continuous_kernel import project_capped_simplex

    rng = np.random.default_rng(5)
    for _ in range(200):
        y = rng.normal(0.5, 1.5, 8)
        k = float(rng.integers(1, 5))
        x = np.empty(8)
        project_capped_simplex(y, k, x)
        assert (x >= -1e-15).all() and (x <= 1 + 1e-15).all() and x.sum() <= k + 1e-9
        # KKT: x = clip(y − τ, 0, 1) for one τ ≥ 0, and τ > 0 only when the budget binds
        free = (x > 1e-9) & (x < 1 - 1e-9)
        tau = (y - x)[free]
        if tau.size:
            assert np.ptp(tau) < 1e-8 and tau.min() > -1e-9
            if tau.mean() > 1e-8:
                assert x.sum() == pytest.approx(k, abs=1e-8)
        # no feasible point is closer (random feasible candidates)
        for _ in range(20):
            z = np.clip(x + rng.normal(0, 0.05, 8), 0, 1)
            if z.sum() <= k:
                assert np.sum((z - y) ** 2) >= np.sum((x - y) ** 2) - 1e-12


def test_multilinear_gradient_matches_finite_differences():
    from privopt.online._continuous_kernel import _gradient  # noqa: PLC2701 - the kernel's own helper

    rng = np.random.default_rng(6)
    P = rng.uniform(0, 0.9, (2, 6))
    x = rng.uniform(0, 1, 6)
    c, pre = np.empty(6), np.empty(6)
    F = _gradient(P, 1, x, 6, pre, c)
    assert F == pytest.approx(1 - np.prod(1 - P[1] * x), rel=1e-14)
    h = 1e-6
    for a in range(6):
        e = np.zeros(6)
        e[a] = h
        fd = ((1 - np.prod(1 - P[1] * (x + e))) - (1 - np.prod(1 - P[1] * (x - e)))) / (2 * h)
        assert c[a] == pytest.approx(fd, rel=1e-7)
