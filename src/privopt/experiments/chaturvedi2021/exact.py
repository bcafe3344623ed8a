"""Figure 1–2e (new, beyond the paper; issue 39): DPG and PCG with their per-step ε0 from exact composition.

Both private algorithms of Chaturvedi et al. are sequences of exponential mechanisms P(u) ∝ exp(ε0·q(u)/2) on
scores of sensitivity 1 (chaturvedi2021 readings R5, R8): DPG makes r = rank(M) picks, PCG makes T·r (T = 1/η
rounds of r picks).  The paper sets ε0 by its own rules (:mod:`privopt.mechanisms.accounting`: DPG ε/r in
Figure 1 and the rank-free "improved" rule in Figure 2; PCG the rank- and step-free "split" rule of Thm 3.9).
Here the same algorithms run with ε0 set by the exact accountant of
:mod:`privopt.mechanisms.exact_accounting` for the paper's own (ε, δ) (chaturvedi2021 reading R20):

* ``exactDP`` — the largest ε0 whose optimal composition of ``steps`` ε0-DP mechanisms is (ε, δ)-DP
  (Kairouz, Oh & Viswanath 2015; :func:`~privopt.mechanisms.exact_accounting.pure_dp_eps0`).  This holds for
  adaptive composition, so it certifies both algorithms (each step's scores depend on the earlier picks).
* ``exactBR`` — the largest ε0 whose optimal composition of ``steps`` ε0-bounded-range mechanisms (the
  exponential mechanism's class) is (ε, δ)-DP (Dong, Durfee & Rogers 2020;
  :func:`~privopt.mechanisms.exact_accounting.br_eps0`).  DDR's formula is the optimum for *non-adaptive*
  composition, and they show adaptivity can cost more, so for DPG and PCG it is an optimistic bound: the
  exact adaptive ε0 lies between exactDP and exactBR.  It says how much tight accounting could buy at most.

The generic accountant knows only the step count, not the decomposability the paper's improved DPG rule and PCG's
Thm 3.9 exploit, so an exact ε0 can come out *below* the paper's (PCG at large T·r): the figure shows it either way.

Pairing.  A run is the paper's run of Figure 1 or 2 at the same reading, point and seed: the dataset comes from
the same stream (:func:`.runs.sample_dataset`) and every variant of an algorithm draws from that algorithm's own
stream (``<figure>/<reading>/PCG`` or ``…/DPG``), so ``PCG`` and ``DPG`` here are row for row Figures 1–2's and
each exact variant differs from them only in ε0 (common random numbers: the same Gumbel variates, proxy samples
and rounding coins).

Tables (:func:`exact_tables`): ``fig12e`` mean utility per (figure, reading, point, algorithm) with ε0;
``fig12e_ratio`` per (figure, reading, point, algorithm, accountant) the ratio of mean utility at the exact ε0
to the paper's, with a 95 % paired-bootstrap interval over the runs
(:func:`privopt.pipeline.summary.paired_ratio`); ``fig12e_runs`` every run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privopt import seeding
from privopt.experiments.chaturvedi2021 import geometry
from privopt.experiments.chaturvedi2021.runs import (PAPER, Setting, _algorithm_rng, candidate_locations,
                                                     continuous_point, make_setting, round_point, sample_dataset)
from privopt.experiments.chaturvedi2021.tables import VALUE
from privopt.mechanisms import exact_accounting as ea
from privopt.pipeline.summary import N_BOOT, paired_ratio, summarise
from privopt.submodular.continuous_greedy import num_rounds
from privopt.submodular.greedy import greedy, private_greedy
from privopt.submodular.objectives import FacilityLocation

__all__ = ["FAMILIES", "ACCOUNTANTS", "ALGORITHMS", "variant", "steps", "exact_eps0", "eps0_of", "exact_block",
           "exact_job", "exact_tables"]

#: the private algorithms recalibrated
FAMILIES = ("PCG", "DPG")
#: the exact accountants, in the order of the figure: certified (adaptive) first, then the non-adaptive optimum
ACCOUNTANTS = ("exactDP", "exactBR")
#: every algorithm a run records, in the figure's order
ALGORITHMS = ("PCG", "PCG_exactDP", "PCG_exactBR", "DPG", "DPG_exactDP", "DPG_exactBR", "Greedy")


def variant(family: str, accountant: str) -> str:
    """The algorithm name of ``family`` run with the ε0 of ``accountant`` (``"PCG_exactDP"`` …)."""
    return f"{family}_{accountant}"


def steps(setting: Setting, family: str) -> int:
    """Exponential-mechanism steps of one run: r for DPG, T·r for PCG (T = 1/η rounds)."""
    r = setting.matroid.rank
    if family == "DPG":
        return r
    if family == "PCG":
        return num_rounds(setting.eta) * r
    raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")


def exact_eps0(eps: float, delta: float, k: int, accountant: str) -> float:
    """The largest per-step ε0 whose exact composition over k exponential-mechanism steps is (ε, δ)-DP."""
    if accountant == "exactDP":
        return ea.pure_dp_eps0(eps, delta, k)
    if accountant == "exactBR":
        return ea.br_eps0(eps, delta, k)
    raise ValueError(f"accountant must be one of {ACCOUNTANTS}, got {accountant!r}")


def eps0_of(setting: Setting) -> dict[str, float]:
    """Every algorithm's per-step ε0 at ``setting`` (Greedy: NaN, not private)."""
    out = {"PCG": setting.pcg_eps0, "DPG": setting.dpg_eps0, "Greedy": math.nan}
    for family in FAMILIES:
        k = steps(setting, family)
        for acc in ACCOUNTANTS:
            out[variant(family, acc)] = exact_eps0(setting.eps, setting.delta, k, acc)
    return out


def _chosen(objective: FacilityLocation, setting: Setting, eps0: Mapping[str, float], seed: int) -> dict:
    chosen = {}
    for name in ("PCG", *(variant("PCG", a) for a in ACCOUNTANTS)):
        gen = _algorithm_rng(setting, "PCG", seed)  # the paper's PCG stream for every calibration
        chosen[name] = round_point(continuous_point(objective, setting, gen, eps0=eps0[name]), setting, gen)
    for name in ("DPG", *(variant("DPG", a) for a in ACCOUNTANTS)):
        chosen[name] = private_greedy(objective, setting.matroid, eps0[name], _algorithm_rng(setting, "DPG", seed))
    chosen["Greedy"] = greedy(objective, setting.matroid)
    return chosen


def exact_block(pool: np.ndarray, locations: np.ndarray, setting: Setting, seeds: Sequence[int],
                C: float) -> pd.DataFrame:
    """One row per (run, algorithm of :data:`ALGORITHMS`): utility, utility/m, the ε0 used and its step count."""
    eps0 = eps0_of(setting)
    k = {name: (steps(setting, name.split("_")[0]) if name != "Greedy" else 0) for name in ALGORITHMS}
    rows = []
    for seed in seeds:
        dataset, data = sample_dataset(pool, setting, int(seed))
        objective = FacilityLocation(geometry.manhattan_distance_matrix(locations, data, C))
        for name, members in _chosen(objective, setting, eps0, int(seed)).items():
            if not setting.matroid.is_independent(members):
                raise AssertionError(f"{name} returned a dependent set {members}")
            value = objective.value(members)
            rows.append({"figure": setting.figure, "reading": setting.reading, "point": setting.point,
                         "r": setting.matroid.rank, "m": setting.m, "seed": int(seed), "dataset": dataset,
                         "algorithm": name, "utility": value, "utility_per_m": value / setting.m, "eps0": eps0[name],
                         "steps": k[name], "eps": setting.eps, "delta": setting.delta})
    return pd.DataFrame(rows)


def exact_job(experiment, point: Mapping[str, Any], settings: Mapping[str, Any], seeds: Sequence[int],
              inputs: Mapping[str, str]) -> dict[str, pd.DataFrame]:
    """One run job (protocol entry point): ``point`` = {figure, reading, point (r or m)}; ``settings`` as a run
    job of that figure reads them (:mod:`.paper`); ``inputs`` holds both figures' instance directories."""
    figure = str(point["figure"])
    directory = Path(inputs[figure])
    pool = pd.read_parquet(directory / "pool.parquet")[["lat", "lon"]].to_numpy()
    C = json.loads((directory / "instance.json").read_text())["C"]
    setting = make_setting(figure, str(point["reading"]), int(point["point"]), settings)
    if setting.m > len(pool):  # refuse before any computation, naming the config key
        sample_dataset(pool, setting, 0)
    return {"runs": exact_block(pool, candidate_locations(figure, settings), setting, seeds, C)}


def _order(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    rank = {a: i for i, a in enumerate(ALGORITHMS)}
    return frame.sort_values(keys, key=lambda s: s.map(rank) if s.name == "algorithm" else s,
                             kind="stable").reset_index(drop=True)


def exact_tables(experiment, frames: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """``fig12e`` (means), ``fig12e_ratio`` (paired ratios to the paper's ε0) and ``fig12e_runs`` (every run); the
    bootstrap streams are keyed by (figure, reading, point, algorithm): deterministic tables."""
    runs = _order(frames["runs"], ["figure", "reading", "point", "seed", "algorithm"])
    parts = []
    for figure, g in runs.groupby("figure", sort=True):
        value = VALUE[str(figure)]
        table = summarise(g, ["figure", "reading", "point", "algorithm"], value)
        first = g.groupby(["figure", "reading", "point", "algorithm"], sort=True)[["eps0", "steps"]].first()
        table = table.merge(first.reset_index(), on=["figure", "reading", "point", "algorithm"])
        table.insert(4, "value", value)
        parts.append(table)
    summary = _order(pd.concat(parts, ignore_index=True), ["figure", "reading", "point", "algorithm"])
    rows = []
    for (figure, reading, point), g in runs.groupby(["figure", "reading", "point"], sort=True):
        wide = g.pivot(index="seed", columns="algorithm", values="utility")
        e0 = g.groupby("algorithm")["eps0"].first()
        for family in FAMILIES:
            for acc in ACCOUNTANTS:
                name = variant(family, acc)
                if family not in wide or name not in wide:
                    continue
                pair = wide[[name, family]].dropna()
                rng = seeding.rng(PAPER, "tables/fig12e/ratio", {"figure": str(figure), "reading": str(reading),
                                                                 "point": int(point), "algorithm": name}, 0)
                est, lo, hi = (paired_ratio(pair[name].to_numpy(), pair[family].to_numpy(), rng, N_BOOT)
                               if len(pair) else (math.nan,) * 3)
                rows.append({"figure": figure, "reading": reading, "point": int(point), "family": family,
                             "accountant": acc, "algorithm": name, "n": len(pair),
                             "steps": int(g.loc[g["algorithm"] == name, "steps"].iloc[0]),
                             "eps0_paper": float(e0[family]), "eps0_exact": float(e0[name]),
                             "eps0_ratio": float(e0[name] / e0[family]),
                             "mean_paper": float(pair[family].mean()), "mean_exact": float(pair[name].mean()),
                             "ratio": est, "ratio_lo": lo, "ratio_hi": hi})
    ratio = pd.DataFrame(rows)
    return {"fig12e": summary, "fig12e_ratio": ratio, "fig12e_runs": runs}
