"""Every claim of Perez-Salazar & Cummings (2021) in each of its outcomes: ``reproduced``, ``not reproduced`` and
``inconclusive at this scale`` (the checks: ``claim_cases.py``).

The tables are the small synthetic run tables of ``perezsalazar_claim_tables.py`` (the real columns of
``reference/perezsalazar2021/tables``), shaped so that each claim's measured value sits clearly on one side of its
threshold.  "Not reproduced" cases have 10 seeds per point and a familywise interval (Student-t, or bootstrap over
seeds) that excludes the threshold; ``few-runs`` is the same break on 2–3 seeds (a seed mean of 3 seeds decides
nothing against its threshold); ``straddle`` keeps 10 seeds but widens the noise until the interval reaches back
over the threshold; ``prefix-runs`` stops the horizons before the claim's own range (the quick scale's T), which is
never decided on another range.  The implementation invariants (pathwise inequalities on every run, closed-form
tails and certificates) are exact checks (:data:`claim_cases.EXACT`).  A claim added to the paper without cases here
fails :func:`test_every_claim_has_every_outcome`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import perezsalazar_claim_tables as pt
from claim_cases import (NE, NR, R, Case, check, every_outcome, inconclusive_rows_say_what_would_decide_them,
                         nothing_reproduced_on_nothing)
from perezsalazar_claim_tables import (ANYTIME_DIP, ANYTIME_GOOD, BREAKEVEN_BAD, BREAKEVEN_GOOD, BREAKEVEN_NONE,
                                       CONT_T, PAPER_T, QUICK_T, SETTINGS)
from privopt.experiments.perezsalazar2021 import claims as pc

PAPER = "perezsalazar2021"


def case(fn, *args, **kw):
    """A Case's builder: the tables ``fn(*args, **kw)`` at the paper's settings."""
    return lambda: (fn(*args, **kw), SETTINGS)


def edited(fn, name, edit, *args, **kw):
    """``fn``'s tables with the table ``name`` replaced by ``edit(table)``."""
    def build():
        t = fn(*args, **kw)
        t[name] = edit(t[name])
        return t, SETTINGS
    return build


def fi(points, seeds, noise):
    """The fi_runs table of ``points`` (:func:`perezsalazar_claim_tables.fi_runs`)."""
    return {"fi_runs": pt.fi_runs(points, seeds, noise)}


def missing():
    return {}, SETTINGS


PZ_CASES = [
    # --- C1.1: the pathwise Hedge inequality on every full-information run with η ≤ 1 (exact)
    Case("C1.1", R, case(pt.invariants), measured="0 violations"),
    Case("C1.1", NR, case(pt.invariants, violate=True), measured="1 violations"),
    Case("C1.1", NE, case(pt.invariants, hedge_applies=False), "no-eta", measured="no run with 0 < η ≤ 1"),
    Case("C1.1", NE, missing, "missing", measured="no run rows"),
    # --- C1.2: R_T ≤ Σ r_i on every run with an exact optimum (exact)
    Case("C1.2", R, case(pt.invariants), measured="0 with R_T > Σ r_i"),
    Case("C1.2", NR, case(pt.invariants, violate=True), measured="1 with R_T > Σ r_i"),
    Case("C1.2", NE, edited(pt.invariants, "fi_runs", lambda f: f.assign(opt_exact=False)), "no-exact-opt",
         measured="no run with an exact optimum"),
    Case("C1.2", NE, missing, "missing"),
    # --- C1.3: mean Σ r_i ≤ B_FI (+3 SE with ≥ 10 seeds)
    Case("C1.3", R, case(pt.bound, 0.8, 3, 0.1)),
    Case("C1.3", R, case(pt.bound, 1.01, 10, 0.1), "tolerance"),  # above B_FI, within the claim's 3 SE
    Case("C1.3", NR, case(pt.bound, 1.3, 10, 0.01)),
    Case("C1.3", NE, case(pt.bound, 1.3, 3, 0.01), "few-runs"),
    Case("C1.3", NE, missing, "missing", measured="no data: fi_runs"),
    # --- C1.4: √T slope in [0.35, 0.70] once u ≥ 10; SG-NP over T ≥ 10^4 to the figure's largest T
    Case("C1.4", R, case(fi, pt.sqrt_series(0.5, 100.0), 3, 0.05)),
    Case("C1.4", NR, case(fi, pt.sqrt_series(0.9, 100.0), 10, 0.01)),
    Case("C1.4", NE, case(fi, pt.sqrt_series(0.9, 100.0), 3, 0.01), "few-runs"),
    # SG-NP's horizons stop at 3·10^4: never reproduced on that range
    Case("C1.4", NE, case(fi, pt.sqrt_series(0.5, 100.0) + pt.sqrt_series(0.5, float("nan"), Ts=(1e4, 17783, 31623),
                                                                                    algo="SG-NP"), 3, 0.01),
         "prefix-runs", measured="the claim speaks of [10^4, 10^6]"),
    Case("C1.4", NE, missing, "missing"),
    # --- C1.5: burn-in slope ≥ 0.8
    Case("C1.5", R, case(pt.burn_in, 1.0, 3)),
    Case("C1.5", NR, case(pt.burn_in, 0.5, 10)),
    Case("C1.5", NE, case(pt.burn_in, 0.5, 3), "few-runs"),
    Case("C1.5", NE, case(fi, pt.sqrt_series(1.0, 100.0), 3, 0.01), "no-burn-in", measured="no ε with u(T_max)"),
    Case("C1.5", NE, missing, "missing"),
    # --- C1.6: R_T/T < 0 once learned, > 0 in burn-in and for UNIF
    Case("C1.6", R, case(pt.signs, -0.05, 3)),
    Case("C1.6", NR, case(pt.signs, +0.05, 10)),
    Case("C1.6", NE, case(pt.signs, +0.05, 3), "few-runs"),
    Case("C1.6", NE, missing, "missing"),
    # --- C2.1: u·E[Σ r_i]/T in [0.5, 1.3] at every learned point
    Case("C2.1", R, case(pt.collapse, 1.1, 3, 0.05)),
    Case("C2.1", NR, case(pt.collapse, 1.6, 10, 0.02)),
    Case("C2.1", NE, case(pt.collapse, 1.39, 3, 0.05), "few-runs", measured="k=1 ε=100* T=1,000"),
    Case("C2.1", NE, case(pt.collapse, 1.39, 10, 0.2), "straddle"),  # 10 noisy seeds: the interval reaches 1.3
    Case("C2.1", NE, missing, "missing"),
    # --- C2.2: slope of ln y on ln u in [−1.15, −0.85]
    Case("C2.2", R, case(pt.collapse_slope, -1.0, 3)),
    Case("C2.2", NR, case(pt.collapse_slope, -0.6, 10)),
    Case("C2.2", NE, case(pt.collapse_slope, -0.6, 3), "few-runs"),
    Case("C2.2", NE, missing, "missing"),
    # --- C2.3: u* of every ε within a factor 2; C2.4: slope of ln T* on ln ε in [−2.5, −1.5]
    Case("C2.3", R, case(pt.breakeven, BREAKEVEN_GOOD, 3)),
    Case("C2.3", NR, case(pt.breakeven, BREAKEVEN_BAD, 10)),
    Case("C2.3", NE, case(pt.breakeven, BREAKEVEN_BAD, 3), "few-runs"),
    Case("C2.3", NE, case(pt.breakeven, BREAKEVEN_NONE, 3), "no-sign-change", measured="changes sign inside the T grid"),
    Case("C2.3", NE, missing, "missing"),
    Case("C2.4", R, case(pt.breakeven, BREAKEVEN_GOOD, 3)),
    Case("C2.4", NR, case(pt.breakeven, BREAKEVEN_BAD, 10)),
    Case("C2.4", NE, case(pt.breakeven, BREAKEVEN_BAD, 3), "few-runs"),
    Case("C2.4", NE, case(pt.breakeven, BREAKEVEN_NONE, 3), "no-sign-change", measured="T* inside the grid for 0"),
    Case("C2.4", NE, missing, "missing"),
    # --- C3.1: slope on ε in [−1.2, −0.8] at T_max; C3.2: the smallest ε within 25 % of UNIF
    Case("C3.1", R, case(pt.eps_scaling, -1.0, 3)),
    Case("C3.1", NR, case(pt.eps_scaling, -0.5, 10)),
    Case("C3.1", NE, case(pt.eps_scaling, -0.5, 3), "few-runs"),
    Case("C3.1", NE, missing, "missing"),
    Case("C3.2", R, case(pt.no_better_than_uniform, 0.05, 3)),
    Case("C3.2", NR, case(pt.no_better_than_uniform, -0.5, 10)),
    Case("C3.2", NE, case(pt.no_better_than_uniform, -0.5, 3), "few-runs"),
    Case("C3.2", NE, missing, "missing"),
    # --- C3.3: k-slope in [1.7, 2.3] with u ≥ 10 at every k ≤ 6; C3.4: ln-n slope in [0.7, 1.3]
    Case("C3.3", R, case(pt.k_scaling, 2.0, 3)),
    Case("C3.3", NR, case(pt.k_scaling, 1.0, 10)),
    Case("C3.3", NE, case(pt.k_scaling, 1.0, 3), "few-runs"),
    # the quick horizon: u < 10 at k = 6, so the k² law of the learned regime is not yet in reach
    Case("C3.3", NE, case(pt.k_scaling, 2.0, 10, T=31_623, u_k6=2.0), "prefix-runs", measured="u < 10 at k = "),
    Case("C3.3", NE, missing, "missing"),
    Case("C3.4", R, case(pt.n_scaling, 1.0, 3)),
    Case("C3.4", NR, case(pt.n_scaling, 2.0, 10)),
    Case("C3.4", NE, case(pt.n_scaling, 2.0, 3), "few-runs"),
    Case("C3.4", NE, missing, "missing"),
    # --- C4.1: ALG/T non-decreasing in ε and ≤ OPT/T; C4.4: full information above bandit feedback
    Case("C4.1", R, case(pt.anytime, ANYTIME_GOOD, 3)),
    Case("C4.1", NR, case(pt.anytime, ANYTIME_DIP, 10, noise=0.001)),
    Case("C4.1", NE, case(pt.anytime, ANYTIME_DIP, 3, noise=0.001), "few-runs"),
    Case("C4.1", NE, missing, "missing"),
    Case("C4.4", R, case(pt.anytime, ANYTIME_GOOD, 3)),
    Case("C4.4", NR, case(pt.anytime, ANYTIME_GOOD, 10, bandit=(0.3, 0.1))),
    Case("C4.4", NE, case(pt.anytime, ANYTIME_GOOD, 3, bandit=(0.3, 0.1)), "few-runs"),
    Case("C4.4", NE, missing, "missing"),
    # --- C4.2: R_T < 0 for ε ≥ 30 (learned) and SG-NP, > 0 for ε ≤ 1
    Case("C4.2", R, case(pt.anytime, {1.0: 0.07, 30.0: 0.25, 100.0: 0.3}, 3, u_per_eps=0.4)),
    Case("C4.2", NR, case(pt.anytime, {1.0: 0.25, 30.0: 0.25}, 10, u_per_eps=0.4)),  # ε = 1 learned
    Case("C4.2", NE, case(pt.anytime, {1.0: 0.25, 30.0: 0.25}, 3, u_per_eps=0.4), "few-runs"),
    # the quick horizon: u = 7.4 at ε = 30, not yet learned
    Case("C4.2", NE, case(pt.anytime, {1.0: 0.07, 30.0: 0.2, 100.0: 0.3}, 10, u_per_eps=0.246, T=30_000),
         "prefix-runs", measured="not yet learned"),
    Case("C4.2", NE, missing, "missing"),
    # --- C4.3: ln(ε_½(60)/ε_½(pick)) / ln √(T_pick/T_60) in [0.6, 1.5] (the prototype's 1.13)
    Case("C4.3", R, case(pt.granularity, 250, 17, 3)),
    Case("C4.3", NR, case(pt.granularity, 250, 200, 10)),
    Case("C4.3", NE, case(pt.granularity, 250, 200, 3), "few-runs"),
    Case("C4.3", NE, lambda: ({"f4c": pt.granularity(250, 200, 10)["f4c"]}, SETTINGS), "no-runs"),  # no interval
    Case("C4.3", NE, lambda: ({"f4c": pd.DataFrame({"unit": ["60", "pick"], "eps_half": [np.nan, 17.0],
                                                     "T": [716, 83_834]})}, SETTINGS),
         "no-crossing", measured="φ does not cross 1/2"),
    Case("C4.3", NE, missing, "missing", measured="no data: f4c"),
    # --- C5.1: R_T ≤ Σ r_i + M on every bandit run (exact); C5.2: M ≈ γT and M < 2γT on every run (exact)
    Case("C5.1", R, case(pt.lemma2), measured="0 violations"),
    Case("C5.1", NR, case(pt.lemma2, violate=True), measured="1 violations"),
    Case("C5.1", NE, edited(pt.lemma2, "bandit_runs", lambda f: f.assign(opt_exact=False)), "no-exact-opt",
         measured="no bandit run with an exact optimum"),
    Case("C5.1", NE, case(pt.lemma2, feedback="full"), "no-bandit-feedback", measured="no bandit-feedback run"),
    Case("C5.1", NE, missing, "missing"),
    Case("C5.2", R, case(pt.lemma2), measured="0 violations"),
    Case("C5.2", NR, case(pt.lemma2, explore=2.5), measured="6 runs: max |M/T − γ|/sd = 158, 6 violations"),  # M = 2.5·γT
    Case("C5.2", NE, case(pt.lemma2, feedback="full"), "no-bandit-feedback", measured="no bandit-feedback run"),
    Case("C5.2", NE, missing, "missing"),
    # --- C5.3: bandit slopes over T ∈ [10^5, 3·10^6] in [0.55, 0.90]
    Case("C5.3", R, case(pt.bandit, PAPER_T, 3)),
    Case("C5.3", NR, case(pt.bandit, PAPER_T, 10, sgb_slope=0.4)),
    Case("C5.3", NE, case(pt.bandit, PAPER_T, 3, sgb_slope=0.4), "few-runs"),
    Case("C5.3", NE, case(pt.bandit, QUICK_T, 10), "prefix-runs", measured="[10^5, 3·10^6]"),
    Case("C5.3", NE, missing, "missing"),
    # --- C5.4: FI-DP ≤ BanditDP at every T; SG-NP's slope below SG-BANDIT-NP's by ≥ 0.05
    Case("C5.4", R, case(pt.bandit, PAPER_T, 3)),
    Case("C5.4", NR, case(pt.bandit, PAPER_T, 10, fi_over_bd=2.0), "fi-worse"),
    Case("C5.4", NR, case(pt.bandit, PAPER_T, 10, sgb_slope=0.5), "equal-rates"),
    Case("C5.4", NE, case(pt.bandit, PAPER_T, 3, sgb_slope=0.5), "few-runs"),
    Case("C5.4", NE, case(pt.bandit, QUICK_T, 10), "prefix-runs", measured="[10^5, 3·10^6]"),
    Case("C5.4", NE, missing, "missing"),
    # --- C5.5: φ ≤ 0.5 for BanditDP ε ∈ {10, 50} on S2 at every T ≤ 3·10^6
    Case("C5.5", R, case(pt.bandit, PAPER_T, 3)),
    Case("C5.5", NR, case(pt.bandit, PAPER_T, 10, phi=0.7)),
    Case("C5.5", NE, case(pt.bandit, PAPER_T, 3, phi=0.7), "few-runs"),
    Case("C5.5", NE, case(pt.bandit, QUICK_T, 10), "prefix-runs", measured="[10^4, 3·10^6]"),
    Case("C5.5", NE, missing, "missing"),
    # --- C6.1: B1-NAIVE above Algorithm 3; C6.2: B2-PRESAMPLE not above it (+3 SE), ε = 1000, T ≥ 10^5
    Case("C6.1", R, case(pt.bandit, PAPER_T, 10)),
    Case("C6.1", NR, case(pt.bandit, PAPER_T, 10, b1_over=0.5)),
    Case("C6.1", NE, case(pt.bandit, PAPER_T, 3), "few-runs", measured="heavy-tailed"),
    Case("C6.1", NE, case(pt.bandit, QUICK_T, 10), "prefix-runs", measured="[10^5, 3·10^6]"),
    Case("C6.1", NE, missing, "missing"),
    Case("C6.2", R, case(pt.bandit, PAPER_T, 10)),
    Case("C6.2", R, case(pt.bandit, PAPER_T, 10, b2_over=1.02, noise=0.05), "tolerance"),  # within 3 SE
    Case("C6.2", NR, case(pt.bandit, PAPER_T, 10, b2_over=1.5)),
    Case("C6.2", NE, case(pt.bandit, PAPER_T, 3, b2_over=1.5), "few-runs", measured="heavy-tailed"),
    Case("C6.2", NE, case(pt.bandit, QUICK_T, 10), "prefix-runs", measured="[10^5, 3·10^6]"),
    Case("C6.2", NE, missing, "missing"),
    # --- C6.3: the exact exploration tail below Hoeffding's bound (closed form: exact)
    Case("C6.3", R, case(pt.tail)),
    Case("C6.3", NR, case(pt.tail, broken=True)),
    Case("C6.3", NE, missing, "missing", measured="no data: f6_tail"),
    # --- C7.1: ALG/T rising with ε; C7.2: REG_OPT/T falling with T for ε ≥ 10; C7.3: R_T < 0 from T = 10^4
    Case("C7.1", R, case(pt.cont, (1000, 3000), 2)),
    Case("C7.1", NR, case(pt.cont, (1000, 3000), 10, avg=pt.flat_in_eps, noise=0.001)),
    Case("C7.1", NE, case(pt.cont, (1000, 3000), 2, avg=pt.flat_in_eps, noise=0.001), "few-runs"),
    Case("C7.1", NE, missing, "missing"),
    Case("C7.2", R, case(pt.cont, (1000, 3000), 2)),
    Case("C7.2", NR, case(pt.cont, (1000, 3000), 10, reg=pt.rising_in_T, noise=0.001)),
    Case("C7.2", NE, case(pt.cont, (1000, 3000), 2, reg=pt.rising_in_T, noise=0.001), "few-runs"),
    Case("C7.2", NE, missing, "missing"),
    Case("C7.3", R, case(pt.cont, CONT_T, 2)),
    Case("C7.3", NR, case(pt.cont, CONT_T, 10, r=lambda e, T: 0.05)),
    Case("C7.3", NE, case(pt.cont, CONT_T, 2, r=lambda e, T: 0.05), "few-runs"),
    Case("C7.3", NE, case(pt.cont, (1000, 3000), 10), "prefix-runs", measured="the claim speaks of [10^4, 10^5]"),
    Case("C7.3", NE, missing, "missing"),
    # --- C8.1: certified points have ε_cert ≤ ε_nominal and the k = 3 grid up to ε = 100 is certified (exact)
    Case("C8.1", R, case(pt.certified), measured="0 with ε_cert > ε_nominal"),
    Case("C8.1", NR, case(pt.certified, overshoot=True), "overshoot", measured="1 with ε_cert > ε_nominal"),
    Case("C8.1", NR, case(pt.certified, uncertified=True), "uncertified", measured="1 of 2 not certified"),
    Case("C8.1", NE, missing, "missing", measured="no summary"),
    # --- C8.2: T-PRIV sums to 1 and stays within 2ηk(T−t₀); C8.3: the planted bug exceeds it (exact)
    Case("C8.2", R, case(pt.tpriv, 2.8, 0.84)),
    Case("C8.2", NR, case(pt.tpriv, 2.8, 1.7)),  # the implementation exceeds the bound
    Case("C8.2", NE, lambda: ({"tpriv": pt.tpriv(2.8, 0.84)["tpriv"].iloc[:0]}, SETTINGS), "empty"),
    Case("C8.3", R, case(pt.tpriv, 2.8, 0.84)),
    Case("C8.3", NR, case(pt.tpriv, 1.0, 0.84)),  # a bug the check misses
    Case("C8.3", NE, edited(pt.tpriv, "tpriv", lambda t: t[t["variant"] == "as implemented"], 2.8, 0.84), "no-bug",
         measured="no planted-bug rows"),
    Case("C8.3", NE, missing, "missing"),
    # --- C8.4: ε_exact/ε_cert ≤ 1 over the FI-DP grid (closed form: exact)
    Case("C8.4", R, lambda: ({"f8_cert": pt.cert_grid()}, SETTINGS), measured="k = 3, T = 100,000: ε_exact/ε_cert"),
    Case("C8.4", NR, lambda: ({"f8_cert": pt.cert_grid(scale_exact=3.0)}, SETTINGS)),  # a bound the exact one exceeds
    Case("C8.4", NE, lambda: ({"f8_cert": pt.cert_grid().drop(columns="eps_exact")}, SETTINGS), "no-exact-column"),
    Case("C8.4", NE, lambda: ({"f8_cert": pt.cert_grid().query("algo != 'FI-DP'")}, SETTINGS), "no-fi-dp"),
    Case("C8.4", NE, edited(lambda: {"f8_cert": pt.cert_grid()}, "f8_cert",
                            lambda g: g.assign(eps_exact=g["eps_exact"].where(g.index > g.index[0]))),
         "nan", measured="ε_exact/ε_cert is not a finite number"),
    Case("C8.4", NE, missing, "missing"),
]


@pytest.mark.parametrize("case", PZ_CASES, ids=[c.id for c in PZ_CASES])
def test_perezsalazar2021_outcome(case):
    check(pc, case)


def test_every_claim_has_every_outcome():
    every_outcome(PAPER, pc, PZ_CASES)


def test_inconclusive_rows_say_what_would_decide_them():
    inconclusive_rows_say_what_would_decide_them(pc, PZ_CASES)


def test_no_claim_is_reproduced_on_nothing():
    nothing_reproduced_on_nothing(pc, SETTINGS)
