"""SubmodPFTAL and BanditSubmodPFTAL (Rivera Cardoso & Cummings 2018, Alg. 1 and 2): PFTAL on the
Lovász extension over K = [0, 1]^n, with the tree aggregation TBAP of :mod:`privopt.mechanisms.tbap`.

docs/papers/cardoso2019.md, readings R3–R5 and R7; smith2013 readings R5, R7.  Both learners are PFTAL
(:mod:`privopt.online.pftal`, smith2013 reading R6) on f̂_t^H(x) = f̂_t(x) + (H/2)‖x‖², K = [0, 1]^n (projection =
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
:func:`submod_full_kernel` / :func:`submod_bandit_kernel` (numba, one replica after the other) and the
numpy versions vectorised over replicas (:func:`submod_full_numpy`, :func:`submod_bandit_numpy`) draw the
same numbers from per-replica FastGenerators (tests: equal to rounding for ε < ∞; at ε = ∞ exact ties
between coordinates of x, which the numpy closed-form subgradient may split by one ulp, can be broken
differently); given numpy Generators, the numpy versions draw
in bulk (same law; the baseline of the benchmark).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from privopt.fastrng import FastGenerator, rng_uniform
from privopt.mechanisms.counting import Counter, init_state, laplace_counter_step, make_counter
from privopt.mechanisms.dyadic_counter import tree_step
from privopt.mechanisms.node_noise import LAPLACE
from privopt.mechanisms.laplace import l2_laplace, l2_laplace_rows
from privopt.mechanisms.tree import TreeAggregator, tree_depth, tree_levels
from privopt.online.pftal import check_ratios
from privopt.mechanisms.tbap import C_SENS, tbap_add, tbap_scale
from privopt.submodular.cuts import CutInstance, cut_chain_into, padded_adjacency, sort_chain

__all__ = ["MU_RULES", "FULL_COUNTERS", "SubmodSetup", "submod_counter", "full_setup", "bandit_setup", "bandit_gamma", "submod_full_kernel",
           "submod_bandit_kernel", "submod_full_numpy", "submod_bandit_numpy", "run_submod",
           "bandit_estimate_law", "explore_probs_into", "bandit_estimate_into", "bound_full",
           "bound_bandit"]

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

@numba.njit(cache=True, inline="always")
def explore_probs_into(x, perm, n, gm, rho):
    """ρ_k = (1 − γ)θ_k + γ/(n+1), k = 0..n, on the chain ``perm`` of x."""
    unif = gm / (n + 1)
    rho[0] = (1.0 - gm) * (1.0 - x[perm[0]]) + unif
    for k in range(1, n):
        rho[k] = (1.0 - gm) * (x[perm[k - 1]] - x[perm[k]]) + unif
    rho[n] = (1.0 - gm) * x[perm[n - 1]] + unif


@numba.njit(cache=True, inline="always")
def bandit_estimate_into(y, rho, perm, n, k, us, g):
    """ĝ into g for the played chain index k, value y = f(B_k) and sign uniform ``us`` (σ = +1 iff us < ½)."""
    for i in range(n):
        g[i] = 0.0
    if k == 0:
        g[perm[0]] = -y / rho[0]
    elif k == n:
        g[perm[n - 1]] = y / rho[n]
    elif us < 0.5:
        g[perm[k - 1]] = 2.0 * y / rho[k]
    else:
        g[perm[k]] = -2.0 * y / rho[k]


@numba.njit(cache=True)
def submod_full_kernel(base, half, cells, rows, nbr, wts, T, H, mu, code, scale, cn, params, ibuf0, buf, noise, play,
                       exp_loss, real_loss, max_ratio, xrec):
    """SubmodPFTAL for every replica r: Σ_t f̂_t(x_t) into ``exp_loss[r]``, Σ_t f_t(S_t) into
    ``real_loss[r]``, max_t ‖z_t‖/μ into ``max_ratio[r]``.

    base (n,); cells (S, ≥T) cell streams; rows (R,) stream row per replica; nbr, wts the graph
    (:func:`padded_adjacency`); H, mu (R,); the continual counter of the private sum of the z_t:
    ``code, cn, params, ibuf0, buf`` the fields of its :class:`~privopt.mechanisms.counting.CounterState` (ℓ2-Laplace
    seeds; the same counter for every replica; ``buf`` is zeroed and the leaf ``ibuf0`` restored per replica), its
    seed scale per replica ``scale`` (R,) (0: ε = ∞, no draws); noise/play (R, 4) FastGenerator states (advanced);
    xrec (R, T+1, n) gets x_1..x_{T+1}, or is (R, 0, n).  The release after round t is Σ_{τ≤t} z_τ + N(t), N(t)
    from the tree's step, inlined (TBAP, the paper's), or :func:`~privopt.mechanisms.counting.laplace_counter_step`
    (a plain call) for the other counters: at most one counter inlined in the loop (docs/continual-counting.md §4).
    """
    R = H.shape[0]
    n = base.shape[0]
    x = np.zeros(n)
    a = np.zeros(n)
    g = np.zeros(n)
    z = np.zeros(n)
    S = np.zeros(n)
    xsum = np.zeros(n)
    nz = np.zeros(n)
    gbuf = np.zeros(n)
    ibuf = np.zeros_like(ibuf0)
    vals = np.zeros(n + 1)
    inset = np.zeros(n + 1, dtype=np.bool_)
    perm = np.zeros(n, dtype=np.int64)
    scratch = np.zeros(n + 1, dtype=np.int64)
    record = xrec.shape[1] > 0
    for r in range(R):
        for i in range(n):
            x[i] = 0.0
            S[i] = 0.0
            xsum[i] = 0.0
            nz[i] = 0.0
            perm[i] = i
        buf[:, :] = 0.0
        for j in range(ibuf0.shape[0]):
            ibuf[j] = ibuf0[j]
        h = H[r]
        sc = scale[r]
        ex = 0.0
        re = 0.0
        worst = 0.0
        row = rows[r]
        nst = noise[r]
        pst = play[r]
        for t in range(1, T + 1):
            if record:
                for i in range(n):
                    xrec[r, t - 1, i] = x[i]
            for i in range(n):
                a[i] = base[i]
            c = cells[row, t - 1]
            a[c] -= half
            sort_chain(x, perm, n, scratch)
            cut_chain_into(a, nbr, wts, perm, n, inset, vals, g)
            # f̂(x) = Σ_k θ_k f(B_k), θ_0 = 1 − x_{π1}, θ_k = x_{πk} − x_{π(k+1)}, θ_n = x_{πn}
            fh = (1.0 - x[perm[0]]) * vals[0]
            for k in range(1, n):
                fh += (x[perm[k - 1]] - x[perm[k]]) * vals[k]
            fh += x[perm[n - 1]] * vals[n]
            ex += fh
            tau = rng_uniform(pst)
            cnt = 0
            for i in range(n):  # branch-free count (x_i > τ is a coin flip per coordinate under large noise)
                cnt += x[i] > tau
            re += vals[cnt]
            ss = 0.0
            for i in range(n):
                z[i] = g[i] + h * x[i]
                ss += z[i] * z[i]
            ratio = math.sqrt(ss) / mu[r]
            if ratio > worst:
                worst = ratio
            for i in range(n):
                xsum[i] = xsum[i] + z[i]
            if sc > 0.0:  # ε = ∞: N(t) = 0 and no draws
                if code == 0:  # the tree (TBAP, RC-1's path) inlined: the one counter of this loop
                    tree_step(t, LAPLACE, sc, n, cn, buf, nst, gbuf, nz)
                else:
                    laplace_counter_step(code, sc, n, cn, params, ibuf, buf, nst, gbuf, t, nz)
            for i in range(n):
                S[i] = S[i] + x[i]
            for i in range(n):
                v = S[i] / t - (xsum[i] + nz[i]) / (h * t)
                x[i] = 0.0 if v < 0.0 else (1.0 if v > 1.0 else v)
        if record:
            for i in range(n):
                xrec[r, T, i] = x[i]
        exp_loss[r] = ex
        real_loss[r] = re
        max_ratio[r] = worst


@numba.njit(cache=True)
def submod_bandit_kernel(base, half, cells, rows, nbr, wts, T, H, gamma, mu, lam, noise, play,
                         exp_loss, real_loss, max_ratio, krec, vrec):
    """BanditSubmodPFTAL for every replica r: Σ_t Σ_k ρ_k f_t(B_k) into ``exp_loss[r]``, Σ_t f_t(S_t) into
    ``real_loss[r]``, max_t ‖z_t‖/μ into ``max_ratio[r]``.  gamma (R,); krec (R, T) gets the played chain
    index k_t (= |S_t|) and vrec (R, T, n) the releases v̂_t, or they have no columns."""
    R = H.shape[0]
    n = base.shape[0]
    m = tree_depth(T)
    x = np.zeros(n)
    a = np.zeros(n)
    g = np.zeros(n)
    z = np.zeros(n)
    S = np.zeros(n)
    xsum = np.zeros(n)
    gbuf = np.zeros(n)
    vals = np.zeros(n + 1)
    rho = np.zeros(n + 1)
    inset = np.zeros(n + 1, dtype=np.bool_)
    perm = np.zeros(n, dtype=np.int64)
    scratch = np.zeros(n + 1, dtype=np.int64)
    eta = np.zeros((m, n))
    partial = np.zeros((m + 1, n))
    keep_k = krec.shape[1] > 0
    keep_v = vrec.shape[1] > 0
    for r in range(R):
        for i in range(n):
            x[i] = 0.0
            S[i] = 0.0
            xsum[i] = 0.0
            perm[i] = i
        eta[:, :] = 0.0
        partial[:, :] = 0.0
        h = H[r]
        gm = gamma[r]
        ex = 0.0
        re = 0.0
        worst = 0.0
        row = rows[r]
        nst = noise[r]
        pst = play[r]
        for t in range(1, T + 1):
            for i in range(n):
                a[i] = base[i]
            c = cells[row, t - 1]
            a[c] -= half
            sort_chain(x, perm, n, scratch)
            cut_chain_into(a, nbr, wts, perm, n, inset, vals, g)
            explore_probs_into(x, perm, n, gm, rho)
            e = 0.0
            for k in range(n + 1):
                e += rho[k] * vals[k]
            ex += e
            u = rng_uniform(pst)
            us = rng_uniform(pst)
            k = 0
            acc = rho[0]
            while k < n and u >= acc:
                k += 1
                acc += rho[k]
            y = vals[k]
            re += y
            if keep_k:
                krec[r, t - 1] = k
            bandit_estimate_into(y, rho, perm, n, k, us, g)
            ss = 0.0
            for i in range(n):
                z[i] = g[i] + h * x[i]
                ss += z[i] * z[i]
            ratio = math.sqrt(ss) / mu[r]
            if ratio > worst:
                worst = ratio
            tbap_add(nst, t, n, lam[r], z, xsum, eta, partial, gbuf)
            if keep_v:
                for i in range(n):
                    vrec[r, t - 1, i] = xsum[i] + partial[0, i]
            for i in range(n):
                S[i] = S[i] + x[i]
            for i in range(n):
                v = S[i] / t - (xsum[i] + partial[0, i]) / (h * t)
                x[i] = 0.0 if v < 0.0 else (1.0 if v > 1.0 else v)
        exp_loss[r] = ex
        real_loss[r] = re
        max_ratio[r] = worst


# ------------------------------------------------------------------------------------------ numpy versions

def _incidence(n: int, edges: np.ndarray) -> np.ndarray:
    inc = np.zeros((edges.shape[0], n))
    inc[np.arange(edges.shape[0]), edges[:, 0]] = 1.0
    inc[np.arange(edges.shape[0]), edges[:, 1]] = -1.0
    return inc


def _numpy_round(inst: CutInstance, inc, x, c):
    """Vectorised chain of every replica: (perm, θ, vals (R, n+1), g (R, n)) by the closed form."""
    R, n = x.shape
    perm = np.argsort(-x, axis=1, kind="stable")
    rank = np.empty_like(perm)
    np.put_along_axis(rank, perm, np.arange(n)[None, :], axis=1)
    a = np.broadcast_to(inst.base, (R, n)).copy()
    a[np.arange(R), c] -= inst.demand
    ei, ej = inst.edges[:, 0], inst.edges[:, 1]
    s = np.sign(rank[:, ej] - rank[:, ei]) * inst.w[None, :]
    g = a + s @ inc
    vals = np.zeros((R, n + 1))
    vals[:, 1:] = np.cumsum(np.take_along_axis(g, perm, axis=1), axis=1)
    xs = np.take_along_axis(x, perm, axis=1)
    theta = np.empty((R, n + 1))
    theta[:, 0] = 1.0 - xs[:, 0]
    theta[:, 1:-1] = xs[:, :-1] - xs[:, 1:]
    theta[:, -1] = xs[:, -1]
    return perm, theta, vals, g


def _tree(T, R, n, lam, gens):
    if isinstance(gens, np.random.Generator):
        def sampler(_rng):
            return l2_laplace_rows(gens, n, lam)
    else:
        def sampler(_rng):
            return np.stack([l2_laplace(gens[r], n, float(lam[r])) for r in range(R)])
    return TreeAggregator(T, (R, n), sampler, None, construction="dyadic")


def _uniforms(gens, R):
    if isinstance(gens, np.random.Generator):
        return gens.random(R)
    return np.array([gens[r].random() for r in range(R)])


def submod_full_numpy(inst: CutInstance, cells, rows, T, H, mu, lam, noise_gens, play_gens):
    """The numpy version of :func:`submod_full_kernel`, vectorised over replicas.

    ``noise_gens``/``play_gens``: per-replica FastGenerators (the kernel's numbers) or numpy Generators
    (bulk draws).  Returns ``(exp_loss, real_loss, max_ratio)``."""
    H, mu, lam = (np.asarray(v, dtype=np.float64) for v in (H, mu, lam))
    rows = np.asarray(rows, dtype=np.int64)
    R, n = H.shape[0], inst.n
    inc = _incidence(n, inst.edges)
    tree = _tree(T, R, n, lam, noise_gens)
    x = np.zeros((R, n))
    S = np.zeros((R, n))
    xsum = np.zeros((R, n))
    ex, re, worst = np.zeros(R), np.zeros(R), np.zeros(R)
    for t in range(1, T + 1):
        _, theta, vals, g = _numpy_round(inst, inc, x, cells[rows, t - 1])
        ex += np.sum(theta * vals, axis=1)
        tau = _uniforms(play_gens, R)
        re += vals[np.arange(R), np.count_nonzero(x > tau[:, None], axis=1)]
        z = g + H[:, None] * x
        worst = np.maximum(worst, np.sqrt(np.sum(z * z, axis=1)) / mu)
        tree.add(z)
        xsum += z  # the exact sum in the kernel's order (ties at ε = ∞ then break alike)
        S += x
        x = np.clip(S / t - (xsum + tree.noise()) / (H[:, None] * t), 0.0, 1.0)
    return ex, re, worst


def submod_bandit_numpy(inst: CutInstance, cells, rows, T, H, gamma, mu, lam, noise_gens, play_gens):
    """The numpy version of :func:`submod_bandit_kernel` (arguments as :func:`submod_full_numpy`)."""
    H, gamma, mu, lam = (np.asarray(v, dtype=np.float64) for v in (H, gamma, mu, lam))
    rows = np.asarray(rows, dtype=np.int64)
    R, n = H.shape[0], inst.n
    ar = np.arange(R)
    inc = _incidence(n, inst.edges)
    tree = _tree(T, R, n, lam, noise_gens)
    x = np.zeros((R, n))
    S = np.zeros((R, n))
    xsum = np.zeros((R, n))
    ex, re, worst = np.zeros(R), np.zeros(R), np.zeros(R)
    for t in range(1, T + 1):
        perm, theta, vals, _ = _numpy_round(inst, inc, x, cells[rows, t - 1])
        rho = (1.0 - gamma[:, None]) * theta + (gamma / (n + 1))[:, None]
        ex += np.sum(rho * vals, axis=1)
        if isinstance(play_gens, np.random.Generator):
            u, us = play_gens.random(R), play_gens.random(R)
        else:
            pair = np.array([[play_gens[r].random(), play_gens[r].random()] for r in range(R)]).reshape(R, 2)
            u, us = pair[:, 0], pair[:, 1]
        k = np.minimum(np.sum(np.cumsum(rho, axis=1) <= u[:, None], axis=1), n)
        y = vals[ar, k]
        re += y
        rk = rho[ar, k]
        first, last = k == 0, k == n
        mid = ~first & ~last
        plus = mid & (us < 0.5)
        minus = mid & ~plus
        coord = np.where(first, perm[:, 0], np.where(last, perm[:, n - 1],
                         np.where(plus, perm[ar, np.maximum(k - 1, 0)], perm[ar, np.minimum(k, n - 1)])))
        amount = np.where(first, -y / rk, np.where(last, y / rk, np.where(plus, 2 * y / rk, -2 * y / rk)))
        amount = np.where(minus | plus | first | last, amount, 0.0)
        ghat = np.zeros((R, n))
        ghat[ar, coord] = amount
        z = ghat + H[:, None] * x
        worst = np.maximum(worst, np.sqrt(np.sum(z * z, axis=1)) / mu)
        tree.add(z)
        xsum += z  # the exact sum in the kernel's order (ties at ε = ∞ then break alike)
        S += x
        x = np.clip(S / t - (xsum + tree.noise()) / (H[:, None] * t), 0.0, 1.0)
    return ex, re, worst


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
