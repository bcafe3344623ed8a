"""The claim set of Smith & Thakurta and the curve helpers its figures' claims share (the rules:
:mod:`privopt.experiments.smith2013.claims`)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from privopt.pipeline.claims import ClaimSet, Inconclusive
from privopt.pipeline.parts import Part, slope_part


CLAIMS = ClaimSet("smith2013")
BEYOND = "(beyond the paper) "


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
