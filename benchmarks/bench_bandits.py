"""Speed of the private LinUCB episode kernels (Shariff & Sheffet 2018; docs/performance.md).

For every variant of Fig. 4 (paper constants: n = 5·10^7, d = 5, K = 25, ε = 1, δ = 0.1, Δ = 0.1,
±1 rewards) prints µs per round of the numba kernel the pipeline runs a variant alone with (the
"buffered" one: median and best of ``--repeats`` runs of ``--rounds`` rounds; every run is a prefix of
a paper-scale run), of the "onthefly" reference kernel it is tested against (median), and of the
plain-numpy reference implementation of the same variant (``privopt.bandits.linucb``, ``--ref-rounds``
rounds), timed in the same process, and the ratio numpy / buffered.  Also the first-call time (numba
compilation or cache load).

Beside each variant: the random-draw floor of its round (``bench_bandit_floor.py``: the same draws
from the project's generator and nothing else), measured in the same run, and the ratio to it.  The
numpy reference is warmed up (a few rounds, untimed) before it is timed, so its figure never includes
the first compilation of the numba samplers it calls.

Lockstep groups (issue 14, :func:`privopt.bandits.episodes.run_lockstep`): µs per round of the whole
group (Fig. 4's four variants; Fig. 5's nine-point ρ_min grid of each mechanism), the group's own
floor (environment drawn once, each noise group once) and the ratios to that floor, to one variant's
round and to the sum of its variants' rounds run one by one.

Target (the project's): ≤ 2 µs per round per run for every private variant on one core
(issue 14: ≤ 1.5× the floor per variant, an Exp. 3 lockstep round ≤ 3× one variant's round).
Peers on this kind of machine: BanditLib private LinUCB 146–177 µs/round (shifted Wishart; 45 µs
Gaussian); the authors' Julia ≤ 72 µs/round.

``--large-d 32 45 64`` additionally times NonPrivate LinUCB at the Exp. 1 sizes (K = d², n = 10^5,
Gaussian rewards; issue 24): the previous large-d kernel ("batched": float64 BLAS scores) and the one
the pipeline runs from d = 12 ("prefilter": float32 BLAS scores with a rigorous bound, the argmax in
float64, the same results as the reference kernel bit for bit) — interleaved, ``--large-d-repeats``
times each, CPU µs per round (``time.process_time``: on a machine shared with other jobs it counts this
process only), medians and the ratio old/new, with each method's floor measured in the same loop
(``bench_bandit_floor.large_d_floor_parts``: old = the draws + float64 product of all arms, new = the
same draws as the prefilter kernel makes them + float32 product).  ``--large-d-kernels`` adds others ("buffered",
"onthefly"), and ``--previous SRC`` the batched and prefilter kernels of an earlier checkout (run in child
processes, in the same loop; issue 24's old/new), which is how :data:`privopt.bandits.episodes.BATCHED_MIN_D` was chosen
(:data:`~privopt.bandits.episodes.PREFILTER_MIN_D` from ``--cost-table --cost-kernel batched`` / ``prefilter``).

``--cost-table`` times instead the grid of the run-cost model (:mod:`privopt.pipeline.cost`):
NonPrivate at ``--cost-dims`` and the three private variants at ``--cost-private-dims``, each with
the kernel the pipeline uses (``kernel="auto"``: batched from d = 12), median of ``--repeats`` runs
of about 0.3 s each, and prints the rows as Python literals to paste into the model's tables.

Run: ``python benchmarks/bench_bandits.py [--rounds N] [--repeats R] [--ref-rounds M] [--large-d ...]``
or ``python benchmarks/bench_bandits.py --cost-table [--repeats R]``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core per run (batched kernel uses BLAS)
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

from bench_bandit_floor import floor_us_per_round, large_d_floor_parts  # noqa: E402

from privopt.bandits import (  # noqa: E402
    VARIANTS,
    BanditInstance,
    nonprivate_params,
    params_for_rho_min,
    rho_min_grid,
    run_episode,
    variant_params,
)
from privopt.bandits.episodes import BATCHED_MIN_D, PREFILTER_MIN_D, run_lockstep  # noqa: E402

N_PAPER = 50_000_000
PEERS = {
    "nonprivate": "-",
    "gaussian": "BanditLib 45 us; authors' Julia <= 72 us",
    "wishart": "BanditLib 146-177 us; authors' Julia <= 72 us",
    "wishart_unshifted": "BanditLib 146-177 us; authors' Julia <= 72 us",
}


def time_kernel(params, inst, rounds: int, repeats: int, kernel: str = "auto") -> tuple[float, list[float]]:
    t0 = time.perf_counter()
    run_episode(params, inst, 2, 0, kernel=kernel)
    first = time.perf_counter() - t0
    per_round = []
    for rep in range(repeats):
        t0 = time.perf_counter()
        run_episode(params, inst, rounds, rep + 1, kernel=kernel, record=max(1, rounds // 100))
        per_round.append(1e6 * (time.perf_counter() - t0) / rounds)
    return first, per_round


def time_lockstep(variants, inst, rounds: int, repeats: int) -> tuple[float, list[float]]:
    """(first call s, µs per round of the whole group per run) of :func:`run_lockstep`."""
    t0 = time.perf_counter()
    run_lockstep(variants, inst, 2, 0)
    first = time.perf_counter() - t0
    per_round = []
    for rep in range(repeats):
        t0 = time.perf_counter()
        run_lockstep(variants, inst, rounds, rep + 1, record=max(1, rounds // 100))
        per_round.append(1e6 * (time.perf_counter() - t0) / rounds)
    return first, per_round


def lockstep_groups(d: int = 5) -> dict[str, list]:
    """The lockstep groups of the pipeline at paper constants: Fig. 4's variants, Fig. 5's grids."""
    grid = rho_min_grid(N_PAPER, d)
    return {"fig4 (4 variants)": [variant_params(v, N_PAPER, d) for v in VARIANTS],
            **{f"fig5 {mech} (9 rho_min)": [params_for_rho_min(mech, r, N_PAPER, d, name=f"{mech}@{i}")
                                          for i, r in enumerate(grid)] for mech in ("wishart", "gaussian")}}


def cost_point(name: str, d: int, reward: str, repeats: int, n: int,
               large_kernel: str = "prefilter") -> tuple[float, float, float, str, int]:
    """(first call s, median wall us/round, median CPU us/round, kernel, rounds) of one variant at d,
    K = d², with the kernel the pipeline uses.  CPU time (``time.process_time``) is what a job with a
    core of its own needs; on a loaded machine wall time also counts the waits for the core."""
    kernel = "buffered" if d < BATCHED_MIN_D else large_kernel if d >= PREFILTER_MIN_D else "batched"
    inst = BanditInstance(d=d, gap=0.1, reward=reward)
    p = variant_params(name, n, d)
    t0 = time.perf_counter()
    run_episode(p, inst, 2, 0, kernel=kernel)
    first = time.perf_counter() - t0
    c0 = time.process_time()
    run_episode(p, inst, 50, 0, kernel=kernel)
    pilot = (time.process_time() - c0) / 50
    rounds = int(min(p.n, max(200, min(300_000, 0.3 / max(pilot, 1e-9)))))
    wall, cpu = [], []
    for rep in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        run_episode(p, inst, rounds, rep + 1, kernel=kernel, record=max(1, rounds // 100))
        wall.append(1e6 * (time.perf_counter() - t0) / rounds)
        cpu.append(1e6 * (time.process_time() - c0) / rounds)
    return first, statistics.median(wall), statistics.median(cpu), kernel, rounds


def cost_table(dims: list[int], private_dims: list[int], repeats: int, large_kernel: str = "prefilter") -> None:
    print(f"# cost-model table: median of {repeats} runs of ~0.3 s CPU each; first call = numba compile or cache load")
    print("# NonPrivate: n = 1e5 constants, Gaussian rewards; private: n = 5e7 constants, ±1 rewards; gap 0.1")
    print(f"{'variant':18s} {'d':>3s} {'kernel':>9s} {'rounds':>7s} {'first call':>10s} {'wall us/rd':>10s} "
          f"{'CPU us/rd':>10s}")
    rows = []
    points = [("nonprivate", d, "gaussian", 100_000) for d in dims]
    points += [(v, d, "pm1", N_PAPER) for d in private_dims for v in ("gaussian", "wishart", "wishart_unshifted")]
    for name, d, reward, n in points:
        first, wall, cpu, kernel, rounds = cost_point(name, d, reward, repeats, n, large_kernel)
        rows.append((name, d, cpu))
        print(f"{name:18s} {d:3d} {kernel:>9s} {rounds:7d} {first:9.2f}s {wall:10.3f} {cpu:10.3f}", flush=True)
    print("\n# CPU us/round as Python literals, (variant, d): us")
    for name, d, cpu in rows:
        print(f"    ({name!r}, {d}): {cpu:.3g},")


def cpu_model() -> str:
    """The CPU's model name (``lscpu``'s "Model name", from /proc/cpuinfo), else the platform's."""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _cpu_us(params, inst, rounds: int, seed: int, kernel: str) -> float:
    c0 = time.process_time()
    run_episode(params, inst, rounds, seed, kernel=kernel, record=max(1, rounds // 100))
    return 1e6 * (time.process_time() - c0) / rounds


_PREVIOUS_SNIPPET = """
import os, sys, time
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
from privopt.bandits import BanditInstance, nonprivate_params, run_episode
d, rounds, seed, kernel = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
inst = BanditInstance(d=d, gap=0.1, reward="gaussian")
p = nonprivate_params(100_000, d)
run_episode(p, inst, 2, 0, kernel=kernel)
c0 = time.process_time()
run_episode(p, inst, rounds, seed, kernel=kernel, record=max(1, rounds // 100))
print(1e6 * (time.process_time() - c0) / rounds)
"""


def _previous_us(src: str, d: int, rounds: int, seed: int, kernel: str) -> float:
    """CPU µs per round of ``kernel`` of the privopt at ``src`` (another checkout's ``src/``), in a child process
    (its numba cache lives beside that source, so only the first call compiles)."""
    env = dict(os.environ, PYTHONPATH=src)
    out = subprocess.run([sys.executable, "-c", _PREVIOUS_SNIPPET, str(d), str(rounds), str(seed), kernel],
                         env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def large_d(dims: list[int], repeats: int, kernels: list[str], previous: str | None = None,
            previous_kernels: tuple[str, ...] = ("batched", "prefilter")) -> None:
    """Exp. 1 sizes: the kernels interleaved, with the floors of the old and new method (module docstring).

    ``previous``: the ``src/`` folder of an earlier checkout (e.g. a ``git worktree`` of the commit before a
    change), whose ``previous_kernels`` are timed in the same loop, each in a child process."""
    if previous:
        for k in previous_kernels:
            for d in dims:
                _previous_us(previous, d, 2, 0, k)  # compile the previous kernels once, untimed
        kernels = [f"previous:{k}" for k in previous_kernels] + list(kernels)
    print(f"\n# Exp. 1 sizes: NonPrivate, K = d^2, n = 1e5, Gaussian rewards; CPU us per round, median of "
          f"{repeats} interleaved runs per kernel (min-max); floors measured in the same loop")
    head = f"{'d':>3s} {'rounds':>6s} " + " ".join(f"{k + ' us/rd':>24s}" for k in kernels)
    print(head + f" {'old/new':>7s} {'old floor':>9s} {'new floor':>9s} {'new/floor':>9s}  floor parts (draws, "
                 "prefilter's draws, float64 product, float32 product)")
    for d in dims:
        inst = BanditInstance(d=d, gap=0.1, reward="gaussian")
        p = nonprivate_params(100_000, d)
        rounds = max(100, 20_000_000 // d**3)
        for k in kernels:
            if not k.startswith("previous:"):
                run_episode(p, inst, 2, 0, kernel=k)  # compile or load
        times = {k: [] for k in kernels}
        parts = []
        for rep in range(repeats):
            for k in kernels:
                if k.startswith("previous:"):
                    times[k].append(_previous_us(previous, d, rounds, rep + 1, k.split(":", 1)[1]))
                else:
                    times[k].append(_cpu_us(p, inst, rounds, rep + 1, k))
            parts.append(large_d_floor_parts(d, rounds, seed=rep + 1))
        med = {k: statistics.median(v) for k, v in times.items()}
        part = {name: statistics.median(pt[name] for pt in parts) for name in parts[0]}
        old_floor = part["draws"] + part["gemm64"]
        new_floor = part["draws_prefilter"] + part["sgemm32"]
        cells = " ".join(f"{med[k]:8.1f} ({min(v):6.1f}-{max(v):6.1f})" for k, v in times.items())
        ratio = med[kernels[0]] / med[kernels[-1]]
        print(f"{d:3d} {rounds:6d} {cells} {ratio:6.2f}x {old_floor:9.1f} {new_floor:9.1f} "
              f"{med[kernels[-1]] / new_floor:8.2f}x  {part['draws']:.1f}, {part['draws_prefilter']:.1f}, "
              f"{part['gemm64']:.1f}, {part['sgemm32']:.1f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=200_000, help="rounds per timed numba run")
    ap.add_argument("--repeats", type=int, default=5, help="timed numba runs per variant")
    ap.add_argument("--ref-rounds", type=int, default=300, help="rounds of the numpy reference")
    ap.add_argument("--large-d", type=int, nargs="*", default=[], help="Exp. 1 dimensions to time")
    ap.add_argument("--large-d-repeats", type=int, default=5, help="interleaved timed runs per kernel at each d")
    ap.add_argument("--large-d-kernels", nargs="*", default=["batched", "prefilter"],
                    help="kernels timed at --large-d (first = the old one the ratio divides)")
    ap.add_argument("--large-d-only", action="store_true", help="skip the d = 5 tables")
    ap.add_argument("--previous", metavar="SRC", help="src/ of an earlier checkout: its batched and prefilter "
                    "kernels are timed at --large-d in the same loop (the ratio divides by the first)")
    ap.add_argument("--cost-table", action="store_true", help="time the cost-model grid only")
    ap.add_argument("--cost-dims", type=int, nargs="*", default=[3, 4, 5, 6, 8, 11, 12, 16, 23, 32, 45, 64],
                    help="NonPrivate dimensions of --cost-table")
    ap.add_argument("--cost-private-dims", type=int, nargs="*", default=[3, 5, 8, 12, 16],
                    help="private-variant dimensions of --cost-table")
    ap.add_argument("--cost-kernel", default="prefilter", choices=["prefilter", "batched"],
                    help="kernel of --cost-table from PREFILTER_MIN_D (the pipeline's: prefilter; batched: the previous)")
    args = ap.parse_args()
    if args.cost_table:
        print(f"# {cpu_model()}, python {platform.python_version()}, "
              f"load avg {os.getloadavg()[0]:.2f}")
        cost_table(args.cost_dims, args.cost_private_dims, args.repeats, args.cost_kernel)
        return

    print(f"# {cpu_model()}, python {platform.python_version()}, load avg {os.getloadavg()[0]:.2f}")
    if args.large_d_only:
        large_d(args.large_d, args.large_d_repeats, args.large_d_kernels, args.previous)
        return
    print(f"# d = 5, K = 25, n = 5e7 constants, gap 0.1, ±1 rewards; {args.repeats} x {args.rounds} rounds")
    inst = BanditInstance(d=5, gap=0.1)
    header = (f"{'variant':18s} {'first call':>10s} {'median us/rd':>12s} {'best us/rd':>10s} "
              f"{'floor us/rd':>11s} {'x floor':>7s} {'onthefly':>8s} {'numpy us/rd':>11s} {'numpy/numba':>11s}   peers")
    print(header)
    alone = {}
    floors = {}
    for name in VARIANTS:
        p = variant_params(name, N_PAPER, 5)
        first, per_round = time_kernel(p, inst, args.rounds, args.repeats)
        med, best = statistics.median(per_round), min(per_round)
        onthefly = statistics.median(time_kernel(p, inst, args.rounds, args.repeats, kernel="onthefly")[1])
        alone[name] = med
        floors[p.mechanism] = floor_us_per_round([p.mechanism], rounds=args.rounds, repeats=args.repeats)[0]
        fl = floors[p.mechanism]
        run_episode(p, inst, 5, 0, engine="numpy")  # warm-up: numba samplers compiled or loaded, untimed
        t0 = time.perf_counter()
        run_episode(p, inst, args.ref_rounds, 1, engine="numpy")
        ref = 1e6 * (time.perf_counter() - t0) / args.ref_rounds
        print(f"{name:18s} {first:9.2f}s {med:12.3f} {best:10.3f} {fl:11.3f} {med / fl:6.2f}x {onthefly:8.3f} {ref:11.1f} "
              f"{ref / med:10.0f}x   {PEERS[name]}", flush=True)
    print(f"\n# lockstep groups (one kernel, all variants of a seed): {args.repeats} x {args.rounds} rounds")
    print(f"{'group':26s} {'first call':>10s} {'median us/rd':>12s} {'best us/rd':>10s} {'floor us/rd':>11s} "
          f"{'x floor':>7s} {'x 1 variant':>11s} {'one by one':>10s} {'speed-up':>8s} {'unshared':>8s}")
    for label, vs in lockstep_groups().items():
        first, per_round = time_lockstep(vs, inst, args.rounds, args.repeats)
        med, best = statistics.median(per_round), min(per_round)
        mechs = sorted({v.mechanism for v in vs} - {"none"})
        fl = floor_us_per_round(mechs, rounds=args.rounds, repeats=args.repeats)[0]
        if label.startswith("fig4"):
            one, sum_alone = max(alone.values()), sum(alone.values())
        else:  # one grid point alone ≈ the default variant of that mechanism alone
            one = alone[vs[0].mechanism]
            sum_alone = one * len(vs)
        # share of the other variants' own rounds a lockstep round still costs (the cost model's LOCKSTEP_SHARE)
        unshared = (med - one) / (sum_alone - one)
        print(f"{label:26s} {first:9.2f}s {med:12.3f} {best:10.3f} {fl:11.3f} {med / fl:6.2f}x {med / one:10.2f}x "
              f"{sum_alone:10.2f} {sum_alone / med:7.2f}x {unshared:8.2f}", flush=True)
    print("# x 1 variant: the group's round / the dearest variant's round alone; one by one: the sum of its variants'"
          "\n# rounds alone (Fig. 5: 9 x the default variant of the mechanism); unshared: (group − dearest alone) /"
          "\n# (one by one − dearest alone)")
    if args.large_d:
        large_d(args.large_d, args.large_d_repeats, args.large_d_kernels, args.previous)

if __name__ == "__main__":
    main()
