"""One configuration of Perez-Salazar & Cummings' algorithms on one stream, every replica at once, as rows.

A *configuration* is (instance, feedback, k, T); its replicas are every (algorithm, ε) × seed.  One call
of :func:`full_information` or :func:`bandit` runs them in one kernel call (:mod:`privopt.online`) and
returns one row per replica with the quantities of perezsalazar2021 reading R21:

* ALG, the benchmarks of the seed's stream over the first T rounds (exact OPT, offline greedy G, the
  upper bound UB = OPT when exact; E_UNIF = UNIF's exact expected value), R = (1 − 1/e)·OPT − ALG
  (R_hi uses UB where OPT is not enumerable), REG_G = G − ALG, REG_OPT = OPT − ALG;
* Σ_i r_i (realised expert regrets; bandit: w.r.t. the true marginals on the frozen sets, Lemma 2),
  Σ_i (1 − 1/k)^{k−i} r_i (the form of Prop. 3 that holds pathwise even when some r_i < 0), the
  pseudo-regret Σ_i r̃_i, whether every expert meets Thm 3 (``hedge_ok``, relative tolerance 1e-9) and
  its smallest relative slack;
* privacy: ε (the config value; NaN for non-private baselines), ε_nominal (η-equivalent for them),
  ε_cert (:mod:`privopt.online.osm.privacy`), ``certified``, δ, ``delta_tail`` (bandit: Hoeffding);
* the bound of the theorem (B_FI or B_BD), the effective budget u, γ, M, draws, wall seconds.

Random streams (``privopt.seeding``, paper ``perezsalazar2021``): ``learner`` keyed by (instance key,
feedback, algorithm, ε, k, n, T[, γ]) and seed; ``explore`` (bandit coins) keyed by (instance key, k, n,
T, γ) and seed — so Algorithm 3, B2-PRESAMPLE, B1-NAIVE at the same γ and SG-BANDIT-NP explore at the
same rounds of a seed.  A replica's numbers do not depend on which other replicas share its call.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from privopt import seeding
from privopt.online.osm import parameters as par
from privopt.online.osm.coverage import Stream, type_totals
from privopt.online.osm.offline import benchmarks, uniform_value
from privopt.online.osm.fixed_sums import running_dot
from privopt.online.osm.privacy import eps_cert, nominal_eps
from privopt.online.osm.submodular_max import explore_counts, run_bandit, run_full_information, states_from

__all__ = ["PAPER", "FI_ALGOS", "BANDIT_ALGOS", "Algo", "fi_algos", "Benchmarks", "stream_benchmarks",
           "full_information", "bandit", "checkpoint_rounds"]

PAPER = "perezsalazar2021"
FI_ALGOS = ("FI-DP", "SG-NP", "UNIF")
BANDIT_ALGOS = ("BanditDP", "SG-BANDIT-NP", "B1-NAIVE", "B1-NAIVE-OWN", "B2-PRESAMPLE")
_TOL = 1e-9


@dataclass(frozen=True)
class Algo:
    """An algorithm and its ε (None for the non-private baselines)."""

    name: str
    eps: float | None = None

    @property
    def key(self) -> dict:
        return {"algo": self.name, "eps": None if self.eps is None else float(self.eps)}


def fi_algos(eps: Sequence[float], baselines: Sequence[str] = ("SG-NP", "UNIF")) -> list[Algo]:
    """FI-DP at every ε, then the baselines."""
    return [Algo("FI-DP", float(e)) for e in eps] + [Algo(b) for b in baselines]


@dataclass(frozen=True)
class Benchmarks:
    """Offline benchmarks of each (seed, T): OPT (NaN where not enumerable), G, UB, exact, E_UNIF."""

    values: dict  # (seed, T) -> dict

    def __getitem__(self, key) -> dict:
        return self.values[key]


def stream_benchmarks(P, stream: Stream, k: int, horizons: Sequence[int], rows: Mapping[int, int]) -> Benchmarks:
    """Benchmarks over the first T rounds of the data stream of each seed (``rows``: seed → stream row);
    one enumeration for every (seed, T)."""
    horizons = [int(T) for T in horizons]
    seeds = list(rows)
    if not seeds:
        return Benchmarks({})
    counts = np.hstack([type_totals(stream, P.shape[0], horizons, rows[s]) for s in seeds])
    b = benchmarks(P, counts, k)
    unif = uniform_value(P, counts, k)
    out = {}
    for i, seed in enumerate(seeds):
        for j, T in enumerate(horizons):
            c = i * len(horizons) + j
            out[(seed, T)] = {"OPT": float(b["OPT"][c]), "G": float(b["G"][c]), "UB": float(b["UB"][c]),
                              "opt_exact": bool(b["exact"][c]), "E_UNIF": float(unif[c])}
    return Benchmarks(out)


def checkpoint_rounds(T: int, per_decade: int = 20) -> np.ndarray:
    """Rounds 10^(j/per_decade) (rounded, unique) up to T, and T."""
    top = int(math.floor(per_decade * math.log10(T)))
    ts = np.unique(np.round(10.0 ** (np.arange(top + 1) / per_decade)).astype(np.int64))
    return np.unique(np.append(ts[ts <= T], T))


def _rate(algo: Algo, k: int, n: int, T: int, delta: float) -> float:
    if algo.name == "FI-DP":
        return par.fi_eta(algo.eps, k, T, delta)
    if algo.name == "SG-NP":
        return par.sg_eta(k, n, T)
    if algo.name == "UNIF":
        return 0.0
    raise ValueError(f"not a full-information algorithm: {algo.name}")


def _states(stream_name: str, keys: Sequence[dict], seeds: Sequence[int]) -> np.ndarray:
    return states_from([seeding.seed_sequence(PAPER, stream_name, key, int(s)) for key, s in zip(keys, seeds)])


def _bench_fields(b: Mapping[str, Any], alg: float) -> dict:
    c = par.ONE_MINUS_INV_E
    opt = b["OPT"]
    return {"OPT": opt, "G": b["G"], "UB": b["UB"], "opt_exact": b["opt_exact"], "E_UNIF": b["E_UNIF"],
            "R": c * opt - alg, "R_hi": c * b["UB"] - alg, "REG_G": b["G"] - alg, "REG_OPT": opt - alg}


def _weighted(r: np.ndarray) -> np.ndarray:
    """Σ_i (1 − 1/k)^{k−i} r_i of each row, summed term after term (not a BLAS product: the same bits on every CPU,
    privopt.online.osm.fixed_sums)."""
    k = r.shape[1]
    weights = (1.0 - 1.0 / k) ** (k - 1 - np.arange(k)) if k > 1 else np.ones(1)
    return np.array([running_dot(row, weights) for row in r])


def full_information(P, stream: Stream, *, instance: str, key: Mapping[str, Any], k: int, T: int,
                     algos: Sequence[Algo], seeds: Sequence[int], rows: Mapping[int, int], delta: float,
                     bench: Benchmarks, checkpoints: Sequence[int] = (), tail_from: int | None = None,
                     record_codes: Sequence[Algo] = ()) -> tuple[list[dict], Any, list[tuple[Algo, int]]]:
    """Every (algorithm × seed) replica of one full-information configuration: (rows, FIRuns, replicas)."""
    n = P.shape[1]
    replicas = [(a, int(s)) for a in algos for s in seeds]
    if not replicas:
        return [], None, []
    eta = np.array([_rate(a, k, n, T, delta) for a, _ in replicas])
    keys = [{"instance": instance, "key": dict(key), "feedback": "full", **a.key, "k": k, "n": n, "T": T}
            for a, _ in replicas]
    states = _states("learner", keys, [s for _, s in replicas])
    start = time.perf_counter()
    runs = run_full_information(P, stream, k, T, eta, states, stream_of=[rows[s] for _, s in replicas],
                                checkpoints=checkpoints, tail_from=tail_from,
                                record_codes=[a in record_codes for a, _ in replicas] if record_codes else None)
    wall = (time.perf_counter() - start) / len(replicas)
    r = runs.expert_regret
    pseudo = runs.pseudo_regret
    rhs = runs.hedge_rhs()
    out = []
    for j, (a, s) in enumerate(replicas):
        e_nom = a.eps if a.name == "FI-DP" else nominal_eps(eta[j], T, k, delta)
        e_cert = eps_cert(eta[j], T, k, delta)
        applies = 0 < eta[j] <= 1
        slack = (rhs[j] - pseudo[j]) / np.abs(rhs[j]) if applies else np.full(k, np.nan)
        row = {"instance": instance, "feedback": "full", "algo": a.name, "eps": np.nan if a.eps is None else a.eps,
               "k": k, "n": n, "T": T, "seed": s, "eta": float(eta[j]), "gamma": np.nan,
               "eps_nominal": float(e_nom), "eps_cert": float(e_cert),
               "certified": bool(a.name == "UNIF" or e_cert <= e_nom * (1 + 1e-12)) if a.name != "SG-NP" else False,
               "delta": delta, "delta_tail": 0.0, "ALG": float(runs.alg[j]), **_bench_fields(bench[(s, T)], runs.alg[j]),
               "sum_r": float(r[j].sum()), "sum_r_weighted": float(_weighted(r[j:j + 1])[0]),
               "min_r_i": float(r[j].min()), "sum_r_pseudo": float(pseudo[j].sum()),
               "hedge_applies": bool(applies),
               "hedge_ok": bool((pseudo[j] <= rhs[j] + _TOL * np.abs(rhs[j])).all()) if applies else True,
               "hedge_slack": float(slack.min()) if applies else np.nan,
               "B_theorem": par.fi_bound(eta[j], k, n, T) if eta[j] > 0 else np.inf,
               "B_sharp": par.fi_bound_sharp(eta[j], k, n, T) if eta[j] > 0 else np.inf,
               "u": par.effective_budget(e_nom, T, k, n, delta) if e_nom > 0 else 0.0,
               "M": 0, "draws": T, "wall_s": wall}
        out.append(row)
    return out, runs, replicas


def _bandit_rate(algo: Algo, k: int, n: int, T: int, delta: float, gamma: float, M: int) -> float:
    if algo.name == "BanditDP":
        return par.bandit_eta(algo.eps, k, T, delta, gamma)
    if algo.name in ("B1-NAIVE", "B1-NAIVE-OWN"):
        return par.b1_eta(algo.eps, k, T, delta)
    if algo.name == "B2-PRESAMPLE":
        return par.b2_eta(algo.eps, k, M, delta)
    if algo.name == "SG-BANDIT-NP":
        return par.sg_bandit_eta(k, n, T, gamma)
    raise ValueError(f"not a bandit algorithm: {algo.name}")


def bandit(P, stream: Stream, *, instance: str, key: Mapping[str, Any], k: int, T: int, algos: Sequence[Algo],
           seeds: Sequence[int], rows: Mapping[int, int], delta: float, c_gamma: float, bench: Benchmarks,
           checkpoints: Sequence[int] = ()) -> tuple[list[dict], Any, list[tuple[Algo, int]]]:
    """Every (algorithm × seed) replica of one bandit configuration: (rows, BanditRuns, replicas)."""
    from privopt.online.osm.privacy import bandit_tail

    n = P.shape[1]
    replicas = [(a, int(s)) for a in algos for s in seeds]
    if not replicas:
        return [], None, []
    gammas = np.array([par.practical_gamma(T, c_gamma, 0.25 if a.name == "B1-NAIVE-OWN" else 1.0 / 3.0)
                       for a, _ in replicas])
    coin_keys = [{"instance": instance, "key": dict(key), "k": k, "n": n, "T": T, "gamma": float(g)} for g in gammas]
    coins = _states("explore", coin_keys, [s for _, s in replicas])
    M_pre = explore_counts(coins, gammas, k, n, T)
    eta = np.array([_bandit_rate(a, k, n, T, delta, g, int(m)) for (a, _), g, m in zip(replicas, gammas, M_pre)])
    keys = [{"instance": instance, "key": dict(key), "feedback": "bandit", **a.key, "k": k, "n": n, "T": T,
             "gamma": float(g)} for (a, _), g in zip(replicas, gammas)]
    states = _states("learner", keys, [s for _, s in replicas])
    start = time.perf_counter()
    # B1 draws a fresh set every round; the others only after explore rounds
    naive = np.array([a.name.startswith("B1") for a, _ in replicas])
    results = {}
    for flag in (False, True):
        idx = np.flatnonzero(naive == flag)
        if idx.size:
            results[flag] = (idx, run_bandit(P, stream, k, T, eta[idx], gammas[idx], coins[idx].copy(), states[idx].copy(),
                                             stream_of=[rows[replicas[j][1]] for j in idx], redraw_always=flag,
                                             checkpoints=checkpoints))
    wall = (time.perf_counter() - start) / len(replicas)
    tails = {float(g): bandit_tail(T, float(g)) for g in np.unique(gammas)}
    by_replica: list[dict] = [{} for _ in replicas]
    per_replica = [None] * len(replicas)
    for flag, (idx, res) in results.items():
        r = res.expert_regret
        for q, j in enumerate(idx):
            a, s = replicas[j]
            g = float(gammas[j])
            M = int(res.M[q])
            if a.name in ("B1-NAIVE", "B1-NAIVE-OWN"):
                draws, d_tail = T, 0.0
            elif a.name == "B2-PRESAMPLE":
                draws, d_tail = M + 1, 0.0
            else:
                draws, d_tail = math.ceil(2 * g * T), 10.0 ** tails[g]["log10_hoeffding"]
            e_nom = a.eps if a.eps is not None else nominal_eps(eta[j], 2 * g * T, k, delta)
            e_cert = eps_cert(eta[j], draws, k, delta)
            row = {"instance": instance, "feedback": "bandit", "algo": a.name, "eps": np.nan if a.eps is None else a.eps,
                   "k": k, "n": n, "T": T, "seed": s, "eta": float(eta[j]), "gamma": g, "c_gamma": c_gamma,
                   "eps_nominal": float(e_nom), "eps_cert": float(e_cert),
                   "certified": bool(a.eps is not None and e_cert <= e_nom * (1 + 1e-12)),
                   "delta": delta, "delta_tail": d_tail, "ALG": float(res.alg[q]),
                   **_bench_fields(bench[(s, T)], res.alg[q]),
                   "sum_r": float(r[q].sum()), "sum_r_weighted": float(_weighted(r[q:q + 1])[0]),
                   "min_r_i": float(r[q].min()), "M": M, "M_pre": int(M_pre[j]), "draws": int(res.draws[q]),
                   "cap": math.ceil(2 * g * T), "B_theorem": (par.bandit_bound(a.eps, k, n, T, delta, g)
                                                            if a.name == "BanditDP" else np.nan),
                   "wall_s": wall}
            by_replica[j] = row
            per_replica[j] = (res, q)
    return by_replica, per_replica, replicas
