"""Cost model of the Perez-Salazar & Cummings run jobs: predicted seconds of one job.

A job runs the configurations of one group for a block of seeds (:mod:`.runs`); its cost is the sum over
configurations of ``replicas × rounds × µs per replica-round``, plus the offline benchmarks, plus a fixed
part (imports, reading the instance, numba's cache).  The µs per replica-round are those of the numba
kernels measured by ``benchmarks/bench_online_submodular.py`` as CPU time on the loaded 2-core build
machine (:data:`MEASURED`), as a linear model in the work per round:

* full information: ``FI_US0 + FI_US_PER_ITEM · k · n`` (k experts × n marginal gains per round);
* bandit: ``BD_US0 + BD_US_PER_ITEM · k · n`` (the simulator's true marginals dominate);
* Algorithm 4: ``CONT_US_PER_ITEM · K · n · (1 + log2 T / 8)`` (K experts, a projection, tree noise).

The exact optimum enumerates C(n, k) sets per horizon and seed (:data:`OPT_US_PER_SET_TYPE` per set
and type).  This module imports nothing heavy: the workflow reads it at every start.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

__all__ = ["MEASURED", "job_seconds"]

MEASURED = "2026-11-22, 2-core build machine, loaded (load average ~2): CPU µs per replica-round of the kernels"
FIXED_S = 3.0
FI_US0, FI_US_PER_ITEM = 0.05, 0.0045
BD_US0, BD_US_PER_ITEM = 0.01, 0.0018
CONT_US_PER_ITEM = 0.05
OPT_US_PER_SET_TYPE = 0.01


def _seeds(runs: int, n_seeds: int) -> int:
    return max(0, min(int(runs), int(n_seeds)))


def _fi_us(k: int, n: int) -> float:
    return FI_US0 + FI_US_PER_ITEM * k * n


def _opt_s(n: int, k: int, M: int, columns: int) -> float:
    return math.comb(n, min(k, n)) * M * columns * OPT_US_PER_SET_TYPE * 1e-6 if math.comb(n, min(k, n)) <= 2e6 else 0.0


def _horizons(T) -> list[int]:
    return [int(t) for t in (T if isinstance(T, list) else [T])]


def job_seconds(experiment: str, settings: Mapping, point: Mapping, n_seeds: int) -> float:
    """Predicted seconds of one run job of ``experiment`` at ``point`` for ``n_seeds`` seeds."""
    cfg = settings["group"]
    group = point.get("group", "")
    if experiment == "fi":
        S = _seeds(cfg["runs"], n_seeds)
        spec = settings["instance"]
        Ts = _horizons(cfg["T"])
        n_algos = len(cfg["eps"]) + len(cfg["baselines"])
        if group == "nscan":
            k = int(cfg["k"])
            return FIXED_S + sum(S * n_algos * Ts[0] * _fi_us(k, int(n)) * 1e-6 + _opt_s(spec["n"], k, spec["M"], S)
                                 for n in cfg["ns"])
        ks = [int(cfg["k"])] if "k" in cfg else [int(k) for k in cfg["ks"]]
        n, M = int(spec["n"]), int(spec["M"])
        return FIXED_S + sum(S * n_algos * sum(Ts) * _fi_us(k, n) * 1e-6 + _opt_s(n, k, M, S * len(Ts)) for k in ks)
    if experiment == "uber":
        S = _seeds(cfg["runs"], n_seeds)
        n, k = int(settings["instance"]["grid"]) ** 2, int(cfg["k"])
        T_all = 564_516  # at most the whole month's pickups (≈ 4.5e5 in the box)
        if group == "fi":
            Ts = _horizons(cfg["T"]) + ([T_all] if cfg["include_all"] else [])
            return FIXED_S + S * (len(cfg["eps"]) + len(cfg["baselines"])) * sum(Ts) * _fi_us(k, n) * 1e-6
        if group == "anytime":
            T = T_all if cfg["T_pick"] is None else int(cfg["T_pick"])
            fi = S * (len(cfg["eps"]) + 2) * T * _fi_us(k, n) * 1e-6
            bd = S * (len(cfg["bandit_eps"]) + 1) * T * (BD_US0 + BD_US_PER_ITEM * k * n) * 1e-6
            return FIXED_S + fi + bd
        T = T_all if cfg["T_pick"] is None else int(cfg["T_pick"])
        per_unit = sum(T if u == "pick" else 60 * 24 * 30 // int(u) for u in cfg["units"])
        return FIXED_S + S * len(cfg["eps"]) * per_unit * _fi_us(k, n) * 1e-6 * 3  # windows mix several signatures
    if experiment == "bandit":
        S = _seeds(settings["runs"], n_seeds)
        spec = settings["instance"]
        n, k = int(spec["n"]), int(cfg["k"])
        Ts = sum(_horizons(settings["T"]))
        if group == "variants":
            return FIXED_S + S * 3 * len(cfg["eps"]) * Ts * (BD_US0 + BD_US_PER_ITEM * k * n + 0.02 * k * n) * 1e-6
        bd = S * (len(cfg["eps"]) + 1) * Ts * (BD_US0 + BD_US_PER_ITEM * k * n) * 1e-6
        fi = S * (len(cfg["fi_eps"]) + 2) * Ts * _fi_us(k, n) * 1e-6
        return FIXED_S + bd + fi
    if experiment == "cont":
        S = _seeds(settings["runs"], n_seeds)
        n = int(settings["instance"]["n"])
        Ts = _horizons(cfg["T"])
        Ks = cfg.get("K") or [max(1, math.ceil((T / math.log(T) ** 2.5) ** 0.25)) for T in Ts]
        eps = cfg["eps"] if isinstance(cfg["eps"], list) else [cfg["eps"]]
        total = 0.0
        for T in Ts:
            for K in (Ks if cfg.get("K") else [max(1, math.ceil((T / math.log(T) ** 2.5) ** 0.25))]):
                total += S * len(eps) * T * CONT_US_PER_ITEM * K * n * (1 + math.log2(T) / 8) * 1e-6
        return FIXED_S + total
    raise ValueError(f"unknown experiment {experiment!r}")
