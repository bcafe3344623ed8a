"""The random-draw floor of a private LinUCB round (issue 14): the draws alone, nothing else.

A round of :func:`privopt.bandits.kernels.episode_kernel` draws, from the project's generator
(xoshiro256++ of :mod:`privopt.fastrng`, states seeded as in :mod:`privopt.bandits.streams`):

* environment: the optimal arm's index (one uniform), the K arms of the decision set
  (:func:`privopt.bandits.kernels.decision_set_start`: one uniform and the two keys of the set's normals;
  :func:`privopt.bandits.kernels.draw_arm_prime`: the zone rejection sampler's uniforms, and d − 1
  counter-based normals per arm from :mod:`privopt.fastrng.counter_based`) and the reward coin (one uniform for ±1 rewards, one normal for Gaussian ones);
* noise (private variants): the tree nodes refreshed this round (m nodes in round 1, then
  1 + min(tz(t − 1), m − 1): two on average), each a packed (d+1)×(d+1) symmetric Gaussian or
  Wishart (Bartlett) matrix drawn by the kernel's own samplers.

:func:`floor_kernel` makes exactly these draws, with the same functions, and nothing else (no
Cholesky, no scoring, no statistics).  A lockstep group (:mod:`privopt.bandits.lockstep`) draws the
environment once and the noise of each of its noise groups once: ``floor_us_per_round`` takes the
list of the group's noise mechanisms.

Large d (Exp. 1, issue 24): :func:`large_d_floor_parts` times, per round at d with K = d² arms and
Gaussian rewards, the pieces a round cannot do without — the draws by the plain generator
(:func:`floor_kernel`, arm by arm), the same draws as the prefilter kernel makes them
(:func:`floor_kernel_prefilter`: the normals' vectorised fast pass row by row, the exact pass where a row
needs it; the same numbers), and the scoring
product of all arms by one BLAS call: (K×d)·(d×d) in float64 (the batched kernel's method) and in
float32 (the prefilter kernel's).  Old floor = plain draws + float64 product; new floor = the
prefilter kernel's draws + float32 product.

Run: ``python benchmarks/bench_bandit_floor.py [--rounds N] [--repeats R]`` (d = 5, K = 25, paper
constants n = 5·10⁷, gap 0.1, ±1 rewards); :mod:`bench_bandits` imports :func:`floor_us_per_round`
and :func:`large_d_floor_parts` to print ratios measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numba
import numpy as np

from privopt.bandits import BanditInstance, variant_params
from privopt.bandits.instances import zone_mode
from privopt.bandits.kernels import decision_set_start, dim_tag, draw_arm_prime, draw_arm_t
from privopt.bandits.parameters import MECH_CODES
from privopt.bandits.streams import episode_streams
from privopt.fastrng.counter_based import fill_normals, fix_normals
from privopt.fastrng import rng_load, rng_normal_t, rng_store, rng_uniform_t
from privopt.mechanisms.gaussian import sym_gaussian_packed_into
from privopt.mechanisms.tree import path_refresh_top
from privopt.mechanisms.wishart import bartlett_packed_into

N_PAPER = 50_000_000


@numba.njit(cache=True)
def floor_kernel(env, noise, dim_tag, K, opt_mean, low, high, om, reward_gauss, gmech, gm, gdf, gscale, gsigma,
                 n_rounds):
    """The draws of ``n_rounds`` rounds (module docstring); ``noise`` is (groups, 4).  Returns a checksum."""
    d = len(dim_tag)
    d1 = d + 1
    npk = d1 * (d1 + 1) // 2 - 1
    ng = gmech.shape[0]
    g = np.zeros(d)
    abuf = np.zeros((d1, d1))
    nodebuf = np.zeros(npk)
    acc = 0.0
    est = rng_load(env)
    for t in range(1, n_rounds + 1):
        for gi in range(ng):
            if gmech[gi] == 0:
                continue
            top = gm[gi] - 1 if t == 1 else path_refresh_top(t - 1, gm[gi])
            for _lv in range(top + 1):
                if gmech[gi] == 1:
                    sym_gaussian_packed_into(noise[gi], gsigma[gi], d1, True, nodebuf)
                else:
                    bartlett_packed_into(noise[gi], gdf[gi], d1, gscale[gi], True, abuf, nodebuf)
            acc += nodebuf[0]
        jo, ka, kb, est = decision_set_start(est, K)
        for j in range(K):
            tj, sc, est = draw_arm_prime(est, d, j == jo, opt_mean, low, high, om, g, ka, kb, j)
            acc += sc
        if reward_gauss:
            z, est = rng_normal_t(est)
        else:
            z, est = rng_uniform_t(est)
        acc += z
    rng_store(env, est)
    return acc


@numba.njit(cache=True)
def floor_kernel_prefilter(env, dim_tag, K, opt_mean, low, high, om, reward_gauss, n_rounds):
    """The environment draws of ``n_rounds`` rounds as the prefilter kernel makes them (the same numbers as
    :func:`floor_kernel`'s, by the prefilter kernel's fast and exact passes of :mod:`privopt.fastrng.counter_based`),
    the directions stored one arm per row.  Returns a checksum."""
    d = len(dim_tag)
    gr = np.zeros((K, d))
    acc = 0.0
    est = rng_load(env)
    for _t in range(n_rounds):
        jo, ka, kb, est = decision_set_start(est, K)
        for j in range(K):
            tj, est = draw_arm_t(est, d, j == jo, opt_mean, low, high, om)
            bad = fill_normals(ka, kb, np.uint64(j * (d - 1)), gr[j], 1, d - 1)
            if bad:
                fix_normals(ka, kb, np.uint64(j * (d - 1)), gr[j], 1, d - 1, bad)
            acc += tj
        if reward_gauss:
            z, est = rng_normal_t(est)
        else:
            z, est = rng_uniform_t(est)
        acc += z + gr[0, 1]
    rng_store(env, est)
    return acc


@numba.njit(cache=True)
def _products(a, b, out, n):
    for _ in range(n):
        np.dot(a, b, out)
    return out[0, 0]


def large_d_floor_parts(d: int, rounds: int, seed: int = 1) -> dict[str, float]:
    """CPU µs per round (``time.process_time``) of the floor's pieces at d, K = d², Gaussian rewards, gap 0.1
    (module docstring): ``draws``, ``draws_prefilter``, ``gemm64`` (K×d by d×d), ``sgemm32`` (the same in float32)."""
    inst = BanditInstance(d=d, gap=0.1, reward="gaussian")
    K = inst.n_arms
    om = 1.0 - zone_mode(inst.low, inst.high, d) ** 2
    args = (dim_tag(d), K, inst.opt_mean, inst.low, inst.high, om, True)
    rng = np.random.default_rng(seed)
    x64, b64 = rng.standard_normal((K, d)), rng.standard_normal((d, d))
    w64 = np.zeros((K, d))
    b32, x32 = b64.astype(np.float32), x64.astype(np.float32)
    w32 = np.zeros((K, d), dtype=np.float32)
    none = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0), np.zeros(0)
    out = {}
    for name, call in [
        ("draws", lambda n: floor_kernel(episode_streams(seed, "none")[0].state, np.zeros((0, 4), np.uint64),
                                         *args, *none, n)),
        ("draws_prefilter", lambda n: floor_kernel_prefilter(episode_streams(seed, "none")[0].state, *args, n)),
        ("gemm64", lambda n: _products(x64, b64, w64, n)),
        ("sgemm32", lambda n: _products(x32, b32, w32, n)),
    ]:
        call(1)  # compile or load
        c0 = time.process_time()
        call(rounds)
        out[name] = 1e6 * (time.process_time() - c0) / rounds
    return out


def floor_us_per_round(mechanisms, d: int = 5, gap: float = 0.1, rounds: int = 200_000, repeats: int = 5,
                       seed: int = 1, reward: str = "pm1") -> tuple[float, list[float]]:
    """(median, all) µs per round of the draws of one round with the given noise mechanisms
    (``[]`` or ``["none"]``: environment only; ``["gaussian", "wishart"]``: a Fig. 4 lockstep group)."""
    inst = BanditInstance(d=d, gap=gap, reward=reward)
    mechs = [mc for mc in mechanisms if mc != "none"]
    ps = [variant_params(mc, N_PAPER, d) for mc in mechs]
    om = 1.0 - zone_mode(inst.low, inst.high, d) ** 2
    args = (dim_tag(d), inst.n_arms, inst.opt_mean, inst.low, inst.high, om, reward == "gaussian",
            np.array([MECH_CODES[mc] for mc in mechs], dtype=np.int64), np.array([p.m for p in ps], dtype=np.int64),
            np.array([float(p.df) for p in ps]), np.array([p.L_tilde_sq for p in ps]),
            np.array([p.sigma_noise for p in ps]))

    def states(s):
        env = episode_streams(s, "none")[0].state
        noise = np.stack([episode_streams(s, mc)[1].state for mc in mechs]) if mechs else np.zeros((0, 4), np.uint64)
        return env, noise.astype(np.uint64)

    env, noise = states(0)
    floor_kernel(env, noise, *args, 2)  # compile or load
    times = []
    for rep in range(repeats):
        env, noise = states(seed + rep)
        t0 = time.perf_counter()
        floor_kernel(env, noise, *args, rounds)
        times.append(1e6 * (time.perf_counter() - t0) / rounds)
    return statistics.median(times), times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=200_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    print(f"# {platform.processor() or platform.machine()}, python {platform.python_version()}, "
          f"load avg {os.getloadavg()[0]:.2f}")
    print(f"# draws alone, d = 5, K = 25, gap 0.1, ±1 rewards; median of {args.repeats} x {args.rounds} rounds")
    for label, mechs in [("environment only (NonPrivate)", []), ("+ Gaussian tree", ["gaussian"]),
                         ("+ Wishart tree", ["wishart"]), ("+ Gaussian + Wishart (Fig. 4 group)", ["gaussian", "wishart"])]:
        med, times = floor_us_per_round(mechs, rounds=args.rounds, repeats=args.repeats)
        print(f"{label:38s} {med:7.3f} us/round  (min {min(times):.3f}, max {max(times):.3f})")


if __name__ == "__main__":
    main()
