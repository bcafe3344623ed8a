"""Claims ST2.a–b (excess regret against ε), ST3.a–b (regret against p) and ST4.a–b (bandit PFTAL against T)."""

from __future__ import annotations

import math

import numpy as np

from privopt.pipeline.claims import Inconclusive
from privopt.pipeline.parts import outcome, range_part, slope_part
from privopt.experiments.smith2013.claims.deciding import (CLAIMS, _curve, _eps_label, _fit_window, _has, _missing,
                                                           _panel, _window)


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
