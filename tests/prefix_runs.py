"""A toy online run and its prefix functions, for the tests of verify on a prefix (tests/test_reference_exact.py).

A run of ``n_rounds`` rounds per seed: the running sum of N(0, 1/n) draws (``n`` the horizon its constants use, as
Shariff & Sheffet's runs use the paper's horizon whatever ``n_rounds`` is), recorded every ``every`` rounds, with
an end-of-run count ``count`` (the rounds run) on every row."""

from __future__ import annotations

import numpy as np
import pandas as pd


def run(experiment, point, settings, seeds, inputs):
    n, rounds, every = int(settings["n"]), int(settings["n_rounds"]), int(settings["every"])
    frames = []
    for seed in seeds:
        walk = np.concatenate([[0.0], np.random.default_rng([int(seed), 7]).normal(0, 1 / np.sqrt(n), rounds).cumsum()])
        t = np.arange(0, rounds + 1, every)
        frames.append(pd.DataFrame({"seed": int(seed), "t": t, "y": walk[t], "count": rounds}))
    return {"runs": pd.concat(frames, ignore_index=True)}


def prefix(experiment, point, settings, seeds, inputs, rounds):
    """The first ``rounds`` rounds, with the full run's constants: the rows of the full run at t ≤ rounds."""
    return run(experiment, point, {**settings, "n_rounds": rounds}, seeds, inputs)


def prefix_with_the_prefix_constants(experiment, point, settings, seeds, inputs, rounds):
    """A planted bug: the prefix's horizon taken for the constants (noise √(n/rounds) times too large)."""
    return run(experiment, point, {**settings, "n": rounds, "n_rounds": rounds}, seeds, inputs)


def prefix_paper(prefix_run: str = "prefix_runs:prefix"):
    """One experiment of two points whose jobs (2 seeds of 10^4 rounds, ``section`` below) declare a prefix (this
    module's, or the planted bug's): too long for verify's budget, attested on prefixes when pending."""
    from privopt.pipeline.protocol import Claims, Experiment, Paper, Prefix

    exp = Experiment(name="e", label="E", points=lambda s: [{"x": x} for x in (1, 2)],
                     settings=lambda s, p: {"n": s["n"], "n_rounds": s["n_rounds"], "every": s["every"]},
                     seeds=lambda s: (4, 2), run="prefix_runs:run", tables="m:f", table_files=(),
                     prefix=Prefix(run=prefix_run, horizon=lambda s: s["n_rounds"], step=lambda s: s["every"],
                                   totals=("count",)))
    return Paper(key="p", title="t", authors="a", venue="v", short="P", experiments=(exp,), figures=(),
                 claims=Claims(evaluate="m:f", inputs=()))
