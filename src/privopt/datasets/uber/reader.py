"""What the papers' instances read of the Uber pickups: the parsed table ``pickups.parquet``
(written by :mod:`privopt.datasets.uber.parse`), read back with its dtypes (:func:`read_pickups_parquet`).

A module of its own, so that an instance builder, which imports it, does not depend for its code digest on
the fetch and parse steps (:mod:`privopt.codedigest`): editing them reruns no instance or run job.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

__all__ = ["PICKUP_COLUMNS", "DataValidationError", "read_pickups_parquet"]

#: Column names of the parsed frame, matching the raw header :data:`privopt.datasets.uber.parse.COLUMNS`.
PICKUP_COLUMNS = ("time", "lat", "lon", "base")


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



def read_pickups_parquet(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a frame written by :func:`privopt.io.write_parquet` from :func:`privopt.datasets.uber.parse.read_pickups`.

    Restores the dtypes of :func:`privopt.datasets.uber.parse.read_pickups` (``time`` ``datetime64[ns]``, ``lat``/
    ``lon`` ``float64``, ``base`` ``category``).

    Raises
    ------
    DataValidationError
        If the columns are not exactly ``time, lat, lon, base``.
    """
    df = pd.read_parquet(path)
    if tuple(df.columns) != PICKUP_COLUMNS:
        raise DataValidationError(
            path, None, f"expected columns {list(PICKUP_COLUMNS)}, found {list(df.columns)}"
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
