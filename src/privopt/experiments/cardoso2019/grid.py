"""Grid cells of the Uber box and the submodular loss instances RC-MRF and RC-ZERO.

docs/papers/cardoso2019.md, readings R1 and R2; the privacy unit: smith2013 reading R1.  Fixed public constants, never
derived from the data: the box lat ∈ [40.68, 40.84), lon ∈ [−74.03, −73.90) (pickups outside are
dropped), k_lat rows × k_lon columns,

    row = ⌊(lat − 40.68)/0.16·k_lat⌋,  col = ⌊(lon + 74.03)/0.13·k_lon⌋,  cell = row·k_lon + col,

and the 4-neighbour grid graph G with |E| edges.  Grids: n = 4 (2×2), 8 (4×2), 16 (4×4), 32 (8×4), 64 (8×8).

RC-MRF ("hot-zone map"), one pickup c_t per round (m = 1: one loss = one rider, the privacy unit)::

    f_t(S) = ½·[ Σ_{i∈S} (1/n − [i = c_t]) + (λ_G/|E|)·cut_G(S) ],   λ_G = 0.25

modular + non-negative cut, hence submodular; f_t ∈ [−½, ½(1 + λ_G)] ⊂ [−1, 1] (M = 1) and
f_t(∅) = f_t([n]) = 0.  RC-ZERO (the √T regime): λ_G = 0 and a_t = ½(q̄ − e_{c_t}) with q̄ the mean cell
share, so every fixed set has expected loss 0 under the iid stream.

An instance (:class:`privopt.submodular.cuts.CutInstance`) stores the part common to every round
(``base`` (n,), the edges and their weights) and the per-round unary a_t = base − ½·e_{c_t}; the learners
read only the cell stream.

A value these functions cannot use is a ``ValueError`` naming the parameter (``n: …``, ``lambda_g: …``);
the instance and run code turns it into a ``ConfigError`` naming the config key
(:func:`privopt.pipeline.errors.config_key`).
"""

from __future__ import annotations

import numpy as np

from privopt.submodular.cuts import CutInstance

__all__ = ["BOX", "GRIDS", "LAMBDA_G", "HALF", "grid_shape", "grid_edges", "grid_cells",
           "rc_mrf", "rc_zero", "cell_shares"]

#: (lat_min, lat_max, lon_min, lon_max) of the grid box
BOX = (40.68, 40.84, -74.03, -73.90)
#: n → (k_lat, k_lon)
GRIDS = {4: (2, 2), 8: (4, 2), 16: (4, 4), 32: (8, 4), 64: (8, 8)}
LAMBDA_G = 0.25
#: the demand weight: a_t = base − HALF·e_{c_t}
HALF = 0.5


def grid_shape(n: int) -> tuple[int, int]:
    """(k_lat, k_lon) of the supported grid with n cells; a ValueError naming ``n`` otherwise."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or int(n) not in GRIDS:
        raise ValueError(f"n: the Uber box supports the grids n in {sorted(GRIDS)} "
                          f"(2x2 .. 8x8; finer grids leave most cells empty), got {n!r}")
    return GRIDS[int(n)]


def grid_edges(k_lat: int, k_lon: int) -> np.ndarray:
    """(|E|, 2) edges of the 4-neighbour grid, cell = row·k_lon + col (horizontal edges, then vertical)."""
    cell = np.arange(k_lat * k_lon).reshape(k_lat, k_lon)
    horiz = np.column_stack([cell[:, :-1].ravel(), cell[:, 1:].ravel()])
    vert = np.column_stack([cell[:-1, :].ravel(), cell[1:, :].ravel()])
    return np.vstack([horiz, vert]).astype(np.int64)


def grid_cells(lat, lon, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(cell, keep): the cell of every pickup (−1 outside the box) and the mask of those inside.

    Cells may be empty (at n = 32 and 64 some cells lie in the Hudson or in New Jersey; their demand
    share is then 0); a ValueError naming ``n`` when the grid is not one the box supports, or when
    no pickup lies in the box."""
    k_lat, k_lon = grid_shape(n)
    lat = np.asarray(lat, dtype=np.float64)
    lon = np.asarray(lon, dtype=np.float64)
    lat0, lat1, lon0, lon1 = BOX
    keep = (lat >= lat0) & (lat < lat1) & (lon >= lon0) & (lon < lon1)
    row = np.floor((lat - lat0) / (lat1 - lat0) * k_lat).astype(np.int64)
    col = np.floor((lon - lon0) / (lon1 - lon0) * k_lon).astype(np.int64)
    keep &= (row >= 0) & (row < k_lat) & (col >= 0) & (col < k_lon)
    cell = np.where(keep, row * k_lon + col, -1)
    if not keep.any():
        raise ValueError(f"n: no pickup lies in the grid box lat [{lat0}, {lat1}), lon [{lon0}, {lon1})")
    return cell, keep


def cell_shares(cells: np.ndarray, n: int) -> np.ndarray:
    """q̄: the share of the pickups in each cell."""
    counts = np.bincount(np.asarray(cells, dtype=np.int64), minlength=n).astype(np.float64)
    return counts / counts.sum()


def rc_mrf(n: int, lambda_g: float = LAMBDA_G) -> CutInstance:
    """RC-MRF on the n-cell grid: base = 1/(2n), w_e = λ_G/(2|E|)."""
    k_lat, k_lon = grid_shape(n)
    if not 0.0 <= lambda_g <= 1.0:
        raise ValueError(f"lambda_g: the cut weight must lie in [0, 1] (M = 1), got {lambda_g!r}")
    edges = grid_edges(k_lat, k_lon)
    return CutInstance(name="mrf", n=int(n), edges=edges,
                       w=np.full(edges.shape[0], HALF * lambda_g / edges.shape[0]),
                       base=np.full(int(n), HALF / n), M=1.0)


def rc_zero(n: int, qbar) -> CutInstance:
    """RC-ZERO on the n-cell grid: base = ½q̄ (q̄ the mean cell shares), no cut."""
    k_lat, k_lon = grid_shape(n)
    qbar = np.asarray(qbar, dtype=np.float64)
    if qbar.shape != (n,) or np.any(qbar < 0) or abs(qbar.sum() - 1.0) > 1e-9:
        raise ValueError("qbar: must be n non-negative shares summing to 1")
    edges = grid_edges(k_lat, k_lon)
    return CutInstance(name="zero", n=int(n), edges=edges,
                       w=np.zeros(edges.shape[0]), base=HALF * qbar, M=1.0)
