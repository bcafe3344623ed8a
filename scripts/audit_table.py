"""Snakemake entry: every paper's audit table, stacked into results/audit/audits.csv."""

from privopt.io import concat_tables, log_to_file, write_csv

log_to_file(snakemake.log[0])
write_csv(concat_tables(snakemake.input), snakemake.output[0], float_format="%.6g")
