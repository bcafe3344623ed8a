"""Snakemake entry: a paper's executed figure notebooks rendered to HTML (results/<scale>/notebooks/<paper>/<figure>.html),
without Snakemake's job cell and machine paths (privopt.pipeline.notebook_html)."""

from privopt.io import log_to_file
from privopt.pipeline.notebook_html import render_notebook_html

log_to_file(snakemake.log[0])
for executed, page, title in zip(snakemake.params.executed, snakemake.output, snakemake.params.titles, strict=True):
    render_notebook_html(executed, page, title=title)
