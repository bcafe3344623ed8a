"""Algorithm 4 of Perez-Salazar & Cummings (Sec. 5, App. C): private online maximisation of continuous
DR-submodular functions, K ordered PFTAL experts with linear gains (docs/papers/perezsalazar2021.md, reading R10).

On the multilinear extension of a coverage stream (SYN-CLICK-MLE) ``F_t(x) = 1 − Π_a (1 − P[m_t, a] x_a)``
over ``P_k = {x ∈ [0,1]^n : Σ x ≤ k}``; ``max_{P_k} Σ_t F_t`` is the discrete optimum OPT_T, so the benchmarks
of :mod:`privopt.online.osm.offline` apply.  Parameters (perezsalazar2021 readings R9, R10):

* ``K = ⌈(T / ln^{2.5} T)^{1/4}⌉`` (App. C) unless given; ε' = ε/K per expert (Lemma 6: the feed-forward
  induction of Lemma 1 with densities);
* tree aggregation with ⌊log2 T⌋ + 1 levels, node noise ℓ2-Laplace with λ = Δ₂/ε_node, Δ₂ = 2G,
  G = max_m ‖P[m]‖₂ (a bound on every gradient's norm), ε_node = ε'/(⌊log2 T⌋ + 1): (ε, 0)-DP;
* ``H = c_H · n · ln^{2.5}(T) / (ε' √T)``.

Lemma 7 (Chen et al., pathwise): ``R_T ≤ (1/K) Σ_j r_j + βR²T/(2K)``, β = max_m ‖P[m]‖₂² (|∂²F| ≤ p_a p_b),
R = √k.  The kernel is :mod:`privopt.online.osm.kernels`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privopt.online.osm import parameters as par
from privopt.online.osm.kernels import alg4_kernel
from privopt.online.osm.coverage import Stream, check_coverage_matrix

__all__ = ["Alg4Params", "alg4_params", "Alg4Runs", "run_alg4"]


@dataclass(frozen=True)
class Alg4Params:
    K: int
    eps_expert: float
    levels: int
    eps_node: float
    sensitivity: float
    lam: float
    H: float
    beta: float
    radius: float


def alg4_params(P, k: int, T: int, eps: float, c_H: float, K: int | None = None) -> Alg4Params:
    """The parameters of Algorithm 4 for one (T, ε) (module docstring)."""
    P = check_coverage_matrix(P)
    if not eps > 0:
        raise ValueError(f"eps must be > 0, got {eps!r}")
    K = par.alg4_experts(T) if K is None else int(K)
    eps_expert = eps / K
    levels = int(math.floor(math.log2(T))) + 1
    eps_node = eps_expert / levels
    G = float(np.sqrt((P**2).sum(axis=1)).max())
    sens = 2.0 * G
    return Alg4Params(K=K, eps_expert=eps_expert, levels=levels, eps_node=eps_node, sensitivity=sens,
                      lam=sens / eps_node, H=par.alg4_H(c_H, P.shape[1], T, eps_expert), beta=G * G,
                      radius=math.sqrt(k))


@dataclass(frozen=True)
class Alg4Runs:
    alg: np.ndarray        # (R,)
    C: np.ndarray          # (R, Kmax, n) exact gradient sums
    linear_gain: np.ndarray  # (R, Kmax)
    K: np.ndarray          # (R,)

    def linear_regret(self, k: int) -> np.ndarray:
        """r_j = (sum of the k largest entries of C^j, each ≤ one unit) − Σ_t c_t^j·v_t^j; 0 beyond K."""
        top = -np.sort(-self.C, axis=2)[:, :, :k].sum(axis=2)
        r = top - self.linear_gain
        mask = np.arange(self.C.shape[1])[None, :] < self.K[:, None]
        return np.where(mask, r, 0.0)


def run_alg4(P, stream: Stream, k: int, T: int, params: list[Alg4Params], states: np.ndarray, *,
             stream_of=None) -> Alg4Runs:
    """Algorithm 4 for every replica (one :class:`Alg4Params` each) over T rounds of a single-type stream."""
    P = check_coverage_matrix(P)
    if stream.is_mixture:
        raise ValueError("Algorithm 4 runs single-type streams")
    if not 1 <= T <= stream.length:
        raise ValueError(f"horizon T = {T} outside 1..{stream.length}")
    R = len(params)
    stream_of = np.zeros(R, dtype=np.int64) if stream_of is None else np.ascontiguousarray(stream_of, dtype=np.int64)
    K_of = np.array([p.K for p in params], dtype=np.int64)
    H = np.array([p.H for p in params])
    lam = np.array([p.lam for p in params])
    Kmax = int(K_of.max())
    alg, C, lin = np.zeros(R), np.zeros((R, Kmax, P.shape[1])), np.zeros((R, Kmax))
    alg4_kernel(P, stream.types, stream_of, float(k), K_of, int(T), H, lam, states, alg, C, lin)
    return Alg4Runs(alg, C, lin, K_of)
