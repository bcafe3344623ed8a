"""Figure RC-1c (new, beyond the paper; issue 27): SubmodPFTAL's regret with each continual counter.

SubmodPFTAL (full information, :func:`privopt.online.submod_pftal.algorithm.run_submod`) keeps the exact prefix sum of its
vectors z_t = g_t + H x_t (‖z_t‖ ≤ μ, asserted every round) and plays from the release Σ_{τ≤t} z_τ + N(t); the
paper's N is TBAP's tree.  Here N comes from each pure-ε counter of :mod:`privopt.mechanisms.counting`
(:func:`~privopt.online.submod_pftal.algorithm.submod_counter`), all at the **same ε-DP guarantee** (replacement neighbours:
one loss replaced moves one item z_t by at most c_sens·μ in ℓ2, c_sens = 2):

* ``tree`` — the paper's TBAP: the dyadic tree, ℓ2-Laplace node noise λ = c_sens·μ·K/ε, K = ⌈log₂T⌉ + 1.  An item
  lies in at most bit_length(T) ≤ K noised nodes, each released with ℓ2-Laplace(λ) noise: by the triangle
  inequality per node the privacy loss is at most K·c_sens·μ/λ = ε (RC Thm 6; smith2013 readings R3, R4).
* ``honaker`` — Honaker's bottom-up estimator on the **same tree with the same λ**: it noises every complete node
  (not only those the dyadic release reads), but an item still lies in one complete node per level, at most
  bit_length(T) ≤ K of them, so the node releases are ε-DP by the same argument, and the estimate (an inverse-
  variance combination of node releases) is post-processing: the guarantee is the tree's, identical.
* ``smooth`` — Andersson & Pagh's smooth binary mechanism with its own calibration
  ``make_counter("smooth", T, n, c_sens·μ, ε)``: an item lies in at most h − k noised nodes, and
  λ = (h − k)·c_sens·μ/ε, ε-DP by the same per-node triangle inequality (``certify`` checks B C = A and the
  columns' ℓ1 norm, tests/test_cardoso2019_rc1c.py).

The learner's play (S_t from x_t) and the loss stream do not depend on the counter, so the regret is ε-DP's
post-processing in each case.  Paired design: per seed the cell stream (``rc1c/data``, keyed by n and the seed) and
the play randomness (``rc1c/play``, keyed by n, T, ε and the seed) are the same for every counter; the node noise
(``rc1c/noise``) is keyed by the counter, n, T, ε and the seed (:mod:`privopt.seeding`).  One job = one horizon T
× a block of seeds; each finite ε of the grid runs in it (ε = ∞ is the same run for every counter and is RC-1a's).

Tables (:func:`rc1c_tables`): ``rc1c_runs`` every run; ``rc1c`` per (ε, T, counter) the mean expected regret, its
SEM and the seeds N, and the ratio of the mean to the tree's with a 95 % **paired bootstrap** interval (seeds
resampled jointly for the counter and the tree, :data:`N_BOOT` resamples, percentile interval, the resampling
stream fixed by (ε, T, counter) through :mod:`privopt.seeding`), beside the ratio of the counters' mean-over-t
noise variance (the formula, :func:`~privopt.mechanisms.counting.noise_variance`).
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd

from privopt import seeding
from privopt.experiments.cardoso2019.runs import PAPER, cell_streams, load_pool, replica_states
from privopt.mechanisms.counting import encoder_norms, noise_variance
from privopt.online.submod_pftal.algorithm import FULL_COUNTERS, full_setup, run_submod, submod_counter
from privopt.pipeline.errors import config_key
from privopt.pipeline.summary import paired_ratio, seed_summary

__all__ = ["COUNTERS", "RUN_COLUMNS", "TABLE_COLUMNS", "N_BOOT", "rc1c_rows", "rc1c_job",
           "rc1c_tables"]

#: the counters of figure RC-1c, in the figure's order (palette names, privopt.plotting.palette)
COUNTERS = FULL_COUNTERS
RUN_COLUMNS = ["experiment", "algorithm", "counter", "instance", "n", "T", "eps", "seed", "regret_expected",
               "regret_realised", "cum_loss_expected", "cum_loss_realised", "best_loss", "H", "mu", "lam", "scale",
               "nodes", "noise_var_mean", "c_sens", "max_ratio", "wall_s"]
TABLE_COLUMNS = ["counter", "n", "T", "eps", "mean", "std", "sem", "N", "ci_lo", "ci_hi", "ratio", "ratio_lo",
                 "ratio_hi", "var_ratio", "scale", "lam", "nodes"]
#: bootstrap resamples of the paired ratio interval
N_BOOT = 2000


def rc1c_rows(inst, T: int, eps_list, seeds, cells: np.ndarray, counters=COUNTERS, *, c_sens: float = 2.0,
              experiment: str = "rc1c") -> pd.DataFrame:
    """SubmodPFTAL with each counter for every (finite ε, seed): one row per run."""
    eps = [float(e) for e in eps_list]
    n = inst.n
    seeds = [int(s) for s in seeds]
    setups = [full_setup(n, T, e, M=inst.M, c_sens=c_sens) for e in eps for _ in seeds]
    rows = np.array([i for _ in eps for i in range(len(seeds))], dtype=np.int64)
    seed_of = [s for _ in eps for s in seeds]
    play_keys = [{"n": n, "T": int(T), "eps": e} for e in eps for _ in seeds]
    best = [inst.best(c[:T]) for c in cells]
    records = []
    for name in counters:
        noise_keys = [{"counter": name, **k} for k in play_keys]
        start = time.perf_counter()
        out = run_submod(inst, cells[:, :T], rows, setups, replica_states(experiment, "noise", noise_keys, seed_of),
                         replica_states(experiment, "play", play_keys, seed_of), counter=name)
        wall = (time.perf_counter() - start) / len(setups)
        # the counter, its node count and its mean noise variance depend on (counter, ε) only: once per ε, not per
        # seed (noise_variance is O(T))
        per_eps = {}
        for s in setups:
            if s.eps not in per_eps:
                c = submod_counter(s, name)
                per_eps[s.eps] = (float(encoder_norms(name, T, height=c.height, weight=c.weight)[0]),
                                  float(noise_variance(c).mean()))
        for r, s in enumerate(setups):
            nodes, var_mean = per_eps[s.eps]
            i = int(rows[r])
            b = best[i]["value"]
            records.append({"experiment": experiment, "algorithm": "SubmodPFTAL", "counter": name,
                            "instance": inst.name, "n": n, "T": int(T), "eps": s.eps, "seed": seed_of[r],
                            "regret_expected": float(out["exp_loss"][r] - b),
                            "regret_realised": float(out["real_loss"][r] - b),
                            "cum_loss_expected": float(out["exp_loss"][r]), "cum_loss_realised": float(out["real_loss"][r]),
                            "best_loss": b, "H": s.H, "mu": s.mu, "lam": s.lam, "scale": float(out["scale"][r]),
                            "nodes": nodes, "noise_var_mean": var_mean, "c_sens": s.c_sens,
                            "max_ratio": float(out["max_ratio"][r]), "wall_s": wall})
    return pd.DataFrame(records, columns=RUN_COLUMNS)


def rc1c_job(experiment, point, settings, seeds, inputs):
    """RC-1c: SubmodPFTAL on RC-MRF with each counter of ``settings["counters"]``, n = settings["n"], point (T,)."""
    from privopt.experiments.cardoso2019.grid import rc_mrf
    n, T = int(settings["n"]), int(point["T"])
    pool = load_pool(inputs, n)
    with config_key(f"{PAPER}.rc1c.n", "n"), config_key(f"{PAPER}.lambda_g", "lambda_g"):
        inst = rc_mrf(n, float(settings.get("lambda_g", 0.25)))
    cells = cell_streams(pool, "rc1c", n, seeds, T)
    return {"runs": rc1c_rows(inst, T, settings["eps"], seeds, cells, tuple(settings["counters"]),
                              c_sens=float(settings["c_sens"]))}


def rc1c_tables(experiment, frames, settings):
    """``rc1c_runs`` (every run) and ``rc1c``: per (counter, ε, T) the seed summary of the expected regret and the
    ratio of its mean to the tree's with the paired bootstrap 95 % interval (the tree's own row: 1, no interval
    needed: [1, 1]), and ``var_ratio`` the formula's mean-over-t noise variance ratio to the tree's."""
    runs = frames["runs"]
    order = {c: i for i, c in enumerate(COUNTERS)}
    runs = runs.sort_values(["T", "eps", "counter", "seed"], key=lambda s: s.map(order) if s.name == "counter" else s,
                            kind="stable").reset_index(drop=True)
    by = ["counter", "n", "T", "eps"]
    table = seed_summary(runs, by, "regret_expected", paper=PAPER, table="rc1c", count="N")
    consts = runs.groupby(by, sort=False)[["scale", "lam", "nodes", "noise_var_mean"]].first().reset_index()
    table = table.merge(consts, on=by)
    ratio, lo, hi, var_ratio = [], [], [], []
    for _, row in table.iterrows():
        sel = (runs["n"] == row["n"]) & (runs["T"] == row["T"]) & np.isclose(runs["eps"], row["eps"])
        mine = runs[sel & (runs["counter"] == row["counter"])].set_index("seed")["regret_expected"]
        tree = runs[sel & (runs["counter"] == "tree")].set_index("seed")["regret_expected"]
        tree_var = runs[sel & (runs["counter"] == "tree")]["noise_var_mean"]
        if tree.empty:
            ratio.append(math.nan), lo.append(math.nan), hi.append(math.nan), var_ratio.append(math.nan)
            continue
        if set(mine.index) != set(tree.index):
            raise ValueError(f"rc1c: counter {row['counter']} and the tree ran different seeds at T = {row['T']}, "
                             f"ε = {row['eps']}: the ratio is paired by seed")
        seeds = sorted(tree.index)
        rng = seeding.rng(PAPER, "tables/rc1c_ratio", {"counter": row["counter"], "T": int(row["T"]),
                                                       "eps": float(row["eps"]), "n": int(row["n"])}, 0)
        if row["counter"] == "tree":
            e, a, b = 1.0, 1.0, 1.0
        else:
            e, a, b = paired_ratio(mine.loc[seeds].to_numpy(), tree.loc[seeds].to_numpy(), rng, N_BOOT)
        ratio.append(e), lo.append(a), hi.append(b)
        var_ratio.append(float(row["noise_var_mean"]) / float(tree_var.iloc[0]))
    table["ratio"], table["ratio_lo"], table["ratio_hi"], table["var_ratio"] = ratio, lo, hi, var_ratio
    table = table.sort_values(["eps", "T", "counter"], key=lambda s: s.map(order) if s.name == "counter" else s,
                              kind="stable").reset_index(drop=True)
    return {"rc1c": table[TABLE_COLUMNS], "rc1c_runs": runs}
