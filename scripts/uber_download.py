"""Snakemake entry: fetch the Uber pickups and verify them (see privopt.data.uber.fetch_uber)."""

import logging

from privopt.data.uber import fetch_uber
from privopt.io import log_to_file, write_json

log_to_file(snakemake.log[0])
log = logging.getLogger("uber_download")

source = snakemake.params.source
sha256 = snakemake.params.sha256 or None
log.info("fetching %s (expected sha256: %s)", source, sha256 or "canonical git blob id")
provenance = fetch_uber(source, snakemake.output.csv, sha256=sha256)
write_json(provenance, snakemake.output.provenance)
log.info("verified: %s", provenance)
