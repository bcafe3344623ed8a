"""Snakemake entry: add the finished run jobs of a reference part in progress to reference/pending/
(privopt.pipeline.pending)."""

import json
import logging
from pathlib import Path

from privopt.io import log_to_file
from privopt.pipeline.pending import add_jobs, checkout_provenance, pending_folder

log_to_file(snakemake.log[0])
p = snakemake.params
root = snakemake.config["reference"]["folder"]  # the reference root (pending/ lies in it)
# the namespaces of the paper's results and logs: the output and the log lie in their reference/ folders
results_root, logs_root = str(Path(snakemake.output[0]).parent.parent), str(Path(snakemake.log[0]).parent.parent)
provenance = checkout_provenance(f"reference_pending_{p.paper}")
written = {}
for exp in sorted({j["experiment"] for j in p.jobs}):
    jobs = [j for j in p.jobs if j["experiment"] == exp]
    folder = pending_folder(root, p.paper, exp)
    manifest = add_jobs(folder, paper=p.paper, experiment=exp, jobs=jobs, results_root=results_root,
                        logs_root=logs_root, code=p.code[exp], modules=p.modules[exp], scale=p.scale,
                        total_jobs=p.totals[exp], provenance=provenance)
    written[exp] = {"folder": str(folder), "done": len(manifest["jobs"]), "total": manifest["total_jobs"],
                    "core_hours": manifest["core_hours"]}
    logging.getLogger("reference").info("%s %s: %d of %d run jobs pending in %s (%.2f core-hours)", p.paper, exp,
                                        len(manifest["jobs"]), manifest["total_jobs"], folder, manifest["core_hours"])
Path(snakemake.output[0]).write_text(json.dumps(written, indent=1) + "\n")
