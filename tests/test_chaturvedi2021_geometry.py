"""The planar geometry of Chaturvedi et al.'s facility-location instances
(privopt.experiments.chaturvedi2021.geometry): the Fig. 1 grid, the boxes, the normalisers and distances.

The shared subset is read from ``<repo>/../shared/data``; the test that needs it is skipped with a reason when
it is absent.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privopt.datasets.uber.parse import read_pickups
from privopt.experiments.chaturvedi2021 import geometry as geo

REPO = Path(__file__).resolve().parents[1]
SUBSET = REPO / ".." / "shared" / "data" / "uber-raw-data-apr14.subset.csv.gz"


@pytest.fixture(scope="module")
def subset_df() -> pd.DataFrame:
    if not SUBSET.is_file():
        pytest.skip(f"shared data subset not found at {SUBSET.resolve()} (expected beside the repo)")
    return read_pickups(SUBSET)


# --------------------------------------------------------------------------------------
# geometry
# --------------------------------------------------------------------------------------

# Spec §4.2 printed grid table, index i = 5·row + col.
SPEC_GRID = [
    [(40.70000, -73.99197), (40.72500, -73.97648), (40.75000, -73.96098), (40.77500, -73.94549), (40.80000, -73.93000)],
    [(40.70438, -74.00465), (40.72938, -73.98915), (40.75438, -73.97366), (40.77938, -73.95817), (40.80438, -73.94268)],
    [(40.70877, -74.01732), (40.73377, -74.00183), (40.75877, -73.98634), (40.78377, -73.97085), (40.80877, -73.95535)],
    [(40.71315, -74.03000), (40.73815, -74.01451), (40.76315, -73.99902), (40.78815, -73.98352), (40.81315, -73.96803)],
]


def test_quad_grid_matches_spec_table() -> None:
    grid = geo.quad_grid(geo.FIG1_S, geo.FIG1_W, geo.FIG1_E, rows=4, cols=5, mode="full")
    assert grid.shape == (20, 2)
    expected = np.array(SPEC_GRID).reshape(20, 2)
    np.testing.assert_array_equal(np.round(grid, 5), expected)
    assert np.abs(grid - expected).max() <= 5e-6


def test_quad_grid_repo_mode() -> None:
    g = geo.quad_grid(geo.FIG1_S, geo.FIG1_W, geo.FIG1_E, mode="repo")
    full = geo.quad_grid(geo.FIG1_S, geo.FIG1_W, geo.FIG1_E, mode="full")
    np.testing.assert_allclose(g[:5], full[:5])  # row 0 identical
    S, W = np.array(geo.FIG1_S), np.array(geo.FIG1_W)
    for row in range(4):
        np.testing.assert_allclose(g[5 * row], S + (row / 19) * (W - S))
    assert np.allclose(np.diff(g[::5, 0]), (W - S)[0] / 19)  # ≈ 0.0007° lat apart
    with pytest.raises(ValueError):
        geo.quad_grid(geo.FIG1_S, geo.FIG1_W, geo.FIG1_E, mode="bogus")
    with pytest.raises(ValueError):
        geo.quad_grid(geo.FIG1_S, geo.FIG1_W, geo.FIG1_E, rows=1)


def test_fig1_locations() -> None:
    L = geo.fig1_locations()
    assert L.shape == (100, 2)
    np.testing.assert_array_equal(L[20:], np.tile(geo.FIG1_N, (80, 1)))
    assert geo.fig1_locations("repo", n_north=0).shape == (20, 2)


def test_normalisers() -> None:
    assert round(geo.l1_diameter([geo.FIG1_N, geo.FIG1_E, geo.FIG1_S, geo.FIG1_W]), 5) == 0.18685
    assert round(geo.FIG1_BOX.l1_diameter, 5) == 0.18685
    assert round(geo.FIG2_BOX.l1_diameter, 5) == 0.14292
    assert geo.FIG2_BOX.l1_diameter == pytest.approx(0.072314 + 0.070606, abs=1e-12)


def test_polygon_strict_and_orientation_agnostic() -> None:
    box = geo.FIG1_BOX
    rev = geo.Polygon(box.vertices[::-1])
    v = box.vertices
    mids = (v + np.roll(v, -1, axis=0)) / 2
    centre = v.mean(axis=0)
    pts = np.vstack([v, mids, centre[None, :]])
    for poly in (box, rev):
        assert poly.contains_points(pts).tolist() == [False] * 8 + [True]
        assert not poly.contains(np.nan, centre[1])
    # Pickup exactly on the N–E edge in decimal arithmetic (the float cross product is ~1e-16).
    assert not box.contains(40.8134, -73.9501) and not rev.contains(40.8134, -73.9501)
    # Functional form and array protocol (vertices array or Polygon both accepted).
    np.testing.assert_array_equal(geo.inside_convex_polygon(pts[:, 0], pts[:, 1], v[::-1]), box.contains_points(pts))
    np.testing.assert_array_equal(geo.inside_convex_polygon(pts[:, 0], pts[:, 1], box), box.contains_points(pts))
    np.testing.assert_array_equal(np.asarray(box), v)
    assert len(box) == 4 and geo.l1_diameter(geo.FIG2_BOX) == geo.FIG2_BOX.l1_diameter
    # Broadcasting and shape.
    assert box.contains(np.full((2, 3), centre[0]), centre[1]).shape == (2, 3)


def test_rectangle_and_validation() -> None:
    r = geo.rectangle(0.0, 1.0, 10.0, 12.0)
    lat = np.array([0.5, 0.0, 1.0, 0.5, 0.5, 1e-9, -1e-9])
    lon = np.array([11.0, 11.0, 11.0, 10.0, 12.0, 11.0, 11.0])
    assert r.contains(lat, lon).tolist() == [True, False, False, False, False, True, False]
    assert geo.rectangle(0.0, 1.0, 10.0, 12.0, tol=0).contains(lat, lon).tolist() == r.contains(lat, lon).tolist()
    assert r.l1_diameter == pytest.approx(3.0)
    with pytest.raises(ValueError):
        geo.rectangle(1.0, 0.0, 10.0, 12.0)
    with pytest.raises(ValueError, match="convex"):
        geo.Polygon([(0, 0), (0, 2), (1, 1), (2, 2), (2, 0)])  # dented
    with pytest.raises(ValueError):
        geo.Polygon([(0, 0), (1, 1), (2, 2)])  # zero area
    with pytest.raises(ValueError):
        geo.Polygon([(0, 0), (1, 1)])
    with pytest.raises(ValueError):
        geo.Polygon([(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)])  # closing vertex repeated
    # Pentagram: every turn the same way, but it winds twice.
    ang = np.pi / 2 + np.arange(5) * 4 * np.pi / 5
    with pytest.raises(ValueError, match="self-intersecting"):
        geo.Polygon(np.c_[np.cos(ang), np.sin(ang)])


def test_manhattan_distance_matrix() -> None:
    loc = np.array([[0.0, 0.0], [1.0, 1.0]])
    pts = np.array([[0.5, -0.5], [1.0, 1.0], [2.0, 0.0]])
    M = geo.manhattan_distance_matrix(loc, pts, 2.0)
    np.testing.assert_allclose(M, [[0.5, 1.0, 1.0], [1.0, 0.0, 1.0]])
    assert M.shape == (2, 3)
    with pytest.raises(ValueError):
        geo.manhattan_distance_matrix(loc, pts, 0.0)
    with pytest.raises(ValueError):
        geo.manhattan_distance_matrix(loc[:, :1], pts, 1.0)


def test_boxes_on_subset(subset_df: pd.DataFrame) -> None:
    lat, lon = subset_df["lat"].to_numpy(), subset_df["lon"].to_numpy()
    in1 = geo.FIG1_BOX.contains(lat, lon)
    in2 = geo.FIG2_BOX.contains(lat, lon)
    assert int(in1.sum()) == 77_970  # spec §4.2 [MEASURED]
    assert int(in2.sum()) == 44_650  # spec §4.3 [MEASURED]
    # Orientation does not matter.
    assert int(geo.Polygon(geo.FIG1_BOX.vertices[::-1]).contains(lat, lon).sum()) == 77_970
    # Every in-box pickup is within normalised distance 1 of all 100 Fig. 1 locations (spec: 0.990).
    M = geo.manhattan_distance_matrix(
        geo.fig1_locations("full"), np.c_[lat[in1], lon[in1]], geo.FIG1_BOX.l1_diameter
    )
    assert M.shape == (100, 77_970)
    assert M.max() <= 1.0
    assert round(float(M.max()), 2) == 0.99
    # Fig. 2 points all lie inside their box; pickups there are within distance 1 of them.
    P = np.array(list(geo.FIG2_POINTS.values()))
    assert geo.FIG2_BOX.contains_points(P).all()
    assert geo.manhattan_distance_matrix(P, np.c_[lat[in2], lon[in2]], geo.FIG2_BOX.l1_diameter).max() <= 1.0
