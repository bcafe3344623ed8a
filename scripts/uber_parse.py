"""Snakemake entry: parse and validate the pickups CSV once into a typed parquet table."""

import logging

from privopt.data.uber import read_pickups, write_parquet_atomic
from privopt.io import log_to_file

log_to_file(snakemake.log[0])
pickups = read_pickups(snakemake.input[0])
write_parquet_atomic(pickups, snakemake.output[0])
logging.getLogger("uber_parse").info("%d pickups parsed from %s", len(pickups), snakemake.input[0])
