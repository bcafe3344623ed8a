"""Figure ST-0c (new, beyond the paper): the prefix-sum noise of every continual counter against its formula.

Issue 27.  Under each guarantee (``laplace``: pure ε with ℓ2-Laplace seeds; ``gaussian``: (ε, δ) by the analytic
Gaussian mechanism) every counter that :mod:`privopt.mechanisms.counting` offers with it runs at the same
(T, p, Δ, ε, δ): its released prefix sum at t is the exact sum plus N(t), so the error of the release is N(t).
A seed draws N(1..T) once (:func:`~privopt.mechanisms.counting.prefix_noise`, stream keyed by guarantee,
counter, T, p and seed).  Per t the job sums over its seeds Σ_i N_i(t)² and Y(t)², Y(t) = Σ_i N_i(t)²/p; per
seed it keeps w = mean over t and i of N_i(t)² (independent across seeds: the interval of the mean-over-t
variance, which the per-t sums cannot give since the t share their nodes).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privopt import seeding
from privopt.experiments.smith2013.streams import PAPER
from privopt.fastrng import FastGenerator
from privopt.mechanisms.counting import make_counter, noise_variance, prefix_noise
from privopt.pipeline.errors import config_key

__all__ = ["GUARANTEES", "COUNTERS", "RUN_COLUMNS", "SEED_COLUMNS", "counters", "st0c_job"]

GUARANTEES = ("laplace", "gaussian")
#: the counters of each guarantee: (label, counter, banded); the labels are palette names
#: (privopt.plotting.palette.ALGORITHMS)
COUNTERS = {"laplace": (("tree", "tree", False), ("honaker", "honaker", False), ("smooth", "smooth", False)),
            "gaussian": (("tree", "tree", False), ("honaker", "honaker", False), ("sqrt", "sqrt", False),
                         ("sqrt_banded", "sqrt", True), ("smooth", "smooth", False))}
RUN_COLUMNS = ["guarantee", "counter", "bands", "T", "p", "t", "n", "scale", "var", "sum_sq", "sum_y2"]
SEED_COLUMNS = ["guarantee", "counter", "seed", "w"]


def counters(guarantee: str, settings) -> list:
    """[(label, Counter)] of one guarantee, every counter at the same (T, p, Δ, ε, δ)."""
    if guarantee not in COUNTERS:
        raise ValueError(f"guarantee: choose from {GUARANTEES}, got {guarantee!r}")
    T, p = int(settings["T"]), int(settings["p"])
    eps, sens = float(settings["eps"]), float(settings["sensitivity"])
    delta = float(settings["delta"]) if guarantee == "gaussian" else None
    out = []
    for label, name, banded in COUNTERS[guarantee]:
        bands = int(settings["bands"]) if banded else None
        with config_key("smith2013.st0c.bands", "bands"), config_key("smith2013.st0c.eps", "eps"), \
                config_key("smith2013.st0c.delta", "delta"):
            out.append((label, make_counter(name, T, p, sens, eps, delta, noise=guarantee, bands=bands)))
    return out


def st0c_job(experiment, point, settings, seeds, inputs):
    """Per counter of the point's guarantee: Σ_seeds Σ_i N_i(t)² and Σ_seeds Y(t)², t = 1..T, beside the exact
    Var N_i(t) (``var``); and per seed w = mean_{t,i} N_i(t)²."""
    guarantee = str(point["guarantee"])
    frames, per_seed = [], []
    for label, c in counters(guarantee, settings):
        sum_sq, sum_y2 = np.zeros(c.T), np.zeros(c.T)
        for s in seeds:
            rng = FastGenerator(seeding.seed_sequence(PAPER, "st0c/noise", {"guarantee": guarantee, "counter": label,
                                                                           "T": c.T, "p": c.p}, int(s)))
            sq = np.square(prefix_noise(c, rng)).sum(axis=1)
            sum_sq += sq
            sum_y2 += (sq / c.p) ** 2
            per_seed.append({"guarantee": guarantee, "counter": label, "seed": int(s), "w": float(sq.mean() / c.p)})
        frames.append(pd.DataFrame({"guarantee": guarantee, "counter": label, "bands": c.bands, "T": c.T, "p": c.p,
                                    "t": np.arange(1, c.T + 1), "n": len(seeds), "scale": c.scale,
                                    "var": noise_variance(c), "sum_sq": sum_sq, "sum_y2": sum_y2},
                                   columns=RUN_COLUMNS))
    return {"runs": pd.concat(frames, ignore_index=True), "seeds": pd.DataFrame(per_seed, columns=SEED_COLUMNS)}
