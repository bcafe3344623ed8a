"""Aggregation of Chaturvedi et al. run records into the tables the figures and claims read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from privopt.experiments.summary import summarise

__all__ = ["VALUE", "figure_table", "fig1_tables", "fig2_tables"]

#: the plotted value of each figure: utility (Figure 1), utility/m (Figure 2)
VALUE = {"fig1": "utility", "fig2": "utility_per_m"}


def figure_table(records: pd.DataFrame, figure: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(summary, sorted records): mean, std (ddof 0, as the authors), SEM and N of the figure's value per
    (reading, point, algorithm), with the ε0 each algorithm used."""
    value = VALUE[figure]
    records = records.sort_values(["reading", "point", "seed", "algorithm"], kind="stable").reset_index(drop=True)
    table = summarise(records, ["reading", "point", "algorithm"], value)
    eps0 = records.groupby(["reading", "point", "algorithm"], sort=True)["eps0"].first().reset_index()
    table = table.merge(eps0, on=["reading", "point", "algorithm"])
    table.insert(3, "value", value)
    return table, records


def fig1_tables(frames: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Tables entry point (protocol) of Figure 1: ``fig1`` (summary) and ``fig1_runs`` (every run)."""
    table, records = figure_table(frames["runs"], "fig1")
    return {"fig1": table, "fig1_runs": records}


def fig2_tables(frames: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Tables entry point (protocol) of Figure 2: ``fig2`` (summary) and ``fig2_runs`` (every run)."""
    table, records = figure_table(frames["runs"], "fig2")
    return {"fig2": table, "fig2_runs": records}
