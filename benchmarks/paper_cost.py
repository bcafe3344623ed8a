"""Predicted cost of the run jobs of every figure, from the cost models and a list of config files.

For the configuration that ``snakemake --configfile FILE...`` would use (``config/config.yaml``, as the
Snakefile's ``configfile:``, then each FILE over it key by key, then the schema's defaults), prints
per figure the number of run jobs, the predicted minutes of one job (min / median / max), the
``runtime`` the jobs ask SLURM for (min / max) and the total core-hours (computation plus each job's
start-up), as a markdown table, followed by the measured constants the models use
(``privopt.experiments.cost``, ``privopt.experiments.shariff2018.cost``,
``privopt.experiments.chaturvedi2021.cost``).  Only the run jobs are counted: the other rules are
local and take seconds to minutes (README "Runtimes").

Then the SLURM job layout under a profile's job groups (``--profile``, default ``profiles/slurm``):
SLURM jobs per run rule and minutes per SLURM job.

Run: ``python benchmarks/paper_cost.py [CONFIG ...]`` or ``… --configfile CONFIG ...`` (default
``config/config.yaml config/paper.yaml``) ``[--profile DIR]``.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import yaml
from snakemake.utils import update_config, validate

from privopt.experiments import cost as run_cost
from privopt.experiments.chaturvedi2021 import cost as ch_cost
from privopt.experiments.shariff2018 import cost as sh_cost

REPO = Path(__file__).resolve().parents[1]
BASE = REPO / "config" / "config.yaml"
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"

#: figure rows: (label, rule, paper, selector of the paper's jobs)
FIGURES = [
    ("Chaturvedi et al. Fig. 1", "chaturvedi2021_runs", "chaturvedi2021", lambda j: j.figure == "fig1"),
    ("Chaturvedi et al. Fig. 2", "chaturvedi2021_runs", "chaturvedi2021", lambda j: j.figure == "fig2"),
    ("Shariff & Sheffet Figs. 2–3 (Exp. 1)", "shariff2018_runs_exp1", "shariff2018", lambda j: j.experiment == "exp1"),
    ("Shariff & Sheffet Fig. 4 (Exp. 2)", "shariff2018_runs_exp2", "shariff2018", lambda j: j.experiment == "exp2"),
    ("Shariff & Sheffet Fig. 5 (Exp. 3)", "shariff2018_runs_exp3", "shariff2018", lambda j: j.experiment == "exp3"),
]


def load_config(files: list[Path]) -> dict:
    """The config Snakemake would use: config/config.yaml, each file over it, the schema's defaults."""
    config: dict = {}
    for path in [BASE, *files]:
        update_config(config, yaml.safe_load(Path(path).read_text()) or {})
    validate(config, str(SCHEMA), set_default=True)
    return config


def predicted_seconds(config: dict, paper: str, job) -> float:
    if paper == "chaturvedi2021":
        fig = config[paper][job.figure]
        return ch_cost.job_seconds(job.figure, job.point, fig, fig["readings"][job.reading], job.n_seeds)
    return sh_cost.job_seconds(job.experiment, config[paper][job.experiment], job.point, job.n_seeds)


def run_jobs(config: dict) -> dict[str, list]:
    """Every run job of the configuration, per paper, in config order."""
    return {"chaturvedi2021": list(ch_cost.jobs(config["chaturvedi2021"])),
            "shariff2018": list(sh_cost.jobs(config["shariff2018"]))}


def figure_rows(config: dict) -> list[dict]:
    """One row per figure: jobs, predicted minutes per job, requested runtimes, core-hours."""
    jobs = run_jobs(config)
    rows = []
    for label, rule, paper, select in FIGURES:
        secs = [predicted_seconds(config, paper, j) for j in jobs[paper] if select(j)]
        if not secs:
            continue
        minutes = [s / 60 for s in secs]
        runtimes = [run_cost.runtime_minutes(s) for s in secs]
        rows.append({"figure": label, "rule": rule, "jobs": len(secs), "min": min(minutes),
                     "median": statistics.median(minutes), "max": max(minutes),
                     "runtime_min": min(runtimes), "runtime_max": max(runtimes),
                     "core_hours": sum(run_cost.core_seconds(s) for s in secs) / 3600})
    return rows


def slurm_layout(config: dict, profile: Path) -> list[dict]:
    """SLURM jobs per run rule under a profile's ``groups`` / ``group-components``: a grouped SLURM
    job runs its jobs one after another on one core (``cores: 1``), so its minutes and its time
    limit are the sums over its jobs.  Snakemake fills groups in DAG order; here consecutive jobs
    in config order (the order of the run-file lists in workflow/rules/common.smk)."""
    prof = yaml.safe_load(Path(profile).read_text())
    groups, components = prof.get("groups", {}), prof.get("group-components", {})
    jobs = run_jobs(config)
    rows = []
    for rule in dict.fromkeys(r[1] for r in FIGURES):
        secs = [predicted_seconds(config, paper, j) for label, r, paper, select in FIGURES if r == rule
                for j in jobs[paper] if select(j)]
        if not secs:
            continue
        size = int(components.get(groups[rule], 1)) if rule in groups else 1
        chunks = [secs[i:i + size] for i in range(0, len(secs), size)]
        minutes = [sum(c) / 60 + run_cost.JOB_STARTUP_S * len(c) / 60 for c in chunks]
        limits = [sum(run_cost.runtime_minutes(x) for x in c) for c in chunks]
        rows.append({"rule": rule, "jobs": len(secs), "per_slurm_job": size, "slurm_jobs": len(chunks),
                     "min": min(minutes), "median": statistics.median(minutes), "max": max(minutes),
                     "limit_min": min(limits), "limit_max": max(limits)})
    return rows


def layout_markdown(rows: list[dict], profile: Path) -> str:
    out = [f"SLURM job layout under {profile} (grouped jobs run one after another on one core):", "",
           "| run rule | run jobs | run jobs per SLURM job | SLURM jobs | minutes per SLURM job (min / median / max) | "
           "time limit asked (min) |",
           "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        out.append(f"| `{r['rule']}` | {r['jobs']} | {r['per_slurm_job']} | {r['slurm_jobs']} | {_minutes(r['min'])} / "
                   f"{_minutes(r['median'])} / {_minutes(r['max'])} | {_span(r['limit_min'], r['limit_max'])} |")
    out.append(f"| **all** | {sum(r['jobs'] for r in rows)} | | {sum(r['slurm_jobs'] for r in rows)} | | |")
    return "\n".join(out)


def _minutes(x: float) -> str:
    return f"{x:.2f}" if x < 10 else f"{x:.0f}"


def _span(lo: int, hi: int) -> str:
    return f"{lo}" if lo == hi else f"{lo}–{hi}"


def markdown(rows: list[dict]) -> str:
    out = ["| figure | run rule | run jobs | predicted minutes per job (min / median / max) | "
           "SLURM runtime (min) | core-hours |",
           "| --- | --- | ---: | ---: | ---: | ---: |"]
    for r in rows:
        out.append(f"| {r['figure']} | `{r['rule']}` | {r['jobs']} | {_minutes(r['min'])} / {_minutes(r['median'])} / "
                   f"{_minutes(r['max'])} | {_span(r['runtime_min'], r['runtime_max'])} | {r['core_hours']:.1f} |")
    total = sum(r["core_hours"] for r in rows)
    out.append(f"| **all run jobs** | | {sum(r['jobs'] for r in rows)} | | | **{total:.1f}** |")
    return "\n".join(out)


def constants() -> str:
    np_us = ", ".join(f"{d}: {v:g}" for d, v in sh_cost.NONPRIVATE_US.items())
    lines = [
        "Measured constants:",
        f"- Shariff & Sheffet, CPU µs per round ({sh_cost.MEASURED}):",
        f"  - NonPrivate by d: {np_us}",
    ]
    for v, table in sh_cost.PRIVATE_US.items():
        lines.append(f"  - {v} by d: " + ", ".join(f"{d}: {us:g}" for d, us in table.items()))
    lines += [
        f"  - above the largest measured d: slope {sh_cost.SLOPE_ABOVE:g} in log µs vs log d; "
        f"Exp. 3 default grid {sh_cost.DEFAULT_RHO_POINTS} ρ_min points",
        "- Chaturvedi et al., ms per run at the README's paper-scale measurements: "
        + ", ".join(f"{k} {v:.1f}" for k, v in ch_cost.ANCHOR_MS.items())
        + f"; scaled by a shape fitted to CPU ms per run ({ch_cost.SHAPE_MEASURED})",
        f"- SLURM runtime = ceil({run_cost.MARGIN:g} × predicted + {run_cost.STARTUP_MIN:g}) min; "
        f"core-hours count {run_cost.JOB_STARTUP_S:g} s start-up per job",
    ]
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
    config = load_config(files)
    print(f"# configs: {' + '.join(str(p) for p in files)} (scale: {config.get('scale')})\n")
    print(markdown(figure_rows(config)))
    print()
    profile = args.profile / "config.yaml" if args.profile.is_dir() else args.profile
    print(layout_markdown(slurm_layout(config, profile), args.profile))
    print()
    print(constants())


if __name__ == "__main__":
    main()
