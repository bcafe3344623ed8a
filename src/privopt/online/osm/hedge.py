"""Hedge (exponential weights, Freund & Schapire 1997): Algorithm 1 of Perez-Salazar & Cummings.

docs/papers/perezsalazar2021.md, readings R1 and R3.  On actions ``[N]`` with gains ``g_t ∈ [0,1]^N`` Hedge plays
``i_t ~ x_t`` with ``x_t ∝ exp(η Σ_{τ<t} g_τ)`` (weights ``w_1 = 1``, ``w_{t+1} = w_t·exp(η g_t)``).
Its deterministic guarantee (Thm 3), for every action i and every gain sequence, valid for η ≤ 1::

    Σ_t g_t(i) − Σ_t x_tᵀ g_t  ≤  η Σ_t x_tᵀ(g_t²) + ln N / η.

Privacy comes from the sampling alone: the draw at t is the exponential mechanism with score
``Σ_{τ<t} g_τ`` (sensitivity 1), so each draw is 2η-DP (:mod:`privopt.online.osm.privacy`).

These are the plain closed forms the kernels (:mod:`privopt.online.osm.kernels`) are tested
against; they are not used in the simulation loops.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["hedge_distribution", "hedge_play_distributions", "hedge_pseudo_regret", "hedge_bound"]


def hedge_distribution(eta: float, cumulative_gains) -> np.ndarray:
    """softmax(η·G): the distribution Hedge plays after cumulative gains ``G`` (stable, sums to 1)."""
    z = float(eta) * np.asarray(cumulative_gains, dtype=float)
    z = z - z.max(axis=-1, keepdims=True)
    w = np.exp(z)
    return w / w.sum(axis=-1, keepdims=True)


def hedge_play_distributions(eta: float, gains) -> np.ndarray:
    """The distributions ``x_1 … x_T`` (rows) Hedge plays on the gain sequence ``gains`` (T×N),
    by the closed form ``x_t = softmax(η Σ_{τ<t} g_τ)`` (``x_1`` uniform)."""
    gains = np.asarray(gains, dtype=float)
    before = np.vstack([np.zeros((1, gains.shape[1])), np.cumsum(gains, axis=0)[:-1]])
    return hedge_distribution(eta, before)


def hedge_pseudo_regret(gains, plays) -> float:
    """``max_i Σ_t g_t(i) − Σ_t x_tᵀ g_t`` for gain rows ``gains`` and played distributions ``plays``."""
    gains, plays = np.asarray(gains, dtype=float), np.asarray(plays, dtype=float)
    return float(gains.sum(axis=0).max() - np.einsum("tn,tn->", plays, gains))


def hedge_bound(eta: float, gains, plays) -> float:
    """Right-hand side of Thm 3: ``η Σ_t x_tᵀ(g_t²) + ln N / η``."""
    gains, plays = np.asarray(gains, dtype=float), np.asarray(plays, dtype=float)
    return float(eta * np.einsum("tn,tn->", plays, gains**2) + math.log(gains.shape[1]) / eta)
