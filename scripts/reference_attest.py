"""Snakemake entry: carry the pending reference parts over to today's run code, each job's prefix recomputed
and compared bit for bit first (privopt.pipeline.pending.attest)."""

import json
import logging
import tempfile
from pathlib import Path

from privopt.io import log_to_file
from privopt.pipeline.pending import attest, checkout_provenance, pending_folder
from privopt.pipeline.registry import paper

log_to_file(snakemake.log[0])
p = snakemake.params
root = snakemake.config["reference"]["folder"]  # the reference root (pending/ lies in it)
provenance = checkout_provenance(f"reference_attest_{p.paper}")
the_paper = paper(p.paper)
done = {}
for exp, code in sorted(p.code.items()):
    folder = pending_folder(root, p.paper, exp)
    with tempfile.TemporaryDirectory(prefix="attest.", dir=Path(snakemake.output[0]).parent) as scratch:
        manifest = attest(folder, paper=the_paper, code=code, modules=p.modules[exp], budget_s=p.budget_s,
                          provenance=provenance, scratch=scratch)
    last = (manifest.get("attested") or [{}])[-1]
    done[exp] = {"code": manifest["code"], "attested": last if last.get("to") == code else None}
    logging.getLogger("reference").info("%s %s: pending part at run code %s (%s)", p.paper, exp, code,
                                        f"{len(last['jobs'])} jobs attested bit-identical on prefixes"
                                        if last.get("to") == code else "already today's")
Path(snakemake.output[0]).write_text(json.dumps(done, indent=1, default=str) + "\n")
