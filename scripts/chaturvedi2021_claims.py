"""Snakemake entry: check the claims of Chaturvedi et al. against the regenerated tables."""

import pandas as pd

from privopt.experiments.chaturvedi2021 import claims, runs
from privopt.experiments.claims import claims_frame
from privopt.io import log_to_file, write_csv

log_to_file(snakemake.log[0])
p = snakemake.params
delta = runs.delta_for(p.m, p.delta_exponent, p.delta)
found = []
fig1 = pd.read_csv(snakemake.input.fig1)
for reading, table in fig1.groupby("reading", sort=False):
    found += claims.figure1_claims(table, reading, eps=p.eps, m=p.m, delta=delta)
fig2 = pd.read_csv(snakemake.input.fig2)
for reading, table in fig2.groupby("reading", sort=False):
    found += claims.figure2_claims(table, reading)
write_csv(claims_frame(found, p.scale), snakemake.output[0])
