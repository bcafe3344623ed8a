"""Snakemake entry: fetch the Uber pickups and verify them (see privopt.data.uber.fetch_uber).

The source comes from the config, not from params: the output folder is named by the check the data
passes (privopt.data.uber.content_key), so verified data is the same whatever source it came from, and
pointing at another copy of it plans nothing."""

import logging
import urllib.error
from pathlib import Path

from privopt.data.uber import content_key, fetch_uber
from privopt.io import log_to_file, write_json

log_to_file(snakemake.log[0])
log = logging.getLogger("uber_download")

source = snakemake.config["uber_source"]
sha256 = snakemake.config["uber_sha256"] or None
folder = Path(snakemake.output.csv).parent.name
if folder != content_key(sha256):  # the rule names its folder from the same config
    raise RuntimeError(f"output folder {folder} does not match uber_sha256 {sha256!r} ({content_key(sha256)})")
log.info("fetching %s (expected sha256: %s)", source, sha256 or "canonical git blob id")
try:
    provenance = fetch_uber(source, snakemake.output.csv, sha256=sha256)
except urllib.error.URLError as err:
    raise RuntimeError(
        f"could not fetch {source}: {err.reason}.  Without internet, use a local copy: "
        "`snakemake --configfile config/shared-data.yaml` reads the subset beside this checkout "
        "(../shared/data/), or `--config uber_source=PATH uber_sha256=HEX` any file (README, Quick start)"
    ) from err
write_json(provenance, snakemake.output.provenance)
log.info("verified: %s", provenance)
