"""Snakemake entry: check the claims of Shariff & Sheffet (spec §8) against the regenerated tables."""

import pandas as pd

from privopt.experiments.claims import claims_frame
from privopt.experiments.shariff2018 import claims
from privopt.io import log_to_file, write_csv

log_to_file(snakemake.log[0])
i, p = snakemake.input, snakemake.params
found = claims.all_claims(
    fig1=pd.read_csv(i.fig1),
    fig2=pd.read_csv(i.fig2),
    exp1_runs=pd.read_parquet(i.exp1_runs),
    fig4_runs=pd.read_parquet(i.fig4_runs),
    fig4_audit=pd.read_parquet(i.fig4_audit),
    fig5_runs=pd.read_parquet(i.fig5_runs),
    settings=p.settings,
    scale=p.scale,
)
write_csv(claims_frame(found, p.scale), snakemake.output[0])
