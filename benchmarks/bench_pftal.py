"""Speed of the PFTAL, bandit-PFTAL and TBAP kernels (Smith & Thakurta 2013).

For each kernel prints CPU ns per step per replica (a replica = one (ε, seed) pair) of the numba kernel (median
and best of ``--repeats`` runs of ``--steps`` steps × ``--replicas`` replicas, ε = 1, points uniform in the
unit ball) beside the numpy version of the same algorithm (:func:`privopt.online.pftal.reference.pftal_reference`,
:func:`privopt.online.pftal.reference.bandit_pftal_reference`: vectorised over the replicas, noise drawn in bulk from a
numpy Generator — the same law; with per-replica FastGenerators the same functions reproduce the kernel bit
for bit, but draw replica by replica — ``--ref-steps`` steps), timed in the same process, and their ratio; also the first call (compilation or
cache load).  The numpy prototype of the design notes (not in the repository) ran PFTAL at ≈ 30–60 µs per step for R = 60 replicas, i.e.
0.5–1 µs per step per replica.

``--cost-table`` prints the constants of :mod:`privopt.experiments.smith2013.cost` (median CPU time of
``--repeats`` runs): PFTAL at p ∈ {1, 2, 8, 64} (fit a + b·p), bandit PFTAL at p = 2, TBAP at d ∈ {2, 8},
and the comparators per point.

Run: ``python benchmarks/bench_pftal.py [--steps N] [--replicas R] [--repeats K] [--ref-steps M]`` or
``python benchmarks/bench_pftal.py --cost-table``.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import time

import numpy as np

from privopt.fastrng import FastGenerator
from privopt.online.pftal.bandit import bandit_setup, run_bandit
from privopt.online.pftal.comparators import best_fixed
from privopt.online.pftal.losses import loss_code
from privopt.online.pftal.full import pftal_setup, run_pftal
from privopt.online.pftal.reference import bandit_pftal_reference, pftal_reference
from privopt.mechanisms.tbap import tbap_error_sq

POOL = 100_000


def points(p: int, n: int = POOL, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, p))
    return x / np.linalg.norm(x, axis=1)[:, None] * rng.random((n, 1)) ** (1 / p)


def states(n: int, base: int) -> np.ndarray:
    return np.stack([FastGenerator(base + i).state for i in range(n)])


def _clock(cpu: bool):
    return time.process_time if cpu else time.perf_counter


def time_pftal(loss: str, p: int, steps: int, replicas: int, repeats: int, cpu: bool = False):
    pts = points(p)
    idx = np.random.default_rng(1).integers(0, POOL, size=(replicas, steps))
    setups = [pftal_setup(loss, steps, p, 1.0)] * replicas
    clock = _clock(cpu)
    t0 = time.perf_counter()
    run_pftal(pts, idx[:1, :8], [0], [pftal_setup(loss, 8, p, 1.0)], states(1, 0))
    first = time.perf_counter() - t0
    out = []
    for rep in range(repeats):
        t0 = clock()
        run_pftal(pts, idx, np.arange(replicas), setups, states(replicas, 1000 * rep))
        out.append(1e9 * (clock() - t0) / (steps * replicas))
    return first, out


def time_pftal_numpy(loss: str, p: int, steps: int, replicas: int, cpu: bool = True) -> float:
    pts = points(p)
    idx = np.random.default_rng(1).integers(0, POOL, size=(replicas, steps))
    s = pftal_setup(loss, steps, p, 1.0)
    gens = np.random.default_rng(2)  # bulk draws: the fast numpy version (same law as the kernel)
    clock = _clock(cpu)
    t0 = clock()
    pftal_reference(pts, idx, np.arange(replicas), loss_code(loss), s.regularised, steps, [s.H] * replicas,
                [s.mu] * replicas, [s.lam] * replicas, 1.0, gens)
    return 1e9 * (clock() - t0) / (steps * replicas)


def time_bandit(steps: int, replicas: int, repeats: int, cpu: bool = False):
    pts = points(2)
    idx = np.random.default_rng(1).integers(0, POOL, size=(replicas, steps))
    setups = [bandit_setup("sc", steps, 2, 1.0, beta_rule="adaptive", B=2.0)] * replicas
    clock = _clock(cpu)
    t0 = time.perf_counter()
    run_bandit(pts, idx[:1, :8], [0], [bandit_setup("sc", 8, 2, 1.0, beta_rule="adaptive", B=2.0)], states(1, 0),
               states(1, 1))
    first = time.perf_counter() - t0
    out = []
    for rep in range(repeats):
        t0 = clock()
        run_bandit(pts, idx, np.arange(replicas), setups, states(replicas, 1000 * rep), states(replicas, 500 + 1000 * rep))
        out.append(1e9 * (clock() - t0) / (steps * replicas))
    return first, out


def time_bandit_numpy(steps: int, replicas: int, cpu: bool = True) -> float:
    pts = points(2)
    idx = np.random.default_rng(1).integers(0, POOL, size=(replicas, steps))
    s = bandit_setup("sc", steps, 2, 1.0, beta_rule="adaptive", B=2.0)
    clock = _clock(cpu)
    t0 = clock()
    bandit_pftal_reference(pts, idx, np.arange(replicas), 0, steps, [s.H] * replicas, [s.beta] * replicas, [s.mu] * replicas,
                 [s.lam] * replicas, 1.0, np.random.default_rng(2), np.random.default_rng(3))
    return 1e9 * (clock() - t0) / (steps * replicas)


def time_tbap(d: int, steps: int, replicas: int, repeats: int, cpu: bool = True) -> list[float]:
    clock = _clock(cpu)
    tbap_error_sq(8, d, 1.0, states(1, 0))
    out = []
    for rep in range(repeats):
        t0 = clock()
        tbap_error_sq(steps, d, 1.0, states(replicas, 1000 * rep))
        out.append(1e9 * (clock() - t0) / (steps * replicas))
    return out


def comparator_ns(loss: str, n: int = 2**17, repeats: int = 3) -> float:
    x = points(2, n, 3) * 0.3
    out = []
    for _ in range(repeats):
        t0 = time.process_time()
        best_fixed(loss, x)
        out.append(1e9 * (time.process_time() - t0) / n)
    return statistics.median(out)


def cost_table(repeats: int) -> None:
    print(f"# CPU ns per step per replica (median of {repeats}); {platform.processor() or platform.machine()}, "
          f"load {os.getloadavg()[0]:.2f}")
    rows = {}
    for p in (1, 2, 8, 64):
        rows[p] = statistics.median(time_pftal("gc", p, 2**15, 12, repeats, cpu=True)[1])
        print(f"pftal p={p}: {rows[p]:.0f}")
    b, a = np.polyfit(list(rows), list(rows.values()), 1)
    print(f'NS_PER_STEP["pftal_a"] = {a:.0f}, NS_PER_STEP["pftal_b"] = {b:.1f}')
    print(f'NS_PER_STEP["bandit"] = {statistics.median(time_bandit(2**15, 12, repeats, cpu=True)[1]):.0f}')
    tb = {d: statistics.median(time_tbap(d, 4096, 200, repeats)) for d in (2, 8)}
    slope = (tb[8] - tb[2]) / 6
    print(f'NS_PER_STEP["tbap_a"] = {tb[2] - 2 * slope:.0f}, NS_PER_STEP["tbap_b"] = {slope:.1f}')
    print(f'NS_PER_POINT = {{"sc": {comparator_ns("sc"):.0f}, "gc": {comparator_ns("gc"):.0f}}}  (p = 2)')


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=2**16, help="steps (horizon T) per timed numba run")
    ap.add_argument("--replicas", type=int, default=24, help="replicas per timed run")
    ap.add_argument("--repeats", type=int, default=5, help="timed numba runs per row")
    ap.add_argument("--ref-steps", type=int, default=256, help="steps of the numpy version")
    ap.add_argument("--cost-table", action="store_true", help="print the cost-model constants only")
    args = ap.parse_args()
    if args.cost_table:
        cost_table(args.repeats)
        return
    print(f"python {platform.python_version()}, {platform.processor() or platform.machine()}, "
          f"load average {os.getloadavg()[0]:.2f}; {args.replicas} replicas, eps = 1")
    print("CPU time (time.process_time) per step per replica; first call: wall seconds")
    print(f"{'kernel':28s} {'first call s':>12s} {'median ns':>10s} {'best ns':>9s} {'numpy ns':>10s} {'ratio':>7s}")
    for loss, p in (("sc", 2), ("gc", 2), ("sc", 8), ("gc", 64)):
        first, ns = time_pftal(loss, p, args.steps, args.replicas, args.repeats, cpu=True)
        ref = time_pftal_numpy(loss, p, args.ref_steps, args.replicas)
        med = statistics.median(ns)
        print(f"{f'PFTAL {loss}, p = {p}':28s} {first:12.2f} {med:10.0f} {min(ns):9.0f} {ref:10.0f} {ref / med:6.0f}x")
    first, ns = time_bandit(args.steps, args.replicas, args.repeats, cpu=True)
    ref = time_bandit_numpy(args.ref_steps, args.replicas)
    med = statistics.median(ns)
    print(f"{'bandit PFTAL sc, p = 2':28s} {first:12.2f} {med:10.0f} {min(ns):9.0f} {ref:10.0f} {ref / med:6.0f}x")
    for d in (2, 8):
        ns = time_tbap(d, 4096, 200, args.repeats)
        print(f"{f'TBAP alone, d = {d}':28s} {'':12s} {statistics.median(ns):10.0f} {min(ns):9.0f}")
    if math.isfinite(os.getloadavg()[0]) and os.getloadavg()[0] > 1.5:
        print("(the machine is loaded: other processes share the cores)")


if __name__ == "__main__":
    main()
