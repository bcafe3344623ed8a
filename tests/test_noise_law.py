"""White-box noise-law audits (privopt.audit.noise_law): their size from the χ² law, the correct releases pass,
σ/√2, 0.9σ and a missing √2 on the diagonal are caught, and the rows are deterministic (issue 39)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from privopt.audit import noise_law as nl
from privopt.audit.core import COLUMNS


def test_required_dof_is_the_smallest_with_the_power():
    for c, tail in ((0.9, 2.5e-4), (0.9, 5e-4), (nl.PLANTED, 2.5e-4)):
        k = nl.required_dof(c, tail)
        power = lambda n: stats.chi2.cdf(stats.chi2.ppf(tail, n) / c**2, n)  # noqa: E731
        assert power(k) >= nl.POWER > power(k - 1)
    assert nl.required_dof(0.9, 2.5e-4) == 1542 and nl.required_dof(0.9, 5e-4) == 1440
    assert nl.required_dof(nl.PLANTED, 2.5e-4) == 149


def test_scale_test_false_alarm_rate_and_power_by_simulation():
    """On N(0, 1) values the test rejects at about α; at 0.9 (k = 1 440, one group) about 99 % of the time."""
    rng = np.random.default_rng(2026)
    k, reps = 1440, 4000
    null = sum(nl.scale_test({"all": rng.standard_normal(k)}, alpha=0.05)[0] for _ in range(reps)) / reps
    assert abs(null - 0.05) < 4 * math.sqrt(0.05 * 0.95 / reps)
    hits = sum(nl.scale_test({"all": 0.9 * rng.standard_normal(k)})[0] for _ in range(reps)) / reps
    assert hits >= nl.POWER - 4 * math.sqrt(0.01 * 0.99 / reps)


@pytest.fixture(scope="module")
def audits():
    return {a.name: a for a in nl.noise_law_audits()}


def test_every_gaussian_release_is_audited(audits):
    assert set(audits) == {"bandit_path", "bandit_tree", "bandit_honaker", "bandit_smooth",
                           "counter_tree", "counter_honaker", "counter_sqrt", "counter_smooth"}
    for a in audits.values():
        assert all(a.replicates() * k >= a.k_required() for k in a.dof.values())


@pytest.mark.parametrize("name", ["bandit_path", "bandit_tree", "counter_sqrt", "counter_honaker"])
def test_correct_passes_planted_and_subtle_caught(audits, name):
    rows = audits[name].rows(seed=0)
    assert [r["result"] for r in rows] == ["pass", "caught", "caught"]
    assert all(list(r) == COLUMNS for r in rows)


def test_a_missing_sqrt2_on_the_diagonal_is_caught(audits):
    """The kernel's released diagonal divided by √2 (the symmetric law's √2 forgotten): the diagonal group
    rejects, the off-diagonal group does not."""
    a = audits["bandit_path"]
    diag, _ = nl._bandit_entries(nl.BANDIT_D)
    groups = a.draw(1.0, np.random.SeedSequence(7))
    z = {"diagonal": groups["diagonal"] / math.sqrt(2.0), "off-diagonal": groups["off-diagonal"]}
    reject, text = nl.scale_test(z)
    assert reject and "diagonal: k = 2000, var ratio 0.5" in text
    assert not nl.scale_test({"off-diagonal": groups["off-diagonal"]})[0]


def test_the_law_uses_the_trees_shared_levels():
    """A release with the right marginal variance (m node noises per round) but fresh nodes every round, no
    levels shared, is rejected by the whitening with the tree's shared-level covariance."""
    from privopt.bandits.parameters import gaussian_params
    from privopt.mechanisms.tree import shared_path_levels

    v = gaussian_params(nl.PATH_N, nl.BANDIT_D)
    R, q = nl.PATH_ROUNDS, nl.BANDIT_D * (nl.BANDIT_D + 3) // 2
    S = np.array([[shared_path_levels(s, t, v.m) for t in range(R)] for s in range(R)], dtype=float)
    fresh = np.random.default_rng(5).standard_normal((R, q)) * math.sqrt(v.m)  # unit node variance
    assert np.allclose(np.diag(S), v.m)
    assert nl.scale_test({"all": nl.whiten(fresh, S)})[0]
    shared = np.linalg.cholesky(S) @ np.random.default_rng(6).standard_normal((R, q))  # the tree's law
    assert not nl.scale_test({"all": nl.whiten(shared, S)})[0]


def test_rows_are_deterministic(audits):
    a = audits["counter_tree"]
    events = [r["event"] for r in a.rows(seed=1)]
    assert events == [r["event"] for r in a.rows(seed=1)]
    assert events != [r["event"] for r in a.rows(seed=2)]


def test_pcg_draws_against_their_exact_law():
    """PCG's exponential-mechanism picks: the kernel at ε0 passes; 2ε0 and 1.25ε0 are caught (score test sized
    for power 0.99 against 1.25ε0 at false-alarm 10⁻³: information 505)."""
    from privopt.audit.sampling_law import PcgDrawsAudit, required_information, score_statistic

    assert required_information(1.25) == pytest.approx(504.8, abs=0.05)
    rows = PcgDrawsAudit().rows(seed=0)
    assert [r["result"] for r in rows] == ["pass", "caught", "caught"]
    # a pick outside the candidates (a mask bug) has probability 0
    trace = np.array([[1.0, np.nan, 2.0]])
    assert score_statistic(trace, np.array([1]), 1.0)[2] == 1
