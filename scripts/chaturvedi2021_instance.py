"""Snakemake entry: candidate locations, in-box pool and normaliser of one Chaturvedi et al. figure."""

import logging

import pandas as pd

from privopt.data.uber import read_pickups_parquet
from privopt.experiments.chaturvedi2021 import runs
from privopt.io import log_to_file, write_csv, write_json, write_parquet

log_to_file(snakemake.log[0])
log = logging.getLogger("chaturvedi2021_instance")
figure = snakemake.wildcards.figure
fig = snakemake.params.fig

pool = runs.in_box(read_pickups_parquet(snakemake.input[0]), figure)
# m larger than the pool is a config error: say so here, before any run job starts.
largest_m = fig["m"] if figure == "fig1" else max(fig["ms"])
key = "chaturvedi2021.fig1.m" if figure == "fig1" else "chaturvedi2021.fig2.ms"
if largest_m > len(pool):
    raise ValueError(
        f"config key {key}: m = {largest_m} exceeds the {len(pool)} pickups inside the {figure} box "
        f"of {snakemake.input[0]}"
    )

if figure == "fig1":
    modes = sorted({r["grid_mode"] for r in fig["readings"].values()})
    locations = pd.concat([runs.fig1_locations(mode, fig["n_copies"]) for mode in modes], ignore_index=True)
else:
    locations = runs.fig2_locations()

write_parquet(pool, snakemake.output.pool)
write_csv(locations, snakemake.output.locations)
write_json({"figure": figure, "pool_size": len(pool), "C": runs.normaliser(figure), "box": runs.box(figure).vertices.tolist()}, snakemake.output.meta)
log.info("%s: %d pickups in the box, %d candidate rows, C = %.6f", figure, len(pool), len(locations), runs.normaliser(figure))
