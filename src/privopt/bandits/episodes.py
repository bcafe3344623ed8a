"""High-level API: run episodes of the (private) LinUCB variants and return pseudo-regret curves.

This is what experiment code (and the Snakemake scripts, through ``privopt.experiments``) calls::

    from privopt.bandits import BanditInstance, variant_params, run_episodes
    from privopt.seeding import seed_sequence

    n = 50_000_000                                   # full horizon: all constants use it
    variants = [variant_params(v, n, 5) for v in ("nonprivate", "gaussian", "wishart", "wishart_unshifted")]
    seeds = [seed_sequence("shariff2018", "fig4", {"gap": 0.1}, s) for s in range(8)]
    batch = run_episodes(variants, BanditInstance(d=5, gap=0.1), n_rounds=4_000_000,   # prefix run
                         seeds=seeds, labels=range(8), record=5000)
    batch.curves   # tidy: variant, seed, t, regret
    batch.runs     # one row per (variant, seed): final regret, pd_failures, wall_s, constants …

Seeding: a run's seed gives its environment, noise and audit streams (:mod:`privopt.bandits.streams`):
every variant run with the same seed sees the same θ*, decision sets and reward coins (common random
numbers), and a run of T rounds is an exact prefix of a longer run with the same ``VariantParams``.
``engine="numba"`` (kernels of :mod:`privopt.bandits.kernels`) and ``engine="numpy"`` (reference of
:mod:`privopt.bandits.linucb`) draw identical numbers and return the same
:class:`~privopt.bandits.results.EpisodeResult`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privopt.bandits.instances import BanditInstance, draw_theta, householder, zone_mode
from privopt.bandits.kernels import audit_layout, audit_width, dim_tag, episode_kernel, episode_kernel_batched
from privopt.bandits.linucb import run_episode_reference
from privopt.bandits.lockstep import lockstep_kernel, noise_group_key
from privopt.bandits.parameters import MECH_CODES, VariantParams
from privopt.bandits.prefilter import episode_kernel_prefilter
from privopt.bandits.results import EpisodeResult, record_grid
from privopt.bandits.streams import SeedLike, as_seed_sequence, episode_streams, sample_audit_rounds
from privopt.mechanisms.gaussian import unpack_symmetric

__all__ = [
    "EpisodeBatch",
    "run_episode",
    "run_episodes",
    "run_lockstep",
    "AUDIT_COLUMNS",
    "evaluate_audit",
]

#: columns of the evaluated audit table (one row per audited round; claims S.1/S.2 of shariff2018 reading R20)
AUDIT_COLUMNS = ("t", "lambda_min_H", "lambda_max_H", "h_norm_Hinv", "conf_norm_V", "beta", "logdet_V")

log = logging.getLogger(__name__)

#: ``kernel="auto"`` uses the BLAS kernels from this dimension on (K = d² arms) ...
BATCHED_MIN_D = 12
#: ... the batched one below this dimension, the prefilter one (:mod:`.prefilter`) from it on (issue 24,
#: ``bench_bandits.py --cost-table`` on the AMD EPYC host, CPU µs per round, batched / prefilter:
#: d = 12: 11 / 13.3, 16: 26.1 / 27.4, 23: 73.3 / 66.6, 32: 216 / 161, 45: 677 / 435, 64: 1970 / 1190)
PREFILTER_MIN_D = 20


def evaluate_audit(raw: np.ndarray, theta: np.ndarray) -> pd.DataFrame:
    """Evaluate raw audit rows of the kernel (claims S.1/S.2, shariff2018 reading R20): per audited round t,
    λ_min(H_t), λ_max(H_t), ‖h_t‖_{H_t⁻¹} (inf if H_t is not PD), ‖θ* − θ̃_t‖_{V_t}, β_t, log det V_t."""
    d = theta.size
    lay = audit_layout(d)
    rows = []
    for r in raw:
        H = unpack_symmetric(r[lay["H"]], d)
        h = r[lay["h"]]
        V = unpack_symmetric(r[lay["V"]], d)
        diff = theta - r[lay["theta_hat"]]
        lam = np.linalg.eigvalsh(H)
        hn = float(np.sqrt(h @ np.linalg.solve(H, h))) if lam[0] > 0 else np.inf
        rows.append((int(r[0]), lam[0], lam[-1], hn, float(np.sqrt(max(diff @ V @ diff, 0.0))), r[1], r[2]))
    return pd.DataFrame(rows, columns=AUDIT_COLUMNS)


def _audit_rounds(audit, n_rounds: int) -> np.ndarray:
    """Audited rounds: none (None), k evenly spaced (int) or the given rounds (array)."""
    if audit is None:
        return np.zeros(0, dtype=np.int64)
    if np.isscalar(audit):
        return np.unique(np.linspace(1, n_rounds, int(audit)).round().astype(np.int64))
    audit_t = np.unique(np.asarray(audit, dtype=np.int64))
    if audit_t.size and (audit_t[0] < 1 or audit_t[-1] > n_rounds):
        raise ValueError("audit rounds must lie in [1, n_rounds]")
    return audit_t


def _check(params: VariantParams, instance: BanditInstance, n_rounds: int) -> None:
    if not isinstance(params, VariantParams):
        raise TypeError("variant must be a VariantParams (see privopt.bandits.parameters)")
    if params.d != instance.d:
        raise ValueError(f"variant is for d = {params.d}, instance has d = {instance.d}")
    if isinstance(n_rounds, bool) or int(n_rounds) != n_rounds or n_rounds < 0:
        raise ValueError(f"n_rounds must be a non-negative integer, got {n_rounds!r}")
    if n_rounds > params.n:
        raise ValueError(f"n_rounds = {n_rounds} exceeds the horizon n = {params.n} of the constants "
                         "(quick runs are prefixes: keep the full-n constants, shariff2018 reading R19)")
    if params.mechanism != "none" and n_rounds > 2 ** (params.m - 1):
        raise ValueError("n_rounds exceeds the tree capacity 2^(m-1)")
    if params.mechanism != "none" and instance.reward != "pm1":
        log.warning("private variant %s with unbounded (Gaussian) rewards: the noise calibration "
                    "assumes ‖x‖² + y² ≤ L̃²", params.name)


def run_episode(variant: VariantParams, instance: BanditInstance, n_rounds: int, seed: SeedLike, *,
                record=None, audit=None, trace: bool = False, engine: str = "numba",
                kernel: str = "auto") -> EpisodeResult:
    """Run one episode of Algorithm 1 (shariff2018 reading R1) for ``n_rounds`` ≤ ``variant.n`` rounds.

    Parameters
    ----------
    variant : constants of the variant (:func:`privopt.bandits.parameters.variant_params`,
        :func:`~privopt.bandits.parameters.params_for_rho_min`), computed for the full horizon.
    instance : :class:`~privopt.bandits.instances.BanditInstance` (d, K, gap, reward model).
    n_rounds : rounds to simulate (a prefix of the full-horizon run).
    seed : the run's seed (module docstring); the same seed gives every variant the same
        decision sets and reward coins.
    record : recording grid (:func:`record_grid`).
    audit : rounds (array) or number of rounds (int, evenly spaced) at which λ_min/λ_max(H_t),
        ‖h_t‖_{H_t⁻¹}, ‖θ* − θ̃_t‖_{V_t}, β_t are stored (claims S.1/S.2); None = no audit.
    trace : keep the chosen arm index of every round (tests).
    engine : "numba" (fast kernel) or "numpy" (plain-numpy reference of :mod:`.linucb`;
        same random streams, hence the same decisions up to floating-point ties).
    kernel : numba kernel — "buffered" (the lockstep kernel of :mod:`.lockstep` with this one variant:
        the decision set drawn into buffers, then every arm scored in a loop the compiler vectorises;
        fastest for small d), "onthefly" (:func:`.kernels.episode_kernel`: arms scored as they are drawn;
        the reference the buffered kernel is tested against, bit for bit), "prefilter"
        (:func:`.prefilter.episode_kernel_prefilter`: float32 BLAS scores with a rigorous error bound,
        the argmax among the arms within it in the reference's float64; fastest for large K·d, and bit for
        bit equal to "onthefly"), "batched" (one float64 BLAS product per round, the previous large-d
        kernel), or "auto" (prefilter from d = :data:`PREFILTER_MIN_D`, batched from d = :data:`BATCHED_MIN_D`,
        else buffered).  All make the same
        decisions; "buffered", "prefilter" and "onthefly" agree bit for bit.
    """
    _check(variant, instance, n_rounds)
    if variant.counter != "path" and (engine != "numba" or kernel not in ("auto", "buffered")
                                      or instance.d >= BATCHED_MIN_D):
        raise ValueError(f"{variant.name}: a continual counter's noise (counter={variant.counter!r}) is made by the "
                         f"buffered numba kernel only (engine='numba', kernel 'auto' or 'buffered', d < "
                         f"{BATCHED_MIN_D}); got engine={engine!r}, kernel={kernel!r}, d = {instance.d}")
    if engine == "numpy":
        return run_episode_reference(variant, instance, n_rounds, seed, record=record, trace=trace)
    if engine != "numba":
        raise ValueError(f"engine must be 'numba' or 'numpy', got {engine!r}")
    if kernel == "auto":
        kernel = ("prefilter" if instance.d >= PREFILTER_MIN_D else
                  "batched" if instance.d >= BATCHED_MIN_D else "buffered")
    if kernel not in ("onthefly", "buffered", "batched", "prefilter"):
        raise ValueError(f"kernel must be 'auto', 'buffered', 'onthefly', 'prefilter' or 'batched', got {kernel!r}")
    if kernel == "buffered":
        return run_lockstep([variant], instance, n_rounds, seed, record=record, audit=audit, trace=trace)[0]
    n_rounds = int(n_rounds)
    env, noise = episode_streams(seed, variant.mechanism)
    d = instance.d
    theta = (np.asarray(instance.theta, dtype=np.float64) if instance.theta is not None
             else draw_theta(env, d))
    grid = record_grid(n_rounds, record)
    rec_out = np.zeros(grid.size)
    audit_t = _audit_rounds(audit, n_rounds)
    audit_out = np.zeros((audit_t.size, audit_width(d)))
    tr = np.zeros(n_rounds if trace else 0, dtype=np.int64)
    mech = MECH_CODES[variant.mechanism]
    hv, hc, hs = householder(theta)
    om = 1.0 - zone_mode(instance.low, instance.high, d) ** 2
    K = instance.n_arms
    args = (env.state, noise.state, dim_tag(d), K, instance.opt_mean, instance.low, instance.high,
            om, hv, hc, hs, instance.reward == "gaussian", mech, max(variant.m, 1), float(variant.df),
            variant.L_tilde_sq, variant.sigma_noise, variant.shift, variant.kappa, variant.xi, variant.sigma,
            n_rounds, grid, rec_out, audit_t, audit_out, tr)
    extra = {}
    t0 = time.perf_counter()
    if kernel == "prefilter":
        stats = np.zeros(2, dtype=np.int64)
        pd_fail, n_opt, draws = episode_kernel_prefilter(*args, stats)
        extra = {"fallback_rounds": int(stats[0]), "candidates": int(stats[1])}
    else:
        pd_fail, n_opt, draws = (episode_kernel if kernel == "onthefly" else episode_kernel_batched)(*args)
    wall = time.perf_counter() - t0
    if pd_fail:
        log.warning("%s: %d Cholesky failures of V_t (eigen-clipped)", variant.name, pd_fail)
    log.debug("%s: %d rounds in %.3f s (%.3f us/round)", variant.name, n_rounds, wall,
              1e6 * wall / max(1, n_rounds))
    return EpisodeResult(
        variant=variant.name, params=variant, n_rounds=n_rounds, t=grid, regret=rec_out, theta=theta,
        pd_failures=int(pd_fail), n_optimal=int(n_opt), node_draws=int(draws), wall_s=wall,
        engine="numba", audit=evaluate_audit(audit_out, theta) if audit is not None else None,
        trace=tr if trace else None,
        extra={"env_state_end": env.state.copy(), "noise_state_end": noise.state.copy(), "kernel": kernel,
               "audit_raw": audit_out, **extra})


def lockstep_eligible(variants: Sequence[VariantParams], instance: BanditInstance, kernel: str = "auto") -> bool:
    """Whether :func:`run_lockstep` reproduces these runs exactly: at least two variants, all for the
    instance's d and run with the buffered or on-the-fly kernel (the batched kernel's BLAS product sums
    in another order, so its large-d runs stay per variant)."""
    if len(variants) < 2 or kernel == "batched":
        return False
    if kernel == "auto" and instance.d >= BATCHED_MIN_D:
        return False
    return all(isinstance(v, VariantParams) and v.d == instance.d for v in variants)


def run_lockstep(variants: Sequence[VariantParams], instance: BanditInstance, n_rounds: int, seed: SeedLike, *,
                 record=None, audit=None, trace: bool = False) -> list[EpisodeResult]:
    """Run the variants of one seed together (:func:`privopt.bandits.lockstep.lockstep_kernel`).

    Returns one :class:`EpisodeResult` per variant, in order, identical to
    ``run_episode(v, instance, n_rounds, seed, record=record, audit=audit, trace=trace, kernel="onthefly")``
    except ``wall_s`` (the group's wall time shared equally among its variants), ``extra["lockstep"]``
    (the number of variants run together) and ``extra["kernel"]`` ("buffered").  The streams are those of the seed
    (:func:`privopt.bandits.streams.episode_streams`): one environment stream, one noise stream per
    noise group (variants with equal :func:`~privopt.bandits.lockstep.noise_group_key`), each starting
    from the state the variant's own run starts from.
    """
    variants = list(variants)
    if not variants:
        return []
    for v in variants:
        _check(v, instance, n_rounds)
    n_rounds = int(n_rounds)
    ss = as_seed_sequence(seed)
    d = instance.d
    env, _ = episode_streams(ss, "none")
    theta = (np.asarray(instance.theta, dtype=np.float64) if instance.theta is not None
             else draw_theta(env, d))
    keys, vgroup = [], []
    for v in variants:
        key = noise_group_key(v.mechanism, max(v.m, 1), float(v.df), v.L_tilde_sq, v.sigma_noise, v.counter)
        if key not in keys:
            keys.append(key)
        vgroup.append(keys.index(key))
    noise = np.stack([episode_streams(ss, k[0], k[5])[1].state for k in keys]).astype(np.uint64)
    counters = _counter_groups(keys, [variants[vgroup.index(g)] for g in range(len(keys))], d)
    nv = len(variants)
    grid = record_grid(n_rounds, record)
    rec_out = np.zeros((nv, grid.size))
    audit_t = _audit_rounds(audit, n_rounds)
    audit_out = np.zeros((nv, audit_t.size, audit_width(d)))
    tr = np.zeros((nv, n_rounds if trace else 0), dtype=np.int64)
    hv, hc, hs = householder(theta)
    om = 1.0 - zone_mode(instance.low, instance.high, d) ** 2
    t0 = time.perf_counter()
    pd_fail, n_opt, draws = lockstep_kernel(
        env.state, noise, dim_tag(d), dim_tag(nv), instance.n_arms, instance.opt_mean, instance.low, instance.high,
        om, hv, hc, hs, instance.reward == "gaussian", np.asarray(vgroup, dtype=np.int64),
        np.array([MECH_CODES[k[0]] for k in keys], dtype=np.int64), np.array([k[1] for k in keys], dtype=np.int64),
        np.array([k[2] for k in keys]), np.array([k[3] for k in keys]), np.array([k[4] for k in keys]), *counters,
        np.array([v.shift for v in variants], dtype=np.float64), np.array([v.kappa for v in variants]),
        np.array([v.xi for v in variants]), np.array([v.sigma for v in variants], dtype=np.float64),
        n_rounds, grid, rec_out, audit_t, audit_out, tr)
    wall = time.perf_counter() - t0
    out = []
    for i, v in enumerate(variants):
        if pd_fail[i]:
            log.warning("%s: %d Cholesky failures of V_t (eigen-clipped)", v.name, pd_fail[i])
        out.append(EpisodeResult(
            variant=v.name, params=v, n_rounds=n_rounds, t=grid, regret=rec_out[i].copy(), theta=theta,
            pd_failures=int(pd_fail[i]), n_optimal=int(n_opt[i]), node_draws=int(draws[i]), wall_s=wall / nv,
            engine="numba", audit=evaluate_audit(audit_out[i], theta) if audit is not None else None,
            trace=tr[i].copy() if trace else None,
            extra={"env_state_end": env.state.copy(), "noise_state_end": noise[vgroup[i]].copy(),
                   "kernel": "buffered", "lockstep": nv, "audit_raw": audit_out[i].copy()}))
    log.debug("lockstep of %d variants: %d rounds in %.3f s (%.3f us/round)", nv, n_rounds, wall,
              1e6 * wall / max(1, n_rounds))
    return out


def _counter_groups(keys, firsts, d: int) -> tuple:
    """The counter arrays of :func:`privopt.bandits.lockstep.lockstep_kernel` for the noise groups ``keys`` (the
    first variant of each in ``firsts``): code (−1 for the path tree), n, params, ibuf, buf, gbuf, each padded to
    the largest group (a counter reads only its own rows)."""
    from privopt.bandits.parameters import gaussian_counter
    from privopt.mechanisms.counting import init_state

    npk = (d + 1) * (d + 2) // 2 - 1
    states = [None if key[5] == "path" else
              init_state(gaussian_counter(key[5], v.n, d, v.extras["sigma_path"], v.eps, v.delta), 0)
              for key, v in zip(keys, firsts)]
    for st, v in zip(states, firsts):
        if st is not None and st.scale != v.sigma_noise:
            raise ValueError(f"{v.name}: σ = {v.sigma_noise!r} is not its counter's calibrated {st.scale!r}")
    ng = len(keys)
    plen = max([1] + [st.params.shape[0] for st in states if st is not None])
    rows = max([1] + [st.buf.shape[0] for st in states if st is not None])
    code = np.full(ng, -1, dtype=np.int64)
    n = np.zeros(ng, dtype=np.int64)
    params = np.zeros((ng, plen))
    ibuf = np.zeros((ng, 1), dtype=np.int64)
    buf = np.zeros((ng, rows, npk))
    for g, st in enumerate(states):
        if st is not None:
            code[g], n[g] = st.code, st.n
            params[g, :st.params.shape[0]] = st.params
            ibuf[g] = st.ibuf
    return code, n, params, ibuf, buf, np.zeros((ng, npk))


@dataclass
class EpisodeBatch:
    """Results of :func:`run_episodes`.

    ``curves``: tidy (variant, seed, t, regret); ``runs``: one row per (variant, seed) with the
    final regret, counters, timing and all constants; ``audits``: audit rows with variant/seed
    columns (None without ``audit``).
    """

    curves: pd.DataFrame
    runs: pd.DataFrame
    audits: pd.DataFrame | None = None


def run_episodes(variants: Sequence[VariantParams], instance: BanditInstance, n_rounds: int,
                 seeds: Iterable[SeedLike], *, labels: Iterable | None = None, record=None, audit=None,
                 audit_sample: int | None = None, engine: str = "numba",
                 kernel: str = "auto", lockstep: bool = False) -> EpisodeBatch:
    """Run every variant on every seed (common random numbers across variants for each seed).

    ``labels`` name the seeds in the output (default: the seed itself for ints, else its position).
    ``audit`` is passed to :func:`run_episode` (same rounds for every seed); ``audit_sample = k``
    instead audits, for each seed, a random sample of k rounds drawn by that seed's audit stream
    (:func:`sample_audit_rounds`; the same rounds for every variant of the seed).
    Runs are executed sequentially in this process; parallelism belongs to the caller (one job per
    block of seeds).  ``lockstep=True`` runs all variants of a seed together (:func:`run_lockstep`)
    where that reproduces the per-variant runs exactly (:func:`lockstep_eligible`, numba engine);
    the outputs are the same except the per-run ``wall_s``.
    """
    seeds = list(seeds)
    if labels is None:
        labels = [s if isinstance(s, (int, np.integer)) else i for i, s in enumerate(seeds)]
    labels = list(labels)
    if len(labels) != len(seeds):
        raise ValueError("labels and seeds differ in length")
    variants = list(variants)
    names = [v.name for v in variants]
    if len(set(names)) != len(names):
        raise ValueError(f"variant names must be unique, got {names}")
    if audit is not None and audit_sample is not None:
        raise ValueError("give audit or audit_sample, not both")
    curves, runs, audits = [], [], []
    for label, seed in zip(labels, seeds):
        ss = as_seed_sequence(seed)  # resolve once so every variant sees the same streams
        rounds = audit if audit_sample is None else sample_audit_rounds(ss, n_rounds, audit_sample)
        if lockstep and engine == "numba" and lockstep_eligible(variants, instance, kernel):
            results = run_lockstep(variants, instance, n_rounds, ss, record=record, audit=rounds)
        else:
            results = [run_episode(v, instance, n_rounds, ss, record=record, audit=rounds, engine=engine,
                                   kernel=kernel) for v in variants]
        for v, res in zip(variants, results):
            cf = res.to_frame()
            cf.insert(1, "seed", label)
            curves.append(cf)
            row = res.summary()
            row["seed"] = label
            runs.append(row)
            if res.audit is not None:
                af = res.audit.copy()
                af.insert(0, "variant", v.name)
                af.insert(1, "seed", label)
                audits.append(af)
            log.info("variant %s seed %s: R(%d) = %.1f, pd_failures = %d, %.2f s", v.name, label,
                     n_rounds, res.final_regret, res.pd_failures, res.wall_s)
    runs_df = pd.DataFrame(runs)
    front = ["variant", "seed"]
    runs_df = runs_df[front + [c for c in runs_df.columns if c not in front]]
    return EpisodeBatch(curves=pd.concat(curves, ignore_index=True), runs=runs_df,
                        audits=pd.concat(audits, ignore_index=True) if audits else None)
