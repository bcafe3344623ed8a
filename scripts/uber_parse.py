"""Snakemake entry: parse and validate the pickups CSV once into a typed parquet table."""

import json
import logging

from privopt.data.uber import DataValidationError, read_pickups, write_parquet_atomic
from privopt.io import log_to_file

log_to_file(snakemake.log[0])
source = json.loads(open(snakemake.input.provenance).read())["source"]
try:
    pickups = read_pickups(snakemake.input.csv)
except DataValidationError as err:
    # The verified copy has the source's lines one for one; name both files.
    raise DataValidationError(err.path, err.line, f"{err.reason} (same line of the source {source})") from None
write_parquet_atomic(pickups, snakemake.output[0])
logging.getLogger("uber_parse").info("%d pickups parsed from %s", len(pickups), snakemake.input.csv)
