"""Audits of the exponential mechanism (chaturvedi2021 reading R5).

Instance: n = 10 candidate locations scored by the facility objective at S = ∅,
q(u) = Σ_p (1 − dist[u, p]) (sensitivity Δ = 1).  D = {p} ∪ B and D' = {p'} ∪ B differ
in one user (replacement, the paper's relation): p sits on location 0 (distance 0 to it,
1 to the others), p' on locations 1..9 (distance 1 to location 0, 0 to the others), and
the 4 users of B are at distance 0.5 from every location.  So q_D − q_D' = (+1, −1, …, −1):
under replacement every score moves by the full sensitivity, in opposite directions,
and one step of the mechanism loses close to its full ε (exactly 0.897·ε at ε = 1; under
add/remove neighbours at most ε/2 could be seen).

Claimed: (ε, 0)-DP with ε = 1.  Planted bugs: blatant, P(u) ∝ exp(ε·q(u)) instead of
exp(ε·q(u)/2) (exact ε of the pair 1.78 > 1); subtle, the Gumbel noise scale 2Δ/ε divided by √2
(P(u) ∝ exp(√2·ε·q(u)/2), e.g. a sensitivity taken as 1/√2: exact ε 1.26 > 1).

Statistic: the exact privacy loss log p_D(u)/p_D'(u) of the correct mechanism's laws
(``exponential_probabilities``) — on 10 outcomes this is the ratio order the generic discrete
events find too, but it needs no selection of outcomes.  Samples: on the best event {u = 0}
(p = 0.155 vs 0.063) 2·10^4 held-out draws per input put the Clopper–Pearson bound at
log(0.148/0.068) ≈ 0.78 ≈ 0.87 × the exact 0.897 (0.74 × at the former 10^4), so the numpy path
runs 4·10^4 per input; the numba kernel 2·10^5.

Two implementations are audited on this instance:
* ``exponential_mechanism`` (numpy, one draw per call);
* ``gumbel_argmax`` (the numba kernel used inside jitted loops), batched: one jitted loop
  over all samples with pre-drawn uniforms.
Exact ε: the exact output laws ``exponential_probabilities`` of both inputs, max |log p/q|.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.audit.core import Audit
from privopt.audit.stats import exact_eps_discrete
from privopt.mechanisms.exponential import exponential_mechanism, exponential_probabilities, gumbel_argmax

__all__ = ["em_instance", "privacy_loss", "audits", "FACTOR"]

EPS = 1.0
N_CAND = 10


def em_instance(n: int = N_CAND) -> tuple[np.ndarray, np.ndarray]:
    """Scores (q_D, q_D') of the instance (facility gains at S = ∅)."""
    p = np.ones(n)
    p[0] = 0.0
    p_prime = np.zeros(n)
    p_prime[0] = 1.0
    base = np.full((n, 4), 0.5)
    dist_d = np.column_stack([p, base])
    dist_dp = np.column_stack([p_prime, base])
    return (1.0 - dist_d).sum(axis=1), (1.0 - dist_dp).sum(axis=1)


def _scores(which: int) -> np.ndarray:
    return em_instance()[which]


#: factor on the exponent ε·q/2 of each variant (the blatant bug: exp(ε·q); the subtle: Gumbel scale /√2)
FACTOR = {"correct": 1.0, "planted": 2.0, "subtle": math.sqrt(2.0)}


def _sample_numpy(variant: str, which: int, n: int, rng: np.random.Generator) -> np.ndarray:
    q = _scores(which)
    # bug: the kernel uses exp(f·ε·q/2) — the same law as the library called with scores f·q
    q_used = FACTOR[variant] * q
    return np.fromiter((exponential_mechanism(q_used, EPS, rng) for _ in range(n)), dtype=np.int64, count=n)


@numba.njit(cache=True)
def _gumbel_batch(logits, mask, uniforms):  # pragma: no cover - numba
    out = np.empty(uniforms.shape[0], dtype=np.int64)
    for i in range(uniforms.shape[0]):
        out[i] = gumbel_argmax(logits, mask, uniforms[i])
    return out


def _sample_numba(variant: str, which: int, n: int, rng: np.random.Generator) -> np.ndarray:
    q = _scores(which)
    logits = FACTOR[variant] * EPS * q / 2.0  # bugs: exp(f·ε·q/2) instead of exp(ε·q/2)
    mask = np.ones(q.size, dtype=np.bool_)
    out = np.empty(n, dtype=np.int64)
    chunk = 1 << 16
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        out[start:start + m] = _gumbel_batch(logits, mask, rng.random((m, q.size)))
    return out


def _exact(variant: str) -> float:
    q0, q1 = em_instance()
    e = FACTOR[variant] * EPS
    return exact_eps_discrete(exponential_probabilities(q0, e), exponential_probabilities(q1, e), 0.0)


def _loss_table() -> np.ndarray:
    q0, q1 = em_instance()
    return np.log(exponential_probabilities(q0, EPS)) - np.log(exponential_probabilities(q1, EPS))


def privacy_loss(outputs: np.ndarray) -> np.ndarray:
    """log p_D(u)/p_D'(u) of the correct mechanism for each picked location u."""
    return _loss_table()[np.asarray(outputs, dtype=np.int64)]


_INSTANCE = ("n = 10 locations, facility scores at S = ∅ of D = {p} ∪ B vs D' = {p'} ∪ B (|B| = 4): "
             "p on location 0, p' on locations 1-9, B at distance 0.5 from all; q_D - q_D' = (+1, -1, ..., -1)")
_RELATION = "replace one user (Chaturvedi et al. §1); score sensitivity 1"
_BUG = "P(u) ∝ exp(eps*q(u)) instead of exp(eps*q(u)/2)"
_SUBTLE = "Gumbel noise scale 2/eps divided by sqrt 2: P(u) ∝ exp(sqrt(2)*eps*q(u)/2)"


def _describe(codes: tuple) -> str:
    return "pick in {" + ", ".join(map(str, codes)) + "}"


def audits() -> list[Audit]:
    common = dict(paper="chaturvedi2021", instance=_INSTANCE, relation=_RELATION, eps=EPS, delta=0.0, kind="discrete",
                  bug=_BUG, exact=_exact, exact_note="max |log p/q| of the exact laws (exponential_probabilities)",
                  describe=_describe, subtle_bug=_SUBTLE, statistic=privacy_loss,
                  statistic_note="exact privacy loss log p_D(u)/p_D'(u) of the picked location",
                  tightness="tight", tightness_note="exact eps of the instance 0.897 = 0.90 x the claim")
    return [
        Audit(name="exp_mech_numpy", mechanism="exponential_mechanism (numpy, Gumbel-max)", sampler=_sample_numpy,
              samples={"quick": 40_000, "paper": 400_000}, **common),
        Audit(name="exp_mech_numba", mechanism="gumbel_argmax (numba kernel, batched)", sampler=_sample_numba,
              samples={"quick": 200_000, "paper": 2_000_000}, **common),
    ]
