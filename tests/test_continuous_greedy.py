"""Tests of the private (measured) continuous greedy (spec decomposable-submodular.md §2.1–2.3, §2.7).

The oracles here are written independently of the module: brute-force multilinear
extensions by enumeration over 2^n subsets and a deterministic (measured) continuous
greedy.  Timing is measured in benchmarks/bench_pcg.py, never here.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

import privopt.submodular.continuous_greedy as cg
from privopt.submodular import kernels as _k
from privopt.submodular.continuous_greedy import (
    facility_multilinear,
    num_rounds,
    private_continuous_greedy,
    private_measured_continuous_greedy,
)
from privopt.submodular.matroids import partition_matroid, uniform_matroid
from privopt.submodular.objectives import CutFunction, FacilityLocation
from kernel_contract import KernelTwinContract, assert_same

# ----------------------------------------------------------------------------- helpers


def _facility_instance(seed: int, n: int = 7, m: int = 9, n_dup: int = 2) -> np.ndarray:
    """Random dist in [0, 1] whose last n_dup rows copy row 0 (duplicated locations, §4.2)."""
    rng = np.random.default_rng(seed)
    d = rng.random((n, m))
    d[n - n_dup :] = d[0]
    return d


class _Enum:
    """Independent brute-force multilinear extension F(x) = Σ_S f(S) Π_{u∈S} x_u Π_{u∉S}(1 − x_u)."""

    def __init__(self, f, n: int) -> None:
        self.n = n
        self.sets = [frozenset(c) for k in range(n + 1) for c in itertools.combinations(range(n), k)]
        self.vals = np.array([f(sorted(S)) for S in self.sets])

    def F(self, x) -> float:
        total = 0.0
        for S, v in zip(self.sets, self.vals):
            p = 1.0
            for u in range(self.n):
                p *= x[u] if u in S else 1.0 - x[u]
            total += p * v
        return total


def _facility_f(d):
    return lambda S: float((1.0 - d[S].min(axis=0)).sum()) if len(S) else 0.0


def _replay_argmax(result, enum: _Enum, matroid, eta: float, measured: bool, tol: float) -> int:
    """Replay the picks; at each step the pick must maximise the exact score (ties allowed).

    Exact score of a real candidate u at y: F(y + c·1_u) − F(y) with c = min(η, 1 − y_u)
    (PCG) or c = η(1 − y_u) (PMCG); dummies (PMCG, −1 in bases) score 0.  Returns the
    number of steps whose maximiser was unique.
    """
    n = matroid.n
    k = np.zeros(n, dtype=int)
    unique = 0
    for t in range(result.T):
        B: list[int] = []
        n_dummy_used = 0
        for i in range(result.rank):
            y = 1.0 - (1.0 - eta) ** k if measured else np.minimum(k * eta, 1.0)
            fy = enum.F(y)
            cand = matroid.can_add(np.array(B, dtype=np.int64))
            scores = {}
            for u in np.flatnonzero(cand):
                y2 = y.copy()
                y2[u] = y[u] + eta * (1.0 - y[u]) if measured else min(y[u] + eta, 1.0)
                scores[int(u)] = enum.F(y2) - fy
            if measured and n_dummy_used < result.rank:
                scores[-1] = 0.0
            best = max(scores.values())
            pick = int(result.bases[t, i])
            assert pick in scores, (t, i, pick)
            assert scores[pick] >= best - tol, (t, i, pick, scores)
            unique += sum(v >= best - tol for v in scores.values()) == 1
            if pick >= 0:
                B.append(pick)
                k[pick] += 1
            else:
                n_dummy_used += 1
    return unique


def _deterministic_cg(enum: _Enum, matroid, eta: float, measured: bool) -> np.ndarray:
    """Non-private (measured) continuous greedy with exact scores, argmax, lowest index first."""
    n, r, T = matroid.n, matroid.rank, num_rounds(eta)
    k = np.zeros(n, dtype=int)
    for _ in range(T):
        B: list[int] = []
        n_dummy = 0
        for _ in range(r):
            y = 1.0 - (1.0 - eta) ** k if measured else np.minimum(k * eta, 1.0)
            fy = enum.F(y)
            best, arg = -np.inf, None
            for u in np.flatnonzero(matroid.can_add(np.array(B, dtype=np.int64))):
                y2 = y.copy()
                y2[u] = y[u] + eta * (1.0 - y[u]) if measured else min(y[u] + eta, 1.0)
                w = enum.F(y2) - fy
                if w > best + 1e-12:
                    best, arg = w, int(u)
            if measured and n_dummy < r and best < 0.0:
                arg = None
            if arg is None:
                n_dummy += 1
            else:
                B.append(arg)
                k[arg] += 1
    return 1.0 - (1.0 - eta) ** k if measured else k * eta


MATROIDS = {
    "uniform": lambda n: uniform_matroid(n, 3),
    "partition": lambda n: partition_matroid([0, 0, 1, 1, 1, 2, 2][:n], [1, 2, 1]),
}

# ------------------------------------------------------------------ fast path == reference


def _pcg_runs(case, seed, instances, **kw):
    """PCG (eps0 = 3) on each facility instance ``_facility_instance(i)`` of ``instances`` with the rng
    ``default_rng(seed + i)`` (seed 0: the draws of the tests before the contract); the values compared, by
    instance."""
    out = {}
    for i in instances:
        d = _facility_instance(i)
        res = private_continuous_greedy(d, MATROIDS[case["matroid"]](d.shape[0]), eta=case["eta"], eps0=3.0,
                                        rng=np.random.default_rng(seed + i), record_scores=True, **kw)
        out.update({f"{field}[d{i}]": getattr(res, field) for field in ("bases", "counts", "y", "score_trace")})
        out[f"value[d{i}]"] = res.value
    return out


def _assert_pcg_agree(got, want):
    """Bases, counts and y bit for bit; the scores (NaN at the same non-candidates) to 1e-10 and the value to
    rtol 1e-12: the kernels keep incremental per-sample state (G) or the closed-form gradient (F) and the value
    as the telescoping sum of the picked scores, the reference recomputes from scratch, so the sums are taken in
    another order (round-off of a few ulps)."""
    missing = sorted(set(want) - set(got))
    assert not missing, f"the kernel returns no {missing}"
    for name, value in want.items():
        if name.startswith("score_trace"):
            np.testing.assert_allclose(got[name], value, rtol=0, atol=1e-10, err_msg=name)  # NaNs must match too
        elif name.startswith("value"):
            np.testing.assert_allclose(got[name], value, rtol=1e-12, err_msg=name)
        else:
            assert_same(name, got[name], value)


_PCG_CASES = {f"{matroid}-eta{eta}": dict(matroid=matroid, eta=eta) for matroid in ("uniform", "partition")
              for eta in (0.25, 0.3)}


class TestPcgFacilityGTwin(KernelTwinContract):
    """pcg_facility_G_kernel (the fast facility path, scores G, s = 150) against the generic numpy path
    (``reference=True``) on instances 0 and 1, with the per-sample state memoised by row bitmask (``masks``,
    _MASK_MAX_ROWS = 12) or kept as Dmin (``dmin``, _MASK_MAX_ROWS = 0)."""

    kernels = (_k.pcg_facility_G_kernel,)
    CASES = _PCG_CASES
    VARIANTS = ("masks", "dmin")
    SEEDS = (0, 1)
    INSTANCES = (0, 1)

    def run_kernel(self, variant, case, seed):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(cg, "_MASK_MAX_ROWS", 12 if variant == "masks" else 0)
            return _pcg_runs(case, seed, self.INSTANCES, scores="G", s=150)

    def run_twin(self, case, seed):
        return _pcg_runs(case, seed, self.INSTANCES, scores="G", s=150, reference=True)

    def assert_agree(self, got, want):
        _assert_pcg_agree(got, want)


class TestPcgFacilityFTwin(KernelTwinContract):
    """pcg_facility_F_kernel (the fast facility path, scores exact_F) against the generic numpy path (``reference=True``,
    F by enumeration) on instances 0, 1 and 2."""

    kernels = (_k.pcg_facility_F_kernel,)
    CASES = _PCG_CASES
    SEEDS = (0, 1)
    INSTANCES = (0, 1, 2)

    def run_kernel(self, variant, case, seed):
        return _pcg_runs(case, seed, self.INSTANCES, scores="exact_F")

    def run_twin(self, case, seed):
        return _pcg_runs(case, seed, self.INSTANCES, scores="exact_F", reference=True)

    def assert_agree(self, got, want):
        _assert_pcg_agree(got, want)


# -------------------------------------------------------------- exact multilinear (§2.7)


@pytest.mark.parametrize("seed", range(4))
def test_facility_multilinear_equals_enumeration(seed):
    rng = np.random.default_rng(100 + seed)
    n = 8 if seed % 2 else 6
    d = _facility_instance(seed, n=n, m=5, n_dup=seed % 3)
    d[1, 2] = d[3, 2]  # a tie in one column
    enum = _Enum(_facility_f(d), n)
    x = rng.random(n)
    x[rng.integers(n)] = 1.0
    x[rng.integers(n)] = 0.0
    F, grad = facility_multilinear(d, x)
    assert F == pytest.approx(enum.F(x), rel=1e-12)
    for u in range(n):
        hi, lo = x.copy(), x.copy()
        hi[u], lo[u] = 1.0, 0.0
        assert grad[u] == pytest.approx(enum.F(hi) - enum.F(lo), abs=1e-12)
        # multilinearity: F(x + c·1_u) − F(x) = c·∂F/∂x_u
        c = 0.5 * (1.0 - x[u])
        step = x.copy()
        step[u] += c
        assert c * grad[u] == pytest.approx(enum.F(step) - enum.F(x), abs=1e-12)


def test_exact_F_increments_equal_enumeration_along_a_run():
    d = _facility_instance(5, n=7, m=6)
    mat = uniform_matroid(7, 3)
    eta = 0.3  # T·η > 1: the last step of an element is clipped at y_u = 1
    res = private_continuous_greedy(d, mat, eta=eta, eps0=5.0, rng=np.random.default_rng(5), scores="exact_F", record_scores=True)
    enum = _Enum(_facility_f(d), 7)
    k = np.zeros(7, dtype=int)
    for t in range(res.T):
        for i in range(res.rank):
            y = np.minimum(k * eta, 1.0)
            for u in np.flatnonzero(~np.isnan(res.score_trace[t, i])):
                y2 = y.copy()
                y2[u] = min(y[u] + eta, 1.0)
                assert res.score_trace[t, i, u] == pytest.approx(enum.F(y2) - enum.F(y), abs=1e-11)
            k[res.bases[t, i]] += 1
    assert res.value == pytest.approx(enum.F(np.minimum(k * eta, 1.0)), rel=1e-12)


# ------------------------------------------------------------------- G → F as s grows


def test_G_scores_converge_to_exact_F():
    """With ε0 = 0 the picks use only the Gumbel variates (drawn before R), so conditional on
    the path each G score is an unbiased mean of s i.i.d. X_j ∈ [0, f({u})], with
    Var X ≤ f({u})·E X = f({u})·w_F(u).  Require |w_G − w_F| ≤ 5 standard errors and the
    error to shrink ~ 1/√s (factor 8 expected from s = 500 to 32000; require > 3)."""
    d = _facility_instance(11, n=6, m=10, n_dup=0)
    mat = uniform_matroid(6, 2)
    eta = 0.25
    f_single = (1.0 - d).sum(axis=1)
    rms = []
    for s in (500, 32000):
        res = private_continuous_greedy(d, mat, eta=eta, eps0=0.0, rng=np.random.default_rng(3), scores="G", s=s, record_scores=True)
        k = np.zeros(6, dtype=int)
        errs = []
        for t in range(res.T):
            for i in range(res.rank):
                _, grad = facility_multilinear(d, k * eta)
                cand = ~np.isnan(res.score_trace[t, i])
                w_F = eta * grad[cand]
                w_G = res.score_trace[t, i, cand]
                se = np.sqrt(f_single[cand] * w_F / s)
                assert np.all(np.abs(w_G - w_F) <= 5 * se + 1e-12), (s, t, i)
                errs.append(w_G - w_F)
                k[res.bases[t, i]] += 1
        rms.append(np.sqrt(np.mean(np.concatenate(errs) ** 2)))
    assert rms[1] < rms[0] / 3


# --------------------------------------------------------------------- ε0 extremes


@pytest.mark.parametrize("scores", ["exact_F", "G"])
def test_large_eps0_picks_argmax_and_matches_deterministic_cg(scores):
    d = _facility_instance(21, n=6, m=8, n_dup=0)
    mat = uniform_matroid(6, 2)
    eta = 0.25
    enum = _Enum(_facility_f(d), 6)
    res = private_continuous_greedy(d, mat, eta=eta, eps0=1e6, rng=np.random.default_rng(0), scores=scores, s=20000, record_scores=True)
    # the pick maximises the algorithm's own scores (Gumbel noise ≤ ~30 ⇒ slack 2·30/ε0)
    for t in range(res.T):
        for i in range(res.rank):
            assert res.pick_scores[t, i] >= np.nanmax(res.score_trace[t, i]) - 1e-4
    if scores == "exact_F":
        unique = _replay_argmax(res, enum, mat, eta, measured=False, tol=1e-4)
        assert unique >= res.T * res.rank - 2
        np.testing.assert_allclose(res.y, _deterministic_cg(enum, mat, eta, measured=False))
    else:  # G with many samples lands on the same fractional point on this well-separated instance
        np.testing.assert_allclose(res.y, _deterministic_cg(enum, mat, eta, measured=False))


@pytest.mark.parametrize("scores", ["exact_F", "G"])
def test_eps0_zero_picks_uniformly_among_candidates(scores):
    d = _facility_instance(2, n=9, m=4, n_dup=3)
    mat = partition_matroid([0, 0, 0, 0, 1, 1, 1, 2, 2], [2, 1, 1])  # rank 4
    rng = np.random.default_rng(12345)
    ranks: dict[int, list[int]] = {}
    for _ in range(1500 if scores == "exact_F" else 600):
        res = private_continuous_greedy(d, mat, eta=0.5, eps0=0.0, rng=rng, scores=scores, s=20)
        for t in range(res.T):
            B: list[int] = []
            for i in range(res.rank):
                cand = np.flatnonzero(mat.can_add(np.array(B, dtype=np.int64)))
                pick = res.bases[t, i]
                assert pick in cand
                ranks.setdefault(cand.size, []).append(int(np.searchsorted(cand, pick)))
                B.append(pick)
    for size, obs in ranks.items():  # ~8 sizes × 2 tests: Bonferroni-style threshold 1e-4
        counts = np.bincount(obs, minlength=size)
        if len(obs) < 5 * size:
            continue
        assert stats.chisquare(counts).pvalue > 1e-4, (size, counts)


def test_eps0_zero_is_gumbel_argmax_of_the_documented_stream():
    """ε0 = 0: u* = argmax over candidates of the pre-drawn Gumbel variates rng.gumbel((T, r, n))."""
    d = _facility_instance(2, n=9, m=4, n_dup=3)
    mat = partition_matroid([0, 0, 0, 0, 1, 1, 1, 2, 2], [2, 1, 1])
    for scores in ("exact_F", "G"):
        rng, twin = np.random.default_rng(77), np.random.default_rng(77)
        for _ in range(30):
            res = private_continuous_greedy(d, mat, eta=0.5, eps0=0.0, rng=rng, scores=scores, s=10)
            g = twin.gumbel(size=(2, 4, 9))
            if scores == "G":
                twin.random((10, 9))
            for t in range(2):
                B: list[int] = []
                for i in range(4):
                    cand = mat.can_add(np.array(B, dtype=np.int64))
                    B.append(int(np.argmax(np.where(cand, g[t, i], -np.inf))))
                assert res.bases[t].tolist() == B


# ------------------------------------------------------------------ structure of output


@pytest.mark.parametrize("scores", ["G", "exact_F"])
@pytest.mark.parametrize("eta", [0.2, 0.3, 1 / 7])
@pytest.mark.parametrize("matroid_name", ["uniform", "partition"])
def test_y_and_bases_structure(scores, eta, matroid_name):
    d = _facility_instance(4)
    mat = MATROIDS[matroid_name](d.shape[0])
    r = mat.rank
    res = private_continuous_greedy(d, mat, eta=eta, eps0=1.0, rng=np.random.default_rng(9), scores=scores, s=100)
    T = num_rounds(eta)
    assert res.T == T and res.bases.shape == (T, r) and res.bases.dtype == np.int64
    for B in res.bases:
        assert mat.is_basis(B)
    np.testing.assert_array_equal(res.counts, np.bincount(res.bases.ravel(), minlength=mat.n))
    assert res.counts.sum() == T * r  # Σ_u y_u grows by r·η per round
    assert np.all(res.y <= 1.0 + 1e-12)
    assert res.y.sum() == pytest.approx(r * min(1.0, T * eta) / (T * eta) * T * eta)
    assert res.y.sum() == pytest.approx(r)  # Tη ≥ 1 and y is scaled by 1/(Tη) when Tη > 1
    np.testing.assert_allclose(res.y, sum(w * np.bincount(B, minlength=mat.n) for w, B in zip(res.weights, res.bases)))
    for part, cap in enumerate(mat.capacity):  # y ∈ P(M)
        assert res.y[mat.part_of == part].sum() <= cap + 1e-12


def test_figure2_partition_instance():
    """{A}, {B, C} with capacities 1: every B_t is {A, B} or {A, C}, so y_A = 1 (spec §2.6)."""
    rng = np.random.default_rng(0)
    d = np.clip(rng.random((3, 500)), 0.0, 1.0)
    mat = partition_matroid([0, 1, 1], [1, 1])
    for scores in ("G", "exact_F"):
        res = private_continuous_greedy(d, mat, eta=1 / 7, eps0=0.01, rng=np.random.default_rng(1), scores=scores, s=300)
        assert res.T == 7 and res.counts[0] == 7 and res.counts[1] + res.counts[2] == 7
        assert res.y[0] == pytest.approx(1.0) and res.y[1] + res.y[2] == pytest.approx(1.0)


def test_pcg_on_generic_objective_structure():
    f = CutFunction(5, np.array([(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]))
    res = private_continuous_greedy(f, uniform_matroid(5, 2), eta=0.5, eps0=1.0, rng=np.random.default_rng(0), s=50)
    assert res.bases.shape == (2, 2) and all(len(set(B)) == 2 for B in res.bases)
    assert res.value_kind == "G" and res.counts.sum() == 4


def test_determinism_same_seed_same_result():
    d = _facility_instance(8, n=30, m=20, n_dup=10)
    mat = uniform_matroid(30, 5)
    for scores in ("G", "exact_F"):
        a, b, c = (
            private_continuous_greedy(d, mat, eta=0.2, eps0=0.5, rng=np.random.default_rng(seed), scores=scores, s=200)
            for seed in (1, 1, 2)
        )
        for field in ("counts", "y", "bases", "weights", "pick_scores"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
        assert a.value == b.value
        assert not np.array_equal(a.bases, c.bases)
    f = CutFunction(6, np.array([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)]))
    p, q = (private_measured_continuous_greedy(f, uniform_matroid(6, 3), eta=0.25, eps0=1.0, rng=np.random.default_rng(4), s=100) for _ in range(2))
    np.testing.assert_array_equal(p.bases, q.bases)
    np.testing.assert_array_equal(p.y, q.y)


def test_facility_location_object_and_array_agree():
    d = _facility_instance(3)
    mat = uniform_matroid(d.shape[0], 3)
    a = private_continuous_greedy(d, mat, eta=0.25, eps0=1.0, rng=np.random.default_rng(0), s=64)
    b = private_continuous_greedy(FacilityLocation(d), mat, eta=0.25, eps0=1.0, rng=np.random.default_rng(0), s=64)
    np.testing.assert_array_equal(a.bases, b.bases)
    assert a.score_trace is None


# ------------------------------------------------------------------------- PMCG (§2.3)

_CUT6 = CutFunction(6, np.array([(0, 1), (0, 2), (1, 2), (1, 3), (2, 4), (3, 4), (3, 5), (4, 5), (0, 5)]))
_K6 = CutFunction(6, np.array(list(itertools.combinations(range(6), 2))))


def _check_pmcg_structure(res, mat, eta):
    T, r = num_rounds(eta), mat.rank
    assert res.bases.shape == (T, r)
    for B in res.bases:
        real = B[B >= 0]
        assert len(set(real.tolist())) == real.size and mat.is_independent(real)
    np.testing.assert_array_equal(res.counts, np.bincount(res.bases[res.bases >= 0], minlength=mat.n))
    base_y = 1.0 - (1.0 - eta) ** res.counts
    np.testing.assert_allclose(res.y, base_y / max(1.0, T * eta))
    assert np.all((0.0 <= res.y) & (res.y <= 1.0))
    dominating = (res.weights[:, None, None] * (res.bases[:, :, None] == np.arange(mat.n))).sum(axis=(0, 1))
    assert np.all(res.y <= dominating + 1e-12)  # y ≤ Σ_t w_t 1_{B_t}


@pytest.mark.parametrize("seed", range(3))
def test_pmcg_cut_large_eps0_close_to_deterministic_measured_cg(seed):
    mat = uniform_matroid(6, 3)
    eta = 0.2
    enum = _Enum(lambda S: _CUT6.value(S), 6)
    res = private_measured_continuous_greedy(_CUT6, mat, eta=eta, eps0=1e6, rng=np.random.default_rng(seed), s=4000)
    _check_pmcg_structure(res, mat, eta)
    F_det = enum.F(_deterministic_cg(enum, mat, eta, measured=True))
    assert abs(enum.F(res.y) - F_det) <= 0.03 * F_det
    # and clearly better than the data-independent (ε0 = 0) run
    rand = private_measured_continuous_greedy(_CUT6, mat, eta=eta, eps0=0.0, rng=np.random.default_rng(seed), s=4000)
    assert enum.F(res.y) > enum.F(rand.y) + 0.5


def test_pmcg_exact_scores_pick_argmax_including_dummies():
    """K6 cut, r = 5: ∂F/∂x_u = Σ_{v≠u}(1 − 2y_v) turns negative, so dummies (score 0) must win then."""
    mat = uniform_matroid(6, 5)
    eta = 0.25
    enum = _Enum(lambda S: _K6.value(S), 6)
    res = private_measured_continuous_greedy(_K6, mat, eta=eta, eps0=1e6, rng=np.random.default_rng(0), scores="exact_F", record_scores=True)
    _check_pmcg_structure(res, mat, eta)
    _replay_argmax(res, enum, mat, eta, measured=True, tol=1e-4)
    assert (res.bases == -1).any()
    assert np.all(res.pick_scores >= -1e-4)
    assert res.score_trace.shape == (num_rounds(eta), 5, 6 + 5)


def test_pmcg_G_scores_match_measured_increments():
    """Generic G scores with the measured step agree with exact F increments within sampling error."""
    mat = uniform_matroid(6, 3)
    eta = 0.25
    enum = _Enum(lambda S: _CUT6.value(S), 6)
    res = private_measured_continuous_greedy(_CUT6, mat, eta=eta, eps0=0.0, rng=np.random.default_rng(1), s=20000, record_scores=True)
    _check_pmcg_structure(res, mat, eta)
    k = np.zeros(6, dtype=int)
    for t in range(res.T):
        for i in range(res.rank):
            y = 1.0 - (1.0 - eta) ** k
            for u in np.flatnonzero(~np.isnan(res.score_trace[t, i, :6])):
                y2 = y.copy()
                y2[u] = y[u] + eta * (1.0 - y[u])
                exact = enum.F(y2) - enum.F(y)
                # per-sample increment ∈ [−deg, deg] (deg ≤ 3), nonzero w.p. η(1 − y_u) ≤ η
                se = 3.0 * np.sqrt(eta * (1.0 - y[u]) / 20000)
                assert abs(res.score_trace[t, i, u] - exact) <= 5 * se
            np.testing.assert_array_equal(res.score_trace[t, i, 6:][~np.isnan(res.score_trace[t, i, 6:])], 0.0)
            pick = res.bases[t, i]
            if pick >= 0:
                k[pick] += 1


# ------------------------------------------------------------------------- validation


def test_num_rounds():
    assert [num_rounds(e) for e in (0.2, 1 / 7, 0.3, 1.0, 1 / 3, 0.1)] == [5, 7, 4, 1, 3, 10]


def test_input_validation():
    d = _facility_instance(0)
    mat = uniform_matroid(d.shape[0], 2)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError):
        private_continuous_greedy(d, mat, eta=0.0, eps0=1.0, rng=rng)
    with pytest.raises(ValueError):
        private_continuous_greedy(d, mat, eta=0.2, eps0=-1.0, rng=rng)
    with pytest.raises(ValueError):
        private_continuous_greedy(d, mat, eta=0.2, eps0=1.0, rng=rng, scores="F")
    with pytest.raises(ValueError):
        private_continuous_greedy(d, uniform_matroid(3, 2), eta=0.2, eps0=1.0, rng=rng)
    with pytest.raises(ValueError):
        private_continuous_greedy(d + 1.0, mat, eta=0.2, eps0=1.0, rng=rng)
    with pytest.raises(ValueError):
        private_continuous_greedy(d, mat, eta=0.2, eps0=1.0, rng=rng, s=0)
