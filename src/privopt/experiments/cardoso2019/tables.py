"""Tables of the Rivera Cardoso & Cummings figures RC-1 … RC-4: seed means, slope fits, explicit bounds.

* ``<exp>.csv``: per (n, T, ε) the expected regret (the plotted quantity, cardoso2019 reading R7) as mean, std
  (ddof = 1), sem, N (seeds; ``n`` is the number of cells) and a 95 % percentile-bootstrap interval of the mean over seeds (``ci_lo``,
  ``ci_hi``; 1000 resamples from a stream keyed by the table and the row, so the tables are
  deterministic); the realised regret's mean and SEM (``realised_mean``, ``realised_sem``: check C-U2);
  the learner's constants (H, μ, λ, K, γ) and the **explicit bound** of the theorems (``bound``: B_full or
  B_bandit of cardoso2019 reading R8, c_sens included) with ``bound_ratio`` = bound / mean regret (C-U1).
  RC-3 adds the *excess* regret, private − non-private paired by seed (``excess_*``).
* ``<exp>_fit.csv``: the log–log slope of the seed-mean regret (excess regret for RC-3) per ε over each
  fit range (``all``: every point; ``tail``: the claims' range where at least two points lie in it), with
  a 90 % bootstrap interval over seeds (1000 resamples, seeds resampled within each x; cardoso2019 reading R11).
* ``<exp>_runs.parquet``: every run row.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from privopt import seeding
from privopt.pipeline.summary import N_BOOT, add_excess, seed_summary, stream_value

__all__ = ["N_BOOT", "PAPER", "summary", "add_excess", "slope_fits", "rc_tables", "privacy_tables"]

PAPER = "cardoso2019"
#: the claims' fit ranges (cardoso2019 reading R11): x ≥ lo (T) or lo ≤ ε ≤ hi
TAIL = {"rc1a": ("T", 2.0**14, math.inf), "rc1b": ("T", 2.0**14, math.inf), "rc2a": ("n", 0.0, math.inf),
        "rc2b": ("n", 0.0, math.inf), "rc3a": ("eps", 5.0, 100.0), "rc3b": ("eps", 3.0, 100.0),
        "rc4": ("T", 0.0, math.inf)}
XCOL = {"rc1a": "T", "rc1b": "T", "rc2a": "n", "rc2b": "n", "rc3a": "eps", "rc3b": "eps", "rc4": "T"}
CONSTANTS = ["H", "mu", "lam", "K", "gamma", "bound"]


def summary(runs: pd.DataFrame, by: list[str], value: str, table: str) -> pd.DataFrame:
    """mean, std, sem, N (seeds; ``n`` is the number of cells), ci_lo, ci_hi of ``value`` per group of ``by``."""
    return seed_summary(runs, by, value, paper=PAPER, table=table, count="N", n_boot=N_BOOT)


def _boot_slope(xs: np.ndarray, groups: list[np.ndarray], rng: np.random.Generator) -> tuple[float, float, float]:
    """Slope of log(mean) on log(x) and its 90 % bootstrap interval (seeds resampled within each x)."""
    means = np.array([g.mean() for g in groups])
    if len(xs) < 2 or (means <= 0).any():
        return math.nan, math.nan, math.nan
    lx = np.log(xs)
    slope = float(np.polyfit(lx, np.log(means), 1)[0])
    boot = np.column_stack([g[rng.integers(0, g.size, size=(N_BOOT, g.size))].mean(axis=1) for g in groups])
    ok = (boot > 0).all(axis=1)
    ly = np.log(np.where(boot > 0, boot, 1.0))
    lxc = lx - lx.mean()
    b = (ly - ly.mean(axis=1, keepdims=True)) @ lxc / (lxc @ lxc)
    b = b[ok]
    if b.size < N_BOOT // 2:  # most resamples leave a mean ≤ 0: no interval
        return slope, math.nan, math.nan
    return slope, float(np.percentile(b, 5)), float(np.percentile(b, 95))


def slope_fits(runs: pd.DataFrame, experiment: str, value: str = "regret_expected") -> pd.DataFrame:
    """Per ε (per n for RC-3's ε axis) the log–log slopes over ``all`` and the claims' ``tail`` range."""
    x = XCOL[experiment]
    _, lo, hi = TAIL[experiment]
    curve_by = "n" if x == "eps" else "eps"
    sub = runs[np.isfinite(runs["eps"])] if x == "eps" else runs
    out = []
    for c, g in sub.groupby(curve_by, sort=True):
        for rng_name, sel in (("all", g), ("tail", g[(g[x] >= lo) & (g[x] <= hi)])):
            xs = np.array(sorted(sel[x].unique()), dtype=np.float64)
            if len(xs) < 2:
                continue
            groups = [sel[np.isclose(sel[x], xv)].sort_values("seed")[value].to_numpy(dtype=np.float64) for xv in xs]
            rng = seeding.rng(PAPER, f"tables/{experiment}_fit", {curve_by: stream_value(c), "range": rng_name}, 0)
            slope, lo90, hi90 = _boot_slope(xs, groups, rng)
            out.append({"experiment": experiment, curve_by: c, "x": x, "range": rng_name, "x_lo": float(xs[0]),
                        "x_hi": float(xs[-1]), "points": len(xs), "value": value, "slope": slope,
                        "ci90_lo": lo90, "ci90_hi": hi90, "seeds": int(min(len(v) for v in groups))})
    cols = ["experiment", curve_by, "x", "range", "x_lo", "x_hi", "points", "value", "slope", "ci90_lo", "ci90_hi",
            "seeds"]
    return pd.DataFrame(out, columns=cols)


def rc_tables(experiment, frames, settings) -> dict[str, pd.DataFrame]:
    """The tables of every regret experiment RC-1a … RC-4 (``experiment.name``): the summary, the slope fit and
    every run; RC-3 adds the excess regret over the non-private learner, paired by seed."""
    name = experiment.name
    runs = frames["runs"].sort_values(["n", "T", "eps", "seed"], kind="stable").reset_index(drop=True)
    by = ["algorithm", "n", "T", "eps"]
    table = summary(runs, by, "regret_expected", name)
    real = runs.groupby(by, sort=True)["regret_realised"].agg(
        realised_mean="mean", realised_sem=lambda s: float(np.std(s, ddof=1) / math.sqrt(len(s))) if len(s) > 1 else math.nan)
    consts = runs.groupby(by, sort=True)[CONSTANTS].first()
    table = table.merge(real.reset_index(), on=by).merge(consts.reset_index(), on=by)
    table["bound_ratio"] = table["bound"] / table["mean"]
    value = "regret_expected"
    if name.startswith("rc3"):
        runs = add_excess(runs, ["n", "T"], "regret_expected")
        exc = summary(runs, by, "excess", name)
        exc = exc.rename(columns={c: f"excess_{c}" for c in ("mean", "std", "sem", "N", "ci_lo", "ci_hi")})
        table = table.merge(exc, on=by)
        value = "excess"
    return {name: table, f"{name}_fit": slope_fits(runs, name, value), f"{name}_runs": runs}


def privacy_tables(experiment, frames, settings):
    return {"privacy": frames["runs"].reset_index(drop=True)}
