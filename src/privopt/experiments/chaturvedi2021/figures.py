"""Figure 1–2e's drawing (:mod:`.exact`), called by its notebook so that the notebook stays a few lines."""

from __future__ import annotations

from privopt import plotting as pp
from privopt.experiments.chaturvedi2021.exact import ACCOUNTANTS, ALGORITHMS, FAMILIES, variant

__all__ = ["FIGURE_WORDS", "fig12e_panels"]

#: the panels' words per figure: x label, y label, title
FIGURE_WORDS = {"fig1": ("rank r", "utility", "Figure 1's settings (cardinality)"),
                "fig2": ("number of data m", "utility / m", "Figure 2's settings (partition matroid)")}


def fig12e_panels(axes, table, ratio) -> None:
    """Two rows, one column per figure present (``table["figure"]``).  Upper row: mean utility of every algorithm of
    :data:`.exact.ALGORITHMS` against the point, bars ±1 SEM; lower row: mean utility at each exact ε0 over the
    paper's, bars the 95 % paired-bootstrap interval, the four series side by side, and each series' ε0 over the
    paper's (its range over the points) in the corner.  ``axes``: (2, #figures)."""
    figures = sorted(table["figure"].unique())
    panel = iter("abcdefghijklmnopqrstuvwxyz")
    for j, figure in enumerate(figures):
        xlabel, ylabel, title = FIGURE_WORDS.get(figure, ("point", "utility", figure))
        ax = axes[0][j]
        sub = table[table["figure"] == figure]
        for name in ALGORITHMS:
            rows = sub[sub["algorithm"] == name]
            if len(rows):
                pp.curve(ax, rows, "point", algo=name, label=pp.algo_style(name).label, err="sem", ms=4)
        ax.set(xlabel=xlabel, ylabel=ylabel, title=f"({next(panel)}) {title}")
        ax.set_xticks(sorted(sub["point"].unique()))
        ax = axes[1][j]
        # the same linear axis as the panel above it (its points are evenly spaced)
        ax.axhline(1.0, color="0.6", lw=0.8)
        rt = ratio[ratio["figure"] == figure]
        names = [variant(f, a) for f in FAMILIES for a in ACCOUNTANTS]
        words = []
        for k, name in enumerate(names):
            rows = rt[rt["algorithm"] == name]
            if len(rows):
                pp.ratio_points(ax, rows, "point", k, len(names), algo=name, step=10**0.012, ms=4)
                lo, hi = rows["eps0_ratio"].min(), rows["eps0_ratio"].max()
                words.append(f"{name.replace('_exact', ' ')}: {lo:.2f}" + (f"–{hi:.2f}" if hi > lo * 1.005 else ""))
        ax.set_xticks(sorted(sub["point"].unique()))
        ax.set_xticklabels([f"{int(x):d}" for x in sorted(sub["point"].unique())])
        ax.minorticks_off()
        # the ε0 ratios under the axis (inside it, a box covered the curves near 1)
        pairs = ["; ".join(words[i:i + 2]) for i in range(0, len(words), 2)]
        below = "\nε0 exact / paper's:\n" + "\n".join(pairs) if words else ""
        ax.set(xlabel=xlabel + below, ylabel="utility ratio, exact ε0 / paper's", title=f"({next(panel)}) ratio, same (ε, δ)")
