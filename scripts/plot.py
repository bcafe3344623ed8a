"""Snakemake entry: a figure drawn from this scale's tables by its notebook, whose cells run in this process
(no Jupyter kernel: privopt.plotting.cells.execute_notebook), which writes the executed notebook (the job's
log ``notebook``) with every cell's outputs."""

from privopt.plotting.cells import execute_notebook

execute_notebook(snakemake.input.notebook, {"snakemake": snakemake, "__name__": "__main__"}, snakemake.log.notebook)
