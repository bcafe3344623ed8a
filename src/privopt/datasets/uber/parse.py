"""Parsing the Uber pickups: the data set's parse step (:func:`parse`, ``privopt.datasets.uber.parse:parse``)
and the validated reader of the raw CSV behind it (:func:`read_pickups`), which reports the file and the
1-based line of the first offending record.

The parse step reads the config key ``uber_min_records`` and writes the frame as ``pickups.parquet``
(read back by :func:`privopt.datasets.uber.reader.read_pickups_parquet`).  The library never prints; it logs
through :mod:`logging` (logger ``privopt.datasets.uber.parse``).
"""

from __future__ import annotations

import csv
import gzip
import io
import logging
import math
import os
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv


from privopt.datasets.uber.fetch import RAW_FILE
from privopt.datasets.uber.reader import PICKUP_COLUMNS, DataValidationError

__all__ = ["COLUMNS", "TIME_FORMAT", "NYC_BOUNDS", "MIN_RECORDS", "TooFewRecordsError", "read_pickups", "parse"]

logger = logging.getLogger(__name__)

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


_GZIP_MAGIC = b"\x1f\x8b"


class TooFewRecordsError(DataValidationError):
    """A pickups file holds fewer records than required (``read_pickups(min_records=...)``)."""


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
        table = pa.table({c: pa.array([], pa.string()) for c in PICKUP_COLUMNS})
    else:
        try:
            table = pacsv.read_csv(
                io.BytesIO(body),
                read_options=pacsv.ReadOptions(column_names=list(PICKUP_COLUMNS), use_threads=True),
                parse_options=pacsv.ParseOptions(newlines_in_values=False, ignore_empty_lines=False),
                convert_options=pacsv.ConvertOptions(
                    column_types={c: pa.string() for c in PICKUP_COLUMNS},
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
