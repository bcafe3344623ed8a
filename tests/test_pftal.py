"""PFTAL and bandit PFTAL (Smith & Thakurta 2013; spec online-convex-and-submodular-min.md §2.3–§2.5), their
losses, projections and comparators."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import optimize

from privopt.fastrng import FastGenerator
from privopt.mechanisms.laplace import l2_laplace
from privopt.online.pftal.bandit import bandit_setup, run_bandit
from privopt.online.pftal.comparators import best_fixed, best_fixed_squared, geometric_median
from privopt.online.pftal.losses import DISTANCE, SQUARED, loss_code, loss_grad_into, loss_value_grad
from privopt.online.pftal.full import h_star, h_text, pftal_setup, run_pftal
from privopt.online.pftal.kernels import bandit_pftal_kernel, pftal_kernel
from privopt.online.pftal.projections import project_ball, project_ball_inplace
from privopt.online.pftal.reference import bandit_pftal_reference, pftal_reference
from privopt.mechanisms.tree import tree_levels
from privopt.mechanisms.tbap import tbap
from kernel_contract import KernelTwinContract


def _disk(n, p, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, p))
    return x / np.maximum(1.0, np.linalg.norm(x, axis=1))[:, None] * rng.random((n, 1)) ** (1 / p)


def _states(n, base=0):
    return np.stack([FastGenerator(base + i).state for i in range(n)])


# ----------------------------------------------------------------------------- losses, projection, comparators


def test_losses_and_projection_numba_equal_numpy():
    rng = np.random.default_rng(0)
    w, x = _disk(20, 3, 1), _disk(20, 3, 2)
    x[0] = w[0]  # distance loss at its kink: subgradient 0
    for kind in (SQUARED, DISTANCE):
        vals, grads = loss_value_grad(kind, w, x)
        for r in range(20):
            g = np.zeros(3)
            assert loss_grad_into(kind, w[r], x, r, 3, g) == vals[r]
            assert np.array_equal(g, grads[r])
    np.testing.assert_allclose(loss_value_grad(SQUARED, w, x)[0], 0.5 * ((w - x) ** 2).sum(axis=1))
    assert np.array_equal(loss_value_grad(DISTANCE, w, x)[1][0], np.zeros(3))
    y = rng.standard_normal((30, 3)) * 2
    proj = project_ball(y, 1.0)
    for r in range(30):
        v = y[r].copy()
        project_ball_inplace(v, 3, 1.0)
        assert np.array_equal(v, proj[r])
    assert np.all(np.linalg.norm(proj, axis=1) <= 1 + 1e-15)
    inside = np.linalg.norm(y, axis=1) <= 1
    assert np.array_equal(proj[inside], y[inside])


def test_comparators_are_optimal():
    x = _disk(3000, 2, 3)
    w, value = best_fixed_squared(x + 0.8, 1.0)  # mean outside the disk: the projection binds
    res = optimize.minimize(lambda v: 0.5 * (((x + 0.8) - v) ** 2).sum(), np.zeros(2),
                            constraints=[{"type": "ineq", "fun": lambda v: 1 - v @ v}])
    assert abs(np.linalg.norm(w) - 1) < 1e-12 and value <= res.fun + 1e-6
    med, val, info = geometric_median(x)
    generic = optimize.minimize(lambda v: np.sqrt(((x - v) ** 2).sum(axis=1)).sum(), np.zeros(2), method="Nelder-Mead",
                                options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000})
    assert val <= generic.fun * (1 + 1e-9) and np.linalg.norm(med - generic.x) < 1e-4
    assert info["polish_improvement"] <= 1e-9
    assert best_fixed("gc", x)[1] == val
    line = x[:301, :1]
    m1, v1, _ = geometric_median(line)
    grid = np.linspace(-1, 1, 20001)
    assert v1 <= np.abs(line - grid).sum(axis=0).min() + 1e-12 and m1[0] == np.median(line)


# ----------------------------------------------------------------------------- PFTAL


def test_update_is_the_argmin_of_the_paper_and_the_lazy_projection():
    """ŵ_{t+1} = argmin_{w∈C} ⟨v̂_t, w⟩ + (H/2) Σ_τ ‖w − ŵ_τ‖² (ST eq. 5, a generic solver), and for the
    regularised loss Π_C(−(Σ∇f + noise)/(Ht)) (spec §2.4)."""
    T, p = 40, 2
    x = _disk(T, p, 4)
    for loss in ("sc", "gc"):
        s = pftal_setup(loss, T, p, 0.5)
        out = run_pftal(x, np.arange(T)[None], [0], [s], _states(1, 7), record=True)
        w = out["w"][0]
        tree = tbap(T, p, s.lam, FastGenerator(7))
        grads = []
        for t in range(1, T + 1):
            _, g = loss_value_grad(loss_code(loss), w[t - 1][None], x[t - 1][None])
            grads.append(g[0])
            z = g[0] + (s.H * w[t - 1] if s.regularised else 0.0)
            tree.add(z)
            v = tree.release()

            def obj(u, v=v, t=t, H=s.H, past=w[:t]):
                return v @ u + H / 2 * ((u - past) ** 2).sum()

            if t in (1, 7, T):
                res = optimize.minimize(obj, np.zeros(p), method="SLSQP", constraints=[{"type": "ineq", "fun": lambda u: 1 - u @ u}],
                                        options={"ftol": 1e-14, "maxiter": 500})
                # SLSQP may stop a hair outside the ball (by its constraint tolerance), where the objective
                # is lower than anywhere inside (how far depends on the BLAS kernel it runs on): compare
                # with its point brought back into C, which no feasible point can beat the argmin at.
                inside = res.x / max(1.0, float(np.linalg.norm(res.x)))
                assert obj(w[t]) <= obj(inside) + 1e-8 and np.linalg.norm(res.x - w[t]) < 1e-5
            if s.regularised:
                noise = tree.noise()
                lazy = project_ball((-(np.sum(grads, axis=0) + noise) / (s.H * t))[None], 1.0)[0]
                np.testing.assert_allclose(w[t], lazy, atol=1e-10)


def test_nonprivate_ftal_is_follow_the_leader_for_the_squared_loss():
    x = _disk(100, 2, 5) * 0.5
    s = pftal_setup("sc", 100, 2, math.inf)
    out = run_pftal(x, np.arange(100)[None], [0], [s], _states(1), record=True)
    means = np.cumsum(x, axis=0) / np.arange(1, 101)[:, None]
    np.testing.assert_allclose(out["w"][0, 1:], means, atol=1e-12)
    assert s.lam == 0.0


class TestPftalTwin(KernelTwinContract):
    """pftal_kernel (run_pftal, the tree counter) against pftal_reference on per-replica FastGenerators: costs,
    max ratios, every iterate and the noise states left behind, bit for bit (three ε, ε = ∞ too, two seed rows)."""

    kernels = (pftal_kernel,)
    CASES = {f"{loss}-p{p}": (loss, p) for loss in ("sc", "gc") for p in (2, 9)}
    T, EPS = 100, (0.5, 2.0, math.inf)
    ROWS = [i for _ in EPS for i in range(2)]

    def _stream(self, case):
        loss, p = case
        pts = _disk(300, p, 6)
        idx = np.random.default_rng(7).integers(0, 300, size=(2, self.T))
        return pts, idx, [pftal_setup(loss, self.T, p, e) for e in self.EPS for _ in range(2)]

    def run_kernel(self, variant, case, seed):
        pts, idx, setups = self._stream(case)
        states = _states(len(setups), 10 * seed)
        out = run_pftal(pts, idx, self.ROWS, setups, states, record=True)
        return {"cum_loss": out["cum_loss"], "max_ratio": out["max_ratio"], "w": out["w"], "states": states}

    def run_twin(self, case, seed):
        loss, _ = case
        pts, idx, setups = self._stream(case)
        gens = [FastGenerator(10 * seed + r) for r in range(len(setups))]
        cum, ratio, w = pftal_reference(pts, idx, np.array(self.ROWS), loss_code(loss), setups[0].regularised, self.T,
                                    [s.H for s in setups], [s.mu for s in setups], [s.lam for s in setups], 1.0,
                                    gens, record=True)
        return {"cum_loss": cum, "max_ratio": ratio, "w": w, "states": np.stack([g.state for g in gens])}


def test_parameters():
    s = pftal_setup("sc", 1024, 2, 1.0)
    assert (s.H, s.L, s.mu, s.K, s.regularised) == (1.0, 2.0, 2.0, 11, False)
    assert s.lam == 2 * 2.0 * 11 / 1.0
    g = pftal_setup("gc", 1024, 2, 1.0)
    assert g.regularised and g.L == 1.0 and g.mu == 1.0 + g.H
    # H* minimises 2L²ℓ/H + pL²ℓ^2.5/(εH) + HTρ²/2 (spec §2.4)
    T, eps, p = 4096, 3.0, 2
    ell = math.log(T)
    bound = lambda H: 2 * ell / H + p * ell**2.5 / (eps * H) + H * T / 2  # noqa: E731
    best = optimize.minimize_scalar(bound, bounds=(1e-6, 10), method="bounded", options={"xatol": 1e-12}).x
    assert abs(h_star(T, eps, p, 1.0, 1.0) / best - 1) < 1e-5
    assert h_star(T, math.inf, p, 1.0, 1.0) == pytest.approx(math.sqrt(4 * ell / T))
    assert h_text(T, eps, p, 1.0, 1.0) == pytest.approx(p * ell**2.5 / (eps * math.sqrt(T)))
    assert pftal_setup("gc", 1024, 2, 1.0, h_rule="text").H == h_text(1024, 1.0, 2, 1.0, 1.0)


def test_gradient_bound_violation_is_never_silent():
    T = 256
    x = _disk(T, 2, 8)
    s = pftal_setup("gc", T, 2, 1.0)
    out = run_pftal(x, np.arange(T)[None], [0], [s], _states(1))
    assert out["max_ratio"][0] <= 1.0
    under = dataclasses.replace(s, mu=0.5)
    with pytest.raises(ValueError, match="bound mu"):
        run_pftal(x, np.arange(T)[None], [0], [under], _states(1))


def test_private_regret_shrinks_with_eps_on_average():
    """A sanity check of the whole loop: at T = 2048 on a stochastic stream, ε = 0.3 costs more than ε = 30."""
    T, seeds = 2048, 4
    pts = _disk(5000, 2, 9) * 0.6
    idx = np.random.default_rng(10).integers(0, 5000, size=(seeds, T))
    best = [best_fixed("sc", pts[row])[1] for row in idx]
    setups = [pftal_setup("sc", T, 2, e) for e in (0.3, 30.0) for _ in range(seeds)]
    out = run_pftal(pts, idx, [i for _ in range(2) for i in range(seeds)], setups, _states(2 * seeds, 20))
    regret = out["cum_loss"].reshape(2, seeds) - np.array(best)
    assert regret[0].mean() > 3 * regret[1].mean() > 0


# ----------------------------------------------------------------------------- bandit PFTAL


def test_one_point_estimate_is_unbiased_for_the_squared_loss():
    """E_u[(p/β) f(w + βu) u] = ∇f̂(w) = w − x for f = ½‖· − x‖² (the smoothing adds a constant)."""
    p, beta, n = 3, 0.3, 200_000
    w, x = np.array([0.2, -0.1, 0.3]), np.array([-0.4, 0.5, 0.1])
    u = np.random.default_rng(11).standard_normal((n, p))
    u /= np.linalg.norm(u, axis=1)[:, None]
    est = (p / beta) * (0.5 * ((w + beta * u - x) ** 2).sum(axis=1))[:, None] * u
    se = est.std(axis=0) / math.sqrt(n)
    assert np.all(np.abs(est.mean(axis=0) - (w - x)) < 5 * se)


def test_bandit_parameters_and_cap():
    s = bandit_setup("sc", 4096, 2, 1.0, beta_rule="oblivious", B=2.0)
    assert s.beta == pytest.approx(2 / 4096 ** (1 / 3)) and not s.beta_capped
    assert s.mu == 2 * 2.0 / s.beta and s.xi == s.beta and s.K == tree_levels(4096)
    small = bandit_setup("sc", 128, 2, 1.0, beta_rule="adaptive", B=2.0)
    assert small.beta == 0.5 and small.beta_capped


class TestBanditPftalTwin(KernelTwinContract):
    """bandit_pftal_kernel (run_bandit) against bandit_pftal_reference on per-replica FastGenerators (noise and exploration
    streams): costs, max ratios, max |loss value| and both streams' states left behind, bit for bit; and the
    played points stay inside C (|f_t| ≤ B, the TBAP bound holds)."""

    kernels = (bandit_pftal_kernel,)
    CASES = {"oblivious": "oblivious", "adaptive": "adaptive"}
    T, p, ROWS = 300, 2, [0, 1, 0, 1]

    def _stream(self, rule):
        pts = _disk(400, self.p, 12)
        idx = np.random.default_rng(13).integers(0, 400, size=(2, self.T))
        return pts, idx, [bandit_setup("sc", self.T, self.p, e, beta_rule=rule, B=2.0) for e in (1.0, math.inf)
                          for _ in range(2)]

    def run_kernel(self, variant, case, seed):
        pts, idx, setups = self._stream(case)
        noise, explore = _states(4, 100 * seed), _states(4, 100 * seed + 50)
        out = run_bandit(pts, idx, self.ROWS, setups, noise, explore)
        return {"cum_loss": out["cum_loss"], "max_ratio": out["max_ratio"], "max_value": out["max_value"],
                "noise": noise, "explore": explore}

    def run_twin(self, case, seed):
        pts, idx, setups = self._stream(case)
        noise = [FastGenerator(100 * seed + i) for i in range(4)]
        explore = [FastGenerator(100 * seed + 50 + i) for i in range(4)]
        cum, ratio, ymax = bandit_pftal_reference(pts, idx, np.array(self.ROWS), 0, self.T, [s.H for s in setups],
                                        [s.beta for s in setups], [s.mu for s in setups], [s.lam for s in setups],
                                        1.0, noise, explore)
        return {"cum_loss": cum, "max_ratio": ratio, "max_value": ymax,
                "noise": np.stack([g.state for g in noise]), "explore": np.stack([g.state for g in explore])}

    def test_plays_inside_C(self, case_id):
        out = self.run_kernel("kernel", self.CASES[case_id], self.SEEDS[0])
        assert np.all(out["max_value"] <= 2.0) and np.all(out["max_ratio"] <= 1.0)


def test_laplace_noise_of_the_reference_comes_from_the_same_stream():
    """pftal_reference's node noise is l2_laplace on the replica's own FastGenerator, one draw per item."""
    gen = FastGenerator(3)
    draws = [l2_laplace(gen, 2, 1.5) for _ in range(4)]
    tree = tbap(4, 2, 1.5, FastGenerator(3))
    for _ in range(4):
        tree.add(np.zeros(2))
    np.testing.assert_array_equal(tree.noise(), draws[3])  # item 4 completes the root: its noise alone
