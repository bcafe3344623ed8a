"""Snakemake entry: a figure drawn from a paper's reference tables, after the reference's manifest check (the
sha256 of every file, as for every other reader: privopt.pipeline.reference.check_manifest); the figure
notebook's cells then run in this process (no kernel, privopt.plotting.cells).  What they print goes to the
job's log."""

import contextlib
import sys

from privopt.io import log_to_file
from privopt.pipeline.reference import check_manifest
from privopt.plotting.cells import run_cells

log_to_file(snakemake.log[0])
check_manifest(snakemake.params.reference_folder)
with contextlib.redirect_stdout(sys.stderr):
    run_cells(snakemake.input.notebook, {"snakemake": snakemake, "__name__": "__main__"})
