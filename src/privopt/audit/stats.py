"""Statistics of the privacy auditor: Clopper–Pearson bounds, ε lower bounds and exact ε.

An (ε, δ)-DP mechanism M satisfies, for neighbouring inputs D, D' and every output event E,

    P0 = P[M(D) ∈ E] ≤ e^ε · P1 + δ,      P1 = P[M(D') ∈ E],

hence ε ≥ log((P0 − δ)/P1).  With one-sided Clopper–Pearson bounds P0 ≥ P0_lo and
P1 ≤ P1_hi, each holding with probability ≥ 1 − β, the statistic

    ε_lb = log((P0_lo − δ) / P1_hi)

is a lower bound on the mechanism's true ε with probability ≥ 1 − 2β; over k events
tested on held-out samples, β = α/(2k) (Bonferroni) gives confidence 1 − α for the
maximum over the k events (the StatDP / DP-Sniper style bound).

White-box checks compute the *exact* ε of a pair of output laws:

* :func:`exact_eps_discrete` — the smallest ε ≥ 0 with hockey-stick divergence
  Σ_o max(0, p(o) − e^ε q(o)) ≤ δ in both directions (δ = 0: max |log p/q|);
* :func:`gaussian_exact_eps` — the Gaussian mechanism with standardised mean shift μ
  (Balle & Wang 2018): δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.stats import beta, norm

__all__ = [
    "cp_lower",
    "cp_upper",
    "eps_from_bounds",
    "event_eps_lower_bound",
    "hockey_stick",
    "exact_eps_discrete",
    "gaussian_delta",
    "gaussian_exact_eps",
    "predicted_eps_lb",
]


def cp_lower(k: int, n: int, level: float) -> float:
    """One-sided Clopper–Pearson lower bound: P[p ≥ bound] ≥ 1 − level for k successes in n trials."""
    if n <= 0 or k <= 0:
        return 0.0
    return float(beta.ppf(level, k, n - k + 1))


def cp_upper(k: int, n: int, level: float) -> float:
    """One-sided Clopper–Pearson upper bound: P[p ≤ bound] ≥ 1 − level."""
    if n <= 0 or k >= n:
        return 1.0
    return float(beta.ppf(1.0 - level, k + 1, n - k))


def eps_from_bounds(p0_lo: float, p1_hi: float, delta: float) -> float:
    """log((P0_lo − δ)/P1_hi); −inf when P0_lo ≤ δ (the event shows nothing)."""
    num = p0_lo - delta
    if num <= 0.0:
        return -math.inf
    if p1_hi <= 0.0:
        return math.inf
    return math.log(num / p1_hi)


def event_eps_lower_bound(k0: int, n0: int, k1: int, n1: int, delta: float, level: float) -> tuple[float, float, float]:
    """(ε_lb, P0_lo, P1_hi) of one event seen k0/n0 times under D and k1/n1 times under D'.

    ``level`` is the error of each one-sided interval (α/(2·#events) under Bonferroni).
    """
    p0_lo = cp_lower(k0, n0, level)
    p1_hi = cp_upper(k1, n1, level)
    return eps_from_bounds(p0_lo, p1_hi, delta), p0_lo, p1_hi


def hockey_stick(p: np.ndarray, q: np.ndarray, eps: float) -> float:
    """Σ_o max(0, p(o) − e^ε q(o)) for two laws on the same finite outcome list."""
    return float(np.maximum(np.asarray(p) - math.exp(eps) * np.asarray(q), 0.0).sum())


def _one_direction(p: np.ndarray, q: np.ndarray, delta: float) -> float:
    support = p > 0
    if delta <= 0.0:
        if (support & (q <= 0)).any():
            return math.inf
        return float(max(0.0, np.max(np.log(p[support]) - np.log(q[support])))) if support.any() else 0.0
    if float(p[support & (q <= 0)].sum()) > delta:
        return math.inf
    if hockey_stick(p, q, 0.0) <= delta:
        return 0.0
    both = support & (q > 0)
    lo, hi = 0.0, float(np.max(np.log(p[both]) - np.log(q[both])))
    # hockey_stick(hi) = mass where q = 0 <= delta; bisect the monotone function
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if hockey_stick(p, q, mid) > delta:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return hi


def exact_eps_discrete(p, q, delta: float = 0.0) -> float:
    """Exact ε of a pair of discrete output laws at δ: the smallest ε ≥ 0 such that
    Σ max(0, p − e^ε q) ≤ δ and Σ max(0, q − e^ε p) ≤ δ (inf if none).

    ``p`` and ``q`` are probability vectors over the same outcome list (or dicts
    outcome → probability, merged on their keys).
    """
    if isinstance(p, dict) or isinstance(q, dict):
        keys = sorted(set(p) | set(q))
        p = np.array([p.get(k, 0.0) for k in keys])
        q = np.array([q.get(k, 0.0) for k in keys])
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    return max(_one_direction(p, q, delta), _one_direction(q, p, delta))


def gaussian_delta(mu: float, eps: float) -> float:
    """δ(ε) of the Gaussian mechanism with standardised shift μ = ‖Σ^{-1/2}Δ‖ (Balle & Wang 2018)."""
    if mu <= 0.0:
        return 0.0
    a = mu / 2.0 - eps / mu
    b = -mu / 2.0 - eps / mu
    return float(norm.cdf(a) - math.exp(eps + norm.logcdf(b)))


def gaussian_exact_eps(mu: float, delta: float) -> float:
    """Smallest ε ≥ 0 with δ(ε) ≤ δ for the Gaussian mechanism with standardised shift μ (exact)."""
    if mu <= 0.0 or gaussian_delta(mu, 0.0) <= delta:
        return 0.0
    hi = 1.0
    while gaussian_delta(mu, hi) > delta:
        hi *= 2.0
    return float(brentq(lambda e: gaussian_delta(mu, e) - delta, 0.0, hi, xtol=1e-12))


def predicted_eps_lb(p, q, n: int, delta: float = 0.0, *, alpha: float = 0.05, n_events: int = 4) -> float:
    """The ε lower bound that an audit with n samples per input is expected to reach on a pair of discrete
    laws ``p``, ``q`` (vectors over the same outcomes) when it tests the level sets of the exact privacy
    loss: the best over both directions and every level set {loss ≥ c} of the Clopper–Pearson bound
    evaluated at the expected held-out counts (n/2 per input; level α/(2·2·n_events), as
    :func:`privopt.audit.events.audit_statistic`).  It is how a sample size is *derived* from the law
    rather than tuned on a seed: the realised bound scatters around it by the binomial noise of the counts.
    """
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    h = n - n // 2
    level = alpha / (2 * 2 * n_events)
    best = 0.0
    for a, b in ((p, q), (q, p)):
        with np.errstate(divide="ignore"):
            loss = np.log(a) - np.log(b)
        order = np.argsort(-loss, kind="stable")
        ca, cb = np.cumsum(a[order]), np.cumsum(b[order])
        for k_a, k_b in zip(ca, cb):
            eps, _, _ = event_eps_lower_bound(int(round(k_a * h)), h, int(round(k_b * h)), h, delta, level)
            best = max(best, eps)
            if k_a * h > 0.5 * h:  # beyond half the mass the ratio only falls
                break
    return best
