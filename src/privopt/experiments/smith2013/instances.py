"""The Uber disk: every pickup within 25 km of Midtown, in unit-disk coordinates (smith2013 reading R12).

Fixed public constants, never derived from the data (smith2013 readings R1, R12): centre (lat0, lon0) =
(40.7484, −73.9857), x_km = (lon − lon0)·111.320·cos(lat0°), y_km = (lat − lat0)·110.574, kept when
√(x_km² + y_km²) ≤ 25 km, scaled by 1/25 into the unit disk.  Pickups are stable-sorted by time first
(the pool order the point streams index).  With m = 1 pickup per round, one loss f_t is one rider: the
neighbouring streams of the privacy guarantee differ in one rider's pickup.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from privopt.datasets.uber.reader import read_pickups_parquet

__all__ = ["CENTRE", "RADIUS_KM", "KM_PER_DEG_LAT", "KM_PER_DEG_LON_EQUATOR", "disk_coordinates", "build"]

CENTRE = (40.7484, -73.9857)
RADIUS_KM = 25.0
KM_PER_DEG_LAT = 110.574
KM_PER_DEG_LON_EQUATOR = 111.320


def disk_coordinates(lat: np.ndarray, lon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(u, keep): unit-disk coordinates (n, 2) of every pickup and the mask of those within 25 km."""
    lat0, lon0 = CENTRE
    x = (np.asarray(lon, dtype=np.float64) - lon0) * KM_PER_DEG_LON_EQUATOR * math.cos(math.radians(lat0))
    y = (np.asarray(lat, dtype=np.float64) - lat0) * KM_PER_DEG_LAT
    keep = np.sqrt(x * x + y * y) <= RADIUS_KM
    return np.column_stack([x, y]) / RADIUS_KM, keep


def build(name: str, settings: Mapping[str, Any], inputs: Mapping[str, str]) -> dict[str, Any]:
    """Instance entry point (protocol): ``disk.parquet`` (columns ux, uy) and ``disk.json``."""
    pickups = read_pickups_parquet(inputs["pickups"]).dropna(subset=["time", "lat", "lon"])
    pickups = pickups.sort_values("time", kind="stable")
    u, keep = disk_coordinates(pickups["lat"].to_numpy(), pickups["lon"].to_numpy())
    pool = pd.DataFrame({"ux": u[keep, 0], "uy": u[keep, 1]})
    if len(pool) < 2:
        raise ValueError(f"only {len(pool)} pickups lie within {RADIUS_KM} km of {CENTRE}; the point streams need more")
    meta = {"instance": name, "centre": list(CENTRE), "radius_km": RADIUS_KM, "pickups": int(len(pickups)),
            "kept": int(len(pool)), "kept_share": float(len(pool) / len(pickups)),
            "mean": [float(pool["ux"].mean()), float(pool["uy"].mean())]}
    return {"disk.parquet": pool, "disk.json": meta}
