"""Greedy, private greedy (DPG/MBKK) and random bases (spec decomposable-submodular.md §3, §4.3)."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from privopt.mechanisms.exponential import exponential_probabilities
from privopt.submodular.greedy import greedy, marginal_gains, private_greedy, private_greedy_runs, random_basis
from privopt.submodular.matroids import partition_matroid, uniform_matroid
from privopt.submodular.objectives import CutFunction, FacilityLocation

ALPHA = 1e-3


def chi2_ok(counts: dict, probs: dict) -> bool:
    keys = list(probs)
    assert set(counts) <= set(keys), f"outcomes outside the support: {set(counts) - set(keys)}"
    n = sum(counts.values())
    obs = np.array([counts.get(k, 0) for k in keys], dtype=float)
    exp = n * np.array([probs[k] for k in keys])
    stat = ((obs - exp) ** 2 / exp).sum()
    return stat < stats.chi2.ppf(1 - ALPHA, df=len(keys) - 1)


def all_bases(matroid):
    return [c for c in itertools.combinations(range(matroid.n), matroid.rank) if matroid.is_independent(list(c))]


def opt_value(obj, matroid) -> float:
    return max(obj.value(list(b)) for b in all_bases(matroid))


def reference_greedy(obj: FacilityLocation, matroid) -> list[int]:
    """Textbook greedy on set values (independent of the vectorised code)."""
    S: list[int] = []
    while True:
        best, best_gain = None, -math.inf
        for u in range(matroid.n):
            if u in S or not matroid.is_independent(S + [u]):
                continue
            gain = obj.value(S + [u]) - obj.value(S)
            if gain > best_gain + 1e-12:
                best, best_gain = u, gain
        if best is None:
            return S
        S.append(best)


def random_partition(rng, n):
    k = int(rng.integers(2, 4))
    part_of = rng.integers(0, k, size=n)
    part_of[:k] = np.arange(k)  # no empty part
    capacity = rng.integers(1, 3, size=k)
    return partition_matroid(part_of, capacity)


def random_instances(seed, count, kind):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(3, 9))
        m = int(rng.integers(2, 13))
        obj = FacilityLocation(rng.uniform(0, 1, size=(n, m)))
        if kind == "uniform":
            matroid = uniform_matroid(n, int(rng.integers(1, min(n, 4) + 1)))
        else:
            matroid = random_partition(rng, n)
        yield obj, matroid


# --------------------------------------------------------------------- greedy vs exhaustive search
def test_greedy_uniform_vs_exhaustive():
    ratios = []
    for obj, M in random_instances(11, 150, "uniform"):
        S = greedy(obj, M)
        assert S.dtype == np.int64 and M.is_basis(S)
        assert S.tolist() == reference_greedy(obj, M)
        opt = opt_value(obj, M)
        assert obj.value(S) >= (1 - 1 / math.e) * opt - 1e-9
        assert obj.value(S) <= opt + 1e-9
        ratios.append(obj.value(S) / opt)
    assert min(ratios) < 1.0  # the instances are not all trivial


def test_greedy_partition_vs_exhaustive():
    ratios = []
    for obj, M in random_instances(12, 150, "partition"):
        S = greedy(obj, M)
        assert M.is_basis(S)
        assert S.tolist() == reference_greedy(obj, M)
        opt = opt_value(obj, M)
        assert obj.value(S) >= 0.5 * opt - 1e-9
        ratios.append(obj.value(S) / opt)
    assert min(ratios) < 1.0


def test_greedy_optimal_on_modular_instances():
    """Disjoint agent blocks make f modular; greedy is then optimal on any matroid."""
    rng = np.random.default_rng(13)
    for trial in range(60):
        n = int(rng.integers(3, 9))
        per = int(rng.integers(1, 3))
        dist = np.ones((n, n * per))
        for u in range(n):
            dist[u, u * per : (u + 1) * per] = rng.uniform(0, 1, size=per)
        obj = FacilityLocation(dist)
        M = uniform_matroid(n, int(rng.integers(1, n + 1))) if trial % 2 else random_partition(rng, n)
        S = greedy(obj, M)
        assert obj.value(S) == pytest.approx(opt_value(obj, M), abs=1e-12)


def test_greedy_optimal_for_rank_one():
    for obj, _ in random_instances(14, 40, "uniform"):
        M = uniform_matroid(obj.n, 1)
        S = greedy(obj, M)
        assert obj.value(S) == pytest.approx(opt_value(obj, M), abs=1e-12)


def test_figure2_greedy_trap():
    """Spec §4.3: parts {A}, {B, C}; greedy takes B, is forced to A and ends at the worse basis."""
    A, B, C = 0, 1, 2
    for eps in (0.3, 0.1, 0.01):
        # agents p1, p2: f(A) = f(C) = 1 - eps, f(B) = 1, f(AB) = 1, f(AC) = 2 - 2 eps
        dist = np.array([[eps, 1.0], [0.0, 1.0], [1.0, eps]])
        obj = FacilityLocation(dist)
        M = partition_matroid([0, 1, 1], [1, 1])
        assert obj.value([B]) > obj.value([A]) and obj.value([B]) > obj.value([C])
        assert obj.value([A, B]) < obj.value([A, C])
        S = greedy(obj, M)
        assert S.tolist() == [B, A]
        opt = opt_value(obj, M)
        assert opt == pytest.approx(obj.value([A, C]))
        assert obj.value(S) / opt == pytest.approx(1 / (2 - 2 * eps))
        assert obj.value(S) >= opt / 2


def test_greedy_continues_with_zero_gains_and_ties_lowest_index():
    # element 0 covers everything; the rest have zero gain afterwards; duplicates tie
    dist = np.array([[0.0, 0.0], [0.5, 0.5], [0.5, 0.5], [0.2, 0.9], [1.0, 1.0]])
    M = uniform_matroid(5, 4)
    S = greedy(dist, M)  # raw distance matrix accepted
    assert S.tolist() == [0, 1, 2, 3]  # zero gains -> lowest indices, still a basis
    dist2 = np.array([[0.5, 0.5], [0.3, 0.3], [0.3, 0.3], [0.3, 0.3]])
    assert greedy(dist2, uniform_matroid(4, 1)).tolist() == [1]


def test_generic_path_matches_facility_path():
    rng = np.random.default_rng(15)
    for obj, M in itertools.chain(random_instances(16, 30, "uniform"), random_instances(17, 30, "partition")):

        class Wrapped:  # only exposes values(masks): forces the generic path
            n = obj.n

            @staticmethod
            def values(masks):
                return obj.values(masks)

        np.testing.assert_array_equal(greedy(Wrapped(), M), greedy(obj, M))
        S = random_basis(M, rng)[: max(M.rank - 1, 0)]
        gains = marginal_gains(obj, S, M)
        gains_generic = marginal_gains(Wrapped(), S, M)
        cand = M.can_add(S)
        ref = np.array([obj.value(list(S) + [u]) - obj.value(list(S)) if cand[u] else 0.0 for u in range(obj.n)])
        np.testing.assert_allclose(gains, ref, atol=1e-12)
        np.testing.assert_allclose(gains_generic, ref, atol=1e-12)


def test_greedy_on_cut_function():
    """Generic path on a non-monotone objective: path 0-1-2-3, rank 2.

    Step 1 gains (1, 2, 2, 1) -> vertex 1 (lowest index among ties); step 2 gains
    from {1}: vertex 0 -> -1, vertex 2 -> 0, vertex 3 -> +1 -> vertex 3.
    """
    f = CutFunction(4, np.array([[0, 1], [1, 2], [2, 3]]))
    S = greedy(f, uniform_matroid(4, 2))
    assert S.tolist() == [1, 3]
    np.testing.assert_allclose(marginal_gains(f, [1], uniform_matroid(4, 2)), [-1.0, 0.0, 0.0, 1.0])


def test_mismatched_sizes_rejected():
    with pytest.raises(ValueError, match="elements"):
        greedy(FacilityLocation(np.zeros((3, 2))), uniform_matroid(4, 2))
    with pytest.raises(TypeError):
        greedy(object(), uniform_matroid(3, 1))


# --------------------------------------------------------------------- private greedy
def test_private_greedy_huge_eps_equals_greedy():
    untied = 0
    total = 0
    rng = np.random.default_rng(21)
    for obj, M in itertools.chain(random_instances(22, 60, "uniform"), random_instances(23, 60, "partition")):
        S = greedy(obj, M)
        # skip instances where greedy met a (near) tie: there tie-breaking differs by design
        tied = False
        for k in range(len(S)):
            g = marginal_gains(obj, S[:k], M)
            g = np.sort(g[M.can_add(S[:k])])
            if g.size > 1 and g[-1] - g[-2] < 1e-6:
                tied = True
        total += 1
        if tied:
            continue
        untied += 1
        for eps0 in (1e9, np.inf):
            np.testing.assert_array_equal(private_greedy(obj, M, eps0, rng), S)
    assert untied >= 0.8 * total


def test_private_greedy_eps_zero_uniform():
    rng = np.random.default_rng(31)
    dist = np.random.default_rng(32).uniform(0, 1, size=(5, 7))
    for M in (uniform_matroid(5, 2), partition_matroid([0, 0, 1, 1, 1], [1, 1])):
        bases = all_bases(M)
        counts = Counter(tuple(sorted(private_greedy(dist, M, 0.0, rng).tolist())) for _ in range(6000))
        assert chi2_ok(counts, {b: 1 / len(bases) for b in bases})
        # and the data do matter at a large eps0: a non-uniform law is rejected
        counts_hi = Counter(tuple(sorted(private_greedy(dist, M, 5.0, rng).tolist())) for _ in range(6000))
        assert not chi2_ok(counts_hi, {b: 1 / len(bases) for b in bases})


def test_private_greedy_step_law():
    """First pick ~ exponential mechanism over exact gains; second pick conditionally likewise."""
    rng = np.random.default_rng(41)
    obj = FacilityLocation(np.random.default_rng(42).uniform(0, 1, size=(6, 40)))
    M = uniform_matroid(6, 2)
    eps0 = 0.3
    p1 = exponential_probabilities(marginal_gains(obj, [], M), eps0, mask=M.can_add([]))
    law = {}
    for a in range(6):
        p2 = exponential_probabilities(marginal_gains(obj, [a], M), eps0, mask=M.can_add([a]))
        for b in range(6):
            if b != a:
                law[(a, b)] = p1[a] * p2[b]
    counts = Counter(tuple(private_greedy(obj, M, eps0, rng).tolist()) for _ in range(10_000))
    assert chi2_ok(counts, law)
    # the sensitivity-1 scaling matters: the law at eps0/2 is rejected
    p1_half = exponential_probabilities(marginal_gains(obj, [], M), eps0 / 2)
    first = Counter(k[0] for k, c in counts.items() for _ in range(c))
    assert not chi2_ok(first, dict(enumerate(p1_half)))


def test_private_greedy_runs_are_the_calls():
    """private_greedy_runs = that many private_greedy calls on one stream, pick for pick, leaving the stream where
    they leave it: facility and cut objectives, rank 1 to n (the last step has one candidate and draws nothing),
    ε0 = 0, moderate, inf (ties among maximisers)."""
    dist = np.random.default_rng(52).uniform(0, 1, size=(6, 30))
    dist[:, :3] = 0.5  # equal columns: ties in the gains
    cut = CutFunction(5, np.array([[0, 1], [1, 2], [2, 3], [3, 4], [0, 2]]))
    for obj, n in ((FacilityLocation(dist), 6), (cut, 5)):
        for rank in (1, 2, n):
            M = uniform_matroid(n, rank)
            for eps0 in (0.0, 0.8, np.inf):
                calls, at_once = np.random.default_rng(54), np.random.default_rng(54)
                expected = np.array([private_greedy(obj, M, eps0, calls) for _ in range(300)])
                got = private_greedy_runs(obj, M, eps0, at_once, 300)
                np.testing.assert_array_equal(got, expected)
                assert calls.random() == at_once.random()
    with pytest.raises(ValueError, match="uniform matroid"):
        private_greedy_runs(dist[:4], partition_matroid([0, 0, 1, 1], [1, 1]), 1.0, np.random.default_rng(0), 3)


def test_private_greedy_figure2_shape():
    """On the Fig-2 trap DPG returns {A,B} or {A,C}; with eps0 = 0 each has probability 1/2."""
    dist = np.array([[0.1, 1.0], [0.0, 1.0], [1.0, 0.1]])
    M = partition_matroid([0, 1, 1], [1, 1])
    rng = np.random.default_rng(51)
    outs = Counter(tuple(sorted(private_greedy(dist, M, 0.0, rng).tolist())) for _ in range(4000))
    assert set(outs) == {(0, 1), (0, 2)}
    # first pick uniform over {A, B, C}: P({A,B}) = 1/3 + 1/3 * 1/2 = 1/2
    assert chi2_ok(outs, {(0, 1): 0.5, (0, 2): 0.5})


# --------------------------------------------------------------------- random basis
@pytest.mark.parametrize(
    "matroid",
    [
        uniform_matroid(6, 3),
        partition_matroid([0, 0, 1, 1, 1, 2], [1, 2, 1]),
        partition_matroid([0, 1, 1], [1, 1]),
        partition_matroid([0, 0, 1, 2, 2, 2], [1, 5, 2]),
    ],
)
def test_random_basis_uniform_over_bases(matroid):
    rng = np.random.default_rng(61)
    bases = all_bases(matroid)
    counts = Counter()
    for _ in range(8000):
        S = random_basis(matroid, rng)
        assert S.dtype == np.int64 and matroid.is_basis(S)
        counts[tuple(sorted(S.tolist()))] += 1
    assert chi2_ok(counts, {b: 1 / len(bases) for b in bases})


def test_random_basis_figure2_half_half():
    rng = np.random.default_rng(62)
    M = partition_matroid([0, 1, 1], [1, 1])
    n_ab = sum(1 in random_basis(M, rng) for _ in range(10_000))
    assert abs(n_ab - 5000) < 4.5 * math.sqrt(10_000 * 0.25)
