"""Shariff & Sheffet's Gaussian variant with its node σ calibrated exactly to the paper's (ε, δ) (issue 39, Figure 4e,
beyond the paper).

The m node releases of one item are one Gaussian mechanism of L2 sensitivity √m·L̃² (the paper's model), so the
exact σ is the analytic Gaussian mechanism's; its privacy profile is checked here against a numerical integral of the
privacy-loss distribution (independent of the closed form), the kernel's releases against the paper variant's
(the same node draws, scaled: a planted σ/√2 is caught), the bounds against the paper's derivation from σ, and the
experiment at a small scale through its declared points, job, tables and claims.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import integrate, stats

from privopt.bandits import BanditInstance, episodes
from privopt.bandits.episodes import run_lockstep
from privopt.bandits.kernels import audit_layout
from privopt.bandits.parameters import (gaussian_counter, gaussian_node_sigma, gaussian_node_sigma_exact,
                                        gaussian_params, gaussian_upsilon)
from privopt.bandits.streams import episode_streams
from privopt.mechanisms.counting import analytic_gaussian_sigma, certify, gaussian_delta, prefix_noise
from privopt.mechanisms.tree import tree_levels

N_PAPER, M_PAPER, L2 = 50_000_000, 27, 2.0


def _delta_by_integral(mu: float, eps: float) -> float:
    """δ(ε) of N(0, 1) against N(μ, 1) from its definition, E_{x ~ N(μ,1)} (1 − e^{ε − L(x)})₊ with privacy loss
    L(x) = μx − μ²/2: a quadrature over x ≥ (ε + μ²/2)/μ, not the closed form of Balle & Wang."""
    x0 = (eps + mu * mu / 2) / mu
    f = lambda x: (1.0 - math.exp(eps - (mu * x - mu * mu / 2))) * stats.norm.pdf(x - mu)
    value, err = integrate.quad(f, x0, x0 + 40.0, epsabs=1e-14, epsrel=1e-12, limit=200)
    assert err < 1e-11
    return value


@pytest.mark.parametrize("m, eps, delta", [(M_PAPER, 1.0, 0.1), (M_PAPER, 1.0, 1 / N_PAPER), (8, 0.5, 1e-3),
                                           (14, 2.0, 0.05)])
def test_the_exact_sigma_is_the_analytic_gaussian_of_the_m_node_releases_and_spends_exactly_delta(m, eps, delta):
    sigma = gaussian_node_sigma_exact(m, eps, delta, L2)
    sens = math.sqrt(m) * L2
    assert sigma == analytic_gaussian_sigma(sens, eps, delta)
    # privacy calibration: δ(ε) at the exact σ is δ to within 1e-9 (and never above), 1e-6 less noise spends more
    at = _delta_by_integral(sens / sigma, eps)
    assert delta - 1e-9 <= at <= delta + 1e-12, (at, delta)
    assert gaussian_delta(sens / sigma, eps) <= delta
    assert _delta_by_integral(sens / (sigma * (1 - 1e-6)), eps) > delta
    # the paper's σ is far more than the guarantee needs (δ(ε) at it is tiny)
    assert gaussian_node_sigma(m, eps, delta, L2) > 5 * sigma


def test_the_paper_scale_numbers():
    assert tree_levels(N_PAPER) == M_PAPER
    exact = gaussian_params(N_PAPER, 5, 1.0, 0.1, calibration="exact")
    paper = gaussian_params(N_PAPER, 5, 1.0, 0.1)
    assert paper.sigma_noise == pytest.approx(153.34, abs=0.005)
    assert exact.sigma_noise == pytest.approx(11.28, abs=0.005)
    assert exact.extras["sigma_paper"] == paper.sigma_noise and exact.extras["calibration"] == "exact"
    # the paper's σ at (1, 0.1) certifies δ(1) ~ 1e-51 under the same accounting
    assert gaussian_delta(math.sqrt(M_PAPER) * L2 / paper.sigma_noise, 1.0) < 1e-40


@pytest.mark.parametrize("delta", [0.1, 1 / N_PAPER])
def test_the_bounds_follow_the_exact_sigma_as_the_paper_derives_them(delta):
    """Υ = σ·√(2m)·(4√d + 2 log(2n/α)), shift 2Υ, ρ_min = Υ, ρ_max = 3Υ, γ = σ·√(m/Υ)·Δ₂ with the exact σ: Υ scales
    with σ, γ with √σ, against the paper's calibration."""
    n, d = N_PAPER, 5
    exact = gaussian_params(n, d, 1.0, delta, calibration="exact")
    paper = gaussian_params(n, d, 1.0, delta)
    s, m = exact.sigma_noise, exact.m
    assert s == gaussian_node_sigma_exact(m, 1.0, delta, L2)
    ups = gaussian_upsilon(s, m, d, n, exact.alpha)
    d2 = math.sqrt(d) + math.sqrt(2.0 * math.log(2.0 * n / exact.alpha))
    assert (exact.rho_min, exact.shift, exact.rho_max) == (ups, 2 * ups, 3 * ups)
    assert exact.gamma == pytest.approx(s * math.sqrt(m / ups) * d2, rel=1e-15)
    r = s / paper.sigma_noise
    assert exact.rho_min / paper.rho_min == pytest.approx(r, rel=1e-12)
    assert exact.gamma / paper.gamma == pytest.approx(math.sqrt(r), rel=1e-12)
    assert exact.name == "gaussian_exact" and paper.name == "gaussian"
    # the paper's calibration is what it was: no new field or extra
    assert "calibration" not in paper.extras and gaussian_params(n, d, 1.0, delta, calibration="paper") == paper
    with pytest.raises(ValueError, match="calibration must be one of"):
        gaussian_params(n, d, 1.0, delta, calibration="zcdp")


def _raw_audit(monkeypatch):
    monkeypatch.setattr(episodes, "evaluate_audit", lambda raw, theta: raw.copy())


def _released(res, v, d):
    """The released noise of every audited round: the d×d block of H_t less the shift, and h_t."""
    lay = audit_layout(d)
    H = res.audit[:, lay["H"]].copy()
    H[:, [i * (i + 3) // 2 for i in range(d)]] -= v.shift
    return np.hstack([H, res.audit[:, lay["h"]]])


def _release_scale(exact, paper, d, n_rounds, seed):
    """The factor between the releases of ``exact`` and of the paper's variant run on the same seed (the same node
    draws), and the largest deviation of the exact release from that factor times the paper's."""
    inst = BanditInstance(d=d, gap=0.1)
    res = run_lockstep([paper, exact], inst, n_rounds, seed, audit=np.arange(1, n_rounds + 1))
    a, b = _released(res[1], exact, d), _released(res[0], paper, d)
    k = float((a * b).sum() / (b * b).sum())
    return k, float(np.abs(a - k * b).max() / np.abs(a).max())


def test_the_exact_variant_releases_the_papers_node_draws_at_the_exact_sigma_and_a_planted_sigma_over_sqrt2_is_caught(
        monkeypatch):
    _raw_audit(monkeypatch)
    n, d, rounds = 4096, 5, 300  # d = 5: the lockstep specialisation of the counter tests and the smoke run
    seed = np.random.SeedSequence(39)
    paper = gaussian_params(n, d, 1.0, 0.1)
    exact = gaussian_params(n, d, 1.0, 0.1, calibration="exact")
    want = exact.sigma_noise / paper.sigma_noise
    k, dev = _release_scale(exact, paper, d, rounds, seed)
    assert k == pytest.approx(want, rel=1e-12) and dev < 1e-12
    planted = dataclasses.replace(exact, sigma_noise=exact.sigma_noise / math.sqrt(2.0))
    k, _ = _release_scale(planted, paper, d, rounds, seed)
    assert k != pytest.approx(want, rel=1e-3)


def test_the_exact_variant_with_a_counter_releases_that_counters_noise_at_the_exact_sigmas_privacy(monkeypatch):
    """The counter's seeds are calibrated from the exact σ (equal ‖C‖_col,2/σ: μ = √m·L̃²/σ_exact, δ(ε) = δ), and
    each round releases its prefix noise (diagonal × √2)."""
    _raw_audit(monkeypatch)
    n, d, rounds = 64, 5, 50
    seed = np.random.SeedSequence(2039)
    v = gaussian_params(n, d, 1.0, 0.1, counter="honaker", calibration="exact")
    assert v.name == "gaussian_exact_honaker"
    s_exact = gaussian_node_sigma_exact(tree_levels(n), 1.0, 0.1, L2)
    assert v.extras["sigma_path"] == s_exact
    counter = gaussian_counter("honaker", n, d, s_exact, 1.0, 0.1)
    assert counter.scale == v.sigma_noise
    mu = certify(counter)["l2"] * L2 / counter.scale
    assert gaussian_delta(mu, 1.0) == pytest.approx(0.1, abs=1e-9) and gaussian_delta(mu, 1.0) <= 0.1 + 1e-12
    res = run_lockstep([gaussian_params(n, d, 1.0, 0.1), v], BanditInstance(d=d, gap=0.1), rounds, seed,
                       audit=np.arange(1, rounds + 1))[1]
    N = prefix_noise(counter, episode_streams(seed, "gaussian", "honaker")[1])
    released = np.zeros((rounds, N.shape[1]))
    released[1:] = N[: rounds - 1]
    diag = [i * (i + 3) // 2 for i in range(d + 1)]
    released[:, [q for q in diag if q < N.shape[1]]] *= math.sqrt(2.0)
    pd_ = d * (d + 1) // 2
    lay = audit_layout(d)
    want = released[:, :pd_].copy()
    want[:, diag[:d]] += v.shift  # H_t = N_t[:d, :d] + shift·I, as the kernel adds them
    np.testing.assert_array_equal(res.audit[:, lay["H"]], want)
    np.testing.assert_array_equal(res.audit[:, lay["h"]], released[:, pd_:pd_ + d])


def test_the_resolved_deltas_and_their_errors():
    from privopt.experiments.shariff2018.exact import delta_name, resolve_delta

    assert resolve_delta("1/n", N_PAPER) == 1 / N_PAPER and resolve_delta(0.1, N_PAPER) == 0.1
    assert delta_name(1 / N_PAPER) == "δ = 1/50,000,000" and delta_name(0.1) == "δ = 0.1"
    for bad in ("1/m", 0.0, 1.0):
        with pytest.raises(ValueError, match="delta must be"):
            resolve_delta(bad, N_PAPER)


def test_a_quick_scale_figure_4e_job_runs_on_figure_4s_seeds_and_its_tables_feed_the_claims():
    """The quick configuration's exp2e points (δ = 0.1 and 1/n on both gaps) and settings, on 400-round prefixes of
    two runs: the paper's and the non-private runs at δ = 0.1 are Figure 4's; the ratios are the tables' own."""
    import pandas as pd

    from privopt.experiments.shariff2018 import claims
    from privopt.experiments.shariff2018.runs import exp2_block
    from privopt.pipeline.config import load_config
    from privopt.pipeline.registry import papers

    section = load_config([])["shariff2018"]
    exp = papers()["shariff2018"].experiment("exp2e")
    points = exp.points(section)
    assert points == [{"gap": g, "delta": dl} for g in (0.0, 0.1) for dl in (0.1, 1 / N_PAPER)]
    settings = dict(exp.settings(section, points[0]), n_rounds=400, rec_every=100)
    frames = [exp.execute(p, settings, [0, 1], {})["runs"] for p in points[2:]]
    runs = pd.concat(frames, ignore_index=True)
    fig4 = exp2_block(0.1, [0, 1], n=N_PAPER, n_rounds=400, variants=("nonprivate", "gaussian"), rec_every=100)
    at01 = runs[(runs["delta"] == 0.1) & runs["variant"].isin(["nonprivate", "gaussian"])]
    for v in ("nonprivate", "gaussian"):
        np.testing.assert_array_equal(at01[at01["variant"] == v].sort_values(["seed", "t"])["regret"].to_numpy(),
                                      fig4[fig4["variant"] == v].sort_values(["seed", "t"])["regret"].to_numpy())
    tables = exp.make_tables({"runs": runs}, settings)
    ratio = tables["fig4e_ratio"]
    assert set(ratio.loc[ratio["variant"] == "gaussian", "ratio"]) == {1.0}
    fin = tables["fig4e_runs"]
    for (gap, delta), g in fin.groupby(["gap", "delta"]):
        last = ratio[(ratio["gap"] == gap) & (ratio["delta"] == delta) & (ratio["t"] == ratio["t"].max())]
        last = last.set_index("variant")
        want = g.loc[g["variant"] == "gaussian_exact", "regret"].mean() / g.loc[g["variant"] == "gaussian", "regret"].mean()
        assert last.loc["gaussian_exact", "ratio"] == pytest.approx(want, rel=1e-12)
        assert last.loc["gaussian_exact", "sigma"] == gaussian_node_sigma_exact(M_PAPER, 1.0, delta, L2)
        assert last.loc["gaussian_exact_counter", "counter"] == "honaker"
    rows = claims.CLAIMS.evaluate_one("F4e.a", tables, {}) + claims.CLAIMS.evaluate_one("F4e.b", tables, {})
    assert len(rows) == 4 and all(r.verdict == claims.INCONCLUSIVE and "2 runs" in r.measured for r in rows)
    assert "δ = 1/50,000,000" in rows[0].reading
