"""Figure 7 runs: Algorithm 4 on SYN-CLICK-MLE (the multilinear extension of SYN-CLICK ``main``), perezsalazar2021
readings R9, R10.

Groups: ``sweep`` (K from App. C, every ε over the T grid) and ``ablation`` (one (T, ε), K from a list).  Each
(T, ε, K) × seed is a replica of one kernel call per T (:func:`privopt.online.osm.dr_submodular.run_alg4`); the
learner stream ``learner`` is keyed by (instance, ε, k, n, T, K, c_H) and the seed, the user types by the
instance and the seed (the same users as Figures 1–3).  Algorithm 4 is (ε, 0)-DP at every ε (Lemma 6), so
every row is certified.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from privopt import seeding
from privopt.experiments.perezsalazar2021 import simulate as sim
from privopt.experiments.perezsalazar2021 import syn
from privopt.online.osm import parameters as par
from privopt.online.osm.coverage import Stream
from privopt.online.osm.dr_submodular import alg4_params, run_alg4
from privopt.online.osm.submodular_max import states_from

__all__ = ["cont_rows"]


def _configs(group: str, cfg: Mapping[str, Any]) -> list[tuple[int, float, int | None]]:
    if group == "sweep":
        return [(int(T), float(e), None) for T in cfg["T"] for e in cfg["eps"]]
    if group == "ablation":
        return [(int(cfg["T"]), float(cfg["eps"]), int(K)) for K in cfg["K"]]
    raise ValueError(f"unknown group {group!r} of experiment cont")


def cont_rows(group: str, settings: Mapping[str, Any], seeds: Sequence[int]) -> list[dict]:
    """One row per (T, ε, K) × seed of the group."""
    cfg, spec, c_H, delta = settings["group"], settings["instance"], float(settings["c_H"]), float(settings["delta"])
    seeds = [int(s) for s in seeds]
    if not seeds:
        return []
    k = int(cfg["k"])
    configs = _configs(group, cfg)
    horizons = sorted({T for T, _, _ in configs})
    pi, P = syn.instance_matrix(spec)
    types = np.stack([syn.type_stream(pi, max(horizons), spec, s) for s in seeds])
    stream, rows = Stream.single(types), {s: j for j, s in enumerate(seeds)}
    bench = sim.stream_benchmarks(P, stream, k, horizons, rows)
    n = P.shape[1]
    out = []
    for T in horizons:
        reps = [(eps, K, s) for (TT, eps, K) in configs if TT == T for s in seeds]
        params = [alg4_params(P, k, T, eps, c_H, K) for eps, K, _ in reps]
        keys = [{"instance": "syn_mle", "key": syn.stream_key(spec), "feedback": "continuous", "algo": "ALG4",
                 "eps": eps, "k": k, "n": n, "T": T, "K": p.K, "c_H": c_H} for (eps, _, _), p in zip(reps, params)]
        states = states_from([seeding.seed_sequence(sim.PAPER, "learner", key, s) for key, (_, _, s) in zip(keys, reps)])
        start = time.perf_counter()
        res = run_alg4(P, stream, k, T, params, states, stream_of=[rows[s] for _, _, s in reps])
        wall = (time.perf_counter() - start) / len(reps)
        lin = res.linear_regret(k)
        for j, ((eps, _, s), p) in enumerate(zip(reps, params)):
            b = bench[(s, T)]
            c = par.ONE_MINUS_INV_E
            alg = float(res.alg[j])
            out.append({"instance": "syn_mle", "feedback": "continuous", "algo": "ALG4", "eps": eps, "k": k, "n": n,
                        "T": T, "K": p.K, "seed": s, "eta": np.nan, "gamma": np.nan, "c_H": c_H, "H": p.H,
                        "lambda": p.lam, "eps_node": p.eps_node, "eps_nominal": eps, "eps_cert": eps, "certified": True,
                        "delta": 0.0, "delta_tail": 0.0, "ALG": alg, "OPT": b["OPT"], "G": b["G"], "UB": b["UB"],
                        "opt_exact": b["opt_exact"], "E_UNIF": b["E_UNIF"], "R": c * b["OPT"] - alg,
                        "R_hi": c * b["UB"] - alg, "REG_G": b["G"] - alg, "REG_OPT": b["OPT"] - alg,
                        "sum_r_linear": float(lin[j].sum()),
                        "lemma7": float(lin[j].sum() / p.K + p.beta * p.radius**2 * T / (2 * p.K)), "wall_s": wall})
    return out
