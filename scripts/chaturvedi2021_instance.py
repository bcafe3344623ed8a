"""Snakemake entry: candidate locations, in-box pool and normaliser of one Chaturvedi et al. figure."""

import logging

import pandas as pd

from privopt.data.uber import read_pickups_parquet
from privopt.experiments.chaturvedi2021 import runs
from privopt.io import log_to_file, write_csv, write_json, write_parquet

log_to_file(snakemake.log[0])
log = logging.getLogger("chaturvedi2021_instance")
figure = snakemake.wildcards.figure
p = snakemake.params

pool = runs.in_box(read_pickups_parquet(snakemake.input[0]), figure)
if figure == "fig1":
    locations = pd.concat([runs.fig1_locations(mode, p.n_copies) for mode in p.grid_modes], ignore_index=True)
else:
    locations = runs.fig2_locations()

write_parquet(pool, snakemake.output.pool)
write_csv(locations, snakemake.output.locations)
write_json({"figure": figure, "pool_size": len(pool), "C": runs.normaliser(figure), "box": runs.box(figure).vertices.tolist()}, snakemake.output.meta)
log.info("%s: %d pickups in the box, %d candidate rows, C = %.6f", figure, len(pool), len(locations), runs.normaliser(figure))
