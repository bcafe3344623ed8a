"""Snakemake entry: parse and validate the raw files of a data set once (privopt.pipeline.datasets.Dataset.parse)
into the files its instances read.

A minimum the data set reads of the config (e.g. uber_min_records) comes from the config, not from params:
changing it does not change the data, so it does not rerun the parse."""

import json
import logging

from privopt.io import log_to_file, write_output
from privopt.pipeline.datasets import dataset

log_to_file(snakemake.log[0])
data = dataset(snakemake.params.dataset)
provenance = json.loads(open(snakemake.input.provenance).read())
made = data.make(data.settings(snakemake.config), data.raw_files(snakemake.config), provenance)
for name in data.outputs:
    write_output(made[name], snakemake.output[name])
logging.getLogger("dataset_parse").info("%s: wrote %s", data.name, ", ".join(snakemake.output))
