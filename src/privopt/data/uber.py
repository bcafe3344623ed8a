"""Uber NYC pickups (April 2014): verified download and validated parsing.

The experiments of the decomposable-submodular paper use the FiveThirtyEight FOIL
release ``uber-raw-data-apr14.csv`` (columns ``Date/Time, Lat, Lon, Base``).  This
module

* fetches the file from an http(s)/file URL or a local path, verifies it (either
  against a caller-supplied sha256 of the bytes as fetched, or against the canonical
  git blob id and record count) and writes the plain CSV atomically
  (:func:`privopt.io.atomic_path`; :func:`fetch_uber`);
* parses and validates the CSV into a tidy :class:`pandas.DataFrame`
  (:func:`read_pickups`), reporting the file and the 1-based line of the first
  offending record;
* stores/loads the parsed frame as Parquet (:func:`privopt.io.write_parquet`, atomic; :func:`read_pickups_parquet`).

The library never prints; it logs through :mod:`logging` (logger ``privopt.data.uber``).
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import logging
import math
import os
import shutil
import tempfile
import urllib.parse
import urllib.request
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from privopt.io import atomic_path

__all__ = [
    "CANONICAL_URL",
    "CANONICAL_GIT_BLOB_ID",
    "CANONICAL_RECORDS",
    "COLUMNS",
    "TIME_FORMAT",
    "NYC_BOUNDS",
    "MIN_RECORDS",
    "ChecksumError",
    "DataValidationError",
    "TooFewRecordsError",
    "content_key",
    "git_blob_id",
    "sha256_file",
    "fetch_uber",
    "read_pickups",
    "read_pickups_parquet",
]

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
#: Header of the raw CSV, in order.
COLUMNS = ("Date/Time", "Lat", "Lon", "Base")
#: strptime format of the ``Date/Time`` column, e.g. ``4/1/2014 0:11:00``.
TIME_FORMAT = "%m/%d/%Y %H:%M:%S"
#: Fewest records a pickups file may hold (config key ``uber_min_records``, default): the fewest pickups an
#: instance of the shipped configs draws (Chaturvedi et al. Fig. 1: m = 100 from its box).  Each instance
#: still checks its own needs against the data (e.g. the box pool against ``chaturvedi2021.fig2.ms``).
MIN_RECORDS = 100
#: Default plausibility bounds (lat_min, lat_max, lon_min, lon_max): the NYC region.
NYC_BOUNDS = (39.5, 42.0, -75.5, -72.0)

#: Column names of the parsed frame, matching :data:`COLUMNS`.
_OUT_COLUMNS = ("time", "lat", "lon", "base")
_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 20


class ChecksumError(ValueError):
    """Fetched data does not match the expected digest / record count."""


class DataValidationError(ValueError):
    """A pickups file is malformed.

    Attributes
    ----------
    path:
        The offending file.
    line:
        1-based physical line number of the first offending record (``None`` if it
        could not be located).
    """

    def __init__(self, path: str | os.PathLike[str], line: int | None, message: str):
        self.path = str(path)
        self.line = line
        self.reason = message
        where = f"{self.path}, line {line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")

    def __reduce__(self):  # keep picklable (e.g. across multiprocessing workers)
        return (type(self), (self.path, self.line, self.reason))


class TooFewRecordsError(DataValidationError):
    """A pickups file holds fewer records than required (``read_pickups(min_records=...)``)."""


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


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex sha256 of a file's bytes (streamed)."""
    h = hashlib.sha256()
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


def _read_bytes(path: Path) -> bytes:
    """Whole file as bytes, gunzipped if it starts with the gzip magic."""
    with open(path, "rb") as fh:
        magic = fh.read(2)
    try:
        if magic == _GZIP_MAGIC:
            with gzip.open(path, "rb") as fh:
                return fh.read()
    except (OSError, EOFError, zlib.error) as exc:
        raise DataValidationError(path, None, f"corrupt gzip data: {exc}") from exc
    return path.read_bytes()


def _check_header(path: Path, line: bytes) -> None:
    try:
        text = line.decode("utf-8-sig").rstrip("\r")
    except UnicodeDecodeError as exc:
        raise DataValidationError(path, 1, f"header is not valid UTF-8: {exc}") from exc
    names = [n.strip() for n in next(csv.reader([text]), [])]
    if tuple(names) == COLUMNS:
        return
    expected = ", ".join(COLUMNS)
    missing = [c for c in COLUMNS if c not in names]
    extra = [n for n in names if n not in COLUMNS]
    dupes = sorted({n for n in names if names.count(n) > 1})
    problems = []
    if missing:
        problems.append("missing column(s) " + ", ".join(repr(c) for c in missing))
    if extra:
        problems.append("unexpected column(s) " + ", ".join(repr(c) for c in extra))
    if dupes:
        problems.append("duplicated column(s) " + ", ".join(repr(c) for c in dupes))
    if not problems:
        problems.append("columns out of order")
    raise DataValidationError(
        path, 1, f"bad header {names!r}: {'; '.join(problems)} (expected: {expected})"
    )


def _check_structure(path: Path, body: bytes, first_line: int) -> int:
    """Vectorised field-count check of the body; returns the number of records.

    Lines are split at ``\\n`` (a quoted field may not contain a newline).  Commas inside
    a double-quoted section of the same line do not separate fields.  Raises on the
    first line whose field count is not ``len(COLUMNS)`` or whose quotes are unbalanced.
    """
    if not body:
        return 0
    a = np.frombuffer(body, dtype=np.uint8)
    nl = np.flatnonzero(a == 10)
    # Line i spans [starts[i], ends[i]).
    ends = nl if len(nl) and nl[-1] == len(a) - 1 else np.append(nl, len(a))
    starts = np.concatenate(([0], ends[:-1] + 1))
    commas = np.flatnonzero(a == 44)
    quotes = np.flatnonzero(a == 34)
    if len(quotes):
        # Quote parity since the start of the comma's own line.
        line_of_comma = np.searchsorted(ends, commas)
        q_before = np.searchsorted(quotes, commas) - np.searchsorted(quotes, starts[line_of_comma])
        commas = commas[q_before % 2 == 0]
        q_per_line = np.diff(np.searchsorted(quotes, np.append(starts, len(a))))
        odd = np.flatnonzero(q_per_line % 2 == 1)
    else:
        odd = np.empty(0, dtype=np.intp)
    fields = np.diff(np.searchsorted(commas, np.append(starts, len(a)))) + 1
    bad = np.flatnonzero(fields != len(COLUMNS))
    first_bad = min(int(bad[0]) if len(bad) else len(fields), int(odd[0]) if len(odd) else len(fields))
    if first_bad < len(fields):
        i = first_bad
        raw_line = body[starts[i] : ends[i]].rstrip(b"\r")
        shown = raw_line[:120].decode("utf-8", "replace")
        if len(odd) and odd[0] == i:
            what = "unbalanced double quote"
        elif not raw_line.strip():
            what = f"empty line (expected {len(COLUMNS)} fields)"
        else:
            what = f"expected {len(COLUMNS)} fields, found {int(fields[i])}"
        raise DataValidationError(path, first_line + i, f"{what}: {shown!r}")
    return len(fields)


def _to_float(arr: pa.ChunkedArray) -> np.ndarray:
    try:
        return pc.cast(arr, pa.float64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return pd.to_numeric(arr.to_pandas(), errors="coerce").to_numpy(dtype=np.float64)


def read_pickups(
    csv_path: str | os.PathLike[str],
    *,
    bounds: tuple[float, float, float, float] | None = NYC_BOUNDS,
    min_records: int = 0,
) -> pd.DataFrame:
    """Parse and validate an Uber pickups CSV (plain or gzip).

    Parameters
    ----------
    csv_path:
        CSV with header exactly :data:`COLUMNS`; gzip is recognised by magic bytes.
        Fields may be double-quoted; CRLF line ends are accepted; trailing empty lines
        at the end of the file are ignored, empty lines elsewhere are errors.
    bounds:
        ``(lat_min, lat_max, lon_min, lon_max)``, inclusive plausibility range for the
        coordinates (default :data:`NYC_BOUNDS`); ``None`` disables the range check
        (coordinates must still be finite).
    min_records:
        Fewest records (lines after the header) the file must hold; a file with a header and fewer
        records is refused, naming the file and the count (checked before anything is parsed).

    Returns
    -------
    pandas.DataFrame
        Columns ``time`` (``datetime64[ns]``, parsed with :data:`TIME_FORMAT`), ``lat``
        and ``lon`` (``float64``), ``base`` (``category`` of strings), in file order,
        with a default RangeIndex.

    Raises
    ------
    DataValidationError
        For a bad header (naming missing/unexpected columns), a record with the wrong
        number of fields, an unparsable time/lat/lon, an empty base or a coordinate
        outside ``bounds``, or fewer than ``min_records`` records.  The message names the file
        and the 1-based line number of the first offending record.
    """
    path = Path(csv_path)
    raw = _read_bytes(path)
    if not raw.strip(b"\r\n\t "):
        raise DataValidationError(path, 1, f"empty file (expected header {', '.join(COLUMNS)})")
    nl = raw.find(b"\n")
    header, body = (raw, b"") if nl < 0 else (raw[:nl], raw[nl + 1 :])
    _check_header(path, header)
    body = body.rstrip(b"\r\n")
    n_lines = _check_structure(path, body, first_line=2)
    if n_lines < min_records:
        raise TooFewRecordsError(
            path, None, f"{n_lines} records after the header, fewer than the {min_records} required"
        )

    if n_lines == 0:
        table = pa.table({c: pa.array([], pa.string()) for c in _OUT_COLUMNS})
    else:
        try:
            table = pacsv.read_csv(
                io.BytesIO(body),
                read_options=pacsv.ReadOptions(column_names=list(_OUT_COLUMNS), use_threads=True),
                parse_options=pacsv.ParseOptions(newlines_in_values=False, ignore_empty_lines=False),
                convert_options=pacsv.ConvertOptions(
                    column_types={c: pa.string() for c in _OUT_COLUMNS},
                    strings_can_be_null=False,
                    quoted_strings_can_be_null=False,
                ),
            )
        except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
            raise DataValidationError(path, None, f"CSV parse error: {exc}") from exc
    if table.num_rows != n_lines:  # pragma: no cover - structure check should prevent this
        raise DataValidationError(
            path, None, f"parser found {table.num_rows} records, line scan found {n_lines}"
        )

    time_str = table.column("time").to_pandas()
    times = pd.to_datetime(time_str, format=TIME_FORMAT, errors="coerce", cache=True)
    lat = _to_float(table.column("lat"))
    lon = _to_float(table.column("lon"))
    base = table.column("base").to_pandas().str.strip()

    # One mask per check; report the earliest offending line, first check first.
    checks: list[tuple[np.ndarray, Callable[[int], str]]] = [
        (
            times.isna().to_numpy(),
            lambda i: f"unparsable Date/Time {time_str.iloc[i]!r} (expected format {TIME_FORMAT!r})",
        ),
        (~np.isfinite(lat), lambda i: f"unparsable Lat {table.column('lat')[i].as_py()!r}"),
        (~np.isfinite(lon), lambda i: f"unparsable Lon {table.column('lon')[i].as_py()!r}"),
        ((base == "").to_numpy(), lambda i: "empty Base"),
    ]
    if bounds is not None:
        lat_min, lat_max, lon_min, lon_max = (float(b) for b in bounds)
        if not (lat_min <= lat_max and lon_min <= lon_max) or any(map(math.isnan, bounds)):
            raise ValueError(f"invalid bounds {bounds!r}: need (lat_min, lat_max, lon_min, lon_max)")
        with np.errstate(invalid="ignore"):
            checks.append(
                (
                    np.isfinite(lat) & ((lat < lat_min) | (lat > lat_max)),
                    lambda i: f"Lat {lat[i]!r} outside [{lat_min}, {lat_max}]",
                )
            )
            checks.append(
                (
                    np.isfinite(lon) & ((lon < lon_min) | (lon > lon_max)),
                    lambda i: f"Lon {lon[i]!r} outside [{lon_min}, {lon_max}]",
                )
            )
    firsts = [(int(np.argmax(mask)), k) for k, (mask, _) in enumerate(checks) if mask.any()]
    if firsts:
        row, k = min(firsts)
        raise DataValidationError(path, row + 2, checks[k][1](row))

    categories = sorted(base.unique().tolist())
    df = pd.DataFrame(
        {
            "time": times.to_numpy().astype("datetime64[ns]"),
            "lat": lat,
            "lon": lon,
            "base": pd.Categorical(base.to_numpy(dtype=object), categories=categories),
        }
    )
    logger.debug("read %d pickups from %s", len(df), path)
    return df


# --------------------------------------------------------------------------------------
# Parquet
# --------------------------------------------------------------------------------------


def read_pickups_parquet(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a frame written by :func:`privopt.io.write_parquet` from :func:`read_pickups`.

    Restores the dtypes of :func:`read_pickups` (``time`` ``datetime64[ns]``, ``lat``/
    ``lon`` ``float64``, ``base`` ``category``).

    Raises
    ------
    DataValidationError
        If the columns are not exactly ``time, lat, lon, base``.
    """
    df = pd.read_parquet(path)
    if tuple(df.columns) != _OUT_COLUMNS:
        raise DataValidationError(
            path, None, f"expected columns {list(_OUT_COLUMNS)}, found {list(df.columns)}"
        )
    base = df["base"]
    if not isinstance(base.dtype, pd.CategoricalDtype):
        base = base.astype(str)
        base = pd.Categorical(base.to_numpy(dtype=object), categories=sorted(base.unique().tolist()))
    return pd.DataFrame(
        {
            "time": df["time"].to_numpy().astype("datetime64[ns]"),
            "lat": df["lat"].to_numpy(dtype=np.float64),
            "lon": df["lon"].to_numpy(dtype=np.float64),
            "base": base,
        }
    )
