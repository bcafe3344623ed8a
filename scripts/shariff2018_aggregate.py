"""Snakemake entry: per-run curves of one experiment -> the tables of its figures (mean, std, SEM, N)."""

import logging

import pandas as pd

from privopt.experiments.shariff2018 import tables as aggregation
from privopt.io import log_to_file, write_csv, write_parquet

log_to_file(snakemake.log[0])
# Exp. 2 names its inputs (runs, audits); the other experiments list their run files only.
named = hasattr(snakemake.input, "runs")
records = pd.concat([pd.read_parquet(p) for p in (snakemake.input.runs if named else snakemake.input)],
                    ignore_index=True)
audits = None
if hasattr(snakemake.input, "audits"):
    parts = [f for f in (pd.read_parquet(p) for p in snakemake.input.audits) if len(f)]
    audits = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
experiment = snakemake.params.experiment
tables = aggregation.tables_for(experiment, records, settings=snakemake.params.settings,
                          mechanisms=getattr(snakemake.params, "mechanisms", None), audits=audits)
for name, frame in tables.items():
    path = snakemake.output[name]
    if path.endswith(".parquet"):
        write_parquet(frame, path)
    else:
        write_csv(frame, path, float_format="%.10g")
logging.getLogger("aggregate").info("%s: %d records -> %s", experiment, len(records),
                                    {k: len(v) for k, v in tables.items()})
