"""The report's findings for Smith & Thakurta: the cost of privacy on ST-1, the bandit slopes of ST-4, the
bound's margin, and (beyond the paper) the counters of ST-0c and ST-1c."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from privopt.pipeline.claims import fmt_fixed, fmt_sig
from privopt.pipeline.protocol import Finding
from privopt.pipeline.stats import loglog_slope
from privopt.experiments.smith2013.claims.deciding import _curve
from privopt.experiments.smith2013.claims.bound_privacy import regret_bound


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
