"""Snakemake entry: today's claims code of a paper on its reference tables (checked against the manifest)."""

import json
from pathlib import Path

from privopt.pipeline.claims import claims_frame
from privopt.pipeline.pending import pending_status
from privopt.pipeline.reference_results import RECOMPUTED, changed_modules, check_manifest, reference_folder, reference_tables
from privopt.pipeline.registry import paper
from privopt.io import log_to_file, write_csv, write_json

log_to_file(snakemake.log[0])
p = snakemake.params
the_paper = paper(p.paper)
folder = reference_folder(snakemake.config, p.paper)
manifest = check_manifest(folder)
tables = reference_tables(folder, the_paper, the_paper.claims.inputs)
claims = the_paper.claims.run(tables, the_paper.claims.settings(manifest["config"]))
write_csv(claims_frame(claims, f"reference ({manifest['scale']})"), snakemake.output.claims)
write_json({"folder": folder, "label": manifest["label"], "scale": manifest["scale"],
            "core_hours": manifest["core_hours"], "commit": manifest["commit"], "written": manifest["written"],
            "cpu": manifest["cpu"], "data": manifest["data"],
            "changed_modules": changed_modules(manifest, p.modules),
            # per figure, whether it is at config/paper.yaml's settings (and how it differs where not)
            "figures": manifest.get("figures", {}),
            # what code wrote it: a dirty checkout's changes, or the clean recomputation of its sampled jobs
            "dirty": manifest.get("dirty"), "changes": manifest.get("changes"),
            # a reference written in parts: each part's experiments, date, commit and core-hours
            "parts": manifest.get("parts") or [],
            RECOMPUTED: manifest.get(RECOMPUTED),
            # parts in progress under reference/pending/ (not read by the claims until they land whole)
            "pending": [{**s, "label": the_paper.experiment(s["experiment"]).label}
                        for s in pending_status(Path(folder).parent, p.paper)]}, snakemake.output.about)
