"""Reference results (privopt.pipeline.reference_results): the manifest check, the row comparison of verify,
the reproducible choice of verify jobs, the size budget, and the workflow's reference_/verify_ rules on the
toy paper; plus a check of every committed reference folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from privopt.pipeline.protocol import Claims, Experiment, Paper, Table
from privopt.pipeline.reference_results import (
    MAX_BYTES,
    ReferenceError,
    check_manifest,
    choose_verify_jobs,
    compare_rows,
    write_reference,
)
from privopt.pipeline.registry import papers
from privopt.io import write_parquet
from manifest_records import data_records
from workflow_runs import REPO, copy_workflow, data_config, needs_subset, snakemake


def _paper() -> Paper:
    exp = Experiment(name="e", label="E", points=lambda s: [{"x": x} for x in s["xs"]], settings=lambda s, p: {},
                     seeds=lambda s: (s["runs"], 2), run="m:f", tables="m:f", table_files=(Table("t.csv"),))
    return Paper(key="p", title="t", authors="a", venue="v", short="P", experiments=(exp,), figures=(),
                 claims=Claims(evaluate="m:f", inputs=("t",)))


def _write(tmp_path: Path, rows=3) -> Path:
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    pd.DataFrame({"a": range(rows), "b": [0.5] * rows}).to_csv(src / "t.csv", index=False)
    write_parquet(pd.DataFrame({"seed": [0, 1], "y": [1.0, 2.0], "wall_s": [0.1, 0.2]}), src / "run.parquet")
    folder = tmp_path / "reference" / "p"
    write_reference(folder, paper=_paper(), tables={"t.csv": src / "t.csv"},
                    verify_runs={"e/x~1/seeds~0-1.parquet": src / "run.parquet"},
                    manifest={"label": "E: 1 point × 2 runs", "config": {"xs": [1], "runs": 2}, "scale": "s",
                              "commit": "0" * 40, "dirty": False})
    return folder


def test_a_written_reference_passes_its_check_and_every_change_is_named(tmp_path):
    folder = _write(tmp_path)
    manifest = check_manifest(folder)
    assert set(manifest["files"]) == {"tables/t.csv", "runs/e/x~1/seeds~0-1.parquet"}
    assert manifest["paper"] == "p" and manifest["label"] == "E: 1 point × 2 runs" and manifest["bytes"] > 0
    table = folder / "tables" / "t.csv"
    table.write_text(table.read_text().replace("0.5", "0.6", 1))
    with pytest.raises(ReferenceError, match=r"tables/t\.csv: listed in .* but sha256 .* differs"):
        check_manifest(folder)
    folder = _write(tmp_path)  # written anew: whole again
    (folder / "tables" / "extra.csv").write_text("a\n1\n")
    with pytest.raises(ReferenceError, match="files not in its manifest.json: tables/extra.csv"):
        check_manifest(folder)
    (folder / "tables" / "extra.csv").unlink()
    (folder / "tables" / "t.csv").unlink()
    with pytest.raises(ReferenceError, match="listed in .* but missing"):
        check_manifest(folder)


def test_a_reference_over_the_size_budget_is_refused_and_the_old_one_kept(tmp_path, monkeypatch):
    folder = _write(tmp_path)
    before = {p.name: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    monkeypatch.setattr("privopt.pipeline.reference_results.MAX_BYTES", 100)
    with pytest.raises(ReferenceError, match="exceed the reference budget"):
        _write(tmp_path, rows=50)
    assert {p.name: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
    assert [p.name for p in folder.parent.iterdir()] == ["p"]  # no stage left behind
    assert MAX_BYTES == 10_000_000


def test_compare_rows_names_the_first_differing_row_and_ignores_timing():
    a = pd.DataFrame({"seed": [0, 1, 2], "y": [1.0, 2.0, float("nan")], "wall_s": [1.0, 2.0, 3.0]})
    b = a.assign(wall_s=[9.0, 9.0, 9.0])
    assert compare_rows(a, b, "job") is None  # NaN equals NaN; the time a run took is not compared
    c = b.copy()
    c.loc[1, "y"] = 2.0 + 2e-16 * 2
    assert compare_rows(a, c, "job") == ("job: 1 of 6 values differ (y 1); largest difference 1 ulp of its "
                                         "column's largest value; first: row 1, column 'y': 2.0 here, "
                                         "2.0000000000000004 in the reference")
    assert compare_rows(a, c, "job", ulps=1) is None
    assert "2 rows, the reference has 3" in compare_rows(a.iloc[:2], b, "job")
    assert "columns" in compare_rows(a.rename(columns={"y": "z"}), b, "job")


def test_verify_jobs_are_chosen_reproducibly_within_the_budget():
    paper = _paper()
    section = {"xs": [1, 2, 3, 4], "runs": 6}
    seconds = {f"e/x~{x}/{b}": 10.0 for x in range(1, 5) for b in ("0-1", "2-3", "4-5")}
    one = choose_verify_jobs(paper, section, seconds, budget_s=30, per_experiment=2)
    assert one == choose_verify_jobs(paper, section, dict(reversed(list(seconds.items()))), budget_s=30,
                                     per_experiment=2)
    assert len(one) == 2 and len({(tuple(c.job.point.items()), c.job.block) for c in one}) == 2
    assert all(c.rounds is None and c.seconds == 10.0 for c in one)
    assert choose_verify_jobs(paper, section, seconds, budget_s=5) == []  # nothing fits: nothing chosen
    assert choose_verify_jobs(paper, section, {}, budget_s=100) == []     # unmeasured jobs are never chosen


# ----------------------------------------------------------------------------- committed references


REFERENCES = sorted(p.parent for p in (REPO / "reference").glob("*/manifest.json"))


@pytest.mark.parametrize("folder", REFERENCES, ids=[p.name for p in REFERENCES])
def test_every_committed_reference_matches_its_manifest_and_says_what_ran(folder):
    manifest = check_manifest(folder)
    assert folder.name in papers() and manifest["paper"] == folder.name
    for key in ("label", "config", "commit", "cpu", "core_hours", "code_digest", "modules", "scale", "written",
                "packages"):
        assert manifest.get(key) not in (None, "", {}), key
    assert manifest["verify"], "a reference must sample run jobs for verify"
    paper = papers()[folder.name]
    # per figure, whether it is at config/paper.yaml's settings, and how it differs where not
    # every figure it holds the tables of says whether it is at the paper's settings (a figure the paper declared
    # after the reference was written, such as Shariff & Sheffet's Fig. 4e, is not in it)
    listed = set(manifest["files"])
    held = {f.id for f in paper.figures if all(f"tables/{paper.table_owner(st)[1].file}" in listed for st in f.inputs.values())}
    assert held <= set(manifest["figures"]) <= {f.id for f in paper.figures}
    assert all(f["paper_settings"] == (not f["differs"]) for f in manifest["figures"].values())
    stems = {t.file for e in paper.experiments for t in e.table_files}
    assert {rel.split("/", 1)[1] for rel in manifest["files"] if rel.startswith("tables/")} <= stems
    # the provenance record of each data set the paper reads (manifests written before data sets were
    # declarations hold the one record of its one data set)
    records = data_records(manifest["data"], paper.datasets)
    assert set(records) == set(paper.datasets)
    for data in records.values():
        assert data["source"] and data["records"] > 0
    if "uber" in records:
        assert records["uber"]["fetched_sha256"] and records["uber"]["csv_sha256"]


def test_the_references_fit_the_size_budget():
    assert sum(p.stat().st_size for p in (REPO / "reference").rglob("*") if p.is_file()) <= MAX_BYTES


# ----------------------------------------------------------------------------- the workflow's rules


@needs_subset
def test_the_committed_references_plan_their_claims_figures_and_verify(tmp_path):
    """With the committed references, a dry run plans each paper's claims on its reference, every figure
    drawn from it beside the run's own, and verify (the labels hold braces: no wildcard may be read in them)."""
    from workflow_runs import planned_jobs

    work = copy_workflow(tmp_path / "wf", reference=True)
    jobs = planned_jobs(snakemake(work, "-n", *data_config()))
    for folder in REFERENCES:
        assert jobs.get(f"{folder.name}_claims_reference") == 1, folder.name
        paper = papers()[folder.name]
        listed = json.loads((folder / "manifest.json").read_text())["files"]
        held = {f.id for f in paper.figures
                if all(f"tables/{paper.table_owner(stem)[1].file}" in listed for stem in f.inputs.values())}
        # every figure the reference holds the tables of is drawn from it; a figure added since (Shariff &
        # Sheffet's Fig. 4e) is not, and its claims read "no data" there
        assert held and all(jobs.get(f"{folder.name}_{f.id}_plot_reference") == (1 if f.id in held else None)
                            for f in paper.figures), folder.name
    assert "verify_shariff2018" in planned_jobs(snakemake(work, "-n", "verify", *data_config()))
    # a reference whose manifest, or a listed table, is missing: its jobs are still planned (to fail naming the
    # file; its claims after the report, which leaves that reference out) instead of the paper being dropped
    # from the report and verify, or the whole workflow stopping at a missing input
    (work / "reference/smith2013/manifest.json").unlink()
    table = next((work / "reference/cardoso2019/tables").iterdir())
    table.unlink()
    jobs = planned_jobs(snakemake(work, "-n", *data_config()))
    assert jobs.get("smith2013_claims_reference") == 1 and jobs.get("cardoso2019_claims_reference") == 1
    assert jobs.get("report_html") == 1 and not any(j.startswith("smith2013_") and j.endswith("plot_reference")
                                                     for j in jobs)
    verify = planned_jobs(snakemake(work, "-n", "verify", *data_config()))
    assert verify.get("verify_smith2013") == 1 and verify.get("verify_cardoso2019") == 1


@pytest.mark.slow
@needs_subset
def test_reference_rule_writes_a_folder_that_verify_passes_and_a_planted_row_fails(tmp_path):
    work = copy_workflow(tmp_path / "wf", toy=True)
    args = ["--configfile", "config/smoke.yaml", *data_config()]
    snakemake(work, "--cores", "2", "reference_toy", *args)
    folder = work / "reference" / "toy"
    manifest = check_manifest(folder)
    assert manifest["scale"] == "smoke" and manifest["verify"] and manifest["config"]["runs"]
    # today's claims code on the reference, and verify recomputing its sampled jobs
    snakemake(work, "--cores", "1", "verify_toy", "results/smoke/claims/toy.reference.csv",
              "results/smoke/figures/toy/fig1.reference.png", *args)
    # the reference figure: the figure notebook's cells, run without a kernel (privopt.plotting.cells)
    assert (work / "results/smoke/figures/toy/fig1.reference.pdf").stat().st_size > 0
    assert "toy" in (work / "logs/smoke/notebooks/toy_fig1.reference.log").read_text().lower()
    claims = pd.read_csv(work / "results/smoke/claims/toy.reference.csv")
    assert (claims["scale"] == "reference (smoke)").all() and set(claims["verdict"]) == {"reproduced"}
    about = json.loads((work / "results/smoke/claims/toy.reference.json").read_text())
    assert about["changed_modules"] == {}
    # a planted row (manifest updated too, as a reference made by other code would be): verify names it
    rel = manifest["verify"][0]["files"]["runs"]
    run = pd.read_parquet(folder / rel)
    column = next(c for c in run.columns if run[c].dtype.kind == "f" and c != "wall_s")
    run.loc[0, column] += 1.0
    write_parquet(run, folder / rel)
    from privopt.pipeline.provenance import file_sha256

    manifest_file = folder / "manifest.json"
    data = json.loads(manifest_file.read_text())
    data["files"][rel] = file_sha256(folder / rel)
    manifest_file.write_text(json.dumps(data))
    proc = snakemake(work, "--cores", "1", "verify_toy", "--forceall", *args, check=False)
    log = (work / "logs/verify/toy~generated-v1/toy.log").read_text()
    assert proc.returncode != 0 and f"{rel}" in log and f"row 0, column {column!r}" in log, log[-2000:]
    # a reference table changed by hand: the claims on the reference refuse it, naming the file
    changed = "reference/toy/tables/fig1.csv: listed in reference/toy/manifest.json but sha256"
    shutil.copy(folder / "manifest.json", tmp_path / "manifest.json")
    table = folder / "tables" / "fig1.csv"
    table.write_text(table.read_text() + "\n")
    proc = snakemake(work, "--cores", "1", "results/smoke/claims/toy.reference.csv", *args, check=False)
    log = (work / "logs/smoke/toy/claims.reference.log").read_text()
    assert proc.returncode != 0 and changed in log, log[-2000:]
    # ... and so does the reference figure drawn from it (its manifest check runs before any cell)
    proc = snakemake(work, "--cores", "1", "results/smoke/figures/toy/fig1.reference.png", *args, check=False)
    log = (work / "logs/smoke/notebooks/toy_fig1.reference.log").read_text()
    assert proc.returncode != 0 and changed in log, log[-2000:]
