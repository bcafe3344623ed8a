"""Speed of SubmodPFTAL and BanditSubmodPFTAL (Rivera Cardoso & Cummings 2019).

Prints µs per step per replica (a replica = one (ε, seed) pair) of the numba kernels
(:func:`privopt.online.submod_pftal.algorithm.run_submod`: median and best of ``--repeats`` runs of ``--steps`` steps ×
``--replicas`` replicas, ε = 1, RC-MRF with cells drawn from a fixed skewed law) beside the plain-numpy
batched version of the same algorithm (:func:`~privopt.online.submod_pftal.reference.submod_full_reference`,
:func:`~privopt.online.submod_pftal.reference.submod_bandit_reference`: vectorised over the replicas, noise and
rounding drawn in bulk from numpy Generators — the same law; ``--ref-steps`` steps), timed in the same
process, and their ratio; also the first call (compilation or cache load).  Configurations: SubmodPFTAL at
n = 8 and 64, BanditSubmodPFTAL at n = 4 and 16 (the design notes' numpy prototype, not in the repository, at R = 60: 1.7, 6.7, 2.5 and
6 µs per replica-step).

Run: ``python benchmarks/bench_submod_pftal.py [--steps N] [--replicas R] [--repeats K] [--ref-steps M] [--cpu]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np

from privopt.experiments.cardoso2019.grid import rc_mrf
from privopt.fastrng import FastGenerator
from privopt.online.submod_pftal.algorithm import bandit_setup, full_setup, run_submod
from privopt.online.submod_pftal.reference import submod_bandit_reference, submod_full_reference

CONFIGS = (("full", 8), ("full", 64), ("bandit", 4), ("bandit", 16))
PROTOTYPE_US = {("full", 8): 1.7, ("full", 64): 6.7, ("bandit", 4): 2.5, ("bandit", 16): 6.0}


def states(n: int, base: int) -> np.ndarray:
    return np.stack([FastGenerator(base + i).state for i in range(n)])


def cells(n: int, replicas: int, steps: int) -> np.ndarray:
    rng = np.random.default_rng(n)
    return rng.choice(n, size=(replicas, steps), p=rng.dirichlet(np.ones(n)))


def setup(mode: str, n: int, T: int):
    # pure exploration is allowed here: the timing does not depend on γ
    return full_setup(n, T, 1.0) if mode == "full" else bandit_setup(n, T, 1.0, allow_pure_exploration=True)


def time_kernel(mode: str, n: int, steps: int, replicas: int, repeats: int, cpu: bool):
    inst = rc_mrf(n)
    c = cells(n, replicas, steps)
    clock = time.process_time if cpu else time.perf_counter
    t0 = time.perf_counter()
    run_submod(inst, c[:1, :8], [0], [setup(mode, n, 8)], states(1, 0), states(1, 1))
    first = time.perf_counter() - t0
    s = [setup(mode, n, steps)] * replicas
    out = []
    for rep in range(repeats):
        t0 = clock()
        run_submod(inst, c, np.arange(replicas), s, states(replicas, 1000 * rep), states(replicas, 500 + 1000 * rep))
        out.append(1e6 * (clock() - t0) / (steps * replicas))
    return first, out


def time_numpy(mode: str, n: int, steps: int, replicas: int, cpu: bool) -> float:
    inst = rc_mrf(n)
    c = cells(n, replicas, steps)
    s = setup(mode, n, steps)
    R = replicas
    clock = time.process_time if cpu else time.perf_counter
    t0 = clock()
    if mode == "full":
        submod_full_reference(inst, c, np.arange(R), steps, [s.H] * R, [s.mu] * R, [s.lam] * R,
                          np.random.default_rng(2), np.random.default_rng(3))
    else:
        submod_bandit_reference(inst, c, np.arange(R), steps, [s.H] * R, [s.gamma] * R, [s.mu] * R, [s.lam] * R,
                            np.random.default_rng(2), np.random.default_rng(3))
    return 1e6 * (clock() - t0) / (steps * replicas)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=2**14, help="steps (horizon T) per timed numba run")
    ap.add_argument("--replicas", type=int, default=60)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ref-steps", type=int, default=512, help="steps of the numpy run")
    ap.add_argument("--cpu", action="store_true", help="CPU time instead of wall time")
    args = ap.parse_args()
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}; "
          f"R = {args.replicas} replicas, {args.steps} steps (numpy: {args.ref_steps}); "
          f"{'CPU' if args.cpu else 'wall'} µs per step per replica")
    print(f"{'algorithm':<20}{'n':>4}{'first call s':>14}{'numba median':>14}{'numba best':>12}{'numpy':>10}"
          f"{'speed-up':>10}{'prototype':>11}")
    for mode, n in CONFIGS:
        first, runs = time_kernel(mode, n, args.steps, args.replicas, args.repeats, args.cpu)
        ref = time_numpy(mode, n, args.ref_steps, args.replicas, args.cpu)
        med = statistics.median(runs)
        name = "SubmodPFTAL" if mode == "full" else "BanditSubmodPFTAL"
        print(f"{name:<20}{n:>4}{first:>14.2f}{med:>14.3f}{min(runs):>12.3f}{ref:>10.2f}{ref / med:>9.1f}x"
              f"{PROTOTYPE_US[(mode, n)]:>11.1f}")


if __name__ == "__main__":
    main()
