"""The instances of Chaturvedi et al.: the pickups inside each figure's box, and its normaliser.

Figure 1's box (chaturvedi2021 reading R11) and Figure 2's box (chaturvedi2021 reading R13) are defined in
:mod:`privopt.experiments.chaturvedi2021.geometry`.  An instance is built once per figure from the parsed pickups; every run of the
figure samples its m users from the instance's pool.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from privopt.experiments.chaturvedi2021 import geometry
from privopt.datasets.uber.reader import read_pickups_parquet

__all__ = ["box", "normaliser", "in_box", "build"]


def box(figure: str) -> geometry.Polygon:
    """The figure's convex box (authors' coordinates, chaturvedi2021 readings R11, R13)."""
    if figure == "fig1":
        return geometry.FIG1_BOX
    if figure == "fig2":
        return geometry.FIG2_BOX
    raise ValueError(f"unknown figure {figure!r}")


def normaliser(figure: str) -> float:
    """C = ℓ1 diameter of the box: data-independent, so sensitivity stays 1 [chaturvedi2021 reading R10]."""
    return geometry.l1_diameter(box(figure))


def in_box(pickups: pd.DataFrame, figure: str) -> pd.DataFrame:
    """Pickups strictly inside the figure's box [chaturvedi2021 reading R10], as float64 lat/lon."""
    inside = geometry.inside_convex_polygon(pickups["lat"].to_numpy(), pickups["lon"].to_numpy(), box(figure))
    return pickups.loc[inside, ["lat", "lon"]].reset_index(drop=True)


def build(name: str, settings: Mapping[str, Any], inputs: Mapping[str, str]) -> dict[str, Any]:
    """Instance entry point (protocol): ``pool.parquet`` (the in-box pickups) and ``instance.json``."""
    pool = in_box(read_pickups_parquet(inputs["pickups"]), name)
    meta = {"figure": name, "pool_size": len(pool), "C": normaliser(name), "box": box(name).vertices.tolist()}
    return {"pool.parquet": pool, "instance.json": meta}
