"""UBER-PICK and UBER-WIN: the Uber pickups as coverage streams (perezsalazar2021 readings R14, R15).

* Pickups are sorted by time *globally* (stable on the file order): the raw file is grouped by base.
* Box B: Lat ∈ [40.700, 40.800], Lon ∈ [−74.020, −73.930] (lower/midtown Manhattan); pickups outside
  are dropped.  Local projection ``y = (Lat − 40.70)·111.0``, ``x = (Lon + 74.02)·111.32·cos(40.75°)`` km.
* Candidates U: the centres of a g×g grid of cells over B (row-major from the south-west; g = 6 ⇒ n = 36).
* Location l covers pickup p iff ``‖l − p‖₁ ≤ r`` (Manhattan metric, r = 1 km).  A pickup's *signature* is
  the set of candidates covering it; the signatures are the types of :mod:`privopt.online.osm.coverage`
  (P = 0/1), so ``f_t(S) = 1{S covers pickup t}`` (UBER-PICK: one pickup per round; the privacy unit is
  one rider) and, for UBER-WIN, ``f_t(S)`` = the fraction of the pickups of window t that S covers
  (consecutive non-empty windows of w minutes from 2014-04-01 00:00; empty windows are dropped and
  counted; the privacy unit is a whole window).

The instance (``results/perezsalazar2021/instances/uber/``): ``pick.parquet`` (the signature of every
in-box pickup, in time order), ``windows.parquet`` (one row per (w, window, signature): its share of the
window), ``signatures.parquet`` (which candidates cover each signature) and ``instance.json`` (the
counts, the candidates, a density grid of the pickups for the map).  Horizons that need more pickups
than the box holds are refused here, naming their config key, before any run job starts.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privopt.pipeline.errors import ConfigError
from privopt.online.osm.coverage import Stream

__all__ = ["BOX", "LAT0", "LON0", "KM_PER_DEG_LAT", "KM_PER_DEG_LON", "project", "candidates", "signatures",
           "build", "UberInstance", "load"]

#: the box B: (lat_min, lat_max, lon_min, lon_max)
BOX = (40.700, 40.800, -74.020, -73.930)
LAT0, LON0 = 40.70, -74.02
KM_PER_DEG_LAT = 111.0
KM_PER_DEG_LON = 111.32 * math.cos(math.radians(40.75))
#: density grid of the map (cells per side)
DENSITY_BINS = 60
START = pd.Timestamp("2014-04-01 00:00:00")


def project(lat, lon) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) in km from the south-west corner of the box."""
    return (np.asarray(lon, float) - LON0) * KM_PER_DEG_LON, (np.asarray(lat, float) - LAT0) * KM_PER_DEG_LAT


def _extent() -> tuple[float, float]:
    x, y = project(BOX[1], BOX[3])
    return float(x), float(y)


def candidates(grid: int) -> np.ndarray:
    """(g², 2) cell centres (x, y) in km, row-major from the south-west corner."""
    width, height = _extent()
    xs = (np.arange(grid) + 0.5) * width / grid
    ys = (np.arange(grid) + 0.5) * height / grid
    return np.array([(x, y) for y in ys for x in xs])


def signatures(x, y, cands: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """(signature id per pickup, coverage matrix of the signatures (S × n, 0/1)), ids by first appearance
    order of the sorted unique rows."""
    cover = (np.abs(np.asarray(x)[:, None] - cands[None, :, 0]) + np.abs(np.asarray(y)[:, None] - cands[None, :, 1])
             <= radius)
    rows, ids = np.unique(cover, axis=0, return_inverse=True)
    return ids.astype(np.int32).reshape(-1), rows.astype(np.float64)


def _windows(times: pd.Series, sig: np.ndarray, minutes: int) -> tuple[pd.DataFrame, int, int]:
    """Rows (window, start, sig, count, weight) of the non-empty windows; (rows, windows kept, empty dropped)."""
    index = ((times - START) // pd.Timedelta(minutes=int(minutes))).to_numpy().astype(np.int64)
    frame = pd.DataFrame({"slot": index, "sig": sig})
    counts = frame.groupby(["slot", "sig"], sort=True).size().rename("count").reset_index()
    totals = counts.groupby("slot")["count"].transform("sum")
    counts["weight"] = counts["count"] / totals
    slots = np.sort(counts["slot"].unique())
    counts["window"] = np.searchsorted(slots, counts["slot"])
    counts["start"] = START + pd.to_timedelta(counts["slot"] * int(minutes), unit="min")
    span = int(slots[-1] - slots[0] + 1) if slots.size else 0
    return counts[["window", "start", "sig", "count", "weight"]], int(slots.size), span - int(slots.size)


def build(name: str, settings: Mapping[str, Any], inputs: Mapping[str, str]) -> dict[str, Any]:
    """Instance entry point (protocol): the Uber streams of the paper's figures (module docstring)."""
    from privopt.datasets.uber.reader import read_pickups_parquet

    raw = read_pickups_parquet(inputs["pickups"])
    raw = raw.assign(row=np.arange(len(raw))).sort_values(["time", "row"], kind="stable")
    lat_min, lat_max, lon_min, lon_max = BOX
    inside = raw[(raw["lat"] >= lat_min) & (raw["lat"] <= lat_max) & (raw["lon"] >= lon_min) & (raw["lon"] <= lon_max)]
    T_max = len(inside)
    for key, horizons in settings.get("horizons", {}).items():
        too_long = [int(T) for T in horizons if T is not None and int(T) > T_max]
        if too_long:
            raise ConfigError(f"config key {key}: horizon {too_long} exceeds the {T_max:,} pickups inside the box "
                              f"(UBER-PICK has one pickup per round)")
    x, y = project(inside["lat"].to_numpy(), inside["lon"].to_numpy())
    cands = candidates(int(settings["grid"]))
    sig, cover = signatures(x, y, cands, float(settings["radius_km"]))
    windows, win_meta = [], {}
    for w in settings["windows"]:
        rows, kept, dropped = _windows(inside["time"].reset_index(drop=True), sig, int(w))
        windows.append(rows.assign(w=int(w)))
        win_meta[str(int(w))] = {"T": kept, "empty_dropped": dropped}
    width, height = _extent()
    density, _, _ = np.histogram2d(x, y, bins=DENSITY_BINS, range=[[0, width], [0, height]])
    meta = {"T_max": T_max, "records": len(raw), "outside_box": len(raw) - T_max, "n": int(cands.shape[0]),
            "grid": int(settings["grid"]), "radius_km": float(settings["radius_km"]), "box": list(BOX),
            "extent_km": [width, height], "signatures": int(cover.shape[0]), "candidates": cands.tolist(),
            "windows": win_meta, "density": density.astype(int).tolist(), "first": str(inside["time"].iloc[0]),
            "last": str(inside["time"].iloc[-1])}
    sigs = pd.DataFrame(cover.astype(bool), columns=[f"c{a}" for a in range(cover.shape[1])])
    sigs.insert(0, "sig", np.arange(cover.shape[0], dtype=np.int32))
    return {"pick.parquet": pd.DataFrame({"sig": sig}), "windows.parquet": pd.concat(windows, ignore_index=True),
            "signatures.parquet": sigs, "instance.json": meta}


class UberInstance:
    """The built instance, read back: the coverage matrix P, the pickup stream and the window streams."""

    def __init__(self, directory: str | Path):
        d = Path(directory)
        self.meta = json.loads((d / "instance.json").read_text())
        sigs = pd.read_parquet(d / "signatures.parquet")
        self.P = np.ascontiguousarray(sigs.drop(columns="sig").to_numpy(dtype=np.float64))
        self.pick = pd.read_parquet(d / "pick.parquet")["sig"].to_numpy(dtype=np.int32)
        self._windows = pd.read_parquet(d / "windows.parquet")

    @property
    def T_max(self) -> int:
        return int(self.meta["T_max"])

    def pick_stream(self, T: int | None = None) -> Stream:
        """UBER-PICK: the first T pickups (all when None)."""
        return Stream.single(self.pick[: (self.T_max if T is None else int(T))][None, :])

    def window_stream(self, minutes: int) -> Stream:
        """UBER-WIN with windows of ``minutes`` (every non-empty window of the month)."""
        rows = self._windows[self._windows["w"] == int(minutes)].sort_values(["window", "sig"])
        if rows.empty:
            raise KeyError(f"the instance has no {minutes}-minute windows")
        sizes = rows.groupby("window").size().to_numpy()
        ptr = np.concatenate([[0], np.cumsum(sizes)])
        return Stream.mixture(ptr, rows["sig"].to_numpy(), rows["weight"].to_numpy())


def load(directory: str | Path) -> UberInstance:
    return UberInstance(directory)
