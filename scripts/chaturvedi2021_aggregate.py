"""Snakemake entry: per-run records of one figure -> summary table (mean, std, SEM, N)."""

import logging

import pandas as pd

from privopt.experiments.summary import summarise
from privopt.io import log_to_file, write_csv, write_parquet

log_to_file(snakemake.log[0])
records = pd.concat([pd.read_parquet(p) for p in snakemake.input], ignore_index=True)
records = records.sort_values(["reading", "point", "seed", "algorithm"], kind="stable").reset_index(drop=True)
value = "utility" if snakemake.wildcards.figure == "fig1" else "utility_per_m"
table = summarise(records, ["reading", "point", "algorithm"], value)
eps0 = records.groupby(["reading", "point", "algorithm"], sort=True)["eps0"].first().reset_index()
table = table.merge(eps0, on=["reading", "point", "algorithm"])
table.insert(3, "value", value)
write_parquet(records, snakemake.output.runs)
write_csv(table, snakemake.output.table, float_format="%.10g")
logging.getLogger("aggregate").info("%d records -> %d rows", len(records), len(table))
