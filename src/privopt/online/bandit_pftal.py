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
streams.  :func:`bandit_kernel` (numba) and :func:`bandit_numpy` (numpy over replicas, the tree
being :class:`~privopt.mechanisms.tree.TreeAggregator`) agree bit for bit.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import numba
import numpy as np

from privopt.mechanisms.laplace import l2_laplace, l2_laplace_rows, uniform_direction_into
from privopt.mechanisms.tree import TreeAggregator, tree_depth, tree_levels
from privopt.online.losses import loss_code, loss_grad_into, loss_value_grad, row_norms
from privopt.online.pftal import check_ratios
from privopt.online.projections import project_ball, project_ball_inplace
from privopt.mechanisms.tbap import C_SENS, tbap_add, tbap_scale

__all__ = ["BETA_RULES", "BanditSetup", "bandit_setup", "bandit_kernel", "bandit_numpy", "run_bandit"]

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


@numba.njit(cache=True)
def bandit_kernel(pts, idx, rows, kind, T, H, beta, mu, lam, radius, noise, explore, cum, max_ratio, max_value):
    """Bandit PFTAL for every replica r: Σ_t f_t(ŵ_t) into ``cum[r]``, max_t ‖z_t‖/μ into ``max_ratio[r]``,
    max_t |y_t| into ``max_value[r]``.  H, beta, mu, lam (R,); ``noise``/``explore`` (R, 4) states."""
    R = H.shape[0]
    p = pts.shape[1]
    m = tree_depth(T)
    wt = np.zeros(p)
    wp = np.zeros(p)
    u = np.zeros(p)
    g = np.zeros(p)
    z = np.zeros(p)
    S = np.zeros(p)
    xsum = np.zeros(p)
    gbuf = np.zeros(p)
    eta = np.zeros((m, p))
    partial = np.zeros((m + 1, p))
    for r in range(R):
        for i in range(p):
            wt[i] = 0.0
            S[i] = 0.0
            xsum[i] = 0.0
        eta[:, :] = 0.0
        partial[:, :] = 0.0
        h = H[r]
        b = beta[r]
        shrunk = radius * (1.0 - b / radius)
        total = 0.0
        worst = 0.0
        ymax = 0.0
        row = rows[r]
        noise_r = noise[r]
        explore_r = explore[r]
        for t in range(1, T + 1):
            uniform_direction_into(explore_r, p, u)
            for i in range(p):
                wp[i] = wt[i] + b * u[i]
            y = loss_grad_into(kind, wp, pts, idx[row, t - 1], p, g)
            total += y
            if abs(y) > ymax:
                ymax = abs(y)
            ss = 0.0
            for i in range(p):
                z[i] = (p / b) * y * u[i]
                ss += z[i] * z[i]
            ratio = math.sqrt(ss) / mu[r]
            if ratio > worst:
                worst = ratio
            tbap_add(noise_r, t, p, lam[r], z, xsum, eta, partial, gbuf)
            for i in range(p):
                S[i] = S[i] + wt[i]
            for i in range(p):
                wt[i] = S[i] / t - (xsum[i] + partial[0, i]) / (h * t)
            project_ball_inplace(wt, p, shrunk)
        cum[r] = total
        max_ratio[r] = worst
        max_value[r] = ymax


def bandit_numpy(pts, idx, rows, kind, T, H, beta, mu, lam, radius, noise_gens, explore_gens):
    """The numpy reference of :func:`bandit_kernel` (same arithmetic, vectorised over replicas).

    Returns ``(cum, max_ratio, max_value)``; the generators are advanced.  ``noise_gens`` and
    ``explore_gens`` are lists of per-replica FastGenerators (the kernel's numbers exactly), or numpy
    ``Generator``s drawing for all replicas at once (same law; the fast numpy version).
    """
    H, beta, mu, lam = (np.asarray(a, dtype=np.float64) for a in (H, beta, mu, lam))
    R, p = H.shape[0], pts.shape[1]
    bulk = isinstance(noise_gens, np.random.Generator)

    def sampler(_rng):
        if bulk:
            return l2_laplace_rows(noise_gens, p, lam)
        return np.stack([l2_laplace(noise_gens[r], p, float(lam[r])) for r in range(R)])

    tree = TreeAggregator(T, (R, p), sampler, None, construction="dyadic")
    shrunk = radius * (1.0 - beta / radius)
    wt = np.zeros((R, p))
    S = np.zeros((R, p))
    total, worst, ymax = np.zeros(R), np.zeros(R), np.zeros(R)
    for t in range(1, T + 1):
        if bulk:
            u = explore_gens.standard_normal((R, p))
        else:
            u = np.stack([np.asarray(explore_gens[r].standard_normal(p), dtype=np.float64) for r in range(R)])
        u = u / row_norms(u)[:, None]
        wp = wt + beta[:, None] * u
        y, _ = loss_value_grad(kind, wp, pts[idx[rows, t - 1]])
        total = total + y
        ymax = np.maximum(ymax, np.abs(y))
        z = (p / beta)[:, None] * y[:, None] * u
        worst = np.maximum(worst, row_norms(z) / mu)
        tree.add(z)
        S = S + wt
        wt = project_ball(S / t - tree.release() / (H[:, None] * t), shrunk)
    return total, worst, ymax


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
    bandit_kernel(pts, idx, np.ascontiguousarray(rows, dtype=np.int64), loss_code(first.loss), first.T, arr("H"),
                  arr("beta"), arr("mu"), arr("lam"), first.radius, noise, explore, cum, ratio, ymax)
    over = ymax > arr("B") * (1 + 1e-12)
    if over.any():
        raise ValueError(f"bandit PFTAL: a loss value {ymax[over].max():.6g} exceeds the bound B = {arr('B')[over].max()}")
    check_ratios(ratio, f"bandit PFTAL ({first.loss}, T = {first.T}, p = {first.p})")
    return {"cum_loss": cum, "max_ratio": ratio, "max_value": ymax}
