"""Timing of one Private Continuous Greedy execution (Chaturvedi et al. 2021).

Readings (synthetic instances of the experiments' sizes; no data files needed):

* Fig. 1 size: m = 100 pickups, n = 100 candidates = 20 distinct random locations + 80
  copies of one location, normalised ℓ1 distances in [0, 1]; uniform matroid r = 25;
  η = 0.2 (T = 5); ε0 = 0.0100677; scores "exact_F" and "G" (s = 1000).
* Fig. 2 size: n = 3, partition matroid {A}, {B, C}; m = 10000; η = 1/7 (T = 7);
  scores "G" (s = 1000) and "exact_F".

Prints ms per run (median of several repeats after a warm-up call) next to the
targets / peer figures, plus the time of the first call (numba compile, or loading
the on-disk cache).  Run: ``python benchmarks/bench_pcg.py [--repeats K]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from privopt.submodular import kernels as _cg_kernels
from privopt.submodular.continuous_greedy import private_continuous_greedy
from privopt.submodular.matroids import partition_matroid, uniform_matroid

EPS0 = 0.0100677  # the split rule at Figure 1's ε = 0.1, δ = 10^-3 (chaturvedi2021 reading R3)


def _box_dist(locations: np.ndarray, pickups: np.ndarray) -> np.ndarray:
    """Normalised ℓ1 distances in the unit box: (|Δx| + |Δy|) / 2 ∈ [0, 1]."""
    return np.abs(locations[:, None, :] - pickups[None, :, :]).sum(axis=2) / 2.0


def fig1_dist(rng: np.random.Generator) -> np.ndarray:
    grid = rng.random((20, 2))
    corner = np.tile(rng.random((1, 2)), (80, 1))
    return _box_dist(np.vstack([grid, corner]), rng.random((100, 2)))


def fig2_dist(rng: np.random.Generator, m: int = 10000) -> np.ndarray:
    return _box_dist(rng.random((3, 2)), rng.random((m, 2)))


def _time(fn, repeats: int) -> tuple[float, float]:
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    return first, statistics.median(runs)


_COLD = """
import time, numpy as np
from privopt.submodular.continuous_greedy import private_continuous_greedy
from privopt.submodular.matroids import uniform_matroid
d = np.random.default_rng(0).random((30, 20))
for scores in ("exact_F", "G"):
    t0 = time.perf_counter()
    private_continuous_greedy(d, uniform_matroid(30, 5), eta=0.2, eps0=0.01, rng=np.random.default_rng(0), scores=scores, s=100)
    print(scores, (time.perf_counter() - t0) * 1e3)
"""


def cold_compile_ms() -> dict[str, float]:
    """First-call time in a fresh interpreter with an empty numba cache (NUMBA_CACHE_DIR)."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", _COLD], env=env, capture_output=True, text=True, check=True).stdout
    return {line.split()[0]: float(line.split()[1]) for line in out.strip().splitlines()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--no-cold", action="store_true", help="skip the cold-compile measurement (~10 s)")
    args = ap.parse_args()

    if not args.no_cold:
        cold = cold_compile_ms()
        print("numba compile (fresh interpreter, empty cache; includes importing numba's JIT): "
              + ", ".join(f"{k}: {v:.0f} ms" for k, v in cold.items()))

    data_rng = np.random.default_rng(2021)
    d1 = fig1_dist(data_rng)
    d2 = fig2_dist(data_rng)
    m1 = uniform_matroid(100, 25)
    m2 = partition_matroid([0, 1, 1], [1, 1])
    run_rng = np.random.default_rng(7)

    cases = [
        ("Fig 1 (n=100, m=100, r=25, eta=0.2)", "exact_F", d1, m1, 0.2,
         "target <= 10 ms; authors' C++ (exact F): 41-53 ms"),
        ("Fig 1 (n=100, m=100, r=25, eta=0.2)", "G", d1, m1, 0.2,
         "target <= 250 ms; numpy prototype of the design notes, not in the repository: ~640 ms/run (all 4 algorithms, r=25)"),
        ("Fig 2 (n=3, m=10000, r=2, eta=1/7)", "G", d2, m2, 1 / 7,
         "the same prototype: ~83 ms/run (all 4 algorithms)"),
        ("Fig 2 (n=3, m=10000, r=2, eta=1/7)", "exact_F", d2, m2, 1 / 7, "-"),
    ]
    print(f"{'reading':40s} {'scores':8s} {'first call':>11s} {'median':>10s}   peer / target")
    for label, scores, d, mat, eta, peer in cases:
        fn = lambda: private_continuous_greedy(d, mat, eta=eta, eps0=EPS0, rng=run_rng, scores=scores, s=1000)  # noqa: E731
        first, med = _time(fn, args.repeats)
        print(f"{label:40s} {scores:8s} {first * 1e3:9.1f}ms {med * 1e3:8.2f}ms   {peer}")

    from_cache = all(
        sum(getattr(_cg_kernels, name).stats.cache_hits.values()) > 0 for name in ("pcg_facility_G_kernel", "pcg_facility_F_kernel")
    )
    print(
        "first call = numba " + ("cache load" if from_cache else "compile (cold cache)")
        + f" + first run; medians over {args.repeats} repeats of one full PCG execution (wrapper included)"
    )


if __name__ == "__main__":
    main()
