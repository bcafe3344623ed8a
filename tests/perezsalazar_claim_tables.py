"""Small synthetic tables for the claims of Perez-Salazar & Cummings (``tests/test_perezsalazar2021.py`` and
``tests/test_claim_outcomes_perezsalazar2021.py``): run rows with the real columns of ``reference/perezsalazar2021/
tables``, shaped so that each claim's measured value sits clearly on one side of its threshold.

Each builder takes the seeds per point (3: too few to contradict; 10: enough) and a relative noise on the value the
claim reads; the streams are fixed (``numpy.random.default_rng(0)``, ``(1)`` for the break-even noise)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from privopt.experiments.perezsalazar2021 import privacy_tables, tables

SETTINGS = {"delta": 1e-6}
#: the design's bandit horizons, and the quick scale's (they stop before the claims' fit range [10^5, 3·10^6])
PAPER_T = (10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000)
QUICK_T = (10_000, 30_000, 100_000)


def runs_of(points, seeds, noise=0.0, noisy=(), seed=0, **const):
    """One row per point × seed: the point's columns (and ``const``), ``seed``, and each ``noisy`` column
    multiplied by 1 + noise·z (z standard normal, a fixed stream)."""
    rng = np.random.default_rng(seed)
    rows = []
    for p in points:
        for s in range(seeds):
            row = {**const, **p, "seed": s}
            for c in noisy:
                row[c] = p[c] * (1 + noise * rng.standard_normal())
            rows.append(row)
    return pd.DataFrame(rows)


def fi_runs(points, seeds, noise=0.0, noisy=("sum_r",), group="syn", **const):
    """Full-information FI-DP run rows (k = 3, n = 30, certified) of experiment fi, group ``group``."""
    base = {"group": group, "instance": "main", "feedback": "full", "algo": "FI-DP", "k": 3, "n": 30, "certified": True}
    return runs_of([{**base, **const, **p} for p in points], seeds, noise, noisy)


# ----------------------------------------------------------------------------- F1, F2


def invariants(violate: bool = False, hedge_applies: bool = True) -> dict:
    """Full-information runs with the columns of the pathwise checks C1.1 (Hedge) and C1.2 (R_T ≤ Σ r_i); one run
    breaks both with ``violate``."""
    pts = [{"T": T, "eps": e, "OPT": 0.5 * T, "R": -0.01 * T, "sum_r": 0.02 * T, "sum_r_weighted": 0.015 * T,
            "min_r_i": 0.001 * T, "opt_exact": True, "hedge_applies": hedge_applies, "hedge_ok": True,
            "hedge_slack": 0.3} for T in (1000, 3000) for e in (10.0, 100.0)]
    runs = fi_runs(pts, 3, noisy=())
    if violate:
        runs.loc[0, ["hedge_ok", "R"]] = [False, 0.05 * runs.loc[0, "T"]]
    return {"fi_runs": runs}


def bound(ratio, seeds, noise):
    """C1.3: mean Σ r_i at ``ratio`` of B_FI at two horizons."""
    return {"fi_runs": fi_runs([{"T": T, "eps": 10.0, "sum_r": ratio * 100.0, "B_theorem": 100.0, "u": 1.0}
                                for T in (1000, 3000)], seeds, noise)}


def sqrt_series(slope, eps, Ts=(1e4, 3e4, 1e5, 3e5, 1e6), u=20.0, algo="FI-DP"):
    """Σ r_i ∝ T^slope over ``Ts``, u ∝ √T from ``u`` at the first horizon."""
    return [{"algo": algo, "eps": eps, "T": int(T), "sum_r": 50 * (T / 1e4) ** slope, "u": u * math.sqrt(T / Ts[0])}
            for T in Ts]


def burn_in(slope, seeds):
    """C1.5: an ε in burn-in (u ≤ 0.3 at T_max) with Σ r_i ∝ T^slope."""
    return {"fi_runs": fi_runs(sqrt_series(slope, 1.0, u=0.1), seeds, 0.01)}


def signs(r_learned, seeds):
    """C1.6: R_T/T at T_max of a learned ε (``r_learned``), a burn-in ε and UNIF (both +0.1)."""
    pts = [{"algo": "FI-DP", "eps": 100.0, "T": 10_000, "u": 20.0, "R": r_learned * 10_000},
           {"algo": "FI-DP", "eps": 1.0, "T": 10_000, "u": 0.2, "R": 0.1 * 10_000},
           {"algo": "UNIF", "eps": math.nan, "T": 10_000, "u": 0.0, "R": 0.1 * 10_000}]
    return {"fi_runs": fi_runs(pts, seeds, 0.01, noisy=("R",))}


def collapse(worst, seeds, noise):
    """k = 3 points on the collapse (u·y = 1) and one k = 1 point at u·y = worst."""
    pts = [{"eps": e, "T": T, "u": u, "sum_r": T / u, "eta": 0.01} for e, T, u in ((40.0, 10_000, 12.0), (100.0, 10_000, 30.0),
                                                                                  (100.0, 30_000, 52.0))]
    pts.append({"eps": 100.0, "T": 1000, "u": 10.5, "sum_r": worst * 1000 / 10.5, "eta": 0.15, "k": 1,
                "group": "collapse", "certified": False})
    return {"fi_runs": fi_runs(pts, seeds, noise)}


def collapse_slope(slope, seeds):
    """C2.2: y = Σ r_i/T ∝ u^slope over four learned points."""
    pts = [{"eps": 100.0, "T": T, "u": u, "sum_r": T * u ** slope} for T, u in ((10_000, 12.0), (30_000, 25.0),
                                                                               (100_000, 50.0), (300_000, 90.0))]
    return {"fi_runs": fi_runs(pts, seeds, 0.01)}


def breakeven(tstars, seeds, noise=0.002):
    """FI-DP R_T/T over a T grid per (k, ε) crossing zero at T* (log-linear in T); u ∝ ε√T/100."""
    pts = []
    Ts = (1000, 3000, 10_000, 30_000, 100_000, 300_000, 1_000_000)
    for (k, eps), ts in tstars.items():
        for T in Ts:
            y = -0.02 * math.log(T / ts) if math.isfinite(ts) else 0.05
            pts.append({"k": k, "eps": eps, "T": T, "u": eps * math.sqrt(T) / 100, "R": y * T})
    runs = fi_runs(pts, seeds, noisy=())
    rng = np.random.default_rng(1)
    return {"fi_runs": runs.assign(R=runs["R"] + noise * runs["T"] * rng.standard_normal(len(runs)))}


#: T* ∝ ε^-2: the same u* for every ε, slope −2; T* ∝ ε^-0.5: u* a factor 3.4 apart, slope −0.5; no sign change
BREAKEVEN_GOOD = {(3, 10.0): 4e4, (3, 20.0): 1e4, (3, 40.0): 2.5e3}
BREAKEVEN_BAD = {(3, 10.0): 4e4, (3, 20.0): 2.8e4, (3, 40.0): 2e4}
BREAKEVEN_NONE = {(3, 10.0): math.nan}


# ----------------------------------------------------------------------------- F3, F4


def eps_scaling(slope, seeds):
    """C3.1: Σ r_i ∝ ε^slope at T_max over four learned, certified ε."""
    pts = [{"eps": e, "T": 1_000_000, "u": 1.5 * e, "sum_r": 1e5 * e ** slope} for e in (10.0, 20.0, 40.0, 100.0)]
    return {"fi_runs": fi_runs(pts, seeds, 0.01)}


def no_better_than_uniform(rel, seeds):
    """C3.2: the smallest ε (u < 1) at (1 + rel) × UNIF's Σ r_i."""
    pts = [{"eps": 0.3, "T": 1_000_000, "u": 0.4, "sum_r": 1e5 * (1 + rel)},
           {"algo": "UNIF", "eps": math.nan, "T": 1_000_000, "u": 0.0, "sum_r": 1e5}]
    return {"fi_runs": fi_runs(pts, seeds, 0.01)}


def k_scaling(slope, seeds, T=1_000_000, u_k6=11.0):
    """C3.3: FI-DP ε = 30 with Σ r_i ∝ k^slope, u = u_k6 at k = 6; SG-NP ∝ √k."""
    pts = [{"eps": 30.0, "k": k, "T": T, "u": u_k6 * 36 / k ** 2, "sum_r": 100 * k ** slope} for k in (1, 2, 3, 4, 6)]
    pts += [{"algo": "SG-NP", "eps": math.nan, "k": k, "T": T, "u": 50.0, "sum_r": 100 * k ** 0.5} for k in (1, 2, 3, 4, 6)]
    return {"fi_runs": fi_runs(pts, seeds, 0.01, group="kscan")}


def n_scaling(slope, seeds):
    """C3.4: FI-DP ε = 30 with Σ r_i ∝ (ln n)^slope; SG-NP ∝ √ln n."""
    pts = [{"eps": 30.0, "n": n, "T": 300_000, "sum_r": 100 * math.log(n) ** slope} for n in (10, 100, 1000)]
    pts += [{"algo": "SG-NP", "eps": math.nan, "n": n, "T": 300_000, "sum_r": 100 * math.log(n) ** 0.5}
            for n in (10, 100, 1000)]
    return {"fi_runs": fi_runs(pts, seeds, 0.01, group="nscan")}


def anytime(avgs, seeds, noise=0.005, u_per_eps=0.8, T=100_000, opt=0.33, bandit=(0.07, 0.1)):
    """uber.anytime run rows: FI-DP at each ε of ``avgs`` (ALG/T), SG-NP at 0.3, the bandit pair, R = 0.632·OPT − ALG."""
    pts = [{"algo": "FI-DP", "feedback": "full", "eps": e, "avg": a, "u": u_per_eps * e} for e, a in avgs.items()]
    pts += [{"algo": "SG-NP", "feedback": "full", "eps": math.nan, "avg": 0.3, "u": 50.0},
            {"algo": "BanditDP", "feedback": "bandit", "eps": 30.0, "avg": bandit[0], "u": math.nan},
            {"algo": "SG-BANDIT-NP", "feedback": "bandit", "eps": math.nan, "avg": bandit[1], "u": math.nan}]
    runs = runs_of(pts, seeds, noise, ("avg",), group="anytime", unit="", T=T, OPT=opt * T)
    runs = runs.assign(ALG=runs["avg"] * T)
    return {"uber_runs": runs.assign(R=(1 - 1 / math.e) * runs["OPT"] - runs["ALG"]).drop(columns="avg")}


#: ALG/T rising with ε; the same with a dip at ε = 30
ANYTIME_GOOD = {1.0: 0.07, 3.0: 0.09, 10.0: 0.12, 30.0: 0.25, 100.0: 0.3}
ANYTIME_DIP = {**ANYTIME_GOOD, 30.0: 0.10}


def granularity(e60, epick, seeds, noise=0.002, T60=716, Tp=83_834):
    """φ(ε) per unit crossing ½ at ε_½ (logistic in ln ε), as run rows, and the f4c table of their means."""
    eps = [0.3, 1, 3, 10, 30, 100, 300, 1000, 3000]
    pts = [{"unit": u, "eps": float(e), "T": T, "phi": 1 / (1 + (eh / e) ** 2)}
           for u, eh, T in (("60", e60, T60), ("pick", epick, Tp)) for e in eps]
    runs = runs_of(pts, seeds, noise, ("phi",), group="granularity", algo="FI-DP", feedback="full")
    f4c = runs.groupby(["unit", "eps", "T"], as_index=False)["phi"].mean()
    f4c["eps_half"] = f4c["unit"].map({u: tables.phi_half(g["eps"].to_numpy(), g["phi"].to_numpy())
                                      for u, g in f4c.groupby("unit")})
    return {"f4c": f4c, "uber_runs": runs}


# ----------------------------------------------------------------------------- F5, F6


def bandit(Ts, seeds, noise=0.01, sg_slope=0.5, sgb_slope=0.75, bd_slope=0.7, fi_over_bd=0.1, phi=0.1,
           b1_over=1.5, b2_over=0.8):
    """bandit run rows on S1 and S2: REG_OPT = c·T^slope per series, φ of BanditDP on S2, and the F6 variants."""
    pts = []
    for inst, group in (("syn_s1", "s1"), ("syn_s2", "s2")):
        for T in Ts:
            bd = 10 * T ** bd_slope
            pts += [{"instance": inst, "group": group, "feedback": "bandit", "algo": "SG-BANDIT-NP", "eps": math.nan, "T": T,
                     "REG_OPT": 10 * T ** sgb_slope, "phi": 0.5},
                    {"instance": inst, "group": group, "feedback": "full", "algo": "SG-NP", "eps": math.nan, "T": T,
                     "REG_OPT": 10 * T ** sg_slope, "phi": 0.9},
                    {"instance": inst, "group": group, "feedback": "full", "algo": "FI-DP", "eps": 50.0, "T": T,
                     "REG_OPT": fi_over_bd * bd, "phi": 0.9}]
            pts += [{"instance": inst, "group": group, "feedback": "bandit", "algo": "BanditDP", "eps": e, "T": T,
                     "REG_OPT": bd, "phi": phi} for e in (10.0, 50.0)]
            if inst == "syn_s2":
                pts += [{"instance": inst, "group": "s2", "feedback": "bandit", "algo": "BanditDP", "eps": 1000.0, "T": T,
                         "REG_OPT": bd / 3, "phi": 0.6},
                        {"instance": inst, "group": "variants", "feedback": "bandit", "algo": "B1-NAIVE", "eps": 1000.0,
                         "T": T, "REG_OPT": b1_over * bd / 3, "phi": 0.4},
                        {"instance": inst, "group": "variants", "feedback": "bandit", "algo": "B2-PRESAMPLE", "eps": 1000.0,
                         "T": T, "REG_OPT": b2_over * bd / 3, "phi": 0.7}]
    return {"bandit_runs": runs_of(pts, seeds, noise, ("REG_OPT", "phi"))}


def lemma2(violate: bool = False, explore: float = 1.0, feedback: str = "bandit") -> dict:
    """Bandit runs with the columns of the pathwise checks C5.1 (R_T ≤ Σ r_i + M) and C5.2 (M ≈ γT, M < 2γT):
    M = ``explore``·γT; one run breaks Lemma 2 with ``violate``."""
    pts = [{"instance": "syn_s1", "group": "s1", "feedback": feedback, "algo": "BanditDP", "eps": 50.0, "T": T,
            "gamma": 0.1, "M": round(explore * 0.1 * T), "OPT": 0.5 * T, "R": 0.02 * T, "sum_r": 0.01 * T,
            "sum_r_weighted": 0.008 * T, "opt_exact": True} for T in (10_000, 100_000)]
    runs = runs_of(pts, 3)
    if violate:
        runs.loc[0, "R"] = runs.loc[0, "sum_r"] + runs.loc[0, "M"] + 1.0
    return {"bandit_runs": runs}


# ----------------------------------------------------------------------------- F7, F8


def cont(Ts, seeds, avg=lambda e, T: 0.2 + 0.1 * math.log10(e), reg=lambda e, T: 0.3 / math.log10(T),
         r=lambda e, T: -0.05, noise=0.01):
    """cont.sweep run rows (Algorithm 4) at ε ∈ {1, 10, 100}: ALG/T = avg, REG_OPT/T = reg, R/T = r."""
    pts = [{"eps": e, "T": T, "avg": avg(e, T), "regt": reg(e, T), "rt": r(e, T)} for e in (1.0, 10.0, 100.0) for T in Ts]
    runs = runs_of(pts, seeds, noise, ("avg", "regt"), group="sweep", K=3)
    runs = runs.assign(ALG=runs["avg"] * runs["T"], REG_OPT=runs["regt"] * runs["T"], R=runs["rt"] * runs["T"])
    return {"cont_runs": runs.drop(columns=["avg", "regt", "rt"])}


def flat_in_eps(e, T):
    """ALG/T falling slightly with ε (against C7.1)."""
    return 0.3 - 0.01 * math.log10(e)


def rising_in_T(e, T):
    """REG_OPT/T rising with T (against C7.2)."""
    return 0.1 * math.log10(T)


CONT_T = (1000, 3000, 10_000, 30_000, 100_000)


def certified(overshoot: bool = False, uncertified: bool = False) -> dict:
    """The summary tables' privacy columns (C8.1): FI-DP at k = 3 over ε ≤ 100, certified with ε_cert ≤ ε_nominal,
    and a nominal-only ε = 1000; ``overshoot``: a certified point with ε_cert above ε_nominal; ``uncertified``: an
    ε ≤ 100 of the k = 3 grid not certified."""
    fi = pd.DataFrame({"algo": "FI-DP", "k": 3, "T": 10_000, "eps": [10.0, 100.0, 1000.0],
                       "eps_nominal": [10.0, 100.0, 1000.0], "eps_cert": [6.0, 60.0, 2000.0],
                       "certified": [True, True, False]})
    bandit = pd.DataFrame({"algo": "BanditDP", "k": 2, "T": 10_000, "eps": [10.0], "eps_nominal": [10.0],
                           "eps_cert": [8.0], "certified": [True]})
    if overshoot:
        bandit.loc[0, "eps_cert"] = 12.0
    if uncertified:
        fi.loc[1, "certified"] = False
    return {"fi": fi, "bandit": bandit}


def tpriv(scale_bug_ratio, ok_ratio):
    """The T-PRIV table: max |ln P/P'| as implemented (``ok_ratio``) and with the planted bug against the bound 1.6."""
    rows = []
    for variant, ratio in (("as implemented", ok_ratio), ("planted bug: gains x3", scale_bug_ratio)):
        rows.append({"variant": variant, "rate": "fixed", "eta": 0.2, "eps_nominal": np.nan, "sum_P": 1.0,
                     "sum_P_prime": 1.0, "max_log_ratio": ratio, "pure_bound": 1.6, "delta_at_eps": np.nan})
        rows.append({"variant": variant, "rate": "paper", "eta": 0.01, "eps_nominal": 1.0, "sum_P": 1.0,
                     "sum_P_prime": 1.0, "max_log_ratio": 0.04, "pure_bound": 0.08, "delta_at_eps": 0.0})
    return {"tpriv": pd.DataFrame(rows)}


def cert_grid(scale_exact: float = 1.0, points: int = 9):
    """F8's certified-ε grid at a small size (k ∈ {1, 3}, T ∈ {1000, 10^5}), its exact column scaled by
    ``scale_exact`` (a planted overshoot)."""
    grid = privacy_tables.cert_grid({"group": {"fi_ks": [1, 3], "bandit_ks": [2], "T": [1000, 100_000],
                                               "c_gamma": 2.0, "eps_min": 0.1, "eps_max": 1000, "points": points},
                                     "delta": 1e-6})
    return grid.assign(eps_exact=grid["eps_exact"] * scale_exact)


def tail(broken: bool = False) -> dict:
    """Figure 6's tail table on two horizons; ``broken``: the exact tail above Hoeffding's bound."""
    t = tables.tail_table([10_000, 100_000], 2.0, 2, 1e-6)
    return {"f6_tail": t.assign(log10_exact=t["log10_hoeffding"] + 1) if broken else t}
