"""Snakemake entry: every paper's audit table stacked with the white-box audits (noise laws, PCG's draws) into
results/audit/audits.csv, and the claimed-vs-exact accounting table into results/audit/accounting.csv."""

import pandas as pd

from privopt.audit.accounting_table import accounting_table
from privopt.audit.catalogue import white_box_table
from privopt.io import concat_tables, log_to_file, write_csv

log_to_file(snakemake.log[0])
black_box = concat_tables(snakemake.input)
white_box = white_box_table(int(snakemake.params.seed))
# the white-box rows of the papers whose audits run here (all of them in a full pipeline)
white_box = white_box[white_box["paper"].isin(set(black_box.get("paper", [])))]
table = pd.concat([black_box, white_box], ignore_index=True) if len(white_box) else black_box
write_csv(table, snakemake.output.audits, float_format="%.6g")
write_csv(accounting_table(), snakemake.output.accounting, float_format="%.6g")
