"""The random streams of one bandit run, derived from its seed (shariff2018 reading R21).

Project rule: all randomness comes from a SeedSequence/Generator passed in.  A run's seed (int,
``SeedSequence`` or ``Generator``) is turned into a ``SeedSequence`` ``ss`` by :func:`as_seed_sequence`
(a ``Generator`` contributes 8 draws of 32-bit entropy — it is advanced); then

* environment stream  ``env   = FastGenerator(SeedSequence(ss.entropy, spawn_key = ss.spawn_key + (0,)))``
  — θ*, decision sets, reward coins;
* noise stream        ``noise = FastGenerator(SeedSequence(ss.entropy, spawn_key = ss.spawn_key + (1, code)))``
  with code = :data:`privopt.bandits.parameters.MECH_CODES` of the mechanism (0/1/2 for
  none/gaussian/wishart) — tree node noises; a Gaussian variant whose noise comes from a continual counter
  (``VariantParams.counter`` ≠ "path", issue 27) uses ``spawn_key + (1, code, 1 + counter code)``
  (:data:`privopt.mechanisms.counting.COUNTERS` order), a stream of its own;
* audit stream        ``Generator(PCG64(SeedSequence(ss.entropy, spawn_key = ss.spawn_key + (2,))))``
  — only the random sample of audited rounds (:func:`sample_audit_rounds`); no engine draws from
  it, so auditing changes no decision and no regret value.

``FastGenerator`` (:mod:`privopt.fastrng`) is xoshiro256++ with state
``SeedSequence.generate_state(4, uint64)``; the numba kernel advances the same state arrays and the
plain-numpy reference calls the generator's numpy-like methods, so both engines draw identical numbers.
Consequences: every variant run with the same seed sees the same θ*, decision sets and reward coins
(common random numbers); "wishart" and "wishart_unshifted" (and all Fig. 5 Wishart grid points) also
share their noise matrices N_t; a run of T rounds is an exact prefix of the run of any longer
horizon with the same ``VariantParams`` (shariff2018 reading R19).  Nothing depends on job order or on how many
runs a job contains.
"""

from __future__ import annotations

import numpy as np

from privopt.bandits.parameters import MECH_CODES
from privopt.fastrng import FastGenerator
from privopt.mechanisms.counting import COUNTERS

__all__ = ["SeedLike", "as_seed_sequence", "episode_streams", "sample_audit_rounds"]

SeedLike = int | np.random.SeedSequence | np.random.Generator


def as_seed_sequence(seed: SeedLike) -> np.random.SeedSequence:
    """int → SeedSequence(int); SeedSequence → itself; Generator → SeedSequence of 8 of its 32-bit draws."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence([int(v) for v in seed.integers(0, 2**32, size=8, dtype=np.uint64)])
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0:
        return np.random.SeedSequence(int(seed))
    raise TypeError(f"seed must be a non-negative int, SeedSequence or Generator, got {seed!r}")


def episode_streams(seed: SeedLike, mechanism: str, counter: str = "path") -> tuple[FastGenerator, FastGenerator]:
    """(env, noise) generators of one run (module docstring)."""
    ss = as_seed_sequence(seed)
    key = tuple(ss.spawn_key)
    env = FastGenerator(np.random.SeedSequence(ss.entropy, spawn_key=key + (0,)))
    noise_key = key + (1, MECH_CODES[mechanism])
    if counter != "path":
        noise_key += (1 + COUNTERS.index(counter),)
    noise = FastGenerator(np.random.SeedSequence(ss.entropy, spawn_key=noise_key))
    return env, noise


def sample_audit_rounds(seed: SeedLike, n_rounds: int, size: int) -> np.ndarray:
    """``size`` distinct rounds drawn uniformly from 1..n_rounds by the run's audit stream (sorted).

    The stream depends only on the run's seed (module docstring), so every variant run on that
    seed is audited at the same rounds.  ``size ≥ n_rounds`` gives every round; 0 gives none.
    """
    if isinstance(size, bool) or int(size) != size or size < 0:
        raise ValueError(f"size must be a non-negative integer, got {size!r}")
    n_rounds, size = int(n_rounds), int(size)
    if size >= n_rounds:
        return np.arange(1, n_rounds + 1, dtype=np.int64)
    ss = as_seed_sequence(seed)
    gen = np.random.Generator(np.random.PCG64(np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (2,))))
    return np.sort(gen.choice(n_rounds, size=size, replace=False).astype(np.int64) + 1)
