"""Fetching the Uber pickups: the data set's fetch step (:func:`fetch`, ``privopt.datasets.uber.fetch:fetch``)
and the verified download behind it (:func:`fetch_uber`).

:func:`fetch_uber` reads an http(s)/file URL or a local path, verifies the bytes (against a given sha256 of
the bytes as fetched, or against the canonical git blob id and record count) and writes the plain CSV
atomically (:func:`privopt.io.atomic_path`).  :func:`content_key` names the check, and so the folder of the
verified data, before anything is fetched.  The library never prints; it logs through :mod:`logging`
(logger ``privopt.datasets.uber.fetch``).
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import os
import shutil
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zlib
from pathlib import Path
from typing import IO, Any

from privopt.io import atomic_path

__all__ = ["CANONICAL_URL", "CANONICAL_GIT_BLOB_ID", "CANONICAL_RECORDS", "RAW_FILE", "ChecksumError", "content_key",
           "git_blob_id", "fetch_uber", "fetch"]

logger = logging.getLogger(__name__)

#: Raw-file URL of the canonical April 2014 file in the FiveThirtyEight repository.
CANONICAL_URL = (
    "https://raw.githubusercontent.com/fivethirtyeight/uber-tlc-foil-response/"
    "master/uber-trip-data/uber-raw-data-apr14.csv"
)
#: git blob id (SHA-1 of ``b"blob <size>\0" + bytes``) of the canonical CSV.
CANONICAL_GIT_BLOB_ID = "e8af4b8e0c4adb58379b4809bc91ea111a085484"
#: Number of data records (lines after the header) in the canonical CSV.
CANONICAL_RECORDS = 564516
_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 20


class ChecksumError(ValueError):
    """Fetched data does not match the expected digest / record count."""


# --------------------------------------------------------------------------------------
# Digests
# --------------------------------------------------------------------------------------


def _iter_chunks(fh: IO[bytes], chunk: int = _CHUNK):
    while True:
        block = fh.read(chunk)
        if not block:
            return
        yield block


def git_blob_id(path: str | os.PathLike[str]) -> str:
    """git blob id of a file: hex SHA-1 of ``b"blob <size>\\0"`` followed by its bytes.

    Equals ``git hash-object <path>`` (without filters).  Streamed, so memory use is
    constant.
    """
    size = os.path.getsize(path)
    h = hashlib.sha1(b"blob %d\0" % size)
    with open(path, "rb") as fh:
        for block in _iter_chunks(fh):
            h.update(block)
    return h.hexdigest()


def _csv_digests(path: Path) -> dict[str, Any]:
    """sha256, git blob id, byte size and record count of a CSV file in one pass."""
    size = path.stat().st_size
    sha = hashlib.sha256()
    blob = hashlib.sha1(b"blob %d\0" % size)
    newlines = 0
    last = b""
    with open(path, "rb") as fh:
        for block in _iter_chunks(fh):
            sha.update(block)
            blob.update(block)
            newlines += block.count(b"\n")
            last = block[-1:]
    lines = newlines + (1 if size and last != b"\n" else 0)
    return {
        "sha256": sha.hexdigest(),
        "git_blob_id": blob.hexdigest(),
        "bytes": size,
        "records": max(lines - 1, 0),
    }


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


# --------------------------------------------------------------------------------------
# Fetching
# --------------------------------------------------------------------------------------


def _open_source(source: str | os.PathLike[str], timeout: float) -> IO[bytes]:
    """Open an http(s)/file URL (urllib) or a local path for binary streaming."""
    text = os.fspath(source)
    scheme = urllib.parse.urlparse(text).scheme.lower() if isinstance(text, str) else ""
    if scheme in ("http", "https", "file"):
        request = urllib.request.Request(text, headers={"User-Agent": "privopt-data/1"})
        return urllib.request.urlopen(request, timeout=timeout)  # noqa: S310 - scheme checked
    if scheme and len(scheme) > 1:  # "c:" style drive letters are paths, not schemes
        raise ValueError(f"unsupported URL scheme {scheme!r} in source {text!r}")
    return open(text, "rb")


def _unlink_quietly(path: Path | None) -> None:
    if path is None:
        return
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError:  # pragma: no cover - best effort cleanup
        logger.warning("could not remove temporary file %s", path, exc_info=True)


def _tempname(dest: Path, suffix: str) -> Path:
    fd, name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=suffix)
    os.close(fd)
    return Path(name)


def fetch_uber(
    source: str | os.PathLike[str],
    dest: str | os.PathLike[str],
    *,
    sha256: str | None = None,
    git_blob_id: str | None = CANONICAL_GIT_BLOB_ID,
    expected_records: int | None = CANONICAL_RECORDS,
    timeout: float = 60.0,
) -> dict[str, Any]:
    """Fetch, verify and store the Uber pickups CSV.

    Parameters
    ----------
    source:
        ``http://``, ``https://`` or ``file://`` URL (read with :mod:`urllib`) or a local
        path.  Plain or gzip-compressed CSV; gzip is recognised by its magic bytes,
        not by the name.
    dest:
        Where the *plain, decompressed* CSV goes.  Parent directories are created.
    sha256:
        If given, the sha256 of the bytes exactly as fetched (compressed or not) must
        equal it, and this is the only content check (use it for the shared subset or
        any non-canonical mirror).
    git_blob_id, expected_records:
        Used only when ``sha256`` is None (the canonical check): the git blob id of
        the decompressed CSV must equal ``git_blob_id`` and its number of data lines
        (excluding the header) must equal ``expected_records``.  Either may be set to
        None to skip that part, but not both.
    timeout:
        Socket timeout in seconds for URL sources.

    Returns
    -------
    dict
        JSON-serialisable provenance: ``source``, ``fetched_sha256``,
        ``fetched_bytes``, ``compressed``, ``csv_sha256``, ``csv_git_blob_id``,
        ``csv_bytes``, ``records``, ``canonical`` (CSV blob id equals
        :data:`CANONICAL_GIT_BLOB_ID`) and ``verified_by`` (``"sha256"`` or
        ``"git_blob_id"``/``"records"`` joined by ``+``).

    Raises
    ------
    ChecksumError
        On any digest/record-count mismatch or undecodable gzip data; the message
        names the source and both the expected and the actual value.  Neither
        ``dest`` nor any temporary file is left behind (a pre-existing ``dest`` is
        left untouched).
    ValueError
        If no check at all is requested, or the URL scheme is unsupported.
    OSError, urllib.error.URLError
        If the source cannot be read.
    """
    if sha256 is None and git_blob_id is None and expected_records is None:
        raise ValueError("fetch_uber needs sha256, git_blob_id or expected_records to verify the data")
    src = os.fspath(source)
    dest = Path(dest)

    with atomic_path(dest) as plain:  # dest appears only once every check has passed
        # 1. Stream the bytes to a scratch file next to dest, hashing as they come.
        fetched: Path | None = _tempname(dest, ".download")
        try:
            fetched_sha = hashlib.sha256()
            fetched_bytes = 0
            logger.info("fetching %s -> %s", src, dest)
            with _open_source(src, timeout) as fin, open(fetched, "wb") as fout:
                for block in _iter_chunks(fin):
                    fetched_sha.update(block)
                    fetched_bytes += len(block)
                    fout.write(block)
            fetched_hex = fetched_sha.hexdigest()

            if sha256 is not None and fetched_hex != sha256.strip().lower():
                raise ChecksumError(
                    f"sha256 mismatch for {src}: expected {sha256.strip().lower()}, got {fetched_hex}"
                )

            # 2. Decompress if gzip (magic bytes), else the fetched file is the CSV.
            with open(fetched, "rb") as fh:
                compressed = fh.read(2) == _GZIP_MAGIC
            if compressed:
                try:
                    with gzip.open(fetched, "rb") as fin, open(plain, "wb") as fout:
                        shutil.copyfileobj(fin, fout, _CHUNK)
                except (OSError, EOFError, zlib.error) as exc:
                    raise ChecksumError(
                        f"could not decompress gzip data from {src} (sha256 of fetched bytes "
                        f"{fetched_hex}; expected git blob id {git_blob_id}, got none): {exc}"
                    ) from exc
            else:
                os.replace(fetched, plain)
                fetched = None
        finally:
            _unlink_quietly(fetched)

        # 3. Digests of the CSV; canonical check when no sha256 was given.
        digests = _csv_digests(plain)
        verified_by = ["sha256"] if sha256 is not None else []
        if sha256 is None:
            if git_blob_id is not None:
                if digests["git_blob_id"] != git_blob_id.strip().lower():
                    raise ChecksumError(
                        f"git blob id mismatch for {src}: expected {git_blob_id.strip().lower()}, "
                        f"got {digests['git_blob_id']} (sha256 {digests['sha256']}, "
                        f"{digests['records']} records)"
                    )
                verified_by.append("git_blob_id")
            if expected_records is not None:
                if digests["records"] != expected_records:
                    raise ChecksumError(
                        f"record count mismatch for {src}: expected {expected_records} records, "
                        f"got {digests['records']} (git blob id {digests['git_blob_id']}, "
                        f"sha256 {digests['sha256']})"
                    )
                verified_by.append("records")

    provenance = {
        "source": src,
        "fetched_sha256": fetched_hex,
        "fetched_bytes": fetched_bytes,
        "compressed": compressed,
        "csv_sha256": digests["sha256"],
        "csv_git_blob_id": digests["git_blob_id"],
        "csv_bytes": digests["bytes"],
        "records": digests["records"],
        "canonical": digests["git_blob_id"] == CANONICAL_GIT_BLOB_ID,
        "verified_by": "+".join(verified_by),
    }
    logger.info("stored %s (%d records, canonical=%s)", dest, digests["records"], provenance["canonical"])
    return provenance


# --------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------


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
