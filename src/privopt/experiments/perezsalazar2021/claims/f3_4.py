"""Claims C3.1–C3.4 (Figure 3: the regret against ε, k and n at fixed T) and C4.1–C4.4 (Figure 4: the Uber
pickups, the privacy unit and bandit feedback)."""

from __future__ import annotations

import math

import numpy as np

from privopt.pipeline.claims import Inconclusive
from privopt.pipeline.claims import fmt_sig as _f
from privopt.pipeline.parts import Part
from privopt.experiments.perezsalazar2021.tables import phi_half
from privopt.experiments.perezsalazar2021.claims.deciding import (BOOT, CLAIMS, FI_KEYS, U_LEARNED, _Boot, _boot,
                                                                  _outcome, _point, _sci, _sel, _slope, _stat,
                                                                  _table, _with)


# ----------------------------------------------------------------------------- F3


def _syn_tmax(tables) -> _Boot:
    fi = _sel(_table(tables, "fi_runs"), group="syn")
    if fi.empty:
        raise Inconclusive("perezsalazar2021.fi.syn did not run", needs="the runs of fi.syn")
    return _boot(fi[fi["T"] == fi["T"].max()], FI_KEYS, "sum_r", firsts=("u", "certified"))


@CLAIMS.claim("C3.1", "f3", "ε-scaling at fixed T: E[Σ r_i] ∝ 1/ε in the learned regime.",
              "slope of ln E[Σ r_i] on ln ε over certified points with u ≥ 10 at T_max in [−1.2, −0.8]",
              needs=("fi_runs",))
def _c31(tables, settings):
    b = _syn_tmax(tables)
    p = b.points
    mask = ((p["algo"] == "FI-DP") & (p["u"] >= U_LEARNED) & p["certified"].astype(bool)).to_numpy()
    if mask.sum() < 2:
        raise Inconclusive(f"{int(mask.sum())} certified ε with u ≥ 10 at T = {int(p['T'].max()):,} (need 2)",
                           needs="a horizon where two certified ε have u ≥ 10 (the design's T = 10^6)")
    q = b.take(mask)
    label = f"slope over ε = {sorted(q.points['eps'].tolist())} at T = {int(q.points['T'].iloc[0]):,}"
    return _outcome([_slope(label, q.points["eps"].to_numpy(float), q, (-1.2, -0.8), 1)],
                    details="[a, b]: 95 % bootstrap interval over seeds")


@CLAIMS.claim("C3.2", "f3", "Below u = 1 FI-DP is no better than uniform play.", "at the smallest ε (u < 1) E[Σ r_i] "
              "within 25% of UNIF's at T_max", needs=("fi_runs",))
def _c32(tables, settings):
    b = _syn_tmax(tables)
    p = b.points
    low = p[(p["algo"] == "FI-DP") & (p["u"] < 1)].sort_values("eps")
    unif = p[p["algo"] == "UNIF"]
    if low.empty or unif.empty:
        raise Inconclusive("no ε with u < 1, or no UNIF run, at T_max", needs="ε with u < 1 and UNIF at T_max")
    i, j = int(low.index[0]), int(unif.index[0])
    a, c = float(p.loc[i, "mean"]), float(p.loc[j, "mean"])
    with np.errstate(all="ignore"):
        reps = np.abs(b.col(i) / b.col(j) - 1)
    label = f"ε={p.loc[i, 'eps']:g} (u={p.loc[i, 'u']:.2f}): Σr {_f(a)} vs UNIF {_f(c)}, |ratio − 1|"
    return _outcome([_stat(label, abs(a / c - 1), reps, int(min(p.loc[i, "N"], p.loc[j, "N"])), (None, 0.25), 1,
                           fmt=lambda x: f"{x:.1%}")], details="[a, b]: 95 % bootstrap interval over seeds")


@CLAIMS.claim("C3.3", "f3", "k-scaling: E[Σ r_i] ∝ k² for FI-DP (the price of privacy) against √k for SG-NP.",
              "k-slope at ε = 30 over k ≤ 6, u ≥ 10 at every k (the design's T = 10^6), in [1.7, 2.3]; SG-NP k-slope "
              "over k ≤ 6 in [0.3, 0.75]", needs=("fi_runs",))
def _c33(tables, settings):
    s = _sel(_table(tables, "fi_runs"), group="kscan")
    if s.empty:
        raise Inconclusive("perezsalazar2021.fi.kscan did not run", needs="the runs of fi.kscan (T = 10^6)")
    s = s[s["k"] <= 6]
    b = _boot(s, FI_KEYS, "sum_r", firsts=("u",))
    p = b.points
    fi = ((p["algo"] == "FI-DP") & (p["eps"] == 30.0)).to_numpy()
    low = p[fi & (p["u"] < U_LEARNED).to_numpy()]
    if fi.sum() == 0:
        raise Inconclusive("no FI-DP run at ε = 30", needs="fi.kscan at ε = 30")
    if len(low):
        t_need = float((low["T"] * (U_LEARNED / low["u"]) ** 2).max())
        raise Inconclusive(f"ε = 30 has u < 10 at k = {sorted(low['k'].tolist())} (T = {int(p['T'].max()):,}): the k² "
                           f"law is the learned regime's", needs=f"T ≥ {_sci(t_need)} (u ≥ 10 at every k ≤ 6; the design "
                           f"runs T = 10^6)")
    if fi.sum() < 3:
        raise Inconclusive(f"ε = 30 ran at k = {sorted(p.loc[fi, 'k'].tolist())} only", needs="≥ 3 values of k ≤ 6")
    todo = [("FI-DP ε=30 over k = " + str(sorted(p.loc[fi, 'k'].tolist())), b.take(fi), (1.7, 2.3))]
    sg = (p["algo"] == "SG-NP").to_numpy()
    if sg.sum() >= 2:
        todo.append(("SG-NP over k ≤ 6", b.take(sg), (0.3, 0.75)))
    return _outcome([_slope(label, q.points["k"].to_numpy(float), q, band, len(todo)) for label, q, band in todo],
                    details="[a, b]: familywise 95 % bootstrap interval over seeds")


@CLAIMS.claim("C3.4", "f3", "ln n-scaling on SYN-CLICK-PAD: E[Σ r_i] ∝ ln n for FI-DP, ∝ √ln n for SG-NP.",
              "slope of ln E[Σ r_i] on ln ln n for ε = 30 and 100 in [0.7, 1.3]; SG-NP in [0.3, 0.7]", needs=("fi_runs",))
def _c34(tables, settings):
    s = _sel(_table(tables, "fi_runs"), group="nscan")
    if s.empty or s["n"].nunique() < 2:
        raise Inconclusive("perezsalazar2021.fi.nscan did not run on two n", needs="the runs of fi.nscan")
    b = _boot(s, FI_KEYS, "sum_r")
    p = b.points
    todo = []
    for (algo, eps), idx in p.groupby(["algo", "eps"], dropna=False, sort=True).groups.items():
        if algo in ("FI-DP", "SG-NP"):
            q = b.take(np.isin(np.arange(len(p)), idx))
            todo.append((f"ε={eps:g}" if algo == "FI-DP" else "SG-NP", q, (0.7, 1.3) if algo == "FI-DP" else (0.3, 0.7)))
    parts = [_slope(label, np.log(q.points["n"].to_numpy(float)), q, band, len(todo)) for label, q, band in todo]
    return _outcome(parts, head=f"T = {int(s['T'].max()):,}, n = {sorted(s['n'].unique().tolist())}",
                    details="[a, b]: familywise 95 % bootstrap interval over seeds")


# ----------------------------------------------------------------------------- F4


def _anytime(tables) -> _Boot:
    s = _sel(_table(tables, "uber_runs"), group="anytime")
    if s.empty:
        raise Inconclusive("perezsalazar2021.uber.anytime did not run", needs="the runs of uber.anytime")
    return _boot(_with(s, avg=lambda r: r["ALG"] / r["T"]), ("feedback", "algo", "eps", "T"), "avg",
                 firsts=("u", "OPT", "R"))


@CLAIMS.claim("C4.1", "f4", "On the Uber pickups the final average reward grows with ε and stays below OPT/T.",
              "ALG/T non-decreasing in ε and ≤ OPT/T for every ε (the claim allows 2 SE and 3 SE: with ≥ 10 seeds)",
              needs=("uber_runs",))
def _c41(tables, settings):
    b = _anytime(tables)
    p = b.points
    idx = p.index[(p["feedback"] == "full") & (p["algo"] == "FI-DP")]
    idx = list(p.loc[idx].sort_values("eps").index)
    if not idx:
        raise Inconclusive("no FI-DP run on the pickups", needs="uber.anytime")
    m = 2 * len(idx) - 1
    parts = []
    for i, j in zip(idx, idx[1:]):
        d = float(p.loc[j, "mean"] - p.loc[i, "mean"])
        se = math.hypot(p.loc[i, "sem"], p.loc[j, "sem"])
        parts.append(_stat(f"ε {p.loc[i, 'eps']:g}→{p.loc[j, 'eps']:g}: Δ ALG/T", d, b.col(j) - b.col(i),
                           int(min(p.loc[i, "N"], p.loc[j, "N"])), (0.0, None), m, tol=(-2 * se, None),
                           fmt=lambda x: f"{x:+.4f}"))
    opt = float(p.loc[idx[0], "OPT"] / p.loc[idx[0], "T"])
    for i in idx:
        parts.append(_stat(f"ε={p.loc[i, 'eps']:g}: ALG/T", float(p.loc[i, "mean"]), b.col(i), int(p.loc[i, "N"]),
                           (None, opt), m, tol=(None, opt + 3 * float(p.loc[i, "sem"])), fmt=lambda x: f"{x:.4f}"))
    return _outcome(parts, head=f"OPT/T = {opt:.4f}", details="[a, b]: familywise 95 % bootstrap interval over seeds")


@CLAIMS.claim("C4.2", "f4", "Sign of R_T at the end of the Uber stream.", "R_T < 0 for ε ≥ 30 (learned: u ≥ 10) and "
              "SG-NP; R_T > 0 for ε ≤ 1 (full information)", needs=("uber_runs",))
def _c42(tables, settings):
    s = _sel(_table(tables, "uber_runs"), group="anytime")
    if s.empty:
        raise Inconclusive("perezsalazar2021.uber.anytime did not run", needs="the runs of uber.anytime")
    s = s[s["feedback"] == "full"]
    p = _boot(_with(s, y=lambda r: r["R"] / r["T"]), ("algo", "eps", "T"), "y", firsts=("u",), resample=False).points
    todo = []
    for r in p.itertuples():
        if r.algo == "SG-NP":
            todo.append(("SG-NP", r, (None, 0.0)))
        elif r.algo == "FI-DP" and r.eps >= 30:
            todo.append((f"FI-DP ε={r.eps:g} (u={r.u:.1f})", r, (None, 0.0)))
        elif r.algo == "FI-DP" and r.eps <= 1:
            todo.append((f"ε={r.eps:g}", r, (0.0, None)))
    if not todo:
        raise Inconclusive("no ε ≥ 30, ε ≤ 1 or SG-NP run", needs="uber.anytime with those ε")
    parts = []
    for label, r, band in todo:
        if r.algo == "FI-DP" and r.eps >= 30 and r.u < U_LEARNED:
            t_need = r.T * (U_LEARNED / r.u) ** 2
            parts.append(Part(f"{label}: {r.mean:+.4f}, not yet learned (u < 10)", None,
                               f"T ≥ {int(math.ceil(t_need)):,} pickups (u ≥ 10 at ε = {r.eps:g})"))
        else:
            parts.append(_point(label, r.mean, r.sem, int(r.N), band, len(todo), fmt=lambda x: f"{x:+.4f}"))
    return _outcome(parts, head=f"R_T/T at T = {int(p['T'].max()):,}")


@CLAIMS.claim("C4.3", "f4", "Privacy-unit scaling: learning needs ε√T ≳ const, so ε_½ ∝ T^(-1/2) across units.",
              "ln(ε_½(w=60)/ε_½(pick)) / ln √(T_pick/T_w60) in [0.6, 1.5]", needs=("f4c",))
def _c43(tables, settings):
    f4c = tables["f4c"]
    by = {str(u): g for u, g in f4c.groupby("unit")}
    if "60" not in by or "pick" not in by:
        raise Inconclusive(f"units run: {sorted(by)} (need 60 and pick)", needs="uber.granularity with units 60 and pick")
    e60, ep = float(by["60"]["eps_half"].iloc[0]), float(by["pick"]["eps_half"].iloc[0])
    t60, tp = int(by["60"]["T"].iloc[0]), int(by["pick"]["T"].iloc[0])
    extra = "; ".join(f"ε_½(w={u}) = {_f(g['eps_half'].iloc[0])} (T = {int(g['T'].iloc[0]):,})" for u, g in by.items())
    if not (math.isfinite(e60) and math.isfinite(ep)):
        raise Inconclusive(f"φ does not cross 1/2 inside the ε grid for every unit: {extra}",
                           needs="an ε grid where φ crosses 1/2 for both units")
    scale = math.log(math.sqrt(tp / t60))
    est = math.log(e60 / ep) / scale
    runs = _sel(_table(tables, "uber_runs"), group="granularity")
    runs = runs[runs["unit"].astype(str).isin(["60", "pick"])] if len(runs) else runs
    if runs.empty:
        reps, n = np.full(BOOT, np.nan), 0
    else:
        b = _boot(runs.assign(unit=runs["unit"].astype(str)), ("unit", "eps"), "phi")
        half = {}
        for unit in ("60", "pick"):
            mask = (b.points["unit"] == unit).to_numpy()
            e = b.points.loc[mask, "eps"].to_numpy(float)
            half[unit] = np.array([phi_half(e, row) for row in b.reps[:, mask]])
        with np.errstate(all="ignore"):
            reps = np.log(half["60"] / half["pick"]) / scale
        n = int(b.points["N"].min())
    return _outcome([_stat("ratio", est, reps, n, (0.6, 1.5), 1)], head=extra,
                    details="[a, b]: 95 % bootstrap interval over seeds")


@CLAIMS.claim("C4.4", "f4", "Full information beats bandit feedback at equal ε on the Uber pickups.",
              "final ALG/T of FI-DP ε=30 ≥ BanditDP ε=30, and SG-NP ≥ SG-BANDIT-NP", needs=("uber_runs",))
def _c44(tables, settings):
    b = _anytime(tables)
    p = b.points

    def find(algo, eps=math.nan):
        q = _sel(p, algo=algo, eps=eps)
        return int(q.index[0]) if len(q) else None

    pairs = [("FI-DP ε=30 − BanditDP ε=30", find("FI-DP", 30.0), find("BanditDP", 30.0)),
             ("SG-NP − SG-BANDIT-NP", find("SG-NP"), find("SG-BANDIT-NP"))]
    if any(i is None or j is None for _, i, j in pairs):
        raise Inconclusive("needs FI-DP and BanditDP at ε = 30, SG-NP and SG-BANDIT-NP",
                           needs="uber.anytime with bandit_eps 30")
    parts = [_stat(f"{label} (ALG/T {p.loc[i, 'mean']:.4f} vs {p.loc[j, 'mean']:.4f})",
                   float(p.loc[i, "mean"] - p.loc[j, "mean"]), b.col(i) - b.col(j),
                   int(min(p.loc[i, "N"], p.loc[j, "N"])), (0.0, None), 2, fmt=lambda x: f"{x:+.4f}")
             for label, i, j in pairs]
    return _outcome(parts, details="[a, b]: familywise 95 % bootstrap interval over seeds (paired: same pickups)")
