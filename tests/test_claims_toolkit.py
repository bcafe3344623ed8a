"""The claims toolkit (privopt.pipeline.claims) and the shared statistics (privopt.pipeline.stats)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from privopt.pipeline import stats
from privopt.pipeline.claims import (
    COLUMNS,
    NOT_EVALUATED,
    NOT_REPRODUCED,
    REPRODUCED,
    Claim,
    ClaimSet,
    NotEvaluated,
    Outcome,
    claims_frame,
    finite,
    fmt_fixed,
    fmt_sig,
    verdict,
)

# ----------------------------------------------------------------------------- verdict, finite, formats


@pytest.mark.parametrize("holds, expected", [
    (True, REPRODUCED), (False, NOT_REPRODUCED), (np.True_, REPRODUCED), (np.False_, NOT_REPRODUCED),
    (None, NOT_EVALUATED), (float("nan"), NOT_EVALUATED), (np.float64("nan"), NOT_EVALUATED),
])
def test_verdict(holds, expected):
    assert verdict(holds) == expected


@pytest.mark.parametrize("values", [
    (float("nan"),), (float("inf"),), (-np.inf,), (1.0, float("nan")), (np.array([1.0, np.nan]),),
    (np.array([]),), ([],), (None,),
], ids=["nan", "inf", "-inf", "second-nan", "array-nan", "empty-array", "empty-list", "none"])
def test_finite_raises_not_evaluated(values):
    with pytest.raises(NotEvaluated, match="the slope is not a finite number"):
        finite(*values, what="the slope")


def test_finite_accepts_finite_numbers_and_arrays():
    finite(0.0, -3, 1e300, np.float64(2.5), np.arange(4), [1.0, 2.0], pd.Series([1.0]))
    finite()  # nothing to check


def test_formats():
    assert fmt_fixed(1.23456, 2) == "1.23" and fmt_fixed(None) == fmt_fixed(float("nan")) == fmt_fixed(np.inf) == "nan"
    assert fmt_sig(123456.0, 3) == "1.23e+05" and fmt_sig(0.5) == "0.5" and fmt_sig(None) == fmt_sig(-np.inf) == "nan"


# ----------------------------------------------------------------------------- ClaimSet


@pytest.mark.parametrize("bad", ["F1-a", "f1.a", "F1", "F1.", ".a", "F1.A", "F 1.a"])
def test_claimset_rejects_a_bad_id(bad):
    cs = ClaimSet("toy")
    with pytest.raises(ValueError, match="must look like 'F1.a'"):
        cs.claim(bad, "fig1", "s", "t")
    assert cs.ids == []


def test_claimset_accepts_project_ids_and_rejects_a_duplicate():
    cs = ClaimSet("toy")
    for cid in ("F1.a", "F12.b", "S.1", "F1.x", "Fig3.c2"):
        cs.claim(cid, "fig1", "s", "t")(lambda tables, settings: Outcome("m", True))
    with pytest.raises(ValueError, match="declared twice"):
        cs.claim("F1.a", "fig1", "again", "t")
    assert cs.ids == ["F1.a", "F12.b", "S.1", "F1.x", "Fig3.c2"]


def test_evaluate_one_unknown_id_raises():
    with pytest.raises(KeyError, match="no claim F9.z"):
        ClaimSet("toy").evaluate_one("F9.z", {}, {})


@pytest.mark.parametrize("tables", [{}, {"fig1": None}, {"fig1": pd.DataFrame(columns=["a"])}, {"fig2": pd.DataFrame({"a": [1]})}],
                         ids=["missing", "none", "empty", "other-table"])
def test_needs_missing_or_empty_table_is_not_evaluated_without_calling(tables):
    calls = []
    cs = ClaimSet("toy")

    @cs.claim("F1.a", "fig1", "statement", "threshold", needs=("fig1",))
    def _fn(tables, settings):
        calls.append(1)
        return Outcome("measured", True)

    (row,) = cs.evaluate_one("F1.a", tables, {})
    assert calls == []
    assert row.verdict == NOT_EVALUATED and row.measured == "no data: fig1 missing or empty"
    assert (row.paper, row.claim, row.figure, row.statement, row.threshold) == ("toy", "F1.a", "fig1", "statement", "threshold")


def test_needs_present_calls_the_function_with_tables_and_settings():
    seen = {}
    cs = ClaimSet("toy")

    @cs.claim("F1.a", "fig1", "s", "t", needs=("fig1",))
    def _fn(tables, settings):
        seen.update(tables=tables, settings=settings)
        return Outcome("m", False)

    tables, settings = {"fig1": pd.DataFrame({"a": [1]})}, {"eps": 0.1}
    (row,) = cs.evaluate_one("F1.a", tables, settings)
    assert seen["tables"] is tables and seen["settings"] is settings
    assert row.verdict == NOT_REPRODUCED


def test_not_evaluated_raised_by_the_function_gives_its_message_as_measured():
    cs = ClaimSet("toy")

    @cs.claim("F1.a", "fig1", "s", "declared threshold", details="declared details")
    def _fn(tables, settings):
        finite(float("nan"), what="the ratio")
        return Outcome("never", True)

    (row,) = cs.evaluate_one("F1.a", {}, {})
    assert row.verdict == NOT_EVALUATED
    assert row.measured == "the ratio is not a finite number (nan)"
    assert row.threshold == "declared threshold" and row.details == "declared details"


def test_other_exceptions_propagate():
    cs = ClaimSet("toy")

    @cs.claim("F1.a", "fig1", "s", "t")
    def _fn(tables, settings):
        raise ZeroDivisionError("a bug, not a missing input")

    with pytest.raises(ZeroDivisionError):
        cs.evaluate_one("F1.a", {}, {})


def test_outcome_threshold_override_details_and_reading():
    cs = ClaimSet("toy")

    @cs.claim("F1.a", "fig1", "s", "declared ≥ 0.95", details="declared")
    def _fn(tables, settings):
        return [Outcome("ρ = 0.93", True, threshold="quick ≥ 0.9", details="quick tier", reading="r1"),
                Outcome("ρ = 0.97", True, reading="r2"),
                Outcome("ρ = nan", None, reading="r3")]

    rows = cs.evaluate_one("F1.a", {}, {})
    assert [(r.reading, r.threshold, r.details, r.verdict) for r in rows] == [
        ("r1", "quick ≥ 0.9", "declared; quick tier", REPRODUCED),
        ("r2", "declared ≥ 0.95", "declared", REPRODUCED),
        ("r3", "declared ≥ 0.95", "declared", NOT_EVALUATED),
    ]


def test_an_empty_list_of_outcomes_is_not_evaluated():
    cs = ClaimSet("toy")
    cs.claim("F1.a", "fig1", "s", "t")(lambda tables, settings: [])
    (row,) = cs.evaluate_one("F1.a", {}, {})
    assert row.verdict == NOT_EVALUATED and row.measured == "nothing to evaluate"


def _per_reading(readings, holds=True):
    return lambda tables, settings: [Outcome(f"m{r}", holds, reading=r) for r in readings]


def test_evaluate_groups_rows_by_reading_within_consecutive_claims_of_one_figure():
    cs = ClaimSet("toy")
    cs.claim("F1.a", "fig1", "s", "t")(_per_reading(["paper", "code"]))
    cs.claim("F1.b", "fig1", "s", "t")(_per_reading(["paper", "code"]))
    cs.claim("F1.c", "fig1", "s", "t")(lambda tables, settings: Outcome("no reading", None))  # reading ""
    cs.claim("F2.a", "fig2", "s", "t")(_per_reading(["code", "paper"]))
    cs.claim("F2.b", "fig2", "s", "t")(_per_reading(["paper", "code"]))
    cs.claim("F3.a", "fig1", "s", "t")(_per_reading(["code", "paper"]))  # fig1 again, not consecutive: own block
    rows = cs.evaluate({}, {})
    assert [(r.claim, r.reading) for r in rows] == [
        ("F1.a", "paper"), ("F1.b", "paper"), ("F1.a", "code"), ("F1.b", "code"), ("F1.c", ""),
        ("F2.a", "code"), ("F2.b", "code"), ("F2.a", "paper"), ("F2.b", "paper"),
        ("F3.a", "code"), ("F3.a", "paper"),
    ]
    # within a reading, the declaration order is kept
    assert [r.claim for r in rows if r.figure == "fig1" and r.reading == "paper"] == ["F1.a", "F1.b", "F3.a"]


def test_evaluate_keeps_declaration_order_without_readings():
    cs = ClaimSet("toy")
    for cid, fig in (("F2.a", "fig2"), ("F1.a", "fig1"), ("F1.b", "fig1"), ("S.1", "fig4")):
        cs.claim(cid, fig, "s", "t")(lambda tables, settings: Outcome("m", True))
    assert [r.claim for r in cs.evaluate({}, {})] == ["F2.a", "F1.a", "F1.b", "S.1"] == cs.ids


def test_claims_frame_columns_and_scale_label():
    rows = [Claim("toy", "F1.a", "fig1", "s", "m", "t", REPRODUCED, reading="paper", details="d"),
            Claim("toy", "F1.b", "fig1", "s2", "m2", "t2", NOT_EVALUATED)]
    frame = claims_frame(rows, "quick")
    assert list(frame.columns) == COLUMNS == ["paper", "claim", "figure", "reading", "statement", "measured",
                                              "threshold", "verdict", "needs", "scale", "details"]
    assert frame["scale"].tolist() == ["quick", "quick"]
    assert frame.loc[0].to_dict() == {"paper": "toy", "claim": "F1.a", "figure": "fig1", "reading": "paper",
                                      "statement": "s", "measured": "m", "threshold": "t", "verdict": REPRODUCED,
                                      "needs": "", "scale": "quick", "details": "d"}
    assert frame.loc[1, "reading"] == "" and frame.loc[1, "details"] == ""
    empty = claims_frame([], "paper")
    assert list(empty.columns) == COLUMNS and len(empty) == 0


# ----------------------------------------------------------------------------- stats


@pytest.mark.parametrize("a, b", [([], [1.0, 2.0]), ([1.0], [1.0, 2.0]), ([1.0, 2.0], [3.0])])
def test_welch_p_nan_with_fewer_than_two_values(a, b):
    assert math.isnan(stats.welch_p(a, b, "less"))


def test_welch_p_is_one_on_constant_input():
    for alternative in ("less", "greater", "two-sided"):
        assert stats.welch_p([3.0, 3.0, 3.0], [3.0, 3.0], alternative) == 1.0


@pytest.mark.parametrize("alternative", ["less", "greater", "two-sided"])
def test_welch_p_matches_scipy(alternative):
    rng = np.random.default_rng(7)
    a, b = rng.normal(0.0, 1.0, 12), rng.normal(0.6, 2.0, 9)
    expected = sps.ttest_ind(a, b, equal_var=False, alternative=alternative).pvalue
    assert stats.welch_p(a, b, alternative) == pytest.approx(expected, rel=1e-12)
    assert stats.welch_p(list(a), list(b), alternative) == pytest.approx(expected, rel=1e-12)


def test_welch_p_direction():
    lo, hi = [1.0, 1.1, 0.9, 1.05], [5.0, 5.2, 4.9, 5.1]
    assert stats.welch_p(lo, hi, "less") < 1e-4 and stats.welch_p(lo, hi, "greater") > 0.999


def test_spearman():
    assert math.isnan(stats.spearman([1, 2, 3], [5.0, 5.0, 5.0]))  # constant y
    assert math.isnan(stats.spearman([1], [2.0]))                  # one point
    assert stats.spearman([1, 2, 3, 4], [10.0, 20.0, 25.0, 100.0]) == pytest.approx(1.0)
    assert stats.spearman([1, 2, 3, 4], [4.0, 3.0, 2.0, 1.0]) == pytest.approx(-1.0)
    x, y = [1, 2, 3, 4, 5], [1.0, 3.0, 2.0, 5.0, 4.0]
    assert stats.spearman(x, y) == pytest.approx(sps.spearmanr(x, y).statistic) == pytest.approx(0.8)


@pytest.mark.parametrize("c, b", [(3.0, 2.0), (0.5, 1.65), (7.0, -0.5)])
def test_loglog_slope_exact_on_a_power_law(c, b):
    x = np.array([4, 5, 8, 11, 16, 23, 32, 64], float)
    assert stats.loglog_slope(x, c * x**b) == pytest.approx(b, abs=1e-10)


def _power_groups(b=2.0, noise=0.05, runs=8, seed=0):
    rng = np.random.default_rng(seed)
    xs = [4, 6, 8, 11, 16, 23]
    return xs, [3 * x**b * np.exp(noise * rng.standard_normal(runs)) for x in xs]


def test_bootstrap_loglog_slope_ci_is_deterministic_for_a_seeded_generator():
    xs, groups = _power_groups()
    a = stats.bootstrap_loglog_slope_ci(xs, groups, np.random.default_rng(11), n_boot=200)
    b = stats.bootstrap_loglog_slope_ci(xs, groups, np.random.default_rng(11), n_boot=200)
    c = stats.bootstrap_loglog_slope_ci(xs, groups, np.random.default_rng(12), n_boot=200)
    assert a == b and a != c


def test_bootstrap_loglog_slope_ci_contains_the_true_slope_on_clean_data():
    xs, groups = _power_groups(b=2.0, noise=0.05)
    lo, hi = stats.bootstrap_loglog_slope_ci(xs, groups, np.random.default_rng(0), n_boot=300)
    assert lo < 2.0 < hi and hi - lo < 0.1
    # no noise: every resample is the same power law
    xs, groups = _power_groups(b=1.5, noise=0.0)
    lo, hi = stats.bootstrap_loglog_slope_ci(xs, groups, np.random.default_rng(0), n_boot=50)
    assert lo == pytest.approx(1.5, abs=1e-10) and hi == pytest.approx(1.5, abs=1e-10)


def test_weighted_change_exact_on_a_line():
    x = np.array([1000.0, 4000.0, 7000.0, 10000.0])
    y = 0.8 - 2e-6 * x
    change, se = stats.weighted_change(x, y, [0.001, 0.002, 0.001, 0.003])
    assert change == pytest.approx(-2e-6 * 9000, rel=1e-9)
    # the standard error is span/√Σw(x − x̄)², the SE of a WLS slope with known σ = SEM, times the span
    w = 1 / np.array([0.001, 0.002, 0.001, 0.003]) ** 2
    xm = (w * x).sum() / w.sum()
    assert se == pytest.approx(9000 / math.sqrt((w * (x - xm) ** 2).sum()), rel=1e-12)
    flat, _ = stats.weighted_change(x, np.full(4, 0.8), np.full(4, 0.002))
    assert flat == pytest.approx(0.0, abs=1e-15)


# ----------------------------------------------------------------------------- three verdicts


def test_three_verdicts_and_the_needs_column():
    from privopt.pipeline.claims import INCONCLUSIVE, Inconclusive, VERDICTS

    assert VERDICTS == (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE) and NOT_EVALUATED == INCONCLUSIVE
    cs = ClaimSet("toy")

    @cs.claim("F1.a", "fig1", "s", "t", needs=("fig1",))
    def _a(tables, settings):
        raise Inconclusive("ran 3 seeds", needs="≈ 30 runs")

    @cs.claim("F1.b", "fig1", "s", "t", needs=("fig1",))
    def _b(tables, settings):
        return [Outcome("x", True, needs="ignored when decided"), Outcome("y", None, needs="T ≥ 10^5")]

    tables = {"fig1": pd.DataFrame({"a": [1]})}
    rows = cs.evaluate(tables, {})
    assert [(r.claim, r.verdict, r.needs) for r in rows] == [
        ("F1.a", INCONCLUSIVE, "≈ 30 runs"), ("F1.b", REPRODUCED, ""), ("F1.b", INCONCLUSIVE, "T ≥ 10^5")]
    missing = cs.evaluate({}, {})[0]
    assert missing.verdict == INCONCLUSIVE and missing.needs == "the tables fig1"


@pytest.mark.parametrize("estimate, lo, hi, op, threshold, expected", [
    (0.4, 0.3, 0.5, "<=", 0.5, True),     # estimate meets it
    (0.7, 0.6, 0.8, "<=", 0.5, False),    # the whole interval violates it
    (0.6, 0.45, 0.75, "<=", 0.5, None),   # straddles: the data cannot tell
    (0.5, 0.4, 0.6, "<=", 0.5, True),     # on the threshold meets "<="
    (0.5, 0.4, 0.6, "<", 0.5, None),      # ... but not "<"; its interval reaches below
    (0.5, 0.5, 0.6, "<", 0.5, False),     # nothing below the threshold
    (2.0, 1.5, 2.5, ">", 1.0, True),
    (0.9, 0.2, 1.6, ">", 1.0, None),
    (0.9, 0.8, 0.95, ">=", 1.0, False),
])
def test_against_is_the_three_way_rule(estimate, lo, hi, op, threshold, expected):
    from privopt.pipeline.claims import against

    assert against(estimate, lo, hi, op, threshold) is expected


def test_against_refuses_nonsense():
    from privopt.pipeline.claims import Inconclusive, against, decide

    with pytest.raises(ValueError, match="outside its interval"):
        against(1.0, 0.0, 0.5, "<", 2.0)
    with pytest.raises(Inconclusive):
        against(float("nan"), 0.0, 0.5, "<", 2.0)
    with pytest.raises(ValueError):
        decide(True, True)


def test_require_seeds_and_range():
    from privopt.pipeline.claims import MIN_SEEDS, Inconclusive, require_range, require_seeds

    require_seeds(MIN_SEEDS)
    with pytest.raises(Inconclusive, match="from 3 seeds per point decides nothing") as why:
        require_seeds(3)
    assert why.value.needs == f"≥ {MIN_SEEDS} seeds per point"
    with pytest.raises(Inconclusive, match="from 1 seed per point"):
        require_seeds(1, minimum=2)
    require_range(1e4, 3e6, 1e5, 3e6)
    with pytest.raises(Inconclusive, match=r"ran T ∈ \[10000, 100000\]") as why:
        require_range(1e4, 1e5, 1e5, 3e6)
    assert why.value.needs == "T over [100000, 3e+06]"


@pytest.mark.parametrize("est, lo, hi, below, above", [
    (0.8, 0.7, 0.9, True, False),      # wholly below 1
    (1.2, 1.1, 1.3, False, True),      # wholly above 1
    (1.05, 0.95, 1.15, None, None),    # straddles 1: either claim undecided
])
def test_ratio_outcome_decides_either_side_of_one(est, lo, hi, below, above):
    """A ratio claimed below 1 (the counters against their baseline) and one claimed above 1 (Chaturvedi et al.'s
    exact ε0 against the paper's) read the same interval in opposite directions."""
    from privopt.pipeline.claims import ratio_outcome

    assert ratio_outcome("r", est, lo, hi, 10).holds is below
    assert ratio_outcome("r", est, lo, hi, 10, above=True).holds is above


def test_ratio_outcome_says_what_would_decide_it():
    from privopt.pipeline.claims import MIN_SEEDS, ratio_outcome

    straddle = ratio_outcome("r", 1.05, 0.95, 1.15, 10, unit="runs", where="at this point", longer="")
    # log-scale half-width ln(1.15/0.95)/2 = 0.0955 against the gap ln 1.05 = 0.0488: 10·(0.0955/0.0488)² = 38.3
    assert straddle.needs == "≈ 39 runs at this point"
    assert ratio_outcome("r", 1.05, 0.95, 1.15, 10).needs == "≈ 39 seeds at this T, or a larger T"
    assert ratio_outcome("r", 1.0, 0.9, 1.1, 10, inseparable="another setting").needs == "another setting"
    assert ratio_outcome("r", 1.0, 0.9, 1.1, 10).needs.startswith("a larger T (the regret does not separate")
    few = ratio_outcome("r", 0.5, 0.4, 0.6, MIN_SEEDS - 1, unit="runs", above=True)
    assert few.holds is None and few.measured == f"r ({MIN_SEEDS - 1} runs)" and few.needs == f"≥ {MIN_SEEDS} runs per point"
    none = ratio_outcome("r", 1.2, math.nan, math.nan, 10, no_interval=(" (none)", "an interval"), above=True)
    assert none.holds is None and none.measured == "r (none)" and none.needs == "an interval"


def test_a_quiet_part_is_listed_only_when_it_does_not_hold():
    from privopt.pipeline.parts import Part, outcome

    o = outcome([Part("a", True, quiet=True), Part("b", None, needs="more", quiet=True), Part("c", True)])
    assert o.measured == "b; c" and o.holds is None and o.needs == "more"


@pytest.mark.parametrize("supports, contradicts, seeds, tested, complete, expected", [
    (True, False, 3, False, True, True),      # below MIN_SEEDS an untested claim stands on its estimate
    (True, False, 3, True, True, None),       # ... a tested one decides nothing
    (False, True, 3, False, True, None),      # ... and nothing is contradicted on 3 seeds
    (True, False, 10, True, True, True),
    (False, True, 10, True, True, False),
    (False, False, 10, True, True, None),     # the interval straddles
    (True, True, 10, False, True, True),      # an estimate that meets the threshold is not contradicted
    (True, False, 10, False, False, None),    # points the claim speaks of did not run: never reproduced
    (False, True, 10, False, False, False),   # ... but a point that ran may contradict it
    (True, False, 3, False, False, None),
])
def test_decide_seeded_is_the_three_way_rule_with_its_seeds(supports, contradicts, seeds, tested, complete, expected):
    from privopt.pipeline.claims import decide_seeded

    assert decide_seeded(supports, contradicts, seeds, tested=tested, complete=complete) is expected
