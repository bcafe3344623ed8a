"""Snakemake entry: render the reproduction report (paper/report.html.j2) to results/<scale>/paper/index.html,
with its provenance and privacy-audit pages beside it."""

import json
from pathlib import Path

from privopt.io import log_to_file
from privopt.pipeline.report import compute_findings, paper_numbers, reference_findings, render_report
from privopt.pipeline.tablecheck import verify_checked

log_to_file(snakemake.log[0])
verify_checked(snakemake.input.checked)  # the findings read the tables: still as checked (by content)
p = snakemake.params
data = {name: json.loads(Path(path).read_text()) for name, path in zip(p.datasets, snakemake.input.provenance)}
render_report(snakemake.input.template, p.papers, p.settings, data, p.scale, snakemake.output[0],
              audits=snakemake.input.audits[0], audit_settings=p.audit,
              findings=compute_findings(p.papers, p.claims_settings), references=p.references,
              reference_found=reference_findings(p.papers, p.references), notebooks=p.notebooks,
              reported=paper_numbers(p.papers, p.references), workers=snakemake.threads)
