"""Shariff & Sheffet (2018): instances, variants and blocks of runs of Figures 1–5 (shariff2018 readings R13–R18).

All algorithmic work is done by :mod:`privopt.bandits`; this module only builds the instances
and variants of each experiment, keys the random streams and returns tidy frames.

Randomness: every run's streams come from ``privopt.seeding.seed_sequence(PAPER, experiment,
params, seed)`` where ``params`` holds only what defines the *environment* of the run:

* Exp. 1 (Figs. 2–3): ``{"reward", "d"}``;
* Exp. 2 (Fig. 4): ``{"gap"}`` — all four variants of a seed see the same θ*, decision sets and
  reward coins (common random numbers, :func:`privopt.bandits.run_episodes`);
* Exp. 3 (Fig. 5): ``{"gap"}`` — every ρ_min grid point and both mechanisms share the environment,
  and the Wishart grid points also share their noise matrices.

Lockstep (issue 14): the variants of an Exp. 2 or Exp. 3 block run together, seed by seed
(:func:`privopt.bandits.episodes.run_lockstep`): each round's decision set and reward coin are drawn
once, each noise group's tree noise once, and every variant is updated — exactly the records of
running them one by one (``wall_s`` is the group's time shared among its variants).  Exp. 1 stays per
variant: its streams are keyed by the reward model as well as d, so its two reward models do not
share arms (sharing them would change the keying, hence every Exp. 1 table).

Quick scale (shariff2018 reading R19): constants always use the full horizon ``n``; only ``n_rounds ≤ n`` rounds
are simulated, so a quick curve is an exact prefix of the paper-scale curve.

Audit (claims S.1/S.2 of shariff2018 reading R20): an Exp. 2 block can also audit a random sample of rounds of
every run (:func:`exp2_block_with_audit`); the sample comes from the run's own audit stream
(:func:`privopt.bandits.sample_audit_rounds`), which the learner never reads, so the regret
records are the same with and without the audit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from privopt import seeding
from privopt.bandits import (
    BanditInstance,
    params_for_rho_min,
    rho_min_grid,
    run_episodes,
    sample_decision_set,
    variant_params,
    wishart_params,
    gaussian_params,
)

PAPER = "shariff2018"

VARIANTS = ("nonprivate", "gaussian", "wishart", "wishart_unshifted")
LABELS = {"nonprivate": "NonPrivate", "gaussian": "Gaussian", "wishart": "Wishart",
          "wishart_unshifted": "WishartUnshifted"}
MECHANISMS = ("wishart", "gaussian")

#: per-run metadata kept beside every curve point
RUN_COLUMNS = ("pd_failures", "n_optimal", "wall_s")

#: columns of an Exp. 2 audit table: one row per (gap, variant, seed, audited round t), the measured
#: quantities of :data:`privopt.bandits.episodes.AUDIT_COLUMNS` and the variant's bounds (ρ_min, ρ_max, γ)
AUDIT_TABLE_COLUMNS = ("gap", "variant", "mechanism", "seed", "t", "lambda_min_H", "lambda_max_H", "h_norm_Hinv",
                       "conf_norm_V", "beta", "logdet_V", "rho_min", "rho_max", "gamma")


def seeds_for(experiment: str, params: dict, seeds: Sequence[int]) -> list[np.random.SeedSequence]:
    return [seeding.seed_sequence(PAPER, experiment, params, int(s)) for s in seeds]


def _tidy(batch, **columns) -> pd.DataFrame:
    meta = batch.runs[["variant", "seed", *RUN_COLUMNS]]
    out = batch.curves.merge(meta, on=["variant", "seed"], how="left")
    for i, (k, v) in enumerate(columns.items()):
        out.insert(i, k, v)
    out["regret"] = out["regret"].astype(float)
    return out


# ----------------------------------------------------------------------------- Figure 1


def decision_set(d: int = 3, K: int = 1000, gap: float = 0.1, seed: int = 0, theta=None) -> pd.DataFrame:
    """One decision set of the common generator (shariff2018 reading R16): rows kind = optimal | action | theta."""
    theta = np.ones(d) / math.sqrt(d) if theta is None else np.asarray(theta, dtype=float)
    rng = seeding.rng(PAPER, "fig1", {"d": d, "K": K, "gap": float(gap)}, seed)
    arms, means, j_opt = sample_decision_set(rng, theta, K, gap=gap)
    kind = np.where(np.arange(K) == j_opt, "optimal", "action")
    cols = {f"x{i}": arms[:, i] for i in range(d)}
    frame = pd.DataFrame({"kind": kind, **cols, "mean": means})
    th = pd.DataFrame({"kind": ["theta"], **{f"x{i}": [theta[i]] for i in range(d)}, "mean": [1.0]})
    return pd.concat([frame, th], ignore_index=True)


# ----------------------------------------------------------------------------- Experiment 1


def exp1_block(reward: str, d: int, seeds: Sequence[int], *, n: int, n_rounds: int | None = None,
               gap: float = 0.1, rec_every: int = 1000) -> pd.DataFrame:
    """Non-private LinUCB (ρ = 1) on d-dimensional instances, K = d² (shariff2018 readings R14, R15)."""
    n_rounds = n if n_rounds is None else int(n_rounds)
    variant = variant_params("nonprivate", n, d)
    instance = BanditInstance(d=d, gap=gap, reward=reward)
    ss = seeds_for("exp1", {"reward": reward, "d": int(d)}, seeds)
    batch = run_episodes([variant], instance, n_rounds, ss, labels=list(seeds), record=rec_every)
    return _tidy(batch, experiment="exp1", reward=reward, d=int(d), gap=float(gap))


# ----------------------------------------------------------------------------- Experiment 2


def exp2_variants(n: int, d: int, eps: float, delta: float, *, gamma_rule: str = "prop9", k_rule: str = "paper",
                  names: Sequence[str] = VARIANTS):
    return [variant_params(v, n, d, eps, delta, gamma_rule=gamma_rule, k_rule=k_rule) for v in names]


def exp2_block(gap: float, seeds: Sequence[int], *, n: int, n_rounds: int | None = None, d: int = 5,
               eps: float = 1.0, delta: float = 0.1, variants: Sequence[str] = VARIANTS,
               gamma_rule: str = "prop9", k_rule: str = "paper", rec_every: int = 5000) -> pd.DataFrame:
    """The four variants of Fig. 4 on one gap, common random numbers per seed (shariff2018 reading R17)."""
    return exp2_block_with_audit(gap, seeds, n=n, n_rounds=n_rounds, d=d, eps=eps, delta=delta, variants=variants,
                                 gamma_rule=gamma_rule, k_rule=k_rule, rec_every=rec_every, audit_rounds=0)[0]


def empty_audit() -> pd.DataFrame:
    """An audit table with no rows (the columns and dtypes of :data:`AUDIT_TABLE_COLUMNS`)."""
    types = {"gap": float, "variant": object, "mechanism": object, "seed": np.int64, "t": np.int64}
    return pd.DataFrame({c: pd.Series(dtype=types.get(c, float)) for c in AUDIT_TABLE_COLUMNS})


def exp2_block_with_audit(gap: float, seeds: Sequence[int], *, n: int, n_rounds: int | None = None, d: int = 5,
                          eps: float = 1.0, delta: float = 0.1, variants: Sequence[str] = VARIANTS,
                          gamma_rule: str = "prop9", k_rule: str = "paper", rec_every: int = 5000,
                          audit_rounds: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`exp2_block` plus the audit of ``audit_rounds`` random rounds of every run (0 = none).

    Returns ``(records, audit)``; ``records`` is exactly what :func:`exp2_block` returns (the
    audit draws from its own stream and changes no decision), ``audit`` has the columns
    :data:`AUDIT_TABLE_COLUMNS` (no rows when ``audit_rounds`` is 0).
    """
    n_rounds = n if n_rounds is None else int(n_rounds)
    vs = exp2_variants(n, d, eps, delta, gamma_rule=gamma_rule, k_rule=k_rule, names=variants)
    instance = BanditInstance(d=d, gap=float(gap))
    ss = seeds_for("exp2", {"gap": float(gap)}, seeds)
    batch = run_episodes(vs, instance, n_rounds, ss, labels=list(seeds), record=rec_every,
                         audit_sample=int(audit_rounds) if audit_rounds else None, lockstep=True)
    records = _tidy(batch, experiment="exp2", gap=float(gap), d=int(d))
    if not audit_rounds or batch.audits is None or batch.audits.empty:
        return records, empty_audit()
    audit = batch.audits.copy()
    audit.insert(0, "gap", float(gap))
    by_name = {v.name: v for v in vs}
    audit.insert(2, "mechanism", audit["variant"].map({k: v.mechanism for k, v in by_name.items()}))
    for bound in ("rho_min", "rho_max", "gamma"):
        audit[bound] = audit["variant"].map({k: float(getattr(v, bound)) for k, v in by_name.items()})
    audit["seed"] = audit["seed"].astype(np.int64)
    audit["t"] = audit["t"].astype(np.int64)
    return records, audit[list(AUDIT_TABLE_COLUMNS)].reset_index(drop=True)


# ----------------------------------------------------------------------------- Experiment 3


def exp3_grid(n: int, d: int, eps: float, delta: float, *, k_rule: str = "paper", rho_grid=None) -> list[float]:
    """The ρ_min grid of Fig. 5: the construction of shariff2018 reading R18 (9 points) unless values are given."""
    if rho_grid:
        return [float(r) for r in rho_grid]
    return [float(r) for r in rho_min_grid(n, d, eps, delta, k_rule=k_rule)]


def default_rho(mechanism: str, n: int, d: int, eps: float, delta: float, *, k_rule: str = "paper") -> dict:
    """Dotted lines of Fig. 5: shifted defaults (Υ, ρ'_min) and the unshifted Wishart ρ_min."""
    if mechanism == "gaussian":
        return {"shifted Gaussian": gaussian_params(n, d, eps, delta).rho_min}
    return {"shifted Wishart": wishart_params(n, d, eps, delta, shifted=True, k_rule=k_rule).rho_min,
            "unshifted Wishart": wishart_params(n, d, eps, delta, shifted=False, k_rule=k_rule).rho_min}


def exp3_block(mechanism: str, gap: float, seeds: Sequence[int], *, n: int, n_rounds: int | None = None,
               d: int = 5, eps: float = 1.0, delta: float = 0.1, k_rule: str = "paper", rho_grid=None,
               rec_points: int = 10) -> pd.DataFrame:
    """One mechanism at every ρ_min of the grid on one gap (shariff2018 reading R18)."""
    n_rounds = n if n_rounds is None else int(n_rounds)
    grid = exp3_grid(n, d, eps, delta, k_rule=k_rule, rho_grid=rho_grid)
    vs = [params_for_rho_min(mechanism, rho, n, d, eps, delta, k_rule=k_rule, name=f"{mechanism}@{i}")
          for i, rho in enumerate(grid)]
    instance = BanditInstance(d=d, gap=float(gap))
    ss = seeds_for("exp3", {"gap": float(gap)}, seeds)
    batch = run_episodes(vs, instance, n_rounds, ss, labels=list(seeds),
                         record=max(1, n_rounds // max(1, int(rec_points))), lockstep=True)
    out = _tidy(batch, experiment="exp3", mechanism=mechanism, gap=float(gap), d=int(d))
    rho_of = {v.name: v.rho_min for v in vs}
    out.insert(3, "rho_min", out["variant"].map(rho_of).astype(float))
    return out


# ----------------------------------------------------------------------------- protocol entry points
# run(experiment, point, settings, seeds, inputs) -> {output: frame}; settings = the whitelist of .paper


def fig1_job(experiment, point: Mapping[str, Any], settings: Mapping[str, Any], seeds: Sequence[int],
             inputs: Mapping[str, str]) -> dict[str, pd.DataFrame]:
    """Figure 1: the decision set of seed ``settings["seed"] + s`` (one run, s = 0)."""
    frames = [decision_set(d=settings["d"], K=settings["K"], gap=settings["gap"], seed=settings["seed"] + int(s))
              for s in seeds]
    return {"runs": pd.concat(frames, ignore_index=True)}


def exp1_job(experiment, point, settings, seeds, inputs) -> dict[str, pd.DataFrame]:
    return {"runs": exp1_block(point["reward"], int(point["d"]), seeds, n=settings["n"], n_rounds=settings["n_rounds"],
                               gap=settings["gap"], rec_every=settings["rec_every"])}


def exp2_job(experiment, point, settings, seeds, inputs) -> dict[str, pd.DataFrame]:
    s = settings
    records, audit = exp2_block_with_audit(
        float(point["gap"]), seeds, n=s["n"], n_rounds=s["n_rounds"], d=s["d"], eps=s["eps"], delta=s["delta"],
        variants=s["variants"], gamma_rule=s["wishart_gamma_rule"], k_rule=s["k_rule"], rec_every=s["rec_every"],
        audit_rounds=s["audit_rounds"])
    return {"runs": records, "audit": audit}


def exp3_job(experiment, point, settings, seeds, inputs) -> dict[str, pd.DataFrame]:
    s = settings
    return {"runs": exp3_block(point["mechanism"], float(point["gap"]), seeds, n=s["n"], n_rounds=s["n_rounds"],
                               d=s["d"], eps=s["eps"], delta=s["delta"], k_rule=s["k_rule"], rho_grid=s["rho_grid"],
                               rec_points=s["rec_points"])}
