"""Tree-based aggregation (spec private-linear-bandits.md §3): structure, draw counts, covariance."""

from __future__ import annotations

import numpy as np
import pytest

from privopt.mechanisms.gaussian import symmetric_gaussian
from privopt.mechanisms.tree import (
    EXACT_REFRESH_LEVEL,
    TreeAggregator,
    path_nodes,
    path_refresh_top,
    shared_path_levels,
    trailing_zeros,
    tree_depth,
    tree_levels,
)


class OneHotSampler:
    """Node noise = indicator of the draw number, so a release's noise says exactly which draws it sums."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.count = 0

    def __call__(self, rng) -> np.ndarray:
        e = np.zeros(self.size)
        e[self.count] = 1.0
        self.count += 1
        return e


@pytest.mark.parametrize("n, m", [(1, 1), (2, 2), (3, 3), (4, 3), (5, 4), (8, 4), (9, 5),
                                  (100_000, 18), (50_000_000, 27), (2**26, 27), (2**26 + 1, 28)])
def test_tree_levels(n, m):
    assert tree_levels(n) == m
    assert 2 ** (m - 1) >= n
    assert n == 1 or 2 ** (m - 2) < n
    assert tree_depth(n) == m  # the numba kernels' copy


def test_tree_depth_is_tree_levels():
    assert all(tree_depth(n) == tree_levels(n) for n in range(1, 5000))


def test_numba_bit_helpers():
    for s in range(1, 3000):
        tz = (s & -s).bit_length() - 1
        assert trailing_zeros(s) == tz
        for m in (1, 3, 12):
            assert path_refresh_top(s, m) == min(tz, m - 1)


def test_path_exactly_m_distinct_noises_every_release():
    n = 200
    m = tree_levels(n)
    sampler = OneHotSampler(4 * n + m)
    tree = TreeAggregator(n, (4 * n + m,), sampler, rng=None, construction="path")
    for s in range(n + 1):
        noise = tree.noise()
        assert set(np.unique(noise)) <= {0.0, 1.0}          # distinct draws, each at most once
        assert noise.sum() == m                              # exactly m node noises
        assert tree.n_noises() == m
        assert tree.node_ids() == path_nodes(s, m)           # root-to-leaf path of leaf s
        if s < n:
            tree.add(np.zeros(4 * n + m))
    # draw count: m at start, then 1 + min(tz(s), m-1) per item; amortised ≤ 2 per item
    expected = m + sum(1 + min((s & -s).bit_length() - 1, m - 1) for s in range(1, n + 1))
    assert tree.draws == sampler.count == expected
    assert expected <= 2 * n + m


def test_path_level_noise_persists_on_aligned_blocks():
    n = 64
    m = tree_levels(n)
    sampler = OneHotSampler(4 * n + m)
    tree = TreeAggregator(n, (4 * n + m,), sampler, rng=None)
    # which draw sits at each level, per release s
    level_draw = []
    for s in range(n):
        ids = tree.node_ids()
        level_draw.append(ids)
        tree.add(np.zeros(4 * n + m))
    for level in range(m):
        block = 2**level
        for s in range(n):
            same_block = [r for r in range(n) if r // block == s // block]
            assert all(level_draw[r][level] == (level, s >> level) for r in same_block)
    # different blocks at the same level never share a draw: noises are identified by (level, index)
    noise_of = {}
    sampler2 = OneHotSampler(4 * n + m)
    tree2 = TreeAggregator(n, (4 * n + m,), sampler2, rng=None)
    for s in range(n):
        for lv, node in enumerate(tree2.node_ids()):
            vec = tree2._eta[lv]
            key = int(np.argmax(vec))
            assert noise_of.setdefault(node, key) == key
        tree2.add(np.zeros(4 * n + m))
    assert len(set(noise_of.values())) == len(noise_of)


def test_release_is_exact_prefix_plus_noise():
    rng = np.random.default_rng(1)
    n = 50
    items = rng.standard_normal((n, 3))
    tree = TreeAggregator(n, 3, lambda r: r.standard_normal(3), np.random.default_rng(2))
    for s in range(n):
        np.testing.assert_allclose(tree.release(), items[:s].sum(axis=0) + tree.noise(), atol=1e-12)
        np.testing.assert_allclose(tree.exact_sum(), items[:s].sum(axis=0), atol=1e-12)
        tree.add(items[s])
    with pytest.raises(ValueError):
        tree.add(items[0])


@pytest.mark.parametrize("construction", ["dyadic", "dyadic_padded"])
def test_dyadic_constructions(construction):
    n = 100
    m = tree_levels(n)
    sampler = OneHotSampler(10 * n)
    tree = TreeAggregator(n, (10 * n,), sampler, rng=None, construction=construction)
    for s in range(n + 1):
        ids = [i for i in tree.node_ids() if i[0] != "pad"]
        assert len(ids) == bin(s).count("1")
        # the dyadic nodes tile {1..s} exactly
        covered = sorted(x for lv, j in ids for x in range(j * 2**lv + 1, (j + 1) * 2**lv + 1))
        assert covered == list(range(1, s + 1))
        noise = tree.noise()
        assert set(np.unique(noise)) <= {0.0, 1.0}
        assert noise.sum() == (m if construction == "dyadic_padded" else bin(s).count("1"))
        if s < n:
            tree.add(np.zeros(10 * n))


def _cov_tolerance(var_x, var_y, cov, reps, z=5.0):
    # SE of the sample covariance of a bivariate normal: sqrt((var_x var_y + cov²)/R)
    return z * np.sqrt((var_x * var_y + cov**2) / reps)


def test_path_noise_covariance_structure():
    """Cov(N(s), N(t)) = (#shared path levels)·σ² — in particular Var N(s) = m·σ² at every s."""
    n, reps, sigma = 100, 20_000, 1.5
    m = tree_levels(n)
    # R independent replicate trees at once: node noise of shape (R,), i.i.d. N(0, σ²) entries
    tree = TreeAggregator(n, (reps,), lambda r: sigma * r.standard_normal(reps), np.random.default_rng(11))
    noises = []
    for s in range(n + 1):
        noises.append(tree.noise())
        if s < n:
            tree.add(np.zeros(reps))
    noises = np.array(noises)
    pairs = [(0, 0), (1, 1), (37, 37), (100, 100), (0, 1), (4, 7), (8, 15), (31, 32), (16, 17), (3, 99)]
    for s, t in pairs:
        expect = shared_path_levels(s, t, m) * sigma**2
        got = np.mean(noises[s] * noises[t])
        tol = _cov_tolerance(m * sigma**2, m * sigma**2, expect, reps)
        assert abs(got - expect) < tol, (s, t, got, expect, tol)
    assert shared_path_levels(31, 32, m) == m - 6
    assert shared_path_levels(5, 5, m) == m


def test_symmetric_gaussian_tree_entry_variances():
    """Matrix-valued tree with symmetric Gaussian nodes: Var N_ij = mσ² (i≠j), 2mσ² (i=j)."""
    n, reps, sigma, dim = 20, 4000, 2.0, 3
    m = tree_levels(n)
    tree = TreeAggregator(n, (reps, dim, dim), lambda r: symmetric_gaussian(r, dim, sigma, size=reps),
                          np.random.default_rng(5))
    for _ in range(13):
        tree.add(np.zeros((reps, dim, dim)))
    noise = tree.noise()
    np.testing.assert_array_equal(noise, np.swapaxes(noise, 1, 2))
    var = noise.var(axis=0)
    expect = m * sigma**2 * (1.0 + np.eye(dim))
    # SE of a sample variance: var·sqrt(2/(R−1))
    assert np.all(np.abs(var - expect) < 5 * expect * np.sqrt(2.0 / (reps - 1)))


@pytest.mark.parametrize("m", [27, EXACT_REFRESH_LEVEL + 1, EXACT_REFRESH_LEVEL])
def test_exact_refresh_period(m):
    """A refresh reaches EXACT_REFRESH_LEVEL (the kernel then recomputes its noise sum exactly) at
    exactly the leaves s that are multiples of 2^EXACT_REFRESH_LEVEL — never in a tree too shallow to
    have that level — so the running sum is rebuilt once per 2^EXACT_REFRESH_LEVEL items."""
    period = 2**EXACT_REFRESH_LEVEL
    s = np.arange(1, 5 * period + 3)
    reached = np.array([path_refresh_top(int(v), m) >= EXACT_REFRESH_LEVEL for v in s])
    if m - 1 >= EXACT_REFRESH_LEVEL:
        np.testing.assert_array_equal(reached, s % period == 0)
    else:
        assert not reached.any()
