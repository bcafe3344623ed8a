"""The checkable claims of spec online-convex-and-submodular-min.md §4 for Smith & Thakurta (C-ST0 … C-ST4, C-U1),
and the privacy checks.

The paper has no experiments: each claim is a prediction of its theorems on the new figures, with the
spec's tolerances (calibrated on a prototype at paper-like scale).  Slopes are least-squares fits of
log(seed-mean) on log(x) over the stated range (:func:`privopt.experiments.stats.loglog_slope`).  The
spec gives one set of thresholds; they are used at every scale, and a claim is *not evaluated* when
what ran lacks the points it speaks about (e.g. fewer than two horizons in its fit range).  A claim
that does not hold is reported with its numbers.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from privopt.experiments.claims import ClaimSet, NotEvaluated, Outcome, finite, fmt_fixed, fmt_sig
from privopt.experiments.protocol import Finding
from privopt.experiments.stats import loglog_slope, spearman

__all__ = ["CLAIMS", "evaluate", "findings", "regret_bound"]

CLAIMS = ClaimSet("smith2013")


def _eps_label(e: float) -> str:
    return "∞" if math.isinf(e) else f"{e:g}"


def _curve(table: pd.DataFrame, x: str, **where) -> pd.DataFrame:
    sub = table
    for k, v in where.items():
        sub = sub[np.isclose(sub[k], v)] if isinstance(v, float) and math.isfinite(v) else sub[sub[k] == v]
    return sub.sort_values(x)


def _fit(table: pd.DataFrame, x: str, lo: float, hi: float, value: str = "mean", **where) -> tuple[float, list]:
    """Slope of log(value) on log(x) over x ∈ [lo, hi]; NotEvaluated with fewer than two points or a value ≤ 0."""
    c = _curve(table, x, **where)
    c = c[(c[x] >= lo) & (c[x] <= hi)]
    if len(c) < 2:
        raise NotEvaluated(f"fewer than two values of {x} in [{lo:g}, {hi:g}] for {where}")
    if (c[value] <= 0).any():
        raise NotEvaluated(f"a {value} ≤ 0 in the fit range for {where}: no log–log slope")
    finite(c[value].to_numpy())
    return loglog_slope(c[x], c[value]), list(c[x])


def _panel(table: pd.DataFrame, loss: str) -> pd.DataFrame:
    sub = table[table["loss"] == loss]
    if sub.empty:
        raise NotEvaluated(f"no {loss} runs")
    return sub


# ----------------------------------------------------------------------------- ST-0


@CLAIMS.claim("ST0.a", "st0", "TBAP's error has the exact second moment E‖v̂_t − v_t‖² = popcount(t)·d(d+1)·λ².",
              "Σ_t mean ‖v̂_t − v_t‖² / Σ_t popcount(t)d(d+1)λ² within 1 ± 0.05 for every d", needs=("st0",))
def _st0a(tables, settings):
    t = tables["st0"]
    out = []
    for d, g in t.groupby("d"):
        ratio = float(g["mean_sq"].sum() / g["theory_sq"].sum())
        finite(ratio)
        worst = g.groupby("popcount").apply(lambda x: x["mean_sq"].sum() / x["theory_sq"].sum(), include_groups=False)
        out.append(Outcome(f"d = {d}: ratio {fmt_fixed(ratio, 4)} ({int(g['n'].iloc[0])} trees, T = {len(g)})",
                           abs(ratio - 1) <= 0.05, reading=f"d={d}",
                           details=f"per popcount class: {fmt_fixed(worst.min(), 3)}–{fmt_fixed(worst.max(), 3)}"))
    return out


# ----------------------------------------------------------------------------- ST-1

FIT_LO = 2.0**12


@CLAIMS.claim("ST1.a", "st1", "Strongly convex loss: PFTAL's regret grows only polylogarithmically in T "
              "(Thm 4: O(p log^2.5 T/ε)); non-private FTAL regret stays O(log T).",
              "slope over T ∈ [2^12, T_max] in [−0.05, 0.30] for finite ε ≥ 0.3, ≤ 0.45 for ε = 0.1; "
              "non-private regret < 5 at every T", needs=("st1",))
def _st1a(tables, settings):
    t = _panel(tables["st1"], "sc")
    t_max = float(t["T"].max())
    parts, ok = [], True
    for e in sorted(t["eps"].unique()):
        if math.isinf(e):
            worst = float(t[np.isinf(t["eps"])]["mean"].max())
            finite(worst)
            parts.append(f"non-private max {fmt_sig(worst)}")
            ok &= worst < 5
            continue
        if e < 0.1 - 1e-12:
            continue
        slope, xs = _fit(t, "T", FIT_LO, t_max, eps=float(e))
        hi = 0.45 if e < 0.3 - 1e-12 else 0.30
        lo = -math.inf if e < 0.3 - 1e-12 else -0.05
        ok &= lo <= slope <= hi
        parts.append(f"ε={_eps_label(e)}: {fmt_fixed(slope)}")
    return Outcome("; ".join(parts), ok, details=f"fit over T = {', '.join(str(int(x)) for x in xs)}")


@CLAIMS.claim("ST1.b", "st1", "Strongly convex loss: regret(T)/ln^2.5 T does not grow once T is past the burn-in.",
              "regret/ℓ^2.5 non-increasing (10 % tolerance) over T ≥ max(2^10, 2^11/ε), every finite ε",
              needs=("st1",))
def _st1b(tables, settings):
    t = _panel(tables["st1"], "sc")
    parts, ok, used = [], True, 0
    for e in sorted(x for x in t["eps"].unique() if math.isfinite(x)):
        c = _curve(t, "T", eps=float(e))
        c = c[c["T"] >= max(2.0**10, 2.0**11 / e)]
        if len(c) < 2:
            continue
        used += 1
        r = (c["mean"] / np.log(c["T"]) ** 2.5).to_numpy()
        finite(r)
        worst = float(np.max(r[1:] / r[:-1]))
        ok &= worst <= 1.1
        parts.append(f"ε={_eps_label(e)}: {fmt_sig(r[0])} → {fmt_sig(r[-1])} (max step ×{fmt_fixed(worst, 2)})")
    if not used:
        raise NotEvaluated("no ε has two horizons past its burn-in")
    return Outcome("; ".join(parts), ok)


@CLAIMS.claim("ST1.c", "st1", "Lipschitz loss (regularised PFTAL with H*): regret grows like √T.",
              "slope over T ∈ [2^12, T_max] in [0.35, 0.65] for ε ∈ {1, 3, 10} and non-private", needs=("st1",))
def _st1c(tables, settings):
    t = _panel(tables["st1"], "gc")
    t_max = float(t["T"].max())
    parts, ok, used = [], True, 0
    for e in (1.0, 3.0, 10.0, math.inf):
        if not (np.isclose(t["eps"], e).any() or (math.isinf(e) and np.isinf(t["eps"]).any())):
            continue
        slope, xs = _fit(t, "T", FIT_LO, t_max, eps=e)
        used += 1
        ok &= 0.35 <= slope <= 0.65
        parts.append(f"ε={_eps_label(e)}: {fmt_fixed(slope)}")
    if not used:
        raise NotEvaluated("none of ε = 1, 3, 10, ∞ ran")
    return Outcome("; ".join(parts), ok, details=f"fit over T = {', '.join(str(int(x)) for x in xs)}")


@CLAIMS.claim("ST1.d", "st1", "More privacy costs more: at every horizon, mean regret is non-increasing in ε.",
              "Spearman ρ(ε, mean regret) ≤ −0.9 over the ε grid (∞ included) at every T ≥ 2^10, both losses",
              needs=("st1",))
def _st1d(tables, settings):
    t = tables["st1"]
    out = []
    for loss in ("sc", "gc"):
        sub = t[(t["loss"] == loss) & (t["T"] >= 2**10)]
        if sub.empty:
            continue
        rhos = []
        for T, g in sub.groupby("T"):
            rho = spearman(np.where(np.isinf(g["eps"]), 1e300, g["eps"]), g["mean"].to_numpy())
            finite(rho)
            rhos.append((int(T), rho))
        worst = max(r for _, r in rhos)
        out.append(Outcome(f"{loss}: max ρ = {fmt_fixed(worst)} over T = {rhos[0][0]}…{rhos[-1][0]}", worst <= -0.9,
                           reading=loss))
    if not out:
        raise NotEvaluated("no horizon T ≥ 2^10 ran")
    return out


# ----------------------------------------------------------------------------- ST-2


def _st2(tables, loss, lo, hi):
    t = _panel(tables["st2"], loss)
    t = t[np.isfinite(t["eps"])]
    slope, xs = _fit(t, "eps", 0.5, 20.0, value="excess_mean")
    return Outcome(f"slope {fmt_fixed(slope)} over ε = {', '.join(f'{x:g}' for x in xs)} (T = {int(t['T'].iloc[0])})",
                   lo <= slope <= hi)


@CLAIMS.claim("ST2.a", "st2", "Strongly convex loss: the cost of privacy (excess regret over non-private) scales as 1/ε.",
              "excess-regret slope over ε ∈ [0.5, 20] in [−1.3, −0.7]", needs=("st2",))
def _st2a(tables, settings):
    return _st2(tables, "sc", -1.3, -0.7)


@CLAIMS.claim("ST2.b", "st2", "Lipschitz loss with H*: the excess regret scales as ε^−1/2.",
              "excess-regret slope over ε ∈ [0.5, 20] in [−0.9, −0.3]", needs=("st2",))
def _st2b(tables, settings):
    if settings.get("h_rule", "hstar") != "hstar":
        raise NotEvaluated(f"h_rule = {settings['h_rule']}: the claim is stated for H*")
    return _st2(tables, "gc", -0.9, -0.3)


# ----------------------------------------------------------------------------- ST-3


def _st3(tables, loss, lo, hi):
    t = _panel(tables["st3"], loss)
    slope, xs = _fit(t, "p", 0.0, math.inf, eps=10.0)
    return Outcome(f"slope {fmt_fixed(slope)} over p = {', '.join(str(int(x)) for x in xs)} (ε = 10)", lo <= slope <= hi)


@CLAIMS.claim("ST3.a", "st3", "Strongly convex loss: regret grows linearly in the dimension p (Table 1: p log^2.5 T/ε).",
              "ε = 10: slope of regret in p in [0.8, 1.2]", needs=("st3",))
def _st3a(tables, settings):
    return _st3(tables, "sc", 0.8, 1.2)


@CLAIMS.claim("ST3.b", "st3", "Lipschitz loss: regret grows like √p (Table 1: √(pT log^2.5 T)/ε).",
              "ε = 10: slope of regret in p in [0.4, 0.8]", needs=("st3",))
def _st3b(tables, settings):
    return _st3(tables, "gc", 0.4, 0.8)


# ----------------------------------------------------------------------------- ST-4


def _st4(tables, rule, hi):
    t = tables["st4"]
    t = t[t["beta_rule"] == rule]
    if t.empty:
        raise NotEvaluated(f"no {rule} runs")
    parts, ok = [], True
    for e in (100.0, math.inf):
        slope, xs = _fit(t, "T", 2.0**10, float(t["T"].max()), eps=e)
        ok &= slope <= hi
        parts.append(f"ε={_eps_label(e)}: {fmt_fixed(slope)}")
    return Outcome("; ".join(parts), ok, details=f"fit over T = {', '.join(str(int(x)) for x in xs)}")


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
    """ST analogue of the explicit bound (spec C-U1): 2(L+HD)²ℓ/H + c_sens·8p(L+2HD)²ℓ^2.5/(Hε) [+ HTρ²/2],
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
    t = tables["privacy"]
    c = t[t["variant"] == "correct"]
    parts = [f"{r.audit}: {r.result}" + (f" (ε_lb {fmt_fixed(r.eps_lb)}, exact {fmt_fixed(r.exact_eps)})"
                                          if math.isfinite(r.eps_lb) else f" ({r.event})") for r in c.itertuples()]
    exact_ok = bool((c["exact_eps"].dropna() <= c["claimed_eps"][c["exact_eps"].notna()] + 1e-12).all())
    return Outcome("; ".join(parts), bool((c["result"] == "pass").all()) and exact_ok)


@CLAIMS.claim("P1.b", "privacy", "The privacy checks can fail: every planted bug is caught.",
              "every planted configuration caught (audit ε lower bound > ε, or the guard fires)", needs=("privacy",))
def _p1b(tables, settings):
    t = tables["privacy"]
    c = t[t["variant"] == "planted"]
    parts = [f"{r.audit}: {r.result}" + (f" (ε_lb {fmt_fixed(r.eps_lb)}, exact {fmt_fixed(r.exact_eps)})"
                                          if math.isfinite(r.eps_lb) else "") for r in c.itertuples()]
    return Outcome("; ".join(parts), bool((c["result"] == "caught").all()))


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
    return [f for f in out if f is not None]
