"""The exponential mechanism (chaturvedi2021 reading R5).

Over a finite candidate set R with score q(D, u) and sensitivity
Δq = max_u max_{D~D'} |q(D, u) − q(D', u)| the mechanism O_ε(q) outputs u with

    P(u) = exp(ε·q(u) / (2Δq)) / Σ_{v∈R} exp(ε·q(v) / (2Δq))          (chaturvedi2021 reading R5)

and is (ε, 0)-DP.  Candidates outside the current feasible set get probability 0
(chaturvedi2021 reading R5: "over the current candidate set only").

Sampling uses the Gumbel-max trick in log space: with g_u i.i.d. Gumbel(0, 1),
argmax_u [ε·q(u)/(2Δq) + g_u] is distributed exactly as P above, and no
exponential is ever evaluated, so huge ε·q cannot overflow.  Logits are
max-subtracted first (they are ≤ 0, the best candidates have logit 0), which also
makes ε = +inf well defined: the uniform distribution over the maximisers.

``gumbel_argmax`` is a numba-compiled kernel of the same trick for use inside
other jitted loops; it takes pre-drawn uniforms instead of a Generator so that
the random stream stays the project's numpy ``Generator`` (see ``seeding``).
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["exponential_mechanism", "exponential_choices", "exponential_probabilities", "exponential_logits",
           "gumbel_argmax"]


def _prepare(scores, eps, sensitivity, mask) -> tuple[np.ndarray, np.ndarray]:
    """Validate inputs; return (max-subtracted logits over candidates, candidate indices)."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 1:
        raise ValueError(f"scores must be one-dimensional, got shape {scores.shape}")
    eps = float(eps)
    if math.isnan(eps) or eps < 0.0:
        raise ValueError(f"eps must be >= 0 (got {eps})")
    sensitivity = float(sensitivity)
    if not (sensitivity > 0.0) or math.isinf(sensitivity):
        raise ValueError(f"sensitivity must be positive and finite (got {sensitivity})")
    if mask is None:
        cand = np.arange(scores.size)
    else:
        mask = np.asarray(mask)
        if mask.dtype != np.bool_:
            raise ValueError("mask must be a boolean array")
        if mask.shape != scores.shape:
            raise ValueError(f"mask shape {mask.shape} differs from scores shape {scores.shape}")
        cand = np.flatnonzero(mask)
    if cand.size == 0:
        raise ValueError("the candidate set is empty (no scores, or mask selects nothing)")
    q = scores[cand]
    if np.isnan(q).any():
        raise ValueError("scores contain NaN on the candidate set")
    if np.isinf(q).any():
        raise ValueError("scores must be finite on the candidate set")
    diff = q - q.max()  # <= 0, exactly 0 at the maximisers
    if math.isinf(eps):
        logits = np.where(diff == 0.0, 0.0, -np.inf)
    else:
        with np.errstate(over="ignore"):
            logits = (eps / (2.0 * sensitivity)) * diff  # may underflow/overflow to -inf: fine
    return logits, cand


def exponential_logits(scores, eps, *, sensitivity=1.0, mask=None) -> np.ndarray:
    """Log-weights ε·(q(u) − max q)/(2Δq) on candidates, −inf outside the mask (chaturvedi2021 reading R5)."""
    scores = np.asarray(scores, dtype=np.float64)
    logits, cand = _prepare(scores, eps, sensitivity, mask)
    out = np.full(scores.shape, -np.inf)
    out[cand] = logits
    return out


def exponential_probabilities(scores, eps, *, sensitivity=1.0, mask=None) -> np.ndarray:
    """Exact output distribution of the exponential mechanism (chaturvedi2021 reading R5).

    P(u) = exp(ε·q(u)/(2Δ)) / Σ_{v candidate} exp(ε·q(v)/(2Δ)) for candidates u
    (``mask[u]`` True, all u when ``mask`` is None) and 0 elsewhere; evaluated as a
    max-subtracted softmax.  ε = 0 gives the uniform law on the candidates and
    ε = inf the uniform law on the maximisers.

    Raises ValueError for ε < 0 (or NaN), a non-positive sensitivity, an empty
    candidate set, or NaN/infinite scores on the candidate set.
    """
    scores = np.asarray(scores, dtype=np.float64)
    logits, cand = _prepare(scores, eps, sensitivity, mask)
    w = np.exp(logits)
    out = np.zeros(scores.shape)
    out[cand] = w / w.sum()
    return out


def exponential_mechanism(scores, eps, rng: np.random.Generator, *, sensitivity=1.0, mask=None) -> int:
    """Sample u with P(u) ∝ exp(ε·q(u)/(2·sensitivity)) over the candidates (chaturvedi2021 reading R5).

    ``scores`` is q (shape (n,)), ``mask`` an optional boolean (n,) array of
    candidates (default: all).  Uses the Gumbel-max trick
    u* = argmax_{u candidate} ε·(q(u) − max q)/(2Δ) + Gumbel(0,1)_u, drawing one
    Gumbel variate per candidate from ``rng``.  Returns the index into ``scores``.

    Raises ValueError as :func:`exponential_probabilities`.
    """
    logits, cand = _prepare(scores, eps, sensitivity, mask)
    if cand.size == 1:
        return int(cand[0])
    g = rng.gumbel(size=cand.size)
    return int(cand[int(np.argmax(logits + g))])


def exponential_choices(scores, eps, gumbels, *, sensitivity=1.0, mask=None) -> np.ndarray:
    """What :func:`exponential_mechanism` returns for each row of ``gumbels``, its Gumbel variates drawn beforehand.

    ``gumbels`` is (k, c) for c candidates: row i is what one call would draw (``rng.gumbel(size=c)``), so k calls
    on one ``rng`` give the same k outputs as ``exponential_choices(…, rng.gumbel(size=(k, c)))`` (numpy draws the
    variates of an array one by one from the stream, in row order).  With one candidate no variate is drawn and
    ``gumbels`` may have any number of columns.  Returns k int64 indices into ``scores``.
    """
    logits, cand = _prepare(scores, eps, sensitivity, mask)
    gumbels = np.asarray(gumbels, dtype=np.float64)
    if gumbels.ndim != 2:
        raise ValueError(f"gumbels must be two-dimensional (calls, candidates), got shape {gumbels.shape}")
    if cand.size == 1:
        return np.full(gumbels.shape[0], cand[0], dtype=np.int64)
    if gumbels.shape[1] != cand.size:
        raise ValueError(f"gumbels has {gumbels.shape[1]} columns for {cand.size} candidates")
    return cand[np.argmax(logits + gumbels, axis=1)].astype(np.int64, copy=False)


@numba.njit(cache=False)
def gumbel_argmax(logits, mask, uniforms):  # pragma: no cover - exercised through numba
    """Gumbel-max draw inside numba code: argmax_{mask[u]} logits[u] − log(−log(uniforms[u])).

    Arguments (all length n): ``logits`` float64 = ε·q(u)/(2Δ) (any additive
    constant is irrelevant; −inf allowed), ``mask`` boolean candidates,
    ``uniforms`` float64 i.i.d. U(0,1) (e.g. ``rng.random(n)`` drawn by the
    caller; entries outside the mask are ignored).  With these inputs the returned
    index follows the exponential-mechanism law of chaturvedi2021 reading R5.  Returns −1 when the
    mask selects nothing.  The caller is responsible for finite ε and for
    validating scores; this kernel does no checks.
    """
    best = -1
    best_val = -np.inf
    for u in range(logits.shape[0]):
        if not mask[u]:
            continue
        val = logits[u] - np.log(-np.log(uniforms[u]))
        if best == -1 or val > best_val:
            best = u
            best_val = val
    return best
