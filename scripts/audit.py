"""Snakemake entry: the black-box privacy audits a paper declares (privopt.audit), one table."""

import logging

from privopt.audit import run_audits
from privopt.pipeline.protocol import resolve
from privopt.pipeline.registry import paper
from privopt.io import log_to_file, write_csv

log_to_file(snakemake.log[0])
p = snakemake.params
audits = [a for ref in paper(p.paper).audits for a in resolve(ref)()]
table = run_audits(audits, p.samples, p.seed, alpha=p.alpha)
write_csv(table, snakemake.output[0], float_format="%.6g")
logging.getLogger("audit").info("%s: %s", p.paper, table[["audit", "variant", "eps_lb", "result"]].to_string())
