"""The April 2014 Uber pickups (FiveThirtyEight FOIL release), as the papers' instances read them.

Fetched from the config key ``uber_source`` and verified by ``uber_sha256`` (empty: the canonical file, by
its git blob id and record count), into ``resources/uber/<check>/`` (:func:`privopt.datasets.uber.fetch.content_key`);
parsed into ``pickups.parquet`` (time, lat, lon, base), refusing fewer records than ``uber_min_records``.
The steps are the modules beside this one: :mod:`privopt.datasets.uber.fetch` and :mod:`privopt.datasets.uber.parse`.
"""

from html import escape
from pathlib import Path

from privopt.pipeline.datasets import Dataset

#: the record count of the subset uber-raw-data-apr14.subset.csv.gz (sha256 8dfd5914…8923; config/shared-data.yaml)
SUBSET_RECORDS = 99997


def folder(settings) -> str:
    """The check the data passes (:func:`privopt.datasets.uber.fetch.content_key`; imported when the workflow
    plans, not when the data set is declared)."""
    from privopt.datasets.uber.fetch import content_key

    return content_key(settings["uber_sha256"] or None)


def check(settings):
    """A local source must exist (a URL is tried when the data is fetched)."""
    source = settings["uber_source"]
    if "://" not in source and not Path(source).exists():
        yield "uber_source", f"local file {source!r} does not exist"


def describe(record) -> str:
    n = record.get("records")
    what = "the full April 2014 Uber file" if record.get("canonical") else "a subset of the April 2014 Uber file"
    return f"{what} ({n:,} records)" if isinstance(n, int) else what


def provenance_rows(record):
    if record.get("canonical"):
        note = "the full canonical April 2014 file"
    elif record.get("records") == SUBSET_RECORDS:
        note = (f"<b>the {SUBSET_RECORDS:,}-record subset</b> (the first rows of the canonical file: all of base B02512 "
                "and base B02598 up to 13 April) — absolute levels differ slightly from the full month")
    else:
        note = "<b>not the canonical file</b> — results may differ from the full month"
    return [
        ("data source", f"<code>{escape(str(record['source']))}</code><br>{note}"),
        ("data digest", f"sha256 (as fetched) <code>{escape(str(record['fetched_sha256']))}</code><br>"
                        f"git blob id (CSV) <code>{escape(str(record['csv_git_blob_id']))}</code>"),
        ("data records", f"{record['records']:,}, verified by {escape(str(record['verified_by']))}"),
    ]


DATASET = Dataset(
    name="uber",
    title="the April 2014 Uber pickups",
    fetch="privopt.datasets.uber.fetch:fetch",
    parse="privopt.datasets.uber.parse:parse",
    raw=("uber-raw-data-apr14.csv",),
    outputs={"pickups": "pickups.parquet"},
    config_keys=("uber_source", "uber_sha256", "uber_min_records"),
    folder=folder,
    check=lambda settings: list(check(settings)),
    describe=describe,
    provenance_rows=provenance_rows,
)
