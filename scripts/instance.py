"""Snakemake entry: build one instance of a paper (privopt.pipeline.protocol.Instance)."""

import logging

from privopt.pipeline.registry import paper
from privopt.io import log_to_file, write_output

log_to_file(snakemake.log[0])
p = snakemake.params
instance = paper(p.paper).instance(p.instance)
made = instance.make(p.settings, dict(snakemake.input.items()))  # its data sets' files, by output name
for name, path in zip(instance.outputs, snakemake.output):
    write_output(made[name], path)
logging.getLogger("instance").info("%s %s: wrote %s", p.paper, p.instance, ", ".join(instance.outputs))
