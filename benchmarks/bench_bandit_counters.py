"""CPU µs per round of Shariff & Sheffet's Gaussian variant with each continual counter, beside the path tree.

Figure 4c's setting (d = 5, K = 25, Δ = 0.1, ε = 1, δ = 0.1, constants for n = 5·10^7): each counter's variant
alone (``run_lockstep`` with one variant: the buffered kernel the pipeline uses), then all of them in lockstep
(one seed, as a Fig. 4c job runs them), after a warm-up run (compile / cache load).  CPU time
(``time.process_time``), best of ``--reps`` runs of ``--rounds`` rounds; the ratio is to the paper's path tree
measured in the same run, and the "unshared" share is what the cost model calls LOCKSTEP_SHARE["exp2c"].

Run by hand, never as a test:  ``python benchmarks/bench_bandit_counters.py [--rounds 300000] [--reps 3]``.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from privopt.bandits import BanditInstance
from privopt.bandits.episodes import run_lockstep
from privopt.bandits.parameters import BANDIT_COUNTERS, gaussian_params


def us_per_round(variants, instance, rounds: int, reps: int) -> float:
    run_lockstep(variants, instance, 200, np.random.SeedSequence(0))  # warm-up
    best = float("inf")
    for r in range(reps):
        t0 = time.process_time()
        run_lockstep(variants, instance, rounds, np.random.SeedSequence(r + 1), record=max(1, rounds // 100))
        best = min(best, time.process_time() - t0)
    return best / rounds * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=300_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--d", type=int, default=5)
    args = ap.parse_args()
    n = 50_000_000
    instance = BanditInstance(d=args.d, gap=0.1)
    variants = [gaussian_params(n, args.d, 1.0, 0.1, counter=c) for c in BANDIT_COUNTERS]
    alone = {v.counter: us_per_round([v], instance, args.rounds, args.reps) for v in variants}
    together = us_per_round(variants, instance, args.rounds, args.reps)
    print(f"# {platform.processor() or platform.machine()}; d = {args.d}, {args.rounds} rounds, best of {args.reps}")
    print("| counter | µs per round alone | ratio to the path tree |\n| --- | ---: | ---: |")
    for c, us in alone.items():
        print(f"| {c} | {us:.3f} | {us / alone['path']:.3f} |")
    top = max(alone.values())
    print(f"| all {len(variants)} in lockstep | {together:.3f} | unshared share "
          f"{(together - top) / (sum(alone.values()) - top):.2f} |")


if __name__ == "__main__":
    main()
