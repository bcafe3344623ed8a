"""The grid-cell pool of the Uber box (cardoso2019 reading R2).

``cells.parquet``: one column ``cell<n>`` per supported grid (the same pickups, those inside the box,
stable-sorted by time), and ``cells.json``: the counts kept and the mean cell shares q̄ (RC-ZERO).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from privopt.datasets.uber.reader import read_pickups_parquet
from privopt.experiments.cardoso2019.grid import BOX, GRIDS, cell_shares, grid_cells
from privopt.pipeline.errors import config_key

__all__ = ["build"]


def build(name: str, settings: Mapping[str, Any], inputs: Mapping[str, str]) -> dict[str, Any]:
    pickups = read_pickups_parquet(inputs["pickups"]).dropna(subset=["time", "lat", "lon"])
    pickups = pickups.sort_values("time", kind="stable")
    lat, lon = pickups["lat"].to_numpy(), pickups["lon"].to_numpy()
    cols, meta = {}, {"instance": name, "box": list(BOX), "pickups": int(len(pickups)), "shares": {}}
    for n in GRIDS:
        with config_key("cardoso2019 grid", "n"):
            cell, keep = grid_cells(lat, lon, n)
        cols[f"cell{n}"] = cell[keep]
        meta["shares"][str(n)] = cell_shares(cell[keep], n).tolist()
    meta["kept"] = int(len(cols["cell4"]))
    meta["kept_share"] = meta["kept"] / max(1, len(pickups))
    return {"cells.parquet": pd.DataFrame(cols), "cells.json": meta}
