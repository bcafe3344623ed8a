"""Shariff & Sheffet's private LinUCB with its Gaussian noise from a continual counter (issue 27, beyond the paper).

The release of round t is the counter's prefix noise N(t − 1) over the packed (d+1)×(d+1) triangle (diagonal
× √2, the symmetric node law), on the variant's own noise stream; the privacy is the paper's path tree's (equal
‖C‖_col,2/σ); the shift, ρ_min/ρ_max and γ follow the counter's worst-case entry variance over the horizon.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from privopt.bandits import BanditInstance, episodes
from privopt.bandits.episodes import run_episode, run_lockstep
from privopt.bandits.kernels import audit_layout
from privopt.bandits.parameters import BANDIT_COUNTERS, gaussian_counter, gaussian_params, nonprivate_params
from privopt.bandits.streams import episode_streams
from privopt.mechanisms.counting import certify, gaussian_delta, noise_variance, prefix_noise
from privopt.mechanisms.tree import tree_levels

COUNTERS = BANDIT_COUNTERS[1:]


def _raw_audit(monkeypatch):
    """Make run_lockstep return the kernel's raw audit rows (the released H_t, h_t) instead of their evaluation."""
    monkeypatch.setattr(episodes, "evaluate_audit", lambda raw, theta: raw.copy())


# d = 5 and 1 or 4 lanes, as in the smoke pipeline (Exp. 1 runs one variant a job; Exp. 2, 2c and 2e four): the
# lockstep kernel is compiled per (d, number of lanes), about a minute each on a cold cache on the 2-core AMD host,
# so the tests use the smoke run's specialisations (tests/compile_report.py shows what each test compiles)
@pytest.mark.parametrize("d", [5])
def test_each_round_releases_the_counters_prefix_noise_with_the_symmetric_diagonal(monkeypatch, d):
    _raw_audit(monkeypatch)
    n, rounds = 64, 50
    seed = np.random.SeedSequence(2024)
    # the three counters and, as a fourth lane, the paper's path tree (Exp. 2c's group of four)
    variants = [gaussian_params(n, d, 1.0, 0.1, counter=c) for c in COUNTERS] + [gaussian_params(n, d, 1.0, 0.1)]
    results = run_lockstep(variants, BanditInstance(d=d, gap=0.1), rounds, seed, audit=np.arange(1, rounds + 1))
    lay = audit_layout(d)
    pd_ = d * (d + 1) // 2
    diag = np.array([i * (i + 3) // 2 for i in range(d)])
    for v, res in zip(variants[: len(COUNTERS)], results):
        counter = gaussian_counter(v.counter, n, d, v.extras["sigma_path"], 1.0, 0.1)
        assert counter.scale == v.sigma_noise
        N = prefix_noise(counter, episode_streams(seed, "gaussian", v.counter)[1])  # (n, npk) from the stream
        H = res.audit[:, lay["H"]]  # N_t[:d, :d] + shift·I, as the kernel adds them
        h = res.audit[:, lay["h"]]
        released = np.zeros((rounds, N.shape[1]))  # round 1 releases no noise (no item yet)
        released[1:] = N[: rounds - 1]
        released[:, diag] *= math.sqrt(2.0)
        want = released[:, :pd_].copy()
        want[:, diag] += v.shift
        np.testing.assert_array_equal(H, want, err_msg=v.counter)
        np.testing.assert_array_equal(h, released[:, pd_ : pd_ + d], err_msg=v.counter)


def test_counter_variants_leave_the_papers_variants_unchanged_and_draw_their_own_streams():
    """The paper's Gaussian variant (path tree) run alone and inside a group with the three counters (Exp. 2c's
    group: four lanes, one lane alone, both specialisations the smoke run's) gives the same run; each counter alone
    the same as inside the group.  (The NonPrivate variant beside private lanes: tests/test_lockstep.py.)"""
    n, d, rounds = 4096, 5, 600
    inst = BanditInstance(d=d, gap=0.1)
    paper = gaussian_params(n, d, 1.0, 0.1)
    with_counters = [paper] + [gaussian_params(n, d, 1.0, 0.1, counter=c) for c in COUNTERS]
    seed = np.random.SeedSequence(5)
    alone = run_episode(paper, inst, rounds, seed, record=50)
    together = run_lockstep(with_counters, inst, rounds, seed, record=50)
    np.testing.assert_array_equal(alone.regret, together[0].regret)
    assert (alone.pd_failures, alone.n_optimal) == (together[0].pd_failures, together[0].n_optimal)
    # one counter run alone = the same counter inside the group (its own stream, not shared with the path's)
    for v, res in zip(with_counters[1:], together[1:]):
        np.testing.assert_array_equal(run_episode(v, inst, rounds, seed, record=50).regret, res.regret)
    assert len({episode_streams(seed, "gaussian", c)[1].state.tobytes() for c in BANDIT_COUNTERS}) == 4


def test_the_counters_have_the_privacy_of_the_papers_path_tree_and_a_planted_sqrt2_is_caught():
    """μ = max_s ‖C e_s‖₂ / σ from each counter's explicit encoder equals the path tree's √m / σ_path (every
    item in m nodes); with σ_c/√2 the same check fails (μ √2 larger: δ(ε) grows)."""
    for n in (5, 16, 37, 64):
        m = tree_levels(n)
        sigma_path = gaussian_params(n, 2, 1.0, 0.1).sigma_noise
        mu_path = math.sqrt(m) / sigma_path
        for c in COUNTERS:
            counter = gaussian_counter(c, n, 2, sigma_path, 1.0, 0.1)
            mu = certify(counter)["l2"] / counter.scale
            assert mu == pytest.approx(mu_path, rel=1e-12), (c, n)
            planted = dataclasses.replace(counter, scale=counter.scale / math.sqrt(2.0))
            mu_planted = certify(planted)["l2"] / planted.scale
            assert mu_planted > mu_path * (1 + 1e-6)
            assert gaussian_delta(mu_planted * 50, 1.0) > gaussian_delta(mu_path * 50, 1.0)  # a looser guarantee


@pytest.mark.parametrize("counter", COUNTERS)
def test_the_bounds_follow_the_worst_entry_variance_over_the_horizon(counter):
    """Υ = √2·s·(4√d + 2 log(2n/α)), shift 2Υ, ρ_min = Υ, ρ_max = 3Υ, γ = s·Δ₂/√Υ with s² the largest
    off-diagonal entry variance over t ≤ n (enumerated here); the path tree's s² is m·σ² at every t."""
    n, d = 1000, 5
    v = gaussian_params(n, d, 1.0, 0.1, counter=counter)
    s = math.sqrt(noise_variance(gaussian_counter(counter, n, d, v.extras["sigma_path"], 1.0, 0.1)).max())
    ups = math.sqrt(2.0) * s * (4.0 * math.sqrt(d) + 2.0 * math.log(2.0 * n / v.alpha))
    assert v.rho_min == pytest.approx(ups, rel=1e-12) and v.shift == pytest.approx(2 * ups, rel=1e-12)
    assert v.rho_max == pytest.approx(3 * ups, rel=1e-12)
    d2 = math.sqrt(d) + math.sqrt(2.0 * math.log(2.0 * n / v.alpha))
    assert v.gamma == pytest.approx(s * d2 / math.sqrt(ups), rel=1e-12)
    path = gaussian_params(n, d, 1.0, 0.1)
    assert path.extras["upsilon"] == pytest.approx(
        math.sqrt(2.0) * path.sigma_noise * math.sqrt(path.m) * (4.0 * math.sqrt(d) + 2.0 * math.log(2.0 * n / v.alpha)))
    assert v.rho_min < path.rho_min  # every counter's worst case is below the path's m·σ²


def test_counters_are_refused_where_they_are_not_built():
    n, d = 1000, 5
    v = gaussian_params(n, d, 1.0, 0.1, counter="honaker")
    inst = BanditInstance(d=d, gap=0.1)
    with pytest.raises(ValueError, match="buffered numba kernel only"):
        run_episode(v, inst, 10, 0, engine="numpy")
    with pytest.raises(ValueError, match="buffered numba kernel only"):
        run_episode(v, inst, 10, 0, kernel="onthefly")
    with pytest.raises(ValueError, match="counter must be one of"):
        gaussian_params(n, d, 1.0, 0.1, counter="sqrt")
    with pytest.raises(ValueError, match="Gaussian mechanism only"):
        dataclasses.replace(nonprivate_params(n, d), counter="tree")


def test_fig4c_runs_on_figure_4s_seeds_so_its_path_tree_is_figure_4s_gaussian_variant():
    from privopt.experiments.shariff2018.counters import exp2c_block, exp2c_tables
    from privopt.experiments.shariff2018.paper import PAPER
    from privopt.experiments.shariff2018.runs import exp2_block

    kw = dict(n=5000, n_rounds=1500, d=5, eps=1.0, delta=0.1, rec_every=100)
    # every counter, as the smoke pipeline's Fig. 4c jobs run them: the lockstep kernel is specialised on the number of
    # lanes, so this shares their compiled kernel (two counters cost this test 42 CPU-s of compilation of its own)
    fig4c = exp2c_block(0.1, [0, 1], **kw)
    fig4 = exp2_block(0.1, [0, 1], variants=("gaussian",), **kw)
    path = fig4c[fig4c["counter"] == "path"].sort_values(["seed", "t"])["regret"].to_numpy()
    np.testing.assert_array_equal(path, fig4.sort_values(["seed", "t"])["regret"].to_numpy())
    tables = exp2c_tables(PAPER.experiment("exp2c"), {"runs": fig4c}, {})
    r = tables["fig4c_ratio"]
    assert set(r.loc[r["counter"] == "path", "ratio"]) == {1.0}
    last = r[(r["counter"] == "honaker") & (r["t"] == r["t"].max())].iloc[0]
    fin = tables["fig4c_runs"]
    want = (fin.loc[fin["counter"] == "honaker", "regret"].mean() / fin.loc[fin["counter"] == "path", "regret"].mean())
    assert last["ratio"] == pytest.approx(want, rel=1e-12) and last["ratio_lo"] <= last["ratio"] <= last["ratio_hi"]
