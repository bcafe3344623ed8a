"""Snakemake entry: every algorithm on the datasets of one parameter point and one block of seeds."""

import json
import logging
import time

import pandas as pd

from privopt.experiments.chaturvedi2021 import runs
from privopt.io import log_to_file, write_parquet

log_to_file(snakemake.log[0])
log = logging.getLogger("chaturvedi2021_runs")
wc = snakemake.wildcards
settings = snakemake.params.settings
common = {**snakemake.params.common, wc.figure: snakemake.params.fig}

pool = pd.read_parquet(snakemake.input.pool)[["lat", "lon"]].to_numpy()
locations = pd.read_csv(snakemake.input.locations)
if wc.figure == "fig1":
    locations = locations[locations["grid_mode"] == settings["grid_mode"]]
C = json.loads(open(snakemake.input.meta).read())["C"]

setting = runs.make_setting(wc.figure, wc.reading, int(wc.point), settings, common, n_candidates=len(locations))
if setting.m > len(pool):  # first run only: later calls catch this before scheduling (common.smk)
    key = "chaturvedi2021.fig1.m" if wc.figure == "fig1" else "chaturvedi2021.fig2.ms"
    raise ValueError(f"config key {key}: m = {setting.m} exceeds the {len(pool)} pickups inside the {wc.figure} box")
start = time.perf_counter()
records = runs.run_block(pool, locations[["lat", "lon"]].to_numpy(), setting, snakemake.params.seeds, C)
write_parquet(records, snakemake.output[0])
log.info("%s %s %s=%s seeds %s: %d records in %.2f s", wc.figure, wc.reading, wc.param, wc.point, wc.block, len(records), time.perf_counter() - start)
