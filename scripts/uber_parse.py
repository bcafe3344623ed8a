"""Snakemake entry: parse and validate the pickups CSV once into a typed parquet table.

A file with fewer records than the config key ``uber_min_records`` is refused here, naming the file and
the count, before any instance reads it.  (The minimum comes from the config, not from params: changing
it does not change the data, so it does not rerun the parse.)"""

import json
import logging

from privopt.data.uber import DataValidationError, TooFewRecordsError, read_pickups
from privopt.io import log_to_file, write_parquet

log_to_file(snakemake.log[0])
source = json.loads(open(snakemake.input.provenance).read())["source"]
minimum = snakemake.config["uber_min_records"]
try:
    pickups = read_pickups(snakemake.input.csv, min_records=minimum)
except DataValidationError as err:
    # The verified copy has the source's lines one for one; name both files.
    hint = " (config key uber_min_records)" if isinstance(err, TooFewRecordsError) else ""
    raise DataValidationError(err.path, err.line, f"{err.reason}{hint} (same line of the source {source})"
                              if err.line is not None else f"{err.reason}{hint} (source {source})") from None
write_parquet(pickups, snakemake.output[0])
logging.getLogger("uber_parse").info("%d pickups parsed from %s", len(pickups), snakemake.input.csv)
