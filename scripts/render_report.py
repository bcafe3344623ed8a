"""Snakemake entry: render the reproduction report (paper/report.html.j2) to results/paper/index.html."""

import base64
import json
from pathlib import Path

import jinja2
import pandas as pd
import yaml

from privopt.io import atomic_path, log_to_file

log_to_file(snakemake.log[0])
template_path, papers_path = snakemake.input.sources
settings = snakemake.params.settings
papers_src = yaml.safe_load(Path(papers_path).read_text())
provenance = json.loads(Path(snakemake.input.provenance[0]).read_text()) if snakemake.input.provenance else None

papers = []
for key, paper in papers_src.items():
    figures = []
    for fig in paper["figures"]:
        fig = dict(fig)
        fig["image_b64"] = base64.b64encode(Path(fig["image"]).read_bytes()).decode("ascii")
        figures.append(fig)
    claims_table = pd.read_csv(paper["claims"], keep_default_na=False)
    verdict_counts = {
        reading: group["verdict"].value_counts().sort_index().to_dict()
        for reading, group in claims_table.groupby("reading", sort=True)
    }
    claims = claims_table.to_dict("records")
    papers.append({**paper, "figures": figures, "claims": claims, "verdict_counts": verdict_counts,
                   "settings": yaml.safe_dump(settings[paper["config_key"]], sort_keys=False, allow_unicode=True)})

env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(Path(template_path).parent)), autoescape=True,
                         undefined=jinja2.StrictUndefined)
html = env.get_template(Path(template_path).name).render(papers=papers, provenance=provenance, scale=snakemake.params.scale)
with atomic_path(snakemake.output[0]) as tmp:
    tmp.write_text(html, encoding="utf-8")
