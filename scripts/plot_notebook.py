"""Snakemake entry: a figure notebook's cells run in this process (no kernel) on the job's inputs; the
reference plots use it (privopt.plotting.cells).  What the cells print goes to the job's log."""

import contextlib
import sys

from privopt.io import log_to_file
from privopt.plotting.cells import run_cells

log_to_file(snakemake.log[0])
with contextlib.redirect_stdout(sys.stderr):
    run_cells(snakemake.input.notebook, {"snakemake": snakemake, "__name__": "__main__"})
