"""Plain-Python reference of the online submodular maximisation algorithms (tests only).

One replica at a time, written as the paper states the algorithms: Hedge's distribution recomputed
from the cumulative gains every round (:func:`privopt.online.osm.hedge.hedge_distribution`), marginal
gains from the set function (:func:`privopt.online.osm.coverage.marginal_gains`).  It consumes the
random numbers of a :class:`privopt.fastrng.FastGenerator` in the canonical order of
:mod:`privopt.online.osm.kernels`, so the kernels must make the same plays.
"""

from __future__ import annotations

import numpy as np

from privopt.online.osm.coverage import Stream, marginal_gains, set_value
from privopt.online.osm.hedge import hedge_distribution

__all__ = ["fi_reference", "bandit_reference"]


def _pick(x: np.ndarray, u: float) -> int:
    """Inverse-CDF draw from the distribution ``x`` with uniform ``u``."""
    c = np.cumsum(x)
    j = int(np.searchsorted(c, u * c[-1], side="right"))
    return min(j, x.size - 1)


def fi_reference(P, stream: Stream, k: int, T: int, eta: float, gen, s: int = 0) -> dict:
    """FI-DP (Algorithm 2) on data stream ``s``: every draw, ALG, G, realised and expected gains."""
    n = P.shape[1]
    G = np.zeros((k, n))
    plays = np.zeros((T, k), dtype=np.int64)
    real, xg, xg2 = np.zeros(k), np.zeros(k), np.zeros(k)
    alg = 0.0
    for t in range(T):
        ids, wts = stream.round(s, t)
        picks = []
        for i in range(k):
            x = hedge_distribution(eta, G[i])
            a = _pick(x, gen.random())
            g = marginal_gains(P, ids, wts, picks)  # marginals on the picks of experts 1..i-1
            xg[i] += float(x @ g)
            xg2[i] += float(x @ g**2)
            real[i] += g[a]
            G[i] += g
            picks.append(a)
            plays[t, i] = a
        alg += set_value(P, ids, wts, picks)
    return {"plays": plays, "alg": alg, "G": G, "realised": real, "expected": xg, "expected_sq": xg2}


def bandit_reference(P, stream: Stream, k: int, T: int, eta: float, gamma: float, coins, gen, s: int = 0,
                     redraw_always: bool = False) -> dict:
    """BanditDP (Algorithm 3; B1-NAIVE with ``redraw_always``) on data stream ``s``."""
    n = P.shape[1]
    G = np.zeros((k, n))
    G_true = np.zeros((k, n))
    real_true = np.zeros(k)
    cur = [_pick(hedge_distribution(eta, G[i]), gen.random()) for i in range(k)]
    alg, M, explores, draws = 0.0, 0, [], 1
    for t in range(T):
        ids, wts = stream.round(s, t)
        explore = coins.random() < gamma
        for i in range(k):  # true marginals on the prefixes of the frozen set (simulator side)
            g = marginal_gains(P, ids, wts, cur[:i])
            G_true[i] += g
            real_true[i] += g[cur[i]]
        if explore:
            i = int(coins.random() * k)
            a = int(coins.random() * n)
            y = set_value(P, ids, wts, cur[:i] + [a])
            alg += y
            G[i, a] += y
            M += 1
            explores.append(t)
        else:
            alg += set_value(P, ids, wts, cur)
        if explore or redraw_always:
            cur = [_pick(hedge_distribution(eta, G[i]), gen.random()) for i in range(k)]
            draws += 1
    return {"alg": alg, "M": M, "G": G, "G_true": G_true, "realised_true": real_true, "explores": explores,
            "draws": draws}
