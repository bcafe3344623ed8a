"""Run-job cost models (privopt.experiments.cost and the per-paper cost modules) and the SLURM
resources the run rules take from them (workflow/rules/common.smk), for every run job of the
smoke, quick and paper configurations."""

from __future__ import annotations

import math
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from snakemake.utils import update_config, validate

from privopt.experiments import cost as run_cost
from privopt.experiments.chaturvedi2021 import cost as ch_cost
from privopt.experiments.shariff2018 import cost as sh_cost
from privopt.experiments.shariff2018 import runs as sh_runs

REPO = Path(__file__).resolve().parents[1]

EXP1 = {"n": 100_000, "n_rounds": None, "rec_every": 100}
EXP2 = {"n": 50_000_000, "n_rounds": None, "d": 5, "rec_every": 5000,
        "variants": ["nonprivate", "gaussian", "wishart", "wishart_unshifted"]}
EXP3 = {"n": 50_000_000, "n_rounds": None, "d": 5, "eps": 1.0, "delta": 0.1, "k_rule": "paper", "rho_grid": None,
        "rec_points": 100}
READING_G = {"rounds": 5, "s": 1000, "pcg_scores": "G"}
READING_F = {"rounds": 3, "s": 1000, "pcg_scores": "exact_F"}


def load_config(*names: str) -> dict:
    """What snakemake --configfile NAMES uses: config/config.yaml, the files over it, schema defaults."""
    config: dict = {}
    for name in ("config.yaml", *names):
        update_config(config, yaml.safe_load((REPO / "config" / name).read_text()))
    validate(config, str(REPO / "workflow/schemas/config.schema.yaml"), set_default=True)
    return config


# ----------------------------------------------------------------------------- SLURM translation


@pytest.mark.parametrize("seconds", [0.0, 1e-3, 1.0, 59.9, 60.0, 3600.0, 1e5])
def test_runtime_is_whole_minutes_at_least_the_prediction_and_one(seconds):
    minutes = run_cost.runtime_minutes(seconds)
    assert isinstance(minutes, int)
    assert minutes >= 1 and minutes >= seconds / 60
    assert minutes >= run_cost.MARGIN * seconds / 60 + run_cost.STARTUP_MIN


@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf])
def test_runtime_rejects_impossible_predictions(bad):
    with pytest.raises(ValueError):
        run_cost.runtime_minutes(bad)


def test_memory_is_an_int_that_grows_with_the_data():
    assert run_cost.mem_mb(0) == run_cost.MEM_BASE_MB
    sizes = [run_cost.mem_mb(mb) for mb in (0, 1, 50, 400, 5000)]
    assert all(isinstance(s, int) for s in sizes)
    assert sizes == sorted(sizes) and sizes[-1] >= 2 * 5000


# ----------------------------------------------------------------------------- Shariff & Sheffet


@pytest.mark.parametrize("variant", ["nonprivate", "gaussian", "wishart", "wishart_unshifted"])
def test_cost_per_round_grows_with_d_and_matches_the_measured_table(variant):
    costs = [sh_cost.us_per_round(variant, d) for d in range(2, 129)]
    assert all(b >= a for a, b in zip(costs, costs[1:]))
    assert costs[-1] > 10 * costs[62 - 2]  # extrapolated beyond the measured d = 64, not held flat
    table = sh_cost.NONPRIVATE_US if variant == "nonprivate" else sh_cost.PRIVATE_US[variant]
    for d, us in table.items():
        assert sh_cost.us_per_round(variant, d) >= us * 0.999
    with pytest.raises(ValueError):
        sh_cost.us_per_round("laplace", 5)


@pytest.mark.parametrize("experiment, settings, point",
                         [("exp1", EXP1, {"reward": "gaussian", "d": 16}), ("exp2", EXP2, {"gap": 0.1}),
                          ("exp3", EXP3, {"mechanism": "wishart", "gap": 0.0}),
                          ("exp3", EXP3, {"mechanism": "gaussian", "gap": 0.1})])
def test_job_seconds_grow_with_rounds_and_seeds(experiment, settings, point):
    def secs(n_rounds, seeds):
        return sh_cost.job_seconds(experiment, {**settings, "n_rounds": n_rounds}, point, seeds)

    by_rounds = [secs(r, 1) for r in (1000, 10_000, 100_000)]
    assert by_rounds[0] < by_rounds[1] < by_rounds[2]
    assert by_rounds[2] == pytest.approx(100 * by_rounds[0])
    assert secs(1000, 1) < secs(1000, 2) < secs(1000, 5)
    assert secs(None, 1) == pytest.approx(secs(settings["n"], 1))  # null n_rounds = the full horizon


def test_job_seconds_grow_with_d():
    exp1 = [sh_cost.job_seconds("exp1", EXP1, {"reward": "pm1", "d": d}, 5) for d in (4, 8, 16, 32, 64, 128)]
    assert all(b > a for a, b in zip(exp1, exp1[1:]))
    for experiment, settings, point in (("exp2", EXP2, {"gap": 0.0}), ("exp3", EXP3, {"mechanism": "wishart", "gap": 0.0})):
        by_d = [sh_cost.job_seconds(experiment, {**settings, "d": d}, point, 1) for d in (2, 5, 8, 12, 16)]
        assert all(b > a for a, b in zip(by_d[1:], by_d[2:])) and by_d[0] <= by_d[1]


def test_exp3_job_holds_the_whole_rho_grid():
    default = runs_in_grid = len(sh_runs.exp3_grid(EXP3["n"], EXP3["d"], EXP3["eps"], EXP3["delta"]))
    assert sh_cost.DEFAULT_RHO_POINTS == runs_in_grid
    assert len(sh_cost.variants_per_job("exp3", EXP3, {"mechanism": "gaussian"})) == default
    point = {"mechanism": "gaussian", "gap": 0.1}
    one = sh_cost.job_seconds("exp3", {**EXP3, "rho_grid": [1e5]}, point, 1)
    assert sh_cost.job_seconds("exp3", EXP3, point, 1) == pytest.approx(default * one)
    # Exp. 2 holds its configured variants, Exp. 1 one NonPrivate run per seed
    assert sh_cost.job_seconds("exp2", {**EXP2, "variants": ["nonprivate"]}, {"gap": 0.0}, 1) < \
        sh_cost.job_seconds("exp2", EXP2, {"gap": 0.0}, 1)


def test_paper_scale_jobs_fit_their_measured_speed():
    """Exp. 2 at paper scale: 4 variants × 5·10^7 rounds at d = 5, about 2 µs per round each."""
    secs = sh_cost.job_seconds("exp2", EXP2, {"gap": 0.1}, 1)
    assert 4 * 5e7 * 1.5e-6 < secs < 4 * 5e7 * 3e-6
    # Exp. 1 at d = 64 (K = 4096): milliseconds per round, so a 5-run job takes a large part of an hour
    secs = sh_cost.job_seconds("exp1", EXP1, {"reward": "gaussian", "d": 64}, 5)
    assert 900 < secs < 3 * 3600


def test_data_memory_grows_with_recorded_points():
    small = sh_cost.job_data_mb("exp2", EXP2, {"gap": 0.1}, 1)
    dense = sh_cost.job_data_mb("exp2", {**EXP2, "rec_every": 1}, {"gap": 0.1}, 1)
    assert dense > 1000 * small and dense > 4 * 5e7 * 100 / 1e6
    assert run_cost.mem_mb(dense) > run_cost.mem_mb(small)


# ----------------------------------------------------------------------------- Chaturvedi et al.


@pytest.mark.parametrize("kind, figure, reading", [("fig1/G", "fig1", READING_G), ("fig1/exact_F", "fig1", READING_F),
                                                   ("fig2", "fig2", {**READING_G, "rounds": 7})])
def test_chaturvedi_cost_is_anchored_on_the_readme_measurements(kind, figure, reading):
    anchor = ch_cost.ANCHOR_SETTINGS[kind]
    ms = [ch_cost.ms_per_run(figure, p, {"m": anchor.get("m")}, reading) for p in anchor["points"]]
    assert sum(ms) / len(ms) == pytest.approx(ch_cost.ANCHOR_MS[kind])


@pytest.mark.parametrize("figure, point, reading", [("fig1", 16, READING_G), ("fig1", 16, READING_F),
                                                    ("fig2", 4000, {**READING_G, "rounds": 7})])
def test_chaturvedi_cost_grows_with_rounds_samples_data_and_seeds(figure, point, reading):
    fig = {"m": 100}

    def ms(point=point, fig=fig, **change):
        return ch_cost.ms_per_run(figure, point, fig, {**reading, **change})

    assert ms(rounds=3) <= ms(rounds=6) <= ms(rounds=12) and ms(rounds=3) < ms(rounds=12)
    if reading["pcg_scores"] == "G":
        assert ms(s=250) <= ms(s=1000) <= ms(s=4000) and ms(s=250) < ms(s=4000)
    else:  # the exact multilinear extension draws no samples
        assert ms(s=250) == ms(s=4000)
    if figure == "fig1":
        assert ms(point=10) < ms(point=25)
        assert ms(fig={"m": 50}) < ms(fig={"m": 100}) < ms(fig={"m": 400})
    else:
        assert ms(point=1000) < ms(point=10000)
    one = ch_cost.job_seconds(figure, point, fig, reading, 1)
    assert ch_cost.job_seconds(figure, point, fig, reading, 100) == pytest.approx(100 * one)


# ----------------------------------------------------------------------------- the workflow's callables

RUN_FILES = {
    "exp1": re.compile(r"results/shariff2018/runs/exp1/reward~(?P<reward>\w+)/d~(?P<d>\d+)/seeds~(?P<block>\d+-\d+)\.parquet"),
    "exp2": re.compile(r"results/shariff2018/runs/exp2/gap~(?P<gap>[0-9.e-]+)/seeds~(?P<block>\d+-\d+)\.parquet"),
    "exp3": re.compile(r"results/shariff2018/runs/exp3/mechanism~(?P<mechanism>\w+)/gap~(?P<gap>[0-9.e-]+)/"
                       r"seeds~(?P<block>\d+-\d+)\.parquet"),
    "chaturvedi2021": re.compile(r"results/chaturvedi2021/runs/(?P<figure>fig[12])/(?P<reading>\w+)/(?P<param>[rm])~"
                                 r"(?P<point>\d+)/seeds~(?P<block>\d+-\d+)\.parquet"),
}


def common_smk(config: dict, monkeypatch, tmp_path) -> dict:
    """The helpers of workflow/rules/common.smk (plain Python, no rules) evaluated for a config."""
    monkeypatch.chdir(tmp_path)  # no results/ here: the m-vs-pool check has nothing to read
    monkeypatch.setenv("PYTHONPATH", "")  # common.smk extends it for the jobs; restored afterwards
    workflow = SimpleNamespace(basedir=str(REPO), modifier=SimpleNamespace(skip_validation=True))
    namespace = {"config": config, "workflow": workflow}
    path = REPO / "workflow/rules/common.smk"
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace


@pytest.mark.parametrize("configs", [("smoke.yaml",), (), ("paper.yaml",)], ids=["smoke", "quick", "paper"])
def test_resources_of_every_run_job_are_ints_covering_the_prediction(configs, monkeypatch, tmp_path):
    config = load_config(*configs)
    smk = common_smk(config, monkeypatch, tmp_path)
    files = {exp: smk["sh_run_files"](exp) for exp in ("exp1", "exp2", "exp3")}
    files["chaturvedi2021"] = smk["ch_run_files"]("fig1") + smk["ch_run_files"]("fig2")
    # the library enumerates the same jobs as the workflow (paper_cost.py counts with it)
    sh_jobs = list(sh_cost.jobs(config["shariff2018"]))
    for exp in ("exp1", "exp2", "exp3"):
        assert len(files[exp]) == sum(j.experiment == exp for j in sh_jobs) > 0
    assert len(files["chaturvedi2021"]) == len(list(ch_cost.jobs(config["chaturvedi2021"]))) > 0
    for kind, paths in files.items():
        runtime = smk["ch_runtime"] if kind == "chaturvedi2021" else smk["sh_runtime"](kind)
        mem = smk["ch_mem_mb"] if kind == "chaturvedi2021" else smk["sh_mem_mb"](kind)
        for path in paths:
            wc = SimpleNamespace(**RUN_FILES[kind].fullmatch(path).groupdict())
            if kind == "chaturvedi2021":
                predicted = ch_cost.job_seconds(*smk["ch_job_cost"](wc))
            else:
                predicted = sh_cost.job_seconds(*smk["sh_job_cost"](kind, wc))
            minutes, mb = runtime(wc), mem(wc)
            assert isinstance(minutes, int) and isinstance(mb, int), path
            assert minutes >= 1 and minutes >= predicted / 60 and mb >= run_cost.MEM_BASE_MB, path


def test_paper_scale_exp1_runtimes_follow_d(monkeypatch, tmp_path):
    smk = common_smk(load_config("paper.yaml"), monkeypatch, tmp_path)
    runtime = smk["sh_runtime"]("exp1")
    minutes = [runtime(SimpleNamespace(reward="pm1", d=str(d), block="0-4")) for d in (4, 16, 32, 64)]
    assert minutes == sorted(minutes) and minutes[0] < 10 < 60 < minutes[-1]


@pytest.mark.parametrize("rule, callables", [
    ("chaturvedi2021_runs", ("ch_mem_mb", "ch_runtime")),
    ("shariff2018_runs_exp1", ('sh_mem_mb("exp1")', 'sh_runtime("exp1")')),
    ("shariff2018_runs_exp2", ('sh_mem_mb("exp2")', 'sh_runtime("exp2")')),
    ("shariff2018_runs_exp3", ('sh_mem_mb("exp3")', 'sh_runtime("exp3")')),
])
def test_run_rules_take_their_resources_from_the_cost_model(rule, callables):
    paper = rule.split("_")[0]
    text = (REPO / f"workflow/rules/{paper}.smk").read_text()
    body = re.search(rf"^rule {rule}:\n(.*?)(?=^rule |\Z)", text, re.S | re.M).group(1)
    resources = re.search(r"resources:\n((?:        .*\n)+)", body).group(1)
    assert f"mem_mb={callables[0]}," in resources
    assert f"runtime={callables[1]}," in resources
