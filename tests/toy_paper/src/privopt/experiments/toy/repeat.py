"""The toy paper's second experiment: the mean answered k times, each answer with ε0 = ε/k (basic
composition), the k answers averaged; its error² is 2k/(n·ε)² on average."""

import pandas as pd

from privopt import seeding
from privopt.mechanisms.accounting import dpg_eps0_basic
from privopt.pipeline.summary import summarise

PAPER = "toy"


def run_job(experiment, point, settings, seeds, inputs):
    n, eps, k = int(settings["n"]), float(settings["eps"]), int(point["k"])
    eps0 = dpg_eps0_basic(eps, k)
    rows = []
    for seed in seeds:
        noise = seeding.rng(PAPER, "repeat", {"eps": eps, "k": k, "n": n}, seed).laplace(0.0, 1.0 / (n * eps0), size=k)
        rows.append({"k": k, "seed": int(seed), "sq_error": float(noise.mean()) ** 2})
    return {"runs": pd.DataFrame(rows)}


def tables(experiment, frames, settings):
    runs = frames["runs"].sort_values(["k", "seed"]).reset_index(drop=True)
    return {"fig2": summarise(runs, ["k"], "sq_error", ddof=1)}
