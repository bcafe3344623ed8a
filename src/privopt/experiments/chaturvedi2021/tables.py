"""Aggregation of Chaturvedi et al. run records into the tables the figures and claims read.

Besides one row per (reading, point, algorithm), the summary holds *paired differences*: for each pair
(a, b) of :data:`PAIRED` that both ran, a row ``"a - b"`` with the mean, std, SEM and N of the per-run
difference (same dataset, same seed).  For PCG and its relabelled rounding the two share the fractional
point, so the paired SEM is what measures the effect of the labels; against E[Random] the pairing
removes the variation between datasets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from privopt.pipeline.summary import summarise

__all__ = ["VALUE", "PAIRED", "paired_name", "paired_differences", "figure_table", "figure_tables"]

#: the plotted value of each figure: utility (Figure 1), utility/m (Figure 2)
VALUE = {"fig1": "utility", "fig2": "utility_per_m"}
#: paired differences summarised per (reading, point) when both algorithms ran
PAIRED = (("PCG", "PCG_perm"), ("PCG0", "PCG0_perm"), ("PCG0", "Random"), ("PCG0", "E[Random]"),
          ("PCG", "E[Random]"))


def paired_name(a: str, b: str) -> str:
    """The ``algorithm`` of the summary row of the per-run difference a − b."""
    return f"{a} - {b}"


def paired_differences(records: pd.DataFrame, value: str) -> pd.DataFrame:
    """Per-run differences ``value(a) − value(b)`` for the pairs of :data:`PAIRED` (records keyed by
    reading, point, seed), as records with ``algorithm`` = :func:`paired_name` and ``eps0`` NaN."""
    wide = records.pivot_table(index=["reading", "point", "seed"], columns="algorithm", values=value, aggfunc="first")
    frames = []
    for a, b in PAIRED:
        if a in wide.columns and b in wide.columns:
            diff = (wide[a] - wide[b]).dropna().rename(value).reset_index()
            frames.append(diff.assign(algorithm=paired_name(a, b), eps0=float("nan")))
    if not frames:
        return records.iloc[:0][["reading", "point", "seed", "algorithm", value, "eps0"]]
    return pd.concat(frames, ignore_index=True)


def figure_table(records: pd.DataFrame, figure: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(summary, sorted records): mean, std (ddof 0, as the authors), SEM and N of the figure's value per
    (reading, point, algorithm), with the ε0 each algorithm used, and the paired differences of
    :data:`PAIRED` (ε0 empty)."""
    value = VALUE[figure]
    records = records.sort_values(["reading", "point", "seed", "algorithm"], kind="stable").reset_index(drop=True)
    rows = pd.concat([records[["reading", "point", "seed", "algorithm", value, "eps0"]],
                      paired_differences(records, value)], ignore_index=True)
    table = summarise(rows, ["reading", "point", "algorithm"], value)
    eps0 = rows.groupby(["reading", "point", "algorithm"], sort=True, dropna=False)["eps0"].first().reset_index()
    table = table.merge(eps0, on=["reading", "point", "algorithm"])
    table.insert(3, "value", value)
    return table, records


def figure_tables(experiment, frames: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Tables entry point (protocol) of Figures 1 and 2 (``experiment.name``: ``fig1`` or ``fig2``): the summary
    (``fig1``/``fig2``) and every run (``fig1_runs``/``fig2_runs``)."""
    table, records = figure_table(frames["runs"], experiment.name)
    return {experiment.name: table, f"{experiment.name}_runs": records}
