"""Snakemake entry: fetch and verify the raw files of a data set (privopt.pipeline.datasets.Dataset.fetch).

What the data set reads of the config (its config_keys: the source, the expected digest) comes from the
config, not from params: its folder is named by the check the data passes (Dataset.folder), so verified data
is the same whatever source it came from, and pointing at another copy of it plans nothing."""

import logging

from privopt.io import log_to_file, write_json
from privopt.pipeline.datasets import dataset

log_to_file(snakemake.log[0])
data = dataset(snakemake.params.dataset)
if data.provenance_file(snakemake.config) != snakemake.output.provenance:  # the rule names its folder from the same config
    raise RuntimeError(f"output {snakemake.output.provenance} does not match the config of data set {data.name} "
                       f"({data.provenance_file(snakemake.config)})")
provenance = data.retrieve(data.settings(snakemake.config), data.raw_files(snakemake.config))
write_json(provenance, snakemake.output.provenance)
logging.getLogger("dataset_fetch").info("%s: %s", data.name, provenance)
