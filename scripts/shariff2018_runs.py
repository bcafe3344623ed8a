"""Snakemake entry: one block of seeds of one parameter point of Experiment 1, 2 or 3."""

import logging
import time

from privopt.experiments.shariff2018 import runs
from privopt.io import log_to_file, write_parquet

log_to_file(snakemake.log[0])
log = logging.getLogger("shariff2018_runs")
wc = snakemake.wildcards
p = snakemake.params.settings
seeds = snakemake.params.seeds
start = time.perf_counter()
experiment = snakemake.params.experiment
if experiment == "exp1":
    records = runs.exp1_block(wc.reward, int(wc.d), seeds, n=p["n"], n_rounds=p["n_rounds"], gap=p["gap"],
                              rec_every=p["rec_every"])
elif experiment == "exp2":
    records, audit = runs.exp2_block_with_audit(
        float(wc.gap), seeds, n=p["n"], n_rounds=p["n_rounds"], d=p["d"], eps=p["eps"], delta=p["delta"],
        variants=p["variants"], gamma_rule=p["wishart_gamma_rule"], k_rule=p["k_rule"], rec_every=p["rec_every"],
        audit_rounds=p["audit_rounds"])
    write_parquet(audit, snakemake.output.audit)
    log.info("audit: %d rows (%d rounds per run)", len(audit), p["audit_rounds"])
else:
    records = runs.exp3_block(wc.mechanism, float(wc.gap), seeds, n=p["n"], n_rounds=p["n_rounds"], d=p["d"],
                              eps=p["eps"], delta=p["delta"], k_rule=p["k_rule"], rho_grid=p["rho_grid"],
                              rec_points=p["rec_points"])
write_parquet(records, snakemake.output[0])
log.info("%s %s seeds %s: %d records in %.2f s", experiment, dict(wc), wc.block, len(records),
         time.perf_counter() - start)
