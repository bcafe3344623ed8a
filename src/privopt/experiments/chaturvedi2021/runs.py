"""Chaturvedi, Nguyen, Zakynthinou (AAAI 2021): the Uber location experiments.

Figure 1: utility versus rank r under a cardinality constraint, candidates a 5×4 grid
in a Manhattan box plus 80 copies of its north vertex, m = 100 pickups per run.
Figure 2: utility/m versus m under the partition matroid {A}, {B, C}.

Where the paper is silent or misprinted, the choices below are those of docs/papers/chaturvedi2021.md,
"Reading of the paper" (entries in brackets).  A run draws one dataset of m pickups and runs every
algorithm on it: PCG (Algorithm 1), DPG/MBKK (private greedy), non-private Greedy
and a Random basis.  Figure 2 also records the two bases {A, B} and {A, C} as
reference rows, so the claims can compare against f(AB)/m and f(AC)/m.

Diagnostics (not in the paper), recorded beside them:

* ``PCG0``: PCG with ε0 = 0 (every pick uniform, the data never looked at).
* ``E[Random]`` (both figures): the exact expected utility of a uniform basis on the run's
  dataset (:mod:`privopt.submodular.random_expectation`), what Random's sampled mean estimates.
  It is an expectation, not a set: its ``north_copies`` is −1.
* ``PCG_perm`` and ``PCG0_perm`` (Figure 1): the same fractional point as PCG (PCG0), rounded
  after a uniformly random relabelling of the elements, then mapped back.  Swap and pairwise
  rounding pair elements in index order, and the 20 grid points are elements 0–19 while the
  north-vertex copies are 20–99; the relabelled rounding has the same marginals but no index
  order to exploit.  PCG0 relabelled is exactly a uniform random basis in law.

Randomness [seeding]: the dataset of run ``seed`` comes from the stream
(figure/dataset, m, dataset id = seed // runs_per_dataset), shared by all readings,
ranks and algorithms (common random numbers); each algorithm has its own stream
keyed by (figure/reading/algorithm, parameter point, seed).  The relabelled roundings
draw the permutation and their coin flips from streams of their own
(figure/reading/PCG_perm, …/PCG0_perm), so every other algorithm's stream is the same
with or without them.  Nothing depends on job order or on how seeds are blocked into jobs.
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
from privopt.experiments.chaturvedi2021 import geometry
from privopt.pipeline.errors import ConfigError
from privopt.mechanisms import accounting
from privopt.submodular.continuous_greedy import ContinuousGreedyResult, private_continuous_greedy
from privopt.submodular.greedy import greedy, private_greedy, random_basis
from privopt.submodular.matroids import PartitionMatroid, partition_matroid, uniform_matroid
from privopt.submodular.objectives import FacilityLocation
from privopt.submodular.random_expectation import expected_random_basis_value
from privopt.submodular.rounding import pairwise_round, swap_round

PAPER = "chaturvedi2021"

# The instances (chaturvedi2021 readings R11, R13) are defined once, in privopt.experiments.chaturvedi2021.geometry.
FIG1_GRID_SIZE = 20
FIG2_LOCATIONS = geometry.FIG2_POINTS  # A, B, C
FIG2_PART_OF = (0, 1, 1)  # parts {A} and {B, C}, capacity 1 each

ALGORITHMS = ("PCG", "DPG", "Greedy", "Random", "PCG0")
#: diagnostics recorded beside the algorithms: Figure 1 has all three, Figure 2 only E[Random]
DIAGNOSTICS = ("PCG_perm", "PCG0_perm", "E[Random]")
EXACT_RANDOM = "E[Random]"
LABELS = {"PCG": "This work (PCG)", "DPG": "MBKK (DPG)", "Greedy": "Greedy", "Random": "Random",
          "PCG0": "PCG with ε0 = 0 (data-independent)", "PCG_perm": "PCG, labels permuted before rounding",
          "PCG0_perm": "PCG with ε0 = 0, labels permuted before rounding",
          "E[Random]": "Random, exact expectation per dataset"}


def fig1_locations(grid_mode: str, n_copies: int) -> pd.DataFrame:
    """20 grid points (index 5·row + col) and ``n_copies`` copies of the north vertex [chaturvedi2021 reading R11]."""
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


def continuous_point(objective: FacilityLocation, setting: Setting, gen: np.random.Generator, *,
                     data_independent: bool = False, eps0: float | None = None) -> ContinuousGreedyResult:
    """Algorithm 1 (the fractional point and its T bases) [chaturvedi2021 reading R2].

    ``data_independent=True`` runs the same algorithm with ε0 = 0: every pick is uniform
    over the candidates, so the output never looks at the data.  It is a diagnostic
    baseline (not in the paper) that separates what PCG gains from the data from what
    it gains from the structure of continuous greedy + swap rounding alone.  The scores
    do not enter the picks at ε0 = 0, so the cheap exact extension is used for them.

    ``eps0`` replaces the setting's per-step ε0 (the paper's rule) by another calibration of the same
    algorithm (Figure 1–2e, :mod:`.exact`); the random stream is consumed the same way for every ε0.
    """
    return private_continuous_greedy(
        objective.dist,
        setting.matroid,
        eta=setting.eta,
        eps0=0.0 if data_independent else (setting.pcg_eps0 if eps0 is None else float(eps0)),
        rng=gen,
        scores="exact_F" if data_independent else setting.pcg_scores,
        s=setting.s,
    )


def round_point(result: ContinuousGreedyResult, setting: Setting, gen: np.random.Generator,
                labels: np.ndarray | None = None) -> np.ndarray:
    """The setting's rounding of PCG's output (post-processing) [chaturvedi2021 reading R6], sorted element indices.

    ``labels`` (a permutation of 0..n−1; element u is called ``labels[u]``): round the relabelled
    bases (swap) or point (pairwise) under the relabelled matroid, and map the result back.  The
    rounding keeps its marginals; only which elements it pairs first (lowest label first) changes.
    """
    matroid, bases, y = setting.matroid, result.bases, result.y
    if labels is not None:
        labels = np.asarray(labels, dtype=np.int64)
        if sorted(labels.tolist()) != list(range(matroid.n)):
            raise ValueError("labels must be a permutation of the elements")
        if (bases < 0).any():
            raise ValueError("cannot relabel a missing pick (−1) of a broken round")
        part_of = np.empty_like(matroid.part_of)
        part_of[labels] = matroid.part_of
        matroid = PartitionMatroid(part_of, matroid.capacity)
        bases = labels[bases]
        y = np.empty_like(result.y)
        y[labels] = result.y
    if setting.rounding == "swap":
        chosen = swap_round(bases, result.weights, matroid, gen)
    elif setting.rounding == "pairwise":
        chosen = pairwise_round(y, matroid, gen)
    else:
        raise ValueError(f"unknown rounding {setting.rounding!r}")
    if labels is None:
        return chosen
    return np.sort(np.argsort(labels)[chosen])


def relabelled_round(result: ContinuousGreedyResult, setting: Setting, algorithm: str, seed: int) -> np.ndarray:
    """Diagnostic: ``result`` rounded after a uniform relabelling of the elements, permutation and
    coins from the stream of ``algorithm`` (``PCG_perm`` or ``PCG0_perm``)."""
    gen = _algorithm_rng(setting, algorithm, seed)
    return round_point(result, setting, gen, labels=gen.permutation(setting.matroid.n))


def run_once(objective: FacilityLocation, setting: Setting, seed: int) -> dict[str, np.ndarray]:
    """The selected set of every algorithm on one dataset (and, for Figure 1, the relabelled diagnostics)."""
    pcg_gen, pcg0_gen = _algorithm_rng(setting, "PCG", seed), _algorithm_rng(setting, "PCG0", seed)
    pcg = continuous_point(objective, setting, pcg_gen)
    pcg_set = round_point(pcg, setting, pcg_gen)
    dpg = private_greedy(objective, setting.matroid, setting.dpg_eps0, _algorithm_rng(setting, "DPG", seed))
    pcg0 = continuous_point(objective, setting, pcg0_gen, data_independent=True)
    chosen = {
        "PCG": pcg_set,
        "DPG": dpg,
        "Greedy": greedy(objective, setting.matroid),
        "Random": random_basis(setting.matroid, _algorithm_rng(setting, "Random", seed)),
        "PCG0": round_point(pcg0, setting, pcg0_gen),
    }
    if setting.figure == "fig1":
        chosen["PCG_perm"] = relabelled_round(pcg, setting, "PCG_perm", seed)
        chosen["PCG0_perm"] = relabelled_round(pcg0, setting, "PCG0_perm", seed)
    return chosen


def run_block(pool: np.ndarray, locations: np.ndarray, setting: Setting, seeds: Iterable[int], C: float) -> pd.DataFrame:
    """Tidy records (one row per run × algorithm or diagnostic) for a block of seeds at one parameter point.

    ``E[Random]`` rows hold the exact expected utility of a uniform basis on the run's dataset; as an
    expectation over bases it has ``n_selected`` = rank and ``north_copies`` = −1.
    """
    kinds = None
    rows: list[dict[str, Any]] = []
    eps0 = {"PCG": setting.pcg_eps0, "DPG": setting.dpg_eps0, "Greedy": math.nan, "Random": 0.0, "PCG0": 0.0,
            "PCG_perm": setting.pcg_eps0, "PCG0_perm": 0.0, EXACT_RANDOM: 0.0}
    if setting.figure == "fig1":
        kinds = np.arange(len(locations)) >= FIG1_GRID_SIZE  # north-vertex copies
    for seed in seeds:
        dataset, data = sample_dataset(pool, setting, int(seed))
        dist = geometry.manhattan_distance_matrix(locations, data, C)
        objective = FacilityLocation(dist)
        chosen: dict[str, np.ndarray | None] = dict(run_once(objective, setting, int(seed)))
        if setting.figure == "fig2":
            chosen["basis {A,B}"] = np.array([0, 1])
            chosen["basis {A,C}"] = np.array([0, 2])
        chosen[EXACT_RANDOM] = None  # not a set: the exact mean of Random on this dataset
        for algorithm, members in chosen.items():
            if members is None:
                value, n_selected, north = expected_random_basis_value(objective, setting.matroid), setting.matroid.rank, -1
            else:
                if not setting.matroid.is_independent(members):
                    raise AssertionError(f"{algorithm} returned a dependent set {members}")
                value, n_selected = objective.value(members), int(len(members))
                north = int(kinds[np.asarray(members, dtype=int)].sum()) if kinds is not None else None
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
                "n_selected": n_selected,
            }
            if kinds is not None:
                row["north_copies"] = north
            rows.append(row)
    return pd.DataFrame(rows)


def run_job(experiment, point: Mapping[str, Any], settings: Mapping[str, Any], seeds: Sequence[int],
            inputs: Mapping[str, str]) -> dict[str, pd.DataFrame]:
    """One run job (protocol entry point) of ``experiment`` ``fig1`` or ``fig2``: every algorithm at ``point``
    (``{"reading", "r"}`` for Figure 1, ``{"reading", "m"}`` for Figure 2) on the datasets of ``seeds``; ``inputs``
    holds the figure's instance directory (``pool.parquet``, ``instance.json``)."""
    figure = experiment.name
    directory = Path(inputs[figure])
    pool = pd.read_parquet(directory / "pool.parquet")[["lat", "lon"]].to_numpy()
    C = json.loads((directory / "instance.json").read_text())["C"]
    setting = make_setting(figure, point["reading"], point["r" if figure == "fig1" else "m"], settings)
    if setting.m > len(pool):  # refuse before any computation, naming the config key
        sample_dataset(pool, setting, 0)
    return {"runs": run_block(pool, candidate_locations(figure, settings), setting, seeds, C)}
