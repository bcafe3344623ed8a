"""privopt.online.osm.fixed_sums: the offline benchmarks' dot products in one fixed order, the same bits whatever BLAS
kernel numpy's OpenBLAS picks (OPENBLAS_CORETYPE, read when OpenBLAS loads: each case runs in a fresh process), and
the order of the Haswell kernels the committed references were computed with."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from privopt.online.osm.fixed_sums import dot, dots, running_dot
from privopt.pipeline import blas

needs_haswell = pytest.mark.skipif(
    blas.pinned_coretype(blas.cpu_flags(), {}) is None or blas.openblas_corename() is None,
    reason="the CPU cannot run OpenBLAS's Haswell kernels, or numpy's OpenBLAS does not say which it uses")


def _in_process(code: str, coretype: str) -> dict:
    env = {**os.environ, "OPENBLAS_CORETYPE": coretype}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_sums_follow_their_stated_order():
    rng = np.random.default_rng(0)
    for n in (0, 1, 3, 4, 5, 8, 17, 203):
        x, y = rng.normal(size=n) * 1e3, rng.random(n)
        t1 = t2 = 0.0
        for i in range(0, n - n % 4, 4):
            t1 += x[i] * y[i] + x[i + 2] * y[i + 2]
            t2 += x[i + 1] * y[i + 1] + x[i + 3] * y[i + 3]
        for i in range(n - n % 4, n):
            t1 += x[i] * y[i]
        assert dot(x, y) == t1 + t2
        total = 0.0
        for a, b in zip(x, y):
            total += a * b
        assert running_dot(x, y) == total
    A = rng.random((7, 5))
    v = rng.random(7)
    assert np.array_equal(dots(v, A.T), np.array([dot(v, A[:, j]) for j in range(5)]))
    with pytest.raises(ValueError, match="lengths 3 and 4"):
        dot(np.ones(3), np.ones(4))


_BLAS_ORDER = """
import json
import numpy as np
from privopt.online.osm.fixed_sums import dot, running_dot
from privopt.pipeline.blas import openblas_corename
rng = np.random.default_rng(1)
strided = weighted = 0
for trial in range(500):
    n = int(rng.integers(1, 300))
    C = rng.integers(0, 10_000, size=(n, 3)) * rng.random((n, 3))
    y = rng.random(n)
    strided += dot(C[:, 0], y) != float(C[:, 0] @ y)  # a column of a counts matrix, as the greedy's
    k = int(rng.integers(1, 9))
    r, w = rng.normal(size=(1, k)) * 100, (1.0 - 1.0 / k) ** (k - 1 - np.arange(k))
    weighted += running_dot(r[0], w) != float((r @ w)[0])
print(json.dumps({"core": openblas_corename(), "strided": int(strided), "weighted": int(weighted)}))
"""


@needs_haswell
def test_the_fixed_orders_are_those_of_the_haswell_kernels_the_references_were_computed_with():
    """Every value of 500 random dot products of a strided vector (a column of the greedy's counts) and of the
    weighted regret sums (k <= 8) equals numpy's through OpenBLAS's Haswell kernels: the committed references'
    G, REG_G, phi and sum_r_weighted keep their bits."""
    found = _in_process(_BLAS_ORDER, "Haswell")
    assert found == {"core": "Haswell", "strided": 0, "weighted": 0}, found


_GREEDY = """
import json
import numpy as np
from privopt.online.osm.offline import benchmarks, greedy_upper_bound
from privopt.pipeline.blas import openblas_corename
rng = np.random.default_rng(7)
P = rng.random((36, 12)) ** 3
counts = rng.integers(0, 5_000, size=(36, 20)).astype(float)
b = benchmarks(P, counts, 3)
ub = [greedy_upper_bound(P, counts[:, j], 3) for j in range(counts.shape[1])]
print(json.dumps({"core": openblas_corename(), "G": [float(g).hex() for g in b["G"]], "UB": [u.hex() for u in ub]}))
"""


@needs_haswell
def test_the_offline_greedy_is_the_same_bits_under_two_kernel_families():
    """G and the greedy upper bound of 20 count columns on a 36 x 12 instance, computed under OpenBLAS's Haswell
    kernels and under its Prescott ones: every value bit for bit the same (through BLAS products they differed:
    the Figure 7 reference job's G moved by up to 4 ulps under Prescott's)."""
    haswell, prescott = (_in_process(_GREEDY, core) for core in ("Haswell", "Prescott"))
    assert haswell["core"] == "Haswell" and prescott["core"] != "Haswell"
    assert haswell["G"] == prescott["G"] and haswell["UB"] == prescott["UB"]


_REFERENCE_G = """
import json, sys
import pandas as pd
from privopt.experiments.perezsalazar2021 import simulate as sim
from privopt.pipeline.registry import paper
folder = sys.argv[1]
manifest = json.load(open(f"{folder}/manifest.json"))
exp = paper("perezsalazar2021").experiment("fi")
got = []

def benchmarks_only(P, stream, *, k, T, seeds, bench, **_):  # the learners are not needed for G
    got.extend({"k": k, "n": P.shape[1], "T": T, "seed": s, "G_here": bench[(s, T)]["G"]} for s in seeds)
    return [], None, []

sim.full_information = benchmarks_only
section = manifest["config"]
for point in exp.points(section):
    exp.execute(point, exp.settings(section, point), list(range(section["fi"][point["group"]]["runs"])), {})
keys = ["k", "n", "T", "seed"]
stored = pd.read_parquet(f"{folder}/tables/fi_runs.parquet")[keys + ["G"]].drop_duplicates(keys)
both = stored.merge(pd.DataFrame(got).drop_duplicates(keys), on=keys)
print(json.dumps({"stored": len(stored), "compared": len(both), "differing": int((both["G"] != both["G_here"]).sum())}))
"""


@needs_haswell
def test_every_greedy_value_of_the_committed_reference_is_recomputed_bit_for_bit_under_prescott():
    """The offline greedy value G of every (k, n, T, seed) of the Perez-Salazar & Cummings reference's Figures 1-3
    (470, computed under the Haswell kernels), recomputed under Prescott's: all equal (through BLAS, 225 differed)."""
    from workflow_runs import REPO

    found = _in_process(_REFERENCE_G.replace("sys.argv[1]", repr(str(REPO / "reference" / "perezsalazar2021"))),
                        "Prescott")
    assert found["compared"] == found["stored"] > 400 and found["differing"] == 0, found
