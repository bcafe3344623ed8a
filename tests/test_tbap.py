"""ℓ2-Laplace noise and TBAP, the dyadic tree of Smith & Thakurta (spec online-convex-and-submodular-min.md §2.1–§2.2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from privopt.fastrng import FastGenerator
from privopt.mechanisms.laplace import (
    l2_laplace,
    l2_laplace_into,
    l2_laplace_logpdf,
    l2_laplace_moments,
    l2_laplace_privacy_loss,
    l2_laplace_rows,
    l2_laplace_scale,
    uniform_direction_into,
)
from privopt.mechanisms.tree import TreeAggregator, dyadic_leaf_nodes, dyadic_nodes, tree_levels
from privopt.mechanisms.tbap import (
    _tbap_kernel,
    tbap,
    tbap_add,
    tbap_error_sq,
    tbap_error_sq_theory,
    tbap_releases,
    tbap_scale,
)
from kernel_contract import KernelTwinContract


class OneHotSampler:
    """Node noise = indicator of the draw number: a release's noise says which draws it sums."""

    def __init__(self, size: int) -> None:
        self.size, self.count = size, 0

    def __call__(self, rng) -> np.ndarray:
        e = np.zeros(self.size)
        e[self.count] = 1.0
        self.count += 1
        return e


def _states(n: int, base: int = 0) -> np.ndarray:
    return np.stack([FastGenerator(base + i).state for i in range(n)])


# ----------------------------------------------------------------------------- ℓ2-Laplace


@pytest.mark.parametrize("d", [1, 2, 5])
def test_l2_laplace_norm_is_gamma_and_direction_is_uniform(d):
    lam, n = 0.7, 20_000
    b = l2_laplace(np.random.default_rng(d), d, lam, size=n)
    norms = np.linalg.norm(b, axis=1)
    # ‖b‖ ~ Gamma(d, λ): Kolmogorov–Smirnov at level 1e-3; mean dλ within 2 % (≥ 6 standard errors here)
    assert stats.kstest(norms, stats.gamma(d, scale=lam).cdf).pvalue > 1e-3
    assert abs(norms.mean() / (d * lam) - 1) < 0.02
    # isotropy: E b = 0 and Cov b = (d+1)λ² I, within 5 standard errors
    mom = l2_laplace_moments(d, lam)
    se_mean = math.sqrt(mom["mean_sq"] / d / n)
    assert np.all(np.abs(b.mean(axis=0)) < 5 * se_mean)
    cov = np.cov(b.T).reshape(d, d)
    var = mom["mean_sq"] / d
    se_var = math.sqrt((mom["mean_fourth"] / (d * (d + 2)) * 3 - var**2) / n)  # E b_i⁴ = 3 E‖b‖⁴/(d(d+2))
    assert np.all(np.abs(np.diag(cov) - var) < 5 * se_var)


def test_l2_laplace_numba_twin_draws_the_same_numbers():
    for d, lam in [(1, 0.5), (3, 2.0), (9, 1e-3)]:
        gen, state = FastGenerator(d), FastGenerator(d).state
        out, buf = np.zeros(d), np.zeros(d)
        for _ in range(50):
            l2_laplace_into(state, d, lam, buf, out)
            assert np.array_equal(out, l2_laplace(gen, d, lam))
        assert np.array_equal(state, gen.state)


def test_zero_scale_draws_nothing_and_direction_is_unit():
    state = FastGenerator(3).state
    before = state.copy()
    out = np.ones(4)
    l2_laplace_into(state, 4, 0.0, np.zeros(4), out)
    assert np.array_equal(out, np.zeros(4)) and np.array_equal(state, before)
    assert np.array_equal(l2_laplace(FastGenerator(3), 4, 0.0), np.zeros(4))
    u = np.zeros(7)
    uniform_direction_into(state, 7, u)
    assert abs(np.linalg.norm(u) - 1) < 1e-15


@pytest.mark.parametrize("d", [1, 2, 3])
def test_logpdf_integrates_to_one(d):
    lam = 1.3
    # radial integral of the density: ∫ S_{d−1} r^{d−1} p(r e₁) dr = 1
    surface = 2 * math.pi ** (d / 2) / math.gamma(d / 2)
    total, _ = integrate.quad(lambda r: surface * r ** (d - 1) * math.exp(l2_laplace_logpdf(np.eye(d)[0] * r, lam)),
                              0, np.inf)
    assert abs(total - 1) < 1e-8


def test_privacy_loss_is_the_log_density_ratio_and_bounded_by_sensitivity():
    rng = np.random.default_rng(5)
    lam, s, s2 = 0.8, np.array([0.3, -0.2, 1.0]), np.array([-0.5, 0.4, 0.1])
    y = s + l2_laplace(rng, 3, lam, size=1000)
    loss = l2_laplace_privacy_loss(y, s, s2, lam)
    np.testing.assert_allclose(loss, l2_laplace_logpdf(y - s, lam) - l2_laplace_logpdf(y - s2, lam), atol=1e-12)
    assert loss.max() <= np.linalg.norm(s - s2) / lam + 1e-12
    # along the ray from s' through s the bound is reached
    far = s + 1e6 * (s - s2) / np.linalg.norm(s - s2)
    assert abs(l2_laplace_privacy_loss(far, s, s2, lam) - np.linalg.norm(s - s2) / lam) < 1e-6
    assert l2_laplace_scale(2.0, 0.5) == 4.0 and l2_laplace_scale(2.0, math.inf) == 0.0
    with pytest.raises(ValueError):
        l2_laplace_scale(1.0, 0.0)


# ----------------------------------------------------------------------------- the dyadic tree


@pytest.mark.parametrize("n", [1, 2, 7, 8, 64, 100])
def test_each_item_lies_in_at_most_K_noised_nodes(n):
    """Which node noises a release holds (one-hot noises), against dyadic_nodes and dyadic_leaf_nodes."""
    m = tree_levels(n)
    tree = TreeAggregator(n, (n + 1,), OneHotSampler(n + 1), None, construction="dyadic")
    draw_of = {}
    for s in range(1, n + 1):
        tree.add(np.zeros(n + 1))
        level = (s & -s).bit_length() - 1
        draw_of[(level, (s >> level) - 1)] = s - 1  # one draw per item: the node item s completes
        assert tree.node_ids() == dyadic_nodes(s, m)
        assert np.array_equal(np.flatnonzero(tree.noise()), sorted(draw_of[node] for node in dyadic_nodes(s, m)))
    for t in range(1, n + 1):
        nodes = dyadic_leaf_nodes(t, n)
        # exactly the noised nodes whose items include t, and at most m of them (m for t = 1, n a power of 2)
        assert nodes == [nd for nd in draw_of if nd[1] * 2 ** nd[0] < t <= (nd[1] + 1) * 2 ** nd[0]]
        assert len(nodes) <= m
    if n & (n - 1) == 0:
        assert len(dyadic_leaf_nodes(1, n)) == m


def test_tbap_scale_and_levels():
    assert tree_levels(4096) == 13 and tree_levels(4097) == 14
    assert tbap_scale(1.5, 0.5, 1024) == 2.0 * 1.5 * 11 / 0.5
    assert tbap_scale(1.5, 0.5, 1024, c_sens=1.0) == 1.5 * 11 / 0.5
    assert tbap_scale(1.5, math.inf, 1024) == 0.0


def test_numba_step_equals_the_tree_class_bit_for_bit():
    rng = np.random.default_rng(0)
    for T, d, lam in [(37, 3, 0.7), (64, 1, 2.0), (5, 8, 0.0)]:
        tree = tbap(T, d, lam, FastGenerator(T))
        state = FastGenerator(T).state
        m = tree_levels(T)
        eta, partial, xsum, buf = np.zeros((m, d)), np.zeros((m + 1, d)), np.zeros(d), np.zeros(d)
        items = rng.standard_normal((T, d))
        for s in range(1, T + 1):
            tree.add(items[s - 1])
            tbap_add(state, s, d, lam, items[s - 1], xsum, eta, partial, buf)
            assert np.array_equal(tree.release(), xsum + partial[0])


def _tbap_twin(items: np.ndarray, lam: float, gens) -> tuple[np.ndarray, np.ndarray]:
    """The plain-numpy twin of ``_tbap_kernel``: one :func:`tbap` tree (TreeAggregator) per generator, its
    releases v̂_1..v̂_T, and Σ_r ‖N_r(t)‖² with N the tree's noise (= v̂_t − v_t), summed in the kernel's
    order."""
    T, d = items.shape
    releases, error_sq = np.zeros((len(gens), T, d)), np.zeros(T)
    for r, gen in enumerate(gens):
        tree = tbap(T, d, lam, gen)
        for s in range(1, T + 1):
            tree.add(items[s - 1])
            releases[r, s - 1] = tree.release()
            e = 0.0
            for v in tree.noise():
                e += v * v
            error_sq[s - 1] += e
    return releases, error_sq


class TestTbapTwin(KernelTwinContract):
    """``_tbap_kernel`` (behind tbap_releases and tbap_error_sq) against one TreeAggregator per run
    (:func:`_tbap_twin`): every release, the summed squared errors and the noise states left behind, bit for
    bit; two independent runs per call (the kernel resets its tree between them).  ε = ∞ (λ = 0, no draws):
    test_no_noise_gives_exact_prefix_sums."""

    kernels = (_tbap_kernel,)
    CASES = {"T=37-d=3": (37, 3, 0.7), "T=64-d=1": (64, 1, 2.0)}
    RUNS = 2

    @staticmethod
    def _items(case):
        T, d, _ = case
        return np.random.default_rng(T).standard_normal((T, d))

    def run_kernel(self, variant, case, seed):
        T, d, lam = case
        items, states = self._items(case), _states(self.RUNS, 10 * seed)
        releases, error_sq = np.zeros((self.RUNS, T, d)), np.zeros(T)
        _tbap_kernel(items, lam, states, releases, error_sq)
        return {"releases": releases, "error_sq": error_sq, "states": states}

    def run_twin(self, case, seed):
        _, _, lam = case
        gens = [FastGenerator(10 * seed + r) for r in range(self.RUNS)]
        releases, error_sq = _tbap_twin(self._items(case), lam, gens)
        return {"releases": releases, "error_sq": error_sq, "states": np.stack([g.state for g in gens])}


def test_no_noise_gives_exact_prefix_sums():
    items = np.random.default_rng(1).standard_normal((50, 4))
    rel = tbap_releases(items, 0.0, _states(2))
    assert np.array_equal(rel, np.broadcast_to(np.cumsum(items, axis=0), rel.shape))  # λ = 0: noise 0.0, exact sums


def test_error_second_moment_is_popcount_d_d_plus_1_lambda_squared():
    T, d, lam, n = 64, 3, 0.5, 4000
    mean = tbap_error_sq(T, d, lam, _states(n, 100)) / n
    theory = tbap_error_sq_theory(np.arange(1, T + 1), d, lam)
    assert np.array_equal(theory[[0, 2, 62]], np.array([1, 2, 6]) * d * (d + 1) * lam**2)
    # per t: ‖noise‖² is a sum of popcount(t) independent ‖b‖² plus cross terms; its sd is at most
    # √(E‖N‖⁴) ≤ popcount·√(E‖b‖⁴) — 5 such standard errors
    pop = theory / (d * (d + 1) * lam**2)
    se = pop * math.sqrt(l2_laplace_moments(d, lam)["mean_fourth"]) / math.sqrt(n)
    assert np.all(np.abs(mean - theory) < 5 * se)
    assert abs(mean.sum() / theory.sum() - 1) < 0.05


def test_stored_state_is_logarithmic():
    tree = tbap(1024, 2, 1.0, FastGenerator(0))
    assert len(tree._eta) == tree_levels(1024) == 11


def test_bulk_rows_have_the_same_law():
    lam = np.repeat([0.0, 0.5, 2.0], 20_000)
    b = l2_laplace_rows(np.random.default_rng(4), 3, lam)
    norms = np.linalg.norm(b, axis=1)
    assert np.all(norms[:20_000] == 0)
    for k, scale in ((1, 0.5), (2, 2.0)):
        part = norms[k * 20_000:(k + 1) * 20_000]
        assert stats.kstest(part, stats.gamma(3, scale=scale).cdf).pvalue > 1e-3
