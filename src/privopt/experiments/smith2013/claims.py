"""The checkable claims (docs/papers/smith2013.md, reading R13) for Smith & Thakurta (C-ST0 … C-ST4, C-U1),
and the privacy checks.

The paper has no experiments: each claim is a prediction of its theorems on the new figures, with the
tolerances of the design (calibrated on a prototype at paper-like scale).  Slopes are least-squares fits of
log(seed-mean) on log(x) over the claim's own range (:func:`privopt.pipeline.stats.loglog_slope`).

Three verdicts (:mod:`privopt.pipeline.claims`), decided part by part and then combined (a claim holds
when every part does, is not reproduced when one part is contradicted, and is inconclusive otherwise):

* a part whose estimate meets its threshold *supports* the claim;
* a part whose estimate misses it *contradicts* the claim only when the 95 % interval of the estimate lies
  wholly beyond the threshold, and only with at least :data:`~privopt.pipeline.claims.MIN_SEEDS` seeds
  per point: a standard error from 2–3 seeds of these heavy-tailed regrets is itself off by a factor of
  several.  The interval of a slope comes from the per-point standard errors (:func:`loglog_fit`, delta
  method on log(mean)), that of a ratio of two means from both relative errors (on the log scale), the
  points taken as independent (one seed's streams are prefixes of each other across T: the positive
  correlation this brings mostly narrows the true interval, so the one used is on the wide side); a Spearman ρ is contradicted when no ranking of values inside the means'
  95 % intervals reaches its bar;
* otherwise the part is *inconclusive at this scale*, and ``needs`` says what would decide it (≥ 10 seeds
  per point; ≈ N seeds, N scaled by the 1/√N shrinking of the interval; a horizon the grid lacks).

A claim over a range (a fit window, the ε or p of a figure) is never reproduced on another range: fewer than
two points in the claim's window, or a grid that does not reach the ends of its range, leave it inconclusive.
The parts are :mod:`privopt.pipeline.parts` (they decide the claims of Rivera Cardoso & Cummings too).  A claim that does not hold is reported with its
numbers.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pandas as pd

from privopt.pipeline.claims import (MIN_SEEDS, ClaimSet, Inconclusive, Outcome, finite, fmt_fixed, fmt_sig,
                                     ratio_outcome)
from privopt.pipeline.parts import (Z95, Part, all_of, judge, outcome, privacy_correct, privacy_planted, range_part,
                                    ratio_part, slope_part)
from privopt.pipeline.protocol import Finding
from privopt.pipeline.stats import loglog_slope, spearman

__all__ = ["CLAIMS", "evaluate", "findings", "regret_bound"]

CLAIMS = ClaimSet("smith2013")
def _eps_label(e: float) -> str:
    return "∞" if math.isinf(e) else f"{e:g}"


def _pow2(x: float) -> str:
    k = math.log2(x) if x > 0 else math.nan
    return f"2^{int(k)}" if math.isfinite(k) and k == int(k) else f"{x:g}"


def _curve(table: pd.DataFrame, x: str, **where) -> pd.DataFrame:
    sub = table
    for k, v in where.items():
        sub = sub[np.isclose(sub[k], v)] if isinstance(v, float) and math.isfinite(v) else sub[sub[k] == v]
    return sub.sort_values(x)


def _window(table: pd.DataFrame, x: str, lo: float, hi: float, **where) -> pd.DataFrame:
    c = _curve(table, x, **where)
    return c[(c[x] >= lo) & (c[x] <= hi)]


def _has(table: pd.DataFrame, e: float) -> bool:
    return bool(np.isinf(table["eps"]).any() if math.isinf(e) else np.isclose(table["eps"], e).any())


def _panel(table: pd.DataFrame, loss: str) -> pd.DataFrame:
    sub = table[table["loss"] == loss]
    if sub.empty:
        raise Inconclusive(f"no {loss} runs", needs=f"the {loss} loss run")
    return sub


def _fit_window(what: str, t: pd.DataFrame, lo: float, e: float, band: tuple[float, float]) -> Part:
    """Slope over T ∈ [lo, T_max] of the ε curve of ``t``, inconclusive with fewer than two horizons there."""
    c = _window(t, "T", lo, math.inf, eps=e)
    if len(c) < 2:
        return Part(f"{what}: fewer than two horizons in [{_pow2(lo)}, T_max = {_pow2(float(t['T'].max()))}]", None,
                    needs=f"≥ 2 horizons in [{_pow2(lo)}, T_max]")
    return slope_part(what, c, "T", lo=band[0], hi=band[1])


def _missing(what: str, e: float) -> Part:
    return Part(f"{what}: ε = {_eps_label(e)} did not run", None, needs=f"ε = {_eps_label(e)} run")


# ----------------------------------------------------------------------------- ST-0


@CLAIMS.claim("ST0.a", "st0", "TBAP's error has the exact second moment E‖v̂_t − v_t‖² = popcount(t)·d(d+1)·λ².",
              "Σ_t mean ‖v̂_t − v_t‖² / Σ_t popcount(t)d(d+1)λ² within 1 ± 0.05 for every d", needs=("st0",),
              details="interval: ratio ± 1.96·s, s the theory-weighted r.m.s. spread of the per-t ratios about "
                      "the total (a bound on the total's standard error when the t share their tree nodes)")
def _st0a(tables, settings):
    t = tables["st0"]
    out = []
    for d, g in t.groupby("d"):
        # every t's value, not pandas' sum that skips a NaN (a missing t would read as a smaller error)
        finite(g["mean_sq"].to_numpy(), g["theory_sq"].to_numpy(), what=f"d = {d}: a mean or theoretical ‖v̂_t − v_t‖²")
        ratio = float(g["mean_sq"].sum() / g["theory_sq"].sum())
        w = (g["theory_sq"] / g["theory_sq"].sum()).to_numpy()
        per_t = (g["mean_sq"] / g["theory_sq"]).to_numpy()
        spread = math.sqrt(float(np.sum(w * (per_t - ratio) ** 2)))
        per = g.groupby("popcount").apply(lambda x: x["mean_sq"].sum() / x["theory_sq"].sum(), include_groups=False)
        part = judge(f"d = {d}: ratio", ratio, spread, int(g["n"].min()), lo=0.95, hi=1.05,
                     fmt=lambda x: fmt_fixed(x, 4))
        out.append(outcome([part], reading=f"d={d}",
                           details=f"{int(g['n'].iloc[0])} trees, T = {len(g)}; per popcount class: "
                                   f"{fmt_fixed(per.min(), 3)}–{fmt_fixed(per.max(), 3)}"))
    return out


# ----------------------------------------------------------------------------- ST-0c (new, beyond the paper)

BEYOND = "(beyond the paper) "


@CLAIMS.claim("ST0c.a", "st0c", BEYOND + "Every continual counter's released prefix sum has exactly its formula's "
              "variance: the measured mean N_i(t)² over the draws and coordinates matches Var N_i(t) at every t.",
              "every per-t ratio measured/formula inside its χ²_ν/ν interval at level 0.05/(K·T) (Bonferroni over t "
              "and the K counters: all inside with probability ≥ 95 %), every counter of every guarantee", needs=("st0c",),
              details="ν = draws·p for Gaussian seeds (exact χ² law); draws·2p(p + 1)/(4p + 6) for the ℓ2-Laplace "
                      "seeds (Satterthwaite's degrees of freedom of one seed's Σ_i z_i², the most kurtotic case)")
def _st0ca(tables, settings):
    t = tables["st0c"]
    out = []
    for (g, c), x in t.groupby(["guarantee", "counter"], sort=False):
        n = int(x["n"].min())
        ratio = x["ratio"].to_numpy(dtype=np.float64)
        finite(float(ratio.sum()), what=f"{g} {c}: ratios")
        outside = int(((ratio < x["tol_lo"]) | (ratio > x["tol_hi"])).sum())
        pooled = float(x["mean_sq"].sum() / x["var"].sum())
        text = (f"{g} {c}: per-t ratio {fmt_fixed(ratio.min(), 3)}–{fmt_fixed(ratio.max(), 3)} (tolerance "
                f"{fmt_fixed(float(x['tol_lo'].min()), 3)}–{fmt_fixed(float(x['tol_hi'].max()), 3)}), "
                f"{outside} of {len(x)} t outside; pooled over t {fmt_fixed(pooled, 4)}")
        if not x[["tol_lo", "tol_hi"]].notna().all().all():
            out.append(Outcome(text + " (no tolerance: a zero spread)", None, reading=f"{g} {c}", needs="draws ≥ 2"))
        elif outside == 0:
            out.append(Outcome(text, True, reading=f"{g} {c}", details=f"{n} draws, p = {int(x['p'].iloc[0])}"))
        elif n < MIN_SEEDS:
            out.append(Outcome(text + f" ({n} draws)", None, reading=f"{g} {c}", needs=f"≥ {MIN_SEEDS} draws"))
        else:
            out.append(Outcome(text, False, reading=f"{g} {c}", details=f"{n} draws, p = {int(x['p'].iloc[0])}"))
    return out


@CLAIMS.claim("ST0c.b", "st0c", BEYOND + "Honaker's estimator on the same tree has a smaller variance than the tree's "
              "at every t > 1, and the measured mean-over-t variance ratio to the tree is the formula's.",
              "formula: Var_Honaker(t) < Var_tree(t) at every t > 1; measured ratio of the means over t: its 95 % "
              "interval (over the draws) contains the formula's ratio, every guarantee", needs=("st0c_ratio", "st0c"))
def _st0cb(tables, settings):
    t, r = tables["st0c"], tables["st0c_ratio"]
    out = []
    for g, x in r.groupby("guarantee", sort=False):
        rows = x.set_index("counter")
        if "honaker" not in rows.index or "tree" not in rows.index:
            out.append(Outcome(f"{g}: tree or honaker did not run", None, reading=g, needs="both counters run"))
            continue
        h, n = rows.loc["honaker"], int(rows["n"].min())
        tree_var = t[(t["guarantee"] == g) & (t["counter"] == "tree")].set_index("t")["var"]
        hon_var = t[(t["guarantee"] == g) & (t["counter"] == "honaker")].set_index("t")["var"]
        finite(tree_var.to_numpy(), hon_var.to_numpy(), what=f"{g}: a formula variance of the tree or Honaker")
        later = tree_var.index > 1
        below = bool((hon_var[later] < tree_var[later]).all())
        est, lo, hi, formula = (float(h[k]) for k in ("ratio", "ratio_lo", "ratio_hi", "ratio_formula"))
        finite(est, what=f"{g}: measured ratio")
        text = (f"{g}: measured ratio {fmt_fixed(est, 4)} (95 % {fmt_fixed(lo, 4)} … {fmt_fixed(hi, 4)}), formula "
                f"{fmt_fixed(formula, 4)}; formula below the tree at every t > 1: {'yes' if below else 'no'}")
        if not below:
            holds, needs = False, ""
        elif lo <= formula <= hi:
            holds, needs = True, ""
        elif n < MIN_SEEDS:
            holds, needs = None, f"≥ {MIN_SEEDS} draws"
        else:
            holds, needs = False, ""
        out.append(Outcome(text, holds, reading=g, needs=needs,
                           details=f"{n} draws; gain {fmt_fixed(100 * (1 - est), 1)} % of the tree's variance"))
    return out


# ----------------------------------------------------------------------------- ST-1

FIT_LO = 2.0**12


@CLAIMS.claim("ST1.a", "st1", "Strongly convex loss: PFTAL's regret grows only polylogarithmically in T "
              "(Thm 4: O(p log^2.5 T/ε)); non-private FTAL regret stays O(log T).",
              "slope over T ∈ [2^12, T_max] in [−0.05, 0.30] for finite ε ≥ 0.3, ≤ 0.45 for ε = 0.1; "
              "non-private regret < 5 at every T", needs=("st1",))
def _st1a(tables, settings):
    t = _panel(tables["st1"], "sc")
    parts = []
    for e in sorted(t["eps"].unique()):
        if math.isinf(e):
            c = _curve(t, "T", eps=math.inf)
            np_parts = [judge(f"non-private at T = {int(r.T)}", r.mean, r.sem, r.n, hi=5.0, fmt=fmt_sig)
                        for r in c.itertuples()]
            if all(p.holds is True for p in np_parts):
                parts.append(Part(f"non-private max {fmt_sig(float(c['mean'].max()))}", True))
            else:
                parts += [p for p in np_parts if p.holds is not True]
            continue
        if e < 0.1 - 1e-12:
            continue
        band = (-math.inf, 0.45) if e < 0.3 - 1e-12 else (-0.05, 0.30)
        parts.append(_fit_window(f"ε={_eps_label(e)}", t, FIT_LO, float(e), band))
    return outcome(parts, details=f"T_max = {int(t['T'].max())}; {int(t['n'].min())} seeds")


@CLAIMS.claim("ST1.b", "st1", "Strongly convex loss: regret(T)/ln^2.5 T does not grow once T is past the burn-in.",
              "regret/ℓ^2.5 non-increasing (10 % tolerance: each step × ≤ 1.1) over T ≥ max(2^10, 2^11/ε), "
              "every finite ε", needs=("st1",))
def _st1b(tables, settings):
    t = _panel(tables["st1"], "sc")
    parts = []
    for e in sorted(x for x in t["eps"].unique() if math.isfinite(x)):
        lo = max(2.0**10, 2.0**11 / e)
        c = _window(t, "T", lo, math.inf, eps=float(e))
        if len(c) < 2:
            parts.append(Part(f"ε={_eps_label(e)}: fewer than two horizons T ≥ {math.ceil(lo)}", None,
                              needs=f"≥ 2 horizons T ≥ {math.ceil(lo)} for ε = {_eps_label(e)}"))
            continue
        ell = np.log(c["T"].to_numpy(dtype=np.float64)) ** 2.5
        m, s, n = c["mean"].to_numpy(), c["sem"].to_numpy(), c["n"].to_numpy()
        steps = [ratio_part(f"step {int(c['T'].iloc[i])}→{int(c['T'].iloc[i + 1])}", m[i + 1] / ell[i + 1], s[i + 1] / ell[i + 1],
                            m[i] / ell[i], s[i] / ell[i], int(min(n[i], n[i + 1])), hi=1.1) for i in range(len(c) - 1)]
        holds, needs = all_of(steps)
        worst = [p for p in steps if p.holds is not True]
        r = m / ell
        text = f"ε={_eps_label(e)}: {fmt_sig(r[0])} → {fmt_sig(r[-1])}"
        text += "; ".join([""] + [p.text for p in worst]) if worst else " (every step × ≤ 1.1)"
        parts.append(Part(text, holds, needs=needs,
                          seeds=max((p.seeds for p in worst), default=0), approx=any(p.approx for p in worst)))
    return outcome(parts)


@CLAIMS.claim("ST1.c", "st1", "Lipschitz loss (regularised PFTAL with H*): regret grows like √T.",
              "slope over T ∈ [2^12, T_max] in [0.35, 0.65] for ε ∈ {1, 3, 10} and non-private", needs=("st1",))
def _st1c(tables, settings):
    t = _panel(tables["st1"], "gc")
    parts = [_fit_window(f"ε={_eps_label(e)}", t, FIT_LO, e, (0.35, 0.65)) if _has(t, e) else _missing("gc", e)
             for e in (1.0, 3.0, 10.0, math.inf)]
    return outcome(parts, details=f"T_max = {int(t['T'].max())}; {int(t['n'].min())} seeds")


#: Spearman bar of claim ST1.d
RHO_BAR = -0.9
MAX_ORDER = 8


@functools.lru_cache(maxsize=None)
def _orders_meeting(n: int, bar: float) -> np.ndarray:
    """Every ranking of n values (rank 1 = smallest) whose Spearman ρ with 1 … n is ≤ ``bar``."""
    perms = np.array(list(itertools.permutations(range(1, n + 1))), dtype=np.int64)
    rho = 1 - 6 * ((perms - np.arange(1, n + 1)) ** 2).sum(axis=1) / (n * (n * n - 1))
    return perms[rho <= bar + 1e-12]


def _order_fits(ranks: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> bool:
    """Whether values inside [lo, hi] can take the ranking ``ranks`` (ties allowed): fill from the largest down."""
    cap = math.inf
    for i in np.argsort(-ranks):
        v = min(hi[i], cap)
        if v < lo[i]:
            return False
        cap = v
    return True


def _rho_part(T: int, g: pd.DataFrame) -> Part:
    """ρ(ε, mean) ≤ −0.9 at one T: supported by the means; contradicted (≥ 10 seeds) when no ranking of values
    inside the means' 95 % intervals reaches ρ ≤ −0.9; otherwise inconclusive."""
    g = g.assign(_x=np.where(np.isinf(g["eps"]), 1e300, g["eps"])).sort_values("_x")
    m, s = g["mean"].to_numpy(dtype=np.float64), g["sem"].to_numpy(dtype=np.float64)
    rho = spearman(g["_x"].to_numpy(), m)
    finite(rho, what=f"ρ at T = {T}")
    text = f"T = {T}: ρ {fmt_fixed(rho, 2)}"
    if rho <= RHO_BAR:
        return Part(text, True)
    seeds = int(g["n"].min())
    if seeds < MIN_SEEDS:
        return Part(f"{text} ({seeds} seeds)", None, seeds=MIN_SEEDS)
    if not np.isfinite(s).all() or len(m) > MAX_ORDER:
        return Part(f"{text} (no interval)", None, needs="finite SEMs and ≤ 8 values of ε")
    lo, hi = m - Z95 * s, m + Z95 * s
    if any(_order_fits(r, lo, hi) for r in _orders_meeting(len(m), RHO_BAR)):
        return Part(f"{text}; a ranking inside the 95 % intervals reaches ρ ≤ −0.9", None,
                    needs="more seeds (the 95 % intervals of the means admit ρ ≤ −0.9)")
    return Part(f"{text}; no ranking inside the 95 % intervals reaches ρ ≤ −0.9", False)


@CLAIMS.claim("ST1.d", "st1", "More privacy costs more: at every horizon, mean regret is non-increasing in ε.",
              "Spearman ρ(ε, mean regret) ≤ −0.9 over the ε grid (∞ included) at every T ≥ 2^10, both losses",
              needs=("st1",), details="contradicted when no ranking of values inside the means' 95 % intervals "
                                      "has ρ ≤ −0.9")
def _st1d(tables, settings):
    t = tables["st1"]
    out = []
    for loss in ("sc", "gc"):
        sub = t[(t["loss"] == loss) & (t["T"] >= 2**10)]
        if sub.empty:
            out.append(Outcome(f"{loss}: no horizon T ≥ 2^10 ran", None, reading=loss, needs="a horizon T ≥ 2^10"))
            continue
        parts = [_rho_part(int(T), g) for T, g in sub.groupby("T")]
        holds, needs = all_of(parts)
        worst = max(spearman(np.where(np.isinf(g["eps"]), 1e300, g["eps"]), g["mean"].to_numpy())
                    for _, g in sub.groupby("T"))
        shown = [p.text for p in parts if p.holds is not True]
        out.append(Outcome(f"{loss}: max ρ = {fmt_fixed(worst)} over T = {int(sub['T'].min())}…{int(sub['T'].max())}"
                           + "".join(f"; {x}" for x in shown), holds, reading=loss, needs=needs))
    return out


# ----------------------------------------------------------------------------- ST-1c (new, beyond the paper)

#: what each counter of ST-1c keeps fixed against the tree (the claims' statements)
ST1C_WHAT = {"honaker": "Honaker's estimator on the same tree at the same λ (post-processing: the identical ε)",
             "smooth": "the smooth binary mechanism (Andersson & Pagh) at its own pure-ε calibration (the same ε)"}


def _st1c_ratio(tables, counter):
    t = tables["st1c"]
    out = []
    for (loss, e), g in t.groupby(["loss", "eps"], sort=True):
        T = int(g["T"].max())
        at = g[g["T"] == T].set_index("counter")
        reading = f"{loss} ε={_eps_label(e)}"
        if counter not in at.index or "tree" not in at.index:
            out.append(Outcome(f"{reading}: the {counter} or tree run is missing at T = {T}", None, reading=reading,
                               needs=f"the {counter} and tree runs"))
            continue
        r, tree = at.loc[counter], at.loc["tree"]
        n = int(min(r["n"], tree["n"]))
        est, lo, hi = (float(r[k]) for k in ("ratio", "ratio_lo", "ratio_hi"))
        text = (f"{reading}, T = {_pow2(T)}: mean regret {counter}/tree = {fmt_fixed(est, 3)} (95 % paired bootstrap "
                f"{fmt_fixed(lo, 3)} … {fmt_fixed(hi, 3)}); regret {fmt_sig(r['mean'])} ± {fmt_sig(r['sem'])} against "
                f"{fmt_sig(tree['mean'])} ± {fmt_sig(tree['sem'])} (SEM)")
        details = f"{n} seeds; largest T that ran; λ {fmt_sig(r['scale'])} against the tree's {fmt_sig(tree['scale'])}"
        out.append(ratio_outcome(text, est, lo, hi, n, reading=reading, details=details, longer="a larger T or smaller ε",
                                 no_interval=(" (no interval: a non-positive mean regret of the tree)",
                                              "a positive mean regret of the tree (a smaller ε or larger T)")))
    return out


@CLAIMS.claim("ST1c.a", "st1c", BEYOND + "Honaker's estimator (same tree, same λ: the same privacy) lowers PFTAL's "
              "regret against TBAP's tree.",
              "at the largest T, per (loss, ε): the 95 % paired-bootstrap interval (over seeds) of mean regret "
              "Honaker/tree lies below 1 (reproduced), above 1 (not reproduced), else inconclusive",
              needs=("st1c",), details="privacy: " + ST1C_WHAT["honaker"])
def _st1ca(tables, settings):
    return _st1c_ratio(tables, "honaker")


@CLAIMS.claim("ST1c.b", "st1c", BEYOND + "The smooth binary mechanism (its own pure-ε calibration, the same ε) lowers "
              "PFTAL's regret against TBAP's tree.",
              "at the largest T, per (loss, ε): the 95 % paired-bootstrap interval (over seeds) of mean regret "
              "smooth/tree lies below 1 (reproduced), above 1 (not reproduced), else inconclusive",
              needs=("st1c",), details="privacy: " + ST1C_WHAT["smooth"])
def _st1cb(tables, settings):
    return _st1c_ratio(tables, "smooth")


# ----------------------------------------------------------------------------- ST-2


def _st2(tables, loss, lo, hi):
    t = _panel(tables["st2"], loss)
    t = t[np.isfinite(t["eps"])]
    c = _window(t, "eps", 0.5, 20.0)
    parts = [p for p in (range_part("ε grid", t["eps"], 0.5, 20.0, "ε"),) if p is not None]
    parts.append(slope_part(f"ε = {', '.join(f'{x:g}' for x in c['eps'])}", c, "eps", lo=lo, hi=hi,
                            value="excess_mean", sem="excess_sem", seeds="excess_n"))
    return outcome(parts, details=f"T = {int(t['T'].iloc[0])}; {int(t['excess_n'].min())} seeds")


@CLAIMS.claim("ST2.a", "st2", "Strongly convex loss: the cost of privacy (excess regret over non-private) scales as 1/ε.",
              "excess-regret slope over ε ∈ [0.5, 20] in [−1.3, −0.7]", needs=("st2",))
def _st2a(tables, settings):
    return _st2(tables, "sc", -1.3, -0.7)


@CLAIMS.claim("ST2.b", "st2", "Lipschitz loss with H*: the excess regret scales as ε^−1/2.",
              "excess-regret slope over ε ∈ [0.5, 20] in [−0.9, −0.3]", needs=("st2",))
def _st2b(tables, settings):
    if settings.get("h_rule", "hstar") != "hstar":
        raise Inconclusive(f"h_rule = {settings['h_rule']}: the claim is stated for H*", needs="h_rule: hstar")
    return _st2(tables, "gc", -0.9, -0.3)


# ----------------------------------------------------------------------------- ST-3

P_RANGE = (1.0, 64.0)


def _st3(tables, loss, lo, hi):
    t = _panel(tables["st3"], loss)
    c = _curve(t, "p", eps=10.0)
    parts = [p for p in (range_part("p grid", c["p"], *P_RANGE, "p"),) if p is not None]
    parts.append(slope_part(f"ε = 10, p = {', '.join(str(int(x)) for x in c['p'])}", c, "p", lo=lo, hi=hi))
    return outcome(parts, details=f"T = {int(t['T'].iloc[0])}; {int(t['n'].min())} seeds")


@CLAIMS.claim("ST3.a", "st3", "Strongly convex loss: regret grows linearly in the dimension p (Table 1: p log^2.5 T/ε).",
              "ε = 10: slope of regret in p ∈ [1, 64] in [0.8, 1.2]", needs=("st3",))
def _st3a(tables, settings):
    return _st3(tables, "sc", 0.8, 1.2)


@CLAIMS.claim("ST3.b", "st3", "Lipschitz loss: regret grows like √p (Table 1: √(pT log^2.5 T)/ε).",
              "ε = 10: slope of regret in p ∈ [1, 64] in [0.4, 0.8]", needs=("st3",))
def _st3b(tables, settings):
    return _st3(tables, "gc", 0.4, 0.8)


# ----------------------------------------------------------------------------- ST-4


def _st4(tables, rule, hi):
    t = tables["st4"]
    t = t[t["beta_rule"] == rule]
    if t.empty:
        raise Inconclusive(f"no {rule} runs", needs=f"the {rule} β rule run")
    parts = [_fit_window(f"ε={_eps_label(e)}", t, 2.0**10, e, (-math.inf, hi)) if _has(t, e) else _missing(rule, e)
             for e in (100.0, math.inf)]
    return outcome(parts, details=f"T_max = {int(t['T'].max())}; {int(t['n'].min())} seeds")


@CLAIMS.claim("ST4.a", "st4", "Bandit PFTAL, β = p/T^1/4 (adaptive adversary): regret grows no faster than T^3/4 (Thm 6).",
              "non-private and ε = 100: slope over T ∈ [2^10, T_max] ≤ 0.80", needs=("st4",))
def _st4a(tables, settings):
    return _st4(tables, "adaptive", 0.80)


@CLAIMS.claim("ST4.b", "st4", "Bandit PFTAL, β = p/T^1/3 (oblivious adversary): regret grows no faster than T^2/3 (Thm 6).",
              "non-private and ε = 100: slope over T ∈ [2^10, T_max] ≤ 0.72", needs=("st4",))
def _st4b(tables, settings):
    return _st4(tables, "oblivious", 0.72)


# ----------------------------------------------------------------------------- bound


def regret_bound(runs: pd.DataFrame, radius: float = 1.0) -> np.ndarray:
    """ST analogue of the explicit bound (claim U1.a; cardoso2019 reading R8): 2(L+HD)²ℓ/H +
    c_sens·8p(L+2HD)²ℓ^2.5/(Hε) [+ HTρ²/2],
    D = 2ρ the diameter, ℓ = ln T; the privacy term is 0 at ε = ∞, the bias term only for regularised runs."""
    T, H, L, p, eps = (runs[c].to_numpy(dtype=np.float64) for c in ("T", "H", "L", "p", "eps"))
    D, ell = 2.0 * radius, np.log(T)
    regularised = (runs["loss"] == "gc").to_numpy()
    priv = np.where(np.isinf(eps), 0.0, runs["c_sens"].to_numpy() * 8 * p * (L + 2 * H * D) ** 2 * ell**2.5 / (H * eps))
    return 2 * (L + H * D) ** 2 * ell / H + priv + np.where(regularised, H * T * radius**2 / 2, 0.0)


@CLAIMS.claim("U1.a", "st1", "Measured regret stays below the theorems' explicit bound in every full-information run.",
              "regret ≤ bound for every run of ST-1, ST-2 and ST-3", needs=("st1_runs",))
def _u1a(tables, settings):
    frames = [tables[k] for k in ("st1_runs", "st2_runs", "st3_runs") if k in tables and tables[k] is not None and len(tables[k])]
    if not frames:
        raise Inconclusive("no run tables", needs="the run tables st1_runs, st2_runs, st3_runs")
    runs = pd.concat(frames, ignore_index=True)
    bound = regret_bound(runs)
    finite(bound, runs["regret"].to_numpy())
    ratio = runs["regret"].to_numpy() / bound
    i = int(np.argmax(ratio))
    worst = runs.iloc[i]
    margin = float(np.min(bound / np.maximum(runs["regret"].to_numpy(), 1e-300)))
    return Outcome(f"max regret/bound = {fmt_sig(ratio[i])} ({worst['experiment']} {worst['loss']}, T = {int(worst['T'])}, "
                   f"p = {int(worst['p'])}, ε = {_eps_label(worst['eps'])}); smallest margin {fmt_sig(margin)}×",
                   bool(ratio.max() <= 1.0), details=f"{len(runs)} runs")


# ----------------------------------------------------------------------------- privacy


@CLAIMS.claim("P1.a", "privacy", "TBAP and PFTAL are ε-DP as implemented (ST Thm 3, 5): no check finds a violation.",
              "every correct configuration: audit ε lower bound ≤ ε (exact ε ≤ ε where computed), guard silent",
              needs=("privacy",))
def _p1a(tables, settings):
    return privacy_correct(tables["privacy"])


@CLAIMS.claim("P1.b", "privacy", "The privacy checks can fail: every planted bug is caught.",
              "every planted configuration caught (audit ε lower bound > ε, or the guard fires)", needs=("privacy",))
def _p1b(tables, settings):
    return privacy_planted(tables["privacy"])


def evaluate(tables, settings):
    return CLAIMS.evaluate(tables, settings)


# ----------------------------------------------------------------------------- findings


def _mean_at(table: pd.DataFrame, **where) -> float:
    c = _curve(table, next(iter(where)), **where)
    return float(c["mean"].iloc[0]) if len(c) == 1 else math.nan


def _st1_finding(st1: pd.DataFrame) -> Finding | None:
    sc = st1[st1["loss"] == "sc"]
    if sc.empty or not np.isinf(sc["eps"]).any():
        return None
    finite_eps = sorted(e for e in sc["eps"].unique() if math.isfinite(e))
    if not finite_eps:
        return None
    e = min(finite_eps, key=lambda x: abs(math.log(x)))  # the ε closest to 1
    Ts = sorted(sc["T"].unique())
    t0, t1 = Ts[0], Ts[-1]
    p0, p1 = _mean_at(sc, T=t0, eps=e), _mean_at(sc, T=t1, eps=e)
    n1 = _mean_at(sc, T=t1, eps=math.inf)
    if not all(math.isfinite(v) for v in (p0, p1, n1)) or min(p0, n1) <= 0:
        return None
    price = f"at T = {int(t1)} it is {fmt_sig(p1 / n1)}× the non-private regret ({fmt_sig(n1)})."
    if t0 == t1:  # one horizon run: no growth to state
        return Finding(f"Squared loss on the Uber disk: PFTAL's regret at ε = {e:g} and T = {int(t1)} is {fmt_sig(p1)}; "
                       + price, "st1")
    grow = (math.log(t1) / math.log(t0)) ** 2.5
    return Finding(f"Squared loss on the Uber disk: from T = {int(t0)} to {int(t1)} PFTAL's regret at ε = {e:g} goes from "
                   f"{fmt_sig(p0)} to {fmt_sig(p1)} (×{fmt_sig(p1 / p0)}; ln^2.5 T grows ×{fmt_sig(grow)}), and " + price, "st1")


def _st4_finding(st4: pd.DataFrame) -> Finding | None:
    parts = []
    for rule, bound in (("oblivious", "2/3"), ("adaptive", "3/4")):
        c = _curve(st4[st4["beta_rule"] == rule], "T", eps=math.inf)
        if len(c) >= 2 and (c["mean"] > 0).all():
            parts.append(f"{fmt_fixed(loglog_slope(c['T'], c['mean']), 2)} with β = p/T^{'1/3' if rule == 'oblivious' else '1/4'} "
                         f"(Thm 6 bounds the rate by {bound})")
    if not parts:
        return None
    return Finding("Without privacy, bandit FTAL's regret grows over T with log–log slope " + " and ".join(parts)
                   + "; on the smooth squared loss exploring costs about β²T/2.", "st4")


def _u1_finding(tables) -> Finding | None:
    frames = [tables[k] for k in ("st1_runs", "st2_runs", "st3_runs") if k in tables and tables[k] is not None and len(tables[k])]
    if not frames:
        return None
    runs = pd.concat(frames, ignore_index=True)
    regret = runs["regret"].to_numpy(dtype=np.float64)
    pos = regret > 0
    if not pos.any():
        return None
    margin = float(np.min(regret_bound(runs)[pos] / regret[pos]))
    return Finding(f"Over all {len(runs)} full-information runs the explicit bound of C-U1 is at least {fmt_sig(margin)}× the "
                   "measured regret (the claim needs 1×).", "st1")


def findings(tables, claims, settings) -> list[Finding]:
    """Findings entry point (protocol): the cost of privacy on ST-1, the bandit slopes of ST-4, the bound's margin."""
    out = []
    if tables.get("st1") is not None and len(tables["st1"]):
        out.append(_st1_finding(tables["st1"]))
    if tables.get("st4") is not None and len(tables["st4"]):
        out.append(_st4_finding(tables["st4"]))
    out.append(_u1_finding(tables))
    if tables.get("st0c_ratio") is not None and len(tables["st0c_ratio"]):
        out.append(_st0c_finding(tables["st0c_ratio"]))
    if tables.get("st1c") is not None and len(tables["st1c"]):
        out.append(_st1c_finding(tables["st1c"]))
    return [f for f in out if f is not None]


#: the counters' names in sentences (beyond the paper, issue 27)
_COUNTER_NAMES = {"honaker": "Honaker", "smooth": "smooth binary", "sqrt": "full square root",
                  "sqrt_banded": "banded square root"}


def _st0c_finding(r: pd.DataFrame) -> Finding | None:
    """Beyond the paper: each counter's mean-over-t prefix-sum variance against the 2010 tree's, at equal privacy."""
    parts = []
    for g, x in r.groupby("guarantee", sort=False):
        cells = [f"{_COUNTER_NAMES.get(c, c)} ×{fmt_fixed(float(row['ratio']), 3)} (formula "
                 f"{fmt_fixed(float(row['ratio_formula']), 3)})" for c, row in x.set_index("counter").iterrows()
                 if c != "tree" and math.isfinite(float(row["ratio"]))]
        if cells:
            parts.append(("pure ε: " if g == "laplace" else "(ε, δ): ") + ", ".join(cells))
    if not parts:
        return None
    return Finding("(beyond the paper) Prefix-sum noise variance at equal privacy, mean over t, relative to the "
                   "2010 binary tree: " + "; ".join(parts) + ".", "st0c")


def _st1c_finding(t: pd.DataFrame) -> Finding | None:
    """Beyond the paper: PFTAL's regret with each counter against the tree's, at the largest T and the ε closest to 1."""
    t_max = t["T"].max()
    last = t[t["T"] == t_max]
    if last.empty:
        return None
    e = min(last["eps"].unique(), key=lambda x: abs(math.log(x)))
    parts = []
    for loss, x in last[last["eps"] == e].groupby("loss", sort=True):
        cells = [f"{_COUNTER_NAMES.get(c, c)} ×{fmt_fixed(float(row['ratio']), 3)} (95 % "
                 f"{fmt_fixed(float(row['ratio_lo']), 3)}–{fmt_fixed(float(row['ratio_hi']), 3)})"
                 for c, row in x.set_index("counter").iterrows() if c != "tree"]
        if cells:
            parts.append(f"{'squared' if loss == 'sc' else 'Lipschitz'} loss: " + ", ".join(cells))
    if not parts:
        return None
    n = int(last["n"].min())
    return Finding(f"(beyond the paper) PFTAL at ε = {e:g}, T = {int(t_max)}, same privacy: regret relative to the "
                   f"2010 tree's (TBAP), paired over {n} seeds — " + "; ".join(parts) + ".", "st1c")
