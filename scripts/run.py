"""Snakemake entry: one run job, a parameter point × a block of seeds (privopt.pipeline.protocol.Experiment)."""

import logging
import time
from pathlib import Path

from privopt.pipeline.registry import paper
from privopt.io import log_to_file, write_table

log_to_file(snakemake.log[0])
p = snakemake.params
experiment = paper(p.paper).experiment(p.experiment)
inputs = {name: str(Path(files[0]).parent) for name, files in snakemake.input.items()}
start = time.perf_counter()
frames = experiment.execute(p.point, p.settings, p.seeds, inputs)
for name in experiment.outputs:
    write_table(frames[name], snakemake.output[name])
logging.getLogger("run").info("%s %s %s seeds %s: %s rows in %.2f s", p.paper, p.experiment, p.point,
                              snakemake.wildcards.block, {k: len(v) for k, v in frames.items()},
                              time.perf_counter() - start)
