"""Claim U1.a (regret below the theorems' explicit bound) and the privacy claims P1.a–b."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privopt.pipeline.claims import Inconclusive, Outcome, finite, fmt_sig
from privopt.pipeline.parts import privacy_correct, privacy_planted
from privopt.experiments.smith2013.claims.deciding import CLAIMS, _eps_label


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
              "every planted configuration caught (audit ε lower bound > ε, or the guard fires); every subtle one caught "
              "or its exact ε above ε", needs=("privacy",))
def _p1b(tables, settings):
    return privacy_planted(tables["privacy"])
