"""SubmodPFTAL and BanditSubmodPFTAL (Rivera Cardoso & Cummings 2018, Alg. 1 and 2): PFTAL on the
Lovász extension over K = [0, 1]^n, with the tree aggregation TBAP of :mod:`privopt.mechanisms.tbap`.

docs/papers/cardoso2019.md, readings R3–R5 and R7; smith2013 readings R5, R7.  Both learners are PFTAL
(:mod:`privopt.online.pftal.full`, smith2013 reading R6) on f̂_t^H(x) = f̂_t(x) + (H/2)‖x‖², K = [0, 1]^n (projection =
clip), x_1 = 0 = χ_∅; the private sum goes through the same numba TBAP step (:func:`tbap_add`)::

    for t = 1..T:  play S_t; z_t = g_t + H x_t (‖z_t‖ ≤ μ, asserted); v̂_t = TBAP.add(z_t); s += x_t
                   x_{t+1} = clip(s/t − v̂_t/(H t), 0, 1)   (= clip(−(Σg_τ + noise)/(Ht), 0, 1))

* **SubmodPFTAL** (full information): S_t = {i : x_{t,i} > τ_t}, τ_t ~ U[0, 1) fresh each round
  (S_1 = ∅ since x_1 = 0); g_t the chain subgradient of f̂_t at x_t (:mod:`privopt.submodular.lovasz`);
  H = M/√(nT) (cardoso2019 reading R4: the paper's "M√T/√n" read as M/√(nT)), μ = L = 4M + H√n (RC Lemma 3:
  ‖g‖ ≤ 4M).  Expected loss of the round f̂_t(x_t) = E[f_t(S_t) | x_t] (the regret plotted, cardoso2019 reading R7);
  realised loss f_t(S_t).
* **BanditSubmodPFTAL**: chain (π, θ) of x_t, ρ_k = (1 − γ)θ_k + γ/(n+1); k ~ ρ, play S_t = B_k and
  see only y_t = f_t(B_k); the estimate ĝ puts −y/ρ_0 on π[1] (k = 0), +y/ρ_n on π[n] (k = n), else,
  with a fair sign σ, +2y/ρ_k on π[k] or −2y/ρ_k on π[k+1] (E ĝ = ∇f̂_t(x_t), RC Lemma 4).
  γ = min(1, n/T^{1/4}) (cardoso2019 reading R5: γ > 1 is an error unless pure exploration is asked for), H = M/(√n
  T^{1/4}),
  TBAP bound **μ = 2M(n+1)/γ + H√n** (cardoso2019 reading R5: ‖ĝ‖ ≤ 2M(n+1)/γ).  ``mu_rule="paper"`` is the paper's
  L = 4M + 2H√n, kept only as a flagged ablation: it does not bound ‖z_t‖, so the run is *not* ε-DP
  as stated — the guard raises unless ``allow_unbounded`` (the ablation and the planted bug of the
  privacy audit).  Expected loss of the round: Σ_k ρ_k f_t(B_k) (n+1 oracle calls, for evaluation only).
* ε = ∞: λ = 0, exact sums, no noise draws: the non-private learners on the same code path.
* The counter (issue 27, figure RC-1c): SubmodPFTAL's kernel releases v̂_t = Σ_{τ≤t} z_τ + N(t) with N(t) from
  any continual counter of :mod:`privopt.mechanisms.counting` (:func:`submod_counter`: ``tree`` = TBAP with
  λ = c_sens·μ·K/ε, bit for bit the :func:`tbap_add` releases; ``honaker`` the same λ on the same tree;
  ``smooth`` its own pure-ε calibration).  The bandit kernel calls :func:`tbap_add` itself.

The instances are modular + cut (:class:`privopt.submodular.cuts.CutInstance`): a_t = base − ½e_{c_t}
with c_t the round's cell, fixed edge weights; the chain values come from
:func:`privopt.submodular.cuts.cut_chain_into` in O(n + |E|).

Randomness per replica (one (ε, seed) pair, its own H, μ, λ): two :class:`privopt.fastrng.FastGenerator`
states, ``noise`` (TBAP node noise) and ``play`` (τ_t; or k and σ: two uniforms per round).
The numba kernels (:mod:`privopt.online.submod_pftal.kernels`, one replica after the other) and their numpy twins
vectorised over replicas (:mod:`privopt.online.submod_pftal.reference`) draw the same numbers from per-replica
FastGenerators.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privopt.fastrng import FastGenerator
from privopt.mechanisms.counting import Counter, init_state, make_counter
from privopt.mechanisms.node_noise import LAPLACE
from privopt.mechanisms.tbap import C_SENS, tbap_scale
from privopt.mechanisms.tree import tree_levels
from privopt.online.pftal.full import check_ratios
from privopt.online.submod_pftal.kernels import (bandit_estimate_into, explore_probs_into, submod_bandit_kernel,
                                                 submod_full_kernel)
from privopt.submodular.cuts import CutInstance, padded_adjacency

__all__ = ["MU_RULES", "FULL_COUNTERS", "SubmodSetup", "submod_counter", "full_setup", "bandit_setup", "bandit_gamma",
           "run_submod", "bandit_estimate_law", "bound_full", "bound_bandit"]

MU_RULES = ("corrected", "paper")
#: the continual counters SubmodPFTAL (full information) runs with, all at the pure ε of its TBAP (issue 27)
FULL_COUNTERS = ("tree", "honaker", "smooth")


@dataclass(frozen=True)
class SubmodSetup:
    """The constants of one replica (what the kernels read and the run tables record)."""

    mode: str  # "full" | "bandit"
    n: int
    T: int
    eps: float
    M: float
    H: float
    mu: float
    K: int
    lam: float
    c_sens: float
    gamma: float  # 0 for full information
    mu_rule: str
    private_as_stated: bool  # False for the paper's bandit bound (cardoso2019 reading R5)


def _check(n: int, T: int, eps: float, M: float) -> None:
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if T < 2:
        raise ValueError(f"T must be >= 2, got {T}")
    if not eps > 0:
        raise ValueError(f"eps must be > 0 (math.inf for no privacy), got {eps!r}")
    if not M > 0:
        raise ValueError(f"M must be > 0, got {M!r}")


def full_setup(n: int, T: int, eps: float, *, M: float = 1.0, c_sens: float = C_SENS) -> SubmodSetup:
    """SubmodPFTAL: H = M/√(nT), μ = 4M + H√n, K = ⌈log₂T⌉ + 1, λ = c_sens·μ·K/ε."""
    _check(n, T, eps, M)
    H = M / math.sqrt(n * T)
    mu = 4 * M + H * math.sqrt(n)
    return SubmodSetup(mode="full", n=int(n), T=int(T), eps=float(eps), M=float(M), H=H, mu=mu, K=tree_levels(T),
                       lam=tbap_scale(mu, eps, T, c_sens), c_sens=float(c_sens), gamma=0.0, mu_rule="corrected",
                       private_as_stated=True)


def bandit_gamma(n: int, T: int, *, allow_pure_exploration: bool = False) -> float:
    """γ = n/T^{1/4}; a ValueError naming ``T`` when it exceeds 1 (T < n⁴), unless pure exploration
    (γ = 1) is asked for (cardoso2019 reading R5)."""
    g = n / T**0.25
    if g > 1.0 + 1e-12:
        if not allow_pure_exploration:
            raise ValueError(f"T: BanditSubmodPFTAL needs T >= n^4 = {n ** 4} so that gamma = n/T^(1/4) <= 1 "
                              f"(got T = {T}, n = {n}, gamma = {g:.4g}); cardoso2019 reading R5")
        g = 1.0
    return min(g, 1.0)


def bandit_setup(n: int, T: int, eps: float, *, M: float = 1.0, c_sens: float = C_SENS, mu_rule: str = "corrected",
                 allow_pure_exploration: bool = False) -> SubmodSetup:
    """BanditSubmodPFTAL: γ = min(1, n/T^{1/4}), H = M/(√n T^{1/4}), μ = 2M(n+1)/γ + H√n (``corrected``)
    or the paper's 4M + 2H√n (``paper``: flagged, not ε-DP as stated)."""
    _check(n, T, eps, M)
    if mu_rule not in MU_RULES:
        raise ValueError(f"mu_rule must be one of {MU_RULES}, got {mu_rule!r}")
    gamma = bandit_gamma(n, T, allow_pure_exploration=allow_pure_exploration)
    H = M / (math.sqrt(n) * T**0.25)
    if mu_rule == "corrected":
        mu = 2 * M * (n + 1) / gamma + H * math.sqrt(n)
    else:
        mu = 4 * M + 2 * H * math.sqrt(n)
    return SubmodSetup(mode="bandit", n=int(n), T=int(T), eps=float(eps), M=float(M), H=H, mu=mu, K=tree_levels(T),
                       lam=tbap_scale(mu, eps, T, c_sens), c_sens=float(c_sens), gamma=gamma, mu_rule=mu_rule,
                       private_as_stated=mu_rule == "corrected")


def bound_full(s: SubmodSetup) -> float:
    """B_full = 8n(4M + 2H√n)²ℓ^{2.5}/(Hε)·c_sens + 2(4M + 2H√n)²ℓ/H + THn/2 (cardoso2019 reading R8; ℓ = ln T)."""
    ell = math.log(s.T)
    Lh = 4 * s.M + 2 * s.H * math.sqrt(s.n)
    priv = 0.0 if math.isinf(s.eps) else s.c_sens * 8 * s.n * Lh**2 * ell**2.5 / (s.H * s.eps)
    return priv + 2 * Lh**2 * ell / s.H + s.T * s.H * s.n / 2


def bound_bandit(s: SubmodSetup) -> float:
    """B_bandit with the corrected μ (cardoso2019 reading R8): 2(2M(n+1)/γ + 2H√n)²ℓ/H + 2γMT + THn/2
    + c_sens·8n(μ + H√n)²ℓ^{2.5}/(Hε) + 8nM√n√T/√γ."""
    ell = math.log(s.T)
    rn = math.sqrt(s.n)
    mu = 2 * s.M * (s.n + 1) / s.gamma + s.H * rn
    priv = 0.0 if math.isinf(s.eps) else s.c_sens * 8 * s.n * (mu + s.H * rn) ** 2 * ell**2.5 / (s.H * s.eps)
    return (2 * (2 * s.M * (s.n + 1) / s.gamma + 2 * s.H * rn) ** 2 * ell / s.H + 2 * s.gamma * s.M * s.T
            + s.T * s.H * s.n / 2 + priv + 8 * s.n * s.M * rn * math.sqrt(s.T) / math.sqrt(s.gamma))


def submod_counter(s: SubmodSetup, name: str = "tree") -> Counter:
    """The continual counter of one replica's private sum of the z_t (items in R^n, ‖z_t‖ ≤ μ), ε-DP as TBAP is.

    * ``tree``: the dyadic binary mechanism with TBAP's node scale λ = c_sens·μ·K/ε (``scale=s.lam``), the
      paper's calibration: bit for bit :func:`~privopt.mechanisms.tbap.tbap_add`'s releases (tests).
    * ``honaker``: Honaker's bottom-up estimator on the same tree with the same λ: every complete node is noised
      at λ and an item lies in at most bit_length(T) ≤ K of them, as for the tree; the estimate is a
      post-processing, so the guarantee is the tree's.
    * ``smooth``: Andersson & Pagh's smooth binary mechanism with its own calibration,
      ``make_counter("smooth", T, n, c_sens·μ, ε)``: λ = (h − k)·c_sens·μ/ε, h − k the most noised nodes holding
      one item (a replaced loss moves one item by ≤ c_sens·μ in ℓ2).
    """
    if name in ("tree", "honaker"):
        return make_counter(name, s.T, s.n, s.c_sens * s.mu, s.eps, scale=s.lam)
    if name == "smooth":
        return make_counter("smooth", s.T, s.n, s.c_sens * s.mu, s.eps)
    raise ValueError(f"counter: SubmodPFTAL runs with one of {FULL_COUNTERS} (pure ε), got {name!r}")


# --------------------------------------------------------------------------------------------- numba kernels


# ------------------------------------------------------------------------------------------ numpy versions


# --------------------------------------------------------------------------------------------- the runner

def run_submod(inst: CutInstance, cells: np.ndarray, rows, setups, noise: np.ndarray, play: np.ndarray, *,
               record_x: bool = False, record_k: bool = False, record_v: bool = False,
               allow_unbounded: bool = False, counter: str = "tree") -> dict:
    """SubmodPFTAL or BanditSubmodPFTAL (numba) for the replicas ``setups`` (same mode, n and T).

    ``counter``: the continual counter of SubmodPFTAL's private sum (:func:`submod_counter`; ``tree`` is TBAP,
    bit for bit; the bandit learner runs with the tree only).  Returns ``{"exp_loss", "real_loss", "max_ratio"}``
    (R,) plus the requested records (``x`` (R, T+1, n) full information; ``k`` (R, T), ``v`` (R, T, n) bandit)
    and, full information, ``scale`` (R,): each replica's seed scale.  Raises if a vector fed to TBAP exceeded
    its bound μ (smith2013 reading R5), unless ``allow_unbounded`` (the paper's bandit μ, a flagged ablation).
    """
    setups = list(setups)
    first = setups[0]
    for s in setups:
        if (s.mode, s.n, s.T) != (first.mode, first.n, first.T):
            raise ValueError("all replicas of one call must share the mode, n and T")
        if s.M < inst.M:
            raise ValueError(f"the setup's M = {s.M} is below the instance's bound M = {inst.M}")
    if first.n != inst.n:
        raise ValueError(f"the setups say n = {first.n}, the instance has n = {inst.n}")
    cells = np.ascontiguousarray(cells, dtype=np.int64)
    if cells.ndim != 2 or cells.shape[1] < first.T:
        raise ValueError(f"the cell streams must be (rows, >= T = {first.T}), got {cells.shape}")
    if cells.size and (cells.min() < 0 or cells.max() >= inst.n):
        raise ValueError(f"cells must lie in 0..{inst.n - 1}")
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    R, T, n = len(setups), first.T, first.n
    nbr, wts = padded_adjacency(n, inst.edges, inst.w)
    arr = lambda key: np.array([getattr(s, key) for s in setups], dtype=np.float64)  # noqa: E731
    ex, re, ratio = np.zeros(R), np.zeros(R), np.zeros(R)
    out: dict = {}
    if first.mode == "full":
        xrec = np.zeros((R, T + 1 if record_x else 0, n))
        counters = [submod_counter(s, counter) for s in setups]
        st = init_state(counters[0], FastGenerator(0))  # the layout only: each replica draws from noise[r]
        if st.law != LAPLACE:
            raise ValueError("counter: SubmodPFTAL's counters are pure ε (ℓ2-Laplace seeds)")
        scale = np.array([c.scale for c in counters], dtype=np.float64)
        submod_full_kernel(inst.base, inst.demand, cells, rows, nbr, wts, T, arr("H"), arr("mu"), st.code, scale, st.n, st.params, st.ibuf.copy(), st.buf, noise, play, ex, re, ratio, xrec)
        out["scale"] = scale
        if record_x:
            out["x"] = xrec
    else:
        if counter != "tree":
            raise ValueError(f"counter: BanditSubmodPFTAL runs with TBAP's tree only, got {counter!r}")
        krec = np.zeros((R, T if record_k else 0), dtype=np.int64)
        vrec = np.zeros((R, T if record_v else 0, n))
        submod_bandit_kernel(inst.base, inst.demand, cells, rows, nbr, wts, T, arr("H"), arr("gamma"), arr("mu"),
                             arr("lam"), noise, play, ex, re, ratio, krec, vrec)
        if record_k:
            out["k"] = krec
        if record_v:
            out["v"] = vrec
    if not allow_unbounded:
        check_ratios(ratio, f"{'SubmodPFTAL' if first.mode == 'full' else 'BanditSubmodPFTAL'} (n = {n}, T = {T})")
    out.update({"exp_loss": ex, "real_loss": re, "max_ratio": ratio})
    return out


def bandit_estimate_law(vals: np.ndarray, x: np.ndarray, gamma: float) -> list[tuple[float, int, np.ndarray]]:
    """Every outcome of the kernels' bandit estimator at x: (probability, k, ĝ), enumerating k and σ through
    :func:`explore_probs_into` and :func:`bandit_estimate_into` themselves (tests: exact moments).

    ``vals``: f(B_0..B_n) on the chain of x (the stable order of −x)."""
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    perm = np.argsort(-x, kind="stable").astype(np.int64)
    rho = np.zeros(n + 1)
    explore_probs_into(x, perm, n, float(gamma), rho)
    out = []
    for k in range(n + 1):
        signs = ((0.25, 1.0),) if k in (0, n) else ((0.25, 0.5), (0.75, 0.5))
        for us, share in signs:
            g = np.zeros(n)
            bandit_estimate_into(float(vals[k]), rho, perm, n, k, us, g)
            out.append((rho[k] * share, k, g))
    return out
