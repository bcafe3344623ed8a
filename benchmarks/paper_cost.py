"""Predicted cost of the run jobs of every figure, from the cost models and a list of config files.

For the configuration that ``snakemake --configfile FILE...`` would use (``config/config.yaml``, as the
Snakefile's ``configfile:``, then each FILE over it key by key, then the schema's defaults), prints
per figure the number of run jobs, the predicted minutes of one job (min / median / max), the
``runtime`` the jobs ask SLURM for (min / max) and the total core-hours (computation plus each job's
start-up), as a markdown table, followed by the measured constants the models use
(``privopt.pipeline.cost``, ``privopt.experiments.shariff2018.cost``,
``privopt.experiments.chaturvedi2021.cost``).  Only the run jobs are counted: the other rules are
local and take seconds to minutes (README "Runtimes").

Then the SLURM job layout under a profile's job groups (``--profile``, default ``profiles/slurm``):
SLURM jobs per run rule and minutes per SLURM job.

Run: ``python benchmarks/paper_cost.py [CONFIG ...]`` or ``… --configfile CONFIG ...`` (default
``config/config.yaml config/paper.yaml``) ``[--profile DIR]``.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
from pathlib import Path

import yaml

from privopt.pipeline import cost as run_cost
from privopt.pipeline.config import load_config
from privopt.pipeline.cost_table import figure_rows, markdown, minutes_text as _minutes, run_jobs, span_text as _span
from privopt.pipeline.registry import papers

REPO = Path(__file__).resolve().parents[1]


def slurm_layout(config: dict, profile: Path) -> list[dict]:
    """SLURM jobs per cluster job group (``privopt.pipeline.cost.cluster_group``) under a profile's
    ``group-components``: a grouped SLURM job runs its jobs one after another on one core
    (``cores: 1``), so its minutes and its time limit are the sums over its jobs.  Snakemake fills
    groups in DAG order; here consecutive jobs in the workflow's order."""
    components = yaml.safe_load(Path(profile).read_text()).get("group-components", {})
    by_group: dict[str, list[float]] = {}
    for _, _, _, secs in run_jobs(config):
        for s in secs:
            by_group.setdefault(run_cost.cluster_group(s) or "(ungrouped)", []).append(s)
    rows = []
    for group in ("runs_short", "runs_medium", "(ungrouped)"):
        secs = by_group.get(group)
        if not secs:
            continue
        size = int(components.get(group, 1))
        chunks = [secs[i:i + size] for i in range(0, len(secs), size)]
        minutes = [sum(c) / 60 + run_cost.JOB_STARTUP_S * len(c) / 60 for c in chunks]
        limits = [sum(run_cost.runtime_minutes(x) for x in c) for c in chunks]
        rows.append({"rule": group, "jobs": len(secs), "per_slurm_job": size, "slurm_jobs": len(chunks),
                     "min": min(minutes), "median": statistics.median(minutes), "max": max(minutes),
                     "limit_min": min(limits), "limit_max": max(limits)})
    return rows


def layout_markdown(rows: list[dict], profile: Path) -> str:
    out = [f"SLURM job layout under {profile} (grouped jobs run one after another on one core):", "",
           "| job group | run jobs | run jobs per SLURM job | SLURM jobs | minutes per SLURM job (min / median / max) | "
           "time limit asked (min) |",
           "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        out.append(f"| `{r['rule']}` | {r['jobs']} | {r['per_slurm_job']} | {r['slurm_jobs']} | {_minutes(r['min'])} / "
                   f"{_minutes(r['median'])} / {_minutes(r['max'])} | {_span(r['limit_min'], r['limit_max'])} |")
    out.append(f"| **all** | {sum(r['jobs'] for r in rows)} | | {sum(r['slurm_jobs'] for r in rows)} | | |")
    return "\n".join(out)


def constants() -> str:
    """The measured constants of every cost model: each paper's ``cost.summary()`` where it has one."""
    lines = ["Measured constants:"]
    for key in papers():
        try:
            module = importlib.import_module(f"privopt.experiments.{key}.cost")
        except ModuleNotFoundError:
            lines.append(f"- {key}: no cost model (each run job priced at {run_cost.FALLBACK_SECONDS:g} s)")
            continue
        summary = getattr(module, "summary", None)
        if summary is None:
            lines.append(f"- {key}: a cost model without a summary() of its constants")
            continue
        lines += [f"- {key}: {line}" if i == 0 else f"  {line}" for i, line in enumerate(summary())]
    lines.append(f"- SLURM runtime = ceil({run_cost.MARGIN:g} × predicted + {run_cost.STARTUP_MIN:g}) min; "
                 f"core-hours count {run_cost.JOB_STARTUP_S:g} s start-up per job")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("configs", nargs="*", type=Path,
                    help="config files, later ones over earlier ones (config/config.yaml is always the base); "
                         "default: config/config.yaml config/paper.yaml")
    ap.add_argument("--configfile", nargs="+", type=Path, default=[], help="the same, spelt as for snakemake")
    ap.add_argument("--profile", type=Path, default=REPO / "profiles" / "slurm" / "config.yaml",
                    help="SLURM profile whose job groups give the SLURM job layout (default profiles/slurm)")
    args = ap.parse_args()
    files = [*args.configs, *args.configfile] or [REPO / "config" / "config.yaml", REPO / "config" / "paper.yaml"]
    config = load_config(files)  # config/config.yaml, the files over it, the schemas' defaults
    print(f"# configs: {' + '.join(str(p) for p in files)} (scale: {config.get('scale')})\n")
    print(markdown(figure_rows(config)))
    print()
    profile = args.profile / "config.yaml" if args.profile.is_dir() else args.profile
    print(layout_markdown(slurm_layout(config, profile), args.profile))
    print()
    print(constants())


if __name__ == "__main__":
    main()
