"""privopt.audit: statistics, event selection, and every audit with its planted bugs.

The main test runs the quick audit table once (about 13 CPU-seconds) and asserts
that every correct configuration passes (ε_lb ≤ claimed ε), every planted bug is caught
(ε_lb > claimed ε), every tight audit's subtle bug is caught too and reaches ≥ 0.8 of the exact ε
on the correct configuration (the 0.8 is the requirement of issue 23, not a fitted value).  Seeds
are fixed, so the outcome is deterministic; the correct ones pass because the Clopper–Pearson
bounds hold with their confidence, not by a tolerance.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privopt import audit
from privopt.audit import catalogue
from privopt.audit import core, events, stats

# ----------------------------------------------------------------------------- statistics


def test_clopper_pearson_edge_cases():
    n, a = 1000, 0.01
    assert stats.cp_upper(0, n, a) == pytest.approx(1 - a ** (1 / n), rel=1e-9)
    assert stats.cp_lower(n, n, a) == pytest.approx(a ** (1 / n), rel=1e-9)
    assert stats.cp_lower(0, n, a) == 0.0 and stats.cp_upper(n, n, a) == 1.0
    lo, hi = stats.cp_lower(300, n, a), stats.cp_upper(300, n, a)
    assert lo < 0.3 < hi


def test_clopper_pearson_coverage():
    rng = np.random.default_rng(1)
    p, n, a = 0.07, 400, 0.05
    k = rng.binomial(n, p, size=4000)
    lo = np.array([stats.cp_lower(int(x), n, a) for x in k])
    assert (lo <= p).mean() >= 1 - a  # conservative one-sided coverage


def test_eps_from_bounds():
    assert stats.eps_from_bounds(0.5, 0.1, 0.0) == pytest.approx(math.log(5))
    assert stats.eps_from_bounds(0.5, 0.1, 0.2) == pytest.approx(math.log(3))
    assert stats.eps_from_bounds(0.1, 0.1, 0.2) == -math.inf


def test_exact_eps_discrete():
    e = 1.3
    p = np.array([math.exp(e), 1.0]) / (1 + math.exp(e))  # randomised response
    q = p[::-1]
    assert stats.exact_eps_discrete(p, q, 0.0) == pytest.approx(e)
    assert stats.exact_eps_discrete(p, p, 0.0) == 0.0
    assert stats.exact_eps_discrete([0.5, 0.5, 0.0], [0.5, 0.45, 0.05], 0.0) == math.inf
    # with delta the hockey-stick divergence at the returned eps equals delta
    p2, q2 = np.array([0.6, 0.3, 0.1]), np.array([0.2, 0.3, 0.5])
    d = 0.05
    ed = stats.exact_eps_discrete(p2, q2, d)
    assert max(stats.hockey_stick(p2, q2, ed), stats.hockey_stick(q2, p2, ed)) == pytest.approx(d, abs=1e-9)
    assert ed < stats.exact_eps_discrete(p2, q2, 0.0)
    assert stats.exact_eps_discrete({"a": 0.6, "b": 0.4}, {"a": 0.4, "b": 0.6}) == pytest.approx(math.log(1.5))


def test_gaussian_exact_eps():
    for mu, d in ((0.5, 1e-5), (1.0, 1e-3), (3.0, 0.1)):
        e = stats.gaussian_exact_eps(mu, d)
        assert stats.gaussian_delta(mu, e) == pytest.approx(d, rel=1e-6)
    assert stats.gaussian_exact_eps(1e-3, 0.1) == 0.0
    # textbook calibration sigma = sqrt(2 log(1.25/delta))/eps is (eps, delta)-DP for eps < 1
    eps, d = 0.5, 1e-5
    mu = eps / math.sqrt(2 * math.log(1.25 / d))
    assert stats.gaussian_exact_eps(mu, d) <= eps


# ----------------------------------------------------------------------------- events


def _rr(eps, n, bit, rng):
    p = math.exp(eps) / (1 + math.exp(eps))
    keep = rng.random(n) < p
    return np.where(keep, bit, 1 - bit).astype(np.int64)


def test_discrete_audit_on_a_tight_mechanism_is_held_out_and_sound():
    """Randomised response has exact ε on its best event: the held-out bound must stay
    below it, and close to it with enough samples."""
    rng = np.random.default_rng(7)
    eps = 1.0
    ev = audit.audit_discrete(_rr(eps, 200_000, 1, rng), _rr(eps, 200_000, 0, rng), 0.0)
    assert 0.9 < ev.eps_lb <= eps
    assert ev.confidence == 0.95
    assert ev.n_tested == 8


def test_discrete_audit_same_law_gives_zero():
    rng = np.random.default_rng(3)
    x0 = rng.integers(0, 5, 20_000)
    x1 = rng.integers(0, 5, 20_000)
    assert audit.audit_discrete(x0, x1, 0.0).eps_lb < 0.1


def test_selection_on_the_evaluated_samples_would_overstate():
    """Choosing the event on the samples that are evaluated inflates ε_lb on a tight
    mechanism (many rare outcomes); the held-out split does not."""
    rng = np.random.default_rng(11)
    n_out, n = 400, 4000
    x0, x1 = rng.integers(0, n_out, n), rng.integers(0, n_out, n)  # identical laws: true eps = 0
    held_out = audit.audit_discrete(x0, x1, 0.0).eps_lb
    c0 = np.bincount(x0, minlength=n_out)
    c1 = np.bincount(x1, minlength=n_out)
    u = int(np.argmax((c0 + 0.5) / (c1 + 0.5)))
    naive = math.log(stats.cp_lower(int(c0[u]), n, 0.05) / stats.cp_upper(int(c1[u]), n, 0.05))
    assert held_out == 0.0 < naive


def test_continuous_audit_gaussian_mechanism():
    rng = np.random.default_rng(5)
    mu, d = 3.0, 1e-3
    x0 = rng.normal(mu, 1.0, (100_000, 1))
    x1 = rng.normal(0.0, 1.0, (100_000, 1))
    ev = audit.audit_continuous(x0, x1, d)
    exact = stats.gaussian_exact_eps(mu, d)
    assert 0.5 * exact < ev.eps_lb <= exact


def _laplace_loss(y, eps):
    """Privacy loss of the Laplace mechanism (scale 1/ε) on 0 vs 1: ε(|y − 1| − |y|)."""
    return eps * (np.abs(y - 1.0) - np.abs(y))


def test_statistic_audit_reaches_the_exact_eps_of_the_laplace_mechanism():
    """The level sets of the privacy loss are the optimal events: with the atom at the maximal loss
    (y beyond both inputs) the bound gets within the Clopper–Pearson width of ε, and never above it."""
    rng = np.random.default_rng(4)
    eps, n = 1.0, 200_000
    y0, y1 = rng.laplace(0.0, 1 / eps, n), rng.laplace(1.0, 1 / eps, n)
    ev = audit.audit_statistic(np.round(_laplace_loss(y0, eps), 9), np.round(_laplace_loss(y1, eps), 9), 0.0)
    # the atom {loss = ±ε} has mass 1/2 vs e^{-ε}/2 = 0.18: on 10^5 held-out draws the Clopper–Pearson
    # bounds move each by < 2 % (relative), so the bound is within 0.05 of ε
    assert 0.9 * eps < ev.eps_lb <= eps
    assert ev.event in ("t >= 1", "t <= -1")
    # the same statistic on a mechanism with scale 1/(√2 ε) (a subtle bug) is flagged
    y0, y1 = rng.laplace(0.0, 1 / (math.sqrt(2) * eps), n), rng.laplace(1.0, 1 / (math.sqrt(2) * eps), n)
    bug = audit.audit_statistic(np.round(_laplace_loss(y0, eps), 9), np.round(_laplace_loss(y1, eps), 9), 0.0)
    assert eps < bug.eps_lb <= math.sqrt(2) * eps


def test_statistic_audit_of_identical_laws_finds_nothing():
    rng = np.random.default_rng(8)
    t0, t1 = rng.normal(size=50_000), rng.normal(size=50_000)
    assert audit.audit_statistic(t0, t1, 0.0).eps_lb < 0.1
    with pytest.raises(ValueError):
        audit.audit_statistic(np.array([0.0, np.inf, 1.0, 2.0]), t1[:4], 0.0)


def test_statistic_thresholds_reach_the_tails():
    t = np.arange(100_000, dtype=float)
    grid = events.statistic_thresholds(t)
    assert grid.min() <= 10 and grid.max() >= 99_989  # within 10^-4 of both ends
    assert np.all(np.diff(grid) > 0)


def test_predicted_eps_lb_of_randomised_response():
    """The expected bound at the exact laws: below ε, rising with n towards it, 0 for identical laws."""
    e = 1.0
    p = np.array([math.exp(e), 1.0]) / (1 + math.exp(e))
    lbs = [stats.predicted_eps_lb(p, p[::-1], n) for n in (1_000, 10_000, 100_000, 1_000_000)]
    assert all(0 < a < b < e for a, b in zip(lbs, lbs[1:]))
    assert lbs[-1] > 0.97 * e
    assert stats.predicted_eps_lb(p, p, 10_000) == 0.0


def test_sample_sizes_are_derived_from_the_exact_laws():
    """The quick sample sizes come from the bound expected at the exact laws (stats.predicted_eps_lb):
    ≥ 0.8 × exact on the correct exponential mechanism (≥ 0.75 × on every DPG rule), above the claim on the subtle
    bug — no seed involved."""
    from privopt.audit import exponential, greedy
    from privopt.mechanisms.exponential import exponential_probabilities

    q0, q1 = exponential.em_instance()
    for a in (x for x in catalogue.all_audits() if x.name.startswith("exp_mech")):
        n = a.samples["quick"]
        for variant in ("correct", "subtle"):
            f = exponential.FACTOR[variant]
            p, q = exponential_probabilities(q0 * f, 1.0), exponential_probabilities(q1 * f, 1.0)
            lb = stats.predicted_eps_lb(p, q, n)
            if variant == "correct":
                assert 0.8 * a.exact("correct") <= lb <= a.eps, (a.name, lb)
            else:
                assert lb > a.eps, (a.name, lb)
    for rule in greedy.RULES:
        e0 = greedy._eps0(rule, "correct")
        d0, d1 = greedy.dpg_law(0, e0), greedy.dpg_law(1, e0)
        keys = sorted(set(d0) | set(d1))
        p, q = np.array([d0.get(k, 0.0) for k in keys]), np.array([d1.get(k, 0.0) for k in keys])
        delta = 0.0 if rule == "basic" else greedy.DELTA
        exact = stats.exact_eps_discrete(p, q, delta)
        # 0.94 × for basic / better_of, 0.78–0.87 × for the composition rules (exact 0.19–0.36)
        assert stats.predicted_eps_lb(p, q, greedy.SAMPLES[rule]["quick"], delta) >= 0.75 * exact, rule


def test_fisher_direction_finds_the_shifted_coordinate():
    rng = np.random.default_rng(2)
    x0 = rng.normal(0, 1, (5000, 4))
    x1 = rng.normal(0, 1, (5000, 4))
    x0[:, 2] += 1.0
    w = events.fisher_direction(x0, x1)
    assert abs(w[2]) > 0.95


# ----------------------------------------------------------------------------- the audit table

EXPECTED = {
    "exp_mech_numpy", "exp_mech_numba", "dpg_basic", "dpg_advanced_code", "dpg_advanced_drv", "dpg_improved",
    "dpg_better_of", "pcg_swap_G", "pcg_pairwise_G", "pcg_swap_exact_F", "pcg_pairwise_exact_F", "pmcg_G",
    "tree_gaussian", "tree_wishart",
}


#: the pipeline's quick table (the DPG rules' 5·10^5 samples per input, drawn at once by private_greedy_runs, cost
#: about a second each; one call at a time 8·10^4 had taken 25 CPU-s, and the test used 1,500)
TEST_SCALE = "quick"


@pytest.fixture(scope="module")
def quick_table():
    # (how long each audit takes is measured by benchmarks/bench_audit.py, never by a test)
    return audit.run_audits(catalogue.all_audits(), TEST_SCALE, seed=0), None


def test_registry_covers_every_mechanism():
    audits = catalogue.all_audits()
    assert {a.name for a in audits} == EXPECTED
    for a in audits:
        assert a.paper in ("chaturvedi2021", "shariff2018")
        assert a.relation and a.instance and a.bug
        assert a.eps > 0 and 0 <= a.delta < 1
        assert set(a.samples) == set(audit.SCALES) and a.samples["paper"] >= a.samples["quick"]
        assert a.tightness in core.TIGHTNESS and a.tightness_note
        assert (a.tightness != "tight") or a.subtle_bug
    assert {a.name for a in audits if a.tightness == "tight"} == {"exp_mech_numpy", "exp_mech_numba"}


def test_a_tight_audit_needs_a_subtle_bug():
    a = catalogue.all_audits()[0]
    with pytest.raises(ValueError, match="subtle"):
        core.Audit(**{**{f: getattr(a, f) for f in a.__dataclass_fields__}, "subtle_bug": ""})
    with pytest.raises(ValueError, match="tightness"):
        core.Audit(**{**{f: getattr(a, f) for f in a.__dataclass_fields__}, "tightness": "tightish"})
    assert core.variant_name(True) == "planted" and core.variant_name(False) == "correct"
    with pytest.raises(ValueError):
        core.variant_name("bogus")


def test_the_dpg_audits_sample_the_runs_own_greedy(monkeypatch):
    """The DPG audits draw their samples with private_greedy_runs and replay the first REPLAYED calls of each through
    private_greedy itself, on a copy of the stream: a vectorised twin that differs from the runs' code (here its
    calls in reverse order: the same law, other picks) stops the audit instead of auditing something else."""
    from privopt.audit import greedy as dpg

    sampler = dpg.audits()[0].sampler
    codes = sampler("correct", 0, 500, np.random.default_rng(1))
    assert codes.shape == (500,) and 0 <= codes.min() and codes.max() < dpg.N_LOC**dpg.RANK
    real = dpg.private_greedy_runs
    monkeypatch.setattr(dpg, "private_greedy_runs", lambda *args: real(*args)[::-1])
    with pytest.raises(AssertionError, match="differs from private_greedy"):
        sampler("correct", 0, 500, np.random.default_rng(1))


def test_every_correct_passes_and_every_planted_bug_is_caught(quick_table):
    df, _ = quick_table
    assert list(df.columns) == audit.COLUMNS
    assert len(df) == sum(len(a.variants()) for a in catalogue.all_audits())
    correct = df[df.variant == "correct"]
    planted = df[df.variant != "correct"]
    bad = correct[correct.eps_lb > correct.claimed_eps]
    assert bad.empty, bad[["audit", "eps_lb", "claimed_eps"]]
    missed = planted[planted.eps_lb <= planted.claimed_eps]
    assert missed.empty, missed[["audit", "eps_lb", "claimed_eps"]]
    assert (correct.result == "pass").all() and (planted.result == "caught").all()
    assert (df.confidence == 0.95).all()


def test_tight_audits_reach_most_of_the_exact_eps(quick_table):
    """Issue 23: on a tight audit the correct mechanism's bound reaches ≥ 0.8 of the instance's exact ε
    (not flagged: ≤ the claim), and the subtle bug is a real violation that is caught."""
    df, _ = quick_table
    tight = df[df.tightness == "tight"]
    assert set(tight.variant) == {"correct", "planted", "subtle"}
    for row in tight.itertuples():
        if row.variant == "correct":
            assert 0.8 * row.exact_eps <= row.eps_lb <= row.claimed_eps, row
        else:
            assert row.claimed_eps < row.eps_lb <= row.exact_eps + 1e-9, row
    subtle = tight[tight.variant == "subtle"]
    assert (subtle.exact_eps < 1.5 * subtle.claimed_eps).all()  # subtle: within 1.5x of the claim


def test_exact_eps_is_consistent(quick_table):
    """White-box: where the law is computed, correct pairs are within and planted bugs beyond
    the claim, and the statistical bound never exceeds the exact ε."""
    df, _ = quick_table
    known = df[df.exact_eps.notna()]
    assert set(known.audit) >= {"exp_mech_numpy", "exp_mech_numba", "dpg_basic", "dpg_improved",
                                "pcg_swap_exact_F", "pcg_pairwise_exact_F", "tree_gaussian"}
    for row in known.itertuples():
        if row.variant == "correct":
            assert row.exact_eps <= row.claimed_eps, row
        else:
            assert row.exact_eps > row.claimed_eps, row
        assert row.eps_lb <= row.exact_eps + 1e-9, row
    # loose audits say why: the exact ε of the correct pair is far below the claim
    loose = known[(known.tightness == "loose") & (known.variant == "correct")]
    assert (loose.exact_eps < 0.6 * loose.claimed_eps).all(), loose



def test_exponential_mechanism_loses_most_of_its_eps_under_replacement(quick_table):
    df, _ = quick_table
    row = df[(df.audit == "exp_mech_numba") & (df.variant == "correct")].iloc[0]
    assert row.exact_eps == pytest.approx(0.897, abs=1e-3)
    assert row.eps_lb > 0.75  # the audit sees most of the full eps0 (not just eps0/2)


def _chosen(names):
    return [a for a in catalogue.all_audits() if a.name in names]


def test_the_audit_table_is_deterministic_for_a_seed(quick_table):
    df, _ = quick_table
    names = ["exp_mech_numba", "tree_gaussian"]
    again = audit.run_audits(_chosen(names), "quick", seed=0)
    ref = df[df.audit.isin(names)].reset_index(drop=True)
    assert again.equals(ref)
    other = audit.run_audits(_chosen(["exp_mech_numba"]), {"*": 2000}, seed=1)
    assert other.samples.tolist() == [2000, 2000, 2000]
    assert not np.isclose(other.eps_lb.iloc[0], ref.eps_lb.iloc[0])


def test_samples_for():
    a = catalogue.all_audits()[0]
    assert audit.samples_for(a, "quick") == a.samples["quick"]
    assert audit.samples_for(a, "paper") == a.samples["paper"]
    assert audit.samples_for(a, 123) == 123
    assert audit.samples_for(a, {a.name: "paper"}) == a.samples["paper"]
    assert audit.samples_for(a, {"*": 50}) == 50
    with pytest.raises(ValueError):
        audit.samples_for(a, "huge")
    assert core.COLUMNS == audit.COLUMNS


def test_report_audit_rows_show_tightness_and_both_bugs(tmp_path):
    """The report's audit table (privopt.pipeline.report.audit_rows, paper/report.html.j2): one row per audit with
    the blatant bug's text, the subtle bug's bound and result, and the tightness; a tight audit that misses
    its subtle bug is not ok, a diluted one that misses it is (its row says why)."""
    from pathlib import Path

    from privopt.pipeline.report import audit_rows, render_report

    tight = audit.run_audits([a for a in catalogue.all_audits() if a.name == "exp_mech_numba"], {"*": 20_000}, 0)
    loose = audit.run_audits([a for a in catalogue.all_audits() if a.name == "pcg_swap_exact_F"], {"*": 200}, 0)
    table = pd.concat([tight, loose], ignore_index=True)
    path = tmp_path / "audits.csv"
    table.to_csv(path, index=False)
    rows = {r["audit"]: r for r in audit_rows(pd.read_csv(path))}
    assert rows["exp_mech_numba"]["bug"].startswith("P(u)")
    assert rows["exp_mech_numba"]["bug_subtle"].startswith("Gumbel")
    assert rows["exp_mech_numba"]["tightness"] == "tight" and rows["exp_mech_numba"]["result_subtle"] == "caught"
    assert rows["exp_mech_numba"]["ok"]
    assert rows["pcg_swap_exact_F"]["tightness"] == "loose"
    assert rows["pcg_swap_exact_F"]["result_subtle"] == "none planted"
    missed = pd.read_csv(path)
    missed.loc[(missed.audit == "exp_mech_numba") & (missed.variant == "subtle"), "result"] = "missed"
    assert not {r["audit"]: r for r in audit_rows(missed)}["exp_mech_numba"]["ok"]
    template = Path(__file__).resolve().parents[1] / "paper" / "report.html.j2"
    out = tmp_path / "report.html"
    render_report(template, {}, {}, None, "quick", out, audits=path, audit_settings={"samples": "quick"})
    html = (tmp_path / "audits.html").read_text()  # the audits page beside the report
    assert "Gumbel noise scale" in html and "<b>loose</b>" in html and "subtle: caught" in html


def test_every_audit_of_the_source_is_listed_in_one_place():
    """privopt.pipeline.audits.every_audit lists the catalogue's audits and every paper's declared ones: each
    ``audits()`` function of the source is reached, each audit once, and each paper's declared audits are
    attributed to it."""
    import ast

    from privopt.pipeline.audits import every_audit
    from privopt.pipeline.protocol import resolve
    from privopt.pipeline.registry import papers

    listed = every_audit()
    names = [entry.name for entry in listed]
    assert len(names) == len(set(names))
    assert EXPECTED <= set(names)
    src = Path(__file__).resolve().parents[1] / "src"
    makers = []  # every module-level `def audits()` of the source, as "module:audits"
    for path in sorted((src / "privopt").rglob("*.py")):
        if any(isinstance(n, ast.FunctionDef) and n.name == "audits" for n in ast.parse(path.read_text()).body):
            makers.append(".".join(path.relative_to(src).with_suffix("").parts) + ":audits")
    assert len(makers) >= 7, makers  # guards the scan: 4 in privopt.audit, 3 in the papers' packages
    for ref in makers:
        assert {a.name for a in resolve(ref)()} <= set(names), ref
    for key, paper in papers().items():
        for ref in paper.audits:
            for a in resolve(ref)():
                assert key in next(e for e in listed if e.name == a.name).papers, (key, a.name)
