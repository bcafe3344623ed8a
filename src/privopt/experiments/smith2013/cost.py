"""Cost model of the Smith & Thakurta run jobs: seconds ≈ replica-steps × ns per step + comparators.

Constants measured with ``python benchmarks/bench_pftal.py --cost-table`` on the 2-core build machine
(CPU time, median of 3; 2026-11-23 under a load average of 11–12 from other jobs, so upper-side
estimates).  A replica is one (ε, seed) pair.  Check: the paper-scale ST-1 job at T = 2^19 (10 seeds,
both losses) is predicted 35 s; it took 144 s of wall time at a load of 4–8.
"""

from __future__ import annotations

__all__ = ["NS_PER_STEP", "ST1C_EXTRA_NS", "job_seconds", "job_data_mb"]

#: PFTAL kernel, ns per step per replica: a + b·p
NS_PER_STEP = {"pftal_a": 330.0, "pftal_b": 13.6, "bandit": 334.0, "tbap_a": 212.0, "tbap_b": 8.4}
#: ST-1c: extra ns per step of each counter over the tree (ℓ2-Laplace seeds, p = 2: 123 / 263 / 440 ns per PFTAL
#: step measured unloaded 2026-11-26, scaled ×2.7 like pftal_a above)
ST1C_EXTRA_NS = {"tree": 0.0, "honaker": 380.0, "smooth": 860.0}
#: comparators, ns per point at p = 2 (scaled by p/2): the projected mean, the geometric median (Weiszfeld)
NS_PER_POINT = {"sc": 39.0, "gc": 2192.0}
#: per-job constant: reading the disk pool, imports, tables of runs
BASE_S = 1.0


def _pftal(T: int, p: int, replicas: int) -> float:
    return replicas * T * (NS_PER_STEP["pftal_a"] + NS_PER_STEP["pftal_b"] * p) * 1e-9


def job_seconds(experiment, settings: dict, point: dict, n_seeds: int) -> float:
    """Predicted compute seconds of one run job (excluding start-up, see privopt.pipeline.cost)."""
    name = experiment.name
    if name == "st0":
        T, d = int(settings["T"]), int(point["d"])
        return BASE_S + n_seeds * T * (NS_PER_STEP["tbap_a"] + NS_PER_STEP["tbap_b"] * d) * 1e-9
    if name == "st0c":  # five counters at most per guarantee, ≈ 20 ns per step and coordinate
        return BASE_S + 5 * n_seeds * int(settings["T"]) * int(settings["p"]) * 20e-9
    if name == "privacy":
        return BASE_S + 4 * 2 * int(settings["samples"]) * 2e-6
    if name == "st1c":  # finite ε only; every counter of the list on the same streams
        T, p = int(point["T"]), 2
        total = BASE_S
        for loss in settings["losses"]:
            total += n_seeds * T * p / 2 * NS_PER_POINT[loss] * 1e-9
            for c in settings["counters"]:
                total += _pftal(T, p, len(settings["eps"]) * n_seeds) + \
                    len(settings["eps"]) * n_seeds * T * ST1C_EXTRA_NS[c] * 1e-9
        return total
    n_eps = len(settings["eps"]) + 1
    if name == "st4":
        T = int(point["T"])
        return BASE_S + len(settings["beta_rules"]) * n_eps * n_seeds * T * NS_PER_STEP["bandit"] * 1e-9 \
            + n_seeds * T * NS_PER_POINT["sc"] * 1e-9
    T = int(point["T"]) if "T" in point else int(settings["T"])
    p = int(point.get("p", 2))
    total = BASE_S
    for loss in settings["losses"]:
        total += _pftal(T, p, n_eps * n_seeds) + n_seeds * T * p / 2 * NS_PER_POINT[loss] * 1e-9
    return total


def job_data_mb(experiment, settings: dict, point: dict, n_seeds: int) -> float:
    """Data a run job holds: the point streams (and the synthetic points of ST-3)."""
    name = experiment.name
    if name in ("st0", "st0c", "privacy"):
        return 10.0
    T = int(point["T"]) if "T" in point else int(settings.get("T", 1))
    p = int(point.get("p", 2))
    return 8 * T * (n_seeds + 4 * p) / 1e6 + 5.0
