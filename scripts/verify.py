"""Snakemake entry: recompute the run jobs a paper's reference sampled and compare them row by row."""

import logging
import tempfile

import pandas as pd

from privopt.pipeline.reference import verify_jobs
from privopt.pipeline.registry import paper
from privopt.io import log_to_file, write_csv

log_to_file(snakemake.log[0])
p = snakemake.params
inputs = {name: path for name, path in snakemake.input.items() if name != "manifest"}  # its data sets' files
with tempfile.TemporaryDirectory(prefix=f"verify-{p.paper}-") as work:
    ulps = paper(p.paper).verify_ulps
    found = verify_jobs(p.folder, paper(p.paper), inputs, work, ulps=ulps)
bad = [f for f in found if f["mismatch"]]
for f in found:
    same = "identical" if not ulps else f"the same within {ulps} units in the last place of each column"
    logging.getLogger("verify").info("%s: %s in %.2f s", f["job"], f["mismatch"] or same, f["seconds"])
if bad:
    raise SystemExit(f"verify_{p.paper}: {len(bad)} of {len(found)} recomputed run jobs differ from the reference "
                     f"{p.folder}: " + "; ".join(f["mismatch"] for f in bad))
if not found:
    raise SystemExit(f"verify_{p.paper}: the reference {p.folder} samples no run job to recompute")
write_csv(pd.DataFrame(found), snakemake.output[0])
