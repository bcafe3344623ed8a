"""Plain-numpy reference implementation of Algorithm 1 (test oracle and benchmark baseline).

Written for readability, literally following the paper (shariff2018 readings R1–R12):
the private variants keep a :class:`privopt.mechanisms.tree.TreeAggregator` over the items
z_s z_sᵀ (z_s = [x_s; y_s]) with the variant's node sampler, read V_t and ũ_t off the released
(d+1)×(d+1) matrix M̃_t, solve with ``np.linalg``, and score the whole decision set at once.

It consumes the same two random streams as the numba kernel, in the same order (see
:mod:`privopt.bandits.streams` and :mod:`privopt.bandits.instances`), so for the same seed it makes
the same decisions — this is the oracle for :func:`privopt.bandits.kernels.episode_kernel`.
The variates come from the numpy-like methods of :class:`privopt.fastrng.FastGenerator` (the
kernel calls the numba functions behind them on the same state); the node samplers are the numpy
versions (:func:`privopt.mechanisms.gaussian.symmetric_gaussian`,
:func:`privopt.mechanisms.wishart.wishart_bartlett`) and the arm sampler is
:func:`privopt.bandits.instances.sample_decision_set`.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from privopt.bandits.instances import BanditInstance, draw_reward, draw_theta, sample_decision_set
from privopt.bandits.kernels import TIE_RTOL
from privopt.bandits.parameters import VariantParams
from privopt.bandits.results import EpisodeResult, record_grid
from privopt.bandits.streams import episode_streams
from privopt.mechanisms.gaussian import symmetric_gaussian_node_sampler
from privopt.mechanisms.tree import TreeAggregator
from privopt.mechanisms.wishart import wishart_node_sampler

__all__ = ["ReferenceLinUCB", "run_episode_reference"]

log = logging.getLogger(__name__)


class ReferenceLinUCB:
    """Algorithm 1 with the released statistics of one variant (shariff2018 reading R1), plain numpy.

    ``decide(arms)`` returns the UCB-maximising index for the current round; ``update(x, y)``
    feeds the observation into the (private) statistics.
    """

    def __init__(self, params: VariantParams, noise_rng: np.random.Generator) -> None:
        self.p = params
        d = params.d
        self.d = d
        self.pd_failures = 0
        if params.mechanism == "none":
            self.tree = None
        else:
            if params.mechanism == "gaussian":
                sampler = symmetric_gaussian_node_sampler(d + 1, params.sigma_noise, skip_corner=True)
            else:
                sampler = wishart_node_sampler(d + 1, params.df, params.L_tilde_sq, skip_corner=True)
            self.tree = TreeAggregator(params.n, (d + 1, d + 1), sampler, noise_rng, construction="path")
        self.G = np.zeros((d, d))
        self.u = np.zeros(d)

    def released(self) -> tuple[np.ndarray, np.ndarray]:
        """(V_t, ũ_t): V_t = G_t + H_t, ũ_t = u_t + h_t read off M̃_t = M_t + N_t (+ shift on the d×d block)."""
        d = self.d
        if self.tree is None:
            return self.G + self.p.shift * np.eye(d), self.u.copy()
        mt = self.tree.release()
        return mt[:d, :d] + self.p.shift * np.eye(d), mt[:d, d].copy()

    def _cholesky(self, V: np.ndarray) -> np.ndarray:
        try:
            return np.linalg.cholesky(V)
        except np.linalg.LinAlgError:
            self.pd_failures += 1
            w, q = np.linalg.eigh(V)
            w = np.maximum(w, max(1e-8, 1e-12 * max(w.max(), 0.0)))
            return np.linalg.cholesky((q * w) @ q.T)

    def decide(self, arms: np.ndarray) -> tuple[int, dict]:
        """argmax_j ⟨θ̃_t, a_j⟩ + β_t‖a_j‖_{V_t⁻¹} (ties within ``TIE_RTOL`` → lowest index)."""
        V, ut = self.released()
        C = self._cholesky(V)
        V = C @ C.T
        logdet = 2.0 * np.log(np.diag(C)).sum()
        theta_t = np.linalg.solve(V, ut)
        beta = self.p.beta(logdet)
        widths = np.sqrt(np.einsum("kd,dk->k", arms, np.linalg.solve(V, arms.T)))
        ucb = arms @ theta_t + beta * widths
        # running argmax; values within TIE_RTOL (relative) of the running maximum are ties → lowest index
        best = 0
        for j in range(1, ucb.size):
            if ucb[j] > ucb[best] + TIE_RTOL * abs(ucb[best]):
                best = j
        return best, {"beta": beta, "logdet": logdet, "theta_hat": theta_t}

    def update(self, x: np.ndarray, y: float) -> None:
        if self.tree is None:
            self.G += np.outer(x, x)
            self.u += y * x
        else:
            z = np.append(x, y)
            self.tree.add(np.outer(z, z))


def run_episode_reference(params: VariantParams, instance: BanditInstance, n_rounds: int, seed, *,
                          record=None, trace: bool = False) -> EpisodeResult:
    """Reference twin of :func:`privopt.bandits.episodes.run_episode` (same streams, same output)."""
    env, noise = episode_streams(seed, params.mechanism)
    d = instance.d
    theta = np.asarray(instance.theta, dtype=np.float64) if instance.theta is not None else draw_theta(env, d)
    K = instance.n_arms
    grid = record_grid(int(n_rounds), record)
    out = np.zeros(grid.size)
    chosen = np.zeros(int(n_rounds), dtype=np.int64)
    learner = ReferenceLinUCB(params, noise)
    regret = 0.0
    n_opt = 0
    gi = 0
    while gi < grid.size and grid[gi] == 0:
        gi += 1
    t0 = time.perf_counter()
    for t in range(1, int(n_rounds) + 1):
        arms, means, j_opt = sample_decision_set(env, theta, K, gap=instance.gap,
                                                 opt_mean=instance.opt_mean, low=instance.low)
        j, _ = learner.decide(arms)
        chosen[t - 1] = j
        n_opt += j == j_opt
        mu = means[j]
        y = draw_reward(env, mu, instance.reward)
        regret += instance.opt_mean - mu
        if t < n_rounds:  # (the kernel never advances the tree past the last release either)
            learner.update(arms[j], y)
        while gi < grid.size and grid[gi] == t:
            out[gi] = regret
            gi += 1
    wall = time.perf_counter() - t0
    return EpisodeResult(
        variant=params.name, params=params, n_rounds=int(n_rounds), t=grid, regret=out, theta=theta,
        pd_failures=learner.pd_failures, n_optimal=int(n_opt),
        node_draws=learner.tree.draws if learner.tree is not None else 0, wall_s=wall, engine="numpy",
        audit=None, trace=chosen if trace else None,
        extra={"env_state_end": env.state.copy(), "noise_state_end": noise.state.copy()})
