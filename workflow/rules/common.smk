# Helpers shared by all rule modules (config validation, parameter grids, seed blocks);
# no rules are defined in this file.

import json
import math
import os
import sys

import yaml
from pathlib import Path

from snakemake.utils import validate


validate(config, schema="../schemas/config.schema.yaml", set_default=True)


class ConfigError(Exception):
    """A config value the schema cannot express a bound for; the message names the key."""


def _check_readings(section, key):
    fig = config[section][key]
    if fig["plot_reading"] not in fig["readings"]:
        raise ConfigError(
            f"config key {section}.{key}.plot_reading = {fig['plot_reading']!r} is not one of "
            f"{section}.{key}.readings ({', '.join(fig['readings'])})"
        )


def _check_m_against_pools(cfg):
    """m larger than a box's pool: known once an instance exists, so caught here on later calls."""
    for figure, key, ms in (("fig1", "chaturvedi2021.fig1.m", [cfg["fig1"]["m"]]), ("fig2", "chaturvedi2021.fig2.ms", cfg["fig2"]["ms"])):
        meta = Path(f"results/chaturvedi2021/instances/{figure}/instance.json")
        if not meta.exists():
            continue
        pool = json.loads(meta.read_text())["pool_size"]
        too_big = [m for m in ms if m > pool]
        if too_big:
            raise ConfigError(f"config key {key}: m = {too_big} exceeds the {pool} pickups inside the {figure} box ({meta})")


def check_config():
    """Cross-key checks, raised before any job starts."""
    cfg = config["chaturvedi2021"]
    n_candidates = 20 + cfg["fig1"]["n_copies"]
    too_big = [r for r in cfg["fig1"]["ranks"] if r > n_candidates]
    if too_big:
        raise ConfigError(
            f"config key chaturvedi2021.fig1.ranks: r = {too_big} exceeds the {n_candidates} candidate "
            f"locations (20 grid points + chaturvedi2021.fig1.n_copies = {cfg['fig1']['n_copies']})"
        )
    for key in ("fig1", "fig2"):
        _check_readings("chaturvedi2021", key)
    _check_m_against_pools(cfg)
    source = config["uber_source"]
    if "://" not in source and not Path(source).exists():
        raise ConfigError(f"config key uber_source: local file {source!r} does not exist")


check_config()


def seed_blocks(n_runs, per_job):
    """Seed blocks "a-b" (inclusive) covering seeds 0..n_runs-1."""
    return [f"{a}-{min(a + per_job, n_runs) - 1}" for a in range(0, n_runs, per_job)]


def seeds_of(block):
    a, b = (int(x) for x in block.split("-"))
    return list(range(a, b + 1))


def uber_local_source():
    """The configured source as an input file when it is a local path (so a new file reruns)."""
    source = config["uber_source"]
    return [source] if "://" not in source else []


# Jobs import the privopt library of this checkout, whichever environment runs them
# (a venv with privopt installed, a --use-conda env, a cluster node).
_src = str(Path(workflow.basedir) / "src")
os.environ.update(PYTHONPATH=os.pathsep.join(p for p in [_src, os.environ.get("PYTHONPATH", "")] if p))

# The run rules' resources (runtime, mem_mb) come from the library's cost models, taken from the
# same checkout as the jobs' code.
if _src not in sys.path:
    sys.path.insert(0, _src)
from privopt.experiments import cost as run_cost
from privopt.experiments.chaturvedi2021 import cost as ch_cost
from privopt.experiments.shariff2018 import cost as sh_cost


# The papers in the report, their figures and claims: paper/papers.yaml is the registry.
REPORT_PAPERS = yaml.safe_load((Path(workflow.basedir) / "paper" / "papers.yaml").read_text())


def report_files(kind):
    """Every figure's file of one kind ("image", "pdf", "table") over the papers in the report."""
    return [fig[kind] for paper in REPORT_PAPERS.values() for fig in paper["figures"]]


def report_provenance():
    """The Uber provenance record, when a paper in the report uses the pickups."""
    uses_uber = any(paper.get("uses_uber") for paper in REPORT_PAPERS.values())
    return ["resources/uber/uber-raw-data-apr14.provenance.json"] if uses_uber else []


# Chaturvedi et al. (2021): run files and figure files of a figure.
CH = config["chaturvedi2021"]
CH_POINT = {"fig1": ("r", "ranks"), "fig2": ("m", "ms")}


def ch_run_files(figure):
    fig = CH[figure]
    pname, key = CH_POINT[figure]
    return [
        f"results/chaturvedi2021/runs/{figure}/{reading}/{pname}~{point}/seeds~{block}.parquet"
        for reading in fig["readings"]
        for point in fig[key]
        for block in seed_blocks(fig["n_runs"], CH["seeds_per_job"])
    ]


def ch_grid_modes():
    """Grid modes the Figure 1 readings use (the instance builds the candidates of each)."""
    return sorted({r["grid_mode"] for r in CH["fig1"]["readings"].values()})


def ch_figure_files(figure):
    return [f"results/figures/chaturvedi2021/{figure}.{ext}" for ext in ("pdf", "png")]


def ch_job_cost(wc):
    """(figure, point, figure section, reading settings, seeds) of a run job, for the cost model."""
    fig = CH[wc.figure]
    return wc.figure, int(wc.point), fig, fig["readings"][wc.reading], len(seeds_of(wc.block))


def ch_runtime(wc):
    """SLURM runtime (minutes) of a run job, from its predicted seconds (privopt.experiments.chaturvedi2021.cost)."""
    return run_cost.runtime_minutes(ch_cost.job_seconds(*ch_job_cost(wc)))


def ch_mem_mb(wc):
    """SLURM mem_mb of a run job: interpreter and libraries plus the data its settings make it hold."""
    return run_cost.mem_mb(ch_cost.job_data_mb(*ch_job_cost(wc)))


# Shariff & Sheffet (2018): run files, tables and figure files of Experiments 1–3.
SH = config["shariff2018"]


def _check_shariff(cfg):
    for exp in ("exp1", "exp2", "exp3"):
        rounds = cfg[exp]["n_rounds"]
        if rounds is not None and rounds > cfg[exp]["n"]:
            raise ConfigError(
                f"config key shariff2018.{exp}.n_rounds = {rounds} exceeds shariff2018.{exp}.n = {cfg[exp]['n']} "
                "(quick runs are prefixes of the full-horizon run)"
            )


_check_shariff(SH)


def sh_gap(gap):
    """Path form of a gap Δ (0, 0.00625, 0.1)."""
    return f"{float(gap):g}"


def sh_run_files(experiment, suffix=".parquet"):
    """Every run file of one experiment (parameter point × seed block); suffix ".audit.parquet" = Exp. 2 audits."""
    cfg = SH[experiment]
    blocks = seed_blocks(cfg["runs"], cfg["seeds_per_job"])
    root = f"results/shariff2018/runs/{experiment}"
    if experiment == "exp1":
        points = [f"reward~{r}/d~{d}" for r in cfg["rewards"] for d in cfg["dims"]]
    elif experiment == "exp2":
        points = [f"gap~{sh_gap(g)}" for g in cfg["gaps"]]
    else:
        points = [f"mechanism~{m}/gap~{sh_gap(g)}" for m in cfg["mechanisms"] for g in cfg["gaps"]]
    return [f"{root}/{point}/seeds~{block}{suffix}" for point in points for block in blocks]


def sh_settings(experiment):
    """The settings a run job depends on (everything of its experiment but the run bookkeeping)."""
    return {k: v for k, v in SH[experiment].items() if k not in ("runs", "seeds_per_job", "dims", "rewards", "gaps", "mechanisms", "plot_until")}


def sh_figure_files(figure):
    return [f"results/figures/shariff2018/{figure}.{ext}" for ext in ("pdf", "png")]


def sh_job_cost(experiment, wc):
    """(experiment, its config section, parameter point, seeds) of a run job, for the cost model."""
    if experiment == "exp1":
        point = {"reward": wc.reward, "d": int(wc.d)}
    elif experiment == "exp2":
        point = {"gap": float(wc.gap)}
    else:
        point = {"mechanism": wc.mechanism, "gap": float(wc.gap)}
    return experiment, SH[experiment], point, len(seeds_of(wc.block))


def sh_runtime(experiment):
    """SLURM runtime (minutes) of the run jobs of one experiment: a callable of the wildcards
    (predicted seconds from privopt.experiments.shariff2018.cost, with margin and start-up)."""
    return lambda wc: run_cost.runtime_minutes(sh_cost.job_seconds(*sh_job_cost(experiment, wc)))


def sh_mem_mb(experiment):
    """SLURM mem_mb of the run jobs of one experiment: a callable of the wildcards."""
    return lambda wc: run_cost.mem_mb(sh_cost.job_data_mb(*sh_job_cost(experiment, wc)))

