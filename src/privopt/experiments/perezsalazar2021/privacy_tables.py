"""Figure 8's privacy bookkeeping: certified against nominal ε, and the exact T-PRIV table
(perezsalazar2021 readings R3, R22).

* :func:`cert_grid`: ε_cert of FI-DP (k ∈ ks, T ∈ Ts: N = T draws per expert) and of BanditDP (N =
  ⌈2γT⌉ draws, γ = min(1/2, c_γ T^{−1/3})) over a log grid of nominal ε
  (:func:`privopt.online.osm.privacy.eps_cert`); the largest certified nominal ε of each curve is where
  the curve leaves the identity.  Beside it (beyond the paper, issue 39; perezsalazar2021 reading R23)
  ``eps_exact``: the ε of the same k·N draws under optimal composition of 2η-DP steps
  (:func:`~privopt.online.osm.privacy.eps_cert_exact` with ``bounded_range=False``: Kairouz, Oh & Viswanath,
  valid for the adaptive draws of k > 1 experts), and ``certified_exact`` (eps_exact ≤ ε_nominal).
* :func:`tpriv_table`: the exact output law of FI-DP on the T-PRIV instance
  (:mod:`privopt.online.osm.enumeration`) at fixed η and at the paper's η for a few ε, once as
  implemented and once with the planted bug (gains ×``bug_scale``: sensitivity > 1), which the bound
  check must catch.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from privopt.online.osm import parameters as par
from privopt.online.osm.enumeration import TPRIV, tpriv_row
from privopt.online.osm.privacy import eps_cert, eps_cert_exact

__all__ = ["cert_grid", "tpriv_table"]


def cert_grid(settings: Mapping[str, Any]) -> pd.DataFrame:
    cfg, delta = settings["group"], float(settings["delta"])
    grid = np.geomspace(float(cfg["eps_min"]), float(cfg["eps_max"]), int(cfg["points"]))
    rows = []
    for k in cfg["fi_ks"]:
        for T in cfg["T"]:
            for e in grid:
                eta = par.fi_eta(float(e), int(k), int(T), delta)
                rows.append({"algo": "FI-DP", "k": int(k), "T": int(T), "gamma": np.nan, "draws": int(T),
                             "eps_nominal": float(e), "eta": eta, "eps_cert": eps_cert(eta, int(T), int(k), delta),
                             "eps_exact": eps_cert_exact(eta, int(T), int(k), delta, bounded_range=False)})
    for k in cfg["bandit_ks"]:
        for T in cfg["T"]:
            g = par.practical_gamma(int(T), float(cfg["c_gamma"]))
            N = int(np.ceil(2 * g * int(T)))
            for e in grid:
                eta = par.bandit_eta(float(e), int(k), int(T), delta, g)
                rows.append({"algo": "BanditDP", "k": int(k), "T": int(T), "gamma": g, "draws": N,
                             "eps_nominal": float(e), "eta": eta, "eps_cert": eps_cert(eta, N, int(k), delta),
                             "eps_exact": eps_cert_exact(eta, N, int(k), delta, bounded_range=False)})
    frame = pd.DataFrame(rows)
    frame["certified"] = frame["eps_cert"] <= frame["eps_nominal"] * (1 + 1e-12)
    frame["certified_exact"] = frame["eps_exact"] <= frame["eps_nominal"] * (1 + 1e-12)
    frame.insert(0, "delta", delta)
    return frame


def tpriv_table(settings: Mapping[str, Any]) -> pd.DataFrame:
    cfg, delta = settings["tpriv"], float(settings["delta"])
    rows = []
    for variant, scale in (("as implemented", 1.0), (f"planted bug: gains x{cfg['bug_scale']:g}", float(cfg["bug_scale"]))):
        for eta in cfg["etas"]:
            rows.append({"variant": variant, "rate": "fixed", **tpriv_row(float(eta), gain_scale=scale)})
        for e in cfg["eps"]:
            eta = par.fi_eta(float(e), TPRIV["k"], TPRIV["T"], delta)
            rows.append({"variant": variant, "rate": "paper", **tpriv_row(eta, float(e), gain_scale=scale)})
    frame = pd.DataFrame(rows)
    frame.insert(2, "delta", delta)
    return frame
