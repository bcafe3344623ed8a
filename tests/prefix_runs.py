"""A toy online run and its prefix functions, for the tests of verify on a prefix (tests/test_reference_exact.py).

A run of ``n_rounds`` rounds per seed: the running sum of N(0, 1/n) draws (``n`` the horizon its constants use, as
Shariff & Sheffet's runs use the paper's horizon whatever ``n_rounds`` is), recorded every ``every`` rounds, with
an end-of-run count ``count`` (the rounds run) on every row."""

from __future__ import annotations

import numpy as np
import pandas as pd


def run(point, settings, seeds, inputs):
    n, rounds, every = int(settings["n"]), int(settings["n_rounds"]), int(settings["every"])
    frames = []
    for seed in seeds:
        walk = np.concatenate([[0.0], np.random.default_rng([int(seed), 7]).normal(0, 1 / np.sqrt(n), rounds).cumsum()])
        t = np.arange(0, rounds + 1, every)
        frames.append(pd.DataFrame({"seed": int(seed), "t": t, "y": walk[t], "count": rounds}))
    return {"runs": pd.concat(frames, ignore_index=True)}


def prefix(point, settings, seeds, inputs, rounds):
    """The first ``rounds`` rounds, with the full run's constants: the rows of the full run at t ≤ rounds."""
    return run(point, {**settings, "n_rounds": rounds}, seeds, inputs)


def prefix_with_the_prefix_constants(point, settings, seeds, inputs, rounds):
    """A planted bug: the prefix's horizon taken for the constants (noise √(n/rounds) times too large)."""
    return run(point, {**settings, "n": rounds, "n_rounds": rounds}, seeds, inputs)
