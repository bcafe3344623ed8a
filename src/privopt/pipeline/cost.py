"""From the predicted cost of one run job to the resources a cluster scheduler enforces.

Each paper's cost model (``privopt.experiments.<paper>.cost``) predicts the seconds one run job
computes and the memory its data needs, from the job's settings and constants measured on the
build machine.  A cluster (Snakemake's SLURM executor) kills a job at its ``runtime`` resource
(minutes) and at its ``mem_mb``, so both are the prediction plus a safety allowance::

    runtime_minutes = ceil(MARGIN · predicted_s / 60 + STARTUP_MIN)
    mem_mb          = MEM_BASE_MB + 100 · ceil(MEM_DATA_MARGIN · data_mb / 100)

* ``MARGIN = 3``: the constants are CPU time measured on a loaded 2-core machine (already
  1.5–2× the quiet-machine speed); the factor covers a slower or shared cluster core, a
  node with frequency scaling, and the scatter of a job around the model (±25 % in the
  fits of the per-paper modules).
* ``STARTUP_MIN = 5``: what a job does besides its computation — the in-job ``snakemake``
  parses the workflow, Python imports numpy/pandas/numba (a few seconds each), a cold numba
  cache compiles the episode kernels (20–35 s per dimension d measured here, loaded), the
  parquet output is written to a shared file system.
* ``MEM_BASE_MB = 1000``: the in-job ``snakemake`` process (≈ 190 MB resident) plus the job's
  Python with numpy, pandas, numba and the library loaded (≈ 290 MB peak measured for the
  largest jobs of both papers: Exp. 1 at d = 64, K = 4096, five runs; Fig. 2 at m = 10000, 100
  runs), about 2×; ``data_mb`` (recorded curves, buffers that grow with the settings) is added
  with a 2× margin.  (Snakemake runs script jobs with ``OPENBLAS_NUM_THREADS`` = the rule's
  ``threads``, 1, so BLAS neither starts threads nor reserves buffers per core of the node.)

Core-hours of a whole figure are predicted seconds plus ``JOB_STARTUP_S`` per job (what the
start-up takes when the numba cache is warm), summed over its jobs.

An experiment without a cost model is priced at ``FALLBACK_SECONDS`` per job (a 20-minute SLURM
time limit, ungrouped): generous for the seconds-long jobs a new paper starts with, and a reason to
write its model before paper scale.

A paper's privacy audit job (``<paper>_audit``, local) is priced too, by the samples per input the config asks
for (``privacy_audit.samples``): every audit draws that many outputs on each of its two inputs for each of its
configurations, so its CPU seconds and the memory of its arrays grow linearly with the samples
(:func:`audit_cost`, from :data:`AUDIT_COST`, measured per audit).  The other local jobs (instances, tables,
checks, figures, claims, the report) read what the run jobs wrote and the data sets: their size follows the run
jobs the cost guard prices and the data (checked when parsed).
"""

from __future__ import annotations

import math

__all__ = ["MARGIN", "STARTUP_MIN", "JOB_STARTUP_S", "MEM_BASE_MB", "MEM_DATA_MARGIN", "FALLBACK_SECONDS",
           "SHORT_JOB_S", "MEDIUM_JOB_S", "job_seconds", "job_data_mb", "runtime_minutes", "mem_mb", "core_seconds",
           "cluster_group", "AUDIT_COST", "audit_cost"]

#: factor on the predicted seconds (see the module docstring)
MARGIN = 3.0
#: minutes added to every job for start-up (in-job snakemake, imports, cold numba cache)
STARTUP_MIN = 5.0
#: seconds of start-up counted per job in core-hours, warm numba cache: in-job snakemake ≈ 2 s CPU
#: (4 s wall), the script's imports, kernel cache load and parquet write ≈ 3 s CPU (6 s wall);
#: measured 2026-11-22 on the loaded 2-core build machine
JOB_STARTUP_S = 10.0
#: memory of an (almost) empty job: snakemake + Python + numpy/pandas/numba + the library, with margin
MEM_BASE_MB = 1000
#: factor on the data a job holds (recorded curves, distance matrices, kernel buffers)
MEM_DATA_MARGIN = 2.0
#: predicted seconds of a run job whose experiment declares no cost model
FALLBACK_SECONDS = 300.0
#: run jobs predicted under these many seconds go to a cluster several at a time (:func:`cluster_group`)
SHORT_JOB_S = 30.0
MEDIUM_JOB_S = 300.0


def job_seconds(exp, section, point, n_seeds: int) -> float:
    """Predicted seconds of one run job of the experiment ``exp`` (a :class:`privopt.pipeline.protocol.Experiment`)
    at ``point`` with ``n_seeds`` seeds under the paper's config ``section``: its cost model on the settings the
    job reads, or :data:`FALLBACK_SECONDS` without one.  The workflow's resources, the cost guard and
    ``benchmarks/paper_cost.py`` all price a job with this."""
    if exp.cost is None:
        return FALLBACK_SECONDS
    return float(exp.cost(exp, exp.settings(section, point), point, n_seeds))


def job_data_mb(exp, section, point, n_seeds: int) -> float:
    """MB of data one run job holds (its ``data_mb`` model on the settings the job reads; 0 without one)."""
    if exp.data_mb is None:
        return 0.0
    return float(exp.data_mb(exp, exp.settings(section, point), point, n_seeds))


def runtime_minutes(predicted_s: float) -> int:
    """SLURM ``runtime`` (whole minutes, ≥ 1) of a job predicted to compute ``predicted_s`` seconds."""
    if not math.isfinite(predicted_s) or predicted_s < 0:
        raise ValueError(f"predicted seconds must be finite and >= 0, got {predicted_s!r}")
    return max(1, math.ceil(MARGIN * predicted_s / 60.0 + STARTUP_MIN))


def mem_mb(data_mb: float = 0.0) -> int:
    """SLURM ``mem_mb`` of a job whose settings make it hold ``data_mb`` MB of data."""
    if not math.isfinite(data_mb) or data_mb < 0:
        raise ValueError(f"data MB must be finite and >= 0, got {data_mb!r}")
    return MEM_BASE_MB + 100 * math.ceil(MEM_DATA_MARGIN * data_mb / 100.0)


def core_seconds(predicted_s: float) -> float:
    """Core-seconds one job takes on a cluster core: its computation plus its (warm) start-up."""
    return float(predicted_s) + JOB_STARTUP_S


def cluster_group(predicted_s: float) -> str | None:
    """The cluster job group of a run job by its predicted seconds: ``runs_short`` (< 30 s),
    ``runs_medium`` (< 5 min) or None (a SLURM job of its own).  The SLURM profile's
    ``group-components`` says how many jobs of a group one SLURM job runs, one after another, so that
    a SLURM job lasts minutes rather than seconds whatever the paper."""
    if predicted_s < SHORT_JOB_S:
        return "runs_short"
    if predicted_s < MEDIUM_JOB_S:
        return "runs_medium"
    return None


# ----------------------------------------------------------------------------- privacy audit jobs

#: per paper, per audit (``privopt.audit``, by name): CPU seconds per sample per input for all its configurations
#: (correct, planted, subtle) together, and the peak bytes of its numpy arrays per sample per input
#: (``tracemalloc``), measured at its quick samples by ``benchmarks/audit_cost.py`` on the loaded 2-core build
#: machine, 2026-11-28 (numba kernels compiled beforehand); the DPG rules again on 2026-12-07 (an idle Intel Xeon
#: host), after their samples were drawn at once (privopt.submodular.greedy.private_greedy_runs)
AUDIT_COST: dict[str, dict[str, tuple[float, float]]] = {
    "cardoso2019": {
        "submod_bandit_releases": (1.48e-05, 242),
        "submod_bandit_coins": (1.74e-05, 312),
    },
    "chaturvedi2021": {
        "exp_mech_numpy": (0.000392, 48.5),
        "exp_mech_numba": (1.35e-06, 48.1),
        "dpg_basic": (2.18e-06, 224),
        "dpg_advanced_code": (1.95e-06, 224),
        "dpg_advanced_drv": (2.09e-06, 224),
        "dpg_improved": (1.95e-06, 224),
        "dpg_better_of": (1.94e-06, 224),
        "pcg_swap_G": (0.00195, 78.9),
        "pcg_pairwise_G": (0.00181, 74.8),
        "pcg_swap_exact_F": (0.00194, 80.8),
        "pcg_pairwise_exact_F": (0.00174, 75.2),
        "pmcg_G": (0.00652, 213),
    },
    "perezsalazar2021": {
        "osm_fi_dp": (4.35e-06, 108),
        "osm_alg4": (3.2e-06, 50.3),
    },
    "shariff2018": {
        "tree_gaussian": (0.00041, 257),
        "tree_wishart": (0.0025, 361),
    },
    "smith2013": {
        "tbap_l2laplace": (8.01e-06, 200),
        "tbap_laplace_d1": (8.94e-06, 120),
    },
}


def audit_cost(paper: str, samples: int) -> tuple[float, float]:
    """(predicted CPU seconds, MB of data) of the audit job of ``paper`` with ``samples`` outputs per input of
    every audit: the seconds of its audits summed (they run one after another), the memory of the largest.  A
    paper missing from :data:`AUDIT_COST` is priced as its costliest measured audit."""
    measured = AUDIT_COST.get(paper) or {"(not measured)": (max(s for a in AUDIT_COST.values() for s, _ in a.values()),
                                                            max(b for a in AUDIT_COST.values() for _, b in a.values()))}
    seconds = sum(per_sample * samples for per_sample, _ in measured.values())
    data_mb = max(per_sample * samples for _, per_sample in measured.values()) / 1e6
    return float(seconds), float(data_mb)
