"""Cost model of the Perez-Salazar & Cummings run jobs: predicted seconds of one job.

A job runs the configurations of one group for a block of seeds (:mod:`.runs`); its cost is the sum over
configurations of ``replicas × rounds × µs per replica-round``, plus the offline benchmarks, plus a fixed
part (imports, reading the instance, numba's cache).  The µs per replica-round are those of the numba
kernels measured by ``benchmarks/bench_online_submodular.py`` as CPU time on the loaded 2-core build
machine (:data:`MEASURED`), as a linear model in the work per round:

* full information: ``k · (FI_US_EXPERT + FI_US_ITEM · n)`` (per expert: a draw, n marginal gains, the
  weight update); window streams (several signatures per round) cost :data:`MIXTURE_FACTOR` times more;
* bandit: ``k · (BD_US_EXPERT + BD_US_ITEM · n)`` (the simulator's true marginals dominate); B1-NAIVE adds a
  draw per expert every round (``k · FI_US_ITEM · n``);
* Algorithm 4: ``K · CONT_US_ITEM · n`` (K experts: a gradient, tree noise, a bisection projection).

The exact optimum enumerates C(n', k) sets (n' ≤ n kept items) for every (horizon, seed) column
(:data:`OPT_US_PER_SET_TYPE` per set, type and column).  This module imports nothing heavy: the workflow
reads it at every start.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

__all__ = ["MEASURED", "job_seconds", "job_data_mb", "privacy_rows", "privacy_seconds", "privacy_mb", "summary"]

MEASURED = ("2026-11-23, 2-core build machine, loaded (load average 5): CPU µs per replica-round, "
            "benchmarks/bench_online_submodular.py --cost (FI: k·(0.14 + 0.003 n) fits (k, n) = (1, 10) … (3, 300) "
            "within 20 %; bandit 0.055 at k = 2, n = 10; Algorithm 4 ≈ 5.5 µs per expert at n = 30)")
#: seconds of a job besides the kernels: the instance, the streams, the offline benchmarks of small k
FIXED_S = 3.0
FI_US_EXPERT, FI_US_ITEM = 0.14, 0.003
MIXTURE_FACTOR = 3.0
BD_US_EXPERT, BD_US_ITEM = 0.01, 0.0015
CONT_US_ITEM = 0.2
OPT_US_PER_SET_TYPE = 0.002


def _seeds(runs: int, n_seeds: int) -> int:
    return max(0, min(int(runs), int(n_seeds)))


def _fi_us(k: int, n: int) -> float:
    return k * (FI_US_EXPERT + FI_US_ITEM * n)


def _bd_us(k: int, n: int) -> float:
    return k * (BD_US_EXPERT + BD_US_ITEM * n)


def _opt_s(n: int, k: int, M: int, columns: int) -> float:
    return math.comb(n, min(k, n)) * M * columns * OPT_US_PER_SET_TYPE * 1e-6 if math.comb(n, min(k, n)) <= 2e6 else 0.0


def _horizons(T) -> list[int]:
    return [int(t) for t in (T if isinstance(T, list) else [T])]


def job_seconds(experiment, settings: Mapping, point: Mapping, n_seeds: int) -> float:
    """Predicted seconds of one run job of ``experiment`` at ``point`` for ``n_seeds`` seeds (the privacy job:
    :func:`privacy_seconds`)."""
    name = experiment.name
    if name == "privacy":
        return privacy_seconds(settings)
    cfg = settings["group"]
    group = point.get("group", "")
    if name == "fi":
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
    if name == "uber":
        S = _seeds(cfg["runs"], n_seeds)
        n, k = int(settings["instance"]["grid"]) ** 2, int(cfg["k"])
        T_all = 564_516  # at most the whole month's pickups (≈ 4.5e5 in the box)
        if group == "fi":
            Ts = _horizons(cfg["T"]) + ([T_all] if cfg["include_all"] else [])
            return FIXED_S + S * (len(cfg["eps"]) + len(cfg["baselines"])) * sum(Ts) * _fi_us(k, n) * 1e-6
        if group == "anytime":
            T = T_all if cfg["T_pick"] is None else int(cfg["T_pick"])
            fi = S * (len(cfg["eps"]) + 2) * T * _fi_us(k, n) * 1e-6
            bd = S * (len(cfg["bandit_eps"]) + 1) * T * _bd_us(k, n) * 1e-6
            return FIXED_S + fi + bd
        T = T_all if cfg["T_pick"] is None else int(cfg["T_pick"])
        per_unit = sum(T if u == "pick" else 60 * 24 * 30 // int(u) for u in cfg["units"])
        return FIXED_S + S * len(cfg["eps"]) * per_unit * _fi_us(k, n) * 1e-6 * MIXTURE_FACTOR
    if name == "bandit":
        S = _seeds(settings["runs"], n_seeds)
        spec = settings["instance"]
        n, k = int(spec["n"]), int(cfg["k"])
        Ts = sum(_horizons(settings["T"]))
        if group == "variants":
            return FIXED_S + S * 3 * len(cfg["eps"]) * Ts * (_bd_us(k, n) + k * FI_US_ITEM * n) * 1e-6
        bd = S * (len(cfg["eps"]) + 1) * Ts * _bd_us(k, n) * 1e-6
        fi = S * (len(cfg["fi_eps"]) + 2) * Ts * _fi_us(k, n) * 1e-6
        return FIXED_S + bd + fi
    if name == "cont":
        S = _seeds(settings["runs"], n_seeds)
        n = int(settings["instance"]["n"])
        Ts = _horizons(cfg["T"])
        Ks = cfg.get("K") or [max(1, math.ceil((T / math.log(T) ** 2.5) ** 0.25)) for T in Ts]
        eps = cfg["eps"] if isinstance(cfg["eps"], list) else [cfg["eps"]]
        total = 0.0
        for T in Ts:
            for K in (Ks if cfg.get("K") else [max(1, math.ceil((T / math.log(T) ** 2.5) ** 0.25))]):
                total += S * len(eps) * T * CONT_US_ITEM * K * n * 1e-6
        return FIXED_S + total
    raise ValueError(f"unknown experiment {name!r}")


#: the privacy job (Figure 8): its certified-ε grid is built row by row in Python
#: (:func:`privopt.experiments.perezsalazar2021.privacy_tables.cert_grid`); measured 2026-11-27 on the
#: loaded 2-core build machine at 16,000 and 160,000 rows: 18 µs and a peak of 510 bytes per row (tracemalloc)
PRIVACY_S, PRIVACY_US_PER_ROW, PRIVACY_BYTES_PER_ROW = 2.0, 20.0, 600.0


def privacy_rows(settings: Mapping) -> int:
    """Rows of the certified-ε grid: ``points`` nominal ε per (k, T) curve."""
    cfg = settings["group"]
    return int(cfg["points"]) * (len(cfg["fi_ks"]) + len(cfg["bandit_ks"])) * len(cfg["T"])


#: each row's exact composition (``eps_exact``: a root search over one binomial sum of about 28·√(k·N·p(1 − p))
#: terms, computed once per row): µs per row plus µs per √(k·N); measured 2026-11-27 on the loaded 2-core build
#: machine on the quick grid (648 rows, 0.67 CPU-s in all; modelled 1.1 s: the model errs on the slow side)
PRIVACY_EXACT_US_ROW, PRIVACY_EXACT_US_SQRT = 300.0, 1.5


def _exact_us(settings: Mapping) -> float:
    cfg = settings["group"]
    total = 0.0
    for T in cfg["T"]:
        draws = [(int(k), int(T)) for k in cfg["fi_ks"]]
        gamma = min(0.5, float(cfg["c_gamma"]) * int(T) ** (-1.0 / 3.0))
        draws += [(int(k), math.ceil(2 * gamma * int(T))) for k in cfg["bandit_ks"]]
        total += sum(PRIVACY_EXACT_US_ROW + PRIVACY_EXACT_US_SQRT * math.sqrt(k * N) for k, N in draws)
    return int(cfg["points"]) * total


def privacy_seconds(settings: Mapping) -> float:
    """Predicted seconds of the privacy job (the grid and its exact composition column; the T-PRIV enumeration is
    fixed and small)."""
    return PRIVACY_S + (privacy_rows(settings) * PRIVACY_US_PER_ROW + _exact_us(settings)) * 1e-6


def privacy_mb(settings: Mapping) -> float:
    """MB the privacy job holds at its peak (the grid's rows as Python records, then as a frame)."""
    return privacy_rows(settings) * PRIVACY_BYTES_PER_ROW / 1e6


def job_data_mb(experiment, settings: Mapping, point: Mapping, n_seeds: int) -> float:
    """MB of data one run job holds: modelled for the privacy job only (:func:`privacy_mb`; the other experiments
    declare no data model: their jobs hold little beside the interpreter)."""
    name = experiment.name
    if name != "privacy":
        raise ValueError(f"no data model for experiment {name!r} (only 'privacy' has one)")
    return privacy_mb(settings)


def summary() -> list[str]:
    """The measured constants, for ``benchmarks/paper_cost.py``."""
    return [f"µs per replica-round: full information k·({FI_US_EXPERT} + {FI_US_ITEM}·n) (windows ×{MIXTURE_FACTOR:g}), "
            f"bandit k·({BD_US_EXPERT} + {BD_US_ITEM}·n), Algorithm 4 K·{CONT_US_ITEM}·n; {FIXED_S:g} s per job besides; "
            f"{MEASURED}"]
