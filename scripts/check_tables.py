"""Snakemake entry: the tables of one experiment still have the sha256 their provenance record holds."""

from privopt.io import log_to_file
from privopt.pipeline.provenance import write_check_stamp
from privopt.pipeline.tablecheck import regenerate_command, tables_rule

log_to_file(snakemake.log[0])
# (the command comes from the environment the workflow set, not from a job parameter: privopt.pipeline.tablecheck)
write_check_stamp(snakemake.input.provenance, snakemake.output[0], regenerate_command(tables_rule(snakemake.output[0])))
