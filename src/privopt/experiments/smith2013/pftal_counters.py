"""Figure ST-1c (new, beyond the paper): PFTAL's regret with each continual counter at the same pure-ε guarantee.

Issue 27, step 4.  ST-1's setting (Uber disk, p = 2, both losses, the ε grid, each horizon T its own run), PFTAL
(:mod:`privopt.online.pftal.full`) with its private prefix sum Σ_{τ≤t} z_τ + N(t) released by each counter of
:func:`privopt.online.pftal.full.pftal_counter`.  Every counter is ε-DP for the same neighbouring relation as the paper's
TBAP (one loss replaced: one item z_t moves by ≤ Δ = c_sens·μ in ℓ2, the later items being the same functions of the
earlier releases), because each is a data-independent set of ℓ2-Laplace node noises added to node sums, every node
released once after all its items, so the privacy loss is at most (nodes holding an item)·Δ/λ:

* ``tree`` — TBAP, the paper's calibration λ = c_sens·μ·K/ε, K = tree_levels(T) ≥ bit_length(T), the nodes holding one
  item (ST Thm 3 / 5);
* ``honaker`` — Honaker's bottom-up estimator on the *same* tree at the *same* λ: it noises every complete node, at
  most bit_length(T) ≤ K of which hold an item (the dyadic tree's count), and its release is a fixed linear
  combination of these node releases (B C = A, :func:`privopt.mechanisms.counting.linear_maps`): post-processing,
  the identical guarantee;
* ``smooth`` — Andersson & Pagh's smooth binary mechanism with its own pure-ε calibration λ = (h − k)·Δ/ε
  (:func:`privopt.mechanisms.counting.make_counter`; h − k the nodes holding an item), ε-DP by the same argument.

At ε = ∞ every counter adds nothing: the three runs would coincide, so ST-1c runs the finite ε only (ST-1 has the
non-private baseline).  Streams: the points of a seed depend on (``st1c``, seed) only — every counter, loss and ε of
that seed sees the same points (paired comparison, common random numbers); the noise of a replica is keyed by
(counter, loss, T, p, ε) and the seed (:func:`privopt.experiments.smith2013.streams.replica_states`).
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd

from privopt.experiments.smith2013.runs import RADIUS, load_disk
from privopt.experiments.smith2013.streams import replica_states, uber_indices
from privopt.online.pftal.comparators import best_fixed
from privopt.online.pftal.full import COUNTERS, pftal_setup, run_pftal

__all__ = ["COUNTERS", "RUN_COLUMNS", "st1c_job"]

RUN_COLUMNS = ["experiment", "counter", "loss", "T", "p", "eps", "seed", "regret", "cum_loss", "best_loss", "H", "L",
               "mu", "lam", "scale", "K", "c_sens", "h_rule", "max_ratio", "wall_s"]


def _counters(settings) -> list[str]:
    names = [str(c) for c in settings["counters"]]
    bad = [c for c in names if c not in COUNTERS]
    if bad:
        raise ValueError(f"config key smith2013.st1c.counters: {bad} not among PFTAL's pure-ε counters {COUNTERS}")
    return names


def st1c_job(experiment, point, settings, seeds, inputs):
    """Regret at horizon T on the Uber disk, each loss, counter and finite ε of the grid, paired by seed."""
    T, p = int(point["T"]), 2
    eps = [float(e) for e in settings["eps"]]
    if not all(math.isfinite(e) for e in eps):
        raise ValueError("config key smith2013.st1c.eps: finite values only (at ε = ∞ every counter adds nothing)")
    pts = load_disk(inputs)
    idx = uber_indices(len(pts), "st1c", seeds, T)
    frames = []
    for loss in settings["losses"]:
        best = [best_fixed(loss, pts[row], RADIUS)[1] for row in idx]
        setups = [pftal_setup(loss, T, p, e, radius=RADIUS, c_sens=settings["c_sens"], h_rule=settings["h_rule"])
                  for e in eps for _ in seeds]
        rows = np.array([i for _ in eps for i in range(len(seeds))])
        for counter in _counters(settings):
            keys = [{"counter": counter, "loss": loss, "T": T, "p": p, "eps": e} for e in eps for _ in seeds]
            states = replica_states("st1c", "noise", keys, [s for _ in eps for s in seeds])
            start = time.perf_counter()
            out = run_pftal(pts, idx, rows, setups, states, counter=counter)
            wall = (time.perf_counter() - start) / len(setups)
            records = []
            for r, s in enumerate(setups):
                i = int(rows[r])
                records.append({"experiment": "st1c", "counter": counter, "loss": loss, "T": T, "p": p, "eps": s.eps,
                                "seed": int(seeds[i]), "regret": float(out["cum_loss"][r] - best[i]),
                                "cum_loss": float(out["cum_loss"][r]), "best_loss": float(best[i]), "H": s.H,
                                "L": s.L, "mu": s.mu, "lam": s.lam, "scale": float(out["scale"][r]), "K": s.K,
                                "c_sens": s.c_sens, "h_rule": s.h_rule, "max_ratio": float(out["max_ratio"][r]),
                                "wall_s": wall})
            frames.append(pd.DataFrame(records, columns=RUN_COLUMNS))
    return {"runs": pd.concat(frames, ignore_index=True)}
