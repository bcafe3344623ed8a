"""PFTAL — Private Follow The Approximate Leader (Smith & Thakurta 2013, Alg. 1), full information.

smith2013 readings R6, R7.  With z_t the gradient fed to TBAP
(:mod:`privopt.mechanisms.tbap`) and v̂_t its private prefix sum::

    ŵ_1 = 0 (the centre of C)
    for t = 1..T:  play ŵ_t, pay f_t(ŵ_t); z_t = ∇f_t(ŵ_t) [+ H ŵ_t]; v̂_t = TBAP.add(z_t)
                   ŵ_{t+1} = Π_C( (1/t) Σ_{τ≤t} ŵ_τ − v̂_t/(H t) )

The last line is exactly argmin_{w∈C} ⟨v̂_t, w⟩ + (H/2) Σ_{τ≤t} ‖w − ŵ_τ‖² (an isotropic quadratic,
smith2013 reading R6; ST Alg. 1 line 4 prints ŵ_t for ŵ_{t+1}, smith2013 reading R6).

* Strongly convex losses (``sc``, H = 1 the loss's own strong convexity): TBAP bound μ = L.
* General Lipschitz losses (``gc``): PFTAL on h_t = f_t + (H/2)‖w‖², so z_t = ∇f_t(ŵ_t) + Hŵ_t and
  μ = L + Hρ_C; the update becomes ŵ_{t+1} = Π_C(−(Σ∇f_τ(ŵ_τ) + noise)/(Ht)) (private lazy dual
  averaging).  H by ``h_rule``: ``hstar`` (default, smith2013 reading R7) H*(T, ε) = (L/ρ)·√((2/T)(p ℓ^{2.5}/ε + 2ℓ)),
  ℓ = ln T, which minimises 2L²ℓ/H + pL²ℓ^{2.5}/(εH) + HTρ²/2 and is the FTRL rate (L/ρ)√(4ℓ/T) at
  ε = ∞; ``text`` (ablation) H = p ℓ^{2.5}/(ε√T) as ST's main text writes it (H* at ε = ∞, where the
  text's H is 0).
* ε = ∞ is the non-private baseline on the same code path (FTAL = follow the leader for ``sc``).

Every gradient must satisfy ‖z_t‖ ≤ μ (smith2013 reading R5): the kernel records max_t ‖z_t‖/μ per replica and
:func:`run_pftal` raises if it exceeds 1 — the bound is never clipped silently.

Two implementations, which agree bit for bit (tests): :func:`~privopt.online.pftal.kernels.pftal_kernel` (numba,
one replica after the other, no allocation in the loop) and its twin
:func:`~privopt.online.pftal.reference.pftal_reference` (numpy, vectorised over replicas, the tree being
:class:`privopt.mechanisms.tree.TreeAggregator`).

The kernel takes its noise from a continual counter of :mod:`privopt.mechanisms.counting` (``counter=`` of
:func:`run_pftal`, :func:`pftal_counter`): v̂_t = Σ_{τ≤t} z_τ + N(t).  ``tree`` at TBAP's λ is TBAP itself (the
paper's PFTAL, bit for bit the former ``tbap_add`` path, tests); ``honaker`` (same tree, same λ) and ``smooth``
(its own pure-ε calibration) are the beyond-the-paper variants of figure ST-1c, ε-DP like TBAP.  A *replica* is one (ε, seed) pair: its
own H, μ, λ and noise stream (a :class:`privopt.fastrng.FastGenerator` state), and the point stream
``pts[idx[rows[r]]]`` it shares with the other replicas of its seed (common random numbers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privopt.mechanisms.counting import Counter, init_state, make_counter
from privopt.mechanisms.node_noise import LAPLACE
from privopt.mechanisms.tbap import C_SENS, tbap_scale
from privopt.mechanisms.tree import tree_levels
from privopt.online.pftal.kernels import pftal_kernel
from privopt.online.pftal.losses import loss_code, loss_constants

__all__ = ["H_RULES", "COUNTERS", "RATIO_TOL", "PFTALSetup", "h_star", "h_text", "pftal_setup", "pftal_counter",
           "run_pftal", "check_ratios"]

H_RULES = ("hstar", "text")
#: the continual counters PFTAL can run under its pure-ε guarantee (ℓ2-Laplace seeds), see :func:`pftal_counter`
COUNTERS = ("tree", "honaker", "smooth")
#: ‖z_t‖/μ may exceed 1 by rounding only
RATIO_TOL = 1e-9


def _ell(T: int) -> float:
    return math.log(T)


def h_star(T: int, eps: float, p: int, L: float, rho: float) -> float:
    """H*(T, ε) = (L/ρ)·√((2/T)(p ℓ^{2.5}/ε + 2ℓ)), ℓ = ln T (smith2013 reading R7; ε = ∞ drops the privacy term)."""
    ell = _ell(T)
    priv = 0.0 if math.isinf(eps) else p * ell**2.5 / eps
    return (L / rho) * math.sqrt((2.0 / T) * (priv + 2.0 * ell))


def h_text(T: int, eps: float, p: int, L: float, rho: float) -> float:
    """H = p ℓ^{2.5}/(ε√T) (ST §2.1 text; ablation), H*(T, ∞) at ε = ∞."""
    if math.isinf(eps):
        return h_star(T, eps, p, L, rho)
    return p * _ell(T) ** 2.5 / (eps * math.sqrt(T))


@dataclass(frozen=True)
class PFTALSetup:
    """The constants of one PFTAL replica (what the kernel reads, and what the run tables record)."""

    loss: str
    T: int
    p: int
    eps: float
    radius: float
    c_sens: float
    h_rule: str
    L: float
    H: float
    mu: float
    K: int
    lam: float
    regularised: bool


def pftal_setup(loss: str, T: int, p: int, eps: float, *, radius: float = 1.0, c_sens: float = C_SENS,
                h_rule: str = "hstar") -> PFTALSetup:
    """H, μ, K and λ of PFTAL for ``loss`` on the ball of radius ρ in R^p, horizon T, privacy ε (math.inf: none)."""
    if T < 2:
        raise ValueError(f"T must be >= 2, got {T}")
    if h_rule not in H_RULES:
        raise ValueError(f"h_rule must be one of {H_RULES}, got {h_rule!r}")
    const = loss_constants(loss, radius)
    L = const["L"]
    if const["H"] > 0:
        H, mu, regularised = const["H"], L, False
    else:
        H = (h_star if h_rule == "hstar" else h_text)(T, eps, p, L, radius)
        mu, regularised = L + H * radius, True
    return PFTALSetup(loss=loss, T=int(T), p=int(p), eps=float(eps), radius=float(radius), c_sens=float(c_sens),
                      h_rule=h_rule, L=L, H=H, mu=mu, K=tree_levels(T), lam=tbap_scale(mu, eps, T, c_sens),
                      regularised=regularised)


def check_ratios(max_ratio: np.ndarray, what: str) -> None:
    """Raise if a fed vector exceeded the TBAP bound μ it was calibrated for (smith2013 reading R5: never clip
    silently)."""
    bad = float(np.max(max_ratio)) if len(max_ratio) else 0.0
    if bad > 1.0 + RATIO_TOL:
        raise ValueError(f"{what}: a vector fed to TBAP has norm {bad:.6g} × its bound mu; the noise would not "
                         "give the claimed privacy")


def pftal_counter(setup: PFTALSetup, name: str = "tree") -> Counter:
    """The continual counter of one PFTAL replica, ε-DP like TBAP (items z_t with ‖z_t‖ ≤ μ; replacing one loss
    moves one item by ≤ c_sens·μ, the sensitivity Δ):

    * ``tree``: the dyadic tree at TBAP's λ = c_sens·μ·K/ε (:func:`~privopt.mechanisms.tbap.tbap_scale`) — TBAP itself;
    * ``honaker``: Honaker's bottom-up estimator on the *same* tree at the *same* λ: it noises every complete node
      (at most bit_length(T) ≤ K of them hold an item, as for the tree) and combines them — post-processing, the
      same guarantee;
    * ``smooth``: Andersson & Pagh's smooth binary mechanism with its own pure-ε calibration
      λ = (h − k)·Δ/ε (:func:`~privopt.mechanisms.counting.make_counter`).

    ε = ∞: scale 0 (no noise, no draws).
    """
    if name not in COUNTERS:
        raise ValueError(f"PFTAL's counter must be one of {COUNTERS} (pure ε), got {name!r}")
    sens = setup.c_sens * setup.mu
    if name == "smooth":
        return make_counter("smooth", setup.T, setup.p, sens, setup.eps, noise="laplace")
    return make_counter(name, setup.T, setup.p, sens, setup.eps, noise="laplace", scale=setup.lam)


def run_pftal(pts: np.ndarray, idx: np.ndarray, rows, setups, states: np.ndarray, *, record: bool = False,
              counter: str = "tree") -> dict:
    """PFTAL (numba) for the replicas ``setups`` (one :class:`PFTALSetup` each, same loss, T, p and ρ), the
    private prefix sums released by ``counter`` (:func:`pftal_counter`; ``tree`` = TBAP, the paper's).

    Returns ``{"cum_loss": (R,), "max_ratio": (R,), "w": (R, T+1, p) or None, "scale": (R,)}`` (``scale``: each
    replica's seed scale); raises if a gradient exceeded its TBAP bound.
    """
    setups = list(setups)
    first = setups[0]
    for s in setups:
        if (s.loss, s.T, s.p, s.radius, s.regularised) != (first.loss, first.T, first.p, first.radius, first.regularised):
            raise ValueError("all replicas of one call must share loss, T, p and the radius")
    pts = np.ascontiguousarray(pts, dtype=np.float64)
    if pts.shape[1] != first.p:
        raise ValueError(f"points have dimension {pts.shape[1]}, the setup says p = {first.p}")
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    if idx.shape[1] < first.T:
        raise ValueError(f"the point streams have {idx.shape[1]} rounds, need T = {first.T}")
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    counters = [pftal_counter(s, counter) for s in setups]
    # the structure (code, law, n, params, initial ibuf, rows of buf) depends on (name, T, p) only; the seed
    # scale is per replica and the noise state is the replica's own (the template's generator is not used)
    tmpl = init_state(counters[0], 0)
    if tmpl.law != LAPLACE:  # pftal_counter makes ℓ2-Laplace (pure ε) counters only
        raise ValueError(f"PFTAL's kernel runs ℓ2-Laplace seeds only, got law {tmpl.law}")
    R = len(setups)
    cum, ratio = np.zeros(R), np.zeros(R)
    scale = np.array([c.scale for c in counters])
    wrec = np.zeros((R, first.T + 1 if record else 0, first.p))
    pftal_kernel(pts, idx, rows, loss_code(first.loss), first.regularised, first.T,
                 np.array([s.H for s in setups]), np.array([s.mu for s in setups]), first.radius,
                 tmpl.code, scale, tmpl.n, tmpl.params, tmpl.ibuf.copy(), tmpl.buf.shape[0], states,
                 cum, ratio, wrec)
    check_ratios(ratio, f"PFTAL ({first.loss}, T = {first.T}, p = {first.p})")
    return {"cum_loss": cum, "max_ratio": ratio, "w": wrec if record else None, "scale": scale}
