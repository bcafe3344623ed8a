"""The Snakemake workflow: lint, config validation, dry runs, and the smoke pipeline end to end.

The end-to-end tests run the Chaturvedi et al. figures on config/smoke.yaml against the
shared data subset, twice (--cores 1 and --cores 2), and check identical tables, caching
(a second call has nothing to do) and targeted reruns (a notebook edit reruns only its
figure; a parameter change reruns only the runs it touches).
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
import yaml

from workflow_runs import (
    REPO,
    SUBSET,
    SUBSET_SHA256,
    copy_workflow,
    data_config,
    needs_subset,
    planned_jobs,
    snakemake,
)


def test_lint_is_clean():
    proc = snakemake(REPO, "--lint", *data_config())
    assert "Congratulations" in proc.stdout + proc.stderr


def test_only_run_rules_are_cluster_jobs_and_the_slurm_profile_groups_run_rules():
    text = "".join(p.read_text() for p in [REPO / "Snakefile", *sorted((REPO / "workflow/rules").glob("*.smk"))])
    rules = set(re.findall(r"^rule (\w+):", text, re.M))
    local = {name for block in re.findall(r"^localrules:\n((?:    \w+,?\n)+)", text, re.M)
             for name in re.findall(r"\w+", block)}
    run_rules = {r for r in rules if re.search(r"_runs(_exp\d)?$", r)}
    assert run_rules >= {"chaturvedi2021_runs", "shariff2018_runs_exp1", "shariff2018_runs_exp2", "shariff2018_runs_exp3"}
    assert local == rules - run_rules, (local ^ (rules - run_rules))
    profile = yaml.safe_load((REPO / "profiles/slurm/config.yaml").read_text())
    assert profile["executor"] == "slurm" and profile["cores"] == 1
    assert set(profile["groups"]) <= run_rules
    assert set(profile["group-components"]) == set(profile["groups"].values())


@needs_subset
def test_dry_run_of_a_fresh_copy_plans_every_figure(tmp_path):
    work = copy_workflow(tmp_path / "wf")
    jobs = planned_jobs(snakemake(work, "-n", *data_config()))
    papers = yaml.safe_load((REPO / "paper/papers.yaml").read_text())
    expected = {f"{key}_{fig['id']}_plot" for key, paper in papers.items() for fig in paper["figures"]}
    expected |= {f"{key}_claims" for key in papers} | {"report_html", "uber_download", "uber_parse"}
    assert expected <= set(jobs), expected - set(jobs)


BAD_READING = {"rounds": 7, "pcg_scores": "H", "s": 10, "pcg_eps0_rule": "split", "dpg_eps0_rule": "improved", "rounding": "swap"}


@pytest.mark.parametrize(
    "override, key",
    [
        ({"chaturvedi2021": {"eps": 0}}, "['eps']"),
        ({"chaturvedi2021": {"eps": -0.5}}, "['eps']"),
        ({"chaturvedi2021": {"delta": 1.5}}, "['delta']"),
        ({"chaturvedi2021": {"delta": 0}}, "['delta']"),
        ({"chaturvedi2021": {"fig1": {"ranks": [10, 101]}}}, "chaturvedi2021.fig1.ranks"),
        ({"chaturvedi2021": {"fig1": {"ranks": [0]}}}, "['ranks']"),
        ({"chaturvedi2021": {"fig1": {"n_runs": 0}}}, "['n_runs']"),
        ({"chaturvedi2021": {"fig2": {"ms": [1]}}}, "['ms']"),
        ({"chaturvedi2021": {"fig1": {"plot_reading": "nonesuch"}}}, "chaturvedi2021.fig1.plot_reading"),
        ({"chaturvedi2021": {"fig2": {"readings": {"paper": BAD_READING}}}}, "['pcg_scores']"),
        ({"chaturvedi2021": {"fig2": {"readings": {"paper": {**BAD_READING, "pcg_scores": "G", "grid_mode": "full"}}}}}, "grid_mode"),
        ("uber_sha256=xyz", "['uber_sha256']"),
        ("uber_source=/nonexistent/pickups.csv", "uber_source"),
        ("bogus_key=1", "bogus_key"),
    ],
)
def test_bad_config_is_rejected_before_any_job(override, key, tmp_path):
    args = ["-n", "--configfile", "config/config.yaml"]
    if isinstance(override, dict):
        bad = tmp_path / "bad.yaml"
        bad.write_text(yaml.safe_dump(override))
        args.append(str(bad))
    args += ["--config", f"uber_source={SUBSET}", f"uber_sha256={SUBSET_SHA256}"]
    if isinstance(override, str):
        args.append(override)
    proc = snakemake(REPO, *args, check=False)
    assert proc.returncode != 0
    message = proc.stdout + proc.stderr
    assert key in message, message[-3000:]
    assert "Job stats" not in message


@pytest.fixture(scope="module")
def smoke_runs(tmp_path_factory, smoke_run_two_cores):
    """The smoke pipeline run twice from scratch, with 1 and with 2 cores."""
    work = copy_workflow(tmp_path_factory.mktemp("cores1"))
    snakemake(work, "--cores", "1", "--configfile", "config/smoke.yaml", *data_config())
    return {1: work, 2: smoke_run_two_cores}


SMOKE_OUTPUTS = [
    "resources/uber/pickups.parquet",
    "results/chaturvedi2021/tables/fig1.csv",
    "results/chaturvedi2021/tables/fig2.csv",
    "results/figures/chaturvedi2021/fig1.pdf",
    "results/figures/chaturvedi2021/fig1.png",
    "results/figures/chaturvedi2021/fig2.pdf",
    "results/figures/chaturvedi2021/fig2.png",
    "logs/notebooks/chaturvedi2021_fig1.ipynb",
    "logs/notebooks/chaturvedi2021_fig2.ipynb",
    "results/claims/chaturvedi2021.csv",
    "results/paper/index.html",
    *[f"results/shariff2018/tables/fig{i}.csv" for i in range(1, 6)],
    *[f"results/figures/shariff2018/fig{i}.{ext}" for i in range(1, 6) for ext in ("pdf", "png")],
    *[f"logs/notebooks/shariff2018_fig{i}.ipynb" for i in range(1, 6)],
    "results/claims/shariff2018.csv",
]


@pytest.mark.slow
def test_smoke_pipeline_produces_every_output(smoke_runs):
    work = smoke_runs[2]
    for rel in SMOKE_OUTPUTS:
        assert (work / rel).is_file() and (work / rel).stat().st_size > 0, rel
    provenance = json.loads((work / "resources/uber/uber-raw-data-apr14.provenance.json").read_text())
    assert provenance["records"] == 99_997 and not provenance["canonical"]
    executed = json.loads((work / "logs/notebooks/chaturvedi2021_fig1.ipynb").read_text())
    assert any(cell.get("outputs") for cell in executed["cells"] if cell["cell_type"] == "code")
    claims = pd.read_csv(work / "results/claims/chaturvedi2021.csv")
    assert set(claims["verdict"]) <= {"reproduced", "not reproduced", "not evaluated"}
    assert {"F1-a", "F1-b", "F1-c", "F2-a", "F2-b", "F2-d"} <= set(claims["claim"])
    assert (claims["scale"] == "smoke").all()
    sh_claims = pd.read_csv(work / "results/claims/shariff2018.csv")
    assert set(sh_claims["verdict"]) <= {"reproduced", "not reproduced", "not evaluated"}
    assert {"F1.a", "F2.a", "F3.a", "F4.a", "F4.f", "F5.a", "F5.b"} <= set(sh_claims["claim"])
    assert (sh_claims["scale"] == "smoke").all()
    html = (work / "results/paper/index.html").read_text()
    assert "Original caption" in html and "F1-c" in html and "data:image/png;base64," in html
    # No temporary files left behind anywhere.
    assert not [p for p in (work / "results").rglob("*.tmp")]


@pytest.mark.slow
def test_snakemake_report_is_built(smoke_runs):
    work = smoke_runs[2]
    snakemake(work, "--report", "report.html", "--configfile", "config/smoke.yaml", *data_config())
    html = (work / "report.html").read_text(errors="replace")
    assert "chaturvedi2021" in html and "fig1.png" in html


@pytest.mark.slow
def test_tables_identical_with_one_and_two_cores(smoke_runs):
    for rel in ["results/chaturvedi2021/tables/fig1.csv", "results/chaturvedi2021/tables/fig2.csv",
                "results/claims/chaturvedi2021.csv", "results/shariff2018/tables/fig4.csv",
                "results/claims/shariff2018.csv"]:
        a = (smoke_runs[1] / rel).read_bytes()
        b = (smoke_runs[2] / rel).read_bytes()
        assert a == b, rel
    runs1 = pd.read_parquet(smoke_runs[1] / "results/chaturvedi2021/tables/fig1_runs.parquet")
    runs2 = pd.read_parquet(smoke_runs[2] / "results/chaturvedi2021/tables/fig1_runs.parquet")
    pd.testing.assert_frame_equal(runs1, runs2)


@pytest.mark.slow
def test_second_call_has_nothing_to_do_and_edits_rerun_only_what_they_touch(smoke_runs):
    work = smoke_runs[1]
    base = ["--configfile", "config/smoke.yaml", *data_config()]
    assert planned_jobs(snakemake(work, "-n", *base)) == {}

    # Editing a figure notebook reruns that figure (and the report that embeds it), nothing else.
    nb = work / "workflow/notebooks/chaturvedi2021_fig2.py.ipynb"
    doc = json.loads(nb.read_text())
    doc["cells"][-1]["source"] = "".join(doc["cells"][-1]["source"]) + "\n# restyled\n"
    nb.write_text(json.dumps(doc, indent=1))
    assert planned_jobs(snakemake(work, "-n", *base)) == {"chaturvedi2021_fig2_plot": 1, "report_html": 1, "all": 1}

    # Changing one reading's parameter reruns only that reading's runs (and what reads them).
    cfg = work / "config/smoke.yaml"
    text = cfg.read_text()
    changed = re.sub(r"(authors_code:\n(?:        .*\n)*?        s: )200", r"\g<1>300", text, count=1)
    assert changed != text
    cfg.write_text(changed)
    jobs = planned_jobs(snakemake(work, "-n", *base))
    smoke = {"ranks": 2, "blocks": 2}
    assert jobs["chaturvedi2021_runs"] == smoke["ranks"] * smoke["blocks"]
    assert "chaturvedi2021_instance" not in jobs and "uber_parse" not in jobs
    assert "chaturvedi2021_fig1_plot" in jobs


@needs_subset
def test_checksum_mismatch_fails_and_leaves_no_output(tmp_path):
    work = copy_workflow(tmp_path)
    proc = snakemake(
        work, "--cores", "1", "resources/uber/uber-raw-data-apr14.csv",
        "--config", f"uber_source={SUBSET}", "uber_sha256=" + "f" * 64, check=False,
    )
    assert proc.returncode != 0
    log = (work / "logs/data/uber_download.log").read_text()
    assert "f" * 64 in log and SUBSET_SHA256 in log
    assert not (work / "resources/uber/uber-raw-data-apr14.csv").exists()
    assert not list(work.rglob("*.tmp"))


@needs_subset
def test_m_larger_than_the_box_pool_is_a_config_error(tmp_path):
    work = copy_workflow(tmp_path / "wf")
    big = tmp_path / "big.yaml"
    big.write_text(yaml.safe_dump({"chaturvedi2021": {"fig2": {"ms": [1000, 50000]}}}))
    target = "results/chaturvedi2021/runs/fig2/paper/m~50000/seeds~0-9.parquet"
    args = ["--configfile", "config/smoke.yaml", str(big), *data_config()]
    # First call: the pool size is not known before the data is parsed; the run job refuses.
    proc = snakemake(work, "--cores", "1", target, *args, check=False)
    assert proc.returncode != 0
    log = (work / "logs/chaturvedi2021/runs/fig2/paper/m~50000/seeds~0-9.log").read_text()
    assert "chaturvedi2021.fig2.ms" in log and "50000" in log and "44650" in log
    assert not (work / target).exists()
    # Later calls know the pool and refuse before scheduling anything.
    proc = snakemake(work, "-n", *args, check=False)
    assert proc.returncode != 0
    message = proc.stdout + proc.stderr
    assert "chaturvedi2021.fig2.ms" in message and "50000" in message and "Job stats" not in message


def _schema_properties(node, path="config"):
    """Every (path, property schema) pair of the config schema, recursing into objects."""
    for name, prop in node.get("properties", {}).items():
        yield f"{path}.{name}", prop
        yield from _schema_properties(prop, f"{path}.{name}")


def test_every_schema_key_has_a_description_and_a_default():
    schema = yaml.safe_load((REPO / "workflow/schemas/config.schema.yaml").read_text())
    for path, prop in _schema_properties(schema):
        assert prop.get("description"), f"{path} has no description"
        assert "default" in prop, f"{path} has no default"
    for name, prop in schema["$defs"]["reading_common"]["properties"].items():
        assert prop.get("description"), f"reading key {name} has no description"


@pytest.mark.parametrize("name", ["config.yaml", "paper.yaml", "smoke.yaml", "shared-data.yaml"])
def test_shipped_config_files_validate(name):
    from snakemake.utils import update_config, validate

    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    update_config(config, yaml.safe_load((REPO / "config" / name).read_text()))
    validate(config, str(REPO / "workflow/schemas/config.schema.yaml"), set_default=True)
    assert config["chaturvedi2021"]["fig1"]["plot_reading"] in config["chaturvedi2021"]["fig1"]["readings"]


def test_malformed_csv_fails_the_parse_rule_naming_file_and_line(tmp_path):
    import hashlib

    work = copy_workflow(tmp_path / "wf")
    bad = tmp_path / "pickups.csv"
    bad.write_text(
        "Date/Time,Lat,Lon,Base\n"
        "4/1/2014 0:11:00,40.769,-73.9549,B02512\n"
        "4/1/2014 0:17:00,not-a-number,-73.9549,B02512\n"
    )
    digest = hashlib.sha256(bad.read_bytes()).hexdigest()
    proc = snakemake(work, "--cores", "1", "resources/uber/pickups.parquet",
                     "--config", f"uber_source={bad}", f"uber_sha256={digest}", check=False)
    assert proc.returncode != 0
    log = (work / "logs/data/uber_parse.log").read_text()
    assert "uber-raw-data-apr14.csv, line 3" in log and "not-a-number" in log and str(bad) in log, log[-2000:]
    assert not (work / "resources/uber/pickups.parquet").exists()
