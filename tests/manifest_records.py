"""Reading the data records of a reference manifest, in either of the two forms manifests were written in
(a helper of the tests only: the pipeline compares manifests' data by their digests,
:func:`privopt.pipeline.reference_results.data_digests`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def data_records(data: Mapping[str, Any] | None, names: Iterable[str]) -> dict[str, Mapping[str, Any]]:
    """The provenance records of a reference manifest's ``data``, by data set name.

    Manifests hold ``{name: record}``; those written before data sets were declarations hold the one record
    of the paper's only data set (``names``), or None."""
    if not data:
        return {}
    if all(isinstance(v, Mapping) for v in data.values()):
        return dict(data)
    names = list(names)
    if len(names) != 1:
        raise ValueError(f"a manifest's data holds one unnamed record, but the paper reads the data sets {names}")
    return {names[0]: data}
