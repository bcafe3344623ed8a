"""Planar geometry in raw (lat, lon) degrees for the facility-location experiments.

docs/papers/chaturvedi2021.md, readings R10–R13.  Everything works on
raw decimal degrees (no projection, no cos(lat) scaling):

* :class:`Polygon` — convex polygon with a vectorised, *strict* in-polygon test
  (a point on an edge or a vertex is outside), orientation-agnostic;
* :func:`rectangle` — axis-aligned box as a :class:`Polygon`;
* :func:`l1_diameter` — the data-independent normaliser C (max vertex-pair ℓ1 distance);
* :func:`manhattan_distance_matrix` — normalised Manhattan distances M(l, p);
* :func:`quad_grid` — the Fig. 1 candidate grid spanned from a box corner.

Points and vertices are ``(lat, lon)`` pairs, i.e. arrays of shape ``(k, 2)`` with
latitude in column 0 and longitude in column 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "Polygon",
    "rectangle",
    "inside_convex_polygon",
    "l1_diameter",
    "manhattan_distance_matrix",
    "quad_grid",
    "GRID_MODES",
    "REPO_ROW_DENOMINATOR",
    "EDGE_TOL",
    "FIG1_N",
    "FIG1_E",
    "FIG1_S",
    "FIG1_W",
    "FIG1_BOX",
    "FIG2_BOX",
    "FIG2_POINTS",
    "fig1_locations",
]

#: Grid modes of :func:`quad_grid`: ``"full"`` (paper text) and ``"repo"`` (authors' code).
GRID_MODES = ("full", "repo")
#: Row denominator of the authors' code: the integer-division slip (100 − 1) // 5 = 19.
REPO_ROW_DENOMINATOR = 19
#: Default boundary tolerance of :class:`Polygon` in degrees (see its notes).
EDGE_TOL = 1e-12


def _as_vertices(vertices: ArrayLike) -> np.ndarray:
    v = np.asarray(vertices, dtype=np.float64)
    if v.ndim != 2 or v.shape[1] != 2:
        raise ValueError(f"vertices must have shape (k, 2) as (lat, lon) pairs, got {v.shape}")
    if not np.isfinite(v).all():
        raise ValueError("vertices must be finite")
    return v


def _as_points(points: ArrayLike, name: str) -> np.ndarray:
    p = np.asarray(points, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] != 2:
        raise ValueError(f"{name} must have shape (n, 2) as (lat, lon) pairs, got {p.shape}")
    return p


class Polygon:
    """A convex polygon in the (lat, lon) plane with a strict, vectorised in-test.

    Parameters
    ----------
    vertices:
        ``(k, 2)`` array-like of ``(lat, lon)`` vertices, k ≥ 3, in boundary order
        (clockwise or counter-clockwise; do not repeat the first vertex at the end).
        The polygon must be convex (collinear consecutive vertices are allowed) and
        have non-zero area; otherwise :class:`ValueError`.

    tol:
        Boundary tolerance in degrees (default :data:`EDGE_TOL` = 1e-12).  A point is
        inside iff its signed perpendicular distance to every edge line, measured
        towards the interior, exceeds ``tol``.

    Notes
    -----
    Coordinates are decimal degrees that binary floats cannot represent exactly, so a
    point lying *exactly* on an edge in decimal arithmetic (e.g. pickup
    (40.8134, −73.9501) on the Fig. 1 N–E edge) can come out a few 1e-15 degrees on
    either side.  The tolerance classifies such points as on the edge (outside),
    which is what the strict test means for the decimal data.  Float error is
    ≲ 1e-14 degrees for NYC-sized coordinates, while two distinct points/edges given
    with ≤ 6 decimals are ≥ ~1e-11 degrees apart, so 1e-12 separates the two cases.
    """

    __slots__ = ("_v", "_orientation", "_tol", "_edge_len")

    def __init__(self, vertices: ArrayLike, *, tol: float = EDGE_TOL):
        v = _as_vertices(vertices).copy()
        k = len(v)
        if k < 3:
            raise ValueError(f"a polygon needs at least 3 vertices, got {k}")
        edges = np.roll(v, -1, axis=0) - v
        if (np.abs(edges).sum(axis=1) == 0).any():
            raise ValueError("polygon has repeated consecutive vertices (zero-length edge)")
        # Shoelace with lat as x and lon as y; only the sign matters.
        area2 = float(np.sum(v[:, 0] * np.roll(v[:, 1], -1) - np.roll(v[:, 0], -1) * v[:, 1]))
        if area2 == 0.0:
            raise ValueError("polygon has zero area")
        orientation = 1.0 if area2 > 0 else -1.0
        prev = np.roll(edges, 1, axis=0)
        turns = prev[:, 0] * edges[:, 1] - prev[:, 1] * edges[:, 0]
        if (orientation * turns < 0).any():
            raise ValueError("polygon is not convex (or its vertices are not in boundary order)")
        # All turns one way: also require total turning of one full circle (rules out stars).
        angles = np.arctan2(turns, (prev * edges).sum(axis=1))
        if not math.isclose(abs(float(angles.sum())), 2 * math.pi, rel_tol=1e-9):
            raise ValueError("polygon is self-intersecting")
        tol = float(tol)
        if not (math.isfinite(tol) and tol >= 0):
            raise ValueError(f"tol must be finite and >= 0, got {tol!r}")
        v.setflags(write=False)
        self._v = v
        self._orientation = orientation
        self._tol = tol
        self._edge_len = np.hypot(edges[:, 0], edges[:, 1])

    @property
    def vertices(self) -> np.ndarray:
        """Read-only ``(k, 2)`` array of ``(lat, lon)`` vertices, in the given order."""
        return self._v

    @property
    def l1_diameter(self) -> float:
        """ℓ1 diameter of the polygon (= :func:`l1_diameter` of its vertices)."""
        return l1_diameter(self._v)

    @property
    def tol(self) -> float:
        """Boundary tolerance in degrees (see the class notes)."""
        return self._tol

    def contains(self, lat: ArrayLike, lon: ArrayLike) -> np.ndarray:
        """Boolean mask: which ``(lat, lon)`` points lie strictly inside.

        ``lat`` and ``lon`` are broadcast against each other; NaN coordinates are
        outside.  Points on an edge or vertex (within ``tol``) are outside.
        """
        lat = np.asarray(lat, dtype=np.float64)
        lon = np.asarray(lon, dtype=np.float64)
        lat, lon = np.broadcast_arrays(lat, lon)
        inside = np.ones(lat.shape, dtype=bool)
        v = self._v
        for i in range(len(v)):
            a_lat, a_lon = v[i]
            b_lat, b_lon = v[(i + 1) % len(v)]
            cross = (b_lat - a_lat) * (lon - a_lon) - (b_lon - a_lon) * (lat - a_lat)
            inside &= self._orientation * cross > self._tol * self._edge_len[i]
        return inside

    def contains_points(self, points: ArrayLike) -> np.ndarray:
        """:meth:`contains` for an ``(n, 2)`` array of ``(lat, lon)`` points."""
        p = _as_points(points, "points")
        return self.contains(p[:, 0], p[:, 1])

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        """``np.asarray(polygon)`` is a (writable copy of the) ``(k, 2)`` vertex array."""
        return np.array(self._v, dtype=dtype, copy=True)

    def __len__(self) -> int:
        return len(self._v)

    def __repr__(self) -> str:
        pts = ", ".join(f"({a!r}, {b!r})" for a, b in self._v.tolist())
        return f"Polygon([{pts}], tol={self._tol!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Polygon):
            return NotImplemented
        return (
            self._v.shape == other._v.shape
            and bool(np.array_equal(self._v, other._v))
            and self._tol == other._tol
        )

    def __hash__(self) -> int:
        return hash((self._v.tobytes(), self._tol))


def rectangle(
    lat_min: float, lat_max: float, lon_min: float, lon_max: float, *, tol: float = EDGE_TOL
) -> Polygon:
    """Axis-aligned box ``lat_min < lat < lat_max, lon_min < lon < lon_max`` as a :class:`Polygon`.

    With ``tol=0`` the in-test is exactly the strict float comparisons; the default
    tolerance only differs for points within 1e-12 degrees of an edge.
    """
    if not (lat_min < lat_max and lon_min < lon_max):
        raise ValueError(
            f"need lat_min < lat_max and lon_min < lon_max, got {(lat_min, lat_max, lon_min, lon_max)}"
        )
    return Polygon(
        [(lat_min, lon_min), (lat_min, lon_max), (lat_max, lon_max), (lat_max, lon_min)], tol=tol
    )


def inside_convex_polygon(
    lat: ArrayLike, lon: ArrayLike, vertices: ArrayLike | Polygon, *, tol: float = EDGE_TOL
) -> np.ndarray:
    """Functional form of :meth:`Polygon.contains`: strict in-test against a convex polygon.

    ``vertices`` is a :class:`Polygon` (used as is) or a ``(k, 2)`` vertex array in
    boundary order (either orientation).
    """
    poly = vertices if isinstance(vertices, Polygon) else Polygon(vertices, tol=tol)
    return poly.contains(lat, lon)


def l1_diameter(vertices: ArrayLike | Polygon) -> float:
    """Max over vertex pairs of ``|Δlat| + |Δlon|`` — the normaliser C of chaturvedi2021 reading R10.

    For a convex polygon this is its ℓ1 diameter, so every pair of points in it
    has ℓ1 distance ≤ C.
    """
    v = _as_vertices(vertices)
    if len(v) == 0:
        raise ValueError("need at least one vertex")
    d = np.abs(v[:, None, :] - v[None, :, :]).sum(axis=2)
    return float(d.max())


def manhattan_distance_matrix(locations: ArrayLike, points: ArrayLike, C: float) -> np.ndarray:
    """Normalised Manhattan distances ``M[i, j] = (|Δlat| + |Δlon|) / C``.

    Parameters
    ----------
    locations:
        ``(n, 2)`` candidate locations ``(lat, lon)``.
    points:
        ``(m, 2)`` pickups ``(lat, lon)``.
    C:
        Positive normaliser (use the box's :func:`l1_diameter`; never a data-dependent value).

    Returns
    -------
    numpy.ndarray
        ``(n, m)`` float64 matrix.
    """
    loc = _as_points(locations, "locations")
    pts = _as_points(points, "points")
    C = float(C)
    if not (math.isfinite(C) and C > 0):
        raise ValueError(f"C must be positive and finite, got {C!r}")
    d = np.abs(loc[:, 0, None] - pts[None, :, 0])
    d += np.abs(loc[:, 1, None] - pts[None, :, 1])
    d /= C
    return d


def quad_grid(
    S: Sequence[float],
    W: Sequence[float],
    E: Sequence[float],
    rows: int = 4,
    cols: int = 5,
    mode: str = "full",
) -> np.ndarray:
    """Grid of candidate locations spanned from corner S along S→W (rows) and S→E (cols).

    ``loc[cols·row + col] = S + a(row)·(W − S) + (col / (cols − 1))·(E − S)`` with
    ``a(row) = row / (rows − 1)`` for ``mode="full"`` (chaturvedi2021 reading R11, the paper's text) and
    ``a(row) = row / 19`` for ``mode="repo"`` (the authors' integer-division slip
    (100 − 1) // 5 = 19; only meaningful for the Fig. 1 instance).

    Returns
    -------
    numpy.ndarray
        ``(rows·cols, 2)`` array of ``(lat, lon)``.
    """
    if mode not in GRID_MODES:
        raise ValueError(f"mode must be one of {GRID_MODES}, got {mode!r}")
    if int(rows) != rows or int(cols) != cols or rows < 2 or cols < 2:
        raise ValueError(f"rows and cols must be integers ≥ 2, got rows={rows!r}, cols={cols!r}")
    rows, cols = int(rows), int(cols)
    s, w, e = (np.asarray(x, dtype=np.float64).reshape(2) for x in (S, W, E))
    r = np.arange(rows, dtype=np.float64)
    a = r / (rows - 1) if mode == "full" else r / REPO_ROW_DENOMINATOR
    b = np.arange(cols, dtype=np.float64) / (cols - 1)
    grid = s + a[:, None, None] * (w - s) + b[None, :, None] * (e - s)
    return grid.reshape(rows * cols, 2)


# --------------------------------------------------------------------------------------
# The instances of Fig. 1 and Fig. 2, with the authors' coordinates (chaturvedi2021 readings R11, R13).
# --------------------------------------------------------------------------------------

#: Fig. 1 box vertices (lat, lon): north, east, south, west.
FIG1_N = (40.82, -73.96)
FIG1_E = (40.80, -73.93)
FIG1_S = (40.70, -73.99197)
FIG1_W = (40.71315, -74.03)
#: Fig. 1 box, edges N–E, E–S, S–W, W–N.  ``FIG1_BOX.l1_diameter`` = C₁ = 0.18685.
FIG1_BOX = Polygon([FIG1_N, FIG1_E, FIG1_S, FIG1_W])
#: Fig. 2 rectangle.  ``FIG2_BOX.l1_diameter`` = C₂ ≈ 0.14292.
FIG2_BOX = rectangle(40.743775, 40.814381, -74.003862, -73.931548)
#: Fig. 2 ground set {A, B, C} (parts {A} and {B, C}).
FIG2_POINTS = {"A": (40.7500, -74.0025), "B": (40.7525, -73.9975), "C": (40.7825, -73.9575)}


def fig1_locations(mode: str = "full", n_north: int = 80) -> np.ndarray:
    """The Fig. 1 ground set: 20 grid points (:func:`quad_grid` of the box) then
    ``n_north`` copies of the north vertex; shape ``(20 + n_north, 2)``."""
    grid = quad_grid(FIG1_S, FIG1_W, FIG1_E, rows=4, cols=5, mode=mode)
    north = np.tile(np.asarray(FIG1_N, dtype=np.float64), (int(n_north), 1))
    return np.vstack([grid, north])
