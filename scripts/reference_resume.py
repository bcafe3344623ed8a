"""Snakemake entry: copy the finished run jobs of the pending reference parts back into this scale's results
(privopt.pipeline.pending.restore), where Snakemake takes them as done."""

import json
import logging
from pathlib import Path

from privopt.io import log_to_file
from privopt.pipeline.pending import pending_folder, restore

log_to_file(snakemake.log[0])
p = snakemake.params
root = snakemake.config["reference"]["folder"]  # the reference root (pending/ lies in it)
# the namespaces of the paper's results and logs: the output and the log lie in their reference/ folders
results_root, logs_root = str(Path(snakemake.output[0]).parent.parent), str(Path(snakemake.log[0]).parent.parent)
log = logging.getLogger("reference")
found = {}
for exp, code in sorted(p.code.items()):
    jobs = [j for j in p.jobs if j["experiment"] == exp]
    folder = pending_folder(root, p.paper, exp)
    out = restore(folder, jobs=jobs, results_root=results_root, logs_root=logs_root, code=code)
    found[exp] = out
    log.info("%s %s: %d run jobs restored, %d already there, %d of other settings, %d of other run code (%s)",
             p.paper, exp, *(len(out[k]) for k in ("restored", "present", "other_settings", "stale")), folder)
    if out["stale"]:
        log.warning("%s %s: the pending part was computed with other run code than today's (%s): nothing of it "
                    "restored; see %s", p.paper, exp, code, folder / "pending.json")
Path(snakemake.output[0]).write_text(json.dumps(found, indent=1) + "\n")
