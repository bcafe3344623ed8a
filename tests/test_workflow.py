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
import shutil
import stat
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from privopt.pipeline.provenance import file_sha256
from workflow_runs import (
    REPO,
    SCHEDULING_PAPERS,
    SMOKE,
    SMOKE_LOGS,
    SUBSET,
    SUBSET_DIR,
    SUBSET_SHA256,
    assert_same_results,
    copy_workflow,
    data_config,
    load_config,
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
               r"workflow/report/toy_\w+\.rst", r"workflow/schemas/toy\.schema\.yaml",
               r"src/privopt/datasets/toy\.py"]  # its data set (tests/test_datasets.py)
    files = [str(p) for p in toy_files()]
    assert files and all(any(re.fullmatch(a, f) for a in allowed) for f in files), files
    assert not any((REPO / f).exists() for f in files)


BAD_READING = {"rounds": 7, "pcg_scores": "H", "s": 10, "pcg_eps0_rule": "split", "dpg_eps0_rule": "improved", "rounding": "swap"}


@pytest.mark.parametrize(
    "override, key",
    [
        ({"chaturvedi2021": {"eps": 0}}, "chaturvedi2021.eps"),
        ({"chaturvedi2021": {"eps": -0.5}}, "chaturvedi2021.eps"),
        ({"chaturvedi2021": {"delta": 1.5}}, "chaturvedi2021.delta"),
        ({"chaturvedi2021": {"delta": 0}}, "chaturvedi2021.delta"),
        ({"chaturvedi2021": {"fig1": {"ranks": [10, 101]}}}, "chaturvedi2021.fig1.ranks"),
        ({"chaturvedi2021": {"fig1": {"ranks": [0]}}}, "chaturvedi2021.fig1.ranks[0]"),
        ({"chaturvedi2021": {"fig1": {"n_runs": 0}}}, "chaturvedi2021.fig1.n_runs"),
        ({"chaturvedi2021": {"fig2": {"ms": [1]}}}, "chaturvedi2021.fig2.ms[0]"),
        ({"chaturvedi2021": {"fig1": {"plot_reading": "nonesuch"}}}, "chaturvedi2021.fig1.plot_reading"),
        ({"chaturvedi2021": {"fig2": {"readings": {"paper": BAD_READING}}}}, "chaturvedi2021.fig2.readings.paper.pcg_scores"),
        ({"chaturvedi2021": {"fig2": {"readings": {"paper": {**BAD_READING, "pcg_scores": "G", "grid_mode": "full"}}}}}, "grid_mode"),
        ({"shariff2018": {"exp2": {"n_rounds": 60_000_000}}}, "shariff2018.exp2.n_rounds = 60000000 exceeds shariff2018.exp2.n"),
        ({"shariff2018": {"exp1": {"n": 1000, "n_rounds": 2000}}}, "shariff2018.exp1.n_rounds = 2000 exceeds"),
        ({"shariff2018": {"exp3": {"gaps": [0.1, 0.1]}}}, "shariff2018.exp3.gaps"),
        ({"shariff2018": {"exp2": {"variants": ["laplace"]}}}, "'laplace' is not one of"),
        ({"shariff2018": "none"}, "shariff2018"),
        ("uber_sha256=xyz", "config key uber_sha256"),
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
    # and where it was set: the file, or --config
    assert f"set in {bad}" in message if isinstance(override, dict) else "set in --config" in message, message[-3000:]


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
    expected += [f"{SUBSET_DIR}/pickups.parquet", f"{SMOKE}/paper/index.html", f"{SMOKE}/audit/audits.csv"]
    for rel in expected:
        assert (work / rel).is_file() and (work / rel).stat().st_size > 0, rel
    provenance = json.loads((work / f"{SUBSET_DIR}/provenance.json").read_text())
    assert provenance["records"] == 99_997 and not provenance["canonical"]
    executed = json.loads((work / f"{SMOKE_LOGS}/notebooks/chaturvedi2021_fig1.ipynb").read_text())
    assert any(cell.get("outputs") for cell in executed["cells"] if cell["cell_type"] == "code")
    for paper, ids in {"chaturvedi2021": {"F1.a", "F1.b", "F1.c", "F2.a", "F2.b", "F2.d"},
                       "shariff2018": {"F1.a", "F2.a", "F3.a", "F4.a", "F4.f", "F5.a", "F5.b", "S.1", "S.2"},
                       "toy": {"F1.a"}}.items():
        claims = pd.read_csv(work / f"{SMOKE}/claims/{paper}.csv")
        assert set(claims["verdict"]) <= {"reproduced", "not reproduced", "inconclusive at this scale"}, paper
        assert ids <= set(claims["claim"]) and (claims["scale"] == "smoke").all(), paper
    # the toy's claim holds by construction (E|Lap(b)| = b): a pipeline that mangles its table fails it
    assert set(pd.read_csv(work / f"{SMOKE}/claims/toy.csv")["verdict"]) == {"reproduced"}
    record = json.loads((work / f"{SMOKE}/shariff2018/tables/exp2.provenance.json").read_text())
    assert record["environment"]["packages"]["numpy"] and record["code_digest"]["runs"]
    assert record["tables"] == [f"{SMOKE}/shariff2018/tables/{t}" for t in
                                ("fig4.csv", "fig4_runs.parquet", "fig4_audit.parquet")]
    # the record says what ran (per point, the settings its runs read) and holds each table's sha256
    assert record["scale"] == "smoke" and record["runs"] and all(r["settings"] for r in record["runs"])
    assert {t: file_sha256(work / t) for t in record["tables"]} == record["sha256"]
    audits = pd.read_csv(work / f"{SMOKE}/audit/audits.csv")
    audited = {key for key, files in registry_files(work).items() if f"{SMOKE}/audit/{key}.csv" in files}
    assert {"chaturvedi2021", "shariff2018"} <= audited
    assert set(audits["paper"]) == audited
    assert {"correct", "planted"} <= set(audits["variant"]) <= {"correct", "planted", "subtle"}
    assert (audits.loc[audits["variant"] == "correct", "result"] == "pass").all()  # no violation, even on few samples
    html = (work / f"{SMOKE}/paper/index.html").read_text()
    assert "Original caption" in html and "F1.c" in html and "data:image/png;base64," in html
    assert "Privacy audits" in html and "tree_wishart" in html
    assert "The Laplace mechanism for a mean" in html  # the toy paper's section
    # Readable by others (a web server, a colleague on a shared file system), not 0600.
    assert (work / f"{SMOKE}/paper/index.html").stat().st_mode & stat.S_IROTH
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
        assert any(rel.startswith(f"{SMOKE}/{paper}/tables/") for rel in one), paper
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
    # a key every run of one experiment reads: exactly those runs
    ({"shariff2018": {"exp3": {"rec_points": 5}}}, {"shariff2018_runs_exp3": 4}),
    ({"chaturvedi2021": {"eps": 0.2}}, {"chaturvedi2021_runs_fig1": 8, "chaturvedi2021_runs_fig2": 4}),
])
def test_config_edits_plan_only_the_run_jobs_that_read_them(smoke_runs, tmp_path, edit, expected):
    extra = tmp_path / "edit.yaml"
    extra.write_text(yaml.safe_dump(edit))
    jobs = planned_jobs(snakemake(smoke_runs[2], "-n", "--configfile", "config/smoke.yaml", str(extra), *data_config()))
    assert _runs(jobs) == expected, jobs


@pytest.mark.slow
@needs_subset
def test_scales_and_settings_keep_their_results_and_a_hand_edited_table_is_caught(tmp_path):
    """Results of another scale or another setting are never overwritten nor deleted, by a run or by a
    failed attempt; switching back plans nothing; a table changed by hand fails before anything reads it."""
    work = copy_workflow(tmp_path / "wf", toy=True)
    base = ["--configfile", "config/smoke.yaml", *data_config()]
    snakemake(work, "--cores", "2", "toy", *base)
    smoke = {rel: path.read_bytes() for rel, path in result_files(work).items() if "/toy/" in rel}
    assert smoke and all(rel.startswith(f"{SMOKE}/toy/") for rel in smoke)

    # another scale: its own namespace; the smoke results stay byte for byte
    snakemake(work, "--cores", "2", "toy", *base, "--config", "scale=custom")
    assert result_files(work, "results/custom") and {
        rel: path.read_bytes() for rel, path in result_files(work).items() if "/toy/" in rel} == smoke
    assert planned_jobs(snakemake(work, "-n", "toy", *base)) == {}

    # another setting that fails in its run job: the good run files of the first setting survive it
    runs_py = work / "src/privopt/experiments/toy/runs.py"
    _edit(runs_py, '    n, eps = int(settings["n"]), float(point["eps"])\n',
          '    n, eps = int(settings["n"]), float(point["eps"])\n    if n == 999:\n        raise RuntimeError("planted failure")\n')
    bad = tmp_path / "n999.yaml"
    bad.write_text(yaml.safe_dump({"toy": {"n": 999}}))
    proc = snakemake(work, "--cores", "2", "toy", *base, str(bad), "--keep-going", check=False)
    assert proc.returncode != 0
    after = {rel: path.read_bytes() for rel, path in result_files(work).items() if "/toy/" in rel and "/runs/" in rel}
    assert after == {rel: b for rel, b in smoke.items() if "/runs/" in rel}
    # the planted line changed the runs' code: put it back, and the first setting plans nothing again
    runs_py.write_text(runs_py.read_text().replace('    if n == 999:\n        raise RuntimeError("planted failure")\n', ""))
    assert planned_jobs(snakemake(work, "-n", "toy", *base)) == {}

    # a table changed by hand: its check fails naming it and the command that regenerates it
    table = work / SMOKE / "toy/tables/fig1.csv"
    table.write_text(table.read_text().replace(",", ", ", 1))
    proc = snakemake(work, "--cores", "1", "toy", *base, check=False)
    log = (work / SMOKE_LOGS / "toy/tables/laplace.check.log").read_text()
    assert proc.returncode != 0 and f"{SMOKE}/toy/tables/fig1.csv: its sha256" in log, log[-2000:]
    assert "snakemake --cores 1 --forcerun toy_tables_laplace" in log
    snakemake(work, "--cores", "1", "toy", "--forcerun", "toy_tables_laplace", *base)
    assert table.read_bytes() == smoke[f"{SMOKE}/toy/tables/fig1.csv"]


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
    key = "sha256-" + "f" * 16
    proc = snakemake(
        work, "--cores", "1", f"resources/uber/{key}/uber-raw-data-apr14.csv",
        "--config", f"uber_source={SUBSET}", "uber_sha256=" + "f" * 64, check=False,
    )
    assert proc.returncode != 0
    log = (work / f"logs/data/{key}/uber_download.log").read_text()
    assert "f" * 64 in log and SUBSET_SHA256 in log
    assert not (work / f"resources/uber/{key}/uber-raw-data-apr14.csv").exists()
    assert not list(work.rglob("*.tmp"))


def _tree(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``root``: its bytes and modification time."""
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()}


@needs_subset
def test_a_failed_source_leaves_the_verified_data_and_switching_back_plans_nothing(tmp_path):
    """The data lives under the name of the check it passed: a wrong sha256, a truncated file and an
    unreachable URL (the offline default) each fail in a folder of their own, the verified subset and its
    provenance stay as they were, and the subset's config plans nothing (it used to delete them, and
    after restoring them byte for byte every job downstream replanned: "Params have changed")."""
    work = copy_workflow(tmp_path / "wf")
    target = "results/quick/chaturvedi2021/instances/fig1/instance.json"
    snakemake(work, "--cores", "1", target, *data_config())
    verified = _tree(work / SUBSET_DIR)
    assert set(verified) == {"uber-raw-data-apr14.csv", "provenance.json", "pickups.parquet"}
    instance = _tree(work / "results/quick/chaturvedi2021/instances")

    truncated = tmp_path / "truncated.csv"
    truncated.write_bytes((work / SUBSET_DIR / "uber-raw-data-apr14.csv").read_bytes()[:5000])
    attempts = {
        "wrong sha256": ["--config", f"uber_source={SUBSET}", "uber_sha256=" + "f" * 64],
        "truncated file": ["--config", f"uber_source={truncated}"],
        "offline URL": ["--config", "uber_source=https://nonexistent.invalid/uber-raw-data-apr14.csv"],
    }
    for what, args in attempts.items():
        if what != "wrong sha256":  # the canonical check's folder may have been left by the previous attempt
            shutil.rmtree(work / "resources/uber/canonical-e8af4b8e0c4adb58", ignore_errors=True)
        proc = snakemake(work, "--cores", "1", target, *args, check=False)
        assert proc.returncode != 0, what
        assert _tree(work / SUBSET_DIR) == verified, what
        assert _tree(work / "results/quick/chaturvedi2021/instances") == instance, what
        assert planned_jobs(snakemake(work, "-n", target, *data_config())) == {}, what
    log = (work / "logs/data/canonical-e8af4b8e0c4adb58/uber_download.log").read_text()
    assert "nonexistent.invalid" in log and "config/shared-data.yaml" in log, log[-2000:]  # the offline hint
    # The same data from another source (the plain verified copy, by its own sha256) is another folder;
    # the subset's folder is untouched by it, and the subset's config still plans nothing.
    import hashlib

    plain = work / SUBSET_DIR / "uber-raw-data-apr14.csv"
    digest = hashlib.sha256(plain.read_bytes()).hexdigest()
    snakemake(work, "--cores", "1", f"resources/uber/sha256-{digest[:16]}/pickups.parquet",
              "--config", f"uber_source={plain}", f"uber_sha256={digest}")
    assert _tree(work / SUBSET_DIR) == verified
    assert planned_jobs(snakemake(work, "-n", target, *data_config())) == {}


@needs_subset
def test_a_source_with_too_few_records_fails_the_parse_naming_file_and_count(tmp_path):
    """A header and no records used to parse ('0 pickups parsed'), and the run jobs failed three rules
    later blaming a config key; now the parse refuses it, naming the file, the count and the key."""
    import hashlib

    work = copy_workflow(tmp_path / "wf")
    for name, body, minimum in [("empty.csv", "", None), ("few.csv", "4/1/2014 0:11:00,40.769,-73.9549,B02512\n" * 3, 5)]:
        src = tmp_path / name
        src.write_text("Date/Time,Lat,Lon,Base\n" + body)
        digest = hashlib.sha256(src.read_bytes()).hexdigest()
        extra = [f"uber_min_records={minimum}"] if minimum else []
        key = f"sha256-{digest[:16]}"
        proc = snakemake(work, "--cores", "1", "results/quick/chaturvedi2021/instances/fig1/instance.json",
                         "--config", f"uber_source={src}", f"uber_sha256={digest}", *extra, check=False)
        assert proc.returncode != 0
        log = (work / f"logs/data/{key}/uber_parse.log").read_text()
        count = body.count("\n")
        assert f"{count} records after the header, fewer than the {minimum or 100} required" in log, log[-2000:]
        assert "uber-raw-data-apr14.csv" in log and str(src) in log and "uber_min_records" in log
        assert not (work / f"resources/uber/{key}/pickups.parquet").exists()
    # enough records for a lower minimum: parsed
    snakemake(work, "--cores", "1", f"resources/uber/{key}/pickups.parquet",
              "--config", f"uber_source={src}", f"uber_sha256={digest}", "uber_min_records=3")


@needs_subset
def test_m_larger_than_the_box_pool_fails_the_run_job_naming_the_config_key(tmp_path):
    """The pool size is known only once the data is parsed, so the run job that has the data refuses
    before computing anything, naming the key; nothing at parse time reads earlier outputs."""
    work = copy_workflow(tmp_path / "wf")
    big = tmp_path / "big.yaml"
    big.write_text(yaml.safe_dump({"chaturvedi2021": {"fig2": {"ms": [1000, 50000]}}}))
    args = ["--configfile", "config/smoke.yaml", str(big), *data_config()]
    for _ in range(2):  # and again once the instance exists: the same refusal, from the job
        proc = snakemake(work, "--cores", "1", "chaturvedi2021_tables_fig2", *args, check=False)
        assert proc.returncode != 0
        logs = list((work / f"{SMOKE_LOGS}/chaturvedi2021/runs/fig2/reading~paper/m~50000").glob("settings~*/seeds~*.log"))
        assert logs, "no log of the m = 50000 run job"
        log = logs[0].read_text()
        assert "config key chaturvedi2021.fig2.ms" in log and "50000" in log and "44650" in log, log[-2000:]
        assert not list((work / f"{SMOKE}/chaturvedi2021/runs/fig2/reading~paper/m~50000").rglob("*.parquet"))
    assert (work / f"{SMOKE}/chaturvedi2021/instances/fig2/instance.json").exists()
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
    from privopt.pipeline.registry import papers

    for key, paper in papers().items():
        assert (REPO / "workflow/schemas" / f"{key}.schema.yaml").is_file(), key
        for name in [f.id for f in paper.figures] + ["claims"]:
            assert (REPO / paper.caption(name)).is_file(), paper.caption(name)
        for fig in paper.figures:
            assert (REPO / paper.notebook(fig.id)).is_file(), paper.notebook(fig.id)


@pytest.mark.parametrize("name", ["config.yaml", "paper.yaml", "smoke.yaml", "shared-data.yaml",
                                  "paper.yaml+shariff-reference.yaml"])
def test_shipped_config_files_validate(name):
    from privopt.pipeline.registry import papers

    config = load_config(*name.split("+"))  # the library's loading: schemas, defaults, each paper's cross-key checks
    for key, paper in papers().items():
        assert list(paper.run_jobs(config[key]))
    assert config["chaturvedi2021"]["fig1"]["plot_reading"] in config["chaturvedi2021"]["fig1"]["readings"]


# ----------------------------------------------------------------------------- config messages (the library)


def _config_error(tmp_path, text: str, overrides=None) -> str:
    from privopt.pipeline.config import load_config as load
    from privopt.pipeline.errors import ConfigError

    path = tmp_path / "mine.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load([path], overrides, base=REPO / "config/config.yaml", schemas=REPO / "workflow/schemas")
    return str(err.value)


def test_a_schema_error_names_the_paper_the_key_path_and_the_file(tmp_path):
    """Two papers have fig1.n_runs; the message used to say only instance['fig1']['n_runs']."""
    message = _config_error(tmp_path, "chaturvedi2021:\n  fig1:\n    n_runs: 0\n")
    assert (f"config key chaturvedi2021.fig1.n_runs (paper chaturvedi2021; set in {tmp_path / 'mine.yaml'}): "
            "0 is less than the minimum") in message, message
    # a key the file does not set is traced to the file that does (here the Snakefile's config file)
    message = _config_error(tmp_path, "chaturvedi2021:\n  fig1:\n    m: 100\n", {"chaturvedi2021": {"eps": -1}})
    assert "config key chaturvedi2021.eps (paper chaturvedi2021; set in --config on the command line)" in message
    # a paper's cross-key check, too
    message = _config_error(tmp_path, "shariff2018:\n  exp1:\n    n: 1000\n    n_rounds: 2000\n")
    assert "paper shariff2018: " in message and f"set in {tmp_path / 'mine.yaml'}" in message, message


def test_a_yaml_syntax_error_names_the_file_and_the_line(tmp_path):
    message = _config_error(tmp_path, "shariff2018:\n  fig1: {d: 3, K: 1000\n  exp1:\n    n: 5\n")
    assert f"config file {tmp_path / 'mine.yaml'}, line 3" in message and "starts on line 2" in message, message


def test_an_unknown_key_is_named_with_the_nearest_names(tmp_path):
    """`scael: smoke` was reported as a type error (every unknown top-level key was taken for a paper)."""
    message = _config_error(tmp_path, "scael: smoke\n")
    assert "unknown key scael" in message and "did you mean scale?" in message, message
    message = _config_error(tmp_path, "chaturvedi2021:\n  fig1:\n    n_run: 5\n")
    assert "config key chaturvedi2021.fig1.n_run (paper chaturvedi2021" in message, message
    assert "unknown key n_run, did you mean n_runs?" in message, message


def test_numbers_in_scientific_notation_are_numbers_where_the_schema_wants_one(tmp_path):
    """YAML 1.1 reads 1e-3 and 1e12 as strings; they were rejected as 'not of type number'."""
    from privopt.pipeline.config import coerce_numbers, load_config as load

    path = tmp_path / "sci.yaml"
    path.write_text("privacy_audit: {alpha: 1e-3}\nshariff2018:\n  exp1: {n: 1e5, n_rounds: 2.5e4}\n"
                    "  exp3: {gaps: [0.0, 1e-1]}\n")
    assert yaml.safe_load(path.read_text())["privacy_audit"]["alpha"] == "1e-3"  # what YAML gives
    config = load([path], base=REPO / "config/config.yaml", schemas=REPO / "workflow/schemas")
    assert config["privacy_audit"]["alpha"] == 0.001
    assert config["shariff2018"]["exp1"]["n"] == 100_000 and isinstance(config["shariff2018"]["exp1"]["n"], int)
    assert config["shariff2018"]["exp1"]["n_rounds"] == 25_000 and config["shariff2018"]["exp3"]["gaps"] == [0.0, 0.1]
    # where the schema wants a string, a string it stays (and an error names it)
    doc = {"scale": "1e3", "uber_sha256": "1e3"}
    assert coerce_numbers(doc, yaml.safe_load((REPO / "workflow/schemas/config.schema.yaml").read_text())) == []
    assert doc == {"scale": "1e3", "uber_sha256": "1e3"}
    # a number that breaks a bound is reported as the number
    assert "0.5 is greater than or equal to the maximum of 0.5" in _config_error(tmp_path, "privacy_audit: {alpha: 5e-1}\n")


def test_config_sources_say_which_file_set_a_key(tmp_path):
    from privopt.pipeline.config import ConfigSources

    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text("x: {y: 1, z: 2}\n")
    b.write_text("x: {y: 3}\n")
    sources = ConfigSources([a, b], {"w": 1})
    assert sources.origin(("x", "y")) == str(b) and sources.origin(("x", "z")) == str(a)
    assert sources.origin(("x", "q")) == str(b)  # the last file that has its section
    assert sources.origin(("w",)) == "--config on the command line"
    assert sources.origin(("v",)) == "the schema's default"


# ----------------------------------------------------------------------------- config messages (the workflow)


@needs_subset
def test_the_workflow_accepts_scientific_notation_and_names_typos_and_yaml_errors(tmp_path):
    work = copy_workflow(tmp_path / "wf")
    sci = tmp_path / "sci.yaml"
    sci.write_text("privacy_audit: {alpha: 1e-3}\nshariff2018:\n  exp1: {n: 1e5}\n")
    assert "shariff2018_runs_exp1" in planned_jobs(snakemake(work, "-n", "--configfile", str(sci), *data_config()))
    typo = tmp_path / "typo.yaml"
    typo.write_text("scael: smoke\n")
    proc = snakemake(work, "-n", "--configfile", str(typo), *data_config(), check=False)
    message = proc.stdout + proc.stderr
    assert proc.returncode != 0 and f"unknown key scael (set in {typo}), did you mean scale?" in message, message[-3000:]
    # a YAML syntax error in the Snakefile's own config file: Snakemake's message named neither file nor line
    cfg = work / "config/config.yaml"
    cfg.write_text(cfg.read_text().replace("scale: quick", "scale: [quick"))
    proc = snakemake(work, "-n", *data_config(), check=False)
    message = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "config file config/config.yaml, line" in message, message[-3000:]


@needs_subset
def test_the_cost_guard_refuses_a_job_out_of_reach_before_any_job_runs(tmp_path):
    """n = n_rounds = 10^12 validated, and the job then tried to allocate 15 GiB; the only sign was a
    dry-run 'mem=3.2 TB'.  Now the dry run refuses it, naming the estimate and the key that drives it."""
    work = copy_workflow(tmp_path / "wf")
    huge = tmp_path / "huge.yaml"
    huge.write_text("shariff2018:\n  exp1:\n    n: 1e12\n    n_rounds: 1e12\n")
    proc = snakemake(work, "-n", "--configfile", str(huge), *data_config(), check=False)
    message = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "would run" not in message
    assert "cost guard: run job shariff2018_runs_exp1" in message and " TB of memory" in message, message[-3000:]
    assert f"shariff2018.exp1.n_rounds = 1000000000000 (set in {huge}" in message, message[-3000:]
    # a real run refuses before its first job, also when the run jobs wait for others (download, parse,
    # instance: Snakemake asks for a job's resources only when it can schedule it; the workflow's
    # onstart asks for every planned run job's)
    big = tmp_path / "big.yaml"
    big.write_text("chaturvedi2021:\n  fig1:\n    m: 1e8\n")
    proc = snakemake(work, "--cores", "1", "chaturvedi2021_fig1", "--configfile", "config/smoke.yaml", str(big),
                     *data_config(), check=False)
    message = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "cost guard: run job chaturvedi2021_runs_fig1" in message, message[-3000:]
    assert f"chaturvedi2021.fig1.m = 100000000 (set in {big}" in message, message[-3000:]
    assert not (work / "resources").exists() and not (work / "results").exists()
    # a runtime beyond cost_guard.max_job_hours on a local run
    long = tmp_path / "long.yaml"
    long.write_text("shariff2018:\n  exp1:\n    n: 1e12\n    n_rounds: 1e8\ncost_guard: {max_job_hours: 1}\n")
    proc = snakemake(work, "-n", "--configfile", str(long), *data_config(), check=False)
    message = proc.stdout + proc.stderr
    assert "is predicted to compute for" in message and "cost_guard.max_job_hours = 1" in message, message[-3000:]
    # the user's way on
    on = tmp_path / "on.yaml"
    on.write_text("cost_guard: {enabled: false}\n")
    jobs = planned_jobs(snakemake(work, "-n", "--configfile", str(huge), str(on), *data_config()))
    assert jobs["shariff2018_runs_exp1"] > 0


def test_the_cost_guard_limits():
    from privopt.pipeline import costguard

    mem, _, seconds, _ = costguard.limits({"enabled": True, "max_mem_mb": None, "max_job_hours": 24}, local=True)
    assert mem == costguard.machine_mem_mb() > 0 and seconds == 24 * 3600
    assert costguard.limits({"enabled": True, "max_mem_mb": None, "max_job_hours": 24}, local=False)[::2] == (None, None)
    assert costguard.limits({"enabled": True, "cluster_max_mem_mb": 5000, "cluster_max_job_hours": 2},
                            local=False)[::2] == (5000, 7200.0)
    assert costguard.limits({"enabled": False, "max_mem_mb": 1}, local=True)[::2] == (None, None)


def test_the_default_profile_resumes_interrupted_runs():
    """The README says the profile redoes the outputs of jobs killed midway; profiles/default lacked it."""
    for name in ("default", "slurm"):
        assert yaml.safe_load((REPO / "profiles" / name / "config.yaml").read_text())["rerun-incomplete"] is True


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
    key = f"sha256-{digest[:16]}"
    proc = snakemake(work, "--cores", "1", f"resources/uber/{key}/pickups.parquet",
                     "--config", f"uber_source={bad}", f"uber_sha256={digest}", "uber_min_records=1", check=False)
    assert proc.returncode != 0
    log = (work / f"logs/data/{key}/uber_parse.log").read_text()
    assert "uber-raw-data-apr14.csv, line 3" in log and "not-a-number" in log and str(bad) in log, log[-2000:]
    assert not (work / f"resources/uber/{key}/pickups.parquet").exists()


# Every keyword a schema of this workflow may use (JSON Schema 2020-12, the ones that take a subschema or a
# value); anything else is a typo or a YAML flow mapping split by a comma in an unquoted description.
SCHEMA_KEYWORDS = {
    "$schema", "$id", "$ref", "$defs", "$comment", "title", "description", "default", "examples", "type", "enum",
    "const", "properties", "additionalProperties", "required", "patternProperties", "propertyNames", "items",
    "prefixItems", "minItems", "maxItems", "uniqueItems", "contains", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern", "format", "oneOf", "anyOf", "allOf",
    "not", "if", "then", "else", "unevaluatedProperties", "unevaluatedItems", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas",
}


def _subschemas(node, path):
    """Every subschema of a schema with its path (properties, $defs, items, the branches of oneOf, ...)."""
    yield path, node
    for key in ("properties", "$defs", "patternProperties", "dependentSchemas"):
        for name, sub in (node.get(key) or {}).items():
            yield from _subschemas(sub, f"{path}.{name}")
    for key in ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"):
        if isinstance(node.get(key), dict):
            yield from _subschemas(node[key], f"{path}.{key}")
    for key in ("oneOf", "anyOf", "allOf", "prefixItems"):
        for i, sub in enumerate(node.get(key) or []):
            yield from _subschemas(sub, f"{path}.{key}[{i}]")


@pytest.mark.parametrize("schema", sorted(p.name for p in (REPO / "workflow/schemas").glob("*.schema.yaml")))
def test_every_schema_uses_only_schema_keywords_and_string_descriptions(schema):
    """shariff2018.schema.yaml had ``description: Independent runs per (reward model, d) (paper 100).`` in a
    flow mapping: the comma ended the description and made ``d) (paper 100).`` a key."""
    doc = yaml.safe_load((REPO / "workflow/schemas" / schema).read_text())
    for path, node in _subschemas(doc, schema.split(".")[0]):
        assert isinstance(node, dict), path
        assert set(node) <= SCHEMA_KEYWORDS, f"{path}: not schema keywords: {sorted(set(node) - SCHEMA_KEYWORDS)}"
        if "description" in node:
            assert isinstance(node["description"], str) and node["description"].strip(), path
