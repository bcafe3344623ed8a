"""Figure 4c (new, beyond the paper; issue 27): the Gaussian variant of Fig. 4 with each continual counter.

Shariff & Sheffet's Gaussian variant releases, before round t, the Gram statistics of rounds 1 … t − 1 plus the
sum of the m symmetric Gaussian nodes on the path of a binary tree (all m levels, every round: the "path tree").
Here the same learner takes its noise from each Gaussian continual counter of :mod:`privopt.mechanisms.counting`
instead (:func:`privopt.bandits.parameters.gaussian_params`, ``counter=``), all at **the paper's privacy**: each
release is a post-processing of C x + Z with i.i.d. symmetric Gaussian node matrices Z, so equal ‖C‖_col,2/σ gives
the same Gaussian-mechanism μ, whatever the paper's σ certifies (the path tree puts each item in m nodes):

* ``path`` — the paper's (σ_noise = 4√m·L̃²·log(4/δ)/ε, every release m·σ² per off-diagonal entry);
* ``tree`` — the dyadic binary mechanism on the same nodes: popcount(t − 1) nodes per release, σ·√(L/m) with
  L = bit_length(n) node levels per item (L = m − 1 for n = 5·10^7);
* ``honaker`` — Honaker's streaming estimator on that tree, the same σ (post-processing);
* ``smooth`` — Andersson & Pagh's smooth binary mechanism, σ·√((h − k)/m), variance k·σ² at every t.

The learner's bounds follow each counter's worst entry variance over the horizon n (shariff2018 reading R10 with
s = max_t sd N_ij(t); docs/continual-counting.md §3): Υ, the shift 2Υ, ρ_min = Υ, ρ_max = 3Υ and γ ∝ √s.  The
square-root factorisation is not run: its state grows with its band count, which would have to approach
n = 5·10^7 to beat the tree (a banded one's error grows like t/b² beyond t ≈ b²).

Paired design: the runs use Experiment 2's seeds (:func:`privopt.experiments.shariff2018.runs.seeds_for` with
``("exp2", {"gap"})``), so every counter and Figure 4 see the same θ*, decision sets and reward coins, and the
``path`` runs *are* Figure 4's Gaussian runs (tests/test_shariff2018_counters.py); each counter draws its nodes
from a stream of its own (:func:`privopt.bandits.streams.episode_streams`).  All counters of a seed run in
lockstep (:func:`privopt.bandits.episodes.run_lockstep`).

Tables (:func:`exp2c_tables`): ``fig4c`` the mean regret curve per (gap, counter, t) with its 95 % bootstrap band
over the seeds; ``fig4c_ratio`` at every recorded round of :data:`RATIO_POINTS` log-spaced ones (the last
included) the ratio of each counter's mean regret to the path tree's with a 95 % **paired** bootstrap interval
over the seeds (:func:`privopt.pipeline.summary.paired_ratio`), and the bounds ρ_min and σ of each counter;
``fig4c_runs`` every run's final regret.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from privopt import seeding
from privopt.bandits import BanditInstance, run_episodes
from privopt.bandits.parameters import BANDIT_COUNTERS, gaussian_params
from privopt.experiments.shariff2018.runs import PAPER, seeds_for
from privopt.pipeline.summary import N_BOOT, paired_ratio, seed_summary

__all__ = ["COUNTERS", "RATIO_POINTS", "exp2c_block", "exp2c_job", "exp2c_tables"]

#: the counters of Fig. 4c, in the figure's order (palette names, privopt.plotting.palette); "path" is the paper's
COUNTERS = BANDIT_COUNTERS
#: rounds at which fig4c_ratio holds the paired ratio (log-spaced over the recorded rounds, the last included)
RATIO_POINTS = 12


def exp2c_variants(n: int, d: int, eps: float, delta: float, counters: Sequence[str]):
    return [gaussian_params(n, d, eps, delta, counter=c) for c in counters]


def exp2c_block(gap: float, seeds: Sequence[int], *, n: int, n_rounds: int | None = None, d: int = 5,
                eps: float = 1.0, delta: float = 0.1, counters: Sequence[str] = COUNTERS,
                rec_every: int = 5000) -> pd.DataFrame:
    """The Gaussian variant with each counter on one gap, Experiment 2's seeds (module docstring): one row per
    (counter, seed, recorded t) with the regret, and the run's ρ_min, σ of its nodes, Cholesky fallbacks."""
    n_rounds = n if n_rounds is None else int(n_rounds)
    vs = exp2c_variants(n, d, eps, delta, counters)
    batch = run_episodes(vs, BanditInstance(d=d, gap=float(gap)), n_rounds, seeds_for("exp2", {"gap": float(gap)}, seeds),
                         labels=list(seeds), record=rec_every, lockstep=True)
    counter_of = {v.name: v.counter for v in vs}
    meta = batch.runs[["variant", "seed", "pd_failures", "wall_s"]]
    out = batch.curves.merge(meta, on=["variant", "seed"], how="left")
    out.insert(0, "experiment", "exp2c")
    out.insert(1, "gap", float(gap))
    out.insert(2, "d", int(d))
    out.insert(3, "counter", out["variant"].map(counter_of))
    out["rho_min"] = out["variant"].map({v.name: v.rho_min for v in vs})
    out["sigma"] = out["variant"].map({v.name: v.sigma_noise for v in vs})
    out["regret"] = out["regret"].astype(float)
    return out.drop(columns="variant")


def exp2c_job(experiment, point: Mapping[str, Any], settings: Mapping[str, Any], seeds: Sequence[int],
              inputs: Mapping[str, str]) -> dict[str, pd.DataFrame]:
    s = settings
    return {"runs": exp2c_block(float(point["gap"]), seeds, n=s["n"], n_rounds=s["n_rounds"], d=s["d"], eps=s["eps"],
                                delta=s["delta"], counters=s["counters"], rec_every=s["rec_every"])}


def _ratio_rounds(ts: np.ndarray) -> np.ndarray:
    """About :data:`RATIO_POINTS` recorded rounds, log-spaced, the last one included."""
    ts = np.unique(ts[ts > 0])
    want = np.geomspace(ts[0], ts[-1], RATIO_POINTS)
    return np.unique(ts[np.searchsorted(ts, want, side="left").clip(0, ts.size - 1)])


def exp2c_tables(experiment, frames: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """``fig4c`` (curves), ``fig4c_ratio`` (paired ratios to the path tree) and ``fig4c_runs`` (final regrets); the
    bootstrap streams are keyed by (gap, counter, t) through :mod:`privopt.seeding`: deterministic tables."""
    order = {c: i for i, c in enumerate(COUNTERS)}
    runs = frames["runs"].sort_values(["gap", "counter", "seed", "t"], key=lambda s: s.map(order)
                                      if s.name == "counter" else s, kind="stable").reset_index(drop=True)
    curves = seed_summary(runs, ["gap", "counter", "t"], "regret", paper=PAPER, table="fig4c")
    rows = []
    for gap, g in runs.groupby("gap", sort=True):
        path = g[g["counter"] == "path"]
        for t in _ratio_rounds(g["t"].to_numpy()):
            base = path[path["t"] == t].set_index("seed")["regret"]
            for c, h in g[g["t"] == t].groupby("counter", sort=False):
                mine = h.set_index("seed")
                seeds = sorted(set(mine.index) & set(base.index))
                rng = seeding.rng(PAPER, "tables/fig4c/ratio", {"gap": float(gap), "counter": str(c), "t": int(t)}, 0)
                est, lo, hi = ((1.0, 1.0, 1.0) if c == "path" else
                               paired_ratio(mine.loc[seeds, "regret"].to_numpy(), base.loc[seeds].to_numpy(), rng,
                                            N_BOOT) if seeds else (math.nan,) * 3)
                rows.append({"gap": float(gap), "counter": c, "t": int(t), "n": len(seeds),
                             "mean": float(mine["regret"].mean()), "ratio": est, "ratio_lo": lo, "ratio_hi": hi,
                             "rho_min": float(mine["rho_min"].iloc[0]), "sigma": float(mine["sigma"].iloc[0]),
                             "pd_failures": int(mine["pd_failures"].sum())})
    ratio = pd.DataFrame(rows).sort_values(["gap", "t", "counter"], key=lambda s: s.map(order)
                                          if s.name == "counter" else s, kind="stable").reset_index(drop=True)
    last = runs.groupby(["gap", "counter", "seed"], sort=False)["t"].transform("max")
    fin = runs[runs["t"] == last][["gap", "counter", "seed", "t", "regret", "pd_failures", "rho_min", "sigma"]]
    return {"fig4c": curves, "fig4c_ratio": ratio, "fig4c_runs": fin.reset_index(drop=True)}
