"""Private contextual linear bandits (Shariff & Sheffet, NeurIPS 2018).

Spec: shared/specs/private-linear-bandits.md.  Modules:

* :mod:`.parameters` — constants m, k, c, Υ, σ_noise, (ρ_min, ρ_max, γ) per variant; the ρ_min → (shift,
  ρ_max, γ) mapping of Fig. 5; the Fig. 5 grid.
* :mod:`.instances` — θ*, exact spherical-zone arm sampler, rewards, exact densities.
* :mod:`.kernels` — the numba episode kernel (all variants).
* :mod:`.linucb` — plain-numpy reference implementation (oracle / benchmark baseline).
* :mod:`.episodes` — :func:`run_episode` / :func:`run_episodes`, seeding and recording.

The tree-based aggregation and node-noise samplers live in :mod:`privopt.mechanisms.tree`,
:mod:`privopt.mechanisms.gaussian` and :mod:`privopt.mechanisms.wishart`.
"""

from privopt.bandits.episodes import (
    EpisodeBatch,
    EpisodeResult,
    as_seed_sequence,
    episode_streams,
    record_grid,
    run_episode,
    run_episodes,
    sample_audit_rounds,
)
from privopt.bandits.instances import BanditInstance, draw_theta, sample_decision_set
from privopt.bandits.parameters import (
    VARIANTS,
    VariantParams,
    gaussian_params,
    nonprivate_params,
    params_for_rho_min,
    rho_min_grid,
    tree_levels,
    variant_params,
    wishart_df,
    wishart_params,
)

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
