"""The Snakemake workflow: lint, config validation, dry runs, and the smoke pipeline end to end.

The end-to-end tests run every registered paper, plus the toy paper of ``tests/toy_paper`` (added to
the workflow copy by adding its files, nothing else), on config/smoke.yaml against the shared data
subset with --cores 2 (the toy's tables again with --cores 1), and check identical tables, caching (a
second call has nothing to do) and the rerun scope: a notebook edit reruns only its figure, a new grid
point plans only its run jobs, a key no run reads plans no run job, and a library edit reruns exactly
the runs of the experiments whose code imports it.  What the workflow does for every paper alike is
checked on the toy paper; what a real paper's declaration makes of it (its settings whitelists, its
schema, its checks) is in that paper's tests (tests/test_<paper>.py).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import stat
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from privopt.pipeline.provenance import file_sha256
from privopt.pipeline.config import load_config
from workflow_runs import (
    CONFIG,
    REPO,
    SCHEDULING_PAPERS,
    SMOKE,
    SMOKE_LOGS,
    SMOKE_REPORT,
    SUBSET,
    SUBSET_CHECK,
    SUBSET_DIR,
    SUBSET_SHA256,
    TOY_LOGS,
    TOY_ROOT,
    assert_same_results,
    copy_workflow,
    data_config,
    load_toy_config,
    needs_subset,
    of_papers,
    planned_jobs,
    registry_files,
    result_files,
    snakemake,
    table_targets,
    toy_files,
    toy_in_process,
    toy_schemas,
)

def test_lint_is_clean():
    proc = snakemake(REPO, "--lint", *data_config())
    assert "Congratulations" in proc.stdout + proc.stderr


@needs_subset
def test_dry_run_of_a_fresh_copy_plans_every_paper(tmp_path):
    """Every registered paper's runs, tables, figures and claims are planned, and the report."""
    work = copy_workflow(tmp_path / "wf", toy=True)
    jobs = planned_jobs(snakemake(work, "-n", *data_config()))
    from privopt.pipeline.registry import papers as registered

    papers = registry_files(work)
    assert set(papers) == {*registered(), "toy"}
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
            from privopt.pipeline.registry import papers  # the copy's, with the toy paper

            run_rules = {f"{key}_runs_{exp.name}" for key, paper in papers().items() for exp in paper.experiments}
    finally:
        for name in [k for k in sys.modules if k.startswith("privopt")]:
            del sys.modules[name]
        sys.modules.update(ours)
    assert cluster == {r for r in rules if re.fullmatch(r"\w+_runs_\w+", r)} == run_rules, cluster
    assert {"toy_runs_laplace", "toy_runs_repeat"} <= cluster
    profile = yaml.safe_load((REPO / "profiles/slurm/config.yaml").read_text())
    assert profile["executor"] == "slurm" and profile["cores"] == 1 and "groups" not in profile
    assert set(profile["group-components"]) == {"runs_short", "runs_medium"}


def test_the_toy_paper_adds_files_only_where_a_paper_declares_itself():
    """The guard that adding a paper stays cheap: its package (captions included: no .rst files), notebooks,
    schema and config parts."""
    allowed = [r"src/privopt/experiments/toy/[\w/]+\.py", r"workflow/notebooks/toy_\w+\.py\.ipynb",
               r"workflow/schemas/toy\.schema\.yaml", r"config/toy/\w+\.yaml",  # its parts of the scales' files
               r"src/privopt/datasets/toy/\w+\.py"]  # its data set (tests/test_datasets.py)
    files = [str(p) for p in toy_files()]
    assert files and all(any(re.fullmatch(a, f) for a in allowed) for f in files), files
    assert not any((REPO / f).exists() for f in files)


@pytest.fixture(scope="module")
def toy_copy(tmp_path_factory):
    """A copy of the workflow with the toy paper, for dry runs (which write nothing in it)."""
    return copy_workflow(tmp_path_factory.mktemp("toy"), toy=True)


@pytest.mark.parametrize(
    "override, key",
    [
        ({"toy": {"n": 1}}, "config key toy.n (paper toy"),  # a bound of the paper's schema
        ({"toy": {"repeat": {"ks": [1, 0]}}}, "config key toy.repeat.ks[1] (paper toy"),  # in a list of a subsection
        ({"toy": {"repeat": {"k": [1]}}}, "unknown key k, did you mean ks?"),
        ({"toy": {"n": 3}}, "paper toy: config key toy.n = 3"),  # the paper's cross-key check
        ({"toy": "none"}, "config key toy (paper toy"),  # a section that is no mapping
        ({"privacy_audit": {"samples": 10**12}}, "privacy_audit.samples = 1000000000000"),  # an audit job's price
        ("uber_sha256=xyz", "config key uber_sha256"),
        ("uber_source=/nonexistent/pickups.csv", "uber_source"),
        ("bogus_key=1", "bogus_key"),
    ],
)
def test_bad_config_is_rejected_before_any_job(override, key, tmp_path, toy_copy):
    """(Each paper's tests check its own schema and cross-key checks through the same load_config.)"""
    args = ["-n", "--configfile", "config/config.yaml"]
    if isinstance(override, dict):
        bad = tmp_path / "bad.yaml"
        bad.write_text(yaml.safe_dump(override))
        args.append(str(bad))
    args += ["--config", f"uber_source={SUBSET}", f"uber_sha256={SUBSET_SHA256}"]
    if isinstance(override, str):
        args.append(override)
    proc = snakemake(toy_copy, *args, check=False)
    assert proc.returncode != 0
    message = proc.stdout + proc.stderr
    assert key in message, message[-3000:]
    assert "Job stats" not in message
    # and where it was set: the file, or --config
    assert f"set in {bad}" in message if isinstance(override, dict) else "set in --config" in message, message[-3000:]


@pytest.fixture(scope="module")
def smoke_runs(tmp_path_factory, smoke_run_two_cores):
    """The smoke pipeline run from scratch with 2 cores (everything), and with 1 core the tables, claims
    and audits of SCHEDULING_PAPERS, the toy paper (the figures and the report read only those, and take
    most of the time; why the toy: workflow_runs)."""
    work = copy_workflow(tmp_path_factory.mktemp("cores1"), toy=True)
    snakemake(work, "--cores", "1", *table_targets(work), "--configfile", "config/smoke.yaml", *data_config())
    return {1: work, 2: smoke_run_two_cores}


@pytest.mark.slow
def test_smoke_pipeline_produces_every_output(smoke_runs):
    work = smoke_runs[2]
    expected = [f for files in registry_files(work).values() for f in files]
    expected += [f"{SUBSET_DIR}/pickups.parquet", f"{SMOKE_REPORT}/index.html", f"{SMOKE}/audit/audits.csv"]
    for rel in expected:
        assert (work / rel).is_file() and (work / rel).stat().st_size > 0, rel
    provenance = json.loads((work / f"{SUBSET_DIR}/provenance.json").read_text())
    assert provenance["records"] == 99_997 and not provenance["canonical"]
    executed = json.loads((work / f"{TOY_LOGS}/notebooks/toy_fig1.ipynb").read_text())
    assert any(cell.get("outputs") for cell in executed["cells"] if cell["cell_type"] == "code")
    # every executed notebook shows its figure (privopt.plotting.save displays the saved PNG), although the
    # notebooks draw with the Agg backend
    for path in sorted([*(work / SMOKE_LOGS).glob("notebooks/*.ipynb"), *(work / SMOKE_LOGS).glob("*~*/notebooks/*.ipynb")]):
        cells = json.loads(path.read_text())["cells"]
        images = [o for c in cells if c["cell_type"] == "code" for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
        assert images, f"{path.name}: no figure among its outputs"
    for paper, ids in {"chaturvedi2021": {"F1.a", "F1.b", "F1.c", "F2.a", "F2.b", "F2.d"},
                       "shariff2018": {"F1.a", "F2.a", "F3.a", "F4.a", "F4.f", "F5.a", "F5.b", "S.1", "S.2"},
                       "toy": {"F1.a", "F2.a"}}.items():
        claims = pd.read_csv(work / next(f for f in registry_files(work)[paper] if f.endswith(f"/claims/{paper}.csv")))
        assert set(claims["verdict"]) <= {"reproduced", "not reproduced", "inconclusive at this scale"}, paper
        assert ids <= set(claims["claim"]) and (claims["scale"] == "smoke").all(), paper
    # the toy's claims hold by construction (E|Lap(b)| = b, Var Lap(b) = 2b²): a pipeline that mangles its
    # tables fails them
    assert set(pd.read_csv(work / f"{TOY_ROOT}/claims/toy.csv")["verdict"]) == {"reproduced"}
    record = json.loads((work / f"{TOY_ROOT}/toy/tables/laplace.provenance.json").read_text())
    assert record["environment"]["packages"]["numpy"] and record["code_digest"]["runs"]
    assert record["tables"] == [f"{TOY_ROOT}/toy/tables/{t}" for t in ("fig1.csv", "fig1_runs.parquet")]
    # and the checks of the data its runs read (none for the laplace runs; the data runs read the toy data set)
    assert record["data"] == {} and json.loads((work / f"{TOY_ROOT}/toy/tables/data.provenance.json").read_text())[
        "data"] == {"toy": "generated-v1"}
    # the record says what ran (per point, the settings its runs read) and holds each table's sha256
    assert record["scale"] == "smoke" and record["runs"] and all(r["settings"] for r in record["runs"])
    assert {t: file_sha256(work / t) for t in record["tables"]} == record["sha256"]
    audits = pd.read_csv(work / f"{SMOKE}/audit/audits.csv")
    from privopt.pipeline.registry import papers

    audited = {key for key, files in registry_files(work).items() if f"{SMOKE}/audit/{key}.csv" in files}
    assert audited == {key for key, paper in papers().items() if paper.audits} and audited
    assert set(audits["paper"]) == audited
    assert {"correct", "planted"} <= set(audits["variant"]) <= {"correct", "planted", "subtle"}
    assert (audits.loc[audits["variant"] == "correct", "result"] == "pass").all()  # no violation, even on few samples
    html = (work / f"{SMOKE_REPORT}/index.html").read_text()
    assert "Original caption" in html and "F1.c" in html and "data:image/png;base64," in html
    assert "Privacy audits" in html and "tree_wishart" in (work / f"{SMOKE_REPORT}/audits.html").read_text()
    assert "The Laplace mechanism for a mean" in html  # the toy paper's section
    # Readable by others (a web server, a colleague on a shared file system), not 0600.
    assert (work / f"{SMOKE_REPORT}/index.html").stat().st_mode & stat.S_IROTH
    # No temporary files left behind anywhere.
    assert not [p for p in (work / "results").rglob("*.tmp")]


@pytest.mark.slow
def test_snakemake_report_is_built(smoke_runs):
    work = smoke_runs[2]
    snakemake(work, "--report", "report.html", "--configfile", "config/smoke.yaml", *data_config())
    html = (work / "report.html").read_text(errors="replace")
    assert "toy" in html and "fig1.png" in html


@pytest.mark.slow
def test_every_table_is_identical_with_one_and_two_cores(smoke_runs):
    one = result_files(smoke_runs[1])
    two = {rel: path for rel, path in result_files(smoke_runs[2]).items() if of_papers(rel)}
    assert set(one) == set(two) and len(one) > 10
    for paper in SCHEDULING_PAPERS:
        assert any(rel.startswith(f"{TOY_ROOT}/{paper}/tables/") for rel in one), paper
    for exp in ("laplace", "repeat"):  # two experiments, each with several points × two seed blocks
        assert len([rel for rel in one if rel.startswith(f"{TOY_ROOT}/toy/runs/{exp}/")]) >= 4, exp
    assert_same_results(one, two)


#: tests that run Snakemake on a workflow copy of their own (not the smoke run): a group of their own, which the
#: other xdist worker can take while this module's worker builds the smoke run (tests/conftest.py)
OWN_COPY = pytest.mark.xdist_group("tests/test_workflow.py::own-copies")


def _put(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` in one step (a sibling file renamed over it): the smoke run, which these tests
    edit and put back, is read meanwhile by other workers' tests (tests/conftest.py), which must never see a
    half-written source."""
    part = path.with_name(path.name + ".part")
    part.write_text(text)
    part.replace(path)


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

    # Editing a figure notebook reruns that figure (its rendered notebook and the report that embeds it), nothing else.
    nb = work / "workflow/notebooks/toy_fig1.py.ipynb"
    text, stamp = nb.read_text(), nb.stat()
    doc = json.loads(text)
    doc["cells"][-1]["source"] = "".join(doc["cells"][-1]["source"]) + "\n# restyled\n"
    _put(nb, json.dumps(doc, indent=1))
    assert planned_jobs(snakemake(work, "-n", *base)) == {"toy_fig1_plot": 1, "toy_notebooks_html": 1, "report_html": 1, "all": 1}
    _put(nb, text)
    os.utime(nb, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # Snakemake reruns a notebook by its mtime

    # Changing a key of one experiment in the config file reruns only that experiment's runs (and what
    # reads them); putting the file back plans nothing.
    cfg = work / "config/smoke.yaml"
    original = cfg.read_text()
    _put(cfg, original + "\ntoy:\n  repeat:\n    eps: 2.0\n")
    jobs = planned_jobs(snakemake(work, "-n", *base))
    assert _runs(jobs) == {"toy_runs_repeat": 2 * 2}  # 2 values of k × 2 seed blocks
    assert {"toy_tables_repeat", "toy_claims"} <= set(jobs) and "toy_tables_laplace" not in jobs
    _put(cfg, original)
    assert planned_jobs(snakemake(work, "-n", *base)) == {}


@pytest.mark.slow
@pytest.mark.parametrize("edit, expected", [
    # a new grid point: only its run jobs (its two seed blocks), nothing reruns
    ({"toy": {"eps": [0.5, 1.0, 2.0, 4.0]}}, {"toy_runs_laplace": 2}),
    ({"toy": {"repeat": {"ks": [1, 4, 8]}}}, {"toy_runs_repeat": 2}),
    # a key no run reads (the claims' tolerance): no run job
    ({"toy": {"claim_sems": 4}}, {}),
    # a key every run of one experiment reads: exactly those runs
    ({"toy": {"repeat": {"eps": 2.0}}}, {"toy_runs_repeat": 4}),
    # a key the runs of both experiments read: all of them
    ({"toy": {"n": 200}}, {"toy_runs_laplace": 6, "toy_runs_repeat": 4}),
])
def test_config_edits_plan_only_the_run_jobs_that_read_them(smoke_runs, tmp_path, edit, expected):
    """Snakemake plans exactly the run files the edited config names and the finished runs lack (the real
    papers' settings whitelists are checked in their own tests with workflow_runs.run_jobs_planned_by)."""
    extra = tmp_path / "edit.yaml"
    extra.write_text(yaml.safe_dump(edit))
    jobs = planned_jobs(snakemake(smoke_runs[2], "-n", "--configfile", "config/smoke.yaml", str(extra), *data_config()))
    assert _runs(jobs) == expected, jobs


@pytest.mark.slow
@needs_subset
@OWN_COPY
def test_scales_and_settings_keep_their_results_and_a_hand_edited_table_is_caught(tmp_path):
    """Results of another scale or another setting are never overwritten nor deleted, by a run or by a
    failed attempt; switching back plans nothing; a table changed by hand fails before anything reads it."""
    work = copy_workflow(tmp_path / "wf", toy=True)
    base = ["--configfile", "config/smoke.yaml", *data_config()]
    snakemake(work, "--cores", "2", "toy", *base)
    smoke = {rel: path.read_bytes() for rel, path in result_files(work).items() if "/toy/" in rel}
    assert smoke and all(rel.startswith(f"{TOY_ROOT}/toy/") for rel in smoke)

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
    assert {rel: after.get(rel) for rel in smoke if "/runs/" in rel} == {rel: b for rel, b in smoke.items() if "/runs/" in rel}
    # (the repeat runs, which never fail, ran for n = 999 beside them; the failed laplace runs left nothing)
    assert not [rel for rel in after if rel not in smoke and "/toy/runs/laplace/" in rel]
    # the planted line changed the runs' code: put it back, and the first setting plans nothing again
    runs_py.write_text(runs_py.read_text().replace('    if n == 999:\n        raise RuntimeError("planted failure")\n', ""))
    assert planned_jobs(snakemake(work, "-n", "toy", *base)) == {}

    # a config file that changes nothing, or the files in another order: nothing to do (the list of config
    # files is no job parameter; it was the check jobs' parameter, and 64 jobs reran)
    same = tmp_path / "same.yaml"
    same.write_text("scale: smoke\n")
    for files in (["config/smoke.yaml", str(same)], [str(same), "config/smoke.yaml"]):
        assert planned_jobs(snakemake(work, "-n", "toy", "--configfile", *files, *data_config())) == {}, files

    # a table changed by hand: its check fails naming it and a command that regenerates it (the old one
    # had two --configfile options, of which Snakemake keeps the last: it planned another scale)
    table = work / TOY_ROOT / "toy/tables/fig1.csv"
    table.write_text(table.read_text().replace(",", ", ", 1))
    proc = snakemake(work, "--cores", "1", "toy", *base, check=False)
    log = (work / TOY_LOGS / "toy/tables/laplace.check.log").read_text()
    assert proc.returncode != 0 and f"{TOY_ROOT}/toy/tables/fig1.csv: its sha256" in log, log[-2000:]
    hint = shlex.split(re.search(r"regenerate it with `([^`]+)`", log).group(1))
    assert hint[:2] == ["snakemake", "toy_tables_laplace"] and hint.count("--configfile") == 1, hint
    snakemake(work, *hint[1:])
    assert table.read_bytes() == smoke[f"{TOY_ROOT}/toy/tables/fig1.csv"]
    snakemake(work, "--cores", "1", "toy", *base)

    # an edit that keeps the modification time, then a reader forced to rerun: the reader compares the
    # table with its check by content and refuses it (it used to pass the edited value into the claims)
    stat_before = table.stat()
    header, first, rest = table.read_text().split("\n", 2)
    last = max(i for i, ch in enumerate(first) if ch in "12345678")  # the last digit of a value, one up
    table.write_text(f"{header}\n{first[:last]}{int(first[last]) + 1}{first[last + 1:]}\n{rest}")
    os.utime(table, ns=(stat_before.st_atime_ns, stat_before.st_mtime_ns))
    proc = snakemake(work, "--cores", "1", "toy", "--forcerun", "toy_claims", *base, check=False)
    log = (work / TOY_LOGS / "toy/claims.log").read_text()
    assert proc.returncode != 0 and f"{TOY_ROOT}/toy/tables/fig1.csv: its sha256" in log, log[-2000:]
    snakemake(work, *shlex.split(re.search(r"regenerate it with `([^`]+)`", log).group(1))[1:])
    assert table.read_bytes() == smoke[f"{TOY_ROOT}/toy/tables/fig1.csv"]

    # a run file lost beneath the tables made from it (Snakemake deletes a job's outputs when it starts it, so a
    # run job killed during a --forcerun left it missing): the next run computes it again, and what reads it
    # (it said "Nothing to be done", rerun-incomplete or not)
    lost = next(work / rel for rel in sorted(smoke) if "/toy/runs/laplace/" in rel)
    lost.unlink()
    plan = planned_jobs(snakemake(work, "-n", "toy", *base))
    assert plan.get("toy_runs_laplace") == 1 and plan.get("toy_tables_laplace") == 1, plan
    snakemake(work, "--cores", "1", "toy", *base)
    assert lost.is_file() and planned_jobs(snakemake(work, "-n", "toy", *base)) == {}


@pytest.fixture(scope="module")
def every_run_job(smoke_runs):
    """Run jobs per run rule of the smoke configuration (a dry run with --forceall)."""
    return _runs(planned_jobs(snakemake(smoke_runs[2], "-n", "--forceall", "--configfile", "config/smoke.yaml",
                                        *data_config())))


@pytest.mark.slow
@pytest.mark.parametrize("module, rules", [
    # the toy's repeat runs import privopt.mechanisms.accounting, its laplace runs do not (the toy's
    # target only: the Chaturvedi runs import it too)
    ("src/privopt/mechanisms/accounting.py", {"toy_runs_repeat"}),
    # the toy's own module of the laplace runs and of the runs on its data set (not of the repeat runs)
    ("src/privopt/experiments/toy/runs.py", {"toy_runs_laplace", "toy_runs_data"}),
    # privopt.seeding keys every stream: every run of every paper
    ("src/privopt/seeding.py", None),
])
def test_a_library_edit_reruns_exactly_the_runs_whose_code_imports_it(smoke_runs, every_run_job, module, rules):
    """(Which library modules each real paper's runs import: tests/test_protocol.py, the code closures.)"""
    expected = {rule: n for rule, n in every_run_job.items() if rules is None or rule in rules}
    assert {"toy_runs_laplace": 6, "toy_runs_repeat": 4}.items() <= every_run_job.items()
    work = smoke_runs[2]
    base = ["-n", *([] if rules is None else ["toy"]), "--configfile", "config/smoke.yaml", *data_config()]
    path = work / module
    original = path.read_text()
    try:
        _put(path, original + "\n# a comment and a docstring change nothing that runs\n")
        assert _runs(planned_jobs(snakemake(work, *base))) == {}
        _put(path, original + "\n_CODE_CHANGE = 1\n")
        assert _runs(planned_jobs(snakemake(work, *base))) == expected
    finally:
        _put(path, original)


@pytest.mark.slow
def test_a_plotting_edit_redraws_the_figures_and_reruns_no_experiment(smoke_runs):
    """Plot jobs carry the digest of the privopt code their notebook imports (privopt.plotting): editing the
    style redraws the figures (and what reads them), never a run, a table or a claim."""
    work = smoke_runs[2]
    base = ["-n", "toy", "--configfile", "config/smoke.yaml", *data_config()]
    path = work / "src/privopt/plotting/palette.py"
    original = path.read_text()
    try:
        _put(path, original + "\n_CODE_CHANGE = 1\n")
        planned = planned_jobs(snakemake(work, *base))
        assert planned.get("toy_fig1_plot") == 1
        assert not [rule for rule in planned if "_runs_" in rule or "_tables_" in rule or rule.endswith("_claims")]
    finally:
        _put(path, original)


@needs_subset
@OWN_COPY
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
@OWN_COPY
def test_a_failed_source_leaves_the_verified_data_and_switching_back_plans_nothing(tmp_path):
    """The data lives under the name of the check it passed: a wrong sha256, a truncated file and an
    unreachable URL (the offline default) each fail in a folder of their own, the verified subset and its
    provenance stay as they were, and the subset's config plans nothing (it used to delete them, and
    after restoring them byte for byte every job downstream replanned: "Params have changed")."""
    work = copy_workflow(tmp_path / "wf")
    # an instance lies under the check of the data it was built from (results/<scale>/uber~<check>/)
    instances = "results/quick/uber~{}/chaturvedi2021/instances".format
    target = f"{instances(SUBSET_CHECK)}/fig1/instance.json"
    snakemake(work, "--cores", "1", target, *data_config())
    verified = _tree(work / SUBSET_DIR)
    assert set(verified) == {"uber-raw-data-apr14.csv", "provenance.json", "pickups.parquet"}
    instance = _tree(work / instances(SUBSET_CHECK))

    truncated = tmp_path / "truncated.csv"
    truncated.write_bytes((work / SUBSET_DIR / "uber-raw-data-apr14.csv").read_bytes()[:5000])
    attempts = {
        "wrong sha256": ("sha256-" + "f" * 16, ["--config", f"uber_source={SUBSET}", "uber_sha256=" + "f" * 64]),
        "truncated file": ("canonical-e8af4b8e0c4adb58", ["--config", f"uber_source={truncated}"]),
        "offline URL": ("canonical-e8af4b8e0c4adb58",
                        ["--config", "uber_source=https://nonexistent.invalid/uber-raw-data-apr14.csv"]),
    }
    for what, (check, args) in attempts.items():
        if what != "wrong sha256":  # the canonical check's folder may have been left by the previous attempt
            shutil.rmtree(work / "resources/uber/canonical-e8af4b8e0c4adb58", ignore_errors=True)
        proc = snakemake(work, "--cores", "1", f"{instances(check)}/fig1/instance.json", *args, check=False)
        assert proc.returncode != 0 and "No rule to produce" not in proc.stdout + proc.stderr, what
        assert _tree(work / SUBSET_DIR) == verified, what
        assert _tree(work / instances(SUBSET_CHECK)) == instance, what
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


def _small_uber_file(dest: Path, records: int) -> str:
    """The first ``records`` records of the subset as a valid Uber CSV at ``dest``; its sha256."""
    import gzip
    import hashlib

    with gzip.open(SUBSET, "rt") as f:
        lines = [next(f) for _ in range(records + 1)]
    dest.write_text("".join(lines))
    return hashlib.sha256(dest.read_bytes()).hexdigest()


def _planned(proc) -> dict[str, list[tuple[list[str], list[str]]]]:
    """Per rule, the (inputs, outputs) of each job a dry run prints."""
    jobs: dict[str, list[tuple[list[str], list[str]]]] = {}
    for rule, body in re.findall(r"^ *(?:local)?rule (\w+):\n((?: +\S.*\n)*)", proc.stdout + proc.stderr, re.M):
        fields = dict(re.findall(r"^ +(input|output): (.*)$", body, re.M))
        jobs.setdefault(rule, []).append(tuple(fields.get(k, "").split(", ") for k in ("input", "output")))
    return jobs


@pytest.mark.slow
@needs_subset
def test_results_of_other_data_lie_beside_and_switching_back_plans_nothing(tmp_path):
    """A valid Uber file of 150 records used to run into the subset's results/<scale>/ paths: Chaturvedi et
    al.'s tables and figure were overwritten with its numbers, and failed jobs deleted good run files.  Now
    the results of a paper that reads data lie under the check its data passed (results/<scale>/uber~<check>/):
    each data's run files and tables coexist, byte for byte and untouched; switching back plans nothing; the
    claims and the report read their own data's tables; a paper without data keeps its paths."""
    work = copy_workflow(tmp_path / "wf")
    small = tmp_path / "uber-150.csv"
    digest = _small_uber_file(small, 150)
    configs = {"subset": ["--configfile", "config/smoke.yaml", *data_config()],
               "small": ["--configfile", "config/smoke.yaml", "--config", f"uber_source={small}", f"uber_sha256={digest}"]}
    roots = {"subset": f"{SMOKE}/uber~sha256-{SUBSET_SHA256[:16]}", "small": f"{SMOKE}/uber~sha256-{digest[:16]}"}
    table = "smith2013/tables/st1.csv"

    def tree(what):
        return _tree(work / roots[what])

    snakemake(work, "--cores", "1", f"{roots['subset']}/{table}", *configs["subset"])
    subset = tree("subset")
    assert table in subset and [f for f in subset if "/runs/st1/" in f], sorted(subset)
    # the other data: its own run files and tables, beside the subset's, which stay byte for byte and untouched
    snakemake(work, "--cores", "1", f"{roots['small']}/{table}", *configs["small"])
    assert tree("subset") == subset
    small_tree = tree("small")
    assert {f for f in small_tree if "/runs/" in f or "/tables/" in f} == {f for f in subset if "/runs/" in f or "/tables/" in f}
    assert small_tree[table][0] != subset[table][0]  # other data, other numbers (both kept)
    # switching back plans nothing (and nothing of the other data either)
    for what in configs:
        assert planned_jobs(snakemake(work, "-n", f"{roots[what]}/{table}", *configs[what])) == {}, what
    # every job of each data's full plan writes only under its own namespace, or where no data is read
    plans = {what: _planned(snakemake(work, "-n", "--forceall", *configs[what])) for what in configs}
    for what, other in (("subset", "small"), ("small", "subset")):
        outputs = [o for jobs in plans[what].values() for _, outs in jobs for o in outs if o]
        assert outputs and not [o for o in outputs if o.startswith(roots[other])], what
        # the claims and the report read this data's tables
        (claims_in, claims_out), = plans[what]["smith2013_claims"]
        assert claims_out == [f"{roots[what]}/claims/smith2013.csv"]
        assert f"{roots[what]}/{table}" in claims_in
        (report_in, report_out), = plans[what]["report_html"]
        assert report_out[0] == f"{roots[what]}/paper/index.html" and f"{roots[what]}/{table}" in report_in
        assert not [f for f in report_in if f.startswith(roots[other])]
        # a paper without data (Shariff & Sheffet) and the audits keep the scale's paths, whatever the data
        assert f"{SMOKE}/shariff2018/tables/fig2.csv" in report_in and f"{SMOKE}/audit/audits.csv" in report_in
    shariff = lambda plan: sorted(o for rule, jobs in plan.items() if rule.startswith("shariff2018") for _, outs in jobs for o in outs)
    assert shariff(plans["subset"]) == shariff(plans["small"]) and shariff(plans["subset"])


@needs_subset
@OWN_COPY
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
        proc = snakemake(work, "--cores", "1", f"results/quick/uber~{key}/chaturvedi2021/instances/fig1/instance.json",
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


def test_every_registered_paper_has_a_schema_and_its_captions(tmp_path):
    from privopt.pipeline.captions import write_captions
    from privopt.pipeline.registry import papers

    for key, paper in papers().items():
        assert (REPO / "workflow/schemas" / f"{key}.schema.yaml").is_file(), key
        assert paper.claims.caption.strip(), f"{key}: Claims(caption=...) is empty"
        for fig in paper.figures:
            assert (REPO / paper.notebook(fig.id)).is_file(), paper.notebook(fig.id)
            assert fig.caption.strip(), f"{key} {fig.id}: Figure(caption=...) is empty"
    # the `snakemake --report` captions are generated from the declarations, none is written by hand
    assert not list(REPO.glob("workflow/report/*.rst"))
    written = write_captions(papers().values(), tmp_path)
    for key, paper in papers().items():
        for fig in paper.figures:
            text = Path(written[f"{key}_{fig.id}.rst"]).read_text()
            assert text.startswith(fig.caption.strip()) and "Original caption: " in text, key
            assert text.count(fig.original_caption.strip()) == 1, f"{key} {fig.id}: the original caption once"
        assert Path(written[f"{key}_claims.rst"]).read_text().strip() == paper.claims.caption.strip()
    assert "privacy_audit.rst" in written


@pytest.mark.parametrize("name", ["config.yaml", "paper.yaml", "smoke.yaml", "shared-data.yaml",
                                  "paper.yaml+shariff-reference.yaml", "paper.yaml+shariff-reference.yaml+shariff-fig5.yaml"])
def test_shipped_config_files_validate(name):
    from privopt.pipeline.registry import papers

    # the library's loading (as the workflow's): schemas, defaults, each paper's cross-key checks
    config = load_config([CONFIG / f for f in name.split("+")])
    for key, paper in papers().items():
        assert list(paper.run_jobs(config[key]))


# ----------------------------------------------------------------------------- config messages (the library)


@pytest.fixture()
def toy_config(tmp_path):
    """``load(text, overrides)``: privopt.pipeline.config.load_config of config/config.yaml and a file
    ``mine.yaml`` holding ``text``, with the toy paper registered beside the real ones."""
    schemas = toy_schemas(tmp_path / "schemas")
    with toy_in_process() as toy:
        def load(text: str, overrides=None) -> dict:
            path = tmp_path / "mine.yaml"
            path.write_text(text)
            return load_toy_config(toy, schemas, [path], overrides)

        yield load


def _config_error(load, text: str, overrides=None) -> str:
    from privopt.pipeline.errors import ConfigError

    with pytest.raises(ConfigError) as err:
        load(text, overrides)
    return str(err.value)


def test_a_schema_error_names_the_paper_the_key_path_and_the_file(tmp_path, toy_config):
    """Several papers have fig1.n_runs; the message used to say only instance['fig1']['n_runs'], whichever paper."""
    message = _config_error(toy_config, "toy:\n  repeat:\n    ks: [0]\n")
    assert (f"config key toy.repeat.ks[0] (paper toy; set in {tmp_path / 'mine.yaml'}): "
            "0 is less than the minimum") in message, message
    # a key the file does not set is traced to the source that does (here --config)
    message = _config_error(toy_config, "toy:\n  n: 100\n", {"toy": {"repeat": {"eps": -1}}})
    assert "config key toy.repeat.eps (paper toy; set in --config on the command line)" in message, message
    # a paper's cross-key check, too
    message = _config_error(toy_config, "toy:\n  n: 3\n")
    assert "paper toy: config key toy.n = 3" in message and f"set in {tmp_path / 'mine.yaml'}" in message, message


def test_a_yaml_syntax_error_names_the_file_and_the_line(tmp_path, toy_config):
    message = _config_error(toy_config, "toy:\n  repeat: {eps: 3, ks: [1]\n  n: 5\n")
    assert f"config file {tmp_path / 'mine.yaml'}, line 3" in message and "starts on line 2" in message, message


def test_an_unknown_key_is_named_with_the_nearest_names(toy_config):
    """`scael: smoke` was reported as a type error (every unknown top-level key was taken for a paper)."""
    message = _config_error(toy_config, "scael: smoke\n")
    assert "unknown key scael" in message and "did you mean scale?" in message, message
    message = _config_error(toy_config, "toy:\n  repeat:\n    k: [5]\n")
    assert "config key toy.repeat.k (paper toy" in message, message
    assert "unknown key k, did you mean ks?" in message, message


def test_numbers_in_scientific_notation_are_numbers_where_the_schema_wants_one(tmp_path, toy_config):
    """YAML 1.1 reads 1e-3 and 1e12 as strings; they were rejected as 'not of type number'."""
    from privopt.pipeline.config import coerce_numbers

    text = "privacy_audit: {alpha: 1e-3}\ntoy:\n  n: 1e3\n  eps: [5e-1, 1e0]\n  repeat: {eps: 2.5e-1}\n"
    assert yaml.safe_load(text)["privacy_audit"]["alpha"] == "1e-3"  # what YAML gives
    config = toy_config(text)
    assert config["privacy_audit"]["alpha"] == 0.001
    assert config["toy"]["n"] == 1000 and isinstance(config["toy"]["n"], int)
    assert config["toy"]["eps"] == [0.5, 1.0] and config["toy"]["repeat"]["eps"] == 0.25
    # where the schema wants a string, a string it stays (and an error names it)
    doc = {"scale": "1e3", "uber_sha256": "1e3"}
    assert coerce_numbers(doc, yaml.safe_load((REPO / "workflow/schemas/config.schema.yaml").read_text())) == []
    assert doc == {"scale": "1e3", "uber_sha256": "1e3"}
    # a number that breaks a bound is reported as the number
    assert "0.5 is greater than or equal to the maximum of 0.5" in _config_error(toy_config, "privacy_audit: {alpha: 5e-1}\n")


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
def test_the_workflow_accepts_scientific_notation_and_names_typos_and_yaml_errors(tmp_path, toy_copy):
    work = toy_copy
    sci = tmp_path / "sci.yaml"
    sci.write_text("privacy_audit: {alpha: 1e-3}\ntoy:\n  n: 1e3\n")
    assert "toy_runs_laplace" in planned_jobs(snakemake(work, "-n", "toy", "--configfile", str(sci), *data_config()))
    typo = tmp_path / "typo.yaml"
    typo.write_text("scael: smoke\n")
    proc = snakemake(work, "-n", "--configfile", str(typo), *data_config(), check=False)
    message = proc.stdout + proc.stderr
    assert proc.returncode != 0 and f"unknown key scael (set in {typo}), did you mean scale?" in message, message[-3000:]
    # a YAML syntax error in the Snakefile's own config file: Snakemake's message named neither file nor line
    cfg = work / "config/config.yaml"
    original = cfg.read_text()
    try:
        cfg.write_text(original + "\nscale: [quick\n")
        proc = snakemake(work, "-n", *data_config(), check=False)
    finally:
        cfg.write_text(original)
    message = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "config file config/config.yaml, line" in message, message[-3000:]


@needs_subset
@OWN_COPY
def test_the_cost_guard_refuses_a_job_out_of_reach_before_any_job_runs(tmp_path):
    """shariff2018.exp1.n = n_rounds = 10^12 validated, and the job then tried to allocate 15 GiB; the only
    sign was a dry-run 'mem=3.2 TB'.  Now the dry run refuses it, naming the estimate and the key that
    drives it."""
    work = copy_workflow(tmp_path / "wf", toy=True)
    huge = tmp_path / "huge.yaml"
    huge.write_text("toy:\n  n: 1e12\n")  # 8 TB of data
    proc = snakemake(work, "-n", "--configfile", str(huge), *data_config(), check=False)
    message = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "would run" not in message
    # the first toy run job whose resources Snakemake asks for is refused: laplace's data (TB of memory) or
    # repeat's runtime (days) — which one comes first is Snakemake's job order, not ours
    assert re.search(r"cost guard: run job toy_runs_(laplace|repeat) \(.*\) is predicted to "
                     r"(need [\d.,]+ TB of memory|compute for [\d,]+ days)", message), message[-3000:]
    assert f"toy.n = 1000000000000 (set in {huge}" in message, message[-3000:]
    # a real run refuses before its first job, also when the run jobs wait for others (download, parse,
    # instance: Snakemake asks for a job's resources only when it can schedule it; the workflow's
    # onstart asks for every planned run job's).  (The toy's run jobs wait for nothing: a Chaturvedi et al.
    # figure, whose run jobs wait for the data and its instance.)
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
    long.write_text("toy:\n  n: 1e8\ncost_guard: {max_job_hours: 1}\n")  # 0.8 GB; 2.2 h per repeat job at k = 4
    proc = snakemake(work, "-n", "--configfile", str(long), *data_config(), check=False)
    message = proc.stdout + proc.stderr
    assert "is predicted to compute for" in message and "cost_guard.max_job_hours = 1" in message, message[-3000:]
    # the user's way on
    on = tmp_path / "on.yaml"
    on.write_text("cost_guard: {enabled: false}\n")
    jobs = planned_jobs(snakemake(work, "-n", "toy", "--configfile", str(huge), str(on), *data_config()))
    assert jobs["toy_runs_laplace"] > 0


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


@OWN_COPY
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
