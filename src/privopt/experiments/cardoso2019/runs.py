"""Run jobs of the Rivera Cardoso & Cummings figures RC-1 … RC-4 (protocol ``run(experiment, point, settings, seeds, inputs)``).

One job = one parameter point × a block of
seeds; inside it every ε of the grid and ε = ∞ run on the same cell streams (common random numbers:
the stream depends only on (experiment, n, seed)).  Each horizon T is its own run (smith2013 reading R10).
Regret (cardoso2019 reading R7): expected = Σ_t E[f_t(S_t) | x_t] − min_S Σ_t f_t(S) (plotted), realised =
Σ_t f_t(S_t) − min (the check C-U2); the comparator is exact (LP of the Lovász extension), and for
n ≤ 16 every row also records the minimum by exhaustive enumeration (``best_enum``, C-U2).
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd

from privopt import seeding
from privopt.experiments.cardoso2019.modes import MODES
from privopt.fastrng import FastGenerator
from privopt.online.submod_pftal.algorithm import bandit_setup, bound_bandit, bound_full, full_setup, run_submod
from privopt.pipeline.errors import config_key
from privopt.submodular.cuts import CutInstance, enumerate_minimum

__all__ = ["PAPER", "RUN_COLUMNS", "rc_job", "cell_streams", "replica_states", "rc_rows"]

PAPER = "cardoso2019"
RUN_COLUMNS = ["experiment", "algorithm", "instance", "n", "T", "eps", "seed", "regret_expected", "regret_realised",
               "cum_loss_expected", "cum_loss_realised", "best_loss", "best_size", "H", "mu", "lam", "K", "gamma",
               "c_sens", "mu_rule", "bound", "max_ratio", "best_enum", "wall_s"]
#: the comparator is cross-checked by exhaustive enumeration up to this n (2^16 subsets)
ENUM_MAX_N = 16


def cell_streams(pool: np.ndarray, experiment: str, n: int, seeds, T: int) -> np.ndarray:
    """(len(seeds), T) cells drawn iid with replacement from the pool of pickup cells (``iid``, cardoso2019 reading
    R10)."""
    return np.stack([pool[seeding.rng(PAPER, f"{experiment}/data", {"n": int(n)}, int(s)).integers(0, pool.size,
                                                                                              size=int(T))]
                     for s in seeds]).astype(np.int64)


def replica_states(experiment: str, stream: str, params, seeds) -> np.ndarray:
    """(R, 4) FastGenerator states, replica r keyed by ``params[r]`` and ``seeds[r]``."""
    return np.stack([FastGenerator(seeding.seed_sequence(PAPER, f"{experiment}/{stream}", dict(p), int(s))).state
                     for p, s in zip(params, seeds)])


def rc_rows(experiment: str, mode: str, inst: CutInstance, T: int, eps_list, seeds, cells: np.ndarray, *,
            c_sens: float = 2.0, mu_rule: str = "corrected", key: str = "T") -> pd.DataFrame:
    """SubmodPFTAL (``mode="full"``) or BanditSubmodPFTAL for every (ε, seed); one row per replica (a horizon
    too short for the bandit's γ ≤ 1 is a ConfigError naming ``key``)."""
    eps = [float(e) for e in eps_list]
    n = inst.n
    if mode == "full":
        setups = [full_setup(n, T, e, M=inst.M, c_sens=c_sens) for e in eps for _ in seeds]
    else:
        with config_key(key, "T"):
            setups = [bandit_setup(n, T, e, M=inst.M, c_sens=c_sens, mu_rule=mu_rule) for e in eps for _ in seeds]
    rows = np.array([i for _ in eps for i in range(len(seeds))])
    keys = [{"mode": mode, "instance": inst.name, "n": n, "T": int(T), "eps": e, "mu_rule": mu_rule}
            for e in eps for _ in seeds]
    seed_of = [s for _ in eps for s in seeds]
    best = [inst.best(c[:T]) for c in cells]
    enum = [enumerate_minimum(inst.total_unary(c[:T]), inst.edges, T * inst.w)["value"] if n <= ENUM_MAX_N else math.nan
            for c in cells]
    start = time.perf_counter()
    out = run_submod(inst, cells[:, :T], rows, setups, replica_states(experiment, "noise", keys, seed_of),
                     replica_states(experiment, "play", keys, seed_of), allow_unbounded=mu_rule == "paper")
    wall = (time.perf_counter() - start) / len(setups)
    records = []
    for r, s in enumerate(setups):
        i = int(rows[r])
        b = best[i]["value"]
        records.append({"experiment": experiment, "algorithm": "SubmodPFTAL" if mode == "full" else "BanditSubmodPFTAL",
                        "instance": inst.name, "n": n, "T": int(T), "eps": s.eps, "seed": int(seeds[i]),
                        "regret_expected": float(out["exp_loss"][r] - b), "regret_realised": float(out["real_loss"][r] - b),
                        "cum_loss_expected": float(out["exp_loss"][r]), "cum_loss_realised": float(out["real_loss"][r]),
                        "best_loss": b, "best_size": int(best[i]["mask"].sum()), "H": s.H, "mu": s.mu, "lam": s.lam,
                        "K": s.K, "gamma": s.gamma, "c_sens": s.c_sens, "mu_rule": s.mu_rule,
                        "bound": bound_full(s) if mode == "full" else bound_bandit(s),
                        "max_ratio": float(out["max_ratio"][r]), "best_enum": float(enum[i]), "wall_s": wall})
    return pd.DataFrame(records, columns=RUN_COLUMNS)


# ------------------------------------------------------------------ job functions (protocol signature)

def load_pool(inputs, n: int) -> np.ndarray:
    """The cells of the pickups inside the box on the n-cell grid (instance ``cells``)."""
    from pathlib import Path
    return pd.read_parquet(Path(inputs["cells"]) / "cells.parquet", columns=[f"cell{n}"])[f"cell{n}"].to_numpy()


def rc_job(experiment, point, settings, seeds, inputs):
    """The run job of every regret experiment RC-1a … RC-4 (``experiment.name``, :data:`.modes.MODES`): SubmodPFTAL
    or BanditSubmodPFTAL (T ≥ n⁴, else a ConfigError naming the key) on RC-MRF or RC-ZERO; n and T come from the
    point where the experiment varies them (RC-1: T, RC-2: n), else from its settings."""
    from privopt.experiments.cardoso2019.grid import cell_shares, rc_mrf, rc_zero
    name = experiment.name
    mode, instance = MODES[name]
    n, T = (int(point[k]) if k in point else int(settings[k]) for k in ("n", "T"))
    pool = load_pool(inputs, n)
    with config_key(f"{PAPER}.{name}.n", "n"), config_key(f"{PAPER}.lambda_g", "lambda_g"):
        inst = rc_mrf(n, float(settings.get("lambda_g", 0.25))) if instance == "mrf" else rc_zero(n, cell_shares(pool, n))
    cells = cell_streams(pool, name, n, seeds, T)
    eps = [float(e) for e in settings["eps"]] + [math.inf]
    return {"runs": rc_rows(name, mode, inst, T, eps, seeds, cells, c_sens=float(settings["c_sens"]),
                            key=f"{PAPER}.{name}.T")}
