"""Aggregation of tidy per-run records into the tables the figures and claims read."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from privopt import seeding

__all__ = ["summarise", "N_BOOT", "stream_value", "seed_summary", "add_excess", "paired_ratio"]

#: resamples of :func:`seed_summary`'s bootstrap
N_BOOT = 1000


def summarise(records: pd.DataFrame, by: Sequence[str], value: str, *, ddof: int = 0) -> pd.DataFrame:
    """Mean, standard deviation, standard error of the mean and N of ``value`` per group.

    ``std`` uses ``ddof`` (0 by default, as the Chaturvedi et al. authors do);
    ``sem = std / sqrt(n)``.  Groups keep the order of ``by`` and are sorted.
    """
    missing = [c for c in [*by, value] if c not in records.columns]
    if missing:
        raise KeyError(f"records lack columns {missing}")
    grouped = records.groupby(list(by), sort=True, observed=True)[value]
    out = grouped.agg(mean="mean", std=lambda x: float(np.std(x, ddof=ddof)), n="size").reset_index()
    out["sem"] = out["std"] / np.sqrt(out["n"])
    return out[[*by, "mean", "std", "sem", "n"]]


def stream_value(value):
    """A group key as :func:`privopt.seeding.rng` takes it in a stream's params: float, int or str."""
    if isinstance(value, (np.floating, float)):
        return float(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    return str(value)


def seed_summary(runs: pd.DataFrame, by: Sequence[str], value: str, *, paper: str, table: str, count: str = "n",
                 n_boot: int = N_BOOT) -> pd.DataFrame:
    """mean, std (ddof = 1), sem, ``count`` (the seeds), ci_lo, ci_hi of ``value`` per group of ``by`` (groups
    sorted): a 95 % percentile-bootstrap interval of the seed mean, ``n_boot`` resamples of the group's values
    (sorted by seed) from the stream ``seeding.rng(paper, "tables/<table>/<value>", {by: group keys}, 0)``,
    so the tables are deterministic."""
    by = list(by)
    out = []
    for keys, g in runs.groupby(by, sort=True):
        keys = keys if isinstance(keys, tuple) else (keys,)
        v = g.sort_values("seed")[value].to_numpy(dtype=np.float64)
        n = len(v)
        rng = seeding.rng(paper, f"tables/{table}/{value}", {k: stream_value(x) for k, x in zip(by, keys)}, 0)
        boot = v[rng.integers(0, n, size=(n_boot, n))].mean(axis=1)
        std = float(np.std(v, ddof=1)) if n > 1 else math.nan
        out.append({**dict(zip(by, keys)), "mean": float(v.mean()), "std": std, "sem": std / math.sqrt(n),
                    count: n, "ci_lo": float(np.percentile(boot, 2.5)), "ci_hi": float(np.percentile(boot, 97.5))})
    return pd.DataFrame(out)


def add_excess(runs: pd.DataFrame, by: Sequence[str], value: str = "regret") -> pd.DataFrame:
    """``excess`` = ``value`` − that of ε = ∞ (the non-private run, column ``regret_nonprivate``) with the same
    ``by`` keys and seed, paired by seed (NaN where it is missing)."""
    by = list(by)
    base = runs[np.isinf(runs["eps"])][[*by, "seed", value]].rename(columns={value: "regret_nonprivate"})
    out = runs.merge(base, on=[*by, "seed"], how="left")
    out["excess"] = out[value] - out["regret_nonprivate"]
    return out


def paired_ratio(values: np.ndarray, base: np.ndarray, rng: np.random.Generator, n_boot: int = N_BOOT,
                 level: float = 0.95) -> tuple[float, float, float]:
    """mean(values)/mean(base) and its paired percentile-bootstrap interval at ``level``: ``n_boot`` resamples of
    the seeds, index i of both arrays being seed i, resampled jointly (the comparison of two algorithms on the same
    data).  NaN when the base mean is ≤ 0 (the ratio has no meaning), and a NaN interval with fewer than two seeds
    or when a resampled base mean is ≤ 0."""
    values, base = np.asarray(values, dtype=np.float64), np.asarray(base, dtype=np.float64)
    if values.shape != base.shape or values.ndim != 1 or values.size == 0:
        raise ValueError(f"paired ratio: the two arrays must be the same seeds, got {values.shape} and {base.shape}")
    mb = float(base.mean())
    if not mb > 0:
        return math.nan, math.nan, math.nan
    est = float(values.mean()) / mb
    if values.size < 2:
        return est, math.nan, math.nan
    idx = rng.integers(0, values.size, size=(n_boot, values.size))
    bb = base[idx].mean(axis=1)
    if not (bb > 0).all():
        return est, math.nan, math.nan
    boot = values[idx].mean(axis=1) / bb
    a = (1 - level) / 2
    return est, float(np.quantile(boot, a)), float(np.quantile(boot, 1 - a))
