"""What Shariff & Sheffet (2018) report about their Figures 1–5 (App. D; its figures are pictures without printed
values, so every number is from its text), beside which the report puts the same quantities measured on the
figures' tables (``Paper.reported``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privopt.pipeline.protocol import Reported

#: how a reward law of Figures 2–3 is named beside its value
REWARDS = {"gaussian": "Gaussian noise", "pm1": "±1 rewards"}
SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _power(x: float) -> str:
    """10⁵, 2·10⁶: a horizon as the paper writes it."""
    e = int(np.floor(np.log10(x)))
    m, power = x / 10**e, "10" + str(e).translate(SUPERSCRIPT)
    return power if np.isclose(m, 1) else f"{m:g}·{power}"


def actions(tables) -> str:
    t = tables["table"]
    n = int(t["kind"].isin(["action", "optimal"]).sum())
    return f"{n:,} actions, d = {sum(c.startswith('x') for c in t.columns)}"


def optimal_reward(tables) -> str:
    t = tables["table"]
    return f"{t.loc[t['kind'] == 'optimal', 'mean'].iloc[0]:.3f}"


def suboptimal_rewards(tables) -> str:
    t = tables["table"]
    sub, best = t.loc[t["kind"] == "action", "mean"], t.loc[t["kind"] == "optimal", "mean"].iloc[0]
    return f"[{sub.min():.3f}, {sub.max():.3f}]: gap {best - sub.max():.3f}"


def horizon(column: str):
    def measure(tables) -> str:
        return f"{_power(float(tables['table'][column].max()))} rounds"
    return measure


def dimensions(tables) -> str:
    d = sorted(tables["table"]["d"].unique())
    return f"{len(d)} values from {d[0]} to {d[-1]}"


def pm1_over_gaussian(tables) -> str:
    """Final regret with ±1 rewards over that with Gaussian noise, per d: its smallest and largest."""
    t = tables["table"]
    last = t[t["t"] == t["t"].max()].pivot_table(index="d", columns="reward", values="mean")
    ratio = last["pm1"] / last["gaussian"]
    return f"final regret ±1 / Gaussian: {ratio.min():.2f} to {ratio.max():.2f} over d"


def slopes(tables) -> str:
    fit = tables["fit"]
    return "; ".join(f"{REWARDS.get(r['reward'], r['reward'])} {r['b']:.2f} (95 % {r['b_ci_low']:.2f}–{r['b_ci_high']:.2f})"
                     for r in fit.to_dict("records"))


def _final(t: pd.DataFrame) -> pd.DataFrame:
    """gap × variant → the mean regret at the last recorded round."""
    return t[t["t"] == t["t"].max()].pivot_table(index="gap", columns="variant", values="mean")


def final_ratio(top: str, bottom: str, percent: bool = False):
    def measure(tables) -> str:
        f = _final(tables["table"])
        r = f[top] / f[bottom]
        return ", ".join(f"{100 * v:.1f} % (Δ = {g:g})" if percent else f"{v:.2f} (Δ = {g:g})" for g, v in r.items())
    return measure


def shift_effect(tables) -> str:
    """Per mechanism, the largest final regret over the ρ_min grid divided by the smallest, at the smallest and
    the largest gap."""
    t = tables["table"]
    last = t[t["t"] == t["t"].max()]
    spread = last.groupby(["mechanism", "gap"])["mean"].agg(lambda m: m.max() / m.min())
    parts = []
    for mech, per_gap in spread.groupby(level=0):
        gaps = per_gap.droplevel(0)
        parts.append(f"{mech}: ×{gaps.iloc[0]:.1f} at Δ = {gaps.index[0]:g}, ×{gaps.iloc[-1]:.1f} at Δ = {gaps.index[-1]:g}")
    return "; ".join(parts)


REPORTED = (
    Reported("fig1", "the example decision set", "K = 1,000 actions in ℝ³", "Figure 1's caption", actions),
    Reported("fig1", "the optimal action's mean reward", "0.75", "App. D, the common setting", optimal_reward),
    Reported("fig1", "the sub-optimal actions' mean rewards", "in [−0.75, 0.65]: gap Δ = 0.1",
             "App. D, the common setting", suboptimal_rewards),
    Reported("fig2", "the horizon", "n = 10⁵ rounds", "App. D.1", horizon("t")),
    Reported("fig2", "the dimensions d", "logarithmically spaced in [4, 64]", "App. D.1", dimensions),
    Reported("fig2", "±1 rewards against Gaussian noise", "regret somewhat lower with ±1 rewards", "App. D.1, on Figure 2",
             pm1_over_gaussian),
    Reported("fig3", "the slope of the log–log best-fit line of total regret against d", "roughly 2",
             "App. D.1, on Figure 3", slopes),
    Reported("fig4", "the horizon drawn", "2·10⁷ rounds (of 5·10⁷ run; the curves flat after 2·10⁷)",
             "App. D.2", horizon("t")),
    Reported("fig4", "final regret, Wishart / Gaussian", "Gaussian outperforms Wishart", "App. D.2, results",
             final_ratio("wishart", "gaussian")),
    Reported("fig4", "final regret, WishartUnshifted / Wishart",
             "worst at Δ = 0; indistinguishable from Wishart at Δ = 0.1", "App. D.2, results",
             final_ratio("wishart_unshifted", "wishart")),
    Reported("fig4", "final regret, NonPrivate / Gaussian", "too small to tell from the x-axis",
             "App. D.2, the variants", final_ratio("nonprivate", "gaussian", percent=True)),
    Reported("fig5", "how much the shift (ρ_min) changes the final regret: largest / smallest over the grid",
             "significantly only for small or zero gaps", "App. D.3, results", shift_effect),
)
