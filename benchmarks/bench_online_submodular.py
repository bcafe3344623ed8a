"""Speed of the online submodular maximisation kernels (Perez-Salazar & Cummings 2021).

Prints µs per round per replica (CPU time) of the numba kernels that run every replica of a configuration in
one call (:mod:`privopt.online.osm.kernels`), beside the plain-numpy batched version of the same algorithm
(`benchmarks/osm_numpy.py`: the first prototype's design, Gumbel-max draws on a ``G[R, k, n]`` state),
timed in the same process on the same instance:

* FI-DP at k = 3, |U| = 30 (SYN-CLICK ``main``), the F1 ε grid + SG-NP + UNIF, ``--seeds`` seeds each, at
  T = ``--rounds``; the kernel records everything the pipeline records (Hedge's expected gains for the
  pseudo-regret, realised gains, G);
* BanditDP at k = 2, |U| = 10 (SYN-CLICK-S2), ε ∈ {10, 50, 300, 1000, 3000} + SG-BANDIT-NP, with the
  simulator-side true marginals (Lemma 2).

Targets (the project's): ≤ 0.5 µs (FI) and ≤ 0.25 µs (bandit) per round per replica; the numpy
prototype took about 4 µs and 1.7 µs.  The first call (numba compilation or cache load) is reported
separately.  ``--cost`` prints the linear cost model's constants (µs = a + b·k·n) fitted on a small grid.

Run: ``python benchmarks/bench_online_submodular.py [--rounds N] [--numpy-rounds M] [--repeats R] [--seeds S]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np

from privopt.experiments.perezsalazar2021 import syn
from privopt.online.osm import parameters as par
from privopt.online.osm.coverage import Stream
from osm_numpy import bandit_numpy, fi_numpy
from privopt.online.osm.submodular_max import run_bandit, run_full_information, states_from

FI_EPS = (1, 3, 5, 10, 20, 40, 100)
BANDIT_EPS = (10, 50, 300, 1000, 3000)
SPECS = {"main": {"n": 30, "M": 20, "L": 3, "p_base": 0.02, "seed": 0},
         "s2": {"n": 10, "M": 10, "L": 2, "p_base": 0.02, "seed": 1}}


def _streams(spec, T, seeds):
    pi, P = syn.instance_matrix(spec)
    types = np.stack([syn.type_stream(pi, T, spec, s) for s in range(seeds)])
    return P, types


def _cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def fi_setup(T, seeds, k=3):
    P, types = _streams(SPECS["main"], T, seeds)
    etas = [par.fi_eta(e, k, T, 1e-6) for e in FI_EPS] + [par.sg_eta(k, P.shape[1], T), 0.0]
    eta = np.repeat(etas, seeds)
    stream_of = np.tile(np.arange(seeds), len(etas))
    return P, types, eta, stream_of


def bench_fi(T, numpy_T, repeats, seeds):
    P, types, eta, stream_of = fi_setup(T, seeds)
    R = eta.size
    stream = Stream.single(types)
    first = _cpu(lambda: run_full_information(P, stream, 3, 100, eta[:1], states_from([np.random.SeedSequence(0)])))
    times = []
    for rep in range(repeats):
        states = states_from([np.random.SeedSequence([rep, r]) for r in range(R)])
        times.append(_cpu(lambda: run_full_information(P, stream, 3, T, eta, states, stream_of=stream_of)) / (T * R) * 1e6)
    P2, types2, eta2, so2 = fi_setup(numpy_T, seeds)
    rng = np.random.default_rng(0)
    ref = _cpu(lambda: fi_numpy(P2, types2, so2, 3, numpy_T, eta2, rng)) / (numpy_T * eta2.size) * 1e6
    return first, times, ref, R


def bandit_setup(T, seeds, k=2):
    P, types = _streams(SPECS["s2"], T, seeds)
    g = par.practical_gamma(T)
    etas = [par.bandit_eta(e, k, T, 1e-6, g) for e in BANDIT_EPS] + [par.sg_bandit_eta(k, P.shape[1], T, g)]
    return P, types, np.repeat(etas, seeds), np.tile(np.arange(seeds), len(etas)), g


def bench_bandit(T, numpy_T, repeats, seeds):
    P, types, eta, stream_of, g = bandit_setup(T, seeds)
    R = eta.size
    stream = Stream.single(types)
    one = states_from([np.random.SeedSequence(0)])
    first = _cpu(lambda: run_bandit(P, stream, 2, 100, eta[:1], g, one.copy(), one.copy()))
    times = []
    for rep in range(repeats):
        coins = states_from([np.random.SeedSequence([rep, 1, r]) for r in range(R)])
        states = states_from([np.random.SeedSequence([rep, 2, r]) for r in range(R)])
        times.append(_cpu(lambda: run_bandit(P, stream, 2, T, eta, g, coins, states, stream_of=stream_of)) / (T * R) * 1e6)
    P2, types2, eta2, so2, g2 = bandit_setup(numpy_T, seeds)
    rng = np.random.default_rng(0)
    ref = _cpu(lambda: bandit_numpy(P2, types2, so2, 2, numpy_T, eta2, g2, rng)) / (numpy_T * eta2.size) * 1e6
    return first, times, ref, R


def cost_fit(T=20_000, seeds=2):
    """µs per replica-round of the FI kernel at several (k, n): least squares a + b·k·n."""
    rows = []
    for k, n in ((1, 10), (3, 30), (3, 100), (6, 30), (3, 300)):
        spec = dict(SPECS["s2"])
        pi, P0 = syn.instance_matrix(spec)
        P = syn.padded(P0, n, spec["p_base"]) if n > 10 else P0
        types = np.stack([syn.type_stream(pi, T, spec, s) for s in range(seeds)])
        eta = np.repeat([par.fi_eta(e, k, T, 1e-6) for e in (3, 30, 300)], seeds)
        so = np.tile(np.arange(seeds), 3)
        states = states_from([np.random.SeedSequence(r) for r in range(eta.size)])
        run_full_information(P, Stream.single(types), k, 50, eta[:1], states[:1].copy())
        us = _cpu(lambda: run_full_information(P, Stream.single(types), k, T, eta, states, stream_of=so)) / (T * eta.size) * 1e6
        rows.append((k, n, us))
    X = np.array([[1.0, k * n] for k, n, _ in rows])
    a, b = np.linalg.lstsq(X, np.array([u for *_, u in rows]), rcond=None)[0]
    return rows, a, b


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=100_000, help="rounds of each kernel run (FI and bandit)")
    ap.add_argument("--numpy-rounds", type=int, default=2_000, help="rounds of the plain-numpy runs")
    ap.add_argument("--repeats", type=int, default=5, help="kernel runs timed (median and best reported)")
    ap.add_argument("--seeds", type=int, default=3, help="seeds per algorithm (replicas = algorithms × seeds)")
    ap.add_argument("--cost", action="store_true", help="also fit the FI cost model's constants")
    args = ap.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# {platform.processor() or platform.machine()}, python {platform.python_version()}, load average {load:.2f}")
    print("| kernel | replicas | median µs/round/replica | best | plain-numpy (same run) | ratio | target | first call (s) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, fn, target in (("FI-DP k=3, |U|=30", bench_fi, 0.5), ("BanditDP k=2, |U|=10", bench_bandit, 0.25)):
        first, times, ref, R = fn(args.rounds, args.numpy_rounds, args.repeats, args.seeds)
        med = statistics.median(times)
        print(f"| {name} | {R} | {med:.3f} | {min(times):.3f} | {ref:.2f} µs | {ref / med:.0f}× | ≤ {target} | {first:.1f} |")
    if args.cost:
        rows, a, b = cost_fit()
        print("# FI kernel cost fit (k, n, µs):", ", ".join(f"({k}, {n}, {u:.3f})" for k, n, u in rows))
        print(f"# FI_US0 = {a:.3f}, FI_US_PER_ITEM = {b:.5f}")


if __name__ == "__main__":
    main()
