"""ε0 formulas of spec decomposable-submodular.md §2.4 and §3.1, checked against the printed tables."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privopt.mechanisms import accounting as acc

EPS = 0.1
DELTA_FIG1 = 1e-3  # 1/m^1.5 with m = 100


def close_to_printed(value: float, printed: str) -> bool:
    """value rounds to the printed decimal string (half a unit in the last place, plus float slack)."""
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    return abs(value - float(printed)) <= 0.5 * 10.0**-decimals + 1e-12


# --------------------------------------------------------------------- §2.4 worked example
def test_pcg_eps0_worked_example_split():
    v = acc.pcg_eps0(EPS, DELTA_FIG1)
    assert float(f"{v:.6g}") == 0.0100677
    # intermediate numbers of the spec's table row B
    L = math.log(1 / DELTA_FIG1)
    assert abs(L - 6.907755) < 5e-7
    assert abs(2 * (3 + L) - 19.815511) < 5e-7
    assert abs(acc.pcg_eps0(EPS, DELTA_FIG1, "split") - v) == 0.0
    # the paper's "about 0.01006" is a truncation of this value
    assert math.floor(v * 1e5) / 1e5 == 0.01006


def test_pcg_eps0_alg1_and_pmcg_rows():
    assert float(f"{acc.pcg_eps0(EPS, DELTA_FIG1, rule='alg1'):.5g}") == 0.018252
    assert float(f"{acc.pmcg_eps0(EPS, DELTA_FIG1):.5g}") == 0.0024021


def test_pcg_eps0_does_not_match_other_readings():
    v = acc.pcg_eps0(EPS, DELTA_FIG1)
    L = math.log(1 / DELTA_FIG1)
    assert abs(v - EPS / (3 + L)) > 2e-5  # reading D near miss 0.0100931
    assert abs(v - acc.pcg_eps0(EPS, DELTA_FIG1 / 2)) > 5e-4  # reading E (delta/2): 0.0094110
    assert close_to_printed(acc.pcg_eps0(EPS, DELTA_FIG1 / 2), "0.0094110")


FIG2_TABLE = [
    # m, delta, log(1/delta), PCG rule B, DPG improved
    (1000, "3.162e-5", "10.3616", "0.007470", "0.008711"),
    (2000, "1.118e-5", "11.4014", "0.006932", "0.008082"),
    (3000, "6.086e-6", "12.0096", "0.006651", "0.007755"),
    (4000, "3.953e-6", "12.4411", "0.006466", "0.007538"),
    (5000, "2.828e-6", "12.7758", "0.006329", "0.007378"),
    (6000, "2.152e-6", "13.0493", "0.006221", "0.007252"),
    (7000, "1.707e-6", "13.2805", "0.006133", "0.007149"),
    (8000, "1.398e-6", "13.4808", "0.006058", "0.007062"),
    (9000, "1.171e-6", "13.6575", "0.005994", "0.006988"),
    (10000, "1.000e-6", "13.8155", "0.005938", "0.006922"),
]


@pytest.mark.parametrize("m, delta_s, logd_s, pcg_s, imp_s", FIG2_TABLE)
def test_figure2_table(m, delta_s, logd_s, pcg_s, imp_s):
    delta = m**-1.5
    assert f"{delta:.3e}".replace("e-0", "e-") == delta_s
    assert close_to_printed(math.log(1 / delta), logd_s)
    assert close_to_printed(acc.pcg_eps0(EPS, delta), pcg_s)
    assert close_to_printed(acc.dpg_eps0_improved(EPS, delta), imp_s)
    assert close_to_printed(acc.dpg_eps0(EPS, delta, None, "improved"), imp_s)
    # the experiment closed form eps0(eps, m) = 2 log(1 + eps/(2(3 + 1.5 log m)))
    assert math.isclose(acc.pcg_eps0(EPS, delta), 2 * math.log(1 + EPS / (2 * (3 + 1.5 * math.log(m)))), rel_tol=1e-12)


FIG1_TABLE = [
    # r, basic, advanced (code), advanced (DRV exact), improved, PCG rule B
    (10, "0.010000", "0.00425", "0.00845", "0.01175", "0.01007"),
    (13, "0.007692", "0.00372", "0.00741", "0.01175", "0.01007"),
    (16, "0.006250", "0.00336", "0.00668", "0.01175", "0.01007"),
    (19, "0.005263", "0.00308", "0.00613", "0.01175", "0.01007"),
    (22, "0.004545", "0.00286", "0.00569", "0.01175", "0.01007"),
    (25, "0.004000", "0.00269", "0.00534", "0.01175", "0.01007"),
]


@pytest.mark.parametrize("r, basic_s, code_s, drv_s, imp_s, pcg_s", FIG1_TABLE)
def test_figure1_table(r, basic_s, code_s, drv_s, imp_s, pcg_s):
    d = DELTA_FIG1
    assert close_to_printed(acc.dpg_eps0_basic(EPS, r), basic_s)
    assert close_to_printed(acc.dpg_eps0_advanced_code(EPS, d, r), code_s)
    assert close_to_printed(acc.dpg_eps0_advanced_drv(EPS, d, r), drv_s)
    assert close_to_printed(acc.dpg_eps0_improved(EPS, d), imp_s)
    assert close_to_printed(acc.pcg_eps0(EPS, d), pcg_s)
    for rule, fn in [
        ("basic", lambda: acc.dpg_eps0_basic(EPS, r)),
        ("advanced_code", lambda: acc.dpg_eps0_advanced_code(EPS, d, r)),
        ("advanced_drv", lambda: acc.dpg_eps0_advanced_drv(EPS, d, r)),
        ("improved", lambda: acc.dpg_eps0_improved(EPS, d)),
    ]:
        assert acc.dpg_eps0(EPS, d, r, rule) == fn()
    # authors' better-of rule: basic wins for every r <= 25 at delta = 1e-3 (spec §3.1)
    assert acc.dpg_eps0(EPS, d, r, "better_of") == acc.dpg_eps0_basic(EPS, r)
    # DRV-exact advanced beats basic iff r >= 14 (spec §8 A6)
    assert (acc.dpg_eps0_advanced_drv(EPS, d, r) > acc.dpg_eps0_basic(EPS, r)) == (r >= 14)


def test_f1a_crossover():
    """Spec §5 F1-a: PCG's eps0 exceeds eps/r iff r > eps/eps0 = 9.93."""
    e0 = acc.pcg_eps0(EPS, DELTA_FIG1)
    assert abs(EPS / e0 - 9.93) < 0.005
    assert all(e0 > acc.dpg_eps0_basic(EPS, r) for r in range(10, 26))
    assert e0 < acc.dpg_eps0_basic(EPS, 9)


def test_better_of_can_pick_advanced():
    # with many steps and a loose delta, the closed-form advanced bound wins
    r, d = 10_000, 0.5
    assert acc.dpg_eps0_advanced_code(1.0, d, r) > acc.dpg_eps0_basic(1.0, r)
    assert acc.dpg_eps0(1.0, d, r, "better_of") == acc.dpg_eps0_advanced_code(1.0, d, r)


# --------------------------------------------------------------------- inverses / composition
@pytest.mark.parametrize("r", [1, 3, 10, 25, 400])
@pytest.mark.parametrize("delta", [1e-6, 1e-3, 0.3])
@pytest.mark.parametrize("eps", [0.01, 0.1, 1.0, 5.0])
def test_composition_inverses(eps, delta, r):
    assert math.isclose(acc.basic_composition(acc.dpg_eps0_basic(eps, r), r), eps, rel_tol=1e-12)
    assert math.isclose(acc.advanced_composition(acc.dpg_eps0_advanced_drv(eps, delta, r), r, delta), eps, rel_tol=1e-10)
    # the closed form solves the looser quadratic r e0^2 + 2 sqrt(2 r L) e0 = eps ...
    e0 = acc.dpg_eps0_advanced_code(eps, delta, r)
    L = math.log(1 / delta)
    assert math.isclose(r * e0**2 + 2 * math.sqrt(2 * r * L) * e0, eps, rel_tol=1e-12)
    # ... so it never exceeds the exact DRV solution (its total under DRV is <= eps)
    assert acc.advanced_composition(e0, r, delta) <= eps * (1 + 1e-12)
    assert e0 <= acc.dpg_eps0_advanced_drv(eps, delta, r) * (1 + 1e-12)


@pytest.mark.parametrize("delta", [1e-6, 1e-3, 0.3])
@pytest.mark.parametrize("eps", [0.01, 0.1, 1.0, 5.0])
def test_rule_inverses(eps, delta):
    for rule in acc.PCG_RULES:
        assert math.isclose(acc.pcg_eps_total(acc.pcg_eps0(eps, delta, rule), delta, rule), eps, rel_tol=1e-12)
    assert math.isclose(acc.pmcg_eps_total(acc.pmcg_eps0(eps, delta), delta), eps, rel_tol=1e-12)
    assert math.isclose(acc.dpg_improved_eps_total(acc.dpg_eps0_improved(eps, delta), delta), eps, rel_tol=1e-12)


def test_composition_values():
    assert acc.basic_composition(0.01, 10) == pytest.approx(0.1)
    L = math.log(1e3)
    assert acc.advanced_composition(0.01, 10, 1e-3) == pytest.approx(math.sqrt(20 * L) * 0.01 + 10 * 0.01 * math.expm1(0.01))
    assert acc.advanced_composition(0.0, 5, 0.1) == 0.0


def test_monotonicity():
    deltas = np.geomspace(1e-9, 0.9, 20)
    for rule in acc.PCG_RULES:
        vals = [acc.pcg_eps0(0.1, d, rule) for d in deltas]
        assert np.all(np.diff(vals) > 0)  # looser delta, larger eps0
    rs = range(1, 40)
    for fn in (acc.dpg_eps0_advanced_code, acc.dpg_eps0_advanced_drv):
        vals = [fn(0.1, 1e-3, r) for r in rs]
        assert np.all(np.diff(vals) < 0)


# --------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: acc.pcg_eps0(0.0, 1e-3), "eps"),
        (lambda: acc.pcg_eps0(-1.0, 1e-3), "eps"),
        (lambda: acc.pcg_eps0(float("nan"), 1e-3), "eps"),
        (lambda: acc.pcg_eps0(float("inf"), 1e-3), "eps"),
        (lambda: acc.pcg_eps0(0.1, 0.0), "delta"),
        (lambda: acc.pcg_eps0(0.1, 1.0), "delta"),
        (lambda: acc.pcg_eps0(0.1, 1e-3, rule="bogus"), "rule"),
        (lambda: acc.pmcg_eps0(0.1, 2.0), "delta"),
        (lambda: acc.dpg_eps0_basic(0.1, 0), "r"),
        (lambda: acc.dpg_eps0_basic(0.1, 2.5), "r"),
        (lambda: acc.dpg_eps0_basic(0.1, True), "r"),
        (lambda: acc.dpg_eps0_advanced_code(0.1, 1e-3, -3), "r"),
        (lambda: acc.dpg_eps0_advanced_drv(0.1, -1e-3, 3), "delta"),
        (lambda: acc.dpg_eps0_advanced_drv(-0.1, 1e-3, 3), "eps"),
        (lambda: acc.dpg_eps0_improved(0.1, 1.5), "delta"),
        (lambda: acc.dpg_eps0(0.1, 1e-3, 10, "bogus"), "rule"),
        (lambda: acc.dpg_eps0(0.1, 1e-3, 0, "better_of"), "r"),
        (lambda: acc.basic_composition(-0.1, 3), "eps0"),
        (lambda: acc.basic_composition(0.1, 0), "k"),
        (lambda: acc.advanced_composition(0.1, 3, 0.0), "delta"),
        (lambda: acc.pcg_eps_total(-1.0, 1e-3), "eps0"),
        (lambda: acc.pcg_eps0("0.1", 1e-3), "eps"),
    ],
)
def test_validation(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_numpy_scalars_accepted():
    assert acc.dpg_eps0_basic(np.float64(0.1), np.int64(4)) == 0.025
    assert acc.pcg_eps0(np.float32(0.1), np.float64(1e-3)) == pytest.approx(0.0100677, abs=5e-8)
