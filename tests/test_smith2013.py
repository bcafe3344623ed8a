"""Smith & Thakurta (2013): instance, streams, run jobs, tables, claims in each outcome, privacy checks."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from privopt.pipeline.claims import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED
from privopt.pipeline.protocol import ConfigError
from privopt.pipeline.registry import paper
from privopt.experiments.smith2013 import claims as claims_mod
from privopt.experiments.smith2013 import privacy, runs, streams, tables
from privopt.experiments.smith2013.instances import disk_coordinates

PAPER = paper("smith2013")
ST1 = PAPER.experiment("st1")


def _section(**over):
    """The schema defaults (quick scale), with overrides per experiment."""
    from snakemake.utils import validate

    from workflow_runs import REPO

    section = {k: dict(v) for k, v in over.items()}
    validate(section, str(REPO / "workflow/schemas/smith2013.schema.yaml"), set_default=True)
    return section


@pytest.fixture(scope="module")
def disk_dir(tmp_path_factory):
    """A small disk instance: 3000 points uniform in the unit disk (the runs only read disk.parquet)."""
    rng = np.random.default_rng(0)
    r, a = np.sqrt(rng.random(3000)), 2 * math.pi * rng.random(3000)
    where = tmp_path_factory.mktemp("disk")
    pd.DataFrame({"ux": r * np.cos(a), "uy": r * np.sin(a)}).to_parquet(where / "disk.parquet")
    return str(where)


# ----------------------------------------------------------------------------- instance and streams


def test_disk_coordinates_use_the_fixed_centre_and_radius():
    lat = np.array([40.7484, 40.7484 + 24.99 / 110.574, 40.7484 + 25.01 / 110.574, 40.7484])
    lon = np.array([-73.9857, -73.9857, -73.9857, -73.9857 - 10 / (111.320 * math.cos(math.radians(40.7484)))])
    u, keep = disk_coordinates(lat, lon)
    np.testing.assert_allclose(u, [[0, 0], [0, 24.99 / 25], [0, 25.01 / 25], [-0.4, 0]], atol=1e-12)
    assert keep.tolist() == [True, True, False, True]


def test_streams_are_prefixes_and_shared_by_every_eps():
    long = streams.uber_indices(1000, "st1", [0, 1], 500)
    short = streams.uber_indices(1000, "st1", [1], 37)
    assert np.array_equal(long[1, :37], short[0]) and long.min() >= 0 and long.max() < 1000
    assert not np.array_equal(long[0], long[1])
    x = streams.dim_points(4, 200, "st3", 0)
    assert x.shape == (200, 4) and np.linalg.norm(x, axis=1).max() <= 1 + 1e-12
    assert abs(x[:, 0].mean() - 0.3) < 0.05


# ----------------------------------------------------------------------------- run jobs


def test_st1_job_rows_are_deterministic_and_independent_of_the_seed_blocks(disk_dir):
    settings = {"losses": ["sc", "gc"], "eps": [1.0, 10.0], "c_sens": 2.0, "h_rule": "hstar"}
    inputs = {"disk": disk_dir}
    both = runs.uber_job(ST1, {"T": 256}, settings, [0, 1], inputs)["runs"]
    again = runs.uber_job(ST1, {"T": 256}, settings, [0, 1], inputs)["runs"]
    pd.testing.assert_frame_equal(both.drop(columns="wall_s"), again.drop(columns="wall_s"))
    split = pd.concat([runs.uber_job(ST1, {"T": 256}, settings, [s], inputs)["runs"] for s in (0, 1)])
    key = ["loss", "eps", "seed"]
    a = both.drop(columns="wall_s").sort_values(key).reset_index(drop=True)
    b = split.drop(columns="wall_s").sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    assert len(both) == 2 * 3 * 2 and both["eps"].apply(math.isinf).sum() == 4
    assert (both["max_ratio"] <= 1).all()
    # the comparator is the best fixed point: every run's cumulative loss is at least its loss
    assert (both["cum_loss"] >= both["best_loss"] - 1e-9).all()
    # one seed sees the same points whatever ε: same comparator
    assert both.groupby(["loss", "seed"])["best_loss"].nunique().max() == 1


def test_st3_st4_and_st0_jobs(disk_dir):
    s3 = runs.st3_job(PAPER.experiment("st3"), {"p": 3}, {"losses": ["sc", "gc"], "T": 128, "eps": [10.0], "c_sens": 2.0, "h_rule": "hstar"},
                      [0, 1], {})["runs"]
    assert set(s3["p"]) == {3} and len(s3) == 2 * 2 * 2
    s4 = runs.st4_job(PAPER.experiment("st4"), {"T": 128}, {"beta_rules": ["oblivious", "adaptive"], "eps": [100.0], "B": 2.0, "H": 1.0,
                                   "c_sens": 2.0}, [0], {"disk": disk_dir})["runs"]
    assert set(s4["beta_rule"]) == {"oblivious", "adaptive"} and s4["beta_capped"].tolist() == [False, False, True, True]
    s0 = runs.st0_job(PAPER.experiment("st0"), {"d": 2}, {"T": 16, "eps": 1.0, "mu": 1.0, "c_sens": 2.0}, list(range(50)), {})["runs"]
    t0 = tables.st0_tables(PAPER.experiment("st0"), {"runs": s0}, {})["st0"]
    assert t0["n"].eq(50).all() and t0["lam"].iloc[0] == 2 * 1.0 * 5 / 1.0
    assert abs(t0["mean_sq"].sum() / t0["theory_sq"].sum() - 1) < 0.25


def test_tables_pair_the_excess_with_the_same_seed():
    rows = [{"experiment": "st2", "loss": "sc", "T": 64, "p": 2, "eps": e, "seed": s, "regret": r}
            for e, base in ((1.0, 10.0), (math.inf, 1.0)) for s, r in ((0, base), (1, base + 2))]
    out = tables.st2_tables(PAPER.experiment("st2"), {"runs": pd.DataFrame(rows)}, {})
    t = out["st2"].set_index("eps")
    assert t.loc[1.0, "excess_mean"] == 9.0 and t.loc[1.0, "excess_std"] == 0.0
    assert t.loc[1.0, "mean"] == 11.0 and t.loc[1.0, "ci_lo"] >= 10.0 and t.loc[1.0, "ci_hi"] <= 12.0
    assert t.loc[math.inf, "excess_mean"] == 0.0


# ----------------------------------------------------------------------------- claims

EPS1 = [0.1, 0.3, 1.0, 3.0, 10.0, math.inf]
TS = [256, 1024, 4096, 16384, 65536, 262144]  # two horizons past ε = 0.1's burn-in (T ≥ 20480, claim ST1.b)


def _row(seeds, rel=0.0, **kw):
    return {"std": 0.0, "sem": rel * abs(kw["mean"]), "n": seeds, "ci_lo": kw["mean"], "ci_hi": kw["mean"], **kw}


def good_tables(seeds=10, rel=0.0):
    """Tables shaped as the theorems predict (every claim reproduced); ``seeds`` per point, SEM = rel·|mean|."""
    st0 = pd.DataFrame([{"d": d, "t": t, "popcount": bin(t).count("1"), "n": 2000, "lam": 1.0,
                         "theory_sq": bin(t).count("1") * d * (d + 1), "mean_sq": bin(t).count("1") * d * (d + 1) * 1.01}
                        for d in (2, 8) for t in range(1, 65)])
    r = lambda **kw: _row(seeds, rel, **kw)  # noqa: E731
    st1 = pd.DataFrame([r(loss="sc", T=T, eps=e, mean=(0.3 if math.isinf(e) else 10 * math.log(T) ** 2.5 / e / 40))
                        for T in TS for e in EPS1]
                       + [r(loss="gc", T=T, eps=e, mean=math.sqrt(T) * (1 + (0 if math.isinf(e) else 3 / math.sqrt(e))))
                          for T in TS for e in EPS1])
    eps2 = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]

    def st2_row(loss, e, excess, base):
        return {**r(loss=loss, T=16384, eps=e, mean=base + excess), "excess_mean": excess,
                "excess_sem": rel * excess, "excess_n": seeds}

    st2 = pd.DataFrame([st2_row("sc", e, 100 / e, 1.0) for e in eps2] + [st2_row("gc", e, 50 / math.sqrt(e), 100.0)
                                                                         for e in eps2])
    dims = (1, 2, 4, 8, 16, 32, 64)
    st3 = pd.DataFrame([r(loss="sc", p=p, T=4096, eps=e, mean=p * 10 / (1 if math.isinf(e) else e))
                        for p in dims for e in (1.0, 10.0, math.inf)]
                       + [r(loss="gc", p=p, T=4096, eps=e, mean=math.sqrt(p) * 100) for p in dims
                          for e in (1.0, 10.0, math.inf)])
    st4 = pd.DataFrame([r(beta_rule=b, T=T, eps=e, mean=T**0.5, beta=0.1, beta_capped=False)
                        for b in ("oblivious", "adaptive") for T in (1024, 4096, 16384) for e in (1.0, 100.0, math.inf)])
    run_rows = pd.DataFrame([{"experiment": "st1", "loss": "sc", "T": 1024, "p": 2, "eps": 1.0, "regret": 5.0, "H": 1.0,
                              "L": 2.0, "c_sens": 2.0}])
    priv = pd.DataFrame([{"audit": a, "variant": v, "eps_lb": lb, "exact_eps": ex, "claimed_eps": 1.0,
                          "result": res, "event": ""}
                         for a, v, lb, ex, res in (("tbap", "correct", 0.5, 1.0, "pass"), ("tbap", "planted", 1.2, 2.0, "caught"),
                                                   ("guard", "correct", math.nan, math.nan, "pass"),
                                                   ("guard", "planted", math.nan, math.nan, "caught"))])
    from test_smith2013_counters import good_st0c_tables
    from test_smith2013_st1c import good_st1c_tables

    return {**good_st0c_tables(), **good_st1c_tables(), "st0": st0, "st1": st1, "st1_runs": run_rows, "st2": st2, "st2_runs": run_rows.iloc[:0], "st3": st3,
            "st3_runs": run_rows.iloc[:0], "st4": st4, "privacy": priv}


SETTINGS = {"h_rule": "hstar", "c_sens": 2.0}


def _rows(tbls, settings=SETTINGS):
    out = {}
    for r in claims_mod.evaluate(tbls, settings):
        out.setdefault(r.claim, []).append(r)
    return out


def _verdicts(tbls, settings=SETTINGS):
    return {c: {r.verdict for r in rows} for c, rows in _rows(tbls, settings).items()}


def test_every_claim_reproduced_on_tables_shaped_as_predicted():
    for seeds in (3, 10):  # an estimate that meets its threshold decides at any number of seeds
        verdicts = _verdicts(good_tables(seeds, rel=0.05))
        assert set(verdicts) == set(claims_mod.CLAIMS.ids)
        assert all(v == {REPRODUCED} for v in verdicts.values()), verdicts


def _sc(t, fn):
    t["st1"]["mean"] = np.where(t["st1"]["loss"] == "sc", fn(t["st1"]), t["st1"]["mean"])


def _gc(t, fn):
    t["st1"]["mean"] = np.where(t["st1"]["loss"] == "gc", fn(t["st1"]), t["st1"]["mean"])


def _sem_follows_mean(t, rel):
    for k in ("st1", "st3", "st4"):
        t[k]["sem"] = rel * t[k]["mean"].abs()
    t["st2"]["excess_sem"] = rel * t["st2"]["excess_mean"].abs()


#: each statistical claim broken well beyond its threshold (the st0 break is in the ratio itself)
BREAKS = [
    ("ST1.a", lambda t: _sc(t, lambda d: d["T"] * 1.0)),
    ("ST1.a", lambda t: _sc(t, lambda d: np.where(np.isinf(d["eps"]), 50.0, d["mean"]))),  # non-private regret ≥ 5
    ("ST1.b", lambda t: _sc(t, lambda d: d["T"] * 1.0)),
    ("ST1.c", lambda t: _gc(t, lambda d: d["T"] * 1.0)),
    ("ST1.d", lambda t: t["st1"].__setitem__("mean", t["st1"]["eps"].replace(math.inf, 1e6))),
    ("ST2.a", lambda t: t["st2"].__setitem__("excess_mean", 1 / np.sqrt(t["st2"]["eps"]))),
    ("ST2.b", lambda t: t["st2"].__setitem__("excess_mean", 1 / t["st2"]["eps"] ** 2)),
    ("ST3.a", lambda t: t["st3"].__setitem__("mean", np.sqrt(t["st3"]["p"]))),
    ("ST3.b", lambda t: t["st3"].__setitem__("mean", t["st3"]["p"] ** 1.5)),
    ("ST4.a", lambda t: t["st4"].__setitem__("mean", t["st4"]["T"] ** 0.9)),
    ("ST4.b", lambda t: t["st4"].__setitem__("mean", t["st4"]["T"] ** 0.75)),
]


@pytest.mark.parametrize("claim, breaks", BREAKS + [
    ("ST0.a", lambda t: t["st0"].__setitem__("mean_sq", t["st0"]["theory_sq"] * 1.1)),
    ("U1.a", lambda t: t["st1_runs"].__setitem__("regret", 1e9)),
    ("P1.a", lambda t: t["privacy"].__setitem__("result", ["VIOLATION", "caught", "pass", "caught"])),
    ("P1.b", lambda t: t["privacy"].__setitem__("result", ["pass", "missed", "pass", "caught"])),
])
def test_each_claim_can_fail(claim, breaks):
    tbls = good_tables(10, rel=0.01)  # 10 seeds, tight intervals: the data contradict the claim
    breaks(tbls)
    _sem_follows_mean(tbls, 0.01)
    assert NOT_REPRODUCED in _verdicts(tbls)[claim]


@pytest.mark.parametrize("claim, breaks", BREAKS)
def test_a_missed_threshold_from_three_seeds_is_inconclusive(claim, breaks):
    """Standard errors from 2–3 seeds decide nothing: the same break is inconclusive, needing 10 seeds."""
    tbls = good_tables(3, rel=0.01)
    breaks(tbls)
    _sem_follows_mean(tbls, 0.01)
    rows = _rows(tbls)[claim]
    assert {r.verdict for r in rows} == {INCONCLUSIVE}, [(r.measured, r.verdict) for r in rows]
    assert all("≥ 10 seeds per point" in r.needs for r in rows), [r.needs for r in rows]


@pytest.mark.parametrize("claim, breaks", BREAKS)
def test_a_missed_threshold_within_the_interval_is_inconclusive(claim, breaks):
    """10 seeds but an interval that reaches back over the threshold: inconclusive, saying how many seeds would do."""
    tbls = good_tables(10)
    breaks(tbls)
    _sem_follows_mean(tbls, 3.0)
    tbls["st0"]["mean_sq"] = tbls["st0"]["theory_sq"] * np.where(tbls["st0"]["t"] % 2, 1.7, 0.5)  # ratio 1.08, wide
    rows = _rows(tbls)[claim] + _rows(tbls)["ST0.a"]
    assert {r.verdict for r in rows} == {INCONCLUSIVE}, [(r.measured, r.verdict) for r in rows]
    assert all(re.search(r"≈ \d+ seeds per point|more seeds", r.needs) for r in rows), [r.needs for r in rows]


def test_claims_inconclusive_when_what_ran_lacks_their_points_or_range():
    tbls = good_tables()
    tbls["st1"] = tbls["st1"][tbls["st1"]["T"] <= 16384]  # one horizon in [2^12, T_max] … no: 4096, 16384
    v = _rows(tbls)
    st1b = v["ST1.b"][0]  # ε = 0.1 has no two horizons past its burn-in T ≥ 20480
    assert st1b.verdict == INCONCLUSIVE and "20480" in st1b.needs, (st1b.measured, st1b.needs)
    tbls["st1"] = tbls["st1"][tbls["st1"]["T"] <= 4096]  # one horizon in [2^12, T_max]
    tbls["st2"] = tbls["st2"][tbls["st2"]["eps"] <= 10]  # the ε grid stops short of 20
    tbls["st3"] = tbls["st3"][tbls["st3"]["p"] <= 8]  # the p grid stops short of 64
    tbls["st4"] = tbls["st4"].iloc[:0]
    rows = _rows(tbls)
    for cid in ("ST1.a", "ST1.b", "ST1.c", "ST2.a", "ST2.b", "ST3.a", "ST3.b", "ST4.a", "ST4.b"):
        assert {r.verdict for r in rows[cid]} == {INCONCLUSIVE}, (cid, [r.measured for r in rows[cid]])
        assert all(r.needs for r in rows[cid]), (cid, [r.measured for r in rows[cid]])
    assert "[2^12, T_max]" in rows["ST1.a"][0].needs and "ε over [0.5, 20]" in rows["ST2.a"][0].needs
    assert "p over [1, 64]" in rows["ST3.a"][0].needs
    tbls = good_tables()
    tbls["st2"] = tbls["st2"].assign(excess_mean=-1.0)  # no positive excess: no log slope
    tbls["st1"] = tbls["st1"][~np.isclose(tbls["st1"]["eps"], 3.0)]  # ST1.c speaks of ε = 3
    v = _verdicts(tbls)
    assert v["ST2.a"] == v["ST2.b"] == v["ST1.c"] == {INCONCLUSIVE}
    assert _verdicts(good_tables(), {"h_rule": "text", "c_sens": 2.0})["ST2.b"] == {INCONCLUSIVE}
    tbls = good_tables()
    del tbls["privacy"]
    tbls["st1_runs"] = tbls["st1_runs"].iloc[:0]  # no runs: no bound to compare
    v = _verdicts(tbls)
    assert v["U1.a"] == v["P1.a"] == v["P1.b"] == {INCONCLUSIVE}


def test_a_contradicted_part_outweighs_an_undecided_one():
    tbls = good_tables(10, rel=0.01)
    _sc(tbls, lambda d: np.where(np.isinf(d["eps"]), 50.0, d["mean"]))  # non-private ≥ 5: contradicted
    tbls["st1"] = tbls["st1"][tbls["st1"]["T"] <= 4096]  # the slopes cannot be fitted
    assert _verdicts(tbls)["ST1.a"] == {NOT_REPRODUCED}


def test_judge_and_slope_interval():
    from privopt.pipeline.parts import judge, loglog_fit
    assert judge("x", 0.4, 1.0, 3, hi=0.5).holds is True
    assert judge("x", 0.6, 0.01, 10, hi=0.5).holds is False
    part = judge("x", 0.6, 0.1, 10, hi=0.5)  # 95 % interval 0.40 … 0.80 reaches 0.5
    assert part.holds is None and part.seeds == math.ceil(10 * (1.96 * 0.1 / 0.1) ** 2)
    assert judge("x", 0.6, 0.01, 9, hi=0.5).holds is None
    slope, se = loglog_fit([1, 2, 4], [1.0, 2.0, 4.0], [0.1, 0.2, 0.4])
    c = np.log([1, 2, 4]) - np.log([1, 2, 4]).mean()
    assert slope == pytest.approx(1.0) and se == pytest.approx(0.1 * math.sqrt(np.sum((c / (c @ c)) ** 2)))


def test_findings_state_their_numbers():
    found = claims_mod.findings(good_tables(), None, SETTINGS)
    assert [f.figure for f in found] == ["st1", "st4", "st1", "st0c", "st1c"]
    r = good_tables()["st0c_ratio"].set_index(["guarantee", "counter"])
    assert f"Honaker ×{float(r.loc[('laplace', 'honaker'), 'ratio']):.3f}" in found[3].text
    c = good_tables()["st1c"]
    top = c[(c["T"] == c["T"].max()) & (c["counter"] == "smooth")].sort_values("loss")
    assert f"smooth binary ×{float(top['ratio'].iloc[0]):.3f}" in found[4].text
    assert "ε = 1" in found[0].text and "0.3" in found[0].text and "slope 0.50" in found[1].text
    assert claims_mod.findings({}, None, SETTINGS) == []
    one_T = good_tables()
    one_T["st1"] = one_T["st1"][one_T["st1"]["T"] == one_T["st1"]["T"].max()]
    text = claims_mod.findings(one_T, None, SETTINGS)[0].text
    assert "from T" not in text and "× the non-private regret" in text, text


def test_explicit_bound_matches_the_spec_formula():
    run = pd.DataFrame([{"T": 1024, "H": 1.0, "L": 2.0, "p": 2, "eps": 1.0, "loss": "sc", "c_sens": 2.0},
                        {"T": 1024, "H": 0.1, "L": 1.0, "p": 2, "eps": math.inf, "loss": "gc", "c_sens": 2.0}])
    ell = math.log(1024)
    expected = [2 * (2 + 2) ** 2 * ell + 2 * 8 * 2 * (2 + 4) ** 2 * ell**2.5,
                2 * (1 + 0.2) ** 2 * ell / 0.1 + 0.1 * 1024 / 2]
    np.testing.assert_allclose(claims_mod.regret_bound(run), expected)


# ----------------------------------------------------------------------------- privacy


def test_privacy_checks_pass_and_catch_their_planted_bugs():
    """The job at the d = 1 audit's quick count (d = 2 draws 10x): correct, blatant, subtle per audit."""
    out = privacy.privacy_job(PAPER.experiment("privacy"), {}, {"samples": privacy.AUDIT_SAMPLES[1], "seed": 0}, [0], {})["runs"]
    assert list(out["result"]) == ["pass", "caught", "caught"] * 2 + ["pass", "caught"], \
        out[["audit", "variant", "eps_lb", "result"]]
    assert out.loc[out["audit"] == "tbap_l2laplace", "exact_eps"].tolist() == pytest.approx([1.0, 2.0, math.sqrt(2)])
    assert privacy.tbap_exact_eps(2, False) == 1.0 and privacy.tbap_exact_eps(1, True) == 2.0
    # issue 23: the node-wise loss reaches >= 0.8 of the exact ε (= the claim) on the correct TBAP, not above
    # the claim, and the subtle bug (λ/√2, exact √2) is flagged; both at fixed seeds
    audits = out[out["check"] == "black-box audit"]
    for row in audits.itertuples():
        assert row.tightness == "tight"
        if row.variant == "correct":
            assert 0.8 * row.exact_eps <= row.eps_lb <= row.claimed_eps, row
        else:
            assert row.claimed_eps < row.eps_lb <= row.exact_eps, row
    assert (audits["samples"] == [10 * privacy.AUDIT_SAMPLES[1]] * 3 + [privacy.AUDIT_SAMPLES[1]] * 3).all()


def test_tbap_node_loss_is_the_exact_privacy_loss():
    """At releases built from chosen node values the statistic is Σ over item 1's nodes of
    (|y − s'| − |y − s|)/λ; it reaches ±(the exact ε) when every node lies beyond both sums (d = 1), and
    the two inputs are symmetric."""
    lam = privacy._lam("correct")
    a, b = privacy.tbap_items(1)
    far = 100.0
    for sign in (1.0, -1.0):
        # node values leaf 1, node [1,2], leaf 3, node [1..4]; releases v1 = leaf 1, v2 = [1,2],
        # v3 = [1,2] + leaf 3, v4 = [1..4]
        nodes = {"l1": sign * far, "n12": sign * far, "l3": 0.0, "n14": sign * far}
        v = np.array([[nodes["l1"], nodes["n12"], nodes["n12"] + nodes["l3"], nodes["n14"]]])
        assert privacy.tbap_node_loss(v, 1)[0] == pytest.approx(sign * privacy.tbap_exact_eps(1, "correct"))
    # releases equal to the true prefix sums of D: each node contributes |s − s'|/λ = 2/λ
    v = np.cumsum(a, axis=0).reshape(1, -1)
    assert privacy.tbap_node_loss(v, 1)[0] == pytest.approx(3 * 2.0 / lam)
    assert privacy.tbap_node_loss(np.cumsum(b, axis=0).reshape(1, -1), 1)[0] == pytest.approx(-3 * 2.0 / lam)


# ----------------------------------------------------------------------------- declaration


def test_declaration_checks_and_jobs():
    section = _section()
    PAPER.check(section)
    jobs = list(PAPER.run_jobs(section))
    assert {j.experiment for j in jobs} == {"st0", "st0c", "st1", "st1c", "st2", "st3", "st4", "privacy"}
    assert sum(j.experiment == "st0" for j in jobs) == len(section["st0"]["d"])  # all trees of a d in one job
    for exp in PAPER.experiments:
        for point in exp.points(section):
            assert exp.cost(exp, exp.settings(section, point), point, 3) > 0
    assert sum(j.experiment == "st0c" for j in jobs) == 2  # one job per guarantee, all draws in it
    assert sum(j.experiment == "st1c" for j in jobs) == len(section["st1c"]["T"])  # one job per T (10 seeds a job)
    with pytest.raises(ConfigError, match="smith2013.st1c.counters"):
        PAPER.check(_section(st1c={"counters": ["honaker", "smooth"]}))
    with pytest.raises(ConfigError, match="smith2013.st1c.T"):
        PAPER.check(_section(st1c={"T": [4096, 1024]}))
    with pytest.raises(ConfigError, match="smith2013.st0c.bands"):
        PAPER.check(_section(st0c={"T": 64, "bands": 65}))
    with pytest.raises(ConfigError, match="smith2013.st1.T"):
        PAPER.check(_section(st1={"T": [1024, 256]}))
    with pytest.raises(ConfigError, match="smith2013.st2.eps"):
        PAPER.check(_section(st2={"eps": [2.0, 1.0]}))
