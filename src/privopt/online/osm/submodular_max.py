"""Online monotone submodular maximisation under a cardinality constraint (Perez-Salazar & Cummings
2021): the full-information and bandit algorithms on coverage streams, every replica in one kernel call.

docs/papers/perezsalazar2021.md, readings R4, R5 and R19.  The algorithms differ only in their rates (see
:mod:`privopt.online.osm.parameters`), so one driver runs each feedback model:

* :func:`run_full_information` — FI-DP (Algorithm 2: k ordered Hedge experts, expert i fed the
  marginal gains on the picks of experts 1..i−1, feed-forward within the round), SG-NP (η = √(k ln n/T))
  and UNIF (η = 0);
* :func:`run_bandit` — BanditDP (Algorithm 3: explore with probability γ, update expert i at one
  coordinate with the observed value, redraw the set only after explore rounds), SG-BANDIT-NP (its
  non-private rate), B1-NAIVE (``redraw_always``: a fresh set every round) and B2-PRESAMPLE (the
  same coin stream, η from the explore count M known beforehand: :func:`explore_counts`).

Duplicates are kept (|S_t| may be < k; the marginal of an item already chosen is 0; perezsalazar2021 reading R4).
The kernels are in :mod:`privopt.online.osm.kernels`; a plain Python reference consuming the same
random numbers is :mod:`privopt.online.osm.reference`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from privopt.online.osm import kernels as K
from privopt.online.osm.coverage import Stream, check_coverage_matrix

__all__ = ["FIRuns", "BanditRuns", "states_from", "run_full_information", "run_bandit", "explore_counts"]


def states_from(seed_sequences: Sequence[np.random.SeedSequence]) -> np.ndarray:
    """(R, 4) xoshiro256++ states, one per SeedSequence (as :class:`privopt.fastrng.FastGenerator`)."""
    from privopt.fastrng import FastGenerator

    return np.ascontiguousarray(np.stack([FastGenerator(s).state for s in seed_sequences]), dtype=np.uint64)


@dataclass(frozen=True)
class FIRuns:
    """What :func:`run_full_information` records per replica (see the kernel's docstring)."""

    eta: np.ndarray
    alg: np.ndarray          # (R,) Σ_t f_t(S_t)
    G: np.ndarray            # (R, k, n) cumulative marginal gains of each expert
    realised: np.ndarray     # (R, k) Σ_t g_t^i(a_t^i)
    expected: np.ndarray     # (R, k) Σ_t x_tᵀ g_t^i
    expected_sq: np.ndarray  # (R, k) Σ_t x_tᵀ (g_t^i)²
    checkpoints: np.ndarray  # (R, C) ALG after each checkpoint round
    codes: np.ndarray        # (rows, T − tail_from) played sets as bit masks
    plays: np.ndarray        # (R, T, k) every draw, when recorded

    @property
    def expert_regret(self) -> np.ndarray:
        """r_i = max_a Σ_t g_t^i(a) − Σ_t g_t^i(a_t^i) (realised), (R, k)."""
        return self.G.max(axis=2) - self.realised

    @property
    def pseudo_regret(self) -> np.ndarray:
        """r̃_i = max_a Σ_t g_t^i(a) − Σ_t x_tᵀ g_t^i, (R, k)."""
        return self.G.max(axis=2) - self.expected

    def hedge_rhs(self) -> np.ndarray:
        """η Σ_t x_tᵀ(g²) + ln n / η per expert (Thm 3), inf where η = 0."""
        n = self.G.shape[2]
        eta = self.eta[:, None]
        with np.errstate(divide="ignore"):
            return np.where(eta > 0, eta * self.expected_sq + math.log(n) / np.where(eta > 0, eta, 1.0), np.inf)


@dataclass(frozen=True)
class BanditRuns:
    """What :func:`run_bandit` records per replica."""

    eta: np.ndarray
    gamma: np.ndarray
    alg: np.ndarray        # (R,)
    M: np.ndarray          # (R,) explore rounds
    draws: np.ndarray      # (R,) sets drawn (initial one included)
    G_true: np.ndarray     # (R, k, n) true marginal gains on the prefixes of the frozen sets S'_t
    realised_true: np.ndarray  # (R, k)
    G: np.ndarray          # (R, k, n) what the experts were fed
    explore_rounds: np.ndarray  # (R, max M) when recorded
    checkpoints: np.ndarray     # (R, C) ALG after each checkpoint round

    @property
    def expert_regret(self) -> np.ndarray:
        """r_i w.r.t. the true marginals on the prefixes of S'_t (Lemma 2), (R, k)."""
        return self.G_true.max(axis=2) - self.realised_true


def _common(P, stream: Stream, k: int, T: int, eta, stream_of) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    P = check_coverage_matrix(P)
    n = P.shape[1]
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= |U| = {n}, got k = {k}")
    if not 1 <= T <= stream.length:
        raise ValueError(f"horizon T = {T} outside 1..{stream.length} (the stream's length)")
    eta = np.ascontiguousarray(eta, dtype=np.float64).reshape(-1)
    if not (np.isfinite(eta).all() and (eta >= 0).all()):
        raise ValueError("learning rates must be finite and >= 0")
    R = eta.size
    stream_of = np.zeros(R, dtype=np.int64) if stream_of is None else np.ascontiguousarray(stream_of, dtype=np.int64)
    if stream_of.shape != (R,) or (stream_of < 0).any() or (stream_of >= stream.n_streams).any():
        raise ValueError(f"stream_of must give each of the {R} replicas a data stream in 0..{stream.n_streams - 1}")
    ids = stream.types if not stream.is_mixture else stream.ids
    if ids.size and (ids.min() < 0 or ids.max() >= P.shape[0]):
        raise ValueError("the stream names types outside P's rows")
    return P, eta, stream_of


def _checkpoints(checkpoints, T: int) -> np.ndarray:
    ck = np.unique(np.asarray(checkpoints, dtype=np.int64))
    if ck.size and (ck[0] < 1 or ck[-1] > T):
        raise ValueError(f"checkpoints must lie in 1..{T}")
    return ck


def run_full_information(P, stream: Stream, k: int, T: int, eta, states: np.ndarray, *, stream_of=None,
                         checkpoints: Sequence[int] = (), tail_from: int | None = None,
                         record_codes: Sequence[bool] | None = None, record_plays: bool = False) -> FIRuns:
    """Run FI-DP-type learners (one per rate in ``eta``) for T rounds of ``stream``.

    ``states`` (R, 4) are advanced in place.  ``checkpoints``: rounds (1-based) after which ALG is
    recorded.  ``tail_from`` and ``record_codes``: record the played set (bit mask, n ≤ 62) at every
    round after ``tail_from`` for the replicas flagged."""
    P, eta, stream_of = _common(P, stream, k, T, eta, stream_of)
    R, n = eta.size, P.shape[1]
    if states.shape != (R, 4) or states.dtype != np.uint64:
        raise ValueError(f"states must be a ({R}, 4) uint64 array")
    ck = _checkpoints(checkpoints, T)
    code_row = np.full(R, -1, dtype=np.int64)
    tail = T if tail_from is None else int(tail_from)
    if record_codes is not None and tail < T:
        if n > 62:
            raise ValueError("set codes are bit masks: n <= 62")
        flags = np.asarray(record_codes, dtype=bool)
        code_row[flags] = np.arange(int(flags.sum()))
    codes = np.zeros((int((code_row >= 0).sum()), max(T - tail, 0)), dtype=np.int64)
    plays = np.zeros((R, T, k) if record_plays else (0, 0, 0), dtype=np.int64)
    alg = np.zeros(R)
    G = np.zeros((R, k, n))
    real, xg, xg2 = np.zeros((R, k)), np.zeros((R, k)), np.zeros((R, k))
    ck_out = np.zeros((R, ck.size))
    K.fi_kernel(P, stream.types, stream_of, stream.ptr, stream.ids, stream.weights, int(k), int(T), eta, states, ck,
                int(tail), code_row, alg, G, real, xg, xg2, ck_out, codes, plays)
    return FIRuns(eta, alg, G, real, xg, xg2, ck_out, codes, plays)


def explore_counts(coin_states: np.ndarray, gamma, k: int, n: int, T: int) -> np.ndarray:
    """Explore rounds M each coin stream gives over T rounds (the states are not advanced)."""
    gamma = np.ascontiguousarray(gamma, dtype=np.float64).reshape(-1)
    return K.count_explores(coin_states.copy(), gamma, int(k), int(n), int(T))


def run_bandit(P, stream: Stream, k: int, T: int, eta, gamma, coin_states: np.ndarray, states: np.ndarray, *,
               stream_of=None, redraw_always: bool = False, record_explores: bool = False,
               checkpoints: Sequence[int] = ()) -> BanditRuns:
    """Run bandit learners (one per rate in ``eta``, exploration rate ``gamma``) for T rounds of a
    single-type ``stream``; ``coin_states`` and ``states`` (R, 4) are advanced in place."""
    P, eta, stream_of = _common(P, stream, k, T, eta, stream_of)
    if stream.is_mixture:
        raise ValueError("the bandit kernel runs single-type streams")
    R, n = eta.size, P.shape[1]
    gamma = np.broadcast_to(np.asarray(gamma, dtype=np.float64), (R,)).copy()
    if not ((gamma > 0) & (gamma <= 1)).all():
        raise ValueError("exploration rates must lie in (0, 1]")
    for name, st in (("coin_states", coin_states), ("states", states)):
        if st.shape != (R, 4) or st.dtype != np.uint64:
            raise ValueError(f"{name} must be a ({R}, 4) uint64 array")
    alg, M, draws = np.zeros(R), np.zeros(R, dtype=np.int64), np.zeros(R, dtype=np.int64)
    G_true, real_true, G = np.zeros((R, k, n)), np.zeros((R, k)), np.zeros((R, k, n))
    rec = np.zeros((R, T if record_explores else 0), dtype=np.int64)
    ck = _checkpoints(checkpoints, T)
    ck_out = np.zeros((R, ck.size))
    K.bandit_kernel(P, stream.types, stream_of, int(k), int(T), eta, gamma, bool(redraw_always), coin_states, states,
                    ck, alg, M, G_true, real_true, G, draws, rec, ck_out)
    return BanditRuns(eta, gamma, alg, M, draws, G_true, real_true, G, rec, ck_out)
