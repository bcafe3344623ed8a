"""Private contextual linear bandits (Shariff & Sheffet, NeurIPS 2018).

How the paper was read: docs/papers/shariff2018.md, "Reading of the paper".  Modules:

* :mod:`.parameters` — constants m, k, c, Υ, σ_noise, (ρ_min, ρ_max, γ) per variant; the ρ_min → (shift,
  ρ_max, γ) mapping of Fig. 5; the Fig. 5 grid.
* :mod:`.instances` — θ*, exact spherical-zone arm sampler, rewards, exact zone law.
* :mod:`.streams` — a run's environment / noise / audit random streams, derived from its seed.
* :mod:`.results` — the recording grid and :class:`EpisodeResult`, shared by both engines.
* :mod:`.round` — one round of Algorithm 1 for one or several variants: the round loop every kernel shares.
* :mod:`.kernels` — the numba episode kernels (all variants).
* :mod:`.prefilter` — the large-d kernel: float32 scores with a rigorous bound, the argmax in float64.
* :mod:`.lockstep` — one numba kernel running several variants of a seed together (exactly as one by one).
* :mod:`.linucb` — plain-numpy reference implementation (oracle / benchmark baseline).
* :mod:`.episodes` — :func:`run_episode` / :func:`run_episodes` (either engine) and audits.

Each module imports only modules listed before it (no import cycle).
The tree-based aggregation and node-noise samplers live in :mod:`privopt.mechanisms.tree`,
:mod:`privopt.mechanisms.gaussian` and :mod:`privopt.mechanisms.wishart`, the random variates in
:mod:`privopt.fastrng`.
"""

from privopt.bandits.episodes import EpisodeBatch, run_episode, run_episodes
from privopt.bandits.instances import BanditInstance, draw_theta, sample_decision_set
from privopt.bandits.parameters import (
    VARIANTS,
    VariantParams,
    gaussian_params,
    nonprivate_params,
    params_for_rho_min,
    rho_min_grid,
    variant_params,
    wishart_df,
    wishart_params,
)
from privopt.bandits.results import EpisodeResult, record_grid
from privopt.bandits.streams import as_seed_sequence, episode_streams, sample_audit_rounds
from privopt.mechanisms.tree import tree_levels

__all__ = [
    "VARIANTS",
    "BanditInstance",
    "EpisodeBatch",
    "EpisodeResult",
    "VariantParams",
    "as_seed_sequence",
    "draw_theta",
    "episode_streams",
    "gaussian_params",
    "nonprivate_params",
    "params_for_rho_min",
    "record_grid",
    "rho_min_grid",
    "run_episode",
    "run_episodes",
    "sample_audit_rounds",
    "sample_decision_set",
    "tree_levels",
    "variant_params",
    "wishart_df",
    "wishart_params",
]
