"""Tests for the Uber pickups data set: fetch / checksum (privopt.datasets.uber.fetch), parsing
(privopt.datasets.uber.parse) and the reader of the parsed table (privopt.datasets.uber.reader).

The shared subset is read from ``<repo>/../shared/data`` and never copied into the
repository; tests that need it are skipped with a reason when it is absent.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import http.server
import itertools
import pickle
import shutil
import subprocess
import threading
import urllib.error
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privopt.datasets.uber.fetch import (
    CANONICAL_GIT_BLOB_ID,
    CANONICAL_RECORDS,
    ChecksumError,
    content_key,
    fetch_uber,
    git_blob_id,
)
from privopt.datasets.uber.parse import COLUMNS, MIN_RECORDS, TooFewRecordsError, read_pickups
from privopt.datasets.uber.reader import DataValidationError, read_pickups_parquet
from privopt.io import write_parquet

REPO = Path(__file__).resolve().parents[1]
SUBSET = REPO / ".." / "shared" / "data" / "uber-raw-data-apr14.subset.csv.gz"
SUBSET_GZ_SHA256 = "8dfd591402b260e2a1497fa6e4556b046627f5e42e664228c1d3290bdeda8923"
SUBSET_CSV_SHA256 = "361038b0cd3b3a94857240f1d5f147dca36148f27d0ec84e311a214331fd4ce4"
SUBSET_RECORDS = 99_997

HEADER = "Date/Time,Lat,Lon,Base\n"
ROWS = [
    "4/1/2014 0:11:00,40.769,-73.9549,B02512\n",
    "4/1/2014 0:17:00,40.7267,-74.0345,B02512\n",
    "4/30/2014 23:59:00,40.7316,-73.9873,B02598\n",
]
SMALL_CSV = (HEADER + "".join(ROWS)).encode()


@pytest.fixture(scope="module")
def subset_path() -> Path:
    if not SUBSET.is_file():
        pytest.skip(f"shared data subset not found at {SUBSET.resolve()} (expected beside the repo)")
    return SUBSET


@pytest.fixture(scope="module")
def subset_df(subset_path: Path) -> pd.DataFrame:
    return read_pickups(subset_path)


def _expected_blob_id(data: bytes) -> str:
    """git blob id computed independently: ``git hash-object`` if available, else the formula."""
    git = shutil.which("git")
    if git:
        out = subprocess.run(
            [git, "hash-object", "--no-filters", "--stdin"], input=data, capture_output=True, check=True
        )
        return out.stdout.decode().strip()
    return hashlib.sha1(b"blob " + str(len(data)).encode() + b"\x00" + data).hexdigest()


def _leftovers(directory: Path, keep: set[str] = frozenset()) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name not in keep)


# --------------------------------------------------------------------------------------
# Digests
# --------------------------------------------------------------------------------------


def test_git_blob_id(tmp_path: Path) -> None:
    f = tmp_path / "small.csv"
    f.write_bytes(SMALL_CSV)
    assert git_blob_id(f) == _expected_blob_id(SMALL_CSV)
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    assert git_blob_id(empty) == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # git's empty blob


# --------------------------------------------------------------------------------------
# fetch_uber: sha256 path on the shared subset
# --------------------------------------------------------------------------------------


def test_fetch_subset_with_sha256(subset_path: Path, tmp_path: Path) -> None:
    dest = tmp_path / "out" / "uber.csv"
    prov = fetch_uber(subset_path, dest, sha256=SUBSET_GZ_SHA256)
    assert dest.is_file()
    assert _leftovers(dest.parent) == ["uber.csv"]
    assert prov["fetched_sha256"] == SUBSET_GZ_SHA256
    assert prov["csv_sha256"] == SUBSET_CSV_SHA256
    assert hashlib.sha256(dest.read_bytes()).hexdigest() == SUBSET_CSV_SHA256
    assert prov["csv_git_blob_id"] == git_blob_id(dest)
    assert prov["records"] == SUBSET_RECORDS
    assert prov["compressed"] is True
    assert prov["canonical"] is False
    assert prov["verified_by"] == "sha256"
    assert prov["csv_bytes"] == dest.stat().st_size
    assert prov["fetched_bytes"] == subset_path.stat().st_size
    assert prov["source"] == str(subset_path)
    assert dest.read_bytes().startswith(b"Date/Time,Lat,Lon,Base\n4/1/2014 0:11:00,40.769,-73.9549,B02512\n")


def test_fetch_subset_wrong_sha256(subset_path: Path, tmp_path: Path) -> None:
    dest = tmp_path / "uber.csv"
    wrong = "0" * 64
    with pytest.raises(ChecksumError) as info:
        fetch_uber(subset_path, dest, sha256=wrong)
    msg = str(info.value)
    assert wrong in msg and SUBSET_GZ_SHA256 in msg and str(subset_path) in msg
    assert isinstance(info.value, ValueError)
    assert not dest.exists()
    assert _leftovers(tmp_path) == []


def test_fetch_subset_fails_canonical_check(subset_path: Path, tmp_path: Path) -> None:
    """Without a sha256 the canonical git blob id applies, and the subset is not canonical."""
    dest = tmp_path / "uber.csv"
    with pytest.raises(ChecksumError) as info:
        fetch_uber(subset_path, dest)
    msg = str(info.value)
    assert CANONICAL_GIT_BLOB_ID in msg and str(subset_path) in msg
    assert not dest.exists()
    assert _leftovers(tmp_path) == []


# --------------------------------------------------------------------------------------
# fetch_uber: git blob id / record count path on synthetic data
# --------------------------------------------------------------------------------------


def test_fetch_git_blob_id_path(tmp_path: Path) -> None:
    src_dir = tmp_path / "src"
    src_dir.mkdir()
    plain = src_dir / "small.csv"
    plain.write_bytes(SMALL_CSV)
    gz = src_dir / "small.bin"  # gzip detected by magic bytes, not by name
    gz.write_bytes(gzip.compress(SMALL_CSV))
    blob = _expected_blob_id(SMALL_CSV)
    out = tmp_path / "out"

    for source in (plain, gz):
        dest = out / f"from-{source.name}.csv"
        prov = fetch_uber(source, dest, git_blob_id=blob, expected_records=len(ROWS))
        assert dest.read_bytes() == SMALL_CSV
        assert prov["csv_git_blob_id"] == blob
        assert prov["records"] == len(ROWS)
        assert prov["compressed"] is (source is gz)
        assert prov["canonical"] is False
        assert prov["verified_by"] == "git_blob_id+records"
    assert _leftovers(out) == ["from-small.bin.csv", "from-small.csv.csv"]

    # Wrong record count fails even with the right blob id.
    dest = out / "bad.csv"
    with pytest.raises(ChecksumError) as info:
        fetch_uber(gz, dest, git_blob_id=blob, expected_records=len(ROWS) + 1)
    assert str(len(ROWS) + 1) in str(info.value) and str(gz) in str(info.value)
    assert not dest.exists()

    # Wrong blob id names both ids.
    wrong = "f" * 40
    with pytest.raises(ChecksumError) as info:
        fetch_uber(plain, dest, git_blob_id=wrong, expected_records=len(ROWS))
    assert wrong in str(info.value) and blob in str(info.value)
    assert not dest.exists()
    assert _leftovers(out) == ["from-small.bin.csv", "from-small.csv.csv"]


def test_fetch_record_count_without_trailing_newline(tmp_path: Path) -> None:
    src = tmp_path / "nonl.csv"
    data = SMALL_CSV.rstrip(b"\n")
    src.write_bytes(data)
    prov = fetch_uber(src, tmp_path / "o.csv", git_blob_id=None, expected_records=len(ROWS))
    assert prov["records"] == len(ROWS)
    assert prov["verified_by"] == "records"


def test_fetch_corrupt_gzip_and_no_check(tmp_path: Path) -> None:
    src = tmp_path / "broken.gz"
    src.write_bytes(gzip.compress(SMALL_CSV)[:-12])
    out = tmp_path / "out"
    with pytest.raises(ChecksumError):
        fetch_uber(src, out / "x.csv", git_blob_id=_expected_blob_id(SMALL_CSV), expected_records=3)
    assert _leftovers(out) == []
    with pytest.raises(ValueError, match="needs"):
        fetch_uber(src, out / "x.csv", git_blob_id=None, expected_records=None)


def test_fetch_file_url(tmp_path: Path) -> None:
    src = tmp_path / "small.csv.gz"
    src.write_bytes(gzip.compress(SMALL_CSV))
    sha = hashlib.sha256(src.read_bytes()).hexdigest()
    prov = fetch_uber(src.as_uri(), tmp_path / "out.csv", sha256=sha.upper())
    assert (tmp_path / "out.csv").read_bytes() == SMALL_CSV
    assert prov["source"] == src.as_uri()


# --------------------------------------------------------------------------------------
# fetch_uber over HTTP (local server on 127.0.0.1)
# --------------------------------------------------------------------------------------


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - stdlib signature
        pass


@pytest.fixture
def http_server(tmp_path: Path):
    """Serve a tmp dir holding a gzip CSV (served under a non-.gz name too) and a plain CSV."""
    root = tmp_path / "www"
    root.mkdir()
    (root / "small.csv").write_bytes(SMALL_CSV)
    gz = gzip.compress(SMALL_CSV)
    (root / "small.csv.gz").write_bytes(gz)
    (root / "small.dat").write_bytes(gz)
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_fetch_http(http_server, tmp_path: Path) -> None:
    base, root = http_server
    out = tmp_path / "out"
    gz_sha = hashlib.sha256((root / "small.csv.gz").read_bytes()).hexdigest()
    blob = _expected_blob_id(SMALL_CSV)

    prov = fetch_uber(f"{base}/small.csv.gz", out / "a.csv", sha256=gz_sha, timeout=10)
    assert (out / "a.csv").read_bytes() == SMALL_CSV
    assert prov["compressed"] is True and prov["fetched_sha256"] == gz_sha
    assert prov["source"] == f"{base}/small.csv.gz"

    prov = fetch_uber(f"{base}/small.dat", out / "b.csv", git_blob_id=blob, expected_records=3, timeout=10)
    assert (out / "b.csv").read_bytes() == SMALL_CSV and prov["compressed"] is True

    prov = fetch_uber(f"{base}/small.csv", out / "c.csv", git_blob_id=blob, expected_records=3, timeout=10)
    assert (out / "c.csv").read_bytes() == SMALL_CSV and prov["compressed"] is False
    assert prov["csv_sha256"] == hashlib.sha256(SMALL_CSV).hexdigest()

    with pytest.raises(ChecksumError) as info:
        fetch_uber(f"{base}/small.csv.gz", out / "d.csv", sha256="1" * 64, timeout=10)
    assert "1" * 64 in str(info.value) and gz_sha in str(info.value) and base in str(info.value)

    with pytest.raises(urllib.error.HTTPError):
        fetch_uber(f"{base}/missing.csv", out / "e.csv", sha256=gz_sha, timeout=10)
    assert _leftovers(out) == ["a.csv", "b.csv", "c.csv"]


# --------------------------------------------------------------------------------------
# read_pickups
# --------------------------------------------------------------------------------------


def test_read_subset(subset_df: pd.DataFrame) -> None:
    df = subset_df
    assert len(df) == SUBSET_RECORDS
    assert list(df.columns) == ["time", "lat", "lon", "base"]
    assert df["time"].dtype == np.dtype("datetime64[ns]")
    assert df["lat"].dtype == np.float64 and df["lon"].dtype == np.float64
    assert isinstance(df["base"].dtype, pd.CategoricalDtype)
    first = df.iloc[0]
    assert first["time"] == pd.Timestamp("2014-04-01 00:11:00")
    assert first["lat"] == 40.769 and first["lon"] == -73.9549 and first["base"] == "B02512"
    assert df["base"].value_counts().to_dict() == {"B02598": 64_461, "B02512": 35_536}
    assert df["time"].min() >= pd.Timestamp("2014-04-01") and df["time"].max() < pd.Timestamp("2014-05-01")


def test_read_plain_equals_gzip_and_canonical_quoting(tmp_path: Path) -> None:
    plain = tmp_path / "p.csv"
    plain.write_bytes(SMALL_CSV)
    gz = tmp_path / "p.anything"
    gz.write_bytes(gzip.compress(SMALL_CSV))
    # The canonical file quotes the header, Date/Time and Base; also accept CRLF.
    quoted = tmp_path / "q.csv"
    lines = ['"Date/Time","Lat","Lon","Base"']
    for row in ROWS:
        t, la, lo, b = row.strip().split(",")
        lines.append(f'"{t}",{la},{lo},"{b}"')
    quoted.write_bytes(("\r\n".join(lines) + "\r\n").encode())
    a, b, c = read_pickups(plain), read_pickups(gz), read_pickups(quoted)
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a, c)
    assert a["time"].iloc[2] == pd.Timestamp("2014-04-30 23:59:00")
    assert a["base"].tolist() == ["B02512", "B02512", "B02598"]


def test_read_header_only_and_trailing_blank_lines(tmp_path: Path) -> None:
    f = tmp_path / "h.csv"
    f.write_text(HEADER)
    df = read_pickups(f)
    assert len(df) == 0 and list(df.columns) == ["time", "lat", "lon", "base"]
    assert df["time"].dtype == np.dtype("datetime64[ns]")
    f.write_bytes(SMALL_CSV + b"\n\n")
    assert len(read_pickups(f)) == len(ROWS)


def _bad(tmp_path: Path, name: str, text: str, *, gz: bool = False) -> Path:
    f = tmp_path / name
    data = text.encode()
    f.write_bytes(gzip.compress(data) if gz else data)
    return f


R1, R2, R3 = (r for r in ROWS)
MALFORMED = {
    # name: (content, expected line, words that must appear in the message)
    "bad_header": ("Date/Time,Latitude,Lon,Base\n" + R1, 1, ["'Lat'", "'Latitude'"]),
    "missing_column": ("Date/Time,Lat,Lon\n" + "4/1/2014 0:11:00,40.769,-73.9549\n", 1, ["missing", "'Base'"]),
    "extra_column": ("Date/Time,Lat,Lon,Base,Extra\n" + R1, 1, ["unexpected", "'Extra'"]),
    "out_of_order": ("Lat,Date/Time,Lon,Base\n" + R1, 1, ["order"]),
    "too_many_fields": (HEADER + R1 + R2 + "4/1/2014 0:20:00,40.7,-73.9,B02512,x\n" + R3, 4, ["found 5"]),
    "too_few_fields": (HEADER + R1 + "4/1/2014 0:20:00,40.7,-73.9\n", 3, ["found 3"]),
    "empty_line": (HEADER + R1 + "\n" + R2, 3, ["empty line"]),
    "unparsable_lat": (HEADER + R1 + "4/1/2014 0:20:00,forty,-73.9,B02512\n" + R2, 3, ["Lat", "forty"]),
    "unparsable_lon": (HEADER + R1 + R2 + R3 + "4/2/2014 1:00:00,40.7,,B02512\n", 5, ["Lon"]),
    "lat_out_of_range": (HEADER + R1 + R2 + R3 + "4/2/2014 1:00:00,4.07,-73.9,B02512\n", 5, ["Lat", "4.07", "outside"]),
    "lon_out_of_range": (HEADER + R1 + "4/2/2014 1:00:00,40.7,73.9,B02512\n", 3, ["Lon", "outside"]),
    "bad_date": (HEADER + "2014-04-01 00:11:00,40.769,-73.9549,B02512\n" + R2, 2, ["Date/Time", "2014-04-01"]),
    "bad_month": (HEADER + R1 + R2 + "13/1/2014 0:11:00,40.769,-73.9549,B02512\n", 4, ["Date/Time"]),
    "empty_base": (HEADER + R1 + R2 + R3 + R1 + "4/2/2014 1:00:00,40.7,-73.9,\n", 6, ["empty Base"]),
    "unbalanced_quote": (HEADER + R1 + '"4/2/2014 1:00:00,40.7,-73.9,B02512\n' + R2, 3, ["quote"]),
}


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_read_malformed(tmp_path: Path, case: str, gz: bool) -> None:
    text, line, words = MALFORMED[case]
    f = _bad(tmp_path, f"{case}.csv" + (".gz" if gz else ""), text, gz=gz)
    with pytest.raises(DataValidationError) as info:
        read_pickups(f)
    err = info.value
    msg = str(err)
    assert isinstance(err, ValueError)
    assert err.line == line, msg
    assert err.path == str(f)
    assert str(f) in msg and f"line {line}" in msg, msg
    for w in words:
        assert w in msg, (w, msg)
    # Picklable (e.g. for multiprocessing) with its attributes intact.
    again = pickle.loads(pickle.dumps(err))
    assert (again.path, again.line, str(again)) == (err.path, err.line, msg)


def test_read_first_offending_line_wins(tmp_path: Path) -> None:
    """Different defects on different lines: the earliest line is reported."""
    text = HEADER + R1 + "4/1/2014 0:20:00,40.7,-73.9,\n" + "4/1/2014 0:20:00,x,-73.9,B02512\n"
    with pytest.raises(DataValidationError) as info:
        read_pickups(_bad(tmp_path, "two.csv", text))
    assert info.value.line == 3 and "Base" in str(info.value)


def test_read_bounds_configurable(tmp_path: Path) -> None:
    f = _bad(tmp_path, "far.csv", HEADER + R1 + "4/2/2014 1:00:00,51.5,-0.12,B02512\n")
    with pytest.raises(DataValidationError):
        read_pickups(f)
    assert len(read_pickups(f, bounds=None)) == 2
    assert len(read_pickups(f, bounds=(-90, 90, -180, 180))) == 2
    with pytest.raises(DataValidationError) as info:
        read_pickups(f, bounds=(40.0, 41.0, -74.5, -73.0))
    assert info.value.line == 3
    g = _bad(tmp_path, "nan.csv", HEADER + "4/2/2014 1:00:00,nan,-73.9,B02512\n")
    with pytest.raises(DataValidationError, match="line 2"):
        read_pickups(g, bounds=None)


def test_read_empty_file(tmp_path: Path) -> None:
    f = _bad(tmp_path, "empty.csv", "")
    with pytest.raises(DataValidationError, match="line 1"):
        read_pickups(f)


def test_read_full_size(subset_path: Path, subset_df: pd.DataFrame, tmp_path: Path) -> None:
    """A file of the canonical size (564,516 records: the subset repeated) parses completely and
    row for row, with the dtypes of a small read; a defect near its end is located exactly.
    (Parsing speed is a benchmark matter, not a test.)"""
    raw = gzip.decompress(subset_path.read_bytes())
    header, body = raw.split(b"\n", 1)
    lines = body.splitlines(keepends=True)
    reps = -(-CANONICAL_RECORDS // len(lines))
    big = tmp_path / "big.csv"
    big.write_bytes(header + b"\n" + b"".join((lines * reps)[:CANONICAL_RECORDS]))
    df = read_pickups(big)
    assert len(df) == CANONICAL_RECORDS
    assert df.dtypes.to_dict() == subset_df.dtypes.to_dict()
    n = len(subset_df)
    expect = pd.concat([subset_df] * reps, ignore_index=True).iloc[:CANONICAL_RECORDS]
    for col in ("time", "lat", "lon"):
        np.testing.assert_array_equal(df[col].to_numpy(), expect[col].to_numpy())
    assert (df["base"].astype(str).to_numpy() == expect["base"].astype(str).to_numpy()).all()
    assert df["time"].iloc[n] == subset_df["time"].iloc[0]  # the second copy starts over
    # A defect near the end is still located exactly.
    with open(big, "ab") as fh:
        fh.write(b"4/2/2014 1:00:00,40.7,-73.9,B02512,extra\n")
    with pytest.raises(DataValidationError) as info:
        read_pickups(big)
    assert info.value.line == CANONICAL_RECORDS + 2


def test_parquet_roundtrip(tmp_path: Path) -> None:
    f = tmp_path / "p.csv"
    f.write_bytes(SMALL_CSV)
    df = read_pickups(f)
    out = tmp_path / "pq" / "pickups.parquet"
    write_parquet(df, out)
    assert _leftovers(out.parent) == ["pickups.parquet"]
    back = read_pickups_parquet(out)
    pd.testing.assert_frame_equal(back, df)
    # Overwrite in place.
    write_parquet(df.iloc[:1], out)
    assert len(read_pickups_parquet(out)) == 1
    assert _leftovers(out.parent) == ["pickups.parquet"]
    write_parquet(pd.DataFrame({"x": [1]}), tmp_path / "other.parquet")
    with pytest.raises(DataValidationError):
        read_pickups_parquet(tmp_path / "other.parquet")


def test_columns_are_exactly_the_accepted_header(tmp_path: Path) -> None:
    """COLUMNS is the header read_pickups accepts: a file headed by it parses, any reordering fails."""
    f = tmp_path / "c.csv"
    f.write_text(",".join(COLUMNS) + "\n" + "".join(ROWS))
    assert len(read_pickups(f)) == len(ROWS)
    for perm in itertools.permutations(COLUMNS):
        if perm == COLUMNS:
            continue
        f.write_text(",".join(perm) + "\n" + "".join(ROWS))
        with pytest.raises(DataValidationError) as info:
            read_pickups(f)
        assert info.value.line == 1


def test_min_records_refuses_a_header_without_enough_records(tmp_path: Path) -> None:
    """A header and no record parsed ('0 pickups') and failed three rules later; with a minimum the file
    is refused at once, naming the file and the count."""
    path = tmp_path / "pickups.csv"
    path.write_text(",".join(COLUMNS) + "\n")
    assert len(read_pickups(path)) == 0  # no minimum: the library still reads it
    with pytest.raises(TooFewRecordsError, match=r"pickups\.csv: 0 records after the header, fewer than the 100"):
        read_pickups(path, min_records=MIN_RECORDS)
    path.write_text(",".join(COLUMNS) + "\n" + "4/1/2014 0:11:00,40.769,-73.9549,B02512\n" * 3)
    with pytest.raises(DataValidationError, match="3 records after the header, fewer than the 4 required"):
        read_pickups(path, min_records=4)
    assert len(read_pickups(path, min_records=3)) == 3


def test_content_key_names_the_check_not_the_source() -> None:
    digest = "8DFD591402b260e2a1497fa6e4556b046627f5e42e664228c1d3290bdeda8923"
    assert content_key(digest) == content_key(digest.lower()) == "sha256-8dfd591402b260e2"
    assert content_key(None) == content_key("") == f"canonical-{CANONICAL_GIT_BLOB_ID[:16]}"
    assert content_key("f" * 64) != content_key(digest)
    with pytest.raises(ValueError, match="64 hex digits"):
        content_key("xyz")
    err = TooFewRecordsError("a.csv", None, "0 records")
    assert isinstance(pickle.loads(pickle.dumps(err)), TooFewRecordsError)
