"""Offline benchmarks of coverage streams: the exact optimum against brute-force enumeration (with k-dominance
pruning) and UNIF's exact expected value against the mean over every pick tuple (kernel/twin contracts,
tests/kernel_contract.py), greedy and its upper bound, and the multilinear extension's pieces."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from kernel_contract import KernelTwinContract
from privopt.online.osm.kernels import best_subsets_kernel, mean_over_tuples_kernel
from privopt.online.osm.coverage import Stream, set_value, type_totals
from privopt.online.osm.offline import (benchmarks, exact_opt, greedy, greedy_upper_bound, kept_items,
                                             uniform_value)


def _phi(P, counts, S):
    return sum(c * set_value(P, [m], [1.0], S) for m, c in enumerate(counts))


def _brute_opt(P, counts, k):
    return max(_phi(P, counts, S) for S in itertools.combinations(range(P.shape[1]), k))


def _sparse(rng):
    P = rng.uniform(0, 1, (5, 8)) * (rng.random((5, 8)) < 0.6)
    return P, rng.integers(0, 20, 5).astype(float)


def _binary(rng):
    return (rng.random((9, 7)) < 0.3).astype(float), rng.integers(0, 9, (9, 5)).astype(float)


def _padded(rng):
    """SYN-CLICK-PAD in small: 4 real items, 6 dummies equal to p_base everywhere (dominated, pruned)."""
    real = rng.uniform(0.3, 0.9, (4, 4))
    return np.hstack([np.maximum(real, 0.02), np.full((4, 6), 0.02)]), rng.integers(0, 6, 4).astype(float)


class TestExactOptTwin(KernelTwinContract):
    """``best_subsets_kernel`` (behind :func:`exact_opt`: the k-subsets of the items kept by k-dominance pruning) against
    brute force over every k-subset of all items (:func:`_brute_opt`): the same OPT bit for bit (a set's value is
    one product per type over its items in ascending order and one sum over the types, in both), for every count
    column.  The seed draws the instance.  That the maximiser is worth OPT: test_exact_opt_maximiser_and_greedy."""

    kernels = (best_subsets_kernel,)
    #: case id → (instance maker, ks)
    CASES = {"sparse-5x8-k=1..4": (_sparse, (1, 2, 3, 4)), "binary-9x7-5-count-columns-k=3": (_binary, (3,)),
             "padded-4+6-k=3": (_padded, (3,))}

    def run_kernel(self, variant, case, seed):
        make, ks = case
        P, counts = make(np.random.default_rng(seed))
        out = {}
        for k in ks:
            out[f"OPT k={k}"], out[f"arg k={k}"] = exact_opt(P, counts, k)
        return out

    def run_twin(self, case, seed):
        make, ks = case
        P, counts = make(np.random.default_rng(seed))
        cols = counts.reshape(P.shape[0], -1).T
        return {f"OPT k={k}": np.array([_brute_opt(P, c, k) for c in cols]) for k in ks}


@pytest.mark.parametrize("seed", range(4))
def test_exact_opt_maximiser_and_greedy(seed):
    """The maximiser exact_opt returns is worth OPT; greedy ≤ OPT ≤ UB and greedy ≥ (1 − 1/e)·OPT.  (OPT against
    brute force: TestExactOptTwin.)"""
    P, counts = _sparse(np.random.default_rng(seed))
    for k in (1, 2, 3, 4):
        opt, arg = exact_opt(P, counts, k)
        assert _phi(P, counts, arg[0]) == pytest.approx(opt[0], rel=1e-12)
        G, S = greedy(P, counts, k)
        assert G <= opt[0] + 1e-9
        assert greedy_upper_bound(P, counts, k) >= opt[0] - 1e-9
        assert G >= (1 - np.exp(-1)) * opt[0] - 1e-9


def test_dominance_pruning_drops_the_padding():
    """SYN-CLICK-PAD: dummy items equal to p_base everywhere are dominated and pruned; identical dummies keep
    the first k of them, so the optimum is still exact (OPT of a padded instance against brute force:
    TestExactOptTwin's padded case)."""
    rng = np.random.default_rng(1)
    real = rng.uniform(0.3, 0.9, (4, 4))
    P = np.hstack([np.maximum(real, 0.02), np.full((4, 6), 0.02)])
    kept = kept_items(P, 3)
    assert set(range(4)) <= set(kept.tolist()) and kept.size < P.shape[1]
    # all identical: the first k survive
    assert kept_items(np.full((2, 6), 0.5), 2).tolist() == [0, 1]


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


class TestUniformValueTwin(KernelTwinContract):
    """``mean_over_tuples_kernel`` (behind :func:`uniform_value`) against the mean of Φ over every pick tuple of
    ``itertools.product`` (duplicates merged into a set).  The seed draws P."""

    kernels = (mean_over_tuples_kernel,)
    CASES = {"k=1": 1, "k=2": 2, "k=3": 3}
    COUNTS = np.array([2.0, 1.0, 4.0])

    def run_kernel(self, variant, case, seed):
        P = np.random.default_rng(seed).uniform(0, 0.9, (3, 5))
        return {"value": uniform_value(P, self.COUNTS, case)[0]}

    def run_twin(self, case, seed):
        P = np.random.default_rng(seed).uniform(0, 0.9, (3, 5))
        return {"value": np.mean([_phi(P, self.COUNTS, set(t)) for t in itertools.product(range(5), repeat=case)])}

    def assert_agree(self, got, want):
        # the kernel sums Σ_m c_m·(1 − Π(1 − P[m, a])) over the tuples in one running sum, its products in pick
        # order; the twin takes np.mean (pairwise sums) of Φ with products in item order: a few ulps apart (≤ 2e-15
        # relative measured at k = 3)
        assert got["value"] == pytest.approx(want["value"], rel=1e-13, abs=0)


def test_uniform_value_refuses_too_many_tuples():
    P = np.random.default_rng(4).uniform(0, 0.9, (3, 5))
    for k in (1, 2, 3):  # n^k = 5, 25, 125 > 4 tuples
        assert np.isnan(uniform_value(P, np.array([2.0, 1.0, 4.0]), k, max_tuples=4)[0])


def test_type_totals_of_single_and_mixture_streams():
    single = Stream.single(np.array([[0, 1, 1, 2, 0]]))
    np.testing.assert_array_equal(type_totals(single, 3, [2, 5]), [[1, 2], [1, 2], [0, 1]])
    mix = Stream.mixture([0, 2, 3], [0, 1, 1], [0.25, 0.75, 1.0])
    np.testing.assert_allclose(type_totals(mix, 2, [1, 2]), [[0.25, 0.25], [0.75, 1.75]])
    with pytest.raises(ValueError, match="outside the stream"):
        type_totals(single, 3, [6])


def test_capped_simplex_projection_satisfies_its_optimality_conditions():
    from privopt.online.osm.kernels import project_capped_simplex

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
    from privopt.online.osm.kernels import _gradient  # noqa: PLC2701 - the kernel's own helper

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
