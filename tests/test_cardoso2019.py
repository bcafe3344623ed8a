"""Rivera Cardoso & Cummings: Lovász extension, cut instances, comparators, SubmodPFTAL / BanditSubmodPFTAL
and the privacy checks (spec online-convex-and-submodular-min.md, "Unit tests required before any figure")."""

from __future__ import annotations

import gzip
import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import linprog

from privopt.experiments.cardoso2019.grid import GRIDS, grid_cells, grid_edges, grid_shape, rc_mrf, rc_zero
from privopt.experiments.cardoso2019.runs import rc_rows
from privopt.fastrng import FastGenerator
from privopt.online.submod_pftal.algorithm import (bandit_estimate_law, bandit_setup, bound_bandit, bound_full,
                                                   full_setup, run_submod)
from privopt.online.submod_pftal.kernels import submod_bandit_kernel, submod_full_kernel
from privopt.online.submod_pftal.reference import submod_bandit_reference, submod_full_reference
from privopt.submodular.cuts import (cut_chain_into, cut_lovasz_closed, cut_values, enumerate_minimum, lp_minimum,
                                     padded_adjacency, sort_chain)
from privopt.submodular.lovasz import (all_masks, chain, is_submodular, lovasz_by_integral, lovasz_value_grad,
                                       round_level_set)
from privopt.pipeline.errors import ConfigError, config_key
from kernel_contract import KernelTwinContract

SUBSET = Path(__file__).resolve().parents[2] / "shared" / "data" / "uber-raw-data-apr14.subset.csv.gz"


def _random_cut(rng, n, p_edge=0.5):
    edges = np.array([(i, j) for i, j in itertools.combinations(range(n), 2) if rng.random() < p_edge] or [(0, 1)])
    return rng.normal(size=n), edges, rng.random(len(edges))


def _x_with_ties(rng, n):
    return rng.choice([0.0, 0.2, 0.5, 0.5, 0.8, 1.0, rng.random()], size=n)


# ------------------------------------------------------------------------------------------ submodularity

@pytest.mark.parametrize("n", [4, 8])
def test_instances_are_submodular_and_bounded(n):
    inst = rc_mrf(n)
    qbar = np.arange(1, n + 1) / (n * (n + 1) / 2)
    zero = rc_zero(n, qbar)
    masks = all_masks(n)
    for cell in range(n):
        for instance in (inst, zero):
            ok, why = is_submodular(lambda m: instance.values(m, cell), n)
            assert ok, why
            vals = instance.values(masks, cell)
            assert np.abs(vals).max() <= instance.M
        vals = inst.values(masks, cell)
        assert vals[0] == 0 and abs(vals[-1]) < 1e-12  # f(∅) = f([n]) = 0
        assert vals.min() >= -0.5 - 1e-12 and vals.max() <= 0.5 * 1.25 + 1e-12


def test_submodularity_check_can_fail():
    n = 4
    a, edges, w = np.zeros(n), grid_edges(2, 2), np.ones(4)
    ok, _ = is_submodular(lambda m: -cut_values(a, edges, w, m), n)  # a negative cut is supermodular
    assert not ok
    cover = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 1, 1]], dtype=float)
    coverage = lambda m: (m.astype(float) @ cover > 0).sum(axis=1)  # noqa: E731
    assert is_submodular(coverage, n)[0]
    assert not is_submodular(lambda m: m.sum(axis=1) * 0.1 - coverage(m), n)[0]  # spec A15: supermodular


# ------------------------------------------------------------------------------------------ Lovász extension

def _base_polytope_max(f, n, x):
    """max ⟨s, x⟩ over the base polytope s(A) ≤ f(A), s([n]) = f([n]) (= f̂(x) for submodular f, f(∅) = 0)."""
    masks = all_masks(n)
    vals = f(masks)
    res = linprog(-x, A_ub=masks[1:-1].astype(float), b_ub=vals[1:-1], A_eq=masks[-1:].astype(float),
                  b_eq=vals[-1:], bounds=[(None, None)] * n, method="highs")
    assert res.status == 0
    return -res.fun


def test_lovasz_against_brute_force():
    rng = np.random.default_rng(1)
    for trial in range(20):
        n = int(rng.integers(2, 7))
        a, edges, w = _random_cut(rng, n)
        f = lambda m: cut_values(a, edges, w, m)  # noqa: E731
        masks = all_masks(n)
        for m in masks[:: max(1, len(masks) // 8)]:  # f̂(χ_S) = f(S)
            assert lovasz_value_grad(f, m.astype(float))[0] == pytest.approx(f(m[None])[0], abs=1e-12)
        for _ in range(5):
            x = _x_with_ties(rng, n)
            val, g = lovasz_value_grad(f, x)
            assert val == pytest.approx(lovasz_by_integral(f, x), abs=1e-10)
            assert val == pytest.approx(_base_polytope_max(f, n, x), abs=1e-7)
            assert np.abs(g).sum() <= 4 * np.abs(f(masks)).max() + 1e-9  # RC Lemma 3
            for _ in range(5):  # subgradient inequality and convexity
                y = rng.random(n)
                fy = lovasz_value_grad(f, y)[0]
                assert fy >= val + g @ (y - x) - 1e-9
                mid = lovasz_value_grad(f, (x + y) / 2)[0]
                assert mid <= (val + fy) / 2 + 1e-9


def test_lovasz_extension_of_a_nonsubmodular_function_is_not_convex():
    """The checks above can fail: for a supermodular f the chain 'subgradient' violates the inequality."""
    n = 4
    a, edges, w = np.zeros(n), grid_edges(2, 2), np.ones(4)
    f = lambda m: -cut_values(a, edges, w, m)  # noqa: E731
    rng = np.random.default_rng(0)
    bad = 0
    for _ in range(50):
        x, y = rng.random(n), rng.random(n)
        val, g = lovasz_value_grad(f, x)
        bad += lovasz_value_grad(f, y)[0] < val + g @ (y - x) - 1e-9
    assert bad > 0


def test_rounding_is_unbiased():
    rng = np.random.default_rng(2)
    a, edges, w = _random_cut(rng, 6)
    f = lambda m: cut_values(a, edges, w, m)  # noqa: E731
    x = _x_with_ties(rng, 6)
    taus = rng.random(20000)
    vals = f(np.array([round_level_set(x, t) for t in taus]))
    fx = lovasz_value_grad(f, x)[0]
    assert abs(vals.mean() - fx) < 4 * vals.std() / math.sqrt(taus.size) + 1e-12
    perm, theta = chain(x)
    assert np.all(theta >= -1e-15) and theta.sum() == pytest.approx(1.0)
    assert np.allclose(sum(theta[k] * np.isin(np.arange(6), perm[:k]) for k in range(7)), x)


def test_chain_form_equals_cut_closed_form_with_ties_and_numba_kernel():
    rng = np.random.default_rng(3)
    for trial in range(60):
        n = int(rng.integers(2, 10))
        a, edges, w = _random_cut(rng, n)
        x = _x_with_ties(rng, n)
        val, g = lovasz_value_grad(lambda m: cut_values(a, edges, w, m), x)
        cval, cg = cut_lovasz_closed(a, edges, w, x)
        assert cval == pytest.approx(val, abs=1e-12)
        np.testing.assert_allclose(cg, g, atol=1e-12)
        # the kernels: insertion sort from a scrambled order, then the chain values
        perm = rng.permutation(n).astype(np.int64)
        sort_chain(x, perm, n, np.zeros(n + 1, dtype=np.int64))
        np.testing.assert_array_equal(perm, np.argsort(-x, kind="stable"))
        nbr, wts = padded_adjacency(n, edges, w)
        pairs = sorted((int(i), int(j), float(x)) for i in range(n) for j, x in zip(nbr[i], wts[i]) if j < n)
        both = [(int(i), int(j), float(x)) for (i, j), x in zip(edges, w)] + [(int(j), int(i), float(x))
                                                                            for (i, j), x in zip(edges, w)]
        assert pairs == sorted(both) and (wts[nbr == n] == 0).all()  # every edge both ways; padding weighs 0
        vals, kg = np.zeros(n + 1), np.zeros(n)
        cut_chain_into(a, nbr, wts, perm, n, np.zeros(n + 1, dtype=np.bool_), vals, kg)
        np.testing.assert_allclose(kg, g, atol=1e-12)
        np.testing.assert_allclose(vals[1:], np.cumsum(g[perm]), atol=1e-12)


# ------------------------------------------------------------------------------------------ bandit estimator

@pytest.mark.parametrize("n", [4, 8])
def test_bandit_estimator_exact_enumeration(n):
    rng = np.random.default_rng(4 + n)
    inst = rc_mrf(n)
    for T in (n**4, 2 * n**4, 4 * n**4 * 16):
        s = bandit_setup(n, T, 1.0)
        for trial in range(10):
            x = _x_with_ties(rng, n)
            cell = int(rng.integers(n))
            f = lambda m: inst.values(m, cell)  # noqa: E731
            perm, theta = chain(x)
            vals = f(np.array([np.isin(np.arange(n), perm[:k]) for k in range(n + 1)]))
            fx, grad = lovasz_value_grad(f, x)
            law = bandit_estimate_law(vals, x, s.gamma)
            p = np.array([q for q, _, _ in law])
            G = np.array([gh for _, _, gh in law])
            ks = np.array([k for _, k, _ in law])
            assert p.sum() == pytest.approx(1.0)
            np.testing.assert_allclose(p @ G, grad, atol=1e-12)  # unbiased (RC Lemma 4)
            rho = (1 - s.gamma) * theta + s.gamma / (n + 1)
            second = p @ np.sum(G * G, axis=1)
            factor = np.where((np.arange(n + 1) == 0) | (np.arange(n + 1) == n), 1.0, 4.0)
            assert second == pytest.approx(np.sum(factor * vals**2 / rho), rel=1e-12)
            assert second <= 4 * inst.M**2 * (n + 1) ** 2 / s.gamma <= 16 * inst.M**2 * n**2 / s.gamma
            assert p @ vals[ks] - fx <= 2 * s.gamma * inst.M + 1e-12  # RC Lemma 6
            assert np.sqrt(np.sum(G * G, axis=1)).max() + s.H * np.sqrt(n) <= s.mu  # ‖z‖ ≤ μ
            # the paper's bound does not hold (spec A8) when γ is large enough to matter
        paper = bandit_setup(n, n**4, 1.0, mu_rule="paper")
        assert not paper.private_as_stated and paper.mu < 2 * inst.M * (n + 1) / paper.gamma


# ------------------------------------------------------------------------------------------ comparators

@pytest.mark.parametrize("n", [4, 8, 16])
def test_lp_equals_enumeration(n):
    rng = np.random.default_rng(5 + n)
    inst = rc_mrf(n)
    for trial in range(3):
        cells = rng.choice(n, size=int(rng.integers(50, 400)), p=rng.dirichlet(np.ones(n)))
        lp = inst.best(cells)
        en = enumerate_minimum(inst.total_unary(cells), inst.edges, cells.size * inst.w)
        assert lp["value"] == pytest.approx(en["value"], abs=1e-9)
        assert lp["lp_value"] == pytest.approx(en["value"], abs=1e-7)
        assert cut_values(inst.total_unary(cells), inst.edges, cells.size * inst.w, lp["mask"][None])[0] == \
            pytest.approx(lp["value"])
    for trial in range(3):  # random graphs and weights, not only grids
        a, edges, w = _random_cut(rng, min(n, 12))
        assert lp_minimum(a, edges, w)["value"] == pytest.approx(enumerate_minimum(a, edges, w)["value"], abs=1e-9)


# ------------------------------------------------------------------------------------------ learners

def _states(R, offset):
    return np.stack([FastGenerator(offset + r).state for r in range(R)])


def _pftal_stream(case):
    """The instance, the cell streams (two rows, fixed by the case) and the replicas' setups of a case."""
    inst = rc_mrf(case["n"])
    rng = np.random.default_rng(case["cells_seed"])
    cells = rng.choice(case["n"], size=(2, case["T"]), p=rng.dirichlet(np.ones(case["n"])))
    return inst, cells, [case["setup"](case["n"], case["T"], e) for e in case["eps"]]


def _pftal_kernel_run(case, seed, **record):
    """run_submod on the case's replicas, replica r drawing noise from FastGenerator(1000·seed + r) and play
    from FastGenerator(1000·seed + play_offset + r) (seed 0: the streams the tests used before the contract);
    returns run_submod's dict with the two states arrays it left behind."""
    inst, cells, setups = _pftal_stream(case)
    R = len(setups)
    noise, play = _states(R, 1000 * seed), _states(R, 1000 * seed + case["play_offset"])
    out = run_submod(inst, cells, np.array(case["rows"]), setups, noise, play, **record)
    return {**out, "noise": noise, "play": play}


def _pftal_twin_gens(case, seed):
    R = len(case["eps"])
    return ([FastGenerator(1000 * seed + r) for r in range(R)],
            [FastGenerator(1000 * seed + case["play_offset"] + r) for r in range(R)])


class TestSubmodFullTwin(KernelTwinContract):
    """submod_full_kernel (run_submod, SubmodPFTAL) against submod_full_reference on per-replica FastGenerators:
    the private replicas' expected and realised losses and max ratios, and the noise and play states left behind,
    bit for bit; the ε = ∞ replica's expected loss to rtol 2e-3 (:meth:`assert_agree`)."""

    kernels = (submod_full_kernel,)
    CASES = {"n8-T300": dict(n=8, T=300, cells_seed=6, eps=(1.0, 10.0, math.inf, 3.0), rows=(0, 0, 1, 1),
                             play_offset=100, setup=full_setup)}
    SEEDS = (0, 1)

    @staticmethod
    def _split(case, ex, re, ratio, noise, play):
        """The private replicas' values, the states, and the ε = ∞ replica's expected loss."""
        priv = np.array([not math.isinf(e) for e in case["eps"]])
        return {"exp_loss": ex[priv], "real_loss": re[priv], "max_ratio": ratio[priv], "noise": noise, "play": play,
                "exp_loss at eps=inf": ex[~priv]}

    def run_kernel(self, variant, case, seed):
        out = _pftal_kernel_run(case, seed)
        inf = np.array([math.isinf(e) for e in case["eps"]])
        return {**self._split(case, out["exp_loss"], out["real_loss"], out["max_ratio"], out["noise"], out["play"]),
                "real_loss at eps=inf": out["real_loss"][inf], "max_ratio at eps=inf": out["max_ratio"][inf]}

    def run_twin(self, case, seed):
        inst, cells, setups = _pftal_stream(case)
        ng, pg = _pftal_twin_gens(case, seed)
        ex, re, ratio = submod_full_reference(inst, cells, np.array(case["rows"]), case["T"], [s.H for s in setups],
                                          [s.mu for s in setups], [s.lam for s in setups], ng, pg)
        # ε = ∞: only the expected loss is compared (the realised loss, whose sets S_t follow the ties, is not)
        return self._split(case, ex, re, ratio, np.stack([g.state for g in ng]), np.stack([g.state for g in pg]))

    def assert_agree(self, got, want):
        # ε = ∞: exact ties between coordinates of x, which the numpy closed-form subgradient may split by one ulp,
        # can be broken differently (privopt.online.submod_pftal.reference's docstring), so the iterates part and the
        # expected loss agrees to rtol 2e-3 only; everything else bit for bit
        close = "exp_loss at eps=inf"
        np.testing.assert_allclose(got[close], want[close], rtol=2e-3, err_msg=close)
        exact = lambda d: {k: v for k, v in d.items() if k != close}  # noqa: E731
        super().assert_agree(exact(got), exact(want))

    def test_eps_inf_is_the_regularised_form(self, case_id):
        """ε = ∞: x_{t+1} = clip(−Σ_{τ≤t} g_τ/(Ht), 0, 1) (spec §2.7 line 7), and f̂ summed = exp_loss."""
        case = self.CASES[case_id]
        out = _pftal_kernel_run(case, self.SEEDS[0], record_x=True)
        inst, cells, setups = _pftal_stream(case)
        n, r = case["n"], case["eps"].index(math.inf)
        X, H, G, total = out["x"][r], setups[r].H, np.zeros(n), 0.0
        for t in range(case["T"]):
            val, g = lovasz_value_grad(lambda m: inst.values(m, cells[case["rows"][r], t]), X[t])
            total += val
            G += g
            np.testing.assert_allclose(X[t + 1], np.clip(-G / (H * (t + 1)), 0, 1), atol=1e-10)
        assert total == pytest.approx(out["exp_loss"][r], abs=1e-9)
        assert np.all(out["max_ratio"] <= 1)


class TestSubmodBanditTwin(KernelTwinContract):
    """submod_bandit_kernel (run_submod, BanditSubmodPFTAL) against submod_bandit_reference on per-replica
    FastGenerators: expected and realised losses, max ratios and the noise and play states left behind, bit for
    bit (two private replicas and ε = ∞); and the played chain index k lies in 0..n."""

    kernels = (submod_bandit_kernel,)
    CASES = {"n4-T512": dict(n=4, T=512, cells_seed=7, eps=(3.0, 30.0, math.inf), rows=(0, 1, 1), play_offset=50,
                             setup=bandit_setup)}
    SEEDS = (0, 1)

    def run_kernel(self, variant, case, seed):
        out = _pftal_kernel_run(case, seed, record_k=True)
        return {key: out[key] for key in ("exp_loss", "real_loss", "max_ratio", "noise", "play", "k")}

    def run_twin(self, case, seed):
        inst, cells, setups = _pftal_stream(case)
        ng, pg = _pftal_twin_gens(case, seed)
        ex, re, ratio = submod_bandit_reference(inst, cells, np.array(case["rows"]), case["T"], [s.H for s in setups],
                                            [s.gamma for s in setups], [s.mu for s in setups], [s.lam for s in setups],
                                            ng, pg)
        return {"exp_loss": ex, "real_loss": re, "max_ratio": ratio, "noise": np.stack([g.state for g in ng]),
                "play": np.stack([g.state for g in pg])}

    def test_plays_a_set_of_the_chain(self, case_id):
        k = self.run_kernel("kernel", self.CASES[case_id], self.SEEDS[0])["k"]
        assert k.min() >= 0 and k.max() <= self.CASES[case_id]["n"]


def test_regret_nonprivate_small_and_realised_agrees_with_expected():
    n, T, R = 8, 1024, 24
    inst = rc_mrf(n)
    rng = np.random.default_rng(8)
    p = rng.dirichlet(np.ones(n) * 2)
    cells = rng.choice(n, size=(R, T), p=p)
    best = np.array([inst.best(c)["value"] for c in cells])
    for eps in (math.inf, 10.0):
        setups = [full_setup(n, T, eps)] * R
        out = run_submod(inst, cells, np.arange(R), setups, _states(R, 1000), _states(R, 2000))
        exp_regret, real_regret = out["exp_loss"] - best, out["real_loss"] - best
        diff = real_regret - exp_regret
        assert abs(diff.mean()) <= 3 * diff.std(ddof=1) / math.sqrt(R) + 1e-9  # C-U2
        assert exp_regret.mean() <= bound_full(setups[0])  # C-U1
        if math.isinf(eps):
            assert exp_regret.mean() < 10
    s = bandit_setup(4, 4096, 10.0)
    assert bound_bandit(s) > 0 and s.gamma == pytest.approx(4 / 8)


@pytest.mark.parametrize("experiment, point, settings", [
    ("rc1a", {"T": 256}, {"n": 8, "eps": [10.0]}),
    ("rc1b", {"T": 256}, {"n": 4, "eps": [100.0]}),
    ("rc2a", {"n": 4}, {"T": 128, "eps": [100.0]}),
    ("rc4", {"T": 128}, {"n": 8, "eps": [10.0]}),
])
def test_job_rows_are_deterministic_and_independent_of_the_seed_blocks(experiment, point, settings, tmp_path):
    """A run's rows depend on (experiment, point, settings, seed) only: the same whichever job (seed
    block) computes them, so no --cores, job order or seeds_per_job changes a table."""
    from privopt.experiments.cardoso2019.paper import PAPER

    rng = np.random.default_rng(3)
    pool = pd.DataFrame({f"cell{n}": rng.integers(0, n, size=500) for n in GRIDS})
    pool.to_parquet(tmp_path / "cells.parquet")
    settings = {**settings, "c_sens": 2.0, "lambda_g": 0.25}
    exp, inputs, key = PAPER.experiment(experiment), {"cells": str(tmp_path)}, ["eps", "seed"]
    rows = lambda seeds: exp.execute(point, settings, seeds, inputs)["runs"].drop(columns="wall_s")  # noqa: E731
    both = rows([0, 1, 2])
    pd.testing.assert_frame_equal(both, rows([0, 1, 2]))
    split = pd.concat([rows([0]), rows([1, 2])])
    pd.testing.assert_frame_equal(both.sort_values(key).reset_index(drop=True),
                                  split.sort_values(key).reset_index(drop=True))
    assert len(both) == 3 * 2 and both["eps"].apply(math.isinf).sum() == 3
    assert both.groupby("eps")["regret_expected"].nunique().min() > 1  # the seeds differ


# ------------------------------------------------------------------------------------------ bad input

def test_bad_inputs_name_the_parameter_and_the_config_key():
    # the library and the grid helpers name their parameter (a ValueError, never a ConfigError) ...
    with pytest.raises(ValueError, match="^n: the Uber box supports the grids") as err:
        grid_shape(12)
    assert not isinstance(err.value, ConfigError)
    with pytest.raises(ValueError, match="^T: BanditSubmodPFTAL needs T >= n\\^4 = 4096") as err:
        bandit_setup(8, 1024, 1.0)  # γ = 8/1024^¼ > 1
    assert not isinstance(err.value, ConfigError)
    assert bandit_setup(8, 1024, 1.0, allow_pure_exploration=True).gamma == 1.0
    assert bandit_setup(16, 2**16, 1.0).gamma == 1.0
    with pytest.raises(ValueError, match="^n: the Uber box supports"):
        grid_cells(np.full(10, 40.7), np.full(10, -74.0), 128)  # finer than 8x8
    with pytest.raises(ValueError, match="^n: no pickup lies in the grid box"):
        grid_cells(np.full(10, 41.7), np.full(10, -74.0), 4)
    with pytest.raises(ValueError, match="^lambda_g: the cut weight"):
        rc_mrf(4, 1.5)
    # ... and the paper's code names the config key (the messages users saw before)
    with pytest.raises(ConfigError, match="^cardoso2019.rc2.n: the Uber box supports the grids n in"):
        with config_key("cardoso2019.rc2.n", "n"):
            grid_shape(12)
    with pytest.raises(ConfigError, match="^cardoso2019.grid: no pickup lies in the grid box"):
        with config_key("cardoso2019.grid", "n"):
            grid_cells(np.full(10, 41.7), np.full(10, -74.0), 4)
    with pytest.raises(ValueError, match="^lambda_g") as err:  # another parameter passes through
        with config_key("cardoso2019.rc2.n", "n"):
            rc_mrf(4, 1.5)
    assert not isinstance(err.value, ConfigError)
    cells = np.zeros((1, 1024), dtype=np.int64)
    with pytest.raises(ConfigError, match="^cardoso2019.rc1b.T: BanditSubmodPFTAL needs T >= n\\^4 = 4096 "
                                          "so that gamma = n/T\\^\\(1/4\\) <= 1 \\(got T = 1024, n = 8"):
        rc_rows("rc1b", "bandit", rc_mrf(8), 1024, [1.0], [0], cells, key="cardoso2019.rc1b.T")
    from privopt.experiments.cardoso2019.privacy import audit_instance

    inst = audit_instance()  # the guard: the paper's bandit μ is exceeded (spec A8), never clipped
    cells = np.random.default_rng(0).integers(0, 4, size=(1, 256))
    paper = bandit_setup(4, 256, 1.0, mu_rule="paper")
    with pytest.raises(ValueError, match="bound mu"):
        run_submod(inst, cells, [0], [paper], _states(1, 0), _states(1, 9))
    out = run_submod(inst, cells, [0], [paper], _states(1, 0), _states(1, 9), allow_unbounded=True)
    assert out["max_ratio"][0] > 1
    with pytest.raises(ValueError, match="mode, n and T"):
        run_submod(inst, cells, [0, 0], [paper, full_setup(4, 256, 1.0)], _states(2, 0), _states(2, 9))


def test_grid_cells_formula():
    lat = np.array([40.68, 40.75, 40.77, 40.8399, 40.84, 40.70])
    lon = np.array([-74.03, -73.97, -73.96, -73.9001, -73.95, -74.10])
    k_lat, k_lon = grid_shape(4)
    lat4 = np.concatenate([lat, [40.70, 40.80, 40.70, 40.80]])
    lon4 = np.concatenate([lon, [-74.0, -74.0, -73.92, -73.92]])
    cell, keep = grid_cells(lat4, lon4, 4)
    assert keep.tolist() == [True, True, True, True, False, False, True, True, True, True]
    assert cell[:4].tolist() == [0, 0, 3, 3]
    assert len(grid_edges(*GRIDS[64])) == 112 and len(grid_edges(*GRIDS[8])) == 10


@pytest.mark.skipif(not SUBSET.exists(), reason=f"the shared Uber subset is absent ({SUBSET})")
def test_uber_subset_fills_every_grid():
    with gzip.open(SUBSET, "rt") as fh:
        next(fh)
        rows = [line.split(",") for _, line in zip(range(30000), fh)]
    lat = np.array([float(r[1]) for r in rows])
    lon = np.array([float(r[2]) for r in rows])
    for n in GRIDS:
        cell, keep = grid_cells(lat, lon, n)
        assert 0.8 < keep.mean() < 0.95
        counts = np.bincount(cell[keep], minlength=n)
        assert counts.sum() == keep.sum() and (n >= 32 or counts.min() > 0)


# ------------------------------------------------------------------------------------------ privacy

def test_privacy_checks_pass_and_catch_planted_bugs():
    from privopt.experiments.cardoso2019.paper import PAPER
    from privopt.experiments.cardoso2019.privacy import exact_eps

    assert exact_eps(False) < 1.0 < 2.0 < exact_eps(True)
    assert 1.0 < exact_eps("subtle") < 1.5  # c_sens = 1 alone: a real violation, within 1.5x of the claim
    df = PAPER.experiment("privacy").execute({}, {"samples": 60_000, "seed": 0}, [0], {})["runs"]
    got = {(a, v): r for a, v, r in zip(df["audit"], df["variant"], df["result"])}
    for audit in ("submod_bandit_releases", "submod_bandit_bound", "submod_full_bound"):
        assert got[(audit, "correct")] == "pass"
        assert got[(audit, "planted")] == "caught"
    # issue 23: the bandit learner dilutes the leakage; the row says so and shows the subtle bug missed
    row = df[(df["audit"] == "submod_bandit_releases")].set_index("variant")
    assert (row["tightness"] == "diluted").all() and "not seen" in row.loc["correct", "tightness_note"]
    assert row.loc["subtle", "result"] == "missed"
    assert row.loc["subtle", "eps_lb"] < 0.8 * row.loc["subtle", "exact_eps"]
    # with the learner's coins revealed the audit is tight: c_sens = 1 alone is caught, the correct one passes
    coins = df[(df["audit"] == "submod_bandit_coins")].set_index("variant")
    assert (coins["tightness"] == "tight").all() and coins.loc["correct", "samples"] == 600_000
    assert coins.loc["correct", "eps_lb"] <= 1.0 and coins.loc["correct", "exact_eps"] == pytest.approx(0.9224, abs=1e-4)
    assert coins.loc["subtle", "result"] == "caught" and coins.loc["planted", "result"] == "caught"
    assert (coins["eps_lb"] <= coins["exact_eps"]).all()


def test_coins_loss_is_the_exact_likelihood_ratio():
    """E_D[e^{−loss}] = 1 and E_D'[e^{loss}] = 1 hold only for the exact log-likelihood ratio of the view
    (a wrongly rebuilt z_2, sign or node would break them), within 4 standard errors; |loss| ≤ the exact ε."""
    from privopt.experiments.cardoso2019.privacy import coins_audit, coins_exact_eps, coins_loss

    a = coins_audit(1000)
    rng = np.random.default_rng(3)
    for which, sign in ((0, -1.0), (1, 1.0)):
        loss = coins_loss(a.sampler("correct", which, 100_000, rng))
        w = np.exp(sign * loss)
        assert abs(w.mean() - 1.0) <= 4 * w.std() / math.sqrt(w.size), (which, w.mean())
        assert np.abs(loss).max() <= coins_exact_eps("correct") + 1e-12
    # the statistic is not a constant: it separates the inputs
    assert coins_loss(a.sampler("correct", 0, 20_000, rng)).mean() > coins_loss(a.sampler("correct", 1, 20_000, rng)).mean()


def test_sort_chain_fallback_is_the_stable_argsort():
    """Far from sorted (> 4n shifts), the kernel sorts from scratch; same order, ties by index."""
    rng = np.random.default_rng(9)
    for n in (16, 64):
        for x in (rng.random(n), np.round(rng.random(n) * 2) / 2):
            perm = np.argsort(x, kind="stable")[::-1].astype(np.int64).copy()  # reversed: n(n−1)/2 shifts
            sort_chain(x, perm, n, np.zeros(n + 1, dtype=np.int64))
            np.testing.assert_array_equal(perm, np.argsort(-x, kind="stable"))


@pytest.mark.parametrize("mode", ["full", "bandit"])
def test_realised_loss_is_unbiased_for_the_expected_loss(mode):
    """C-U2 at the level of the learner: E[f_t(S_t) | x_t] is what the kernels add up as the expected loss."""
    n, T, R = 4, 256, 400
    inst = rc_mrf(n)
    cells = np.random.default_rng(10).choice(n, size=(1, T), p=[0.4, 0.3, 0.2, 0.1])
    s = full_setup(n, T, 10.0) if mode == "full" else bandit_setup(n, T, 10.0)
    out = run_submod(inst, cells, np.zeros(R, dtype=np.int64), [s] * R, _states(R, 3000), _states(R, 4000))
    diff = out["real_loss"] - out["exp_loss"]
    assert abs(diff.mean()) <= 4 * diff.std(ddof=1) / math.sqrt(R)
    assert diff.std() > 0


# ------------------------------------------------------------------------------------------ claims (synthetic tables)

def _claim_tables(seeds=10, rel=0.0):
    """Tables shaped as the theorems predict (every claim reproduced); ``seeds`` per point, SEM = rel·|mean|."""
    import pandas as pd

    def rows(x, xs, eps, mean, **extra):
        return [{x: v, "eps": e, "mean": mean(v, e), "sem": rel * abs(mean(v, e)), "N": seeds, **extra}
                for v in xs for e in eps]

    inf = math.inf
    rc1a = pd.DataFrame(rows("T", [1024, 4096, 16384, 65536], [1.0, 3.0, 10.0, 30.0, 100.0, inf],
                             lambda T, e: 1.0 if math.isinf(e) else 50 / e * T**0.2, n=8))
    rc1b = pd.DataFrame(rows("T", [1024, 4096, 16384, 65536], [3.0, 30.0, 300.0, inf],
                             lambda T, e: T**0.75 * (1 + (0 if math.isinf(e) else 10 / e)), n=4))
    rc2a = pd.DataFrame(rows("n", [4, 8, 16, 32, 64], [10.0, 100.0, inf], lambda n, e: n**1.4, T=8192))
    rc2b = pd.DataFrame(rows("n", [4, 8, 16], [30.0, 300.0, inf], lambda n, e: float(n), T=65536))
    eps3 = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, inf]
    rc3a = pd.DataFrame(rows("eps", eps3, [None], lambda e, _: 1 + 100 / e, n=8, T=16384)).drop(columns="eps")
    rc3a["eps"] = eps3
    rc3a["excess_mean"] = np.where(np.isinf(rc3a["eps"]), 0.0, 100 / rc3a["eps"])
    rc3a["excess_sem"] = rel * rc3a["excess_mean"]
    rc3a["excess_N"] = seeds
    rc3b = rc3a.assign(n=4)
    rc4 = pd.DataFrame(rows("T", [256, 1024, 4096, 16384], [10.0, 100.0, inf], lambda T, e: math.sqrt(T), n=8))
    runs = pd.DataFrame([{"experiment": "rc1a", "n": 8, "T": T, "eps": e, "seed": s, "regret_expected": 10.0,
                          "regret_realised": 10.0 + (0.5 if s % 2 else -0.5), "bound": 1e5, "best_loss": -3.0,
                          "best_enum": -3.0} for T in (1024, 4096) for e in (1.0, inf) for s in range(seeds)])
    priv = pd.DataFrame([{"audit": a, "variant": v, "eps_lb": lb, "exact_eps": ex, "claimed_eps": 1.0, "result": res,
                          "event": ""}
                         for a, v, lb, ex, res in (("audit", "correct", 0.2, 0.65, "pass"),
                                                   ("audit", "planted", 1.3, 2.5, "caught"),
                                                   ("guard", "correct", math.nan, math.nan, "pass"),
                                                   ("guard", "planted", math.nan, math.nan, "caught"))])
    gains = {"tree": (1.0, 1.0), "honaker": (0.8, 0.56), "smooth": (0.6, 0.23)}  # (regret ratio, noise variance ratio)
    rc1c = pd.DataFrame([{"counter": c, "n": 8, "T": T, "eps": e, "mean": 100.0 * g, "sem": rel * 100.0 * g, "N": seeds,
                          "ratio": g, "ratio_lo": g * (1 - 2 * rel) if c != "tree" else 1.0,
                          "ratio_hi": g * (1 + 2 * rel) if c != "tree" else 1.0, "var_ratio": v}
                         for T in (1024, 16384) for e in (1.0, 10.0) for c, (g, v) in gains.items()])
    return {"rc1a": rc1a, "rc1b": rc1b, "rc2a": rc2a, "rc2b": rc2b, "rc3a": rc3a, "rc3b": rc3b, "rc4": rc4,
            "rc1a_runs": runs, "privacy": priv, "rc1c": rc1c}


def _claim_rows(tbls):
    from privopt.experiments.cardoso2019 import claims as rc_claims
    out = {}
    for r in rc_claims.evaluate(tbls, {"c_sens": 2.0, "lambda_g": 0.25}):
        out.setdefault(r.claim, []).append(r)
    return out


def _claim_verdicts(tbls):
    return {c: {r.verdict for r in rows} for c, rows in _claim_rows(tbls).items()}


def test_every_claim_reproduced_on_tables_shaped_as_predicted():
    from privopt.experiments.cardoso2019 import claims as rc_claims
    from privopt.pipeline.claims import REPRODUCED
    v = _claim_verdicts(_claim_tables(rel=0.05))
    assert set(v) == set(rc_claims.CLAIMS.ids)
    assert all(x == {REPRODUCED} for x in v.values()), v
    found = rc_claims.findings(_claim_tables(), None, {})
    assert len(found) == 3 and "T = 65536" in found[0].text and "1e+04×" in found[2].text, found
    c = _claim_tables()["rc1c"]
    top = c[(c["T"] == c["T"].max()) & (c["counter"] == "honaker")].sort_values("eps")
    assert found[1].figure == "rc1c" and f"Honaker ×{float(top['ratio'].iloc[0]):.3f}" in found[1].text, found[1]


def _set(table, col, fn):
    return lambda t: t[table].__setitem__(col, fn(t[table]))


def _sem_follows_mean(t, rel):
    for k in ("rc1a", "rc1b", "rc2a", "rc2b", "rc4"):
        t[k]["sem"] = rel * t[k]["mean"].abs()
    for k in ("rc3a", "rc3b"):
        t[k]["excess_sem"] = rel * t[k]["excess_mean"].abs()


#: each statistical claim broken well beyond its threshold
BREAKS = [
    ("RC1.a", _set("rc1a", "mean", lambda d: d["T"] * 1.0)),
    ("RC1.a", _set("rc1a", "mean", lambda d: np.where(np.isinf(d["eps"]), 50.0, d["mean"]))),  # non-private > 10
    ("RC1.b", _set("rc1b", "mean", lambda d: d["T"] ** 0.3)),
    ("RC2.a", _set("rc2a", "mean", lambda d: d["n"] ** 3.0)),
    ("RC2.a", _set("rc2b", "mean", lambda d: 100.0 / d["n"])),  # decreasing in n
    ("RC3.a", _set("rc3b", "excess_mean", lambda d: 1 / np.sqrt(d["eps"]))),
    ("RC4.a", _set("rc4", "mean", lambda d: d["T"] * 1.0)),
]


@pytest.mark.parametrize("claim, breaks", BREAKS + [
    ("RC4.a", _set("rc4", "mean", lambda d: np.sqrt(d["T"]) * np.where(np.isinf(d["eps"]), 1.0, 1.2))),  # gap ≫ 3 s.e.
    ("U1.a", _set("rc1a_runs", "bound", lambda d: d["regret_expected"] / 2)),
    ("U2.a", _set("rc1a_runs", "regret_realised", lambda d: d["regret_expected"] + 5 + 0.1 * d["seed"])),
    ("U2.a", _set("rc1a_runs", "best_enum", lambda d: d["best_loss"] + 1)),
    ("P1.a", _set("privacy", "result", lambda d: ["VIOLATION", "caught", "pass", "caught"])),
    ("P1.b", _set("privacy", "result", lambda d: ["pass", "missed", "pass", "caught"])),
])
def test_each_claim_can_fail(claim, breaks):
    from privopt.pipeline.claims import NOT_REPRODUCED
    tbls = _claim_tables(10, rel=0.01)  # 10 seeds, tight intervals: the data contradict the claim
    breaks(tbls)
    _sem_follows_mean(tbls, 0.01)
    assert NOT_REPRODUCED in _claim_verdicts(tbls)[claim]


@pytest.mark.parametrize("claim, breaks", BREAKS)
def test_a_missed_threshold_from_three_seeds_is_inconclusive(claim, breaks):
    """Standard errors from 2–3 seeds decide nothing: the same break is inconclusive, needing 10 seeds."""
    from privopt.pipeline.claims import INCONCLUSIVE
    tbls = _claim_tables(3, rel=0.01)
    breaks(tbls)
    _sem_follows_mean(tbls, 0.01)
    rows = [r for r in _claim_rows(tbls)[claim] if r.verdict != "reproduced"]
    assert rows and {r.verdict for r in rows} == {INCONCLUSIVE}, [(r.measured, r.verdict) for r in rows]
    assert all("≥ 10 seeds per point" in r.needs for r in rows), [r.needs for r in rows]


@pytest.mark.parametrize("claim, breaks", BREAKS)
def test_a_missed_threshold_within_the_interval_is_inconclusive(claim, breaks):
    """10 seeds but an interval that reaches back over the threshold: inconclusive, saying how many seeds would do."""
    from privopt.pipeline.claims import INCONCLUSIVE
    tbls = _claim_tables(10)
    breaks(tbls)
    _sem_follows_mean(tbls, 3.0)
    rows = [r for r in _claim_rows(tbls)[claim] if r.verdict != "reproduced"]
    assert rows and {r.verdict for r in rows} == {INCONCLUSIVE}, [(r.measured, r.verdict) for r in rows]
    assert all("seeds per point" in r.needs for r in rows), [r.needs for r in rows]


def test_claims_inconclusive_when_what_ran_lacks_their_points():
    from privopt.experiments.cardoso2019 import claims as rc_claims
    from privopt.pipeline.claims import INCONCLUSIVE
    tbls = _claim_tables()
    tbls["rc1a"] = tbls["rc1a"][tbls["rc1a"]["T"] == 65536]  # no T_max/16, one horizon
    tbls["rc1b"] = tbls["rc1b"][tbls["rc1b"]["T"] != 4096]  # no 2^12
    tbls["rc2a"] = tbls["rc2a"][tbls["rc2a"]["n"] == 4]  # one n: no slope
    tbls["rc3a"] = tbls["rc3a"].assign(excess_mean=-1.0)  # no positive excess: no log slope
    tbls["rc4"] = tbls["rc4"][tbls["rc4"]["T"] == 256]
    tbls["rc1a_runs"] = tbls["rc1a_runs"][tbls["rc1a_runs"]["seed"] == 0].drop(columns="best_enum")  # one seed
    tbls["rc1c"] = tbls["rc1c"][tbls["rc1c"]["counter"] == "tree"]  # neither Honaker nor smooth ran
    del tbls["privacy"]
    rows = _claim_rows(tbls)
    assert set(rows) == set(rc_claims.CLAIMS.ids)
    for c, rs in rows.items():
        rs = [r for r in rs if r.reading != "b" or c not in ("RC2.a", "RC3.a")]  # panel b left whole
        if c != "U1.a":
            assert {r.verdict for r in rs} == {INCONCLUSIVE} and all(r.needs for r in rs), (c, [r.measured for r in rs])
    tbls["rc1a_runs"] = tbls["rc1a_runs"].iloc[:0]  # no runs: no bound to compare
    assert _claim_verdicts(tbls)["U1.a"] == {INCONCLUSIVE}


def test_rc1a_is_never_decided_on_a_window_other_than_the_spec_one():
    """T_max = 2^14 leaves one horizon in [2^14, T_max]: inconclusive, even where the slope and the ratio miss
    (fitting [2^10, 2^14] instead, as the quick scale once did, would have said 'not reproduced')."""
    from privopt.experiments.cardoso2019 import claims as rc_claims
    from privopt.pipeline.claims import INCONCLUSIVE
    for rel, mean in ((0.0, None), (0.01, lambda d: np.where(np.isinf(d["eps"]), 1.0, d["T"] ** 0.9))):
        tbls = _claim_tables(10, rel=rel)
        if mean is not None:
            tbls["rc1a"]["mean"] = mean(tbls["rc1a"])
            _sem_follows_mean(tbls, rel)
        quick = tbls["rc1a"][tbls["rc1a"]["T"] <= 16384]
        row = rc_claims.CLAIMS.evaluate_one("RC1.a", {**tbls, "rc1a": quick}, {})[0]
        assert row.verdict == INCONCLUSIVE and "[2^14, T_max]" in row.needs, (row.measured, row.needs)
    row = rc_claims.CLAIMS.evaluate_one("RC1.a", _claim_tables(), {})[0]
    assert row.verdict == "reproduced" and "[2^14, T_max]" in row.threshold


def test_rc2_rc3_need_the_figures_ranges():
    from privopt.pipeline.claims import INCONCLUSIVE
    tbls = _claim_tables()
    tbls["rc2a"] = tbls["rc2a"][tbls["rc2a"]["n"] <= 16]  # stops short of n = 64
    tbls["rc3b"] = tbls["rc3b"][tbls["rc3b"]["eps"] >= 10]  # starts above ε = 3
    rows = {(r.claim, r.reading): r for rs in _claim_rows(tbls).values() for r in rs}
    assert rows[("RC2.a", "a")].verdict == INCONCLUSIVE and "n over [4, 64]" in rows[("RC2.a", "a")].needs
    assert rows[("RC3.a", "b")].verdict == INCONCLUSIVE and "ε over [3, 100]" in rows[("RC3.a", "b")].needs
    assert rows[("RC2.a", "b")].verdict == rows[("RC3.a", "a")].verdict == "reproduced"


def _u2_runs(seeds, bias_small, rng):
    """realised − expected: ε = 1 noisy (sd 6), ε = ∞ tight (sd 1); ε = 1 carries ``bias_small`` of its own sd/√N."""
    import pandas as pd
    rows = []
    for T in (1024, 4096):
        for e, sd in ((1.0, 6.0), (math.inf, 1.0)):
            noise = rng.standard_normal(seeds)
            noise = (noise - noise.mean()) / noise.std(ddof=1)  # exact sample mean 0, sd 1
            diff = sd * noise + (bias_small * sd / math.sqrt(seeds) if e == 1.0 else 0.0)
            rows += [{"experiment": "rc1a", "n": 8, "T": T, "eps": e, "seed": s, "regret_expected": 10.0,
                      "regret_realised": 10.0 + diff[s], "bound": 1e5, "best_loss": -3.0, "best_enum": -3.0}
                     for s in range(seeds)]
    return pd.DataFrame(rows)


def test_u2_uses_each_configurations_own_sem_from_ten_seeds():
    from privopt.experiments.cardoso2019 import claims as rc_claims
    from privopt.pipeline.claims import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED
    rng = np.random.default_rng(0)
    runs = _u2_runs(10, 1.2, rng)  # 1.2 of its own s.e.: within; pooled with ε = ∞'s small variance it would be ≈ 2.4
    z = rc_claims.u2_zscores(runs)
    assert len(z) == 4 and (z["N"] == 10).all()
    assert z.loc[z["eps"] == 1.0, "z"].to_numpy() == pytest.approx([1.2, 1.2])
    assert z["t_crit"].to_numpy() == pytest.approx(stats_t_crit(9))
    pooled = math.sqrt((36 + 1) / 2) / math.sqrt(10)
    assert 1.2 * 6 / math.sqrt(10) / pooled > 1.2  # the pooled z would overstate the bias

    def u2(r):
        rows = rc_claims.CLAIMS.evaluate_one("U2.a", {"rc1a_runs": r}, {})
        return next(x for x in rows if x.reading.startswith("realised"))

    assert u2(runs).verdict == REPRODUCED
    assert u2(_u2_runs(10, 8.0, rng)).verdict == NOT_REPRODUCED  # 8 s.e. in every ε = 1 configuration
    short = u2(_u2_runs(3, 8.0, rng))
    assert short.verdict == INCONCLUSIVE and "≥ 10 seeds per point" in short.needs


def stats_t_crit(dof):
    from scipy import stats
    return float(stats.t.isf(stats.norm.sf(3.0), dof))


def test_rc_tables_fit_slopes():
    import pandas as pd

    from privopt.experiments.cardoso2019.paper import PAPER
    rng = np.random.default_rng(0)
    runs = pd.DataFrame([{"experiment": "rc4", "algorithm": "SubmodPFTAL", "n": 8, "T": T, "eps": e, "seed": s,
                          "regret_expected": math.sqrt(T) * (1 + 0.01 * rng.standard_normal()),
                          "regret_realised": math.sqrt(T) + rng.standard_normal(), "H": 0.1, "mu": 4.0, "lam": 1.0,
                          "K": 9, "gamma": 0.0, "bound": 1e6}
                         for T in (256, 1024, 4096) for e in (10.0, math.inf) for s in range(3)])
    out = PAPER.experiment("rc4").make_tables({"runs": runs}, {})
    fit = out["rc4_fit"]
    row = fit[(fit["range"] == "all") & np.isinf(fit["eps"])].iloc[0]
    assert row["slope"] == pytest.approx(0.5, abs=0.02) and row["ci90_lo"] <= row["slope"] <= row["ci90_hi"]
    t = out["rc4"]
    assert {"mean", "sem", "N", "ci_lo", "ci_hi", "bound", "bound_ratio", "realised_mean"} <= set(t.columns)
    assert (t["N"] == 3).all()

