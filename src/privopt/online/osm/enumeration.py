"""T-PRIV: the exact output law of FI-DP on a tiny instance, by enumeration (Figure F8, claim C8.2;
docs/papers/perezsalazar2021.md, reading R22).

Instance: U = {0, 1, 2}, k = 2, T = 4, ``f_t(S) = |S ∩ {0, 1}|/2`` for t ≠ t₀ = 2; the neighbouring
streams differ only at t₀: ``f_2(S) = 1{0 ∈ S}`` versus ``f'_2(S) = 1{2 ∈ S}``.  (A change that
shifts every coordinate equally would leak nothing: softmax is shift-invariant.)

Output = the sequence of the experts' ordered picks ``((a_t^1, a_t^2))_{t≤T}`` — finer than the sets
S_t, so its privacy implies theirs.  Every one of the ``(n^k)^T = 6561`` sequences gets its exact
probability by recursion over the rounds: the draws of a round are independent across experts given
the past, expert i's law is ``softmax(η G_i)``, and ``G_i`` grows by the marginal gains on the picks of
experts 1..i−1 — the feed-forward of Lemma 1, which is what the check exercises.

Reported per η: the total probability on each input (must be 1), ``max_o |ln P(o)/P'(o)|`` against
the pure bound ``2ηk(T − t₀)`` (each draw after t₀ of each expert is 2η-DP, the prefix fixed), and
the hockey-stick divergence ``δ(ε) = max(Σ_o (P − e^ε P')⁺, Σ_o (P' − e^ε P)⁺)``.

Planted bug (``gain_scale``): the gains are multiplied by a factor (e.g. window counts fed instead of
fractions): the sensitivity is no longer 1 and the bound check fails.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["TPRIV", "tpriv_functions", "output_law", "hockey_stick", "tpriv_row"]

#: the instance of perezsalazar2021 reading R22: n items, k experts, T rounds, the round t₀ (1-based) where the
#: streams differ
TPRIV = {"n": 3, "k": 2, "T": 4, "t0": 2}

SetFunction = Callable[[frozenset], float]


def tpriv_functions(neighbour: bool) -> list[SetFunction]:
    """The stream F (``neighbour`` False) or F' (True) of the instance."""
    base: SetFunction = lambda S: len(S & {0, 1}) / 2.0  # noqa: E731
    at_t0: SetFunction = (lambda S: float(2 in S)) if neighbour else (lambda S: float(0 in S))  # noqa: E731
    return [at_t0 if t + 1 == TPRIV["t0"] else base for t in range(TPRIV["T"])]


def _round_gains(f: SetFunction, n: int, k: int, scale: float) -> np.ndarray:
    """gains[j, i, a] for every joint pick j (tuples in lexicographic order): the marginal of a on the
    picks of experts 1..i−1 of tuple j."""
    tuples = list(itertools.product(range(n), repeat=k))
    out = np.zeros((len(tuples), k, n))
    for j, picks in enumerate(tuples):
        for i in range(k):
            prefix = frozenset(picks[:i])
            base = f(prefix)
            out[j, i] = [scale * (f(prefix | {a}) - base) for a in range(n)]
    return out


def output_law(functions: Sequence[SetFunction], n: int, k: int, eta: float, gain_scale: float = 1.0) -> np.ndarray:
    """Exact probability of every output sequence (lexicographic in rounds, then experts' picks)."""
    tuples = np.array(list(itertools.product(range(n), repeat=k)))  # (n^k, k)
    probs = np.ones(1)
    G = np.zeros((1, k, n))
    for f in functions:
        z = eta * G
        z -= z.max(axis=2, keepdims=True)
        x = np.exp(z)
        x /= x.sum(axis=2, keepdims=True)  # (N, k, n)
        joint = np.ones((G.shape[0], tuples.shape[0]))
        for i in range(k):
            joint *= x[:, i, tuples[:, i]]
        gains = _round_gains(f, n, k, gain_scale)  # (n^k, k, n)
        probs = (probs[:, None] * joint).reshape(-1)
        G = (G[:, None] + gains[None]).reshape(-1, k, n)
    return probs


def hockey_stick(p: np.ndarray, q: np.ndarray, eps: float) -> float:
    """δ(ε) of the pair of laws (both directions)."""
    e = math.exp(eps)
    return float(max(np.clip(p - e * q, 0, None).sum(), np.clip(q - e * p, 0, None).sum()))


def tpriv_row(eta: float, eps_nominal: float | None = None, gain_scale: float = 1.0) -> dict:
    """One row of the T-PRIV table at rate η (and the nominal ε it came from, if any)."""
    n, k, T, t0 = TPRIV["n"], TPRIV["k"], TPRIV["T"], TPRIV["t0"]
    p = output_law(tpriv_functions(False), n, k, eta, gain_scale)
    q = output_law(tpriv_functions(True), n, k, eta, gain_scale)
    ratio = float(np.max(np.abs(np.log(p) - np.log(q))))
    row = {"eta": float(eta), "eps_nominal": float("nan") if eps_nominal is None else float(eps_nominal),
           "gain_scale": float(gain_scale), "outputs": int(p.size), "sum_P": float(p.sum()), "sum_P_prime": float(q.sum()),
           "max_log_ratio": ratio, "pure_bound": 2.0 * eta * k * (T - t0)}
    row["delta_at_eps"] = hockey_stick(p, q, eps_nominal) if eps_nominal is not None else float("nan")
    return row
