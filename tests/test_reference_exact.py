"""Issue 38: references that cannot be overwritten by a smaller run, manifests that say what code wrote them,
and verify reporting every differing value (privopt.pipeline.reference_results, privopt.pipeline.provenance).  Small
synthetic references in tmp folders; no pipeline run."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privopt.io import write_parquet
from privopt.pipeline import provenance
from privopt.pipeline.protocol import Claims, Experiment, Figure, Paper, Table
from privopt.pipeline.reference_results import (
    RECOMPUTED,
    ReferenceError,
    check_manifest,
    check_provenance,
    diff_rows,
    figure_scales,
    scale_losses,
    write_reference,
)

CLEAN = {"commit": "a" * 40, "dirty": False}


def _paper() -> Paper:
    exp = Experiment(name="e", label="E", points=lambda s: [{"T": t} for t in s["T"]],
                     settings=lambda s, p: {"n_rounds": s["n_rounds"], "eps": s["eps"]},
                     seeds=lambda s: (s["runs"], 2), run="m:f", tables="m:f", table_files=(Table("t.csv"),))
    other = Experiment(name="g", label="G", points=lambda s: [{}], settings=lambda s, p: {"k": s["k"]},
                       seeds=lambda s: (s["runs"], 2), run="m:f", tables="m:f", table_files=(Table("u.csv"),))
    return Paper(key="p", title="t", authors="a", venue="v", short="P", experiments=(exp, other),
                 figures=(Figure("fig1", "F1", "", {"t": "t"}), Figure("fig2", "F2", "", {"u": "u"})),
                 claims=Claims(evaluate="m:f", inputs=("t",)))


def _section(**over):
    return {"T": [100, 1000], "n_rounds": 1000, "eps": [1.0, 10.0], "runs": 20, "k": 3, **over}


def _manifest(scale="paper", **over) -> dict:
    """A manifest as scripts/reference.py writes it: the config section and its run records."""
    paper, section = _paper(), _section(**over)
    runs = {e.name: [{"point": p, "settings": e.settings(section, p)} for p in e.points(section)]
            for e in paper.experiments}
    return {"scale": scale, "label": f"{scale} label", "config": section, "runs": runs, **CLEAN}


def _write(tmp_path: Path, manifest: dict, replace: bool = False) -> Path:
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    pd.DataFrame({"a": [1, 2], "b": [0.5, 0.25]}).to_csv(src / "t.csv", index=False)
    folder = tmp_path / "reference" / "p"
    write_reference(folder, paper=_paper(), tables={"t.csv": src / "t.csv"}, verify_runs={}, manifest=manifest,
                    replace=replace)
    return folder


# ----------------------------------------------------------------------------- a larger reference is kept


def test_a_reference_of_fewer_runs_a_shorter_horizon_or_another_scale_is_refused_naming_the_loss(tmp_path):
    folder = _write(tmp_path, _manifest(runs=400))
    before = (folder / "manifest.json").read_text()
    for smaller, lost in [(_manifest(runs=20), "e T=100: 400 runs → 20"),
                          (_manifest("smoke", runs=400), "the scale 'paper'"),
                          (_manifest(runs=400, n_rounds=100), "e T=1000: n_rounds 1000 → 100"),
                          (_manifest(runs=400, T=[100]), "e T=1000 (400 runs) would be dropped"),
                          (_manifest(runs=400, eps=[1.0]), "eps loses [10.0]")]:
        with pytest.raises(ReferenceError, match="reference_replace=true") as err:
            _write(tmp_path, smaller)
        assert lost in str(err.value), str(err.value)
        assert (folder / "manifest.json").read_text() == before  # the larger one is untouched
    # a larger one (more runs, a longer horizon, a finer grid, more points) replaces it without being told
    assert check_manifest(_write(tmp_path, _manifest(runs=500, n_rounds=2000, T=[100, 1000, 10000])))["config"]["runs"] == 500
    # told explicitly, a smaller one replaces it
    assert check_manifest(_write(tmp_path, _manifest("smoke", runs=20), replace=True))["scale"] == "smoke"


def test_scale_losses_are_empty_for_the_same_reference_and_count_every_lost_point():
    assert scale_losses(_manifest(), _manifest(), _paper()) == []
    losses = scale_losses(_manifest(runs=40), _manifest(runs=30), _paper())
    assert losses == ["e T=100: 40 runs → 30", "e T=1000: 40 runs → 30", "g (single point): 40 runs → 30"]
    dropped = _manifest()
    del dropped["runs"]["g"]
    assert scale_losses(_manifest(), dropped, _paper()) == ["experiment g (1 point) would be dropped"]
    # None against a number (a default horizon against a prefix) is a different computation: reported
    assert scale_losses(_manifest(n_rounds=None), _manifest(n_rounds=10**6), _paper())[0] == \
        "e T=100: n_rounds None → 1000000"


def test_a_folder_without_a_readable_manifest_is_not_replaced_unless_told(tmp_path):
    folder = _write(tmp_path, _manifest())
    (folder / "manifest.json").unlink()
    with pytest.raises(ReferenceError, match=r"reference/p/manifest\.json: no reference manifest"):
        check_manifest(folder)  # what every reader (claims, figures, verify) says
    with pytest.raises(ReferenceError, match=r"manifest cannot be read .*reference/p/manifest\.json"):
        _write(tmp_path, _manifest())
    assert check_manifest(_write(tmp_path, _manifest(), replace=True))["scale"] == "paper"


def test_leftovers_of_an_interrupted_write_are_removed_by_the_next(tmp_path):
    folder = _write(tmp_path, _manifest())
    for name in (".p.x1y2z3", ".p.old"):  # the stage and the swapped-out folder of a killed write
        (folder.parent / name / "tables").mkdir(parents=True)
        (folder.parent / name / "tables" / "t.csv").write_text("a\n1\n")
    (folder.parent / ".q.old").mkdir()  # another paper's: not this write's to remove
    _write(tmp_path, _manifest())
    assert sorted(p.name for p in folder.parent.iterdir()) == [".q.old", "p"]


# ----------------------------------------------------------------------------- manifests say what code wrote them


def test_a_dirty_manifest_without_its_changes_is_refused_by_the_writer_and_every_reader(tmp_path):
    dirty = {**_manifest(), "dirty": True}
    with pytest.raises(ReferenceError, match="uncommitted changes .* changes.diff_sha256"):
        _write(tmp_path, dirty)
    assert not (tmp_path / "reference" / "p").exists()
    recorded = {**dirty, "changes": {"changed": ["src/x.py"], "diff_sha256": "b" * 64}}
    folder = _write(tmp_path, recorded)
    assert check_manifest(folder)["changes"]["changed"] == ["src/x.py"]
    # a manifest edited to drop the record (or written by older code) is refused by every reader
    data = json.loads((folder / "manifest.json").read_text())
    del data["changes"]
    (folder / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(ReferenceError, match=r"reference/p/manifest\.json: written from a checkout with uncommitted"):
        check_manifest(folder)
    # ... unless a later clean recomputation of its sampled jobs is recorded, as such
    check_provenance({**data, RECOMPUTED: {"commit": "c" * 40, "jobs": [{"job": "runs/x", "identical": True}]}})
    with pytest.raises(ReferenceError, match="names neither a commit nor the digests"):
        check_provenance({"commit": None, "dirty": None})
    check_provenance({"commit": None, "dirty": None, "modules": {"e": {"m": "d"}}})  # outside git: its code digests


GIT = shutil.which("git")


@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_git_changes_list_the_changed_files_and_digest_their_diff(tmp_path):
    def git(*args):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q")
    (repo / "a.py").write_text("x = 1\n")
    git("add", "a.py")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    assert provenance.git_changes(repo) == {"changed": [], "diff_sha256": provenance.hashlib.sha256(b"").hexdigest()}
    (repo / "a.py").write_text("x = 2\n")
    (repo / "reference").mkdir()
    (repo / "reference" / "m.json").write_text("{}")
    (repo / "new.py").write_text("y = 1\n")
    one = provenance.git_changes(repo, exclude=("reference",))
    assert one["changed"] == ["a.py", "new.py"] and len(one["diff_sha256"]) == 64
    (repo / "new.py").write_text("y = 2\n")  # an untracked file's content is part of the digest
    two = provenance.git_changes(repo, exclude=("reference",))
    assert two["changed"] == one["changed"] and two["diff_sha256"] != one["diff_sha256"]
    (repo / "new.py").write_text("y = 1\n")
    assert provenance.git_changes(repo, exclude=("reference",)) == one  # the same state, the same digest


# ----------------------------------------------------------------------------- per figure: at the paper's settings?


def test_figure_scales_say_per_figure_whether_it_ran_at_the_paper_scale():
    paper = _paper()
    at = figure_scales(paper, _section(), _section())
    assert at == {"fig1": {"paper_settings": True, "differs": []}, "fig2": {"paper_settings": True, "differs": []}}
    off = figure_scales(paper, _section(n_rounds=10, T=[100]), _section())
    assert off["fig1"]["paper_settings"] is False and off["fig2"]["paper_settings"] is True
    assert off["fig1"]["differs"] == ["e: 1 of the paper scale's 2 points not run (T=1000)",
                                      "e T=100: n_rounds = 10 (paper scale: 1000)"]
    fewer = figure_scales(paper, _section(runs=5), _section())
    assert fewer["fig1"]["differs"] == ["e (2 points): 5 runs (paper scale: 20)"]


# ----------------------------------------------------------------------------- verify: exact counts


def test_diff_rows_counts_every_differing_value_and_the_largest_difference_in_ulps():
    a = pd.DataFrame({"seed": [0, 1, 2, 3], "y": [1.0, 2.0, 4.0, np.nan], "z": [0.5] * 4, "wall_s": [1.0] * 4})
    same = diff_rows(a, a.assign(wall_s=9.0))
    assert same.identical and same.values == 12 and same.describe() == "bit-identical (12 values)"
    b = a.copy()
    b.loc[1, "y"] = np.nextafter(2.0, 3.0)           # 1 ulp of 2 = half an ulp of the column's largest (4)
    b.loc[2, "y"] = 4.0 + 8 * np.spacing(4.0)       # 8 ulps of 4
    b.loc[0, "z"] = np.nextafter(0.5, 1.0)
    d = diff_rows(b, a)
    assert not d.identical and d.differing == 3 and dict(d.columns) == {"y": 2, "z": 1} and d.max_ulps == 8
    assert d.within(8) and not d.within(7) and d.first == "row 1, column 'y': 2.0000000000000004 here, 2.0 in the reference"
    c = a.copy()
    c.loc[3, "y"] = 1.0  # NaN against a number: beyond every tolerance
    assert diff_rows(c, a).max_ulps == float("inf") and not diff_rows(c, a).within(10**9)
    s = a.assign(seed=[0, 1, 2, 4])  # an integer column differs: never within a tolerance
    assert diff_rows(s, a).exact == ("seed",) and not diff_rows(s, a).within(10**9)
    assert diff_rows(a.iloc[:2], a).shape == "2 rows, the reference has 4"


def test_verify_jobs_report_exact_counts_for_a_job_within_the_tolerance(tmp_path, monkeypatch):
    """A recomputed job 3 ulps off in one value passes a tolerance of 4 but is reported as differing, never
    as 'within tolerance' alone."""
    from privopt.pipeline import reference_results as reference

    stored = pd.DataFrame({"seed": [0, 1], "y": [1.0, 2.0]})
    src = tmp_path / "run.parquet"
    write_parquet(stored, src)
    manifest = {**_manifest(), "verify": [{"experiment": "g", "point": {}, "block": "0-1", "seeds": [0, 1],
                                            "files": {"runs": "runs/g/seeds~0-1.parquet"}}]}
    folder = tmp_path / "reference" / "p"
    write_reference(folder, paper=_paper(), tables={}, verify_runs={"g/seeds~0-1.parquet": src}, manifest=manifest)
    off = stored.assign(y=[1.0, 2.0 + 3 * np.spacing(2.0)])
    monkeypatch.setattr(Experiment, "execute", lambda self, point, settings, seeds, inputs: {"runs": off})
    [job] = reference.verify_jobs(folder, _paper(), {}, tmp_path / "work", ulps=4)
    assert (job["identical"], job["differing"], job["values"], job["max_ulps"], job["mismatch"]) == (False, 1, 4, 3.0, None)
    assert "1 of 4 values differ (y 1); largest difference 3 ulps" in job["result"]
    [job] = reference.verify_jobs(folder, _paper(), {}, tmp_path / "work", ulps=2)
    assert "1 of 4 values differ" in job["mismatch"]
    monkeypatch.setattr(Experiment, "execute", lambda self, point, settings, seeds, inputs: {"runs": stored})
    [job] = reference.verify_jobs(folder, _paper(), {}, tmp_path / "work")
    assert job["identical"] and job["differing"] == 0 and "bit-identical" in job["result"]


def test_the_verify_summary_counts_each_kind_of_job_and_never_says_within_tolerance_of_a_failing_one():
    """It said "3 of 4 recomputed run jobs bit-identical; the others within the tolerance of 4 ulps" when the fourth
    had other columns than the reference and failed."""
    from privopt.pipeline.reference_results import verify_summary

    same = {"identical": True, "mismatch": None, "differing": 0, "values": 1650, "max_ulps": 0.0,
            "result": "bit-identical (1,650 values)"}
    near = {"identical": False, "mismatch": None, "differing": 50, "values": 1650, "max_ulps": 4.0,
            "result": "50 of 1,650 values differ (G 25, REG_G 25); largest difference 4 ulps"}
    shape = {"identical": False, "mismatch": "runs/privacy: columns [...] differ from the reference's [...]",
             "differing": 0, "values": 168, "max_ulps": 0.0,
             "result": "runs/privacy: columns ['a', 'b'] differ from the reference's ['a']; "
                       "tpriv: bit-identical (168 values)"}
    assert verify_summary("p", [same, same]) == "verify_p: 2 of 2 recomputed run jobs bit-identical"
    line = verify_summary("p", [same, near, shape], 4, kernels="SkylakeX", reference_kernels="Haswell")
    assert line == ("verify_p: 1 of 3 recomputed run jobs bit-identical; 1 within the tolerance of 4 ulps (50 of "
                    "1,650 values differ, the largest by 4 ulps); 1 beyond the tolerance (1 with other columns or "
                    "rows); OpenBLAS kernels here: SkylakeX, the reference's: Haswell"), line
    far = {**near, "mismatch": "50 of 1,650 values differ", "max_ulps": 12.0}
    assert verify_summary("p", [far], 0, kernels="Haswell").endswith(
        "0 of 1 recomputed run jobs bit-identical; 1 differ (50 of 1,650 values differ, the largest by 12 ulps); "
        "OpenBLAS kernels here: Haswell, the reference's: not recorded")
    text = {**far, "max_ulps": 0.0, "differing": 1}  # a string column (a description) changed
    assert "1 differ (1 of 1,650 values differ, none of them floats)" in verify_summary("p", [text])


# ----------------------------------------------------------------------------- verify on a prefix


def _long_paper(prefix_run: str = "prefix_runs:prefix") -> Paper:
    """One experiment of two points whose jobs (2 seeds of 10^4 rounds) are too long for verify's budget."""
    from prefix_runs import prefix_paper

    return prefix_paper(prefix_run)


def test_an_experiment_whose_jobs_exceed_the_budget_is_verified_on_a_prefix_that_catches_a_planted_bug(tmp_path):
    """No job fits 30 s, so one is sampled on a prefix: its first seed's first 6,000 of 10^4 rounds (the largest
    leading-digit multiple of the record step that 30 s buys at 100 s per 2 seeds × 10^4 rounds; 3,000 when a
    part keeps another experiment's 15-s sample, none when the experiment has its sample already); the reference
    keeps exactly those rows; verify recomputes them bit for bit, leaving out the end-of-run count; a prefix that
    takes its own horizon for the constants (noise √(10^4/6,000) times too large) is caught."""
    from privopt.io import read_table, write_table
    from privopt.pipeline.reference_results import choose_verify_jobs, verify_jobs, verify_samples
    import prefix_runs

    section = {"n": 10_000, "n_rounds": 10_000, "every": 500}
    paper = _long_paper()
    jobs, seconds = [], {}
    for job in paper.run_jobs(section):
        exp = paper.experiment(job.experiment)
        path = tmp_path / "runs" / f"x~{job.point['x']}" / f"seeds~{job.block}.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_table(exp.execute(job.point, exp.settings(section, job.point), job.seeds, {})["runs"], path)
        jobs.append({"experiment": "e", "point": job.point, "block": job.block, "seeds": job.seeds,
                     "files": {"runs": str(path)}})
        seconds[f"e/x~{job.point['x']}/{job.block}"] = 100.0
    [pick] = choose_verify_jobs(paper, section, seconds, budget_s=30)
    assert (pick.rounds, pick.horizon, pick.seeds, pick.seconds) == (6000, 10_000, (pick.job.seeds[0],), 30.0)
    assert choose_verify_jobs(paper, section, dict(reversed(list(seconds.items()))), budget_s=30) == [pick]
    # a part of a reference: the samples it keeps of other experiments take their seconds off the budget
    [half] = choose_verify_jobs(paper, section, seconds, budget_s=30, kept=[{"experiment": "g", "seconds": 15.0}])
    assert (half.job, half.rounds, half.seconds) == (pick.job, 3000, 15.0)
    assert choose_verify_jobs(paper, section, seconds, budget_s=30, kept=[{"experiment": "e", "seconds": 1}]) == []
    assert choose_verify_jobs(paper, section, seconds, budget_s=2) == []  # 500 rounds (one record step) take 2.5 s
    verify, runs = verify_samples(paper, [pick], jobs, tmp_path / "scratch")
    [entry] = verify
    assert (entry["rounds"], entry["horizon"], entry["seeds"]) == (6000, 10_000, [pick.job.seeds[0]])
    [stored] = runs.values()
    rows = read_table(stored)
    assert set(rows["seed"]) == {pick.job.seeds[0]} and rows["t"].tolist() == list(range(0, 6001, 500))
    assert (rows["count"] == 10_000).all()  # the full run's end-of-run count, kept as it was
    folder = tmp_path / "reference" / "p"
    write_reference(folder, paper=paper, tables={}, verify_runs=runs,
                    manifest={**CLEAN, "scale": "s", "label": "l", "config": section, "verify": verify})
    [found] = verify_jobs(folder, paper, {}, tmp_path / "work")
    assert found["identical"] and found["mismatch"] is None and found["values"] == 13 * 3, found
    assert "rounds ≤ 6,000 of 10,000; count (end-of-run counts) not compared" in found["result"]
    [found] = verify_jobs(folder, _long_paper("prefix_runs:prefix_with_the_prefix_constants"), {},
                          tmp_path / "work")
    assert found["mismatch"] and "12 of 39 values differ (y 12)" in found["mismatch"], found
    assert prefix_runs.prefix  # the module the references name is the one imported here


def test_a_part_keeps_the_verify_samples_of_the_experiments_it_keeps_and_only_those():
    """The writer of a part (its budget) and the merge (what it copies in) read the kept samples from one
    helper: those of the old reference's experiments that it holds runs of, but the part's own."""
    import types

    from privopt.pipeline.reference_results import kept_experiments, kept_verify

    paper = types.SimpleNamespace(experiments=[types.SimpleNamespace(name=n) for n in ("a", "b", "c", "d")])
    old = {"runs": {"a": [], "b": [], "c": []},
           "verify": [{"experiment": "a", "i": 0}, {"experiment": "b", "i": 1}, {"experiment": "a", "i": 2},
                      {"experiment": "d", "i": 3}, {"experiment": "x", "i": 4}]}
    assert [e.name for e in kept_experiments(paper, old, ["b"])] == ["a", "c"]
    assert [j["i"] for j in kept_verify(paper, old, ["b"])] == [0, 2]
    assert kept_verify(paper, old, ["a", "b", "c"]) == [] and kept_verify(paper, {}, ["b"]) == []
