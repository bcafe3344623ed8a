"""Runs and tables of the toy paper: |mean + Laplace(1/(n·ε)) − mean| per run (experiment ``laplace``), and
the private mean of the toy data set's values (experiment ``data``, instance ``values``)."""

import json
from pathlib import Path

import pandas as pd

from privopt import seeding
from privopt.pipeline.summary import summarise

PAPER = "toy"


def run_job(experiment, point, settings, seeds, inputs):
    """One block of seeds at one ε: the data (n values in [0, 1]) is fixed, the noise is per seed."""
    n, eps = int(settings["n"]), float(point["eps"])
    data = seeding.rng(PAPER, "data", {"n": n}, 0).random(n)
    rows = []
    for seed in seeds:
        noise = seeding.rng(PAPER, "laplace", {"eps": eps, "n": n}, seed).laplace(0.0, 1.0 / (n * eps))
        rows.append({"eps": eps, "seed": int(seed), "error": abs(noise)})
    return {"runs": pd.DataFrame(rows)}


def tables(experiment, frames, settings):
    runs = frames["runs"].sort_values(["eps", "seed"]).reset_index(drop=True)
    return {"fig1": summarise(runs, ["eps"], "error", ddof=1), "fig1_runs": runs}


def data_job(experiment, point, settings, seeds, inputs):
    """The values of the instance and their mean, private at ε: mean + Laplace(1/(n·ε)) per seed."""
    meta = json.loads((Path(inputs["values"]) / "values.json").read_text())
    values = pd.read_parquet(Path(inputs["values"]) / "values.parquet")["value"].to_numpy()
    n, eps = len(values), float(point["eps"])
    rows = [{"eps": eps, "seed": int(seed), "n": n, "mean": float(values.mean()), "n_instance": meta["n"],
             "private_mean": float(values.mean() + seeding.rng(PAPER, "data", {"eps": eps, "n": n}, seed)
                                   .laplace(0.0, 1.0 / (n * eps)))} for seed in seeds]
    return {"runs": pd.DataFrame(rows)}


def data_tables(experiment, frames, settings):
    return {"data": frames["runs"].sort_values(["eps", "seed"]).reset_index(drop=True)}
