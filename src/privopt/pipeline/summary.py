"""Aggregation of tidy per-run records into the tables the figures and claims read."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["summarise"]


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
