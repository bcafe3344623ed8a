"""Snakemake entry: add the finished run jobs of a reference part in progress to reference/pending/
(privopt.pipeline.pending)."""

import json
import logging
import os
from pathlib import Path

from privopt.io import log_to_file
from privopt.pipeline.blas import openblas_corename
from privopt.pipeline.pending import add_jobs, pending_folder
from privopt.pipeline.provenance import git_changes, git_state
from privopt.pipeline.reference import cpu_model

log_to_file(snakemake.log[0])
p = snakemake.params
root = snakemake.config["reference"]["folder"]  # the reference root (pending/ lies in it)
# the namespaces of the paper's results and logs: the output and the log lie in their reference/ folders
results_root, logs_root = str(Path(snakemake.output[0]).parent.parent), str(Path(snakemake.log[0]).parent.parent)
state = git_state(exclude=("reference",))  # the folder being written is not a change of the code
provenance = {**state, "cpu": cpu_model(), "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE"),
              "openblas_corename": openblas_corename()}
if state["dirty"]:
    changes = git_changes(exclude=("reference",))
    if not changes:
        raise SystemExit(f"reference_pending_{p.paper}: the checkout has uncommitted changes that git cannot list; "
                         f"commit them or compute the part from a clean checkout")
    provenance["changes"] = changes
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
