"""Cost model of the Chaturvedi et al. run jobs: predicted seconds and data memory of one job.

One run job (experiments ``fig1`` and ``fig2`` of :mod:`.paper`) runs every algorithm (PCG, DPG, Greedy, Random,
PCG0) on the datasets of one parameter point (rank r for Figure 1, m for Figure 2) of one reading,
for a block of seeds, so ``seconds = seeds × ms_per_run / 1000``.

``ms_per_run`` is anchored on the README's measured paper-scale figures (:data:`ANCHOR_MS`: the
run jobs' logged times divided by their runs; wall time on the 2-core build machine with two jobs
at once, each job's numba cache load included) and scaled by what changes with the settings,
through a shape fitted to per-run CPU times (:data:`SHAPE_MEASURED`):

* Figure 1, ``pcg_scores: G`` (paper reading).  The sampled proxy updates ≈ η·s samples × m pickups
  per pick, T·r picks: work ∝ r·s·m, plus the greedy algorithms (∝ r·m) and per-pick bookkeeping
  (∝ r·T)::

      shape = 3.24 + 0.094·r + 0.031·r·T + 0.114·r·m/100 + 4.22·s·m/10⁵ + 0.0787·r·s·m/10⁵

* Figure 1, ``pcg_scores: exact_F`` (authors'-code reading).  Exact multilinear gradient, O(m·n)
  per pick::

      shape = 2.29 + 0.160·r + 0.596·m/100 + 0.0274·T·r·m/100

* Figure 2 (both score kinds; n = 3 candidates, r = 2: the proxy is memoised per set of
  candidates, so m dominates and s barely matters)::

      shape = 0.97 + 0.647·m/1000 + 0.0436·T·m/1000 + 0.075·s/1000

with T = ``rounds`` (1/η).  ``ms_per_run = ANCHOR_MS × shape(setting) / mean shape at the anchor's
settings``.  The shapes are non-negative least-squares fits (every coefficient ≥ 0, so the cost
never falls when r, s, m or T grow) to 40 settings; measured/fitted lies within 0.79–1.28.  The
fitted CPU times are about a third of the anchors (the anchors include each job's numba cache
load and the wait for a shared core), so the anchored model errs on the slow side.
``n_copies`` and ``runs_per_dataset`` are taken at their paper values (80, 1): the copies are
identical rows, which the kernels merge.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["ANCHOR_MS", "ANCHOR_SETTINGS", "SHAPE_MEASURED", "EXACT_FACTOR", "ms_per_run", "figure_point", "job_seconds",
           "job_data_mb", "summary"]

#: README "Runtimes": 100 s / 2400 runs (Fig. 1 paper reading), 53 s / 2400 runs (authors'-code
#: reading), 77 s / 4000 runs (Fig. 2); measured 2026-11-22 on the 2-core build machine
ANCHOR_MS = {"fig1/G": 100_000 / 2400, "fig1/exact_F": 53_000 / 2400, "fig2": 77_000 / 4000}
#: the settings of those runs: r or m values, s, T (= rounds)
ANCHOR_SETTINGS = {
    "fig1/G": {"points": (10, 13, 16, 19, 22, 25), "m": 100, "s": 1000, "rounds": 5},
    "fig1/exact_F": {"points": (10, 13, 16, 19, 22, 25), "m": 100, "s": 1000, "rounds": 3},
    "fig2": {"points": tuple(range(1000, 10001, 1000)), "s": 1000, "rounds": 7},
}
SHAPE_MEASURED = ("2026-11-22, 2-core build machine, loaded (load average 4–7); CPU ms per run "
                  "(time.process_time) of privopt.experiments.chaturvedi2021.runs.run_block, median of 3 "
                  "blocks of 20–30 seeds, 40 settings (r 10–25, s 250–32000, m 50–10000, T 3–28)")


def _shape(kind: str, point: int, m: int, s: int, rounds: int) -> float:
    if kind == "fig1/G":
        r = point
        return (3.24 + 0.094 * r + 0.031 * r * rounds + 0.114 * r * m / 100 + 4.22 * s * m / 1e5
                + 0.0787 * r * s * m / 1e5)
    if kind == "fig1/exact_F":
        r = point
        return 2.29 + 0.160 * r + 0.596 * m / 100 + 0.0274 * rounds * r * m / 100
    if kind == "fig2":
        m = point
        return 0.97 + 0.647 * m / 1000 + 0.0436 * rounds * m / 1000 + 0.075 * s / 1000
    raise ValueError(f"unknown cost kind {kind!r}")


def _anchor_shape(kind: str) -> float:
    a = ANCHOR_SETTINGS[kind]
    vals = [_shape(kind, p, a.get("m", p), a["s"], a["rounds"]) for p in a["points"]]
    return sum(vals) / len(vals)


_SCALE = {kind: ANCHOR_MS[kind] / _anchor_shape(kind) for kind in ANCHOR_MS}


def _kind(figure: str, settings: Mapping) -> str:
    if figure == "fig1":
        return f"fig1/{settings['pcg_scores']}"
    if figure == "fig2":
        return "fig2"
    raise ValueError(f"unknown figure {figure!r}")


def ms_per_run(figure: str, point: int, settings: Mapping) -> float:
    """Predicted ms of one run (all algorithms) at a parameter point (r for fig1, m for fig2).

    ``settings``: what a run job of the figure reads (:mod:`.paper`): ``rounds``, ``s``, ``pcg_scores``
    and, for Figure 1, ``m``.
    """
    kind = _kind(figure, settings)
    m = int(settings["m"]) if figure == "fig1" else int(point)
    return _SCALE[kind] * _shape(kind, int(point), m, int(settings["s"]), int(settings["rounds"]))


def _figure_seconds(figure: str, point: int, settings: Mapping, n_seeds: int) -> float:
    return int(n_seeds) * ms_per_run(figure, point, settings) / 1000.0


#: Figure 1–2e's run (PCG three times, DPG three times, Greedy) over a Figure 1 or 2 run at the same point (PCG,
#: PCG0, DPG, Greedy, Random, the diagnostics): measured CPU-time ratio, rounded up (EXACT_MEASURED)
EXACT_FACTOR = 2.5
EXACT_MEASURED = ("2026-11-27, 2-core build machine, warm numba cache; CPU s of 30 runs, exact_block over run_block at "
                  "the quick readings (s = 500): Fig. 1 r = 10 2.24, r = 22 2.06; Fig. 2 m = 1000 1.74, m = 10000 0.63 "
                  "(each exact block includes its ε0 searches, about 0.08 s)")


def figure_point(experiment: str, point: Mapping) -> tuple[str, int]:
    """The figure whose run a job of ``experiment`` makes and its x value: r of Figure 1 (``{"reading", "r"}``),
    m of Figure 2 (``{"reading", "m"}``); ``exact`` runs either (``{"figure", "reading", "point"}``)."""
    if experiment == "exact":
        return point["figure"], int(point["point"])
    if experiment in ("fig1", "fig2"):
        return experiment, int(point["r" if experiment == "fig1" else "m"])
    raise ValueError(f"unknown experiment {experiment!r}")


def job_seconds(experiment, settings: Mapping, point: Mapping, n_seeds: int) -> float:
    """Predicted seconds of one run job (a block of ``n_seeds`` runs at one point of one reading); a Figure 1–2e
    job (``exact``): :data:`EXACT_FACTOR` × the same figure's job at the point."""
    name = experiment.name
    figure, x = figure_point(name, point)
    seconds = _figure_seconds(figure, x, settings, n_seeds)
    return EXACT_FACTOR * seconds if name == "exact" else seconds


def job_data_mb(experiment, settings: Mapping, point: Mapping, n_seeds: int) -> float:
    """MB of data one run job holds: pool and candidates, distances, the proxy's per-sample minima."""
    name = experiment.name
    figure, x = figure_point(name, point)
    if figure == "fig1":
        n, m, r = 20 + int(settings.get("n_copies", 80)), int(settings["m"]), x
    else:
        n, m, r = 3, x, 2
    s, rounds = int(settings["s"]), int(settings["rounds"])
    sampled = settings["pcg_scores"] == "G"
    floats = n * m + (s * m if sampled and figure == "fig1" else 0) + s * n + rounds * r * (n + r)
    records = int(n_seeds) * 7 * 400  # ≤ 7 rows per run (5 algorithms, 2 reference bases)
    pool = 10e6  # the box's pickups (≤ 10^5 rows of lat, lon) and their DataFrame
    return (8 * floats + records + pool) / 1e6


def summary() -> list[str]:
    """The measured constants, for ``benchmarks/paper_cost.py``."""
    return ["ms per run at the README's paper-scale measurements: "
            + ", ".join(f"{k} {v:.1f}" for k, v in ANCHOR_MS.items())
            + f"; scaled by a shape fitted to CPU ms per run ({SHAPE_MEASURED})",
            f"Fig. 1–2e: {EXACT_FACTOR:g} × the same figure's job ({EXACT_MEASURED})"]
