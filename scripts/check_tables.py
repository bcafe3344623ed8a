"""Snakemake entry: the tables of one experiment still have the sha256 their provenance record holds."""

from privopt.io import log_to_file
from privopt.pipeline.provenance import write_check_stamp

log_to_file(snakemake.log[0])
write_check_stamp(snakemake.input.provenance, snakemake.output[0], snakemake.params.regenerate)
