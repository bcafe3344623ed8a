"""Black-box privacy audits of Perez-Salazar & Cummings' mechanisms (``privopt.audit``; the paper's ``audits``).

* ``osm_fi_dp`` — FI-DP (Algorithm 2) as the numba kernel runs it (:func:`privopt.online.osm.submodular_max.
  run_full_information`), k = 2 experts with the feed-forward of Lemma 1, on n = 6 items and T = 2 rounds.
  Neighbouring streams differ at round 1: ``f_1(S) = 1{0 ∈ S}`` against ``f'_1(S) = 1{S ∩ {1..5} ≠ ∅}``
  (every item's gain moves, in opposite directions: the worst case of a replaced function); round 2 is
  ``1{0 ∈ S}`` in both.  Output: the four picks (a_1^1, a_1^2, a_2^1, a_2^2) as one code.  Claimed: the pure
  bound 2ηk(T − t₀) = 1 with η = 1/4 (each later draw of each expert is 2η-DP, the prefix fixed).  Exact ε:
  the enumerated output laws (:func:`privopt.online.osm.enumeration.output_law`).  Planted bug: the gains
  enter the weights three times (e.g. window counts fed instead of fractions: sensitivity 3), i.e. the
  kernel run with 3η — the same law.
* ``osm_alg4`` — Algorithm 4 (:func:`privopt.online.osm.dr_submodular.run_alg4`), K = 1 expert, n = 2, T = 2,
  ε = 1: the first gradient enters one tree node (ℓ2-Laplace noise, λ = Δ₂/ε_node) before x_2 is played.
  Neighbours: round 1's type covers item 0 (P = 0.9) or item 1; round 2's type (P = (0.9, 0.1)) is shared.
  Output: ALG = F_2(x_2), a post-processing of x_2 (so a lower bound on ε from it is a lower bound for x_2).
  Claimed (ε, 0) = (1, 0).  Planted bug: node noise λ/20 (sensitivity or ε_node mis-scaled).  Tightness:
  loose — the claim charges the 2 nodes that hold the first gradient ε/2 each (``levels`` = 2), but only the
  first is released before x_2, so the exact ε of F_2(x_2) is at most 0.5 (its law has no closed form).
"""

from __future__ import annotations

import numpy as np

from privopt.audit.core import Audit, variant_name
from privopt.audit.stats import exact_eps_discrete
from privopt.online.osm.coverage import Stream

__all__ = ["audits", "fi_dp_law", "fi_dp_loss", "RATE"]

N_ITEMS, K_EXPERTS, T_ROUNDS, ETA = 6, 2, 2, 0.25
BUG_RATE = 3.0
#: η factor of each configuration (the blatant bug: gains ×3; the subtle: the factor 2 of 2ηk(T − t₀) dropped)
RATE = {"correct": 1.0, "planted": BUG_RATE, "subtle": 2.0}
ALG4_EPS, ALG4_BUG = 1.0, 20.0


def _fi_matrix() -> np.ndarray:
    P = np.zeros((2, N_ITEMS))
    P[0, 0] = 1.0   # type 0: covers item 0
    P[1, 1:] = 1.0  # type 1: covers items 1..5
    return P


def _fi_functions(which: int):
    first = (lambda S: float(0 in S)) if which == 0 else (lambda S: float(bool(S & set(range(1, N_ITEMS)))))
    return [first, lambda S: float(0 in S)]


def fi_dp_law(which: int, variant) -> np.ndarray:
    """Exact law of the output code on input ``which`` (0 = D, 1 = D') of configuration ``variant``."""
    from privopt.online.osm.enumeration import output_law

    return output_law(_fi_functions(which), N_ITEMS, K_EXPERTS, ETA * RATE[variant_name(variant)])


def fi_dp_loss(codes: np.ndarray) -> np.ndarray:
    """Exact privacy loss log P(o)/P'(o) of each output code under the correct η."""
    loss = np.log(fi_dp_law(0, "correct")) - np.log(fi_dp_law(1, "correct"))
    return loss[np.asarray(codes, dtype=np.int64)]


def _fi_sample(variant: str, which: int, n: int, rng: np.random.Generator) -> np.ndarray:
    from privopt.online.osm.submodular_max import run_full_information

    P = _fi_matrix()
    stream = Stream.single(np.array([[which, 0]], dtype=np.int32))
    eta = ETA * RATE[variant]
    out = np.empty(n, dtype=np.int64)
    chunk = 1 << 17
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        states = rng.integers(1, 2**63, (m, 4), dtype=np.uint64)
        plays = run_full_information(P, stream, K_EXPERTS, T_ROUNDS, np.full(m, eta), states, record_plays=True).plays
        code = np.zeros(m, dtype=np.int64)
        for t in range(T_ROUNDS):
            for i in range(K_EXPERTS):
                code = code * N_ITEMS + plays[:, t, i]
        out[start:start + m] = code
    return out


def _fi_exact(variant: str) -> float:
    return exact_eps_discrete(fi_dp_law(0, variant), fi_dp_law(1, variant), 0.0)


def _describe(codes: tuple) -> str:
    def picks(c):
        digits = []
        for _ in range(K_EXPERTS * T_ROUNDS):
            digits.append(c % N_ITEMS)
            c //= N_ITEMS
        d = digits[::-1]
        return f"S1=({d[0]},{d[1]}) S2=({d[2]},{d[3]})"
    return "{" + "; ".join(picks(int(c)) for c in codes[:4]) + (" …" if len(codes) > 4 else "") + "}"


def _alg4_sample(variant: str, which: int, n: int, rng: np.random.Generator) -> np.ndarray:
    from dataclasses import replace

    from privopt.online.osm.dr_submodular import alg4_params, run_alg4

    P = np.array([[0.9, 0.0], [0.0, 0.9], [0.9, 0.1]])
    stream = Stream.single(np.array([[which, 2]], dtype=np.int32))
    params = alg4_params(P, 2, T_ROUNDS, ALG4_EPS, 1.0, K=1)
    if variant == "planted":
        params = replace(params, lam=params.lam / ALG4_BUG)
    out = np.empty((n, 1))
    chunk = 1 << 16
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        states = rng.integers(1, 2**63, (m, 4), dtype=np.uint64)
        out[start:start + m, 0] = run_alg4(P, stream, 2, T_ROUNDS, [params] * m, states).alg
    return out


def audits() -> list[Audit]:
    return [
        Audit(name="osm_fi_dp", mechanism="FI-DP, Algorithm 2 (privopt.online fi_kernel, k = 2 Hedge experts)",
              paper="perezsalazar2021",
              instance=("n = 6 items, T = 2: f_1 = 1{0 in S} vs f'_1 = 1{S meets {1..5}}, f_2 = 1{0 in S}; "
                        "output the experts' four picks"),
              relation="replace one function f_t of the stream (the paper's neighbours)", eps=2 * ETA * K_EXPERTS,
              delta=0.0, kind="discrete", bug=f"gains counted x{BUG_RATE:g} (sensitivity {BUG_RATE:g}; kernel run with {BUG_RATE:g}·η)",
              sampler=_fi_sample, samples={"quick": 400_000, "paper": 4_000_000}, exact=_fi_exact,
              exact_note="max |log p/q| of the enumerated output laws (privopt.online.osm.enumeration.output_law)",
              describe=_describe,
              subtle_bug="eta = eps/(k(T - t0)): the factor 2 of 2 eta k (T - t0) dropped (2 eta)",
              statistic=fi_dp_loss,
              statistic_note="exact privacy loss of the four picks (enumerated laws, correct eta)",
              tightness="tight",
              tightness_note=("exact eps of the instance 0.63 x the claim: the composed bound charges both experts "
                              "2 eta, coverage functions move the second expert's gains on one side only")),
        Audit(name="osm_alg4", mechanism="Algorithm 4 (privopt.online.osm alg4_kernel, K = 1 PFTAL expert, l2-Laplace tree)",
              paper="perezsalazar2021",
              instance="n = 2, T = 2: round 1 type covers item 0 or item 1 (P = 0.9); round 2 P = (0.9, 0.1); output F_2(x_2)",
              relation="replace one function f_t of the stream", eps=ALG4_EPS, delta=0.0, kind="continuous",
              bug=f"node noise lambda/{ALG4_BUG:g}", sampler=_alg4_sample,
              samples={"quick": 200_000, "paper": 2_000_000}, labels=("F_2(x_2)",), tightness="loose",
              tightness_note=("x_2 sees only the first of the 2 tree nodes that hold gradient 1, each calibrated "
                              "to eps/2, and F_2(x_2) post-processes a box projection of it: exact eps <= 0.5, so "
                              "no subtle bug is a violation on this instance; only the blatant bug is planted")),
    ]
