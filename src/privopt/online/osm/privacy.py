"""Privacy bookkeeping of online submodular maximisation: certified ε and the bandit δ-tail.

docs/papers/perezsalazar2021.md, readings R1, R3 ("certified ε", a pipeline helper, not in the paper) and R21.

*Certified ε.*  An algorithm made of k Hedge experts, each drawing N times with rate η, is
``(ε_cert, δ)``-DP with (Lemma 1 + composition: each draw is the exponential mechanism with a
sensitivity-1 score, i.e. 2η-DP; advanced composition over the N draws of an expert with δ/k;
basic composition over the k experts)::

    ε_cert(η, N, k, δ) = k · min( 2ηN ,  2η√(2N ln(k/δ)) + 2ηN(e^{2η} − 1) ).

With the paper's η this is ≈ ε/2 + ε²/(8k ln(k/δ)), so a nominal ε is *certified* (ε_cert ≤ ε)
only up to about 4k ln(k/δ).  Larger nominal ε are the learning rate the formula gives, with no
privacy guarantee of that size: plots draw them as hollow markers ("nominal ε, η-equivalent").

*η-equivalent nominal ε* of any rate η: the ε for which the paper's formula gives this η
(:func:`nominal_eps`); for the non-private Streeter–Golovin rate it does not depend on T.

*Bandit δ-tail.*  Algorithm 3 is (ε, δ + P(M ≥ 2γT))-DP, M ~ Bin(T, γ) the number of
exploration rounds.  The paper states P(M ≥ 2γT) ≤ e^{−8γ²T}; that does not follow from
Hoeffding (e^{−2γ²T}) and is false for γ ≳ 0.05 (perezsalazar2021 reading R6), so :func:`bandit_tail`
reports the exact binomial tail (log space: the values underflow float64) beside the paper's,
Hoeffding's, the multiplicative Chernoff and the KL–Chernoff bounds, and ``delta_tail`` uses
Hoeffding's.
"""

from __future__ import annotations

import math

import numpy as np

# the one composition theorem of the library (Thm 4 of the paper: √(2N ln(1/δ))·ε0 + N ε0 (e^{ε0} − 1));
# re-exported here for the paper's readers, not redefined
from privopt.mechanisms.accounting import advanced_composition
from privopt.mechanisms.exact_accounting import br_epsilon, pure_dp_epsilon

__all__ = ["eps_cert", "eps_cert_exact", "nominal_eps", "is_certified", "advanced_composition", "bandit_tail", "log10_binom_tail"]


def eps_cert(eta: float, N: int, k: int, delta: float) -> float:
    """Certified ε of k Hedge experts with rate η and N draws each, at total δ (module docstring)."""
    if eta < 0 or N < 0 or k < 1 or not 0 < delta < 1:
        raise ValueError(f"need eta >= 0, N >= 0, k >= 1, 0 < delta < 1; got {eta}, {N}, {k}, {delta}")
    if eta == 0 or N == 0:
        return 0.0
    eps0 = 2.0 * eta
    return k * min(eps0 * N, advanced_composition(eps0, N, delta / k))


def eps_cert_exact(eta: float, N: int, k: int, delta: float, *, bounded_range: bool = True) -> float:
    """ε of the same k·N draws under exact composition at total δ (issue 39, beside :func:`eps_cert`).

    Each draw is the exponential mechanism with rate η on a sensitivity-1 score: 2η-DP and 2η-bounded-range.
    ``bounded_range=True``: optimal composition of k·N 2η-BR steps (Dong, Durfee & Rogers 2020);
    False: optimal composition of k·N 2η-DP steps (Kairouz, Oh & Viswanath 2015).  Never above
    :func:`eps_cert` (both bound the same composition; these are the least such bounds)."""
    if eta < 0 or N < 0 or k < 1 or not 0 < delta < 1:
        raise ValueError(f"need eta >= 0, N >= 0, k >= 1, 0 < delta < 1; got {eta}, {N}, {k}, {delta}")
    if eta == 0 or N == 0:
        return 0.0
    return (br_epsilon if bounded_range else pure_dp_epsilon)(2.0 * eta, int(k) * int(N), delta)


def nominal_eps(eta: float, N: int, k: int, delta: float) -> float:
    """The ε the paper's rule ε/(k√(32 N ln(k/δ))) maps to η, i.e. η·k·√(32 N ln(k/δ))."""
    return eta * k * math.sqrt(32.0 * N * math.log(k / delta))


def is_certified(eps_nominal: float, eps_certified: float) -> bool:
    """A point is certified when its certified ε does not exceed its nominal ε."""
    return bool(eps_certified <= eps_nominal * (1 + 1e-12))


def log10_binom_tail(m: int, T: int, p: float) -> float:
    """log10 P(Bin(T, p) ≥ m), exact (scipy's log survival function, or a log-sum of the pmf
    where that underflows)."""
    from scipy import stats
    from scipy.special import logsumexp

    if m <= 0:
        return 0.0
    if m > T:
        return -math.inf
    value = float(stats.binom.logsf(m - 1, T, p))
    if not math.isfinite(value):
        # the pmf falls geometrically beyond the mean: a few thousand terms hold all the mass
        js = np.arange(m, min(T, m + 20000) + 1)
        value = float(logsumexp(stats.binom.logpmf(js, T, p)))
    return value / math.log(10.0)


def bandit_tail(T: int, gamma: float) -> dict[str, float]:
    """log10 of P(M ≥ 2γT) for M ~ Bin(T, γ): exact, and the paper's, Hoeffding's, Chernoff's
    (e^{−γT/3}) and the KL–Chernoff (e^{−T·KL(2γ‖γ)}) bounds; ``cap`` = ⌈2γT⌉."""
    cap = math.ceil(2.0 * gamma * T)
    ln10 = math.log(10.0)
    out = {"cap": float(cap), "log10_exact": log10_binom_tail(cap, T, gamma),
           "log10_paper": -8.0 * gamma * gamma * T / ln10,
           "log10_hoeffding": -2.0 * gamma * gamma * T / ln10,
           "log10_chernoff": -gamma * T / 3.0 / ln10}
    q = 2.0 * gamma
    if q < 1:
        kl = q * math.log(q / gamma) + (1 - q) * math.log((1 - q) / (1 - gamma))
        out["log10_kl"] = -T * kl / ln10
    elif q == 1:
        out["log10_kl"] = T * math.log(gamma) / ln10
    else:  # 2γT > T: M ≥ 2γT is impossible
        out["log10_kl"] = -math.inf
    return out
