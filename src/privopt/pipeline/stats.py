"""Statistics the claims and tables of every paper share: tests, slopes, bootstrap intervals.

Each function returns NaN (never raises) when its input is too small to say anything, so that a
claim can hand the value to :func:`privopt.pipeline.claims.finite` and report "not evaluated".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

__all__ = ["welch_p", "spearman", "loglog_slope", "bootstrap_loglog_slope_ci", "weighted_change"]


def welch_p(a, b, alternative: str) -> float:
    """p-value of Welch's two-sample t-test (``alternative``: ``less``, ``greater``, ``two-sided``).

    NaN with fewer than two values on a side; 1.0 when every value is the same (no evidence).
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.size < 2 or b.size < 2:
        return float("nan")
    if np.ptp(np.concatenate([a, b])) == 0:
        return 1.0
    return float(stats.ttest_ind(a, b, equal_var=False, alternative=alternative).pvalue)


def spearman(x, y) -> float:
    """Spearman's rank correlation; NaN with fewer than two points or a constant ``y``."""
    if len(x) < 2 or np.ptp(np.asarray(y, float)) == 0:
        return float("nan")
    return float(stats.spearmanr(x, y).statistic)


def loglog_slope(x, y) -> float:
    """Slope b of the least-squares fit ``log y = a + b·log x``."""
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    return float(np.polyfit(lx, ly, 1)[0])


def bootstrap_loglog_slope_ci(xs: Sequence, groups: Sequence[np.ndarray], rng: np.random.Generator,
                              n_boot: int = 1000, q: tuple[float, float] = (2.5, 97.5)) -> tuple[float, float]:
    """Percentile bootstrap interval of :func:`loglog_slope` over all points, resampling the values
    ``groups[i]`` observed at ``xs[i]`` with replacement within each x (runs resampled within each d); ``q`` the percentiles (95 %)."""
    slopes = []
    for _ in range(n_boot):
        x, y = [], []
        for xi, g in zip(xs, groups):
            s = rng.choice(g, size=g.size, replace=True)
            x += [xi] * g.size
            y += list(s)
        slopes.append(loglog_slope(x, y))
    return float(np.percentile(slopes, q[0])), float(np.percentile(slopes, q[1]))


def weighted_change(x, y, sem) -> tuple[float, float]:
    """Weighted least-squares slope of y on x (weights 1/SEM²) times the x range, and its standard error."""
    x = np.asarray(x, dtype=float)
    w = 1.0 / np.asarray(sem, dtype=float) ** 2
    xm = np.sum(w * x) / np.sum(w)
    sxx = np.sum(w * (x - xm) ** 2)
    slope = np.sum(w * (x - xm) * (np.asarray(y) - np.sum(w * y) / np.sum(w))) / sxx
    span = x.max() - x.min()
    return float(slope * span), float(span / np.sqrt(sxx))
