"""Figure 4e (new, beyond the paper; issue 39): the Gaussian variant with its node σ calibrated exactly.

Shariff & Sheffet calibrate each symmetric Gaussian node of their tree with σ = 4√m·L̃²·log(4/δ)/ε (§4.2: every node
(ε/√(8m log(2/δ)), δ/2)-DP, then composed over the m levels).  Under the paper's own model (one changed item moves
each of the m node sums it enters by at most L̃² in Frobenius norm, i.i.d. N(0, σ²) per coordinate), the m node
releases of one item are together a single Gaussian mechanism of L2 sensitivity √m·L̃², whose exact privacy profile
δ(ε) is known (the analytic Gaussian mechanism, Balle & Wang 2018).  Calibrated exactly to the paper's (ε, δ) =
(1, 0.1) at n = 5·10^7 (m = 27), σ = 11.28 suffices against the paper's 153.34
(:func:`privopt.bandits.parameters.gaussian_node_sigma_exact`).  Every bound of the learner follows the new σ
exactly as the paper derives it from σ (Υ, the shift 2Υ, ρ_min = Υ, ρ_max = 3Υ, γ;
:func:`~privopt.bandits.parameters.gaussian_params` with ``calibration="exact"``).

The variants of one (gap, δ) job, all on Experiment 2's seeds (so the paper's two curves at δ = 0.1 *are* Figure 4's
NonPrivate and Gaussian curves):

* ``nonprivate`` — the non-private learner (ρ = 1);
* ``gaussian`` — the paper's calibration at this δ;
* ``gaussian_exact`` — the path tree with the exact σ (the paper's node draws, scaled: the same noise stream);
* ``gaussian_exact_<counter>`` — the best continual counter of Figure 4c (Honaker's estimator by default) on nodes of
  the exact σ, at the same privacy (equal ‖C‖_col,2/σ, :func:`privopt.bandits.parameters.gaussian_counter`).

δ runs at the paper's 0.1 and at 1/n (``"1/n"`` in the config), so the result does not rest on δ = 0.1.

Tables (:func:`exp2e_tables`): ``fig4e`` the mean regret curve per (gap, δ, variant, t) with its 95 % bootstrap band;
``fig4e_ratio`` at :data:`privopt.experiments.shariff2018.counters.RATIO_POINTS` log-spaced recorded rounds the ratio
of each variant's mean regret to the paper calibration's, with a 95 % **paired** bootstrap interval over the seeds
(:func:`privopt.pipeline.summary.paired_ratio`), and each variant's node σ and ρ_min; ``fig4e_runs`` every run's final
regret.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from privopt import seeding
from privopt.bandits import BanditInstance, run_episodes
from privopt.bandits.parameters import BANDIT_COUNTERS, gaussian_params, nonprivate_params
from privopt.experiments.shariff2018.counters import _ratio_rounds
from privopt.experiments.shariff2018.runs import PAPER, seeds_for
from privopt.pipeline.summary import N_BOOT, paired_ratio, seed_summary

__all__ = ["ROLES", "BASELINE", "resolve_delta", "delta_name", "exp2e_variants", "exp2e_block", "exp2e_job",
           "exp2e_tables"]

#: the roles of Figure 4e's variants, in the figure's order (palette names, privopt.plotting.palette)
ROLES = ("nonprivate", "gaussian", "gaussian_exact", "gaussian_exact_counter")
#: the ratios' denominator: the paper's calibration
BASELINE = "gaussian"
#: the continual counters a Figure 4e run may take (the paper's path tree is always run)
EXACT_COUNTERS = BANDIT_COUNTERS[1:]


def resolve_delta(delta: float | str, n: int) -> float:
    """A configured δ: a number in (0, 1), or ``"1/n"`` for one over the horizon n of the constants."""
    if isinstance(delta, str):
        if delta.replace(" ", "") != "1/n":
            raise ValueError(f"delta must be a number in (0, 1) or '1/n', got {delta!r}")
        return 1.0 / int(n)
    delta = float(delta)
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    return delta


def delta_name(delta: float) -> str:
    """δ as the figure and the claims name it: below 10^-6 as one over an integer ("δ = 1/50,000,000", the paper's
    1/n), else as a number ("δ = 0.1")."""
    return f"δ = 1/{1 / delta:,.0f}" if delta < 1e-6 else f"δ = {delta:g}"


def exp2e_variants(n: int, d: int, eps: float, delta: float, counter: str = "honaker"):
    """(role, VariantParams) of one job: the non-private learner, the paper's calibration, the exact one with the
    path tree and with ``counter``."""
    if counter not in EXACT_COUNTERS:
        raise ValueError(f"counter must be one of {EXACT_COUNTERS}, got {counter!r}")
    return [("nonprivate", nonprivate_params(n, d)),
            ("gaussian", gaussian_params(n, d, eps, delta)),
            ("gaussian_exact", gaussian_params(n, d, eps, delta, calibration="exact")),
            ("gaussian_exact_counter", gaussian_params(n, d, eps, delta, counter=counter, calibration="exact"))]


def exp2e_block(gap: float, delta: float, seeds: Sequence[int], *, n: int, n_rounds: int | None = None, d: int = 5,
                eps: float = 1.0, counter: str = "honaker", rec_every: int = 5000) -> pd.DataFrame:
    """The four variants of Figure 4e on one (gap, δ), Experiment 2's seeds (module docstring): one row per (variant
    role, seed, recorded t) with the regret, the run's node σ, ρ_min, counter and Cholesky fallbacks."""
    n_rounds = n if n_rounds is None else int(n_rounds)
    roles = exp2e_variants(n, d, eps, delta, counter)
    vs = [v for _, v in roles]
    batch = run_episodes(vs, BanditInstance(d=d, gap=float(gap)), n_rounds,
                         seeds_for("exp2", {"gap": float(gap)}, seeds), labels=list(seeds), record=rec_every,
                         lockstep=True)
    role_of = {v.name: r for r, v in roles}
    meta = batch.runs[["variant", "seed", "pd_failures", "wall_s"]]
    out = batch.curves.merge(meta, on=["variant", "seed"], how="left")
    out.insert(0, "experiment", "exp2e")
    out.insert(1, "gap", float(gap))
    out.insert(2, "delta", float(delta))
    out.insert(3, "d", int(d))
    out["name"] = out["variant"]
    out["variant"] = out["variant"].map(role_of)
    out["counter"] = out["name"].map({v.name: v.counter if v.mechanism == "gaussian" else "none" for v in vs})
    out["sigma"] = out["name"].map({v.name: v.sigma_noise for v in vs})
    out["rho_min"] = out["name"].map({v.name: v.rho_min for v in vs})
    out["regret"] = out["regret"].astype(float)
    return out


def exp2e_job(experiment, point: Mapping[str, Any], settings: Mapping[str, Any], seeds: Sequence[int],
              inputs: Mapping[str, str]) -> dict[str, pd.DataFrame]:
    s = settings
    return {"runs": exp2e_block(float(point["gap"]), float(point["delta"]), seeds, n=s["n"], n_rounds=s["n_rounds"],
                                d=s["d"], eps=s["eps"], counter=s["counter"], rec_every=s["rec_every"])}


def _order(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    rank = {r: i for i, r in enumerate(ROLES)}
    return frame.sort_values(keys, key=lambda s: s.map(rank) if s.name == "variant" else s,
                             kind="stable").reset_index(drop=True)


def exp2e_tables(experiment, frames: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """``fig4e`` (curves), ``fig4e_ratio`` (paired ratios to the paper's calibration) and ``fig4e_runs`` (final
    regrets); the bootstrap streams are keyed by (gap, δ, variant, t) through :mod:`privopt.seeding`: deterministic
    tables."""
    runs = _order(frames["runs"], ["gap", "delta", "variant", "seed", "t"])
    curves = seed_summary(runs, ["gap", "delta", "variant", "t"], "regret", paper=PAPER, table="fig4e")
    rows = []
    for (gap, delta), g in runs.groupby(["gap", "delta"], sort=True):
        base_runs = g[g["variant"] == BASELINE]
        for t in _ratio_rounds(g["t"].to_numpy()):
            base = base_runs[base_runs["t"] == t].set_index("seed")["regret"]
            for role, h in g[g["t"] == t].groupby("variant", sort=False):
                mine = h.set_index("seed")
                seeds = sorted(set(mine.index) & set(base.index))
                rng = seeding.rng(PAPER, "tables/fig4e/ratio",
                                  {"gap": float(gap), "delta": float(delta), "variant": str(role), "t": int(t)}, 0)
                est, lo, hi = ((1.0, 1.0, 1.0) if role == BASELINE else
                               paired_ratio(mine.loc[seeds, "regret"].to_numpy(), base.loc[seeds].to_numpy(), rng,
                                            N_BOOT) if seeds else (math.nan,) * 3)
                rows.append({"gap": float(gap), "delta": float(delta), "variant": role,
                             "counter": str(mine["counter"].iloc[0]), "t": int(t), "n": len(seeds),
                             "mean": float(mine["regret"].mean()), "ratio": est, "ratio_lo": lo, "ratio_hi": hi,
                             "sigma": float(mine["sigma"].iloc[0]), "rho_min": float(mine["rho_min"].iloc[0]),
                             "pd_failures": int(mine["pd_failures"].sum())})
    ratio = _order(pd.DataFrame(rows), ["gap", "delta", "t", "variant"])
    last = runs.groupby(["gap", "delta", "variant", "seed"], sort=False)["t"].transform("max")
    fin = runs[runs["t"] == last][["gap", "delta", "variant", "counter", "seed", "t", "regret", "pd_failures",
                                   "sigma", "rho_min"]]
    return {"fig4e": curves, "fig4e_ratio": ratio, "fig4e_runs": fin.reset_index(drop=True)}
