"""What Chaturvedi et al. (2021) report about their Figures 1–2, beside which the report puts the same quantities
measured on the tables of Figures 1–2 (``Paper.reported``).

The paper states few numbers: Figure 1's ε0 and the ranks where PCG overtakes DPG and where both private
algorithms meet a random basis (§5.1, the paragraphs around Figure 1), and the ranges its axes show (utility 80–95
against r = 10–25 in Figure 1; utility/m 0.78–0.82 against m up to 10⁴ in Figure 2).  Each measure reads the
figure's table (``table``: reading, point, algorithm, mean, sem, eps0) and gives every reading it holds.
"""

from __future__ import annotations

import pandas as pd

from privopt.pipeline.protocol import Reported

#: how each reading is named beside its value
READINGS = {"paper": "paper reading", "authors_code": "authors' code"}


def _means(table: pd.DataFrame, reading: str) -> pd.DataFrame:
    """point × algorithm → mean utility of one reading."""
    return table[table["reading"] == reading].pivot_table(index="point", columns="algorithm", values="mean")


def _each_reading(table: pd.DataFrame, one) -> str:
    """``one(reading's rows) -> str`` for every reading of the table, named (the paper's first)."""
    readings = sorted(set(table["reading"]), key=lambda r: (r != "paper", r))
    return "; ".join(f"{READINGS.get(r, r)}: {one(table[table['reading'] == r], r)}" for r in readings)


def pcg_eps0(tables) -> str:
    t = tables["table"]
    return _each_reading(t, lambda rows, _: f"{rows.loc[rows['algorithm'] == 'PCG', 'eps0'].mean():.5f}")


def pcg_overtakes(tables) -> str:
    """The smallest plotted rank from which PCG's mean is at least DPG's at every plotted rank up to 20."""
    def one(rows, reading):
        m = _means(rows, reading)
        ranks = [r for r in m.index if r <= 20]
        ahead = [r for r in ranks if all(m.loc[q, "PCG"] >= m.loc[q, "DPG"] for q in ranks if q >= r)]
        return f"r = {min(ahead)}" if ahead else "never up to r = 20"
    return _each_reading(tables["table"], one)


def meets_random(tables) -> str:
    """Each private algorithm's mean minus the random basis's at the first plotted rank above 20 (and Greedy's, for
    scale)."""
    def one(rows, reading):
        m = _means(rows, reading)
        above = [r for r in m.index if r > 20]
        if not above:
            return "no rank above 20 plotted"
        r = min(above)
        gap = {a: m.loc[r, a] - m.loc[r, "Random"] for a in ("PCG", "DPG", "Greedy")}
        return f"at r = {r}, PCG − Random {gap['PCG']:+.2f}, DPG − Random {gap['DPG']:+.2f} (Greedy − Random {gap['Greedy']:+.1f})"
    return _each_reading(tables["table"], one)


def utility_range(algorithms, digits: int):
    def measure(tables) -> str:
        def one(rows, reading):
            means = rows.loc[rows["algorithm"].isin(algorithms), "mean"]
            return f"{means.min():.{digits}f} to {means.max():.{digits}f}"
        return _each_reading(tables["table"], one)
    return measure


def dataset_sizes(tables) -> str:
    points = tables["table"]["point"]
    return f"m = {int(points.min()):,} to {int(points.max()):,} ({points.nunique()} sizes)"


def pcg_minus_dpg(tables) -> str:
    """PCG's mean utility/m minus DPG's at the smallest and the largest m."""
    def one(rows, reading):
        m = _means(rows, reading)
        lo, hi = m.index.min(), m.index.max()
        return (f"{m.loc[lo, 'PCG'] - m.loc[lo, 'DPG']:+.4f} at m = {int(lo):,}, "
                f"{m.loc[hi, 'PCG'] - m.loc[hi, 'DPG']:+.4f} at m = {int(hi):,}")
    return _each_reading(tables["table"], one)


REPORTED = (
    Reported("fig1", "PCG's per-step privacy parameter ε0", "about 0.01006", "§5.1, the setting of Figure 1",
             pcg_eps0),
    Reported("fig1", "the rank from which PCG's utility is above DPG's", "around r = 10",
             "§5.1, on Figure 1", pcg_overtakes),
    Reported("fig1", "where both private algorithms meet a random basis", "around r = 20",
             "§5.1, on Figure 1", meets_random),
    Reported("fig1", "the mean utilities drawn (Greedy, PCG, DPG, Random)", "80 to 95 (the y-axis)",
             "Figure 1, read off its axis", utility_range(("Greedy", "PCG", "DPG", "Random"), 1)),
    Reported("fig2", "the dataset sizes m", "up to 10⁴ (the x-axis, 0.2–1 · 10⁴)", "Figure 2, read off its axis",
             dataset_sizes),
    Reported("fig2", "the mean utility/m of PCG and DPG", "0.78 to 0.82 (the y-axis)",
             "Figure 2, read off its axis", utility_range(("PCG", "DPG"), 4)),
    Reported("fig2", "PCG − DPG in utility/m", "comparable for small datasets, the gap widening with m",
             "§5.2, on Figure 2", pcg_minus_dpg),
)
