"""Compile CPU of the private LinUCB kernels, one specialisation at a time, this checkout beside an earlier commit.

Each kernel specialisation (kernel, d, number of lockstep lanes) is compiled in a fresh child process with an
empty numba cache of its own (``NUMBA_CACHE_DIR`` a new temporary folder): what a fresh clone, or CI, pays the
first time a job or test needs it, including the helpers it calls that nothing compiled before.  The child
times its first two-round call (``time.process_time``: CPU, so a loaded machine changes little) and numba's own
account of it (``numba:compile`` events, and the share spent in LLVM, ``numba:llvm_lock``).  For each
specialisation the earlier commit (``--previous``, exported with ``git archive`` into a temporary folder) and this
checkout are measured in turn, ``--reps`` times each, interleaved.

With ``--shared`` the specialisations are compiled one after another into one cache per checkout, as a pipeline's
jobs do (a helper one of them compiled is loaded by the next): the cost of a whole grid, e.g. Exp. 1's dimensions
(``--variant nonprivate --only lockstep:4 lockstep:6 lockstep:8 lockstep:11 batched:16 prefilter:23``).

Run by hand, never as a test:
``python benchmarks/bench_kernel_compile.py [--previous REV] [--reps 1] [--only onthefly:5 ...] [--shared]
[--variant wishart]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: the commit before issue 40 step 4 (one round loop, fewer compilations)
PREVIOUS = "e81ab8d"

#: (kernel, d, lanes): what the pipeline's kernel choice compiles (lockstep "buffered" below d = 12, batched
#: from 12, prefilter from 20) and the on-the-fly reference kernel the tests compare them with
SPECS = (("lockstep", 5, 1), ("lockstep", 5, 9), ("onthefly", 5, 1), ("batched", 16, 1), ("prefilter", 23, 1))

_CHILD = r"""
import json, sys, time
from numba.core import event
kernel, d, lanes, variant = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
acc, start = {}, {}
class Listener(event.Listener):
    def on_start(self, ev):
        start.setdefault(ev.kind, []).append(time.process_time())
    def on_end(self, ev):
        t0 = start[ev.kind].pop()
        if not start[ev.kind]:  # outermost event of its kind only
            acc[ev.kind] = acc.get(ev.kind, 0.0) + time.process_time() - t0
for kind in ("numba:compile", "numba:llvm_lock"):
    event.register(kind, Listener())
from privopt.bandits import BanditInstance, params_for_rho_min, rho_min_grid, variant_params
from privopt.bandits.episodes import run_episode, run_lockstep
n = 50_000_000
inst = BanditInstance(d=d, gap=0.1)
c0 = time.process_time()
if kernel == "lockstep" and lanes > 1:
    vs = [params_for_rho_min("wishart", r, n, d, name=f"w@{i}") for i, r in enumerate(rho_min_grid(n, d))][:lanes]
    run_lockstep(vs, inst, 2, 0, record=1)
else:
    run_episode(variant_params(variant, n, d), inst, 2, 0, kernel="buffered" if kernel == "lockstep" else kernel)
print(json.dumps({"cpu": time.process_time() - c0, "compile": acc.get("numba:compile", 0.0),
                  "llvm": acc.get("numba:llvm_lock", 0.0)}))
"""


def export(rev: str) -> Path:
    """``src/`` of commit ``rev`` in a temporary folder (``git archive``)."""
    dest = Path(tempfile.mkdtemp(prefix=f"privopt-{rev}-"))
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "src"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest / "src"


def measure(src: Path, kernel: str, d: int, lanes: int, variant: str = "wishart", cache: str | None = None) -> dict:
    """One specialisation's first call in a child process: in an empty cache of its own, or in ``cache``."""
    with tempfile.TemporaryDirectory() as empty:
        env = {**os.environ, "PYTHONPATH": str(src), "NUMBA_CACHE_DIR": cache or empty, "OPENBLAS_NUM_THREADS": "1"}
        out = subprocess.run([sys.executable, "-c", _CHILD, kernel, str(d), str(lanes), variant], env=env,
                             capture_output=True, text=True, cwd=tempfile.gettempdir())
    if out.returncode:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--previous", default=PREVIOUS, help="earlier commit to compare with")
    ap.add_argument("--reps", type=int, default=1, help="cold compilations per specialisation and checkout")
    ap.add_argument("--only", nargs="*", default=[], help="kernel:d[:lanes] specialisations (default: SPECS)")
    ap.add_argument("--shared", action="store_true",
                    help="compile the specialisations in turn into one cache per checkout and repetition")
    ap.add_argument("--variant", default="wishart", help="the variant run (privopt.bandits.variant_params)")
    args = ap.parse_args()
    specs = [(k, int(d), int(rest[0]) if rest else 1) for k, d, *rest in (s.split(":") for s in args.only)] or SPECS
    sources = {args.previous: export(args.previous), "this": REPO / "src"}
    caches = "one cache per checkout, specialisations in turn" if args.shared else "cold-cache"
    print(f"CPU: {platform.processor() or platform.machine()}; {caches} compile CPU s per specialisation (first call "
          f"of {args.variant}; numba compile / of it LLVM), median of {args.reps}")
    # checkouts interleaved per repetition; with --shared one cache per (checkout, repetition) for all the specs
    res = {label: {spec: [] for spec in specs} for label in sources}
    for _ in range(args.reps):
        for label, src in sources.items():
            with tempfile.TemporaryDirectory() as cache:
                for spec in specs:
                    res[label][spec].append(measure(src, *spec, args.variant, cache if args.shared else None))
    print(f"{'kernel':10s} {'d':>3s} {'lanes':>5s} " + " ".join(f"{label + ' cpu/compile/llvm':>28s}" for label in sources)
          + f" {'ratio':>6s}")
    tot = {label: 0.0 for label in sources}
    for spec in specs:
        med = {label: {k: statistics.median(r[k] for r in res[label][spec]) for k in ("cpu", "compile", "llvm")}
               for label in sources}
        for label in sources:
            tot[label] += med[label]["cpu"]
        cells = " ".join(f"{m['cpu']:12.1f} /{m['compile']:6.1f} /{m['llvm']:5.1f}" for m in med.values())
        print(f"{spec[0]:10s} {spec[1]:3d} {spec[2]:5d} {cells} {med['this']['cpu'] / med[args.previous]['cpu']:6.2f}",
              flush=True)
    print(f"{'total':20s} " + " ".join(f"{t:28.1f}" for t in tot.values())
          + f" {tot['this'] / tot[args.previous]:6.2f}")


if __name__ == "__main__":
    main()
