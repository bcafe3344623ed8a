"""Run jobs of the Smith & Thakurta figures (protocol ``run(experiment, point, settings, seeds, inputs)``).

One job = one parameter point × a block of seeds; inside it, every ε of the figure's grid and the
non-private baseline (ε = ∞) run on the same point streams (common random numbers).  Each horizon T is
its own run (K, H, β depend on T: smith2013 reading R10).  Regret = Σ_t f_t(w_t) − min_{w∈C} Σ_t f_t(w), with the
exact comparator of :mod:`privopt.online.pftal.comparators`.

* ``st0``: TBAP error ‖v̂_t − v_t‖² summed over the seeds (each seed one independent tree), t = 1..T.
* ``st1``/``st2``: PFTAL on the Uber disk, both losses (``sc``, ``gc``), point (T,) or none (T fixed).
* ``st3``: PFTAL on the synthetic stream ST-DIM in R^p, both losses, point (p,).
* ``st4``: bandit PFTAL on the Uber disk (squared distance), both rules for β, point (T,).
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

from privopt.experiments.smith2013.streams import dim_points, replica_states, uber_indices
from privopt.online.pftal.bandit import bandit_setup, run_bandit
from privopt.online.pftal.comparators import best_fixed
from privopt.online.pftal.full import pftal_setup, run_pftal
from privopt.mechanisms.tbap import tbap_error_sq, tbap_error_sq_theory, tbap_scale

__all__ = ["RADIUS", "eps_grid", "load_disk", "pftal_rows", "st0_job", "uber_job", "st3_job", "st4_job"]

#: radius of the decision set and of the data (unit disk / unit ball)
RADIUS = 1.0
RUN_COLUMNS = ["experiment", "loss", "T", "p", "eps", "seed", "regret", "cum_loss", "best_loss", "H", "L", "mu", "lam",
               "K", "c_sens", "h_rule", "max_ratio", "wall_s"]


def eps_grid(settings) -> list[float]:
    """The figure's finite ε values, then ε = ∞ (the non-private baseline on the same code path)."""
    return [float(e) for e in settings["eps"]] + [math.inf]


def load_disk(inputs) -> np.ndarray:
    """The (N, 2) unit-disk points of the ``disk`` instance."""
    pool = pd.read_parquet(Path(inputs["disk"]) / "disk.parquet")
    return np.ascontiguousarray(pool[["ux", "uy"]].to_numpy(dtype=np.float64))


def pftal_rows(experiment, loss, T, p, pts, idx, seeds, settings, best) -> pd.DataFrame:
    """PFTAL for every (ε, seed) on the streams ``pts[idx[row]]`` (row i ↔ seeds[i]); ``best[i]`` the
    comparator's cumulative loss of seed i.  One row per replica (:data:`RUN_COLUMNS`)."""
    eps = eps_grid(settings)
    setups = [pftal_setup(loss, T, p, e, radius=RADIUS, c_sens=settings["c_sens"], h_rule=settings["h_rule"])
              for e in eps for _ in seeds]
    rows = np.array([i for _ in eps for i in range(len(seeds))])
    keys = [{"loss": loss, "T": int(T), "p": int(p), "eps": e} for e in eps for _ in seeds]
    states = replica_states(experiment, "noise", keys, [s for _ in eps for s in seeds])
    start = time.perf_counter()
    out = run_pftal(pts, idx, rows, setups, states)
    wall = (time.perf_counter() - start) / len(setups)
    records = []
    for r, s in enumerate(setups):
        i = int(rows[r])
        records.append({"experiment": experiment, "loss": loss, "T": int(T), "p": int(p), "eps": s.eps,
                        "seed": int(seeds[i]), "regret": float(out["cum_loss"][r] - best[i]),
                        "cum_loss": float(out["cum_loss"][r]), "best_loss": float(best[i]), "H": s.H, "L": s.L,
                        "mu": s.mu, "lam": s.lam, "K": s.K, "c_sens": s.c_sens, "h_rule": s.h_rule,
                        "max_ratio": float(out["max_ratio"][r]), "wall_s": wall})
    return pd.DataFrame(records, columns=RUN_COLUMNS)


def _uber_pftal(experiment, loss, T, settings, seeds, inputs) -> pd.DataFrame:
    pts = load_disk(inputs)
    idx = uber_indices(len(pts), experiment, seeds, T)
    best = [best_fixed(loss, pts[row], RADIUS)[1] for row in idx]
    return pftal_rows(experiment, loss, T, 2, pts, idx, seeds, settings, best)


def st0_job(experiment, point, settings, seeds, inputs):
    """Figure ST-0: Σ over the seeds (independent trees) of ‖v̂_t − v_t‖², t = 1..T, with its theory."""
    d, T = int(point["d"]), int(settings["T"])
    lam = tbap_scale(float(settings["mu"]), float(settings["eps"]), T, float(settings["c_sens"]))
    states = replica_states("st0", "noise", [{"d": d, "T": T}] * len(seeds), seeds)
    t = np.arange(1, T + 1)
    sum_sq = tbap_error_sq(T, d, lam, states)
    return {"runs": pd.DataFrame({"d": d, "t": t, "sum_sq": sum_sq, "n": len(seeds), "lam": lam,
                                  "theory_sq": tbap_error_sq_theory(t, d, lam)})}


def uber_job(experiment, point, settings, seeds, inputs):
    """Figures ST-1 (``st1``: one point per horizon T) and ST-2 (``st2``: the fixed horizon ``T`` of its settings):
    regret on the Uber disk, each loss, every ε of the grid and ε = ∞."""
    T = int(point["T"] if "T" in point else settings["T"])
    return {"runs": pd.concat([_uber_pftal(experiment.name, loss, T, settings, seeds, inputs)
                               for loss in settings["losses"]], ignore_index=True)}


def st3_job(experiment, point, settings, seeds, inputs):
    """Figure ST-3: regret on the synthetic stream in R^p, each loss (one seed at a time: the points are T × p)."""
    p, T = int(point["p"]), int(settings["T"])
    frames = []
    for seed in seeds:
        pts = dim_points(p, T, "st3", seed)
        idx = np.arange(T, dtype=np.int64)[None, :]
        for loss in settings["losses"]:
            best = [best_fixed(loss, pts, RADIUS)[1]]
            frames.append(pftal_rows("st3", loss, T, p, pts, idx, [seed], settings, best))
    runs = pd.concat(frames, ignore_index=True)
    return {"runs": runs.sort_values(["loss", "eps", "seed"], kind="stable").reset_index(drop=True)}


ST4_COLUMNS = ["experiment", "loss", "beta_rule", "T", "p", "eps", "seed", "regret", "cum_loss", "best_loss", "beta",
               "beta_capped", "xi", "H", "B", "mu", "lam", "K", "c_sens", "max_ratio", "wall_s"]


def st4_job(experiment, point, settings, seeds, inputs):
    """Figure ST-4: bandit PFTAL (squared distance) on the Uber disk at horizon T, each rule for β."""
    T, loss, p = int(point["T"]), "sc", 2
    pts = load_disk(inputs)
    idx = uber_indices(len(pts), "st4", seeds, T)
    best = [best_fixed(loss, pts[row], RADIUS)[1] for row in idx]
    eps = eps_grid(settings)
    records = []
    for rule in settings["beta_rules"]:
        setups = [bandit_setup(loss, T, p, e, beta_rule=rule, B=float(settings["B"]), H=float(settings["H"]),
                               radius=RADIUS, c_sens=float(settings["c_sens"])) for e in eps for _ in seeds]
        rows = np.array([i for _ in eps for i in range(len(seeds))])
        keys = [{"beta_rule": rule, "T": T, "eps": e} for e in eps for _ in seeds]
        flat_seeds = [s for _ in eps for s in seeds]
        noise = replica_states("st4", "noise", keys, flat_seeds)
        explore = replica_states("st4", "explore", keys, flat_seeds)
        start = time.perf_counter()
        out = run_bandit(pts, idx, rows, setups, noise, explore)
        wall = (time.perf_counter() - start) / len(setups)
        for r, s in enumerate(setups):
            i = int(rows[r])
            records.append({"experiment": "st4", "loss": loss, "beta_rule": rule, "T": T, "p": p, "eps": s.eps,
                            "seed": int(seeds[i]), "regret": float(out["cum_loss"][r] - best[i]),
                            "cum_loss": float(out["cum_loss"][r]), "best_loss": float(best[i]), "beta": s.beta,
                            "beta_capped": s.beta_capped, "xi": s.xi, "H": s.H, "B": s.B, "mu": s.mu, "lam": s.lam,
                            "K": s.K, "c_sens": s.c_sens, "max_ratio": float(out["max_ratio"][r]), "wall_s": wall})
    return {"runs": pd.DataFrame(records, columns=ST4_COLUMNS)}
