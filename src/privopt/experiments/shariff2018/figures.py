"""Drawing of Shariff & Sheffet's figures beyond the paper (issue 26: notebooks call helpers; the palette and
bands of :mod:`privopt.plotting`)."""

from __future__ import annotations

import numpy as np

from privopt import plotting as pp
from privopt.experiments.shariff2018.counters import COUNTERS
from privopt.experiments.shariff2018.exact import BASELINE, ROLES, delta_name

__all__ = ["fig4c_panels", "fig4e_panels"]


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


def fig4e_panels(axes, table, ratio) -> None:
    """Figure 4e: two rows per δ (``table["delta"]``, ascending), one column per gap.  Upper row: mean regret over t
    of each variant (log y), band the 95 % bootstrap interval of the mean over the runs; lower row: each variant's
    mean regret as a ratio to the paper calibration's at the recorded rounds of ``ratio`` (log–log), bars its 95 %
    paired-bootstrap interval, the variants side by side.  ``axes``: (2·#δ, #gaps)."""
    gaps = sorted(table["gap"].unique())
    deltas = sorted(table["delta"].unique(), reverse=True)
    roles = [r for r in ROLES if r in set(table["variant"])]
    others = [r for r in roles if r != BASELINE]
    panel = iter("abcdefghijklmnopqrstuvwxyz")
    for i, delta in enumerate(deltas):
        for j, gap in enumerate(gaps):
            ax = axes[2 * i][j]
            ax.set_yscale("log")
            sub = table[(table["gap"] == gap) & (table["delta"] == delta) & (table["t"] > 0)]
            for r in roles:
                pp.curve(ax, sub[sub["variant"] == r], "t", lo="ci_lo", hi="ci_hi", algo=r,
                         label=pp.algo_style(r).label, ms=0)
            ax.set(xlabel="round t", title=f"({next(panel)}) regret, Δ = {gap:g}, {delta_name(delta)}")
            ax = axes[2 * i + 1][j]
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.axhline(1.0, color="0.6", lw=0.8)
            rt = ratio[(ratio["gap"] == gap) & (ratio["delta"] == delta)]
            for k, r in enumerate(others):
                pp.ratio_points(ax, rt[rt["variant"] == r], "t", k, len(others), algo=r, step=10**0.025, ms=4)
            ax.set(xlabel="round t", title=f"({next(panel)}) ratio to the paper's σ, Δ = {gap:g}, {delta_name(delta)}")
        axes[2 * i][0].set_ylabel("cumulative pseudo-regret")
        axes[2 * i + 1][0].set_ylabel("ratio (same ε, δ)")
