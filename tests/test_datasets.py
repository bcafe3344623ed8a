"""Data sets are declarations (privopt.pipeline.datasets): the registry, the Uber pickups' declaration, and
the toy paper's data set, which plugs into the workflow by adding files only."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pandas as pd
import pytest

from manifest_records import data_records
from privopt.pipeline.datasets import Dataset, dataset, dataset_outputs, datasets, used_datasets
from privopt.pipeline.protocol import Instance
from privopt.pipeline.registry import papers
from workflow_runs import (REPO, SUBSET, SUBSET_DIR, SUBSET_SHA256, TOY, copy_workflow, needs_subset, planned_jobs,
                           snakemake, toy_files)

UBER_SETTINGS = {"uber_source": str(SUBSET), "uber_sha256": SUBSET_SHA256, "uber_min_records": 100}


# ----------------------------------------------------------------------------- the registry


def test_the_registry_finds_each_declaration_module_by_its_name():
    assert "uber" in datasets() and dataset("uber").name == "uber"
    with pytest.raises(KeyError, match=r"no declared data set 'nope' \(src/privopt/datasets/nope/dataset\.py\)"):
        dataset("nope")


def test_a_data_set_is_one_package_holding_its_declaration_steps_and_reader():
    """One home per data set: the declaration names steps of its own package, and the instances that read it
    import its reader, not its fetch or parse steps (so editing a step reruns no instance job)."""
    from privopt import codedigest

    uber = dataset("uber")
    assert (uber.fetch, uber.parse) == ("privopt.datasets.uber.fetch:fetch", "privopt.datasets.uber.parse:parse")
    for key in ("chaturvedi2021", "smith2013", "perezsalazar2021", "cardoso2019"):
        for inst in papers()[key].instances:
            mods = codedigest.closure([inst.build.split(":")[0]], REPO / "src")
            assert "privopt.datasets.uber.reader" in mods, (key, inst.name)
            assert not {"privopt.datasets.uber.fetch", "privopt.datasets.uber.parse",
                        "privopt.datasets.uber.dataset"} & set(mods), (key, inst.name)


@pytest.mark.parametrize("layout, message", [
    ({"plain.py": "DATASET = None\n"}, r"privopt\.datasets\.plain is a module; a data set is a package"),
    ({"bare/__init__.py": ""}, r"src/privopt/datasets/bare/ has no dataset\.py"),
])
def test_a_data_set_that_is_not_a_package_with_a_declaration_is_refused(tmp_path, monkeypatch, layout, message):
    import privopt.datasets as package
    from privopt.pipeline import datasets as registry

    for rel, text in layout.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    monkeypatch.setattr(package, "__path__", [str(tmp_path)])
    registry.datasets.cache_clear()
    try:
        with pytest.raises(TypeError, match=message):
            registry.datasets()
    finally:
        monkeypatch.undo()
        registry.datasets.cache_clear()


def test_declaring_the_data_sets_imports_nothing_heavy():
    code = ("import sys\nfrom privopt.pipeline.datasets import datasets, used_datasets\n"
            "from privopt.pipeline.registry import papers\nused_datasets(papers().values())\n"
            "print(sorted(m for m in ('pandas', 'pyarrow', 'numba', 'privopt.datasets.uber.fetch',"
            " 'privopt.datasets.uber.parse', 'privopt.datasets.uber.reader') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO,
                         env={"PYTHONPATH": str(REPO / "src"), "PATH": ""})
    assert out.stdout.strip() == "[]"


def test_the_papers_name_the_data_sets_their_instances_read():
    found = papers()
    assert used_datasets(found.values()) == {"uber": dataset("uber")}
    for key in ("chaturvedi2021", "smith2013", "perezsalazar2021", "cardoso2019"):
        assert found[key].datasets == ("uber",), key
        assert all(i.datasets == ("uber",) for i in found[key].instances), key
    assert found["shariff2018"].datasets == ()
    assert dataset_outputs(["uber"]) == ["pickups"]  # what the builders read: inputs["pickups"]


def test_an_unknown_data_set_is_named_with_its_paper_and_instance():
    class Fake:
        key = "p"
        instances = (Instance("box", build="m:f", outputs=("a.json",), datasets=("nope",)),)

    with pytest.raises(KeyError, match=r"paper p, instance box: no declared data set 'nope'"):
        used_datasets([Fake()])
    with pytest.raises(TypeError, match=r"datasets is a tuple of names"):
        Instance("box", build="m:f", outputs=("a.json",), datasets="uber")


@pytest.mark.parametrize("kwargs, message", [
    ({"name": "two words"}, "must be a word"),
    ({"raw": ("x.csv", "x.csv")}, "distinct plain names"),
    ({"raw": ("provenance.json",)}, "distinct plain names"),
    ({"outputs": {}}, "output names must be words"),
    ({"fetch": "nocolon"}, "module:function"),
])
def test_a_declaration_is_checked_when_it_is_made(kwargs, message):
    base = dict(name="d", title="d", fetch="m:f", parse="m:p", raw=("x.csv",), outputs={"x": "x.parquet"})
    with pytest.raises(ValueError, match=message):
        Dataset(**{**base, **kwargs})


def test_manifests_of_either_form_give_their_records_by_data_set():
    record = {"source": "s", "records": 3}
    assert data_records(None, ("uber",)) == {} == data_records(None, ())
    assert data_records(record, ("uber",)) == {"uber": record}  # written before data sets were declarations
    assert data_records({"uber": record, "toy": record}, ("uber", "toy")) == {"uber": record, "toy": record}


# ----------------------------------------------------------------------------- the Uber pickups


def test_the_uber_folders_are_named_by_their_check_as_before():
    from privopt.datasets.uber.fetch import CANONICAL_GIT_BLOB_ID, content_key

    uber = dataset("uber")
    assert uber.config_keys == ("uber_source", "uber_sha256", "uber_min_records")
    assert uber.folder_of({**UBER_SETTINGS}) == SUBSET_DIR == f"resources/uber/{content_key(SUBSET_SHA256)}"
    canonical = {**UBER_SETTINGS, "uber_sha256": ""}
    assert uber.folder_of(canonical) == f"resources/uber/canonical-{CANONICAL_GIT_BLOB_ID[:16]}"
    assert uber.raw_files(canonical) == {"uber-raw-data-apr14.csv": f"resources/uber/canonical-{CANONICAL_GIT_BLOB_ID[:16]}/uber-raw-data-apr14.csv"}
    assert uber.output_files(UBER_SETTINGS) == {"pickups": f"{SUBSET_DIR}/pickups.parquet"}
    assert uber.log_file(UBER_SETTINGS, "download") == f"logs/data/{SUBSET_DIR.rsplit('/', 1)[1]}/uber_download.log"


def test_a_local_uber_source_must_exist(tmp_path):
    uber = dataset("uber")
    missing = str(tmp_path / "pickups.csv")
    assert list(uber.check({**UBER_SETTINGS, "uber_source": missing})) == [
        ("uber_source", f"local file {missing!r} does not exist")]
    assert not list(uber.check({**UBER_SETTINGS, "uber_source": "https://example.org/x.csv"}))


@needs_subset
def test_the_uber_steps_fetch_verify_and_parse_as_the_scripts_did(tmp_path):
    from privopt.datasets.uber.parse import read_pickups

    uber = dataset("uber")
    files = {"uber-raw-data-apr14.csv": str(tmp_path / "uber-raw-data-apr14.csv")}
    record = uber.retrieve(UBER_SETTINGS, files)
    assert record["records"] == 99_997 and record["fetched_sha256"] == SUBSET_SHA256 and record["source"] == str(SUBSET)
    made = uber.make(UBER_SETTINGS, files, record)
    pd.testing.assert_frame_equal(made["pickups"], read_pickups(files["uber-raw-data-apr14.csv"], min_records=100))
    assert "the 99,997-record subset" in dict(uber.provenance_rows(record))["data source"]
    assert uber.summary(record) == "a subset of the April 2014 Uber file (99,997 records)"
    with pytest.raises(ValueError, match=r"fewer than the 200000 required \(config key uber_min_records\) \(source "):
        uber.make({**UBER_SETTINGS, "uber_min_records": 200_000}, files, record)


def test_an_unreachable_uber_source_says_how_to_use_a_local_copy(tmp_path):
    uber = dataset("uber")
    with pytest.raises(RuntimeError, match=r"could not fetch http://127\.0\.0\.1:9/x\.csv: .*config/shared-data\.yaml"):
        uber.retrieve({**UBER_SETTINGS, "uber_source": "http://127.0.0.1:9/x.csv"},
                      {"uber-raw-data-apr14.csv": str(tmp_path / "x.csv")})


# ----------------------------------------------------------------------------- the report


def test_the_report_shows_each_data_set(tmp_path, monkeypatch):
    import privopt.pipeline.report as report

    other = Dataset(name="other", title="other values", fetch="m:f", parse="m:p", raw=("o.csv",),
                    outputs={"o": "o.parquet"})
    monkeypatch.setattr(report, "dataset", {"uber": dataset("uber"), "other": other}.__getitem__)
    uber = {"source": "/data/x.csv.gz", "canonical": False, "records": 99997, "verified_by": "sha256",
            "fetched_sha256": "e" * 64, "csv_git_blob_id": "f" * 40}
    data = {"uber": uber, "other": {"source": "<generated>", "records": 40}}
    assert report.data_description(data) == ("a subset of the April 2014 Uber file (99,997 records) and "
                                              "other values (40 records)")
    assert report.data_description({}) == report.data_description(None) == "no external data (simulated instances only)"
    out = tmp_path / "index.html"
    report.render_report(REPO / "paper/report.html.j2", {}, {}, data, "quick", out)
    prov = out.with_name("provenance.html").read_text()  # the provenance page beside the report
    for text in ("data set <code>uber</code>", "data set <code>other</code>", "/data/x.csv.gz", "e" * 64,
                 "the 99,997-record subset", "&lt;generated&gt;", ">40<"):
        assert text in prov, text
    report.render_report(REPO / "paper/report.html.j2", {}, {}, None, "quick", out)
    assert "no paper reads downloaded data" in out.with_name("provenance.html").read_text()


# ----------------------------------------------------------------------------- the toy data set

TOY_DATA = ("resources/toy/generated-v1/values.csv", "resources/toy/generated-v1/provenance.json",
            "resources/toy/generated-v1/values.parquet")


def test_the_toy_data_set_is_files_added_where_a_data_set_and_its_paper_declare_themselves():
    """A data set plugs in by adding files: its package (src/privopt/datasets/<name>/: the declaration, its fetch
    and parse steps, its reader); no generic file (rules, scripts, the pipeline package) names it."""
    files = [str(p) for p in toy_files()]
    assert {f"src/privopt/datasets/toy/{m}.py" for m in ("__init__", "dataset", "fetch", "parse", "reader")} <= set(files)
    assert not any((REPO / f).exists() for f in files)  # additions only: nothing of the checkout is replaced
    generic = [*REPO.glob("workflow/rules/*.smk"), REPO / "Snakefile", *REPO.glob("scripts/*.py"),
               *REPO.glob("src/privopt/pipeline/*.py"), REPO / "paper/report.html.j2"]
    for path in generic:
        assert not re.search(r"\btoy\b|generated-v1", path.read_text()), path
    declared = (TOY / "src/privopt/datasets/toy/dataset.py").read_text()
    assert "import pandas" not in declared and "import numpy" not in declared


@pytest.fixture(scope="module")
def toy_work(tmp_path_factory):
    return copy_workflow(tmp_path_factory.mktemp("toydata"), toy=True)


def test_only_the_data_sets_the_papers_read_are_planned(toy_work, tmp_path):
    rules = snakemake(toy_work, "--list-rules").stdout.split()
    assert {"uber_download", "uber_parse", "toy_download", "toy_parse"} <= set(rules)
    plain = copy_workflow(tmp_path / "plain")
    shutil.copytree(TOY / "src/privopt/datasets/toy", plain / "src/privopt/datasets/unused")
    (plain / "src/privopt/datasets/unused/dataset.py").write_text(
        (TOY / "src/privopt/datasets/toy/dataset.py").read_text().replace('name="toy"', 'name="unused"')
        .replace("privopt.datasets.toy.", "privopt.datasets.unused."))
    rules = snakemake(plain, "--list-rules").stdout.split()
    assert {"uber_download", "uber_parse"} <= set(rules)
    assert not {r for r in rules if r.startswith(("toy_", "unused_"))}, rules


def test_the_toy_paper_reads_its_data_set_through_the_generic_rules(toy_work):
    # the toy paper reads a data set: its results lie under the data's check (results/<scale>/toy~<check>/)
    claims = "results/smoke/toy~generated-v1/claims/toy.csv"
    args = [claims, "--configfile", "config/smoke.yaml"]
    jobs = planned_jobs(snakemake(toy_work, "-n", *args))
    assert {"toy_download": 1, "toy_parse": 1, "toy_instance_values": 1, "toy_runs_data": 1}.items() <= jobs.items()
    assert not {"uber_download", "uber_parse"} & set(jobs)  # the toy reads no pickups
    snakemake(toy_work, "--cores", "2", *args)
    for rel in TOY_DATA:
        assert (toy_work / rel).is_file(), rel
    record = json.loads((toy_work / TOY_DATA[1]).read_text())
    assert record["records"] == 40 and record["source"].startswith("generated by")
    assert "toy: wrote" in (toy_work / "logs/data/generated-v1/toy_parse.log").read_text()
    assert len(pd.read_parquet(toy_work / "results/smoke/toy~generated-v1/toy/instances/values/values.parquet")) == 40
    verdicts = pd.read_csv(toy_work / claims).set_index("claim")["verdict"]
    assert verdicts["D.a"] == "reproduced" and verdicts["F1.a"] == "reproduced"
    assert planned_jobs(snakemake(toy_work, "-n", *args)) == {}
    # the reference records the data set's provenance by name, and verify rebuilds the instance from it
    snakemake(toy_work, "--cores", "1", "reference_toy", "--configfile", "config/smoke.yaml")
    manifest = json.loads((toy_work / "reference/toy/manifest.json").read_text())
    assert manifest["data"] == {"toy": record} and "data" in {job["experiment"] for job in manifest["verify"]}
    assert data_records(manifest["data"], ("toy",)) == {"toy": record}
    snakemake(toy_work, "--cores", "1", "verify_toy", "--configfile", "config/smoke.yaml")
    assert len(pd.read_csv(toy_work / "results/verify/toy~generated-v1/toy.csv")) == len(manifest["verify"])


def test_each_data_set_declares_its_config_keys_in_its_own_schema():
    """A data set's config keys are exactly the properties of workflow/schemas/datasets/<name>.schema.yaml, each
    with a description and a default, and no shared schema names them (adding a data set edits none)."""
    import yaml

    from privopt.pipeline.config import SCHEMAS, schema_of
    from privopt.pipeline.datasets import datasets

    shared = yaml.safe_load((SCHEMAS / "config.schema.yaml").read_text())["properties"]
    merged = schema_of("config")["properties"]
    for name, data in datasets().items():
        path = SCHEMAS / "datasets" / f"{name}.schema.yaml"
        own = yaml.safe_load(path.read_text())["properties"] if data.config_keys else {}
        assert set(own) == set(data.config_keys), name
        for key, spec in own.items():
            assert spec.get("description") and "default" in spec, (name, key)
            assert key not in shared and merged[key] == spec, (name, key)


def test_a_key_claimed_twice_by_the_schemas_is_an_error(tmp_path):
    import shutil

    from privopt.pipeline.config import SCHEMAS, schema_of

    shutil.copytree(SCHEMAS, tmp_path / "schemas")
    (tmp_path / "schemas" / "datasets" / "other.schema.yaml").write_text(
        "type: object\nproperties:\n  scale: {type: string, description: x, default: y}\n")
    with pytest.raises(ValueError, match="other.schema.yaml: the key scale is already"):
        schema_of("config", tmp_path / "schemas")
