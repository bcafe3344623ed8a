"""Snakemake entry: the Figure 1 decision set (d = 3, K = 1000) as a table of points."""

from privopt.experiments.shariff2018 import runs
from privopt.io import log_to_file, write_csv

log_to_file(snakemake.log[0])
p = snakemake.params.fig1
points = runs.decision_set(d=p["d"], K=p["K"], gap=p["gap"], seed=p["seed"])
write_csv(points, snakemake.output[0], float_format="%.12g")
