"""Cost model of the Rivera Cardoso & Cummings run jobs: seconds ≈ replica-steps × µs per step + comparators.

Constants from ``python benchmarks/bench_submod_pftal.py --steps 8192 --repeats 2 --cpu`` on the 2-core build
machine (CPU µs per step per replica, R = 60, 2026-11-24, load average 1.6, after the branch-free kernels):
SubmodPFTAL 0.236 (n = 8) and 0.853 (n = 64); BanditSubmodPFTAL 0.239 (n = 4) and 0.361 (n = 16), fitted as
a + b·n.  (2026-11-23, before them and under a load of about 3: 0.82, 4.58, 0.74, 1.67.)
Since SubmodPFTAL's kernel takes a continual counter (issue 27) the full-information kernel with the tree is about
15 % slower (0.29 against 0.25 µs per step at n = 8, alternated on the same load, 2026-11-26); US_PER_STEP is not
re-fitted.  A replica is one (ε, seed) pair; every job also runs ε = ∞.  Per seed: the LP comparator, and for n ≤ 16 the
exhaustive enumeration that cross-checks it (2^n subsets).
"""

from __future__ import annotations

from privopt.experiments.cardoso2019.modes import MODES

__all__ = ["US_PER_STEP", "job_seconds", "job_data_mb", "summary"]

#: kernel µs per step per replica: a + b·n
US_PER_STEP = {"full": (0.148, 0.0110), "bandit": (0.198, 0.0102)}
#: per-job constant: imports, reading the cell pool, numba cache load, tables of runs
BASE_S = 1.5
#: per seed: the LP (HiGHS) and the stream draw
LP_S = 0.05
#: enumeration, ns per subset per (cell + edge)
ENUM_NS = 2.0
#: RC-1c: extra kernel µs per step per replica of each counter's N(t) over the learner (ℓ2-Laplace seeds, n = 8:
#: 0.30 / 0.43 / 0.78 µs per step in all for tree / honaker / smooth against 0.26 for the former TBAP kernel;
#: /tmp bench of run_submod, T = 2^14, R = 20, 2026-11-26, load 3)
COUNTER_US = {"tree": 0.05, "honaker": 0.18, "smooth": 0.52}


def job_seconds(experiment, settings: dict, point: dict, n_seeds: int) -> float:
    """Predicted compute seconds of one run job (excluding start-up, see privopt.pipeline.cost)."""
    name = experiment.name
    if name == "privacy":
        return BASE_S + 2 * int(settings["samples"]) * 2 * 1e-6 + 5.0
    T = int(point["T"]) if "T" in point else int(settings["T"])
    n = int(point["n"]) if "n" in point else int(settings["n"])
    if name == "rc1c":  # every counter runs each finite ε (no ε = ∞); per seed the LP
        a, b = US_PER_STEP["full"]
        per = sum(a + b * n + COUNTER_US[c] for c in settings["counters"])
        return BASE_S + len(settings["eps"]) * n_seeds * T * per * 1e-6 + n_seeds * LP_S
    a, b = US_PER_STEP[MODES[name][0]]
    replicas = (len(settings["eps"]) + 1) * n_seeds
    enum = n_seeds * (2**n) * 3 * n * ENUM_NS * 1e-9 if n <= 16 else 0.0
    return BASE_S + replicas * T * (a + b * n) * 1e-6 + n_seeds * LP_S + enum


def job_data_mb(experiment, settings: dict, point: dict, n_seeds: int) -> float:
    """Data a run job holds: the cell pool (≤ 0.6 M pickups) and the seeds' cell streams."""
    name = experiment.name
    if name == "privacy":
        return 50.0
    T = int(point["T"]) if "T" in point else int(settings["T"])
    return 8 * T * n_seeds / 1e6 + 30.0


def summary() -> list[str]:
    """The measured constants (printed by ``benchmarks/paper_cost.py``)."""
    return [f"kernel µs per step per replica, a + b·n: SubmodPFTAL {US_PER_STEP['full'][0]} + {US_PER_STEP['full'][1]}·n, "
            f"BanditSubmodPFTAL {US_PER_STEP['bandit'][0]} + {US_PER_STEP['bandit'][1]}·n "
            "(benchmarks/bench_submod_pftal.py --cpu, 2026-11-24)",
            f"per job {BASE_S} s; per seed {LP_S} s (LP) + enumeration {ENUM_NS} ns per subset·(n + |E|) for n ≤ 16"]
