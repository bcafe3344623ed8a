"""privopt.pipeline.blas: the OpenBLAS kernel family the workflow pins, and (slow) a Perez-Salazar & Cummings
reference job recomputed under two kernel families: bit-identical under both (its offline greedy sums in a fixed
order, privopt.online.osm.fixed_sums; through BLAS products it differed under Prescott's kernels); and (slow) Shariff &
Sheffet's Exp. 2 audit rows, which go through LAPACK: bit-identical under the pin only, within the paper's tolerance
under Prescott's."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from privopt.pipeline import blas
from workflow_runs import REPO


def test_haswell_is_pinned_only_where_the_cpu_has_avx2_and_fma_and_the_user_set_nothing(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma avx512f\n\nprocessor\t: 1\nflags\t\t: fpu\n")
    assert blas.cpu_flags(info) >= {"avx2", "fma"}  # the first CPU's flags
    env: dict[str, str] = {}
    if blas.platform.machine().lower() in ("x86_64", "amd64"):
        assert blas.pin_openblas(env, info) == "Haswell" and env == {"OPENBLAS_CORETYPE": "Haswell"}
    env = {"OPENBLAS_CORETYPE": "Prescott"}
    assert blas.pin_openblas(env, info) == "Prescott"  # the user's choice is kept
    info.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx\n")
    env = {}
    assert blas.pin_openblas(env, info) is None and env == {}  # no AVX2: OpenBLAS chooses
    assert blas.cpu_flags(tmp_path / "absent") == frozenset()


def test_the_corename_in_use_follows_openblas_coretype():
    """In a fresh process, the kernel family numpy's OpenBLAS reports is the one OPENBLAS_CORETYPE asks for."""
    if blas.openblas_corename() is None or blas.pinned_coretype(blas.cpu_flags(), {}) is None:
        pytest.skip("numpy has no bundled OpenBLAS that reports its kernels, or the CPU cannot run Haswell's")
    code = "from privopt.pipeline.blas import openblas_corename; print(openblas_corename())"
    env = {**os.environ, "OPENBLAS_CORETYPE": "Haswell"}
    assert subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout.strip() == "Haswell"


_RECOMPUTE = """
import json, sys
from pathlib import Path
from privopt.io import read_table, write_table
from privopt.pipeline.reference_results import diff_rows
from privopt.pipeline.registry import paper
folder = Path(sys.argv[1])
manifest = json.loads((folder / "manifest.json").read_text())
job = next(j for j in manifest["verify"] if j["experiment"] == "cont")
exp = paper("perezsalazar2021").experiment("cont")
frames = exp.execute(job["point"], exp.settings(manifest["config"], job["point"]), job["seeds"], {})
out = Path(sys.argv[2])
write_table(frames["runs"], out)
d = diff_rows(read_table(out), read_table(folder / job["files"]["runs"]))
print(json.dumps({"differing": d.differing, "values": d.values, "max_ulps": d.max_ulps}))
"""


def _under_two_kernel_families(script: str, paper: str, tmp_path, *args: str) -> dict:
    """``script``'s last printed JSON line, run in a fresh process (OpenBLAS reads its kernel family at load time) on
    ``reference/<paper>`` once under the kernels the workflow pins and once under Prescott's."""
    found = {}
    for coretype in ("pinned", "Prescott"):
        env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
        if coretype == "pinned":
            blas.pin_openblas(env)
        else:
            env["OPENBLAS_CORETYPE"] = coretype
        proc = subprocess.run([sys.executable, "-c", script, str(REPO / "reference" / paper),
                               str(tmp_path / f"{coretype}.parquet"), *args], env=env, capture_output=True, text=True,
                              check=True)
        found[coretype] = json.loads(proc.stdout.strip().splitlines()[-1])
    return found


@pytest.mark.slow
@pytest.mark.skipif(blas.pinned_coretype(blas.cpu_flags(), {}) is None, reason="no AVX2 and FMA: nothing is pinned")
def test_a_perezsalazar_job_is_bit_identical_under_the_pinned_kernels_and_under_prescott(tmp_path):
    """The Figure 7 ablation job of the committed reference (its G and REG_G are sums over the types): recomputed
    with the kernel family the workflow pins and with Prescott's, every value is the reference's (through BLAS
    products, 50 of its 1,650 values differed by up to 4 ulps under Prescott's)."""
    found = _under_two_kernel_families(_RECOMPUTE, "perezsalazar2021", tmp_path)
    assert found["pinned"]["differing"] == 0 and found["pinned"]["values"] > 1000, found
    assert found["Prescott"]["differing"] == 0 and found["Prescott"]["values"] > 1000, found


#: the rounds recomputed of the sampled Exp. 2 run (a full-horizon job of 5·10^7 rounds takes a quarter of a
#: core-hour; the reference keeps a 2·10^6-round prefix of its first seed: 64 audit rows, 896 values, of which 80
#: differed under Prescott, by at most 7 ulps).  The first 10^6 rounds: 48 audit rows, 672 values, of which 62 differ
#: under Prescott, by at most the same 7 ulps (measured on an AMD EPYC), in two thirds of the time
SHARIFF_PREFIX = 1_000_000

_SHARIFF_AUDIT = """
import json, sys
from pathlib import Path
from privopt.io import read_table, write_table
from privopt.pipeline.reference_results import diff_rows, prefix_rows
from privopt.pipeline.registry import paper
folder, prefix = Path(sys.argv[1]), int(sys.argv[3])
manifest = json.loads((folder / "manifest.json").read_text())
job = next(j for j in manifest["verify"] if j["experiment"] == "exp2")
exp = paper("shariff2018").experiment("exp2")
seed = job["seeds"][0]
settings = exp.settings(manifest["config"], job["point"])
# the run's first rounds (runs are exact prefixes; privopt.experiments.shariff2018.prefixes), at most those stored
rounds = min(job.get("rounds") or exp.prefix.horizon(settings), prefix)
frames = exp.execute_prefix(job["point"], settings, [seed], {}, rounds)
out = Path(sys.argv[2])
write_table(frames["audit"], out)
stored = prefix_rows(read_table(folder / job["files"]["audit"]), exp.prefix, [seed], rounds)
d = diff_rows(read_table(out), stored)
print(json.dumps({"differing": d.differing, "values": d.values, "max_ulps": d.max_ulps, "rows": len(stored)}))
"""


@pytest.mark.slow
@pytest.mark.skipif(blas.pinned_coretype(blas.cpu_flags(), {}) is None, reason="no AVX2 and FMA: nothing is pinned")
def test_shariff_audit_rows_match_the_reference_under_the_pinned_kernels_and_within_its_tolerance_under_prescott(
        tmp_path):
    """The Exp. 2 audit rows (LAPACK's eigvalsh and solve in privopt.bandits.episodes.evaluate_audit) of the first
    seed of the reference's sampled job, written on an AMD EPYC: under the pinned Haswell kernels every value is the
    reference's; under Prescott's (what a CPU that cannot run Haswell's gets) some differ, by no more than the
    tolerance verify grants the paper (Paper.verify_ulps) — which is why it has one."""
    from privopt.pipeline.registry import paper

    found = _under_two_kernel_families(_SHARIFF_AUDIT, "shariff2018", tmp_path, str(SHARIFF_PREFIX))
    assert found["pinned"]["differing"] == 0 and found["pinned"]["values"] > 500, found
    prescott = found["Prescott"]
    assert 0 < prescott["differing"] and prescott["max_ulps"] <= paper("shariff2018").verify_ulps, found
