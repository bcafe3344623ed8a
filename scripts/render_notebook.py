"""Snakemake entry: one executed figure notebook rendered to HTML (results/<scale>/notebooks/<paper>/<figure>.html),
without Snakemake's job cell and machine paths (privopt.pipeline.notebook_html)."""

from privopt.io import log_to_file
from privopt.pipeline.notebook_html import render_notebook_html

log_to_file(snakemake.log[0])
render_notebook_html(snakemake.params.executed, snakemake.output[0], title=snakemake.params.title)
