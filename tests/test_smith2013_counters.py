"""Smith & Thakurta figure ST-0c (new, beyond the paper): the continual counters' tables and claims ST0c.a–b.

The frames are built from exact Gaussian draws of each counter's formula variance (no numba kernel), so the
claims read true; a planted wrong variance (the formula off by 20 %) and a planted Honaker slower than the tree
must read false."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest

from privopt.experiments.smith2013 import claims as claims_mod
from privopt.experiments.smith2013 import tables
from privopt.mechanisms.counting import make_counter, noise_variance
from privopt.pipeline.claims import NOT_REPRODUCED, REPRODUCED
from privopt.experiments.smith2013.paper import PAPER

ST0C = PAPER.experiment("st0c")

T, P, DRAWS = 64, 3, 60
LIST = {"laplace": ("tree", "honaker", "smooth"), "gaussian": ("tree", "honaker", "sqrt", "sqrt_banded", "smooth")}


def _frames(scale_var=None, seed=0):
    """Runs and per-seed frames as st0c_job writes them, the noise drawn N(0, Var) independently per t (the claims
    do not need the shared nodes); ``scale_var[(g, c)]`` multiplies the drawn variance (a planted bug)."""
    rng = np.random.default_rng(seed)
    runs, per_seed = [], []
    for g, names in LIST.items():
        for c in names:
            name = "sqrt" if c.startswith("sqrt") else c
            ctr = make_counter(name, T, P, 1.0, 1.0, 1e-6 if g == "gaussian" else None, noise=g,
                               bands=8 if c == "sqrt_banded" else None)
            var = noise_variance(ctr)
            drawn = var * (scale_var or {}).get((g, c), 1.0)
            z = rng.standard_normal((DRAWS, T, P)) * np.sqrt(drawn)[None, :, None]
            sq = np.square(z).sum(axis=2)
            runs.append(pd.DataFrame({"guarantee": g, "counter": c, "bands": ctr.bands, "T": T, "p": P,
                                      "t": np.arange(1, T + 1), "n": DRAWS, "scale": ctr.scale, "var": var,
                                      "sum_sq": sq.sum(axis=0), "sum_y2": ((sq / P) ** 2).sum(axis=0)}))
            per_seed += [{"guarantee": g, "counter": c, "seed": s, "w": float(sq[s].mean() / P)} for s in range(DRAWS)]
    return {"runs": pd.concat(runs, ignore_index=True), "seeds": pd.DataFrame(per_seed)}


def _claims(frames):
    out = tables.st0c_tables(ST0C, frames, {})
    return out, {c.claim + "|" + c.reading: c for c in claims_mod.CLAIMS.evaluate(out, {}) if c.claim.startswith("ST0c")}


def test_st0c_tables_columns_and_exact_ratios():
    out, _ = _claims(_frames())
    assert list(out["st0c"].columns) == ["guarantee", "counter", "bands", "T", "p", "t", "n", "scale", "var", "mean_sq",
                                         "ratio", "rms", "rms_formula", "nu", "tol_lo", "tol_hi"]
    assert list(out["st0c_ratio"].columns) == ["guarantee", "counter", "n", "mean_var", "sem", "mean_var_formula",
                                               "ratio", "ratio_lo", "ratio_hi", "ratio_se_log", "ratio_formula"]
    r = out["st0c_ratio"].set_index(["guarantee", "counter"])
    assert r.loc[("gaussian", "tree"), "ratio"] == 1.0 and r.loc[("laplace", "tree"), "ratio_formula"] == 1.0
    assert r.loc[("gaussian", "honaker"), "ratio_formula"] < 1.0
    g = out["st0c"]
    assert (g.loc[g["guarantee"] == "gaussian", "nu"] == DRAWS * P).all()  # the exact χ² law
    assert (g["tol_lo"] < 1).all() and (g["tol_hi"] > 1).all()


def test_st0c_claims_true_on_the_formula_and_false_on_a_planted_variance():
    _, ok = _claims(_frames())
    assert {c.verdict for k, c in ok.items()} == {REPRODUCED}, {k: c.measured for k, c in ok.items()}
    assert len([k for k in ok if k.startswith("ST0c.a")]) == 8 and len([k for k in ok if k.startswith("ST0c.b")]) == 2
    _, bad = _claims(_frames({("gaussian", "sqrt"): 1.2}))
    assert bad["ST0c.a|gaussian sqrt"].verdict == NOT_REPRODUCED
    assert bad["ST0c.a|gaussian tree"].verdict == REPRODUCED


def test_st0c_b_fails_when_honaker_is_not_what_its_formula_says():
    _, bad = _claims(_frames({("laplace", "honaker"): 1.5}))
    assert bad["ST0c.b|laplace"].verdict == NOT_REPRODUCED and bad["ST0c.b|gaussian"].verdict == REPRODUCED
    frames = _frames()
    runs = frames["runs"]
    hon = (runs["counter"] == "honaker") & (runs["guarantee"] == "gaussian")
    runs.loc[hon, "var"] = runs.loc[hon, "var"] * 3  # a formula above the tree's
    _, bad = _claims(frames)
    assert bad["ST0c.b|gaussian"].verdict == NOT_REPRODUCED


@functools.lru_cache(maxsize=1)
def _good():
    return tables.st0c_tables(ST0C, _frames(), {})


def good_st0c_tables() -> dict:
    """ST-0c tables as predicted (the claims read true): for tests/test_smith2013.py's table set."""
    return {k: v.copy() for k, v in _good().items()}
