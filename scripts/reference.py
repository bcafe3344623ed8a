"""Snakemake entry: write reference/<paper>/ from this scale's finished tables (privopt.pipeline.reference_results)."""

import json
import logging
import os
import tempfile
from pathlib import Path

from privopt.pipeline.blas import openblas_corename
from privopt.pipeline.config import load_config
from privopt.pipeline.reference_results import (choose_verify_jobs, cpu_model, describe_scale, figure_scales,
                                                kept_verify, read_manifest, run_seconds, verify_samples, write_reference)
from privopt.pipeline.pending import drop_landed, landing
from privopt.pipeline.protocol import point_path
from privopt.pipeline.registry import paper
from privopt.io import log_to_file
from privopt.pipeline.provenance import environment, git_changes, git_state, verify_record

log_to_file(snakemake.log[0])
p = snakemake.params
the_paper = paper(p.paper)
records = [verify_record(r) for r in snakemake.input.records]  # the tables are as the pipeline wrote them
seconds = {f"{j['experiment']}/{point_path(j['point'])}/{j['block']}": run_seconds([j["log"]]) for j in p.jobs}
part = [e for e in p.part if e in {x.name for x in the_paper.experiments}] if p.part else []
if p.part and not part:
    raise SystemExit(f"reference_{p.paper}: reference_part = {list(p.part)} names no experiment of {p.paper} "
                     f"(its experiments: {', '.join(e.name for e in the_paper.experiments)})")
# a part keeps the other experiments' samples: they share verify's budget
kept = kept_verify(the_paper, read_manifest(p.folder), part) if part and Path(p.folder, "manifest.json").is_file() else []
chosen = choose_verify_jobs(the_paper, p.section, seconds, budget_s=p.budget_s, kept=kept)
# the rows of jobs sampled on a prefix, until they are copied in (removed at exit, whatever happens)
prefixes = tempfile.TemporaryDirectory(prefix="prefix-rows.", dir=Path(snakemake.output[0]).parent)
verify, verify_runs = verify_samples(the_paper, chosen, p.jobs, prefixes.name)
data = {name: json.loads(Path(path).read_text()) for name, path in zip(p.datasets, snakemake.input.data)} or None
env = environment()
env["git"] = git_state(exclude=("reference",))  # the folder being written is not a change of the code
# uncommitted changes: which files and the sha256 of their diff (a dirty manifest without them is refused)
changes = git_changes(exclude=("reference",)) if env["git"]["dirty"] else None
if env["git"]["dirty"] and not changes:
    raise SystemExit(f"reference_{p.paper}: the checkout has uncommitted changes that git cannot list; commit them "
                     f"or write the reference from a clean checkout")
# per figure, whether it ran at config/paper.yaml's points, runs and settings (the project's paper scale)
try:
    figures = figure_scales(the_paper, p.section, load_config([Path(p.paper_config)])[p.paper])
except Exception as exc:  # no paper scale to compare with: say so per figure, never claim it
    figures = {f.id: {"paper_settings": False, "differs": [f"{p.paper_config}: cannot be read ({exc})"]}
               for f in the_paper.figures}
label = the_paper.scale_label(p.section) if the_paper.scale_label else describe_scale(the_paper, p.section)
manifest = {
    "scale": p.scale, "label": label, "config": p.section, "commit": env["git"]["commit"], "dirty": env["git"]["dirty"],
    **({"changes": changes} if changes else {}), "figures": figures, "figures_compared_with": p.paper_config,
    "packages": env["packages"], "python": env["python"], "cpu": cpu_model(),
    # the OpenBLAS kernel family pinned for the jobs (privopt.pipeline.blas; None: OpenBLAS's own choice) and
    # the one in use here
    "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE"), "openblas_corename": openblas_corename(),
    "core_hours": round(sum(seconds.values()) / 3600, 3), "run_jobs": len(p.jobs),
    "code_digest": {r["experiment"]: r["code_digest"] for r in records},
    "modules": p.code, "runs": {r["experiment"]: r.get("runs", []) for r in records},
    "data": data,
    "verify": verify,
}
# the parts in progress under reference/pending/ that this write completes: their jobs' provenance goes into
# the part's record, and their folders go once it is written
root = Path(p.folder).parent
landed = {r["experiment"]: r["code_digest"]["runs"] for r in records}
# (the namespace of the paper's results, where the run files lie: the output lies in its reference/ folder)
carried = landing(root, p.paper, landed, p.jobs, str(Path(snakemake.output[0]).parent.parent))
if carried:
    manifest["carried"] = carried
tables = {Path(t).name: t for t in snakemake.input.tables}
written = write_reference(p.folder, paper=the_paper, tables=tables, verify_runs=verify_runs, manifest=manifest,
                          replace=p.replace, part=part)
for folder in drop_landed(root, p.paper, sorted(carried)):
    logging.getLogger("reference").info("%s: landed, removed", folder)
Path(snakemake.output[0]).write_text(json.dumps({"folder": p.folder, "files": written["files"]}, indent=1) + "\n")
logging.getLogger("reference").info("%s: %d files, %d bytes, %.2f core-hours; verify: %d jobs", p.paper,
                                    len(written["files"]), written["bytes"], manifest["core_hours"], len(verify))
