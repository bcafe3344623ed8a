"""Chaturvedi, Nguyen, Zakynthinou (AAAI 2021): the Uber location experiments.

Figure 1: utility versus rank r under a cardinality constraint, candidates a 5×4 grid
in a Manhattan box plus 80 copies of its north vertex, m = 100 pickups per run.
Figure 2: utility/m versus m under the partition matroid {A}, {B, C}.

Every formula and constant below is from ``shared/specs/decomposable-submodular.md``
(sections in brackets).  A run draws one dataset of m pickups and runs every
algorithm on it: PCG (Algorithm 1), DPG/MBKK (private greedy), non-private Greedy
and a Random basis.  Figure 2 also records the two bases {A, B} and {A, C} as
reference rows, so the claims can compare against f(AB)/m and f(AC)/m.

Randomness [seeding]: the dataset of run ``seed`` comes from the stream
(figure/dataset, m, dataset id = seed // runs_per_dataset), shared by all readings,
ranks and algorithms (common random numbers); each algorithm has its own stream
keyed by (figure/reading/algorithm, parameter point, seed).  Nothing depends on
job order or on how seeds are blocked into jobs.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privopt import seeding
from privopt.data import geometry
from privopt.experiments.errors import ConfigError
from privopt.mechanisms import accounting
from privopt.submodular.continuous_greedy import private_continuous_greedy
from privopt.submodular.greedy import greedy, private_greedy, random_basis
from privopt.submodular.matroids import PartitionMatroid, partition_matroid, uniform_matroid
from privopt.submodular.objectives import FacilityLocation
from privopt.submodular.rounding import pairwise_round, swap_round

PAPER = "chaturvedi2021"

# The instances (§4.2, §4.3) are defined once, in privopt.data.geometry.
FIG1_GRID_SIZE = 20
FIG2_LOCATIONS = geometry.FIG2_POINTS  # A, B, C
FIG2_PART_OF = (0, 1, 1)  # parts {A} and {B, C}, capacity 1 each

ALGORITHMS = ("PCG", "DPG", "Greedy", "Random", "PCG0")
LABELS = {"PCG": "This work (PCG)", "DPG": "MBKK (DPG)", "Greedy": "Greedy", "Random": "Random",
          "PCG0": "PCG with ε0 = 0 (data-independent)"}


def fig1_locations(grid_mode: str, n_copies: int) -> pd.DataFrame:
    """20 grid points (index 5·row + col) and ``n_copies`` copies of the north vertex [§4.2]."""
    locs = geometry.fig1_locations(grid_mode, n_north=n_copies)
    kind = ["grid"] * FIG1_GRID_SIZE + ["north_copy"] * n_copies
    return pd.DataFrame({"element": np.arange(len(locs)), "lat": locs[:, 0], "lon": locs[:, 1], "kind": kind, "grid_mode": grid_mode})


def fig2_locations() -> pd.DataFrame:
    names = list(FIG2_LOCATIONS)
    locs = np.array([FIG2_LOCATIONS[k] for k in names])
    return pd.DataFrame({"element": np.arange(3), "lat": locs[:, 0], "lon": locs[:, 1], "kind": names, "part": FIG2_PART_OF})


def delta_for(m: int, delta_exponent: float, delta: float | None = None) -> float:
    """δ = 1/m^1.5 in both figures [PAPER], unless a fixed δ is configured."""
    return float(delta) if delta is not None else float(m) ** (-float(delta_exponent))


@dataclass(frozen=True)
class Setting:
    """Everything one run needs besides the seed."""

    figure: str
    reading: str
    point: int  # r for Figure 1, m for Figure 2
    m: int
    matroid: PartitionMatroid
    eps: float
    delta: float
    rounds: int
    pcg_scores: str
    s: int
    pcg_eps0_rule: str
    dpg_eps0_rule: str
    rounding: str
    runs_per_dataset: int

    @property
    def eta(self) -> float:
        return 1.0 / self.rounds

    @property
    def pcg_eps0(self) -> float:
        return accounting.pcg_eps0(self.eps, self.delta, rule=self.pcg_eps0_rule)

    @property
    def dpg_eps0(self) -> float:
        return accounting.dpg_eps0(self.eps, self.delta, self.matroid.rank, rule=self.dpg_eps0_rule)

    def key(self) -> dict[str, Any]:
        return {"point": self.point}


def make_setting(figure: str, reading: str, point: int, settings: Mapping[str, Any]) -> Setting:
    """The run setting of one parameter point from the settings a run job reads.

    ``settings`` (the whitelist of :mod:`.paper`): ``eps``, ``delta_exponent``, ``delta``,
    ``runs_per_dataset``, the reading's keys (``rounds``, ``pcg_scores``, ``s``, ``pcg_eps0_rule``,
    ``dpg_eps0_rule``, ``rounding``; ``grid_mode`` for Figure 1) and, for Figure 1, ``m`` and ``n_copies``.
    """
    if figure == "fig1":
        m = int(settings["m"])
        matroid = uniform_matroid(FIG1_GRID_SIZE + int(settings["n_copies"]), int(point))
    elif figure == "fig2":
        m = int(point)
        matroid = partition_matroid(FIG2_PART_OF, (1, 1))
    else:
        raise ValueError(f"unknown figure {figure!r}")
    return Setting(
        figure=figure,
        reading=reading,
        point=int(point),
        m=m,
        matroid=matroid,
        eps=float(settings["eps"]),
        delta=delta_for(m, settings["delta_exponent"], settings.get("delta")),
        rounds=int(settings["rounds"]),
        pcg_scores=str(settings["pcg_scores"]),
        s=int(settings["s"]),
        pcg_eps0_rule=str(settings["pcg_eps0_rule"]),
        dpg_eps0_rule=str(settings["dpg_eps0_rule"]),
        rounding=str(settings["rounding"]),
        runs_per_dataset=int(settings.get("runs_per_dataset", 1)),
    )


def candidate_locations(figure: str, settings: Mapping[str, Any]) -> np.ndarray:
    """(n, 2) lat/lon of the candidates a run of ``figure`` chooses from."""
    if figure == "fig1":
        return fig1_locations(settings["grid_mode"], int(settings["n_copies"]))[["lat", "lon"]].to_numpy()
    return fig2_locations()[["lat", "lon"]].to_numpy()


def sample_dataset(pool: np.ndarray, setting: Setting, seed: int) -> tuple[int, np.ndarray]:
    """Dataset id and the m pickups (rows of ``pool``) of run ``seed``, uniformly without replacement."""
    if setting.m > len(pool):
        key = "chaturvedi2021.fig1.m" if setting.figure == "fig1" else "chaturvedi2021.fig2.ms"
        raise ConfigError(f"config key {key}: m = {setting.m} exceeds the {len(pool)} pickups inside the "
                          f"{setting.figure} box")
    dataset = seed // setting.runs_per_dataset
    gen = seeding.rng(PAPER, f"{setting.figure}/dataset", {"m": setting.m}, dataset)
    idx = gen.choice(len(pool), size=setting.m, replace=False)
    return dataset, pool[idx]


def _algorithm_rng(setting: Setting, algorithm: str, seed: int) -> np.random.Generator:
    return seeding.rng(PAPER, f"{setting.figure}/{setting.reading}/{algorithm}", setting.key(), seed)


def run_pcg(objective: FacilityLocation, setting: Setting, gen: np.random.Generator, *, data_independent: bool = False) -> np.ndarray:
    """Algorithm 1 then rounding (post-processing) [§2.2, §2.6].

    ``data_independent=True`` runs the same algorithm with ε0 = 0: every pick is uniform
    over the candidates, so the output never looks at the data.  It is a diagnostic
    baseline (not in the paper) that separates what PCG gains from the data from what
    it gains from the structure of continuous greedy + swap rounding alone.  The scores
    do not enter the picks at ε0 = 0, so the cheap exact extension is used for them.
    """
    result = private_continuous_greedy(
        objective.dist,
        setting.matroid,
        eta=setting.eta,
        eps0=0.0 if data_independent else setting.pcg_eps0,
        rng=gen,
        scores="exact_F" if data_independent else setting.pcg_scores,
        s=setting.s,
    )
    if setting.rounding == "swap":
        return swap_round(result.bases, result.weights, setting.matroid, gen)
    if setting.rounding == "pairwise":
        return pairwise_round(result.y, setting.matroid, gen)
    raise ValueError(f"unknown rounding {setting.rounding!r}")


def run_once(objective: FacilityLocation, setting: Setting, seed: int) -> dict[str, np.ndarray]:
    """The selected set of every algorithm on one dataset."""
    return {
        "PCG": run_pcg(objective, setting, _algorithm_rng(setting, "PCG", seed)),
        "DPG": private_greedy(objective, setting.matroid, setting.dpg_eps0, _algorithm_rng(setting, "DPG", seed)),
        "Greedy": greedy(objective, setting.matroid),
        "Random": random_basis(setting.matroid, _algorithm_rng(setting, "Random", seed)),
        "PCG0": run_pcg(objective, setting, _algorithm_rng(setting, "PCG0", seed), data_independent=True),
    }


def run_block(pool: np.ndarray, locations: np.ndarray, setting: Setting, seeds: Iterable[int], C: float) -> pd.DataFrame:
    """Tidy records (one row per run × algorithm) for a block of seeds at one parameter point."""
    kinds = None
    rows: list[dict[str, Any]] = []
    eps0 = {"PCG": setting.pcg_eps0, "DPG": setting.dpg_eps0, "Greedy": math.nan, "Random": 0.0, "PCG0": 0.0}
    if setting.figure == "fig1":
        kinds = np.arange(len(locations)) >= FIG1_GRID_SIZE  # north-vertex copies
    for seed in seeds:
        dataset, data = sample_dataset(pool, setting, int(seed))
        dist = geometry.manhattan_distance_matrix(locations, data, C)
        objective = FacilityLocation(dist)
        chosen = run_once(objective, setting, int(seed))
        if setting.figure == "fig2":
            chosen["basis {A,B}"] = np.array([0, 1])
            chosen["basis {A,C}"] = np.array([0, 2])
        for algorithm, members in chosen.items():
            if not setting.matroid.is_independent(members):
                raise AssertionError(f"{algorithm} returned a dependent set {members}")
            value = objective.value(members)
            row = {
                "figure": setting.figure,
                "reading": setting.reading,
                "point": setting.point,
                "r": setting.matroid.rank,
                "m": setting.m,
                "seed": int(seed),
                "dataset": dataset,
                "algorithm": algorithm,
                "utility": value,
                "utility_per_m": value / setting.m,
                "eps0": eps0.get(algorithm, math.nan),
                "eps": setting.eps,
                "delta": setting.delta,
                "rounds": setting.rounds,
                "s": setting.s if setting.pcg_scores == "G" else 0,
                "pcg_scores": setting.pcg_scores,
                "n_selected": int(len(members)),
            }
            if kinds is not None:
                row["north_copies"] = int(kinds[np.asarray(members, dtype=int)].sum())
            rows.append(row)
    return pd.DataFrame(rows)


def run_job(point: Mapping[str, Any], settings: Mapping[str, Any], seeds: Sequence[int],
            inputs: Mapping[str, str]) -> dict[str, pd.DataFrame]:
    """One run job (protocol entry point): every algorithm at ``point`` (``{"reading", "r"}`` for
    Figure 1, ``{"reading", "m"}`` for Figure 2) on the datasets of ``seeds``; ``inputs`` holds the
    figure's instance directory (``pool.parquet``, ``instance.json``)."""
    figure = "fig1" if "r" in point else "fig2"
    directory = Path(inputs[figure])
    pool = pd.read_parquet(directory / "pool.parquet")[["lat", "lon"]].to_numpy()
    C = json.loads((directory / "instance.json").read_text())["C"]
    setting = make_setting(figure, point["reading"], point["r" if figure == "fig1" else "m"], settings)
    if setting.m > len(pool):  # refuse before any computation, naming the config key
        sample_dataset(pool, setting, 0)
    return {"runs": run_block(pool, candidate_locations(figure, settings), setting, seeds, C)}
