"""Private (measured) continuous greedy of Chaturvedi, Nguyen & Zakynthinou (AAAI 2021).

The paper's choices are read as docs/papers/chaturvedi2021.md, readings R1 (the sampled proxy G),
R2 (Algorithm 1, PCG), R4 (Algorithm 2, PMCG), R5 (exponential mechanism) and R7 (exact multilinear
extension of the facility objective); the vectorisation is the project's (docs/performance.md).

Algorithm 1 (PCG), T = ceil(1/η) rounds of r = rank(M) picks each::

    y ← 0
    for t = 1..T:
        B ← ∅
        for i = 1..r:
            Cand ← {u ∉ B : B + u ∈ ℐ}        (elements of earlier rounds allowed again)
            w̃(u) ← G(y + η1_u) − G(y)          for u ∈ Cand
            u* ← ExpMech(Cand, w̃, ε0, Δ = 1)   P(u) ∝ exp(ε0·w̃(u)/2)
            y_{u*} ← y_{u*} + η;  B ← B + u*
        B_t ← B

with G(x) = (1/s) Σ_j f({u : r^j_u < x_u}) over s uniform vectors r^j frozen for the
whole run (strict inclusion).  y is kept as integer counts k_u (y_u = k_u·η); after
the loop y = η Σ_t 1_{B_t}.  Rounding (swap rounding of the bases B_1..B_T with
weights η) is post-processing done elsewhere; this module returns the bases.

Scores are in raw utility units (sum over agents, not divided by m); the mechanism
uses sensitivity 1.  Sampling is the Gumbel-max trick in log space:
u* = argmax_{u∈Cand} ε0·w̃(u)/2 + g_u, g_u ~ Gumbel(0, 1) (chaturvedi2021 reading R5); ties → lowest
index.  ε0 = 0 gives the uniform distribution over Cand.

Randomness.  Everything comes from the caller's ``numpy.random.Generator`` in a fixed
order: first ``gumbel = rng.gumbel(size=(T, r, N))`` (N = n, plus r dummies for
PMCG; one variate per element and step, non-candidates ignored), then, for
``scores="G"`` only, ``R = rng.random((s, n))`` with R[j] = r^j.  The same seed
therefore gives the same run, and the fast facility kernels and the generic
reference path consume identical streams (same picks up to float round-off in the
scores).  Because the Gumbel variates are drawn first, runs that differ only in s or
in ``scores`` share the exponential-mechanism noise.

Paths.
* Facility objective (``dist`` array (n, m) in [0, 1] or a ``FacilityLocation``):
  numba kernels in ``privopt.submodular.kernels`` (incremental per-sample state, duplicate rows of
  ``dist`` deduplicated).  ``scores="exact_F"`` uses the exact multilinear
  extension increment F(y + η1_u) − F(y) = η·∂F/∂x_u (chaturvedi2021 reading R7) instead of G.
* Any objective with ``.values(masks)`` and ``.n`` (or ``reference=True``): a plain
  numpy implementation evaluating f on the sample sets (``scores="G"``) or the
  multilinear extension by enumeration over 2^n subsets (``scores="exact_F"``,
  n ≤ 20).  Slow; meant for small instances and as a test oracle.

Algorithm 2 (PMCG, non-monotone f, chaturvedi2021 reading R4) is :func:`private_measured_continuous_greedy`
(generic path only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privopt.submodular import kernels as _k
from privopt.submodular.matroids import PartitionMatroid
from privopt.submodular.objectives import FacilityLocation

__all__ = [
    "ContinuousGreedyResult",
    "num_rounds",
    "private_continuous_greedy",
    "private_measured_continuous_greedy",
    "facility_multilinear",
]

_SCORES = ("G", "exact_F")
_ENUM_MAX_N = 20


@dataclass(frozen=True)
class ContinuousGreedyResult:
    """Output of PCG / PMCG (chaturvedi2021 readings R2, R4).

    counts: int64 (n,) — number of rounds in which element u was picked (k_u).
    y: float64 (n,) — the fractional point.  PCG: y = counts·η; PMCG:
        y = 1 − (1 − η)^counts.  If T·η > 1 (1/η not an integer) y is scaled by
        1/(T·η) so that it lies in P(M) (chaturvedi2021 reading R2).
    bases: int64 (T, r) — B_1..B_T, element indices in pick order; −1 marks a
        missing pick (a round that broke early) and, for PMCG, a dummy element.
    weights: float64 (T,) — weight of each B_t: η, or η/(T·η) = 1/T when scaled.
        For PCG y = Σ_t weights[t]·1_{B_t}; for PMCG y ≤ Σ_t weights[t]·1_{B_t}.
    value: G (or F) at the algorithm's end point y_end (unscaled, coordinates clipped at
        1): the sampled proxy G(y_end) for ``value_kind == "G"`` (computed as the
        telescoping sum of the picked scores on the fast path), the exact multilinear
        extension F(y_end) for ``"F"``.
    value_kind: "G" or "F".
    eta, T: step size and number of rounds.
    pick_scores: float64 (T, r) — score w̃(u*) of every pick (NaN where missing;
        0 for PMCG dummies).
    score_trace: (T, r, N) scores of all candidates at every step (NaN for
        non-candidates; N = n + r for PMCG, dummies last) if requested, else None.
    """

    counts: np.ndarray
    y: np.ndarray
    bases: np.ndarray
    weights: np.ndarray
    value: float
    value_kind: str
    eta: float
    T: int
    pick_scores: np.ndarray
    score_trace: np.ndarray | None = None

    @property
    def rank(self) -> int:
        return int(self.bases.shape[1])


def num_rounds(eta: float) -> int:
    """T = ceil(1/η) (chaturvedi2021 reading R2), robust to 1/η being an integer up to round-off."""
    eta = float(eta)
    if not (0.0 < eta <= 1.0):
        raise ValueError(f"eta must lie in (0, 1], got {eta}")
    T = math.ceil(1.0 / eta)
    if T > 1 and (T - 1) * eta >= 1.0 - 1e-12:
        T -= 1
    return T


def _thresholds(T: int, eta: float, measured: bool) -> np.ndarray:
    """thr[k] = value of y_u after k picks (k = 0..T), thr[T + 1] = +inf.

    PCG: thr[k] = k·η.  PMCG: thr[k] = 1 − (1 − η)^k, so that the measured step
    y ← y + η(1 − y) maps thr[k] to thr[k + 1].  Sample j contains u iff
    r^j_u < thr[k_u]; u's score involves the samples with thr[k_u] <= r^j_u < thr[k_u + 1].
    """
    k = np.arange(T + 2, dtype=np.float64)
    thr = 1.0 - (1.0 - eta) ** k if measured else k * eta
    thr[T + 1] = np.inf
    return thr


def _check_common(matroid: PartitionMatroid, n: int, eta: float, eps0: float, s: int, scores: str) -> None:
    if not isinstance(matroid, PartitionMatroid):
        raise TypeError("matroid must be a PartitionMatroid")
    if matroid.n != n:
        raise ValueError(f"matroid has {matroid.n} elements, objective has {n}")
    eps0 = float(eps0)
    if not math.isfinite(eps0) or eps0 < 0.0:
        raise ValueError(f"eps0 must be finite and >= 0, got {eps0}")
    if scores not in _SCORES:
        raise ValueError(f"scores must be one of {_SCORES}, got {scores!r}")
    if scores == "G" and (int(s) != s or s < 1):
        raise ValueError(f"s must be a positive integer, got {s}")
    num_rounds(eta)


def _finish_y(base_y: np.ndarray, T: int, eta: float) -> tuple[np.ndarray, np.ndarray]:
    """Scale y and the basis weights by 1/(T·η) when T·η > 1 (chaturvedi2021 reading R2)."""
    scale = T * eta
    if scale > 1.0 + 1e-12:
        return base_y / scale, np.full(T, eta / scale)
    return base_y, np.full(T, eta)


def _as_dist(dist) -> np.ndarray:
    if isinstance(dist, FacilityLocation):
        return dist.dist
    d = np.ascontiguousarray(dist, dtype=np.float64)
    if d.ndim != 2:
        raise ValueError("dist must be an (n, m) array")
    if d.size and (not np.isfinite(d).all() or d.min() < 0.0 or d.max() > 1.0):
        raise ValueError("normalised distances must lie in [0, 1] (sensitivity 1)")
    return d


# --------------------------------------------------------------------------------------
# Exact multilinear extensions
# --------------------------------------------------------------------------------------


def facility_multilinear(dist, x) -> tuple[float, np.ndarray]:
    """Exact F(x) and ∇F(x) of the facility objective (chaturvedi2021 reading R7), O(m n log n).

    F(x) = Σ_p Σ_k v_{p,π(k)} x_{π(k)} Π_{k'<k} (1 − x_{π(k')}), v = 1 − dist,
    π_p = elements by increasing dist[·, p] (ties in any fixed order);
    ∂F_p/∂x_u = P_{k(u)} (v_{p,u} − Suf_{k(u)+1}).  Elements with identical rows are
    merged first (q_g = 1 − Π_{u∈g}(1 − x_u), chain rule), which is exact.
    """
    d = _as_dist(dist)
    x = np.ascontiguousarray(x, dtype=np.float64)
    if x.shape != (d.shape[0],):
        raise ValueError(f"x must have shape ({d.shape[0]},)")
    rows = _Rows(d)
    q = np.zeros(rows.n_rows)
    others = np.ones(d.shape[0])
    for g in range(rows.n_rows):
        _k.group_update(g, x, rows.grp_start, rows.grp_members, q, others)
    grow = np.zeros(rows.n_rows)
    value = _k.facility_F_rows(rows.order, rows.vs, q, grow)
    return float(value), others * grow[rows.row_of]


class _Rows:
    """Distinct rows of ``dist`` (chaturvedi2021 reading R18: Fig. 1 has 21 distinct rows for 100 elements).

    Rows are identified bitwise, numbered by first appearance; row_of (n,) row id of every element; grp_start/grp_members:
    elements of row g are grp_members[grp_start[g]:grp_start[g + 1]] (by index);
    dT = uniq.T (m, n_rows); order[p] = rows by increasing distance to p (ties by row
    id), vs[p, k] = 1 − dT[p, order[p, k]].
    """

    def __init__(self, d: np.ndarray) -> None:
        ids: dict[bytes, int] = {}
        self.row_of = np.fromiter((ids.setdefault(row.tobytes(), len(ids)) for row in d), dtype=np.int64, count=d.shape[0])
        self.n_rows = len(ids)
        first = np.zeros(self.n_rows, dtype=np.int64)
        first[self.row_of[::-1]] = np.arange(d.shape[0] - 1, -1, -1)
        uniq = d[first]
        self.grp_members = np.ascontiguousarray(np.argsort(self.row_of, kind="stable"), dtype=np.int64)
        self.grp_start = np.zeros(self.n_rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.row_of, minlength=self.n_rows), out=self.grp_start[1:])
        self.dT = np.ascontiguousarray(uniq.T)
        order = np.argsort(self.dT, axis=1, kind="stable")
        self.order = np.ascontiguousarray(order, dtype=np.int64)
        self.vs = np.ascontiguousarray(1.0 - np.take_along_axis(self.dT, order, axis=1))


class _Enumerator:
    """F(x) = Σ_S f(S) Π_{u∈S} x_u Π_{u∉S} (1 − x_u) by enumeration of all 2^n sets."""

    def __init__(self, objective, n: int) -> None:
        if n > _ENUM_MAX_N:
            raise ValueError(f"exact enumeration of the multilinear extension needs n <= {_ENUM_MAX_N}, got {n}")
        codes = np.arange(2**n, dtype=np.int64)
        self.masks = ((codes[:, None] >> np.arange(n)) & 1).astype(bool)
        self.fvals = np.asarray(objective.values(self.masks), dtype=np.float64)

    def __call__(self, x: np.ndarray) -> float:
        probs = np.where(self.masks, x, 1.0 - x).prod(axis=1)
        return float(probs @ self.fvals)


# --------------------------------------------------------------------------------------
# Generic (reference) implementation — PCG and PMCG on any `.values` objective
# --------------------------------------------------------------------------------------


def _generic_run(objective, matroid, *, T, eta, eps0, rng, scores, s, measured, record):
    """Algorithms 1 (measured=False) and 2 (measured=True) with plain numpy (chaturvedi2021 readings R2, R4).

    PMCG dummies: the ground set is extended by r = rank(M) dummy elements n..n+r−1 of
    zero marginal value, and the constraint becomes M' = {S : S ∩ 𝒩 ∈ ℐ, |S| <= r}
    (the truncation to rank r of M ⊕ the free matroid on the dummies).  As a round
    makes exactly r picks, |S| <= r never binds: the candidates are the real u ∉ B with
    (B ∩ 𝒩) + u ∈ ℐ together with every dummy not yet in B, so B ∪ dummies is always
    feasible and every round completes a basis of M'.  Dummies get score 0 exactly
    (f ignores them) and are dropped from the output (post-processing): their slots in
    ``bases`` read −1.
    """
    n = matroid.n
    r = matroid.rank
    n_dummy = r if measured else 0
    N = n + n_dummy
    gumbel = rng.gumbel(size=(T, r, N))
    thr = _thresholds(T, eta, measured)
    R = rng.random((s, n)) if scores == "G" else None
    enum = _Enumerator(objective, n) if scores == "exact_F" else None

    counts = np.zeros(N, dtype=np.int64)
    bases = np.full((T, r), -1, dtype=np.int64)
    pick_scores = np.full((T, r), np.nan)
    trace = np.full((T, r, N), np.nan) if record else None
    for t in range(T):
        B: list[int] = []
        for i in range(r):
            real_B = np.array([u for u in B if u < n], dtype=np.int64)
            cand = np.zeros(N, dtype=bool)
            cand[:n] = matroid.can_add(real_B)
            cand[n:] = True
            cand[B] = False
            cand_idx = np.flatnonzero(cand)
            if cand_idx.size == 0:
                break
            w = np.zeros(N)
            x = np.minimum(thr[counts[:n]], 1.0)
            if scores == "G":
                S = R < thr[counts[:n]]
                for u in cand_idx[cand_idx < n]:
                    k = counts[u]
                    J = (R[:, u] >= thr[k]) & (R[:, u] < thr[k + 1])
                    base = S[J]
                    with_u = base.copy()
                    with_u[:, u] = True
                    w[u] = (objective.values(with_u) - objective.values(base)).sum() / s
            else:
                fx = enum(x)
                for u in cand_idx[cand_idx < n]:
                    x2 = x.copy()
                    x2[u] = min(thr[counts[u] + 1], 1.0)
                    w[u] = enum(x2) - fx
            if record:
                trace[t, i, cand_idx] = w[cand_idx]
            key = np.where(cand, 0.5 * eps0 * w + gumbel[t, i], -np.inf)
            u_star = int(np.argmax(key))
            pick_scores[t, i] = w[u_star]
            bases[t, i] = u_star if u_star < n else -1
            counts[u_star] += 1
            B.append(u_star)

    counts = counts[:n]
    if scores == "G":
        value = float(objective.values(R < thr[counts]).mean())
    else:
        value = enum(np.minimum(thr[counts], 1.0))
    base_y = 1.0 - (1.0 - eta) ** counts if measured else counts * eta
    y, weights = _finish_y(base_y, T, eta)
    return ContinuousGreedyResult(
        counts=counts,
        y=y,
        bases=bases,
        weights=weights,
        value=value,
        value_kind="G" if scores == "G" else "F",
        eta=eta,
        T=T,
        pick_scores=pick_scores,
        score_trace=trace,
    )


# --------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------


def private_continuous_greedy(
    dist,
    matroid: PartitionMatroid,
    *,
    eta: float,
    eps0: float,
    rng: np.random.Generator,
    scores: str = "G",
    s: int = 1000,
    reference: bool = False,
    record_scores: bool = False,
) -> ContinuousGreedyResult:
    """Algorithm 1 — Private Continuous Greedy (chaturvedi2021 reading R2), monotone f.

    Parameters
    ----------
    dist : (n, m) array in [0, 1], ``FacilityLocation`` or any objective with ``.n`` and
        ``.values(masks)``.  A distance matrix / FacilityLocation runs the numba fast path
        for f(S) = Σ_p (1 − min_{l∈S} dist[l, p]), f(∅) = 0; other objectives (or
        ``reference=True``) run the generic numpy reference path.
    matroid : PartitionMatroid (uniform matroid = one part); r = matroid.rank picks per round.
    eta : step η ∈ (0, 1]; T = ceil(1/η) rounds.
    eps0 : per-step exponential-mechanism parameter ε0 >= 0 (sensitivity 1, raw units);
        P(u) ∝ exp(ε0·w̃(u)/2) over the current candidates.
    rng : numpy Generator, the only source of randomness (see module docstring).
    scores : "G" — w̃(u) = G(y + η1_u) − G(y) with s frozen uniform vectors (chaturvedi2021 reading R1, the
        paper's method); "exact_F" — w̃(u) = F(y + c1_u) − F(y), c = min(η, 1 − y_u), the
        exact multilinear extension (chaturvedi2021 reading R7; c = η when T·η = 1).
    s : number of uniform vectors for G (ignored for exact_F).
    reference : force the generic (slow) path for a facility objective.
    record_scores : keep every step's candidate scores in ``score_trace``.
    """
    if isinstance(dist, (np.ndarray, FacilityLocation, list, tuple)):
        d = _as_dist(dist)
        n = d.shape[0]
        _check_common(matroid, n, eta, eps0, s, scores)
        if reference:
            return _generic_run(
                FacilityLocation(d), matroid, T=num_rounds(eta), eta=float(eta), eps0=float(eps0), rng=rng,
                scores=scores, s=int(s), measured=False, record=record_scores,
            )
        return _facility_run(d, matroid, eta=float(eta), eps0=float(eps0), rng=rng, scores=scores, s=int(s), record=record_scores)
    objective = dist
    n = int(objective.n)
    _check_common(matroid, n, eta, eps0, s, scores)
    return _generic_run(
        objective, matroid, T=num_rounds(eta), eta=float(eta), eps0=float(eps0), rng=rng, scores=scores, s=int(s),
        measured=False, record=record_scores,
    )


# Distinct-row count up to which the G kernel memoises per-sample states by the bitmask
# of rows they contain (table of 2^rows entries) instead of keeping Dmin (s, m).
_MASK_MAX_ROWS = 12


def _facility_run(d, matroid, *, eta, eps0, rng, scores, s, record) -> ContinuousGreedyResult:
    n = d.shape[0]
    T = num_rounds(eta)
    r = matroid.rank
    gumbel = rng.gumbel(size=(T, r, n))
    trace = np.full((T, r, n), np.nan) if record else np.empty((1, 1, 1))
    rows = _Rows(d)
    if scores == "G":
        R = rng.random((s, n))
        counts, bases, pick_scores, value = _k.pcg_facility_G_kernel(
            rows.dT, rows.row_of, matroid.part_of, matroid.capacity, T, r, _thresholds(T, eta, False), eps0, R, gumbel,
            rows.n_rows <= _MASK_MAX_ROWS, record, trace,
        )
    else:
        counts, bases, pick_scores, value = _k.pcg_facility_F_kernel(
            rows.order, rows.vs, rows.row_of, rows.grp_start, rows.grp_members, matroid.part_of, matroid.capacity,
            T, r, eta, eps0, gumbel, record, trace,
        )
    y, weights = _finish_y(counts * eta, T, eta)
    return ContinuousGreedyResult(
        counts=counts,
        y=y,
        bases=bases,
        weights=weights,
        value=float(value),
        value_kind="G" if scores == "G" else "F",
        eta=eta,
        T=T,
        pick_scores=pick_scores,
        score_trace=trace if record else None,
    )


def private_measured_continuous_greedy(
    objective,
    matroid: PartitionMatroid,
    *,
    eta: float,
    eps0: float,
    rng: np.random.Generator,
    s: int = 1000,
    scores: str = "G",
    record_scores: bool = False,
) -> ContinuousGreedyResult:
    """Algorithm 2 — Private Measured Continuous Greedy (chaturvedi2021 reading R4), non-monotone f.

    Same skeleton as PCG with the measured step: score
        w̃(u) = G(y + η(1 − y_u)·1_u) − G(y)    (may be negative),
    update y_u ← y_u + η(1 − y_u), so y_u = 1 − (1 − η)^{k_u} after k_u picks, and the
    samples that change are those with y_u <= r^j_u < y_u + η(1 − y_u).  The ground
    set is extended by r = rank(M) dummy elements of zero marginal value so that a
    round can always "pick nothing" (see ``_generic_run`` for the constraint used);
    dummies are removed from the output (−1 in ``bases``, not in counts/y).

    ``objective`` is any decomposable objective with ``.n`` and ``.values(masks)``
    (a distance matrix is wrapped in ``FacilityLocation``); generic numpy path, for
    small instances.  ``scores="exact_F"`` replaces G by the exact multilinear
    extension (enumeration, n <= 20).  ε0 is used as given (the paper's
    ε0 = ε/(14 + 4 log(1/δ)) is the caller's business).
    """
    if isinstance(objective, (np.ndarray, list, tuple)):
        objective = FacilityLocation(_as_dist(objective))
    n = int(objective.n)
    _check_common(matroid, n, eta, eps0, s, scores)
    return _generic_run(
        objective, matroid, T=num_rounds(eta), eta=float(eta), eps0=float(eps0), rng=rng, scores=scores, s=int(s),
        measured=True, record=record_scores,
    )
