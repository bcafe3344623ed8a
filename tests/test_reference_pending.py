"""A reference part in progress (privopt.pipeline.pending): finished run jobs kept under reference/pending/,
restored only where their settings and run code are today's, refused when changed by hand, removed once the
part lands.  Unit tests on small synthetic run files; the workflow test runs the toy paper's rules."""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from privopt.pipeline.pending import (MANIFEST, add_jobs, drop_landed, landing, pending_folder, pending_status,
                                      read_pending, restore, select_jobs)
from privopt.pipeline.reference_results import ReferenceError

CLEAN = {"commit": "c" * 40, "dirty": False, "cpu": "test CPU"}
RESULTS, LOGS = "results/s", "logs/s"


def _job(work: Path, block: str, value: float, settings: str = "abc123abc123") -> dict:
    """A finished run job of experiment "e" at the point x = 1, its run file and log written under ``work``."""
    run = work / RESULTS / "p" / "runs" / "e" / "x~1" / f"settings~{settings}" / f"seeds~{block}.parquet"
    log = work / LOGS / "p" / "runs" / "e" / "x~1" / f"settings~{settings}" / f"seeds~{block}.log"
    for path in (run, log):
        path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"seed": [0, 1], "y": [value, value + 1]}).to_parquet(run, index=False)
    log.write_text(f"p e x=1 seeds {block}: 2 rows in 12.50 s\n")
    return {"experiment": "e", "point": {"x": 1}, "block": block, "files": {"runs": str(run)}, "log": str(log)}


def _rel(job: dict) -> dict:
    """The job with its paths relative to the work folder (as the workflow gives them)."""
    return {**job, "files": {k: os.path.relpath(v) for k, v in job["files"].items()}, "log": os.path.relpath(job["log"])}


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _add(jobs, code="code1", total=3, **kw):
    return add_jobs(pending_folder("reference", "p", "e"), paper="p", experiment="e", jobs=[_rel(j) for j in jobs],
                    results_root=RESULTS, logs_root=LOGS, code=code, modules={"m": code}, scale="s",
                    total_jobs=total, provenance={**CLEAN, **kw})


def test_blocks_are_added_across_calls_and_restored_byte_for_byte_where_missing(work):
    first, second, third = (_job(work, b, v) for b, v in (("0-1", 1.0), ("2-3", 2.0), ("4-5", 3.0)))
    _add([first])
    manifest = _add([first, second], commit="d" * 40)  # the first job again: its record stays
    folder = pending_folder("reference", "p", "e")
    assert sorted(manifest["jobs"]) == ["p/runs/e/x~1/settings~abc123abc123/seeds~0-1.parquet",
                                        "p/runs/e/x~1/settings~abc123abc123/seeds~2-3.parquet"]
    # each job keeps its own provenance, and the seconds its log records
    commits = [j["commit"] for j in manifest["jobs"].values()]
    assert commits == ["c" * 40, "d" * 40] and manifest["core_hours"] == round(25.0 / 3600, 3)
    assert read_pending(folder) == manifest
    assert pending_status("reference", "p") == [{"experiment": "e", "done": 2, "total": 3, "core_hours": 0.007,
                                                 "code": "code1", "folder": str(folder)}]
    # a fresh checkout: the results are gone; the first job's run file comes back, the second is still there
    originals = {b: Path(j["files"]["runs"]).read_bytes() for b, j in (("0-1", first), ("2-3", second))}
    Path(first["files"]["runs"]).unlink()
    Path(first["log"]).unlink()
    out = restore(folder, jobs=[_rel(j) for j in (first, second, third)], results_root=RESULTS, logs_root=LOGS,
                  code="code1")
    assert out["restored"] == ["p/runs/e/x~1/settings~abc123abc123/seeds~0-1.parquet"]
    assert out["present"] == ["p/runs/e/x~1/settings~abc123abc123/seeds~2-3.parquet"]
    assert pd.read_parquet(first["files"]["runs"]).equals(pd.read_parquet(io.BytesIO(originals["0-1"])))
    assert "rows in 12.50 s" in Path(first["log"]).read_text()  # the log too: the part's core-hours stay whole


def test_nothing_is_restored_for_other_run_code_or_other_settings(work):
    job = _job(work, "0-1", 1.0)
    _add([job])
    folder = pending_folder("reference", "p", "e")
    Path(job["files"]["runs"]).unlink()
    out = restore(folder, jobs=[_rel(job)], results_root=RESULTS, logs_root=LOGS, code="code2")
    assert out["stale"] == ["p/runs/e/x~1/settings~abc123abc123/seeds~0-1.parquet"] and not out["restored"]
    assert not Path(job["files"]["runs"]).exists()
    # today's config has another settings key: its job is another file, the pending one is not today's
    other = _rel(job)
    other["files"] = {"runs": other["files"]["runs"].replace("abc123abc123", "ffffffffffff")}
    out = restore(folder, jobs=[other], results_root=RESULTS, logs_root=LOGS, code="code1")
    assert out["other_settings"] == ["p/runs/e/x~1/settings~abc123abc123/seeds~0-1.parquet"]
    assert not out["restored"] and not Path(job["files"]["runs"]).exists()


def test_a_part_of_other_run_code_cannot_be_extended_and_a_failed_add_leaves_it_whole(work):
    _add([_job(work, "0-1", 1.0)])
    folder = pending_folder("reference", "p", "e")
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    with pytest.raises(ReferenceError, match=r"computed with run code code1 .*modules m differ.*today's is code2"):
        _add([_job(work, "2-3", 2.0)], code="code2")
    # the same job again with other rows (same settings key, same code): not deterministic, refused
    with pytest.raises(ReferenceError, match="other run files"):
        _add([_job(work, "0-1", 5.0)])
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
    assert [p.name for p in folder.parent.iterdir()] == ["e"]  # no stage left behind


def test_a_dirty_checkout_must_say_what_was_uncommitted(work):
    with pytest.raises(ReferenceError, match="uncommitted changes"):
        _add([_job(work, "0-1", 1.0)], dirty=True)
    manifest = _add([_job(work, "0-1", 1.0)], dirty=True, changes={"changed": ["src/x.py"], "diff_sha256": "ab"})
    assert next(iter(manifest["jobs"].values()))["changes"]["changed"] == ["src/x.py"]


@pytest.mark.parametrize("tamper", ["edit", "extra", "remove"])
def test_a_pending_part_changed_by_hand_is_refused_naming_the_file(work, tamper):
    job = _job(work, "0-1", 1.0)
    _add([job])
    folder = pending_folder("reference", "p", "e")
    run = folder / "runs" / "p/runs/e/x~1/settings~abc123abc123/seeds~0-1.parquet"
    if tamper == "edit":
        frame = pd.read_parquet(run)
        frame.loc[0, "y"] += 1e-12
        frame.to_parquet(run, index=False)
        match = "seeds~0-1.parquet: listed in .* but sha256"
    elif tamper == "extra":
        (folder / "runs" / "stray.parquet").write_bytes(b"x")
        match = "files not in its pending.json: runs/stray.parquet"
    else:
        run.unlink()
        match = "seeds~0-1.parquet: listed in .* but missing"
    with pytest.raises(ReferenceError, match=match):
        read_pending(folder)
    Path(job["files"]["runs"]).unlink()
    with pytest.raises(ReferenceError, match=match):  # nothing restored from it either
        restore(folder, jobs=[_rel(job)], results_root=RESULTS, logs_root=LOGS, code="code1")
    assert not Path(job["files"]["runs"]).exists()


def test_the_landing_part_takes_the_jobs_provenance_and_only_a_complete_match_is_dropped(work):
    jobs = [_job(work, b, v) for b, v in (("0-1", 1.0), ("2-3", 2.0))]
    _add(jobs[:1])
    rel = [_rel(j) for j in jobs]
    # another code, or a landing run whose jobs do not hold the pending one: not landing (kept)
    assert landing("reference", "p", {"e": "code2"}, rel, RESULTS) == {}
    assert landing("reference", "p", {"e": "code1"}, rel[1:], RESULTS) == {}
    carried = landing("reference", "p", {"e": "code1"}, rel, RESULTS)
    (name, record), = carried["e"].items()
    assert name.endswith("seeds~0-1.parquet") and record["commit"] == "c" * 40 and "files" not in record
    assert drop_landed("reference", "p", sorted(carried)) == [str(pending_folder("reference", "p", "e"))]
    assert not Path("reference/pending").exists()  # folders left empty go too


def test_jobs_are_selected_by_block_and_point_and_an_unknown_one_is_named():
    jobs = [{"block": b, "point": {"gap": g}} for b in ("0-9", "10-19", "20-29") for g in (0.0, 0.1)]
    assert [j["block"] for j in select_jobs(jobs, ["10-19"])] == ["10-19", "10-19"]
    assert select_jobs(jobs, ["10-19"], ["gap~0.1"]) == [{"block": "10-19", "point": {"gap": 0.1}}]
    assert select_jobs(jobs) == jobs and len(select_jobs(jobs, [], ["gap~0.0"])) == 3
    with pytest.raises(ValueError, match=r"seed block\(s\) 0-8 \(the seed blocks of this config: 0-9, 10-19, 20-29\)"):
        select_jobs(jobs, ["0-8"])
    with pytest.raises(ValueError, match=r"point\(s\) gap~0.2 \(the points of this config: gap~0.0, gap~0.1\)"):
        select_jobs(jobs, [], ["gap~0.2"])


def test_the_budget_counts_the_pending_parts(work, monkeypatch):
    monkeypatch.setattr("privopt.pipeline.pending.MAX_BYTES", 100)
    with pytest.raises(ReferenceError, match="over the budget of 100 bytes"):
        _add([_job(work, "0-1", 1.0)])
    assert not pending_folder("reference", "p", "e").exists()


def test_the_committed_pending_parts_are_whole():
    """Every part in progress committed under reference/pending/ reads (its files as recorded)."""
    root = Path(__file__).resolve().parents[1] / "reference" / "pending"
    for folder in sorted(root.glob("*/*")) if root.is_dir() else []:
        manifest = read_pending(folder)
        assert manifest and manifest["jobs"] and len(manifest["jobs"]) <= manifest["total_jobs"], folder
        assert (folder / MANIFEST).is_file()


@pytest.mark.slow
def test_a_part_lands_block_by_block_across_fresh_checkouts(tmp_path):
    """The toy paper's reference computed in three sittings: the data experiment's job and the first seed block
    of the Laplace experiment go to reference/pending/, the results are lost (a fresh checkout), the resume
    brings them back (after the instance they read), and the reference write then computes only the other
    block, lands the part with the pending jobs' provenance and removes the pending folders."""
    from workflow_runs import copy_workflow, planned_jobs, snakemake

    work = copy_workflow(tmp_path / "wf", toy=True)
    args = ["--configfile", "config/smoke.yaml"]
    snakemake(work, "--cores", "2", "reference_pending_toy", *args, "--config", "reference_part=[data]")
    snakemake(work, "--cores", "2", "reference_pending_toy", *args, "--config", "reference_part=[laplace]",
              "reference_blocks=[0-19]")
    status = {s["experiment"]: (s["done"], s["total"]) for s in pending_status(work / "reference", "toy")}
    assert status == {"data": (1, 1), "laplace": (3, 6)}
    kept = {p.relative_to(work): pd.read_parquet(p) for p in (work / "results").rglob("seeds~0-19.parquet")}
    assert len(kept) == 3
    for name in ("results", "logs", ".snakemake"):  # a fresh checkout: only the committed pending parts
        shutil.rmtree(work / name)
    snakemake(work, "--cores", "2", "reference_resume_toy", *args)
    back = {p.relative_to(work): pd.read_parquet(p) for p in (work / "results").rglob("seeds~0-19.parquet")}
    assert back.keys() == kept.keys() and all(back[k].equals(kept[k]) for k in kept)  # the same values, compact
    planned = planned_jobs(snakemake(work, "-n", "reference_toy", *args))
    assert planned.get("toy_runs_laplace") == 3 and "toy_runs_data" not in planned
    snakemake(work, "--cores", "2", "reference_toy", *args)
    manifest = json.loads((work / "reference/toy/manifest.json").read_text())
    assert {e: len(j) for e, j in manifest["carried"].items()} == {"data": 1, "laplace": 3}
    assert manifest["run_jobs"] == 11 and manifest["core_hours"] > 0  # 6 + 4 + 1; the carried jobs' logs count
    assert not (work / "reference/pending").exists()


def test_the_report_says_how_far_a_part_in_progress_is():
    from privopt.pipeline.report import glance_row

    meta = {"short": "P", "key": "p", "figures": []}
    about = {"scale": "paper", "label": "", "pending": [{"label": "Fig. 5", "experiment": "exp3", "done": 10,
                                                         "total": 30, "core_hours": 2.5, "folder": "f/exp3"}]}
    claims = pd.DataFrame({"claim": ["A"], "verdict": ["reproduced"]})
    row = glance_row(meta, claims, claims, about)
    assert row["pending"] == ["in progress: Fig. 5 (exp3), 10 of 30 run jobs, in f/exp3"]
    assert glance_row(meta, claims, None, None)["pending"] == []


def _prefix_paper(prefix_run: str = "prefix_runs:prefix"):
    from prefix_runs import prefix_paper

    return prefix_paper(prefix_run)


def _prefix_jobs(work: Path, paper) -> list[dict]:
    """Every run job of the prefix paper, computed and written with a log of 100 s each."""
    from privopt.io import write_table

    section = {"n": 10_000, "n_rounds": 10_000, "every": 500}
    jobs = []
    for job in paper.run_jobs(section):
        exp = paper.experiment(job.experiment)
        settings = exp.settings(section, job.point)
        rel = f"p/runs/e/x~{job.point['x']}/settings~abc123abc123/seeds~{job.block}"
        run, log = work / RESULTS / f"{rel}.parquet", work / LOGS / f"{rel}.log"
        run.parent.mkdir(parents=True, exist_ok=True)
        log.parent.mkdir(parents=True, exist_ok=True)
        write_table(exp.execute(job.point, settings, job.seeds, {})["runs"], run)
        log.write_text("p e: 21 rows in 100.00 s\n")
        jobs.append({"experiment": "e", "point": job.point, "block": job.block, "seeds": list(job.seeds),
                     "settings": settings, "files": {"runs": str(run)}, "log": str(log)})
    return jobs


def test_a_part_is_carried_over_to_new_run_code_only_when_a_prefix_of_every_job_is_bit_identical(work):
    """After a change of the library that leaves the rows as they are, each pending job's first seed is recomputed
    on a prefix (an equal share of 30 s at 100 s per 2 seeds × 10^4 rounds: 1,000 rounds) and compared; only then
    does the part take today's code (and restore under it).  A prefix that takes its own horizon for the
    constants (the planted bug of verify's test) differs, and the part keeps its code."""
    from privopt.pipeline.pending import attest

    jobs = _prefix_jobs(work, _prefix_paper())
    _add(jobs, total=4)
    folder = pending_folder("reference", "p", "e")
    before = (folder / MANIFEST).read_bytes()
    with pytest.raises(ReferenceError, match=r"seed \d, rounds ≤ 1,000 of 10,000, recomputed with today's run code "
                                             r"code2: .*values differ"):
        attest(folder, paper=_prefix_paper("prefix_runs:prefix_with_the_prefix_constants"), code="code2",
               modules={"m": "code2"}, budget_s=30, provenance=CLEAN, scratch=work / "scratch")
    assert (folder / MANIFEST).read_bytes() == before
    manifest = attest(folder, paper=_prefix_paper(), code="code2", modules={"m": "code2"}, budget_s=30,
                      provenance=CLEAN, scratch=work / "scratch")
    [record] = manifest["attested"]
    assert (record["from"], record["to"], record["modules_changed"]) == ("code1", "code2", ["m"])
    assert {(j["rounds"], j["horizon"], j["values"]) for j in record["jobs"].values()} == {(1000, 10_000, 3 * 3)}
    assert len(record["jobs"]) == 4 and read_pending(folder)["code"] == "code2"
    for job in jobs:
        Path(job["files"]["runs"]).unlink()
    out = restore(folder, jobs=[_rel(j) for j in jobs], results_root=RESULTS, logs_root=LOGS, code="code2")
    assert len(out["restored"]) == 4
    # today's code already: nothing recomputed, nothing recorded
    assert attest(folder, paper=_prefix_paper(), code="code2", modules={"m": "code2"}, budget_s=30,
                  provenance=CLEAN, scratch=work / "scratch") == read_pending(folder)
