"""A reference written in parts (privopt.pipeline.reference_results.merge_part; ``--config reference_part=[exp]``): the
part's experiments written anew, the others kept byte for byte, one manifest that records each part.  Small
synthetic references in tmp folders; no pipeline run."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from privopt.pipeline.protocol import Claims, Experiment, Figure, Instance, Paper, Table
from privopt.pipeline.reference_results import ReferenceError, check_manifest, write_reference

CLEAN = {"commit": "a" * 40, "dirty": False}


def _paper() -> Paper:
    # "e" is thinned ×2 along t in the reference (a kept table must not be thinned again)
    e = Experiment(name="e", label="E", points=lambda s: [{"T": t} for t in s["T"]],
                   settings=lambda s, p: {"n_rounds": s["n_rounds"]},
                   seeds=lambda s: (s["runs"], 2), run="m:f", tables="m:f", table_files=(Table("t.csv", thin=2, along="t"),))
    g = Experiment(name="g", label="G", points=lambda s: [{}], settings=lambda s, p: {"k": s["k"]},
                   seeds=lambda s: (s["runs_g"], 2), run="m:f", tables="m:f", table_files=(Table("u.csv"),))
    return Paper(key="p", title="t", authors="a", venue="v", short="P", experiments=(e, g),
                 figures=(Figure("fig1", "F1", "", {"t": "t"}), Figure("fig2", "F2", "", {"u": "u"})),
                 claims=Claims(evaluate="m:f", inputs=("t",)))


def _manifest(exps=("e", "g"), hours=1.0, jobs=10, commit="a", **over) -> dict:
    paper = _paper()
    section = {"T": [100, 1000], "n_rounds": 1000, "runs": 20, "runs_g": 4, "k": 3, **over}
    runs = {e.name: [{"point": p, "settings": e.settings(section, p)} for p in e.points(section)]
            for e in paper.experiments if e.name in exps}
    return {"scale": "paper", "label": "paper label", "config": section, "runs": runs, **CLEAN,
            "commit": commit * 40, "core_hours": hours, "run_jobs": jobs,
            "code_digest": {e: f"{e}-{commit}" for e in exps}, "modules": {e: {f"m_{e}": commit} for e in exps},
            "verify": [{"experiment": e, "files": {"runs": f"runs/{e}/seeds~0-1.parquet"}} for e in exps]}


def _sources(tmp_path: Path, exps, value: float) -> tuple[dict, dict]:
    src = tmp_path / f"src{value}"
    src.mkdir(exist_ok=True)
    tables, runs = {}, {}
    if "e" in exps:
        pd.DataFrame({"t": range(1, 9), "y": [value] * 8}).to_csv(src / "t.csv", index=False)
        tables["t.csv"] = src / "t.csv"
    if "g" in exps:
        pd.DataFrame({"k": [3], "y": [value]}).to_csv(src / "u.csv", index=False)
        tables["u.csv"] = src / "u.csv"
    for e in exps:
        pd.DataFrame({"experiment": [e], "y": [value]}).to_parquet(src / f"run_{e}.parquet", index=False)
        runs[f"{e}/seeds~0-1.parquet"] = src / f"run_{e}.parquet"
    return tables, runs


def _write(tmp_path, manifest, exps=("e", "g"), value=1.0, part=()) -> dict:
    tables, runs = _sources(tmp_path, exps, value)
    return write_reference(tmp_path / "reference" / "p", paper=_paper(), tables=tables, verify_runs=runs,
                           manifest=manifest, part=part)


@pytest.fixture
def whole(tmp_path):
    """The whole reference of both experiments, its folder and the bytes of e's (thinned) table."""
    _write(tmp_path, _manifest())
    folder = tmp_path / "reference" / "p"
    return folder, (folder / "tables" / "t.csv").read_bytes()


def test_a_part_rewrites_its_experiment_and_keeps_the_others_byte_for_byte(tmp_path, whole):
    folder, t_before = whole
    assert len(pd.read_csv(folder / "tables" / "t.csv")) == 5  # 8 rows thinned ×2: t = 1, 2, 4, 6, 8
    e_run = (folder / "runs" / "e" / "seeds~0-1.parquet").read_bytes()
    made = _write(tmp_path, _manifest(exps=("g",), hours=0.25, jobs=2, commit="b"), exps=("g",), value=2.0,
                  part=("g",))
    assert (folder / "tables" / "t.csv").read_bytes() == t_before  # kept, not thinned a second time
    assert pd.read_csv(folder / "tables" / "u.csv")["y"].tolist() == [2.0]
    assert (folder / "runs" / "e" / "seeds~0-1.parquet").read_bytes() == e_run  # kept byte for byte
    assert pd.read_parquet(folder / "runs" / "e" / "seeds~0-1.parquet")["y"].tolist() == [1.0]
    assert pd.read_parquet(folder / "runs" / "g" / "seeds~0-1.parquet")["y"].tolist() == [2.0]
    manifest = check_manifest(folder)
    assert manifest == json.loads((folder / "manifest.json").read_text()) and made["files"] == manifest["files"]
    assert manifest["code_digest"] == {"e": "e-a", "g": "g-b"}
    assert manifest["modules"] == {"e": {"m_e": "a"}, "g": {"m_g": "b"}}
    assert sorted(manifest["runs"]) == ["e", "g"]
    assert [j["experiment"] for j in manifest["verify"]] == ["e", "g"]
    assert [(p["experiments"], p["commit"][0], p["core_hours"]) for p in manifest["parts"]] == \
        [(["e"], "a", 1.0), (["g"], "b", 0.25)]
    assert manifest["commit"] == "b" * 40 and manifest["core_hours"] == 1.25 and manifest["run_jobs"] == 12
    assert manifest["parts"][-1]["written"] == manifest["written"]  # the new part's date is this write's


def test_an_experiment_rewritten_by_every_later_part_leaves_the_record_of_the_first(tmp_path, whole):
    _write(tmp_path, _manifest(exps=("g",), commit="b"), exps=("g",), part=("g",))
    _write(tmp_path, _manifest(exps=("e",), commit="c"), exps=("e",), part=("e",))
    manifest = check_manifest(tmp_path / "reference" / "p")
    assert [(p["experiments"], p["commit"][0]) for p in manifest["parts"]] == [(["g"], "b"), (["e"], "c")]


def test_a_part_that_changes_a_kept_experiments_settings_or_runs_is_refused_naming_it(tmp_path, whole):
    folder, t_before = whole
    with pytest.raises(ReferenceError, match=r"changes e, which it does not write.*n_rounds = 2000"):
        _write(tmp_path, _manifest(exps=("g",), n_rounds=2000), exps=("g",), part=("g",))
    with pytest.raises(ReferenceError, match=r"changes e.*points beyond"):
        _write(tmp_path, _manifest(exps=("g",), T=[100, 1000, 10000]), exps=("g",), part=("g",))
    with pytest.raises(ReferenceError, match=r"changes e.*T=100: 30 runs \(reference: 20\)"):
        _write(tmp_path, _manifest(exps=("g",), runs=30), exps=("g",), part=("g",))
    assert (folder / "tables" / "t.csv").read_bytes() == t_before and check_manifest(folder)["commit"][0] == "a"


def test_a_part_that_would_lose_runs_of_its_own_experiment_is_refused_unless_told(tmp_path, whole):
    folder, _ = whole
    with pytest.raises(ReferenceError, match=r"g \(single point\): 4 runs → 2"):
        _write(tmp_path, _manifest(exps=("g",), runs_g=2), exps=("g",), part=("g",))
    tables, runs = _sources(tmp_path, ("g",), 3.0)
    write_reference(folder, paper=_paper(), tables=tables, verify_runs=runs, part=("g",), replace=True,
                    manifest=_manifest(exps=("g",), runs_g=2))
    assert pd.read_csv(folder / "tables" / "u.csv")["y"].tolist() == [3.0]


def test_a_part_naming_no_experiment_or_without_a_reference_is_refused(tmp_path):
    with pytest.raises(ReferenceError, match="no reference to add the part"):
        _write(tmp_path, _manifest(exps=("g",)), exps=("g",), part=("g",))
    _write(tmp_path, _manifest())
    with pytest.raises(ReferenceError, match=r"names no experiment of p \(x; its experiments: e, g\)"):
        _write(tmp_path, _manifest(exps=("g",)), exps=("g",), part=("x",))


def test_a_dirty_part_without_its_changes_is_refused_and_every_part_is_checked(tmp_path, whole):
    folder, _ = whole
    with pytest.raises(ReferenceError, match="uncommitted changes"):
        _write(tmp_path, {**_manifest(exps=("g",)), "dirty": True}, exps=("g",), part=("g",))
    _write(tmp_path, _manifest(exps=("g",), commit="b"), exps=("g",), part=("g",))
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["parts"][0]["dirty"] = True  # an earlier part that does not say what was uncommitted
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ReferenceError, match=r"the part \['e'\]"):
        check_manifest(folder)


def test_a_curve_with_max_points_is_thinned_more_as_the_horizon_grows_never_at_the_short_one(tmp_path):
    """A full-horizon part (Shariff & Sheffet's Fig. 4: 25 times the prefix's rounds) must fit the references'
    budget: ``Table.max_points`` thins a long curve to about that many points and leaves a short one alone."""
    from privopt.pipeline.reference_results import _copy_table

    table = Table("c.csv", max_points=5)
    for n, kept in ((5, [1, 2, 3, 4, 5]), (8, [1, 2, 4, 6, 8]), (20, [1, 4, 8, 12, 16, 20])):
        src, dest = tmp_path / f"in{n}.csv", tmp_path / f"out{n}.csv"
        pd.DataFrame({"t": range(1, n + 1), "y": 0.5}).to_csv(src, index=False)
        _copy_table(src, dest, table)
        assert pd.read_csv(dest)["t"].tolist() == kept, n
        assert (src.read_bytes() == dest.read_bytes()) == (n == 5)  # a short curve is copied as it is


def test_a_part_on_the_same_data_content_is_taken_whatever_the_record_says_of_its_file_other_data_is_not(tmp_path):
    """The data check compares content digests: the reference written before manifests kept one record per data
    set (``data`` the record itself) and a part read from another copy of the same file are the same data."""
    import dataclasses

    paper = dataclasses.replace(_paper(), instances=(Instance("i", "m:f", ("x.parquet",), datasets=("uber",)),))
    record = {"source": "../shared/data/u.csv.gz", "csv_sha256": "c" * 64, "fetched_sha256": "f" * 64, "records": 9}
    folder = tmp_path / "reference" / "p"
    tables, runs = _sources(tmp_path, ("e", "g"), 1.0)
    write_reference(folder, paper=paper, tables=tables, verify_runs=runs, manifest={**_manifest(), "data": record})
    tables, runs = _sources(tmp_path, ("g",), 2.0)
    same = {"uber": {**record, "source": "/elsewhere/u.csv.gz"}}
    write_reference(folder, paper=paper, tables=tables, verify_runs=runs, part=("g",),
                    manifest={**_manifest(exps=("g",), commit="b"), "data": same})
    assert check_manifest(folder)["parts"][-1]["experiments"] == ["g"]
    other = {"uber": {**record, "csv_sha256": "d" * 64}}
    with pytest.raises(ReferenceError, match="ran on other data than the reference's experiments e"):
        write_reference(folder, paper=paper, tables=tables, verify_runs=runs, part=("g",),
                        manifest={**_manifest(exps=("g",), commit="c"), "data": other})


def test_compacting_a_reference_keeps_every_value_records_the_new_digests_and_gives_bytes_back(tmp_path):
    """A reference written before the compact parquet encoding: its parquet files re-encoded (same frames read
    back, fewer bytes), the manifest's digests and size updated and nothing else changed, so every reader
    still accepts it; compacting again changes no byte."""
    import numpy as np

    from privopt.pipeline.reference_results import compact_reference

    rng = np.random.default_rng(7)
    big = pd.DataFrame({"seed": np.repeat(np.arange(20), 500), "variant": ["a", "b"] * 5000,
                        "t": np.tile(np.arange(500), 20), "regret": np.cumsum(rng.random(10_000)),
                        "beta": rng.normal(size=10_000), "gap": np.nan})
    tables, runs = _sources(tmp_path, ("e", "g"), 1.0)
    big.to_parquet(runs["e/seeds~0-1.parquet"], index=False)  # pandas' default encoding, as before
    write_reference(tmp_path / "reference" / "p", paper=_paper(), tables=tables, verify_runs=runs,
                    manifest=_manifest())
    folder = tmp_path / "reference" / "p"
    run = folder / "runs" / "e" / "seeds~0-1.parquet"
    # a reference of the old encoding: the run file as pandas writes it, the manifest saying so
    big.to_parquet(run, index=False)
    manifest = json.loads((folder / "manifest.json").read_text())
    from privopt.pipeline.provenance import file_sha256

    manifest["files"]["runs/e/seeds~0-1.parquet"] = file_sha256(run)
    (folder / "manifest.json").write_text(json.dumps(manifest))
    old_size = run.stat().st_size
    before, after = compact_reference(folder)
    assert after < before and run.stat().st_size < 0.9 * old_size
    pd.testing.assert_frame_equal(pd.read_parquet(run), big)
    new = check_manifest(folder)
    assert new["bytes"] == after
    assert {k: v for k, v in new.items() if k not in ("files", "bytes")} == \
        {k: v for k, v in manifest.items() if k not in ("files", "bytes")}
    snapshot = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert compact_reference(folder) == (after, after)
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == snapshot
