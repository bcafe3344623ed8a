"""The Snakemake workflow: lint, config validation, dry runs, and the smoke pipeline end to end.

The end-to-end tests run every registered paper, plus the toy paper of ``tests/toy_paper`` (added to
the workflow copy by adding its files, nothing else), on config/smoke.yaml against the shared data
subset with --cores 2 (the tables of ``SCHEDULING_PAPERS`` again with --cores 1), and check identical
tables, caching (a second call has nothing to do) and the rerun scope: a notebook edit reruns only its
figure, a new grid point plans only its run jobs, a key no run reads plans no run job, and a library
edit reruns exactly the runs of the experiments whose code imports it.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from workflow_runs import (
    REPO,
    SCHEDULING_PAPERS,
    SUBSET,
    SUBSET_SHA256,
    assert_same_results,
    copy_workflow,
    data_config,
    needs_subset,
    of_papers,
    planned_jobs,
    registry_files,
    result_files,
    snakemake,
    table_targets,
    toy_files,
)

def test_lint_is_clean():
    proc = snakemake(REPO, "--lint", *data_config())
    assert "Congratulations" in proc.stdout + proc.stderr


@needs_subset
def test_dry_run_of_a_fresh_copy_plans_every_paper(tmp_path):
    """Every registered paper's runs, tables, figures and claims are planned, and the report."""
    work = copy_workflow(tmp_path / "wf", toy=True)
    jobs = planned_jobs(snakemake(work, "-n", *data_config()))
    papers = registry_files(work)
    assert set(papers) >= {"chaturvedi2021", "shariff2018", "toy"}
    for key in papers:
        assert f"{key}_claims" in jobs and any(r.startswith(f"{key}_runs_") for r in jobs), key
    assert {"report_html", "uber_download", "uber_parse"} <= set(jobs)


def test_only_run_rules_leave_the_machine(tmp_path, monkeypatch):
    """The run rules are the only rules not marked local (a cluster executor submits exactly them),
    for every paper; the toy's rules follow from the same generic rules."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    # The workflow parses in this process: keep its PYTHONPATH and sys.path edits and the privopt modules
    # it imports from the copy's src/ inside this test.
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH", ""))
    ours = {k: v for k, v in sys.modules.items() if k.startswith("privopt")}
    work = copy_workflow(tmp_path / "wf", toy=True)
    for name in ours:  # the copy's privopt (with the toy paper) is imported afresh by the parse
        del sys.modules[name]
    try:
        with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
            workflow = api.workflow(
                resource_settings=ResourceSettings(), snakefile=work / "Snakefile", workdir=work,
                config_settings=ConfigSettings(configfiles=[work / "config/config.yaml"],
                                               config={"uber_source": str(SUBSET), "uber_sha256": SUBSET_SHA256}),
            )._workflow
            rules = {r.name for r in workflow.rules}
            cluster = rules - workflow._localrules
    finally:
        for name in [k for k in sys.modules if k.startswith("privopt")]:
            del sys.modules[name]
        sys.modules.update(ours)
    assert cluster == {r for r in rules if re.fullmatch(r"\w+_runs_\w+", r)}, cluster
    assert {"toy_runs_laplace", "chaturvedi2021_runs_fig1", "shariff2018_runs_exp3"} <= cluster
    profile = yaml.safe_load((REPO / "profiles/slurm/config.yaml").read_text())
    assert profile["executor"] == "slurm" and profile["cores"] == 1 and "groups" not in profile
    assert set(profile["group-components"]) == {"runs_short", "runs_medium"}


def test_the_toy_paper_adds_files_only_where_a_paper_declares_itself():
    """The guard that adding a paper stays cheap: its package, notebooks, captions and schema."""
    allowed = [r"src/privopt/experiments/toy/[\w/]+\.py", r"workflow/notebooks/toy_\w+\.py\.ipynb",
               r"workflow/report/toy_\w+\.rst", r"workflow/schemas/toy\.schema\.yaml"]
    files = [str(p) for p in toy_files()]
    assert files and all(any(re.fullmatch(a, f) for a in allowed) for f in files), files
    assert not any((REPO / f).exists() for f in files)


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
        ({"shariff2018": {"exp2": {"n_rounds": 60_000_000}}}, "shariff2018.exp2.n_rounds = 60000000 exceeds shariff2018.exp2.n"),
        ({"shariff2018": {"exp1": {"n": 1000, "n_rounds": 2000}}}, "shariff2018.exp1.n_rounds = 2000 exceeds"),
        ({"shariff2018": {"exp3": {"gaps": [0.1, 0.1]}}}, "['gaps']"),
        ({"shariff2018": {"exp2": {"variants": ["laplace"]}}}, "'laplace' is not one of"),
        ({"shariff2018": "none"}, "shariff2018"),
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
    """The smoke pipeline run from scratch with 2 cores (everything), and with 1 core the tables, claims
    and audits of SCHEDULING_PAPERS (the figures and the report read only those, and take most of the time;
    why these papers: workflow_runs)."""
    work = copy_workflow(tmp_path_factory.mktemp("cores1"), toy=True)
    snakemake(work, "--cores", "1", *table_targets(work), "--configfile", "config/smoke.yaml", *data_config())
    return {1: work, 2: smoke_run_two_cores}


@pytest.mark.slow
def test_smoke_pipeline_produces_every_output(smoke_runs):
    work = smoke_runs[2]
    expected = [f for files in registry_files(work).values() for f in files]
    expected += ["resources/uber/pickups.parquet", "results/paper/index.html", "results/audit/audits.csv"]
    for rel in expected:
        assert (work / rel).is_file() and (work / rel).stat().st_size > 0, rel
    provenance = json.loads((work / "resources/uber/uber-raw-data-apr14.provenance.json").read_text())
    assert provenance["records"] == 99_997 and not provenance["canonical"]
    executed = json.loads((work / "logs/notebooks/chaturvedi2021_fig1.ipynb").read_text())
    assert any(cell.get("outputs") for cell in executed["cells"] if cell["cell_type"] == "code")
    for paper, ids in {"chaturvedi2021": {"F1.a", "F1.b", "F1.c", "F2.a", "F2.b", "F2.d"},
                       "shariff2018": {"F1.a", "F2.a", "F3.a", "F4.a", "F4.f", "F5.a", "F5.b", "S.1", "S.2"},
                       "toy": {"F1.a"}}.items():
        claims = pd.read_csv(work / f"results/claims/{paper}.csv")
        assert set(claims["verdict"]) <= {"reproduced", "not reproduced", "inconclusive at this scale"}, paper
        assert ids <= set(claims["claim"]) and (claims["scale"] == "smoke").all(), paper
    # the toy's claim holds by construction (E|Lap(b)| = b): a pipeline that mangles its table fails it
    assert set(pd.read_csv(work / "results/claims/toy.csv")["verdict"]) == {"reproduced"}
    record = json.loads((work / "results/shariff2018/tables/exp2.provenance.json").read_text())
    assert record["environment"]["packages"]["numpy"] and record["code_digest"]["runs"]
    assert record["tables"] == ["results/shariff2018/tables/fig4.csv", "results/shariff2018/tables/fig4_runs.parquet",
                                "results/shariff2018/tables/fig4_audit.parquet"]
    audits = pd.read_csv(work / "results/audit/audits.csv")
    audited = {key for key, files in registry_files(work).items() if f"results/audit/{key}.csv" in files}
    assert {"chaturvedi2021", "shariff2018"} <= audited
    assert set(audits["paper"]) == audited
    assert {"correct", "planted"} <= set(audits["variant"]) <= {"correct", "planted", "subtle"}
    assert (audits.loc[audits["variant"] == "correct", "result"] == "pass").all()  # no violation, even on few samples
    html = (work / "results/paper/index.html").read_text()
    assert "Original caption" in html and "F1.c" in html and "data:image/png;base64," in html
    assert "Privacy audits" in html and "tree_wishart" in html
    assert "The Laplace mechanism for a mean" in html  # the toy paper's section
    # Readable by others (a web server, a colleague on a shared file system), not 0600.
    assert (work / "results/paper/index.html").stat().st_mode & stat.S_IROTH
    # No temporary files left behind anywhere.
    assert not [p for p in (work / "results").rglob("*.tmp")]


@pytest.mark.slow
def test_snakemake_report_is_built(smoke_runs):
    work = smoke_runs[2]
    snakemake(work, "--report", "report.html", "--configfile", "config/smoke.yaml", *data_config())
    html = (work / "report.html").read_text(errors="replace")
    assert "chaturvedi2021" in html and "fig1.png" in html


@pytest.mark.slow
def test_every_table_is_identical_with_one_and_two_cores(smoke_runs):
    one = result_files(smoke_runs[1])
    two = {rel: path for rel, path in result_files(smoke_runs[2]).items() if of_papers(rel)}
    assert set(one) == set(two) and len(one) > 40
    for paper in SCHEDULING_PAPERS:
        assert any(rel.startswith(f"results/{paper}/tables/") for rel in one), paper
    assert_same_results(one, two)


def _edit(path: Path, old: str, new: str) -> str:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))
    return text


def _runs(jobs: dict[str, int]) -> dict[str, int]:
    return {rule: n for rule, n in jobs.items() if "_runs_" in rule}


@pytest.mark.slow
def test_second_call_has_nothing_to_do_and_edits_rerun_only_what_they_touch(smoke_runs, tmp_path):
    work = smoke_runs[2]
    base = ["--configfile", "config/smoke.yaml", *data_config()]
    assert planned_jobs(snakemake(work, "-n", *base)) == {}

    # Editing a figure notebook reruns that figure (and the report that embeds it), nothing else.
    nb = work / "workflow/notebooks/chaturvedi2021_fig2.py.ipynb"
    text, stamp = nb.read_text(), nb.stat()
    doc = json.loads(text)
    doc["cells"][-1]["source"] = "".join(doc["cells"][-1]["source"]) + "\n# restyled\n"
    nb.write_text(json.dumps(doc, indent=1))
    assert planned_jobs(snakemake(work, "-n", *base)) == {"chaturvedi2021_fig2_plot": 1, "report_html": 1, "all": 1}
    nb.write_text(text)
    os.utime(nb, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # Snakemake reruns a notebook by its mtime

    # Changing one reading's parameter reruns only that reading's runs (and what reads them).
    cfg = work / "config/smoke.yaml"
    original = cfg.read_text()
    changed = re.sub(r"(authors_code:\n(?:        .*\n)*?        s: )200", r"\g<1>300", original, count=1)
    assert changed != original
    cfg.write_text(changed)
    jobs = planned_jobs(snakemake(work, "-n", *base))
    assert _runs(jobs) == {"chaturvedi2021_runs_fig1": 2 * 2}  # 2 ranks × 2 seed blocks of that reading
    assert "chaturvedi2021_instance_fig1" not in jobs and "uber_parse" not in jobs
    assert "chaturvedi2021_fig1_plot" in jobs
    cfg.write_text(original)
    assert planned_jobs(snakemake(work, "-n", *base)) == {}


@pytest.mark.slow
@pytest.mark.parametrize("edit, expected", [
    # a new grid point: only its run jobs (2 readings × 2 seed blocks), nothing reruns
    ({"chaturvedi2021": {"fig1": {"ranks": [10, 16, 22]}}}, {"chaturvedi2021_runs_fig1": 4}),
    ({"shariff2018": {"exp1": {"dims": [5, 6]}}}, {"shariff2018_runs_exp1": 2}),
    # keys no run reads: no run job
    ({"chaturvedi2021": {"fig1": {"plot_reading": "authors_code"}}}, {}),
    ({"shariff2018": {"exp2": {"plot_until": 1000}}}, {}),
    ({"scale": "custom"}, {}),
    # a key every run of one experiment reads: exactly those runs
    ({"shariff2018": {"exp3": {"rec_points": 5}}}, {"shariff2018_runs_exp3": 4}),
    ({"chaturvedi2021": {"eps": 0.2}}, {"chaturvedi2021_runs_fig1": 8, "chaturvedi2021_runs_fig2": 4}),
])
def test_config_edits_plan_only_the_run_jobs_that_read_them(smoke_runs, tmp_path, edit, expected):
    extra = tmp_path / "edit.yaml"
    extra.write_text(yaml.safe_dump(edit))
    jobs = planned_jobs(snakemake(smoke_runs[2], "-n", "--configfile", "config/smoke.yaml", str(extra), *data_config()))
    assert _runs(jobs) == expected, jobs


@pytest.fixture(scope="module")
def every_run_job(smoke_runs):
    """Run jobs per run rule of the smoke configuration (a dry run with --forceall)."""
    return _runs(planned_jobs(snakemake(smoke_runs[2], "-n", "--forceall", "--configfile", "config/smoke.yaml",
                                        *data_config())))


@pytest.mark.slow
@pytest.mark.parametrize("module, papers", [
    # the Chaturvedi runs import privopt.submodular.greedy; the bandit runs and the toy do not
    ("src/privopt/submodular/greedy.py", {"chaturvedi2021"}),
    # every Shariff & Sheffet experiment runs from shariff2018/runs.py, which imports privopt.bandits
    ("src/privopt/bandits/parameters.py", {"shariff2018"}),
    # privopt.seeding keys every stream: every run of every paper
    ("src/privopt/seeding.py", None),
])
def test_a_library_edit_reruns_exactly_the_runs_whose_code_imports_it(smoke_runs, every_run_job, module, papers):
    expected = {rule: n for rule, n in every_run_job.items() if papers is None or rule.split("_runs_")[0] in papers}
    assert {"chaturvedi2021_runs_fig1": 8, "chaturvedi2021_runs_fig2": 4, "shariff2018_runs_exp3": 4,
            "toy_runs_laplace": 3}.items() <= every_run_job.items()
    work = smoke_runs[2]
    base = ["-n", "--configfile", "config/smoke.yaml", *data_config()]
    path = work / module
    original = path.read_text()
    try:
        path.write_text(original + "\n# a comment and a docstring change nothing that runs\n")
        assert _runs(planned_jobs(snakemake(work, *base))) == {}
        path.write_text(original + "\n_CODE_CHANGE = 1\n")
        assert _runs(planned_jobs(snakemake(work, *base))) == expected
    finally:
        path.write_text(original)


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
def test_m_larger_than_the_box_pool_fails_the_run_job_naming_the_config_key(tmp_path):
    """The pool size is known only once the data is parsed, so the run job that has the data refuses
    before computing anything, naming the key; nothing at parse time reads earlier outputs."""
    work = copy_workflow(tmp_path / "wf")
    big = tmp_path / "big.yaml"
    big.write_text(yaml.safe_dump({"chaturvedi2021": {"fig2": {"ms": [1000, 50000]}}}))
    target = "results/chaturvedi2021/runs/fig2/reading~paper/m~50000/seeds~0-9.parquet"
    args = ["--configfile", "config/smoke.yaml", str(big), *data_config()]
    for _ in range(2):  # and again once the instance exists: the same refusal, from the job
        proc = snakemake(work, "--cores", "1", target, *args, check=False)
        assert proc.returncode != 0
        log = (work / "logs/chaturvedi2021/runs/fig2/reading~paper/m~50000/seeds~0-9.log").read_text()
        assert "config key chaturvedi2021.fig2.ms" in log and "50000" in log and "44650" in log, log[-2000:]
        assert not (work / target).exists()
    assert (work / "results/chaturvedi2021/instances/fig2/instance.json").exists()
    # A valid m still plans, whatever instance files lie around.
    assert "chaturvedi2021_runs_fig2" in planned_jobs(snakemake(work, "-n", "--configfile", "config/smoke.yaml",
                                                                  *data_config()))


def _schema_properties(node, path):
    """Every (path, property schema) pair of a schema, recursing into objects."""
    for name, prop in node.get("properties", {}).items():
        yield f"{path}.{name}", prop
        yield from _schema_properties(prop, f"{path}.{name}")


@pytest.mark.parametrize("schema", sorted(p.name for p in (REPO / "workflow/schemas").glob("*.schema.yaml")))
def test_every_schema_key_has_a_description_and_a_default(schema):
    doc = yaml.safe_load((REPO / "workflow/schemas" / schema).read_text())
    for path, prop in _schema_properties(doc, schema.split(".")[0]):
        assert prop.get("description"), f"{path} has no description"
        assert "default" in prop, f"{path} has no default"
    for name, prop in doc.get("$defs", {}).get("reading_common", {}).get("properties", {}).items():
        assert prop.get("description"), f"reading key {name} has no description"


def test_every_registered_paper_has_a_schema_and_its_captions():
    from privopt.experiments.registry import papers

    for key, paper in papers().items():
        assert (REPO / "workflow/schemas" / f"{key}.schema.yaml").is_file(), key
        for name in [f.id for f in paper.figures] + ["claims"]:
            assert (REPO / paper.caption(name)).is_file(), paper.caption(name)
        for fig in paper.figures:
            assert (REPO / paper.notebook(fig.id)).is_file(), paper.notebook(fig.id)


@pytest.mark.parametrize("name", ["config.yaml", "paper.yaml", "smoke.yaml", "shared-data.yaml"])
def test_shipped_config_files_validate(name):
    from snakemake.utils import update_config, validate

    from privopt.experiments.registry import papers

    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    update_config(config, yaml.safe_load((REPO / "config" / name).read_text()))
    validate(config, str(REPO / "workflow/schemas/config.schema.yaml"), set_default=True)
    for key, paper in papers().items():
        config.setdefault(key, {})
        validate(config[key], str(REPO / "workflow/schemas" / f"{key}.schema.yaml"), set_default=True)
        paper.check(config[key])
        assert list(paper.run_jobs(config[key]))
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
