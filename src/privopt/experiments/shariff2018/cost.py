"""Cost model of the Shariff & Sheffet run jobs: predicted seconds and data memory of one job.

One run job (experiments ``exp1``–``exp3``, ``exp2c`` and ``exp2e`` of :mod:`.paper`) simulates, for each of its seeds, every variant
it holds for ``rounds`` rounds (:func:`rounds_simulated`, as :mod:`.runs` resolves ``n_rounds``):

* Exp. 1 (Figs. 2–3): NonPrivate LinUCB at one (reward model, d), K = d² arms;
* Exp. 2 (Fig. 4): the configured ``variants`` (four) at d on one gap;
* Fig. 4c (beyond the paper, ``exp2c``): the Gaussian variant with each configured counter at d on one gap;
* Fig. 4e (beyond the paper, ``exp2e``): NonPrivate, the paper's Gaussian variant and two exactly calibrated ones
  (path tree, one counter) at d on one (gap, δ);
* Exp. 3 (Fig. 5): one mechanism at every ρ_min of the grid (:func:`.runs.exp3_grid`: the
  configured ``rho_grid``, or the spec's :data:`DEFAULT_RHO_POINTS` = 9 points) at d on one gap.

so ``seconds = seeds × rounds × µs_per_round(job) · 1e-6``, where a job's round costs
Σ_variants µs_per_round(variant, d) when its variants run one by one (Exp. 1; any d ≥ 12), and, when
they run in lockstep (Exp. 2 and Exp. 3 below d = 12: :func:`privopt.bandits.episodes.run_lockstep`, one
kernel drawing each round's arms, coin and shared tree noise once), the dearest variant's round plus
:data:`LOCKSTEP_SHARE` of each other variant's round (:func:`lockstep_us_per_round`).  The cost of a round
does not depend on t (the tree noise is amortised: ~2 node draws per round) and every round scores
all K = d² arms, so µs per round is a function of the variant and d only, with the kernel the
pipeline uses (``kernel="auto"``: the numba "buffered" kernel below d = 12, the BLAS "batched" one
from d = 12, :data:`privopt.bandits.episodes.BATCHED_MIN_D`, and the "prefilter" one — float32 scores
with a rigorous bound, the same results — from d = 20, :data:`~privopt.bandits.episodes.PREFILTER_MIN_D`).

Measured constants (:data:`NONPRIVATE_US`, :data:`PRIVATE_US`): CPU µs per round from
``python benchmarks/bench_bandits.py --cost-table`` (runs of ≈ 0.3 s CPU; each invocation takes the
median of 3 runs per point, the table holds the median over :data:`MEASURED_RUNS` invocations), all on
the AMD EPYC host with the decision-set stream of issue 24, see :data:`MEASURED` (the previous kernels'
large-d rounds: :data:`MEASURED_EXP1`).  The reward model (Gaussian or
±1) changes the cost by less than the scatter (checked at d = 5 and 16).  Between measured d the
model interpolates linearly in log µs vs log d; below the smallest measured d it keeps that
value (cost falls with d, so this over-estimates); above the largest it extrapolates with
slope :data:`SLOPE_ABOVE` (d⁴: K·d² flops of the arm scoring).  Each table is made
non-decreasing in d (running maximum) so that measurement noise cannot make a larger d cheaper.
A private variant costs the NonPrivate round plus its own overhead (tree noise, release),
``PRIVATE_US[v][d] − NONPRIVATE_US[d]`` interpolated the same way, extrapolated with slope 3
(node sampling and the Cholesky of the released matrix are O(d³)).

Cross-check against pipeline jobs logged on the same machine: the 60 Exp. 2 jobs of Figure 4 at paper scale
(5·10^7 rounds, 4 variants in lockstep, 1 seed, 334 audited rounds; 2026-11-24, two jobs at a time on the
2 cores, the kernel before the buffered one: 1.85 µs per lockstep round in ``bench_bandits.py`` that day)
took 92.5 / 97.3 / 185 s (min / median / max, the max with a test run beside them), the model with that
kernel's round says 92.5 s; with these constants it says 81.7 s.  Earlier, loaded (load 4–5): quick Exp. 1
jobs (5 runs × 10^5 rounds, Gaussian rewards) took 9.0 / 25.2 / 74.2 s at d = 11 / 16 / 23 against
constants that were then 2× these.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

__all__ = ["EXP3_LANES_MEASURED", "EXP3_LANES_RATIO", "EXP3_SHARE_LANES",
           "MEASURED", "MEASURED_EXP1", "NONPRIVATE_US", "PRIVATE_US", "MEASURED_RUNS", "SLOPE_ABOVE", "DEFAULT_RHO_POINTS",
           "LOCKSTEP_SHARE", "LOCKSTEP_MEASURED", "EXP2C_MEASURED", "EXP2E_MEASURED", "LOCKSTEP_BELOW_D", "BYTES_PER_POINT", "FIG1_S", "us_per_round",
           "lockstep_us_per_round", "rounds_simulated", "variants_per_job", "job_seconds",
           "job_data_mb", "summary"]

MEASURED = ("2026-11-26, AMD EPYC (KVM guest, CPU family 26, AVX-512; `lscpu` model name \"AMD EPYC\"), 2 cores, "
            "the second one busy with a reference run (load average 2.1): CPU time (time.process_time) per round, "
            "`python benchmarks/bench_bandits.py --cost-table --repeats 3 --cost-dims 3 4 5 6 8 11 12 16 23 32 45 64 "
            "--cost-private-dims 3 5 8 12 16`, after issue 24's decision-set stream (counter-based normals)")
#: invocations of the benchmark the medians are over (each 3 repeats per point)
MEASURED_RUNS = 1

#: The NonPrivate rounds from d = 12 before issue 24's stream (the batched kernel, then the prefilter kernel on
#: the xoshiro stream), measured the same way on the same host: the cost model's history, not used
MEASURED_EXP1 = ("2026-11-26, AMD EPYC, loaded (load average 7-13): batched " + ", ".join(
    f"{d}: {v:g}" for d, v in {12: 11.0, 16: 26.1, 23: 73.3, 32: 216.0, 45: 677.0, 64: 1970.0}.items())
    + "; prefilter " + ", ".join(f"{d}: {v:g}" for d, v in {23: 66.6, 32: 161.0, 45: 435.0, 64: 1190.0}.items()))

#: NonPrivate LinUCB, K = d² arms, CPU µs per round by d (kernel "auto"), :data:`MEASURED`
NONPRIVATE_US: dict[int, float] = {
    3: 0.166, 4: 0.326, 5: 0.537, 6: 1.45, 8: 1.50, 11: 5.71, 12: 8.44, 16: 18.1, 23: 47.6, 32: 114.0,
    45: 300.0, 64: 832.0,
}
#: private variants (n = 5·10^7 constants, ±1 rewards), CPU µs per round by d (kernel "auto"), :data:`MEASURED`
PRIVATE_US: dict[str, dict[int, float]] = {
    "gaussian": {3: 0.271, 5: 0.711, 8: 1.88, 12: 9.09, 16: 19.6},
    "wishart": {3: 0.311, 5: 0.757, 8: 2.00, 12: 9.45, 16: 21.0},
    "wishart_unshifted": {3: 0.310, 5: 0.748, 8: 2.00, 12: 9.50, 16: 20.3},
}
#: Fig. 5's lockstep round with the variants as lanes (issue 36) over the round before them, both 9-variant grids
#: at d = 5 timed side by side in one run of ``benchmarks/bench_fig5_kernel.py`` (:data:`EXP3_LANES_MEASURED`; the
#: dearer grid's ratio)
EXP3_LANES_RATIO = 0.795
#: the unshared share that prices Fig. 5's job at that ratio times its price before: the dearest variant's round u
#: plus 0.23 (the share measured before, :data:`LOCKSTEP_MEASURED`) of the 8 others' became
#: EXP3_LANES_RATIO · u·(1 + 8·0.23) = u·(1 + 8·share); one variant alone costs what it did (the same benchmark)
EXP3_SHARE_LANES = round((EXP3_LANES_RATIO * (1 + 8 * 0.23) - 1) / 8, 3)
EXP3_LANES_MEASURED = ("2026-11-27, Intel(R) Xeon(R) Processor (KVM guest, AVX-512), 2 cores shared with other "
                       "jobs (load average 15): `python benchmarks/bench_fig5_kernel.py --reps 3` (CPU µs per round, "
                       "medians of 3 interleaved runs of 10^5 rounds): Wishart grid 3.543 → 2.808 (0.793), Gaussian "
                       "grid 3.413 → 2.714 (0.795); NonPrivate alone d = 5 0.989 → 0.853, d = 11 10.80 → 10.71")
#: Lockstep jobs (issue 14): the fraction of a variant's own round that running it beside the others still
#: costs (its release, Cholesky, B = C⁻¹Q, arm scoring and update; the arms, the reward coin and the tree
#: noise of its noise group are shared).  ``bench_bandits.py`` prints it per group ("unshared": (group −
#: dearest alone) / (one by one − dearest alone)); measured at d = 5 (the paper's Exp. 2/3 dimension) and
#: applied at every d < :data:`LOCKSTEP_BELOW_D`, see :data:`LOCKSTEP_MEASURED`.
LOCKSTEP_SHARE: dict[str, float] = {"exp2": 0.33, "exp3": EXP3_SHARE_LANES, "exp2c": 0.43, "exp2e": 0.43}
LOCKSTEP_MEASURED = ("2026-11-24, the same machine, idle (load average 0.1); `python benchmarks/bench_bandits.py "
                     "--rounds 200000 --repeats 5` (Fig. 4: 0.33; Fig. 5 Wishart grid 0.21, Gaussian grid 0.23 — Exp. 3 "
                     "takes the dearer; 2026-11-23 on a loaded run of the previous kernel: 0.33, 0.21, 0.32)")
#: Fig. 4c (beyond the paper): a Gaussian round with a continual counter costs the path tree's within 5 % (CPU µs
#: per round alone at d = 5, ε = 1, n = 5·10^7: path 0.815, tree 0.809, Honaker 0.856, smooth 0.853; all four in
#: lockstep 1.93, so an unshared share of 0.43), so the model prices each counter as the "gaussian" variant
EXP2C_MEASURED = ("2026-11-26, AMD EPYC, the second core busy with a niced reference run; "
                  "`python benchmarks/bench_bandit_counters.py` (CPU time over 3·10^5 rounds, best of 3)")
#: Fig. 4e (beyond the paper): its job (NonPrivate, the paper's Gaussian variant, the exact σ with the path tree and
#: with Honaker's counter, in lockstep) priced with Fig. 4c's unshared share; the check against Fig. 4c's job
EXP2E_MEASURED = ("2026-11-27, AMD EPYC, loaded (load average 8): an exp2e job of 2 seeds × 3·10^5 rounds at d = 5 took "
                  "0.88 of the CPU time of the exp2c job on the same seeds (1.63 s against 1.85 s), the model says 0.95")
#: lockstep runs only with the buffered kernel (:data:`privopt.bandits.episodes.BATCHED_MIN_D`)
LOCKSTEP_BELOW_D = 12

#: log-log slope above the largest measured d (NonPrivate: K·d² = d⁴ scoring; private overhead: d³)
SLOPE_ABOVE = 4.0
_SLOPE_ABOVE_PRIVATE = 3.0
_FLOOR_US = 1e-3  # a private overhead measured as ≤ 0 (noise) counts as this

#: ρ_min grid points of Exp. 3 when ``rho_grid`` is null (8-point log grid + shifted-Wishart default;
#: :func:`privopt.bandits.rho_min_grid`).  A constant here, so that the workflow can size jobs without
#: importing the bandit library (numba, scipy: seconds on every snakemake start).
DEFAULT_RHO_POINTS = 9

#: Exp. 3 mechanism -> the Exp. 2 variant whose round costs the same (Wishart grid points: the dearer
#: of the shifted and unshifted Wishart rounds)
_MECHANISM_VARIANTS = {"gaussian": ("gaussian",), "wishart": ("wishart", "wishart_unshifted")}


def _monotone(table: Mapping[int, float]) -> list[tuple[int, float]]:
    out, top = [], 0.0
    for d in sorted(table):
        top = max(top, float(table[d]), _FLOOR_US)
        out.append((d, top))
    return out


def _interp(points: list[tuple[int, float]], d: float, slope_above: float) -> float:
    """Piecewise log-log interpolation; constant below the first point, ``slope_above`` after the last."""
    if d <= points[0][0]:
        return points[0][1]
    if d >= points[-1][0]:
        d1, v1 = points[-1]
        return v1 * (d / d1) ** slope_above
    for (d0, v0), (d1, v1) in zip(points, points[1:]):
        if d <= d1:
            w = math.log(d / d0) / math.log(d1 / d0)
            return math.exp((1 - w) * math.log(v0) + w * math.log(v1))
    raise AssertionError("unreachable")


_NONPRIVATE = _monotone(NONPRIVATE_US)
_OVERHEAD = {v: _monotone({d: us - NONPRIVATE_US[d] for d, us in table.items()}) for v, table in PRIVATE_US.items()}


def us_per_round(variant: str, d: int) -> float:
    """Predicted CPU µs of one round of ``variant`` at dimension d (K = d² arms)."""
    if d < 1:
        raise ValueError(f"d must be >= 1, got {d}")
    base = _interp(_NONPRIVATE, d, SLOPE_ABOVE)
    if variant == "nonprivate":
        return base
    if variant not in _OVERHEAD:
        raise ValueError(f"unknown variant {variant!r}; expected nonprivate or one of {sorted(_OVERHEAD)}")
    return base + _interp(_OVERHEAD[variant], d, _SLOPE_ABOVE_PRIVATE)


def rounds_simulated(settings: Mapping) -> int:
    """Rounds one run simulates: ``n_rounds``, or the full horizon ``n`` when it is null (as :mod:`.runs`)."""
    return int(settings["n"]) if settings.get("n_rounds") is None else int(settings["n_rounds"])


def variants_per_job(experiment: str, settings: Mapping, point: Mapping) -> list[str]:
    """The variant (cost class) of every run a job makes per seed."""
    if experiment == "exp1":
        return ["nonprivate"]
    if experiment == "exp2":
        return list(settings["variants"])
    if experiment == "exp2c":
        return ["gaussian"] * len(settings["counters"])
    if experiment == "exp2e":
        return ["nonprivate", "gaussian", "gaussian", "gaussian"]
    if experiment == "exp3":
        points = len(settings["rho_grid"]) if settings.get("rho_grid") else DEFAULT_RHO_POINTS
        costly = max(_MECHANISM_VARIANTS[point["mechanism"]], key=lambda v: us_per_round(v, int(settings["d"])))
        return [costly] * points
    raise ValueError(f"unknown experiment {experiment!r}")


def lockstep_us_per_round(experiment: str, variants: list[str], d: int) -> float:
    """Predicted CPU µs of one round of a job's variants: in lockstep (Exp. 2/3, ≥ 2 variants, d below
    :data:`LOCKSTEP_BELOW_D`) the dearest round plus :data:`LOCKSTEP_SHARE` of each other; else their sum."""
    costs = [us_per_round(v, d) for v in variants]
    if experiment not in LOCKSTEP_SHARE or len(costs) < 2 or d >= LOCKSTEP_BELOW_D:
        return sum(costs)
    top = max(costs)
    return top + LOCKSTEP_SHARE[experiment] * (sum(costs) - top)


def _dimension(experiment: str, settings: Mapping, point: Mapping) -> int:
    return int(point["d"]) if experiment == "exp1" else int(settings["d"])


#: seconds of Figure 1's job: it draws one decision set (K arms in d = 3) and no rounds
FIG1_S = 0.1


def job_seconds(experiment, settings: Mapping, point: Mapping, n_seeds: int) -> float:
    """Predicted CPU seconds of one run job.

    ``settings``: what a run job of the experiment reads (:mod:`.paper`); ``point``: the job's
    parameter point (``{"reward", "d"}``, ``{"gap"}``, ``{"mechanism", "gap"}``); ``n_seeds``: seeds
    in its block.  Figure 1's job (one decision set, no rounds): :data:`FIG1_S`.
    """
    name = experiment.name
    if name == "fig1":
        return FIG1_S
    d = _dimension(name, settings, point)
    per_round = lockstep_us_per_round(name, variants_per_job(name, settings, point), d)
    return int(n_seeds) * rounds_simulated(settings) * per_round * 1e-6


def _recorded_points(experiment: str, settings: Mapping) -> int:
    rounds = rounds_simulated(settings)
    if experiment == "exp3":
        return rounds // max(1, rounds // max(1, int(settings["rec_points"]))) + 2
    return rounds // int(settings["rec_every"]) + 2


#: bytes per recorded curve point held by a job (tidy frames with merge and concat copies, parquet
#: write): ≈ 170 measured (5·10^5 points: +86 MB peak), rounded up
BYTES_PER_POINT = 400


def job_data_mb(experiment, settings: Mapping, point: Mapping, n_seeds: int) -> float:
    """MB of data one run job holds beyond the interpreter: recorded curves and kernel buffers."""
    name = experiment.name
    d = _dimension(name, settings, point)
    runs_held = int(n_seeds) * len(variants_per_job(name, settings, point))
    curves = runs_held * _recorded_points(name, settings) * BYTES_PER_POINT
    buffers = 2 * d**2 * d * 8  # batched kernel: K×d arms and K×d products (K = d²)
    return (curves + buffers) / 1e6


def summary() -> list[str]:
    """The measured constants, for ``benchmarks/paper_cost.py``."""
    lines = [f"CPU µs per round ({MEASURED}):",
             "- NonPrivate by d: " + ", ".join(f"{d}: {v:g}" for d, v in NONPRIVATE_US.items())]
    lines += [f"- {v} by d: " + ", ".join(f"{d}: {us:g}" for d, us in t.items()) for v, t in PRIVATE_US.items()]
    lines.append(f"- above the largest measured d: slope {SLOPE_ABOVE:g} in log µs vs log d; "
                 f"Exp. 3 default grid {DEFAULT_RHO_POINTS} ρ_min points")
    lines.append("- lockstep (d < %d): dearest variant's round + unshared share of each other's round: %s (%s)"
                 % (LOCKSTEP_BELOW_D, ", ".join(f"{k} {v:g}" for k, v in LOCKSTEP_SHARE.items()),
                   f"{LOCKSTEP_MEASURED}; exp2c: {EXP2C_MEASURED}"))
    lines.append(f"- Fig. 5 (exp3) with the variants as lanes (issue 36): {EXP3_LANES_RATIO:g} × the round before, "
                 f"so an unshared share of {EXP3_SHARE_LANES:g} ({EXP3_LANES_MEASURED})")
    lines.append("- Fig. 4c (exp2c): each counter's round priced as the Gaussian variant's (measured within 5 %)")
    lines.append("- Fig. 4e (exp2e): NonPrivate + 3 Gaussian rounds in lockstep, Fig. 4c's unshared share "
                 f"({EXP2E_MEASURED})")
    return lines
