"""The paper-scale cost table: per run rule, its jobs, the predicted minutes of one job, the SLURM ``runtime`` they
ask for and the core-hours, from every registered paper's cost model (:mod:`privopt.pipeline.cost`).

``benchmarks/paper_cost.py`` prints it for any list of config files; ``docs/performance.md`` and each paper's page
carry it for ``config/paper.yaml``, generated (:mod:`privopt.pipeline.doctables`), so a paper's rows appear there by
adding the paper and cannot drift from its cost model.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from typing import Any

from privopt.pipeline import cost as run_cost
from privopt.pipeline.registry import papers


def run_jobs(config: Mapping[str, Any], keys: Iterable[str] | None = None) -> list[tuple[str, str, object, list[float]]]:
    """(paper key, rule, experiment, predicted seconds of each run job) for every experiment of every registered
    paper (or of ``keys``), jobs in the workflow's order (points in config order, then seed blocks)."""
    out = []
    for key, paper in papers().items():
        if keys is not None and key not in keys:
            continue
        for exp in paper.experiments:
            secs = [run_cost.job_seconds(exp, config[key], j.point, len(j.seeds)) for j in paper.run_jobs(config[key], exp.name)]
            out.append((key, f"{key}_runs_{exp.name}", exp, secs))
    return out


def figure_rows(config: Mapping[str, Any], keys: Iterable[str] | None = None) -> list[dict]:
    """One row per experiment with run jobs: its paper, label and rule, jobs, predicted minutes per job (min,
    median, max), requested runtimes (min, max), core-hours (computation plus each job's start-up)."""
    rows = []
    for key, rule, exp, secs in run_jobs(config, keys):
        if not secs:
            continue
        minutes = [s / 60 for s in secs]
        runtimes = [run_cost.runtime_minutes(s) for s in secs]
        rows.append({"paper": key, "figure": exp.label, "rule": rule, "jobs": len(secs), "min": min(minutes),
                     "median": statistics.median(minutes), "max": max(minutes),
                     "runtime_min": min(runtimes), "runtime_max": max(runtimes),
                     "core_hours": sum(run_cost.core_seconds(s) for s in secs) / 3600})
    return rows


def minutes_text(x: float) -> str:
    return f"{x:.2f}" if x < 10 else f"{x:.0f}"


def span_text(lo: int, hi: int) -> str:
    return f"{lo}" if lo == hi else f"{lo}–{hi}"


HEADER = ("| figures | run rule | run jobs | predicted minutes per job (min / median / max) | SLURM runtime (min) | "
          "core-hours |\n| --- | --- | ---: | ---: | ---: | ---: |")


def row_markdown(r: Mapping[str, Any]) -> str:
    return (f"| {r['figure']} | `{r['rule']}` | {r['jobs']} | {minutes_text(r['min'])} / {minutes_text(r['median'])} / "
            f"{minutes_text(r['max'])} | {span_text(r['runtime_min'], r['runtime_max'])} | {r['core_hours']:.1f} |")


def total_markdown(rows: list[Mapping[str, Any]], what: str = "all run jobs") -> str:
    return (f"| **{what}** | | {sum(r['jobs'] for r in rows)} | | | "
            f"**{sum(r['core_hours'] for r in rows):.1f}** |")


def markdown(rows: list[Mapping[str, Any]], total: str | None = "all run jobs") -> str:
    """The table of ``rows`` (:func:`figure_rows`), with a total row named ``total`` (None: none)."""
    lines = [HEADER, *(row_markdown(r) for r in rows)]
    if total:
        lines.append(total_markdown(rows, total))
    return "\n".join(lines)
