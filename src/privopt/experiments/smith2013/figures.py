"""Paper-specific drawing of the Smith & Thakurta figures (the notebooks load, call and save).

* :func:`st1c_panels`: figure ST-1c (beyond the paper) — PFTAL's regret versus T per continual counter, and its ratio
  to the tree's with the paired-bootstrap interval.
"""

from __future__ import annotations

import numpy as np

from privopt import plotting as pp

__all__ = ["ST1C_COUNTERS", "st1c_panels"]

ST1C_COUNTERS = ("tree", "honaker", "smooth")
_TITLES = {"sc": r"strongly convex: $½\|w - x_t\|^2$", "gc": r"Lipschitz: $\|w - x_t\|$ ($H = H^*$)"}


def st1c_panels(axes, table) -> int:
    """Top row: mean regret versus T per counter (and ε), band the 95 % bootstrap interval of the mean over the seeds
    (``ci_lo``/``ci_hi``); bottom row: ``ratio`` to the tree with error bars [``ratio_lo``, ``ratio_hi``] (paired
    bootstrap), the points of the counters side by side.  One column per loss.  One ε: colour by counter; several:
    colour by ε, marker by counter.  Returns the band ends clipped at the log axis (for the legend)."""
    losses = [l for l in ("sc", "gc") if l in set(table["loss"])]
    counters = [c for c in ST1C_COUNTERS if c in set(table["counter"])]
    eps = sorted(table["eps"].unique())
    one = len(eps) == 1

    def kw(c, e):
        return dict(algo=c, eps=None if one else e)

    clipped = 0
    for j, loss in enumerate(losses):
        t = table[table["loss"] == loss]
        ax = axes[0][j]
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        for e in eps:
            for c in counters:
                sub = t[(t["counter"] == c) & np.isclose(t["eps"], e)]
                label = pp.algo_style(c).label + ("" if one else f", {pp.eps_label(e)}")
                clipped += pp.curve(ax, sub, "T", lo="ci_lo", hi="ci_hi", label=label if j == 0 else None,
                                    **kw(c, e))["clipped"]
        ax.set(xlabel="horizon T", title=f"({'ab'[j]}) regret, {_TITLES[loss]}")
        ax = axes[1][j]
        ax.set_xscale("log", base=2)
        ax.axhline(1.0, color="0.6", lw=0.8)
        pairs = [(e, c) for e in eps for c in counters if c != "tree"]
        for k, (e, c) in enumerate(pairs):
            pp.ratio_points(ax, t[(t["counter"] == c) & np.isclose(t["eps"], e)], "T", k, len(pairs), **kw(c, e))
        ax.set(xlabel="horizon T", title=f"({'cd'[j]}) mean regret / the tree's, {_TITLES[loss]}")
    axes[0][0].set_ylabel(r"regret  $\Sigma_t f_t(\hat w_t) - \min_w \Sigma_t f_t(w)$")
    axes[1][0].set_ylabel("ratio to the tree (same ε, same points)")
    return clipped
