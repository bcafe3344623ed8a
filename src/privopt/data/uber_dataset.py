"""The Uber pickups as the workflow's data set ``uber`` (declared in :mod:`privopt.datasets.uber`): its fetch
and parse steps around :func:`privopt.data.uber.fetch_uber` and :func:`privopt.data.uber.read_pickups`, reading
the config keys ``uber_source``, ``uber_sha256`` and ``uber_min_records``.

(A module of its own, so that :mod:`privopt.data.uber`, which every instance builder imports, does not change
with the workflow's messages: its code digest, and with it every instance and run job, stays as it is.)
"""

from __future__ import annotations

import logging
import urllib.error
from typing import Any

import pandas as pd

from privopt.data.uber import DataValidationError, TooFewRecordsError, fetch_uber, read_pickups

__all__ = ["RAW_FILE", "fetch", "parse"]

logger = logging.getLogger(__name__)

#: The name of the verified plain CSV in the data's folder.
RAW_FILE = "uber-raw-data-apr14.csv"


def fetch(settings: dict[str, Any], files: dict[str, str]) -> dict[str, Any]:
    """Fetch step: :func:`fetch_uber` from ``uber_source`` into ``files[RAW_FILE]``, verified by ``uber_sha256``
    (empty: the canonical check).  Returns the provenance record; an unreachable source says how to use a
    local copy."""
    source = settings["uber_source"]
    sha256 = settings["uber_sha256"] or None
    logger.info("fetching %s (expected sha256: %s)", source, sha256 or "canonical git blob id")
    try:
        provenance = fetch_uber(source, files[RAW_FILE], sha256=sha256)
    except urllib.error.URLError as err:
        raise RuntimeError(
            f"could not fetch {source}: {err.reason}.  Without internet, use a local copy: "
            "`--config uber_source=PATH uber_sha256=HEX` reads any copy, e.g. the 99,997-record subset "
            "uber-raw-data-apr14.subset.csv.gz that `config/shared-data.yaml` names (README, Quick start)"
        ) from err
    logger.info("verified: %s", provenance)
    return provenance


def parse(settings: dict[str, Any], files: dict[str, str], provenance: dict[str, Any]) -> dict[str, pd.DataFrame]:
    """Parse step: :func:`read_pickups` of the verified CSV, refusing fewer records than ``uber_min_records``;
    an error names the CSV, the line and the source it came from."""
    path = files[RAW_FILE]
    try:
        pickups = read_pickups(path, min_records=settings["uber_min_records"])
    except DataValidationError as err:
        # The verified copy has the source's lines one for one; name both files.
        hint = " (config key uber_min_records)" if isinstance(err, TooFewRecordsError) else ""
        source = provenance["source"]
        raise DataValidationError(err.path, err.line, f"{err.reason}{hint} (same line of the source {source})"
                                  if err.line is not None else f"{err.reason}{hint} (source {source})") from None
    logger.info("%d pickups parsed from %s", len(pickups), path)
    return {"pickups": pickups}
