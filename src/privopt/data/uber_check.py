"""The check the Uber pickups pass, known before anything is fetched (no numpy, no pandas: the workflow and the
data set's declaration, :mod:`privopt.datasets.uber`, read it on every start).

:mod:`privopt.data.uber` fetches, verifies and parses the data against these values.
"""

from __future__ import annotations

__all__ = ["CANONICAL_URL", "CANONICAL_GIT_BLOB_ID", "CANONICAL_RECORDS", "MIN_RECORDS", "RAW_FILE", "content_key"]

#: Raw-file URL of the canonical April 2014 file in the FiveThirtyEight repository.
CANONICAL_URL = (
    "https://raw.githubusercontent.com/fivethirtyeight/uber-tlc-foil-response/"
    "master/uber-trip-data/uber-raw-data-apr14.csv"
)
#: git blob id (SHA-1 of ``b"blob <size>\0" + bytes``) of the canonical CSV.
CANONICAL_GIT_BLOB_ID = "e8af4b8e0c4adb58379b4809bc91ea111a085484"
#: Number of data records (lines after the header) in the canonical CSV.
CANONICAL_RECORDS = 564516
#: Fewest records a pickups file may hold (config key ``uber_min_records``, default): the fewest pickups an
#: instance of the shipped configs draws (Chaturvedi et al. Fig. 1: m = 100 from its box).  Each instance
#: still checks its own needs against the data (e.g. the box pool against ``chaturvedi2021.fig2.ms``).
MIN_RECORDS = 100
#: The name of the verified plain CSV in the data's folder.
RAW_FILE = "uber-raw-data-apr14.csv"


def content_key(sha256: str | None = None) -> str:
    """Name of the folder that holds the verified data a source is checked against, from the check
    alone (known before anything is fetched): ``sha256-<16 hex digits>`` of the bytes as fetched when a
    ``sha256`` is given; ``canonical-<16 hex digits of CANONICAL_GIT_BLOB_ID>`` otherwise (that check
    admits only the canonical file, whatever the source).  Data of another check lives in another
    folder, so a failed or different source never touches verified data."""
    if sha256 and sha256.strip():
        digest = sha256.strip().lower()
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise ValueError(f"sha256 must be 64 hex digits, got {sha256!r}")
        return f"sha256-{digest[:16]}"
    return f"canonical-{CANONICAL_GIT_BLOB_ID[:16]}"
