"""Drawing of Shariff & Sheffet's figures beyond the paper (issue 26: notebooks call helpers; the palette and
bands of :mod:`privopt.plotting`)."""

from __future__ import annotations

import numpy as np

from privopt import plotting as pp
from privopt.experiments.shariff2018.counters import COUNTERS

__all__ = ["fig4c_panels"]


def fig4c_panels(axes, table, ratio) -> None:
    """Figure 4c, one column per gap.  Top: mean regret over t per counter, band the 95 % bootstrap interval of the
    mean over the runs (``ci_lo``/``ci_hi`` of ``table``); bottom: ``ratio`` of each counter's mean regret to the
    path tree's at the recorded rounds of ``ratio``, bars its 95 % paired-bootstrap interval, the counters side by
    side (log t axis)."""
    gaps = sorted(table["gap"].unique())
    counters = [c for c in COUNTERS if c in set(table["counter"])]
    for j, gap in enumerate(gaps):
        ax = axes[0][j]
        sub = table[table["gap"] == gap]
        for c in counters:
            pp.curve(ax, sub[sub["counter"] == c], "t", lo="ci_lo", hi="ci_hi", algo=c,
                     label=pp.algo_style(c).label if j == 0 else None, ms=0)  # 400 points: lines only
        ax.set(xlabel="round t", title=f"({'ab'[j] if j < 2 else j}) regret, Δ = {gap:g}")
        ax = axes[1][j]
        ax.set_xscale("log")
        ax.axhline(1.0, color="0.6", lw=0.8)
        r = ratio[ratio["gap"] == gap]
        others = [c for c in counters if c != "path"]
        for k, c in enumerate(others):
            pp.ratio_points(ax, r[r["counter"] == c], "t", k, len(others), algo=c, step=10**0.025, ms=4)
        ax.set(xlabel="round t", title=f"({'cd'[j] if j < 2 else j}) mean regret / the path tree's, Δ = {gap:g}")
    axes[0][0].set_ylabel("cumulative pseudo-regret")
    axes[1][0].set_ylabel("ratio to the path tree (same privacy)")
    for ax in axes[1]:
        lo = np.nanmin(ratio["ratio_lo"].to_numpy(float)) if len(ratio) else 0.5
        ax.set_ylim(min(0.0, lo), max(1.1, ax.get_ylim()[1]))
