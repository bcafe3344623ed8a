"""Nanoseconds per streamed step of every continual counter (privopt.mechanisms.counting), beside the tree.

For T = 2^14 items and p = 1, 16, 64 coordinates, each counter streams N(1..T) through its step (the
numba loop of ``prefix_noise``) after a warm-up run (compile / cache load); the time is the best of ``--reps``
runs, divided by T.  The ratio is to the dyadic "tree" counter with the same seed law, measured in the same run.
Seed laws: Gaussian for all (analytic Gaussian, ε = 1, δ = 1e-6), and ℓ2-Laplace (pure ε = 1) for the
counters that support it.  ``sqrt`` is the banded square root with b bands (O(b·p) per step).

Run by hand, never as a test:  ``python benchmarks/bench_counters.py [--T 16384] [--reps 5]``.
"""

from __future__ import annotations

import argparse
import time

from privopt.fastrng import FastGenerator
from privopt.mechanisms import counting as cc


def ns_per_step(counter, reps: int) -> float:
    cc.prefix_noise(counter, FastGenerator(0))  # warm-up
    best = float("inf")
    for r in range(reps):
        fg = FastGenerator(r + 1)
        t0 = time.perf_counter()
        cc.prefix_noise(counter, fg)
        best = min(best, time.perf_counter() - t0)
    return best / counter.T * 1e9


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--T", type=int, default=2**14)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    rows = [("tree", "gaussian", None), ("honaker", "gaussian", None), ("smooth", "gaussian", None),
            ("sqrt", "gaussian", 8), ("sqrt", "gaussian", 32), ("sqrt", "gaussian", 128),
            ("tree", "laplace", None), ("honaker", "laplace", None), ("smooth", "laplace", None)]
    print(f"T = {args.T}; ns per step (best of {args.reps}); ratio to the tree with the same seed law")
    print(f"{'counter':<16}{'noise':<10}" + "".join(f"{'p=' + str(p):>18}" for p in (1, 16, 64)))
    base = {}
    for name, noise, bands in rows:
        cells = []
        for p in (1, 16, 64):
            c = cc.make_counter(name, args.T, p, 1.0, 1.0, 1e-6 if noise == "gaussian" else None, noise=noise,
                                bands=bands)
            ns = ns_per_step(c, args.reps)
            if name == "tree":
                base[(noise, p)] = ns
            cells.append(f"{ns:9.1f} ({ns / base[(noise, p)]:4.2f}x)")
        label = name if bands is None else f"sqrt b={bands}"
        print(f"{label:<16}{noise:<10}" + "".join(f"{x:>18}" for x in cells))


if __name__ == "__main__":
    main()
