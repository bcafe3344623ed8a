"""Private bandit FTAL (Smith & Thakurta 2013 §3, their Alg. 3 [inferred: the appendix is missing]).

docs/papers/smith2013.md, reading R8.  One-point gradient estimates (Flaxman, Kalai,
McMahan): with u uniform on S^{p−1}, E_u[(p/β) f(w + βu) u] = ∇f̂(w), f̂ the loss smoothed over βB^p::

    w̃_1 = 0 ∈ (1 − ξ)C,  ξ = β/r
    for t = 1..T:  u_t ~ Unif(S^{p−1});  play ŵ_t = w̃_t + β u_t;  observe y_t = f_t(ŵ_t) only
                   z_t = (p/β) y_t u_t                (‖z_t‖ ≤ pB/β = μ, since |f_t| ≤ B on C)
                   v̂_t = TBAP.add(z_t)
                   w̃_{t+1} = Π_{(1−ξ)C}( (1/t) Σ_{τ≤t} w̃_τ − v̂_t/(H t) )     (ST eq. 9: anchors at w̃_τ)

C is the ball of radius ρ (r = R = ρ in ST's Thm 6), so ŵ_t ∈ C.  β by ``beta_rule``: ``oblivious``
β = p/T^{1/3}, ``adaptive`` β = p/T^{1/4} (ST Thm 6), capped at r/2 (smith2013 reading R8: β < r is required; the
cap binds for p = 2, r = 1 only below T = 64 / 256, and is recorded in :class:`BanditSetup`).  Regret
counts the played points ŵ_t against min over all of C.  ε = ∞ is non-private bandit FTAL (ST eq. 8).

Randomness per replica: the TBAP node noise (``noise`` state) and the exploration directions
(``explore`` state: p normals per round, normalised), two :class:`privopt.fastrng.FastGenerator`
streams.  :func:`~privopt.online.pftal.kernels.bandit_pftal_kernel` (numba) and its twin
:func:`~privopt.online.pftal.reference.bandit_pftal_reference` (numpy over replicas, the tree being
:class:`~privopt.mechanisms.tree.TreeAggregator`) agree bit for bit.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from privopt.mechanisms.tbap import C_SENS, tbap_scale
from privopt.mechanisms.tree import tree_levels
from privopt.online.pftal.full import check_ratios
from privopt.online.pftal.kernels import bandit_pftal_kernel
from privopt.online.pftal.losses import loss_code

__all__ = ["BETA_RULES", "BanditSetup", "bandit_setup", "run_bandit"]

_log = logging.getLogger(__name__)

#: β = p / T^a
BETA_RULES = {"oblivious": 1.0 / 3.0, "adaptive": 0.25}


@dataclass(frozen=True)
class BanditSetup:
    """The constants of one bandit-PFTAL replica."""

    loss: str
    T: int
    p: int
    eps: float
    radius: float
    B: float
    H: float
    beta_rule: str
    beta: float
    beta_capped: bool
    xi: float
    c_sens: float
    mu: float
    K: int
    lam: float


def bandit_setup(loss: str, T: int, p: int, eps: float, *, beta_rule: str, B: float, H: float = 1.0,
                 radius: float = 1.0, c_sens: float = C_SENS) -> BanditSetup:
    """β, ξ, μ = pB/β, K and λ for bandit PFTAL on the ball of radius ρ (r = R = ρ)."""
    if beta_rule not in BETA_RULES:
        raise ValueError(f"beta_rule must be one of {sorted(BETA_RULES)}, got {beta_rule!r}")
    if T < 2:
        raise ValueError(f"T must be >= 2, got {T}")
    loss_code(loss)
    beta = p / T ** BETA_RULES[beta_rule]
    capped = beta > radius / 2
    if capped:
        _log.warning("bandit PFTAL: beta = p/T^%.3g = %.4g exceeds r/2 = %.4g at T = %d; capped at r/2 (smith2013 reading R8)",
                     BETA_RULES[beta_rule], beta, radius / 2, T)
    beta = min(beta, radius / 2)
    mu = p * B / beta
    return BanditSetup(loss=loss, T=int(T), p=int(p), eps=float(eps), radius=float(radius), B=float(B), H=float(H),
                       beta_rule=beta_rule, beta=beta, beta_capped=capped, xi=beta / radius, c_sens=float(c_sens),
                       mu=mu, K=tree_levels(T), lam=tbap_scale(mu, eps, T, c_sens))


def run_bandit(pts: np.ndarray, idx: np.ndarray, rows, setups, noise: np.ndarray, explore: np.ndarray) -> dict:
    """Bandit PFTAL (numba) for the replicas ``setups`` (same loss, T, p, ρ).

    Returns ``{"cum_loss", "max_ratio", "max_value"}`` (each (R,)); raises if a loss value exceeded B
    or an estimate exceeded its TBAP bound.
    """
    setups = list(setups)
    first = setups[0]
    for s in setups:
        if (s.loss, s.T, s.p, s.radius) != (first.loss, first.T, first.p, first.radius):
            raise ValueError("all replicas of one call must share loss, T, p and the radius")
    pts = np.ascontiguousarray(pts, dtype=np.float64)
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    if idx.shape[1] < first.T:
        raise ValueError(f"the point streams have {idx.shape[1]} rounds, need T = {first.T}")
    R = len(setups)
    cum, ratio, ymax = np.zeros(R), np.zeros(R), np.zeros(R)
    arr = lambda key: np.array([getattr(s, key) for s in setups], dtype=np.float64)  # noqa: E731
    bandit_pftal_kernel(pts, idx, np.ascontiguousarray(rows, dtype=np.int64), loss_code(first.loss), first.T, arr("H"),
                  arr("beta"), arr("mu"), arr("lam"), first.radius, noise, explore, cum, ratio, ymax)
    over = ymax > arr("B") * (1 + 1e-12)
    if over.any():
        raise ValueError(f"bandit PFTAL: a loss value {ymax[over].max():.6g} exceeds the bound B = {arr('B')[over].max()}")
    check_ratios(ratio, f"bandit PFTAL ({first.loss}, T = {first.T}, p = {first.p})")
    return {"cum_loss": cum, "max_ratio": ratio, "max_value": ymax}
