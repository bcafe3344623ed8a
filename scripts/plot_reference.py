"""Snakemake entry: a figure drawn from a paper's reference tables, after the reference's manifest check (the
sha256 of every file, as for every other reader: privopt.pipeline.reference_results.check_manifest); the figure
notebook's cells then run in this process (no kernel, privopt.plotting.cells).  What they print goes to the
job's log."""

import contextlib
import sys
from pathlib import Path

from privopt.io import log_to_file
from privopt.pipeline.reference_results import check_manifest
from privopt.plotting.cells import run_cells

log_to_file(snakemake.log[0])
# the reference folder: its tables are <folder>/tables/<file> (derived from the inputs, as Snakemake's lint asks)
check_manifest(Path(next(v for k, v in snakemake.input.items() if k != "notebook")).parents[1])
with contextlib.redirect_stdout(sys.stderr):
    run_cells(snakemake.input.notebook, {"snakemake": snakemake, "__name__": "__main__"})
