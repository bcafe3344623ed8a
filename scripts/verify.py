"""Snakemake entry: recompute the run jobs a paper's reference sampled and compare them value by value.

Each job is reported exactly: bit-identical, or how many values differ and the largest difference in units in
the last place; the job fails only past the paper's tolerance (``Paper.verify_ulps``, 0 for most papers).  The
summary line counts the jobs of each kind and, where values differ, names the OpenBLAS kernel family in use and the
reference's (privopt.pipeline.reference_results.verify_summary)."""

import logging
import tempfile

import pandas as pd

from privopt.pipeline.blas import openblas_corename
from privopt.pipeline.reference_results import read_manifest, reference_folder, verify_jobs, verify_summary
from privopt.pipeline.registry import paper
from privopt.io import log_to_file, write_csv

log_to_file(snakemake.log[0])
p = snakemake.params
folder = reference_folder(snakemake.config, p.paper)
inputs = {name: path for name, path in snakemake.input.items() if name != "manifest"}  # its data sets' files
ulps = paper(p.paper).verify_ulps
with tempfile.TemporaryDirectory(prefix=f"verify-{p.paper}-") as work:
    found = verify_jobs(folder, paper(p.paper), inputs, work, ulps=ulps)
log = logging.getLogger("verify")
for f in found:
    log.info("%s: %s in %.2f s", f["job"], f["result"], f["seconds"])
manifest = read_manifest(folder)
cpu = manifest.get("cpu") or "a CPU not named"
written_with = manifest.get("openblas_corename") or f"not recorded (written on {cpu})"
log.info("%s", verify_summary(p.paper, found, ulps, kernels=openblas_corename(), reference_kernels=written_with))
bad = [f for f in found if f["mismatch"]]
if bad:
    raise SystemExit(f"verify_{p.paper}: {len(bad)} of {len(found)} recomputed run jobs differ from the reference "
                     f"{folder}" + (f" by more than {ulps} ulps" if ulps else "") + ": "
                     + "; ".join(f["mismatch"] for f in bad))
if not found:
    raise SystemExit(f"verify_{p.paper}: the reference {folder} samples no run job to recompute")
write_csv(pd.DataFrame(found), snakemake.output[0])
