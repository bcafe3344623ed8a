"""Figure 5's lockstep round, this checkout's kernel beside an earlier commit's, in one run (issue 36).

A Figure 5 run job (experiment ``exp3``) runs one mechanism at the nine ρ_min grid points of one gap in lockstep
(d = 5, K = 25, ε = 1, δ = 0.1, constants for n = 5·10^7, ±1 rewards;
:func:`privopt.experiments.shariff2018.runs.exp3_block`).
For each group below, each of ``--reps`` repetitions times, in turn, the earlier commit's kernel and this
checkout's, each in a child process of its own that stays up for the whole run (``PYTHONPATH`` = that ``src/``;
its numba cache lives beside that source; the first, untimed, call of each group compiles or loads it): CPU time
(``time.process_time`` in the child, around ``run_lockstep`` only) per round of ``--rounds`` rounds on seed
rep + 1.  Interleaving the two makes the ratio
robust to the load of a shared machine; the table gives the medians, the ratio new / old and the CPU seconds
of one paper-scale run of the group (5·10^7 rounds, one seed).

Groups: Fig. 5's Wishart and Gaussian grids (the run jobs), and one variant alone (the same kernel with one
lane: what Exp. 1's runs below d = 12 use), at d = 5 and d = 11, to show that they did not get dearer.

The earlier commit (``--previous``, default the commit before issue 36's lanes) is exported with
``git archive`` into a folder under the system's temporary directory (kept, so later runs reuse its cache).

Run by hand, never as a test:  ``python benchmarks/bench_fig5_kernel.py [--rounds 100000] [--reps 5]
[--previous REV]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: the last commit before the variants ran as lanes (issue 36)
PREVIOUS = "aa8413a"
N_PAPER = 50_000_000

_CHILD = """
import sys, time
from privopt.bandits import BanditInstance, params_for_rho_min, rho_min_grid, variant_params
from privopt.bandits.episodes import run_lockstep
n = 50_000_000
for line in sys.stdin:  # one request a line: group d rounds seed -> CPU us per round
    group, d, rounds, seed = line.split()
    d, rounds, seed = int(d), int(rounds), int(seed)
    if group == "nonprivate":
        vs = [variant_params("nonprivate", n, d)]
    else:
        vs = [params_for_rho_min(group, r, n, d, name=f"{group}@{i}") for i, r in enumerate(rho_min_grid(n, d))]
    inst = BanditInstance(d=d, gap=0.1)
    c0 = time.process_time()
    run_lockstep(vs, inst, rounds, seed, record=max(1, rounds // 10))
    print(1e6 * (time.process_time() - c0) / rounds, flush=True)
"""

#: (label, group, d): the two run jobs of Figure 5, and one variant alone
GROUPS = (("Fig. 5 Wishart grid (9 variants)", "wishart", 5),
          ("Fig. 5 Gaussian grid (9 variants)", "gaussian", 5),
          ("NonPrivate alone, d = 5", "nonprivate", 5),
          ("NonPrivate alone, d = 11", "nonprivate", 11))


def export(rev: str) -> Path:
    """``src/`` of commit ``rev``, exported once into the temporary directory."""
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", rev], capture_output=True, text=True,
                         check=True).stdout.strip()
    root = Path(tempfile.gettempdir()) / f"privopt-src-{sha[:12]}"
    if not (root / "src" / "privopt").is_dir():
        tmp = root.with_name(root.name + f".part{os.getpid()}")
        tmp.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", sha, "src"], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive.stdout, check=True)
        tmp.rename(root)
    return root / "src"


class Child:
    """A Python process importing privopt from ``src``, timing one ``run_lockstep`` per request."""

    def __init__(self, src: Path):
        env = dict(os.environ, PYTHONPATH=str(src), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        self.proc = subprocess.Popen([sys.executable, "-c", _CHILD], env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def us_per_round(self, group: str, d: int, rounds: int, seed: int) -> float:
        self.proc.stdin.write(f"{group} {d} {rounds} {seed}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the benchmark's child process ended (exit status {self.proc.wait()})")
        return float(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=100_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--previous", default=PREVIOUS, help=f"the earlier commit (default {PREVIOUS})")
    args = ap.parse_args()
    old_src, new_src = export(args.previous), REPO / "src"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# {cpu_model()}, {os.cpu_count()} cores, load average {load:.1f}; Python {platform.python_version()}")
    print(f"# CPU µs per round (time.process_time in the child), median of {args.reps} interleaved runs of "
          f"{args.rounds} rounds; old = {args.previous}, new = this checkout")
    times = {(label, which): [] for label, _, _ in GROUPS for which in ("old", "new")}
    children = {"old": Child(old_src), "new": Child(new_src)}
    for label, group, d in GROUPS:  # first calls: compile (or load the cache), untimed
        for child in children.values():
            child.us_per_round(group, d, 2, 0)
    for rep in range(args.reps):
        for label, group, d in GROUPS:
            for which, child in children.items():
                times[label, which].append(child.us_per_round(group, d, args.rounds, rep + 1))
    for child in children.values():
        child.close()
    print("\n| group | old µs/round | new µs/round | new / old | one paper-scale run, old → new (CPU s) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for label, _, _ in GROUPS:
        old, new = (statistics.median(times[label, w]) for w in ("old", "new"))
        print(f"| {label} | {old:.3f} | {new:.3f} | {new / old:.3f} | {old * N_PAPER * 1e-6:.0f} → "
              f"{new * N_PAPER * 1e-6:.0f} |", flush=True)


if __name__ == "__main__":
    main()
