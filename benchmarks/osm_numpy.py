"""Plain-numpy batched versions of FI-DP and BanditDP (the design's prototype; benchmarks only).

All replicas of one configuration in one state array
``G[R, k, n]`` with a per-replica η; per round one Gumbel-max draw for every expert of every replica
(``argmax(η·G + Gumbel)``, Gumbel noise drawn in chunks of rounds), then a k-step loop of vectorised
marginal computations.  The same quantities as the numba kernels are recorded (ALG, G, realised and
expected gains), so ``benchmarks/bench_online_submodular.py`` times equal work.  Random numbers come
from a numpy Generator: the plays differ from the kernels', the laws are the same.
"""

from __future__ import annotations

import numpy as np

__all__ = ["fi_numpy", "bandit_numpy"]


def fi_numpy(P, types, stream_of, k: int, T: int, eta, rng: np.random.Generator, chunk: int = 1000) -> dict:
    """FI-DP / SG-NP / UNIF for every replica (rates ``eta``) on single-type streams ``types[stream_of[r]]``."""
    P = np.asarray(P, dtype=float)
    eta = np.asarray(eta, dtype=float)
    R, n = eta.size, P.shape[1]
    G = np.zeros((R, k, n))
    alg = np.zeros(R)
    real, xg, xg2 = np.zeros((R, k)), np.zeros((R, k)), np.zeros((R, k))
    rows = np.arange(R)
    for t0 in range(0, T, chunk):
        gum = rng.gumbel(size=(min(chunk, T - t0), R, k, n))
        for dt in range(gum.shape[0]):
            t = t0 + dt
            z = eta[:, None, None] * G
            picks = np.argmax(z + gum[dt], axis=2)  # (R, k)
            z -= z.max(axis=2, keepdims=True)
            x = np.exp(z)
            x /= x.sum(axis=2, keepdims=True)
            row = P[types[stream_of, t]]  # (R, n)
            unc = np.ones(R)
            chosen = np.zeros((R, n), dtype=bool)
            for i in range(k):
                g = unc[:, None] * row
                g[chosen] = 0.0
                xg[:, i] += np.einsum("rn,rn->r", x[:, i], g)
                xg2[:, i] += np.einsum("rn,rn->r", x[:, i], g * g)
                a = picks[:, i]
                real[:, i] += g[rows, a]
                G[:, i] += g
                new = ~chosen[rows, a]
                unc = np.where(new, unc * (1.0 - row[rows, a]), unc)
                chosen[rows, a] = True
            alg += 1.0 - unc
    return {"alg": alg, "G": G, "realised": real, "expected": xg, "expected_sq": xg2}


def bandit_numpy(P, types, stream_of, k: int, T: int, eta, gamma: float, rng: np.random.Generator,
                 chunk: int = 1000) -> dict:
    """BanditDP / SG-BANDIT-NP for every replica, with the simulator-side true marginals (Lemma 2)."""
    P = np.asarray(P, dtype=float)
    eta = np.asarray(eta, dtype=float)
    R, n = eta.size, P.shape[1]
    rows = np.arange(R)
    G = np.zeros((R, k, n))
    G_true = np.zeros((R, k, n))
    real_true = np.zeros((R, k))
    alg = np.zeros(R)
    M = np.zeros(R, dtype=np.int64)
    cur = np.argmax(rng.gumbel(size=(R, k, n)), axis=2)
    for t0 in range(0, T, chunk):
        m = min(chunk, T - t0)
        coin = rng.random((m, R)) < gamma
        which = rng.integers(0, k, size=(m, R))
        item = rng.integers(0, n, size=(m, R))
        for dt in range(m):
            row = P[types[stream_of, t0 + dt]]
            unc = np.ones(R)
            chosen = np.zeros((R, n), dtype=bool)
            for i in range(k):  # true marginals on the prefixes of the frozen set
                g = unc[:, None] * row
                g[chosen] = 0.0
                G_true[:, i] += g
                a = cur[:, i]
                real_true[:, i] += g[rows, a]
                new = ~chosen[rows, a]
                unc = np.where(new, unc * (1.0 - row[rows, a]), unc)
                chosen[rows, a] = True
            exp_rows = np.flatnonzero(coin[dt])
            reward = 1.0 - unc
            if exp_rows.size:
                ie, ae = which[dt, exp_rows], item[dt, exp_rows]
                up = np.ones(exp_rows.size)
                pre = np.zeros((exp_rows.size, n), dtype=bool)
                for i in range(k):
                    a = cur[exp_rows, i]
                    use = (i < ie) & ~pre[np.arange(exp_rows.size), a]
                    up = np.where(use, up * (1.0 - row[exp_rows, a]), up)
                    pre[np.arange(exp_rows.size), a] |= i < ie
                add = ~pre[np.arange(exp_rows.size), ae]
                up = np.where(add, up * (1.0 - row[exp_rows, ae]), up)
                y = 1.0 - up
                reward[exp_rows] = y
                G[exp_rows, ie, ae] += y
                M[exp_rows] += 1
                z = eta[exp_rows, None, None] * G[exp_rows] + rng.gumbel(size=(exp_rows.size, k, n))
                cur[exp_rows] = np.argmax(z, axis=2)
            alg += reward
    return {"alg": alg, "M": M, "G": G, "G_true": G_true, "realised_true": real_true}
