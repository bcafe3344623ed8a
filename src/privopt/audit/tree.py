"""Audits of tree-based aggregation with Gaussian and Wishart node noise (shariff2018 readings R4–R10).

Instance: d = 1 (items are (d+1)×(d+1) = 2×2 matrices Z_s = z_s z_sᵀ, ‖z_s‖² ≤ L̃² = 2),
horizon n = 2 (m = 2 tree levels, root-to-leaf "path" construction), ε = 1, δ = 0.1 as in
the paper's experiments.  Neighbours: one round's (x, y) replaced (t-neighbours, the paper's
Def. 1): round 1 has z = (1, 1) in S and z' = (1, −1) in S', round 2 has z = (1, 0) in
both.  The audited output is the released stream: the lower triangles of the two
releases after items 1 and 2 (six numbers), thresholded along Fisher's direction fitted on
the selection half.  The replaced item moves the off-diagonal entry of both releases by 2.

Claimed: (ε, δ) = (1, 0.1) for the stream (shariff2018 reading R6: per-node calibration + composition
over the m nodes), with the library's node parameters:

* Gaussian: symmetric Gaussian nodes with σ = ``gaussian_node_sigma(m, ε, δ)``
  (= 4√m·L̃²·log(4/δ)/ε);
* Wishart: W_2(L̃²·I, k) nodes with k = ``wishart_df(m, d, ε, δ)`` (paper rule).

Planted bug: node noise scale divided by a large factor: σ/100 for the Gaussian nodes, the
Wishart scale matrix L̃²I/1000 (the Wishart off-diagonal noise has standard deviation
L̃²·sqrt(m·k) ≈ 233 against σ·√m ≈ 59 for the Gaussian, so /100 leaves a standardised shift
of only 1.7: a real but, at δ = 0.1, faint violation).

Exact ε (Gaussian only): the released stream is a Gaussian mechanism with mean shift Δ and
covariance Cov(R_s[i,j], R_t[i,j]) = shared_path_levels(s, t, m)·Var(η_ij) (diagonal
2σ², off-diagonal σ²), so its exact ε at δ is that of the standardised shift
μ = sqrt(Δᵀ Σ⁻¹ Δ) (``gaussian_exact_eps``).  The Wishart stream has no closed form.

Statistic (Gaussian): the exact privacy loss of the released stream, the Gaussian log-likelihood
ratio Δᵀ Σ⁻¹ x (affine in x; :func:`gaussian_stream_loss_direction`) with the correct σ.  The Wishart
stream keeps Fisher's linear statistic (its law has no closed form).

Tightness: loose, both.  The library's calibration σ = 4√m·L̃²·log(4/δ)/ε is conservative: on this
pair (a worst case: one item moved by 2 in Frobenius norm) the stream's standardised shift is 0.048, its
hockey-stick divergence at ε = 0 is 0.019 < δ = 0.1, so its exact ε is 0 — σ must shrink about 19×
before (1, 0.1) is violated, and no subtle bug (×1/√2, ×1/2) can be seen.  The Wishart stream's
exact ε is unknown (no closed-form law): not shown tight.  Only the blatant bugs are planted.

Sampling is batched through the public API: one ``TreeAggregator`` whose items have shape
(B, 2, 2) and whose node sampler returns B independent node noises (:func:`batched_node_sampler`)
gives B independent releases per run.
"""

from __future__ import annotations

import numpy as np

from privopt.audit.core import Audit
from privopt.audit.stats import gaussian_exact_eps
from privopt.bandits.parameters import gaussian_node_sigma, wishart_df
from privopt.mechanisms.gaussian import symmetric_gaussian
from privopt.mechanisms.tree import TreeAggregator, shared_path_levels, tree_levels
from privopt.mechanisms.wishart import wishart_bartlett

__all__ = ["tree_instance", "gaussian_stream_mu", "gaussian_stream_loss_direction", "audits"]

EPS = 1.0
DELTA = 0.1
D = 1
DIM = D + 1
N_ITEMS = 2
L_TILDE_SQ = 2.0
#: planted bug: node noise scale divided by this factor (Gaussian σ, Wishart scale matrix)
BUG_FACTOR = {"gaussian": 100.0, "wishart": 1000.0}
M_LEVELS = tree_levels(N_ITEMS)
SIGMA = gaussian_node_sigma(M_LEVELS, EPS, DELTA, L_TILDE_SQ)
K_DF = wishart_df(M_LEVELS, D, EPS, DELTA)
_ROWS, _COLS = np.tril_indices(DIM)
LABELS = tuple(f"R{s}[{i},{j}]" for s in range(1, N_ITEMS + 1) for i, j in zip(_ROWS, _COLS))
BATCH = 4096


def tree_instance() -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Items (z_s z_sᵀ) of the two neighbouring streams."""
    zs = [np.array([1.0, 1.0]), np.array([1.0, 0.0])]
    zs_prime = [np.array([1.0, -1.0]), np.array([1.0, 0.0])]
    return [np.outer(z, z) for z in zs], [np.outer(z, z) for z in zs_prime]


def batched_node_sampler(noise: str, param: float, batch: int):
    """Node sampler returning ``batch`` independent node noises, shape (batch, DIM, DIM).

    ``symmetric_gaussian(rng, DIM, σ, size=batch)`` and ``wishart_bartlett(rng, k, DIM, scale,
    size=batch)`` are the functions that ``symmetric_gaussian_node_sampler`` and
    ``wishart_node_sampler`` call once per node; ``size`` stacks independent draws.
    """
    if noise == "gaussian":
        return lambda rng: symmetric_gaussian(rng, DIM, param, size=batch)
    return lambda rng: wishart_bartlett(rng, K_DF, DIM, param, size=batch)


def _make_sampler(noise: str):
    def sampler(variant: str, which: int, n: int, rng: np.random.Generator) -> np.ndarray:
        param = SIGMA if noise == "gaussian" else L_TILDE_SQ
        if variant == "planted":
            param = param / BUG_FACTOR[noise]
        items = tree_instance()[which]
        out = np.empty((n, len(LABELS)))
        for start in range(0, n, BATCH):
            b = min(BATCH, n - start)
            tree = TreeAggregator(N_ITEMS, (b, DIM, DIM), batched_node_sampler(noise, param, b), rng)
            cols = []
            for item in items:
                tree.add(np.broadcast_to(item, (b, DIM, DIM)))
                rel = tree.release()
                cols.append(rel[:, _ROWS, _COLS])
            out[start:start + b] = np.concatenate(cols, axis=1)
        return out

    return sampler


def _stream_shift_and_cov(sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """(Δ, Σ): mean shift E[out | S] − E[out | S'] and covariance of the released stream."""
    items0, items1 = tree_instance()
    var = np.where(_ROWS == _COLS, 2.0 * sigma**2, sigma**2)
    k = len(_ROWS)
    delta_vec = np.concatenate([sum(items0[:s])[_ROWS, _COLS] - sum(items1[:s])[_ROWS, _COLS]
                                for s in range(1, N_ITEMS + 1)])
    cov = np.zeros((N_ITEMS * k, N_ITEMS * k))
    for s in range(N_ITEMS):
        for t in range(N_ITEMS):
            shared = shared_path_levels(s + 1, t + 1, M_LEVELS)
            cov[s * k:(s + 1) * k, t * k:(t + 1) * k] = np.diag(shared * var)
    return delta_vec, cov


def gaussian_stream_mu(sigma: float) -> float:
    """Standardised shift μ = sqrt(Δᵀ Σ⁻¹ Δ) of the released stream (lower triangles after each item)."""
    delta_vec, cov = _stream_shift_and_cov(sigma)
    return float(np.sqrt(delta_vec @ np.linalg.solve(cov, delta_vec)))


def gaussian_stream_loss_direction(sigma: float = SIGMA) -> np.ndarray:
    """w = Σ⁻¹Δ: the privacy loss of a released stream x is w·x − w·(m_S + m_S')/2 (an affine function)."""
    delta_vec, cov = _stream_shift_and_cov(sigma)
    return np.linalg.solve(cov, delta_vec)


def _gaussian_loss(outputs: np.ndarray) -> np.ndarray:
    return np.asarray(outputs, dtype=np.float64) @ gaussian_stream_loss_direction(SIGMA)


def _exact_gaussian(variant: str) -> float:
    return gaussian_exact_eps(gaussian_stream_mu(SIGMA / BUG_FACTOR["gaussian"] if variant == "planted" else SIGMA),
                              DELTA)


_INSTANCE = ("d = 1, n = 2 rounds (m = 2 levels, path tree), L~^2 = 2: round 1 z = (1,1) vs (1,-1), round 2 z = (1,0); "
             "output = both releases (lower triangles)")
_RELATION = "t-neighbours: one round's (x, y) replaced (Shariff & Sheffet Def. 1)"


def audits() -> list[Audit]:
    common = dict(paper="shariff2018", instance=_INSTANCE, relation=_RELATION, eps=EPS, delta=DELTA, kind="continuous",
                  labels=LABELS)
    return [
        Audit(name="tree_gaussian", mechanism=f"TreeAggregator (path) + symmetric Gaussian nodes (symmetric_gaussian, sigma = {SIGMA:.4g})",
              bug="node noise sigma divided by 100", sampler=_make_sampler("gaussian"),
              samples={"quick": 10_000, "paper": 100_000}, exact=_exact_gaussian,
              exact_note="analytic Gaussian mechanism of the released stream (shared_path_levels covariance)",
              statistic=_gaussian_loss, statistic_note="Gaussian log-likelihood ratio of the stream (up to a constant)",
              tightness="loose",
              tightness_note=(f"calibration sigma = {SIGMA:.4g} is ~19x the sigma at which this worst-case pair "
                              "reaches (1, 0.1): exact eps 0; no subtle bug violates the claim"),
              **common),
        Audit(name="tree_wishart", mechanism=f"TreeAggregator (path) + Wishart nodes (wishart_bartlett, k = {K_DF}, scale 2I)",
              bug="node noise scale matrix divided by 1000", sampler=_make_sampler("wishart"),
              samples={"quick": 3_000, "paper": 30_000}, tightness="loose",
              tightness_note=("not shown tight: the law has no closed form, so the exact eps of the pair is unknown; "
                              "only the blatant bug is planted"),
              **common),
    ]
