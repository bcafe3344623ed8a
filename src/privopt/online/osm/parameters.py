"""Learning rates, exploration rates and regret bounds of online submodular maximisation
(Perez-Salazar & Cummings 2021; docs/papers/perezsalazar2021.md, readings R3–R5, R19).

Every algorithm of the paper is a set of k Hedge experts (:mod:`privopt.online.osm.hedge`) that differ
in the learning rate η, in how many draws each expert makes (T, or about 2γT for the bandit
algorithms) and, for the bandit ones, in the exploration rate γ:

==================  ==============================================  ====================
algorithm           η                                               draws per expert
==================  ==============================================  ====================
FI-DP (Alg. 2)      ε / (k √(32 T ln(k/δ)))                         T
SG-NP               √(k ln n / T)  (Streeter–Golovin, non-private)  T
UNIF                0  (uniform k-set, (0,0)-DP)                     T
BanditDP (Alg. 3)   ε / (k √(32 · 2γT · ln(k/δ)))                   ≤ 2γT (whp)
B1-NAIVE (App. B1)  ε / (k √(32 T ln(k/δ)))                         T
B2-PRESAMPLE (B2)   ε / (k √(32 (M+1) ln(k/δ)))                     M + 1 (exact)
SG-BANDIT-NP        √(k n ln n / (γT))                              —
==================  ==============================================  ====================

γ (perezsalazar2021 reading R5): the printed ``γ = k((16 n ln n)²/T)^{1/3}`` is ≥ 1 at every practical
T, so the experiments use ``γ(T) = min(1/2, c_γ·T^{−1/3})`` (B1 at its own rate: ``T^{−1/4}``).
Natural logarithms throughout (perezsalazar2021 reading R2).
"""

from __future__ import annotations

import math

__all__ = [
    "ONE_MINUS_INV_E",
    "fi_eta",
    "sg_eta",
    "bandit_eta",
    "b1_eta",
    "b2_eta",
    "sg_bandit_eta",
    "practical_gamma",
    "printed_gamma",
    "effective_budget",
    "fi_bound",
    "fi_bound_sharp",
    "bandit_bound",
    "alg4_experts",
    "alg4_H",
]

ONE_MINUS_INV_E = 1.0 - math.exp(-1.0)


def _check(eps: float, k: int, delta: float, T: int) -> None:
    if not eps > 0:
        raise ValueError(f"eps must be > 0, got {eps!r}")
    if k < 1 or T < 1 or not 0 < delta < 1:
        raise ValueError(f"need k >= 1, T >= 1 and 0 < delta < 1; got k={k}, T={T}, delta={delta}")


def fi_eta(eps: float, k: int, T: int, delta: float) -> float:
    """Algorithm 2, line 1: each of the k experts gets (ε/k, δ/k) over its T draws (Prop. 2)."""
    _check(eps, k, delta, T)
    return eps / (k * math.sqrt(32.0 * T * math.log(k / delta)))


def sg_eta(k: int, n: int, T: int) -> float:
    """Streeter–Golovin's non-private rate ``√(k ln n / T)`` (minimises ηT + k ln n / η)."""
    return math.sqrt(k * math.log(n) / T)


def bandit_eta(eps: float, k: int, T: int, delta: float, gamma: float) -> float:
    """Algorithm 3, line 1: the budget is sized for 2γT draws per expert."""
    _check(eps, k, delta, T)
    return eps / (k * math.sqrt(32.0 * 2.0 * gamma * T * math.log(k / delta)))


def b1_eta(eps: float, k: int, T: int, delta: float) -> float:
    """App. B.1 (a fresh set every round): T draws per expert, the FI-DP rate."""
    return fi_eta(eps, k, T, delta)


def b2_eta(eps: float, k: int, M: int, delta: float) -> float:
    """App. B.2 (explore times drawn before round 1): M + 1 draws per expert, M known in advance."""
    _check(eps, k, delta, M + 1)
    return eps / (k * math.sqrt(32.0 * (M + 1) * math.log(k / delta)))


def sg_bandit_eta(k: int, n: int, T: int, gamma: float) -> float:
    """Non-private bandit rate ``√(k n ln n / (γT))`` (minimises ηγT/(kn) + ln n / η)."""
    return math.sqrt(k * n * math.log(n) / (gamma * T))


def practical_gamma(T: int, c_gamma: float = 2.0, power: float = 1.0 / 3.0) -> float:
    """γ(T) = min(1/2, c_γ·T^{−power}) (perezsalazar2021 reading R5; power 1/4 for B1 at its own rate)."""
    return min(0.5, c_gamma * T ** (-power))


def printed_gamma(k: int, n: int, T: int) -> float:
    """The γ printed in Algorithm 3, ``k((16 n ln n)²/T)^{1/3}`` (≥ 1 at every practical T)."""
    return k * ((16.0 * n * math.log(n)) ** 2 / T) ** (1.0 / 3.0)


def effective_budget(eps: float, T: int, k: int, n: int, delta: float) -> float:
    """u = ε√T / (k² ln n √(32 ln(k/δ))): the leading term of Thm 6 divided by T is 1/u."""
    return eps * math.sqrt(T) / (k * k * math.log(n) * math.sqrt(32.0 * math.log(k / delta)))


def fi_bound(eta: float, k: int, n: int, T: int) -> float:
    """B_FI = k(ηT + ln n / η): Thm 6 with the constants of its proof (bounds E Σ_i r_i)."""
    return k * (eta * T + math.log(n) / eta)


def fi_bound_sharp(eta: float, k: int, n: int, T: int) -> float:
    """ηT + k ln n / η: the same ingredients, using Σ_i x·g² ≤ f_t(S_t) ≤ 1 per round."""
    return eta * T + k * math.log(n) / eta


def bandit_bound(eps: float, k: int, n: int, T: int, delta: float, gamma: float) -> float:
    """B_BD (perezsalazar2021 reading R19): k·[8k² n ln n √(T ln(k/δ))/(ε√γ) + ε√T/(8k√(γ ln(k/δ)))] + γT (tail
    dropped)."""
    L = math.log(k / delta)
    per_expert = 8 * k * k * n * math.log(n) * math.sqrt(T * L) / (eps * math.sqrt(gamma)) + eps * math.sqrt(T) / (
        8 * k * math.sqrt(gamma * L))
    return k * per_expert + gamma * T


def alg4_experts(T: int) -> int:
    """K = ⌈(T / ln^{2.5} T)^{1/4}⌉, at least 1 (App. C's formula; perezsalazar2021 reading R9)."""
    if T < 3:
        return 1
    return max(1, math.ceil((T / math.log(T) ** 2.5) ** 0.25))


def alg4_H(c_H: float, n: int, T: int, eps_expert: float) -> float:
    """PFTAL's regulariser H = c_H · n · ln^{2.5}(T) / (ε' √T) (perezsalazar2021 reading R10, ε' = ε/K)."""
    return c_H * n * math.log(max(T, 3)) ** 2.5 / (eps_expert * math.sqrt(T))
