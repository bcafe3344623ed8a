"""The experiment protocol, the paper registry and the code digests (privopt.experiments)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from privopt import codedigest
from privopt.pipeline.protocol import (
    Claims,
    ConfigError,
    Experiment,
    Figure,
    Finding,
    Paper,
    Prefix,
    Table,
    format_value,
    point_path,
    seed_blocks,
    seeds_of,
)
from privopt.pipeline import cost as run_cost
from privopt.pipeline.protocol import ref_module, settings_key
from privopt.pipeline.registry import papers
from privopt.pipeline.section_readers import grid, one_point, one_seed, reads, seeds_from, subsection
from privopt.io import concat_tables, write_table

SRC = Path(__file__).resolve().parents[1] / "src"


def _experiment(**change):
    base = dict(name="e", label="E", points=lambda s: [{"x": v} for v in s["xs"]], settings=lambda s, p: {"k": s["k"]},
                seeds=lambda s: (s["runs"], s["per_job"]), run="privopt.pipeline.summary:summarise",
                tables="privopt.pipeline.summary:summarise", table_files=(Table("t.csv"), Table("t_runs.parquet")))
    return Experiment(**{**base, **change})


def _paper(**change):
    base = dict(key="p", title="T", authors="A", venue="V", short="P", experiments=(_experiment(),),
                figures=(Figure("fig1", "F", "C", {"table": "t"}),), claims=Claims("m:f", ("t",)))
    return Paper(**{**base, **change})


# ----------------------------------------------------------------------------- paths and seeds


@pytest.mark.parametrize("value, path", [(10, "10"), (0.1, "0.1"), (0.0, "0.0"), (1e-05, "1e-05"),
                                         (0.123456789, "0.123456789"), (50_000_000.0, "50000000.0"),
                                         ("pm1", "pm1"), (True, "true")])
def test_path_form_of_a_value_is_exact(value, path):
    assert format_value(value) == path


def test_close_values_get_distinct_paths_and_floats_round_trip():
    """A gap of 0.123456789 is not rounded to 0.123457: two close points never share a path."""
    a, b = 0.123456789, 0.1234568
    assert point_path({"gap": a}) != point_path({"gap": b})
    for v in (a, b, 0.1 + 0.2, 1 / 3, 5e7, 1e-300):
        assert float(format_value(v)) == v


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "a b", "x/y", None, [1]])
def test_values_that_cannot_be_a_path_are_refused(bad):
    with pytest.raises(ValueError):
        format_value(bad)


def test_seed_blocks_cover_every_seed_once():
    for n, per in [(1, 1), (10, 3), (100, 50), (7, 10)]:
        seeds = [s for b in seed_blocks(n, per) for s in seeds_of(b)]
        assert seeds == list(range(n))
        assert all(len(seeds_of(b)) <= per for b in seed_blocks(n, per))
    with pytest.raises(ValueError):
        seed_blocks(0, 5)


def test_run_jobs_and_paths_follow_the_config():
    paper = _paper()
    section = {"xs": [1, 2.5], "k": 3, "runs": 5, "per_job": 2}
    jobs = list(paper.run_jobs(section))
    assert [(j.point, j.block) for j in jobs] == [({"x": 1}, "0-1"), ({"x": 1}, "2-3"), ({"x": 1}, "4-4"),
                                                  ({"x": 2.5}, "0-1"), ({"x": 2.5}, "2-3"), ({"x": 2.5}, "4-4")]
    assert paper.run_file("e", {"x": 2.5}, "0-1") == "results/p/runs/e/x~2.5/seeds~0-1.parquet"
    assert paper.run_pattern("e", ("x",)) == "results/p/runs/e/x~{x}/settings~{settings}/seeds~{block}.parquet"
    assert paper.table_file("t_runs") == "results/p/tables/t_runs.parquet"
    assert paper.figure_files("fig1") == {"pdf": "results/figures/p/fig1.pdf", "png": "results/figures/p/fig1.png"}
    assert paper.notebook("fig1") == "workflow/notebooks/p_fig1.py.ipynb"
    assert paper.caption("claims") == ".snakemake/report-captions/p_claims.rst"
    assert paper.caption("fig1", "out") == "out/p_fig1.rst"
    single = _paper(experiments=(_experiment(points=lambda s: [{}]),))
    assert single.run_file("e", {}, "0-0") == "results/p/runs/e/seeds~0-0.parquet"


def test_every_result_lies_in_its_scale_namespace_and_runs_under_their_settings():
    from privopt.pipeline.protocol import logs_root, results_root, settings_key

    paper = _paper()
    quick, full = results_root("quick"), results_root("paper")
    key = settings_key({"k": 3, "n": 10})
    assert key == settings_key({"n": 10, "k": 3}) != settings_key({"k": 3, "n": 11}) and len(key) == 12
    assert paper.run_file("e", {"x": 2.5}, "0-1", root=quick, settings=key) == \
        f"results/quick/p/runs/e/x~2.5/settings~{key}/seeds~0-1.parquet"
    assert paper.run_pattern("e", ("x",), root=full) == "results/paper/p/runs/e/x~{x}/settings~{settings}/seeds~{block}.parquet"
    files = {quick: set(), full: set()}
    for root in files:
        meta = paper.metadata(root, logs_root(root.split("/")[1]))
        files[root] = {meta["claims"], *meta["claims_tables"].values(), *meta["provenance"].values(),
                       *(f[k] for f in meta["figures"] for k in ("image", "pdf", "notebook")),
                       paper.table_file("t", root), paper.instance_file("i", "f", root), paper.checked_file("e", root)}
    assert not files[quick] & files[full]
    assert all(f.startswith(("results/quick/", "logs/quick/")) for f in files[quick])
    with pytest.raises(ValueError, match="must be a word"):
        results_root("../paper")


def test_the_results_of_a_paper_reading_data_lie_under_the_checks_of_its_data():
    """Results made from other data never share a path (a 150-record Uber file used to overwrite the subset's
    tables and figures): a paper's namespace holds the check of each data set it reads; a paper without data
    keeps the scale's, and its audits (which read no data) stay there too."""
    from privopt.pipeline.protocol import Instance, data_namespace, logs_root, results_root

    quick = results_root("quick")
    assert data_namespace(quick, {}) == quick
    subset, small = ({"uber": f"sha256-{h}", "toy": "generated-v1"} for h in ("8dfd591402b260e2", "0123456789abcdef"))
    reader = _paper(instances=(Instance("i", build="m:f", outputs=("f",), datasets=("uber",)),),
                    experiments=(_experiment(instances=("i",)),), audits=("m:audits",))
    roots = {what: reader.namespace(quick, checks) for what, checks in (("subset", subset), ("small", small))}
    # only the data sets it reads, named with their checks
    assert roots == {"subset": "results/quick/uber~sha256-8dfd591402b260e2",
                     "small": "results/quick/uber~sha256-0123456789abcdef"}
    files = {}
    for what, root in roots.items():
        logs = reader.namespace(logs_root("quick"), subset if what == "subset" else small)
        meta = reader.metadata(root, logs, audit_root=quick)
        files[what] = {meta["claims"], *meta["claims_tables"].values(), *meta["provenance"].values(),
                       *(f[k] for f in meta["figures"] for k in ("image", "pdf", "notebook")),
                       reader.run_file("e", {"x": 1}, "0-1", root=root, settings="a" * 12),
                       reader.instance_file("i", "f", root), reader.checked_file("e", root),
                       reader.notebook_page("fig1", root)}
        assert all(f.startswith((f"{root}/", f"{logs}/")) for f in files[what]), what
        assert meta["audit"] == "results/quick/audit/p.csv"
    assert not files["subset"] & files["small"]
    # several data sets: every check, in name order; a paper without data: the scale's namespace itself
    assert data_namespace(quick, {"uber": "canonical-e8af4b8e0c4adb58", "toy": "generated-v1"}) == \
        "results/quick/toy~generated-v1+uber~canonical-e8af4b8e0c4adb58"
    assert _paper().namespace(quick, subset) == _paper().namespace(quick, {}) == quick
    with pytest.raises(KeyError, match="uber"):
        reader.namespace(quick, {"toy": "generated-v1"})
    for bad in ({"uber": "a/b"}, {"uber": "x+y~z"}, {"ub er": "ok"}, {"uber": ""}):
        with pytest.raises(ValueError, match="data namespace"):
            data_namespace(quick, bad)


def test_the_data_checks_of_a_config_name_the_data_folder_and_the_results_namespace():
    from privopt.pipeline.config import load_config
    from privopt.pipeline.datasets import dataset

    uber = dataset("uber")
    for overrides, check in [({}, "canonical-e8af4b8e0c4adb58"),
                             ({"uber_sha256": "8DFD591402B260E2" + "0" * 48}, "sha256-8dfd591402b260e2")]:
        config = load_config([], overrides)
        assert uber.key(config) == check and uber.folder_of(config) == f"resources/uber/{check}"
    assert {p.key: p.namespace("results/quick", {"uber": "c"}) for p in papers().values()}["shariff2018"] == "results/quick"


def test_points_sharing_a_path_are_a_config_error():
    paper = _paper(experiments=(_experiment(points=lambda s: [{"x": "a"}, {"x": "a"}]),))
    with pytest.raises(ConfigError, match="share the path"):
        list(paper.run_jobs({"runs": 1, "per_job": 1}))


@pytest.mark.parametrize("change, message", [
    ({"key": "p-1"}, "must be a word"),
    ({"figures": (Figure("fig1", "F", "C", {"table": "nope"}),)}, "no experiment writes the tables"),
    ({"claims": Claims("m:f", ("nope",))}, "claims read tables"),
    ({"experiments": (_experiment(), _experiment())}, "must be distinct"),
    ({"experiments": (_experiment(instances=("inst",)),)}, "unknown instances"),
    ({"reading": "../shared/specs/p.md"}, "reading must name a page inside the repository"),
    ({"reading": "/work/notes/p.md"}, "reading must name a page inside the repository"),
])
def test_inconsistent_declarations_are_refused(change, message):
    with pytest.raises(ValueError, match=message):
        _paper(**change)


def test_every_callback_is_given_the_experiment_itself_first(monkeypatch):
    import privopt.pipeline.summary as summary

    seen = []
    monkeypatch.setattr(summary, "summarise", lambda *a: seen.append(a) or {"runs": pd.DataFrame()})
    exp = _experiment(run="privopt.pipeline.summary:summarise", tables="privopt.pipeline.summary:summarise",
                      prefix=Prefix(run="privopt.pipeline.summary:summarise", horizon=lambda s: 10))
    exp.execute({"x": 1}, {"k": 3}, (0, 1), {"i": "d"})
    exp.execute_prefix({"x": 1}, {"k": 3}, (0,), {}, 5)
    monkeypatch.setattr(summary, "summarise", lambda *a: seen.append(a) or {"t": pd.DataFrame(), "t_runs": pd.DataFrame()})
    exp.make_tables({"runs": pd.DataFrame()}, {"k": 3})
    assert [call[0] is exp for call in seen] == [True, True, True]
    assert seen[0][1:] == ({"x": 1}, {"k": 3}, [0, 1], {"i": "d"}) and seen[1][1:] == ({"x": 1}, {"k": 3}, [0], {}, 5)
    assert seen[2][2:] == ({"k": 3},)


def test_an_experiment_must_return_exactly_what_it_declares(monkeypatch):
    exp = _experiment(run="privopt.pipeline.summary:summarise")
    import privopt.pipeline.summary as summary

    monkeypatch.setattr(summary, "summarise", lambda *a: {"runs": pd.DataFrame(), "extra": pd.DataFrame()})
    with pytest.raises(ValueError, match="returned"):
        exp.execute({}, {}, [0], {})
    monkeypatch.setattr(summary, "summarise", lambda *a: {"t": pd.DataFrame()})
    with pytest.raises(ValueError, match="declares"):
        exp.make_tables({"runs": pd.DataFrame()}, {})


def test_findings_default_to_the_claims_modules_function_and_can_be_named(monkeypatch):
    """Claims.find: an explicit reference, else the ``findings`` of the evaluate module, else none."""
    import types

    module = types.ModuleType("fake_claims")
    monkeypatch.setitem(__import__("sys").modules, "fake_claims", module)
    claims = Claims("fake_claims:evaluate", ("t",))
    assert claims.findings_ref == "fake_claims:findings" and claims.find({}, None, {}) == []
    module.findings = lambda tables, claims, settings: ["A sentence.", Finding("About fig1.", figure="fig1")]
    assert claims.find({}, None, {}) == [Finding("A sentence."), Finding("About fig1.", "fig1")]
    module.other = lambda tables, claims, settings: [Finding(f"{len(tables)} tables, eps {settings['eps']}")]
    named = Claims("fake_claims:evaluate", ("t",), findings="fake_claims:other")
    assert named.findings_ref == "fake_claims:other" and named.find({"t": 1}, None, {"eps": 0.1})[0].text == "1 tables, eps 0.1"
    module.other = lambda tables, claims, settings: [Finding("  ")]
    with pytest.raises(TypeError, match="Finding"):
        named.find({}, None, {})


def test_metadata_names_what_the_report_reads():
    paper = _paper()
    meta = paper.metadata()
    assert meta["claims_tables"] == {"t": "results/p/tables/t.csv"}
    assert meta["figures"][0]["experiments"] == ["e"]
    assert meta["provenance"] == {"e": "results/p/tables/e.provenance.json"} == {"e": paper.provenance_file("e")}
    assert meta["reading"] == "docs/papers/p.md"  # the default page of how the paper was read
    assert _paper(reading="docs/adding-a-paper.md").metadata()["reading"] == "docs/adding-a-paper.md"


# ----------------------------------------------------------------------------- section readers and cost models


SECTION = {"c_sens": 1.0, "eps": [0.5, 1.0], "seeds_per_job": 4,
           "exp": {"T": [64.0, 256], "gaps": [0.0, 0.1], "readings": {"paper": {"s": 1}, "code": {"s": 2}},
                   "eps": [0.1, 1.0], "runs": 10, "privacy": {"samples": 5}}}


def test_a_grid_is_the_product_of_its_lists_first_key_outermost_and_cast():
    points = grid(reading="exp.readings", T=("exp.T", int))(SECTION)
    assert points == [{"reading": "paper", "T": 64}, {"reading": "paper", "T": 256},
                      {"reading": "code", "T": 64}, {"reading": "code", "T": 256}]
    assert all(type(p["T"]) is int for p in points)  # 64.0 in the config: the path says 64, not 64.0
    assert grid(gap=("exp.gaps", float))(SECTION) == [{"gap": 0.0}, {"gap": 0.1}]
    assert grid(T="exp.T", gap="exp.gaps")({"exp": {"T": [], "gaps": [0.0]}}) == []
    with pytest.raises(KeyError, match="'exp.dims'"):
        grid(d="exp.dims")(SECTION)


def test_a_whitelist_reads_the_config_s_own_values_under_their_names():
    got = reads("eps", "runs", under="exp", also=("c_sens", "seeds_per_job"))(SECTION, {"T": 64})
    assert got == {"c_sens": 1.0, "seeds_per_job": 4, "eps": [0.1, 1.0], "runs": 10}
    assert list(got) == ["c_sens", "seeds_per_job", "eps", "runs"]  # the top-level keys first
    assert got["eps"] is SECTION["exp"]["eps"]  # the value itself: what a hand-written whitelist returned
    # the digest of the run folder is that of the same dict written by hand
    assert settings_key(got) == settings_key({"c_sens": 1.0, "seeds_per_job": 4, "eps": [0.1, 1.0], "runs": 10})
    assert reads("c_sens", top_eps="eps", exp=reads("runs", under="exp"))(SECTION) == {
        "c_sens": 1.0, "top_eps": [0.5, 1.0], "exp": {"runs": 10}}
    with pytest.raises(ValueError, match="same setting name"):
        reads("eps", "exp.eps")
    copied = subsection("exp.privacy")(SECTION, {})
    copied["samples"] = 6
    assert copied == {"samples": 6} and SECTION["exp"]["privacy"] == {"samples": 5}
    assert seeds_from("exp.runs", "seeds_per_job")(SECTION) == (10, 4)


def test_an_experiment_without_grid_or_seeds_is_one_job_of_one_seed():
    exp = Experiment(name="e", label="E", points=one_point, settings=reads(), seeds=one_seed, run="m:f", tables="m:f",
                     table_files=(Table("t.csv"),))
    paper = _paper(experiments=(exp,), figures=(Figure("fig1", "F", "C", {"table": "t"}),), claims=Claims("m:f", ("t",)))
    assert [(j.point, j.block) for j in paper.run_jobs({})] == [({}, "0-0")]
    assert paper.run_file("e", {}, "0-0", settings=settings_key(exp.settings({}, {}))).endswith(
        "/runs/e/settings~44136fa355b3/seeds~0-0.parquet")


def test_one_cost_model_prices_every_experiment_of_a_paper_by_its_name():
    calls = []

    def model(experiment, settings, point, n_seeds):
        calls.append((experiment, dict(settings), dict(point), n_seeds))
        return {"a": 1.0, "b": 5.0}[experiment.name] * n_seeds

    a, b = (_experiment(name=n, cost=model, data_mb=model) for n in ("a", "b"))
    section = {"xs": [1], "k": 3, "runs": 2, "per_job": 2}
    assert run_cost.job_seconds(a, section, {"x": 1}, 2) == 2.0 and run_cost.job_seconds(b, section, {"x": 1}, 2) == 10.0
    assert run_cost.job_data_mb(b, section, {"x": 1}, 3) == 15.0
    assert calls[0] == (a, {"k": 3}, {"x": 1}, 2) and calls[0][0] is a  # the experiment itself, not its name
    assert run_cost.job_seconds(_experiment(), section, {"x": 1}, 2) == run_cost.FALLBACK_SECONDS


# ----------------------------------------------------------------------------- the registry


def test_the_registry_finds_every_paper_package_by_its_key():
    found = papers()
    assert {"chaturvedi2021", "shariff2018"} <= set(found)
    for key, paper in found.items():
        assert paper.key == key and paper.experiments and paper.figures
        assert paper.metadata()["figures"][0]["target"] == f"{key}_{paper.figures[0].id}"


def test_creating_a_package_registers_its_paper():
    """The toy paper's package, put beside the papers' packages, is a registered paper (and gone again)."""
    from privopt.pipeline import registry
    from workflow_runs import toy_in_process

    with toy_in_process() as toy:
        registry.papers.cache_clear()
        try:
            assert registry.papers()["toy"] is toy and registry.paper("toy") is toy
        finally:
            registry.papers.cache_clear()
    assert "toy" not in registry.papers()


def test_declaring_a_paper_imports_no_algorithm():
    """The workflow parses the registry on every start and in every job: it must stay light."""
    import subprocess
    import sys

    code = ("import sys; from privopt.pipeline.registry import papers; papers(); "
            "print(sorted(m for m in ('numba', 'scipy', 'pandas', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=SRC.parent)
    assert out.stdout.strip() == "[]"


def test_no_job_s_code_includes_a_declaration_so_editing_one_reruns_nothing():
    """A paper's declaration, its cost model, the section readers and the data sets' declarations only say which
    jobs exist and what each reads (the settings digest in its path): no run, tables, instance, claims or audit job imports them, so their
    code is in no job's digest and rewriting a declaration whose jobs and settings stay the same reruns nothing."""
    from privopt.pipeline.datasets import datasets

    declarations = {"privopt.pipeline.section_readers", "privopt.pipeline.cost", "privopt.pipeline.costguard",
                    "privopt.pipeline.datasets", *(f"privopt.datasets.{name}.dataset" for name in datasets())}
    for key, paper in papers().items():
        roots = [ref_module(r) for e in paper.experiments for r in (e.run, e.tables)]
        roots += [ref_module(i.build) for i in paper.instances] + [ref_module(paper.claims.evaluate)]
        roots += [ref_module(a) for a in paper.audits]
        mods = set(codedigest.closure(roots, SRC))
        own = {f"privopt.experiments.{key}.paper", f"privopt.experiments.{key}.cost"}
        assert not mods & (declarations | own), (key, sorted(mods & (declarations | own)))


# ----------------------------------------------------------------------------- code digests


@pytest.fixture()
def library(tmp_path):
    """A copy of the library source whose files a test may edit."""
    shutil.copytree(SRC / "privopt", tmp_path / "privopt", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_the_closure_follows_imports_transitively_with_parent_packages():
    mods = codedigest.closure(["privopt.experiments.chaturvedi2021.runs"], SRC)
    assert {"privopt", "privopt.submodular", "privopt.submodular.greedy", "privopt.mechanisms.accounting",
            "privopt.seeding", "privopt.experiments.chaturvedi2021"} <= set(mods)
    assert not any(m.startswith("privopt.bandits") for m in mods)
    bandit = codedigest.closure(["privopt.experiments.shariff2018.runs"], SRC)
    assert {"privopt.bandits.kernels", "privopt.bandits.parameters", "privopt.fastrng"} <= set(bandit)
    assert not any(m.startswith("privopt.submodular") for m in bandit)
    # the audit package imports only the auditing machinery: a job auditing one mechanism does not
    # depend on every other audited mechanism (CI once saw the Smith & Thakurta privacy runs rerun
    # after an edit of privopt.submodular.greedy)
    tbap = codedigest.closure(["privopt.experiments.smith2013.privacy"], SRC)
    assert "privopt.audit.core" in tbap and "privopt.mechanisms.tbap" in tbap
    assert not any(m.startswith(("privopt.submodular", "privopt.bandits", "privopt.audit.greedy")) for m in tbap)


def test_each_experiment_of_the_toy_paper_depends_on_the_modules_its_runs_import(library):
    """What the workflow's rerun scope rests on (tests/test_workflow.py edits these modules in a copy)."""
    from workflow_runs import add_toy_paper

    work = library.parent / f"{library.name}-toy"
    shutil.copytree(library, work / "src")
    add_toy_paper(work)
    laplace = codedigest.closure(["privopt.experiments.toy.runs"], work / "src")
    repeat = codedigest.closure(["privopt.experiments.toy.repeat"], work / "src")
    assert {"privopt.seeding", "privopt.pipeline.summary", "privopt.experiments.toy"} <= set(laplace) & set(repeat)
    assert "privopt.mechanisms.accounting" in repeat and "privopt.mechanisms.accounting" not in laplace
    assert "privopt.experiments.toy.runs" not in repeat


def test_relative_imports_are_followed(library):
    (library / "privopt" / "pipeline" / "rel.py").write_text("from .summary import summarise\nfrom . import cost\n")
    mods = codedigest.closure(["privopt.pipeline.rel"], library)
    assert {"privopt.pipeline.summary", "privopt.pipeline.cost"} <= set(mods)


def test_the_digest_changes_with_code_and_not_with_comments_or_docstrings(library):
    roots = ["privopt.experiments.chaturvedi2021.runs"]
    before = codedigest.code_digest(roots, library)
    greedy = library / "privopt" / "submodular" / "greedy.py"
    text = greedy.read_text()
    greedy.write_text('"""Another module docstring."""\n' + text.split('"""', 2)[2] + "\n# a comment\n")
    assert codedigest.code_digest(roots, library) == before
    greedy.write_text(text + "\n_X = 1\n")
    assert codedigest.code_digest(roots, library) != before
    greedy.write_text(text)
    bandits = library / "privopt" / "bandits" / "kernels.py"
    bandits.write_text(bandits.read_text() + "\n_X = 1\n")
    assert codedigest.code_digest(roots, library) == before  # not imported by these runs


def test_a_missing_module_is_an_error():
    with pytest.raises(ModuleNotFoundError):
        codedigest.closure(["privopt.nonesuch"], SRC)


# ----------------------------------------------------------------------------- table I/O


def test_tables_round_trip_and_empty_parts_do_not_change_dtypes(tmp_path):
    a = pd.DataFrame({"x": [1, 2], "y": [0.5, 1.25]})
    empty = a.iloc[:0].astype({"x": float})
    for i, frame in enumerate([a, empty, a]):
        write_table(frame, tmp_path / f"{i}.parquet")
    both = concat_tables([tmp_path / "0.parquet", tmp_path / "1.parquet", tmp_path / "2.parquet"])
    pd.testing.assert_frame_equal(both, pd.concat([a, a], ignore_index=True))
    assert len(concat_tables([tmp_path / "1.parquet"])) == 0
    write_table(a, tmp_path / "t.csv", float_format="%.3g")
    assert (tmp_path / "t.csv").read_text() == "x,y\n1,0.5\n2,1.25\n"
    with pytest.raises(ValueError):
        write_table(a, tmp_path / "t.txt")
    assert (tmp_path / "t.csv").stat().st_mode & 0o044  # readable by group and others (not 0600)


def test_a_notebook_s_roots_are_the_privopt_modules_its_code_imports(tmp_path):
    import json

    cells = [{"cell_type": "markdown", "source": ["import privopt.nonesuch\n"]},
             {"cell_type": "code", "source": ["%matplotlib inline\n", "from privopt import plotting as pp\n",
                                              "import numpy as np\n"]},
             {"cell_type": "code", "source": ["from privopt.experiments.perezsalazar2021 import figures as psf\n"]}]
    nb = tmp_path / "x.py.ipynb"
    nb.write_text(json.dumps({"cells": cells}))
    assert codedigest.notebook_imports(nb, SRC) == ["privopt", "privopt.experiments.perezsalazar2021",
                                                     "privopt.experiments.perezsalazar2021.figures", "privopt.plotting"]
    every = {m for path in (SRC.parent / "workflow" / "notebooks").glob("*.ipynb")
             for m in codedigest.notebook_imports(path, SRC)}
    assert "privopt.plotting" in every  # every figure is drawn through the shared style


def test_parses_are_kept_between_processes_by_content_and_an_edit_is_never_answered_from_the_cache(
        library, tmp_path, monkeypatch):
    """The code digests' parse cache (privopt.codedigest, ~/.cache/privopt): a fresh process answers from it
    without parsing, with the digest it computed; an edited file (even one edited back to an earlier content
    in between) gets the digest of its content, never a cached one of another; an unreadable cache is ignored."""
    import os
    import subprocess
    import sys

    roots = ["privopt.experiments.chaturvedi2021.runs"]
    script = ("import ast, sys; from pathlib import Path; from privopt import codedigest as c\n"
              "parses = []; real = ast.parse\n"
              "ast.parse = lambda *a, **k: parses.append(1) or real(*a, **k)\n"
              f"print(c.code_digest({roots!r}, Path(sys.argv[1])), len(parses))\n")

    def fresh_process():
        out = subprocess.run([sys.executable, "-c", script, str(library)], capture_output=True, text=True, check=True,
                             env={**os.environ, "PRIVOPT_CACHE_DIR": str(tmp_path / "cache")})
        digest, parses = out.stdout.split()
        return digest, int(parses)

    monkeypatch.setenv("PRIVOPT_CACHE_DIR", str(tmp_path / "in-process"))
    monkeypatch.setattr(codedigest, "_parse_cache", lambda store=codedigest._ParseCache(): store)
    expected = codedigest.code_digest(roots, library)
    first, parsed = fresh_process()
    assert first == expected and parsed > 10
    assert fresh_process() == (expected, 0)  # every module from the cache
    greedy = library / "privopt" / "submodular" / "greedy.py"
    text = greedy.read_text()
    greedy.write_text(text + "\n_X = 1\n")
    edited, parsed = fresh_process()
    assert edited != expected and parsed == 1
    greedy.write_text(text)
    assert fresh_process() == (expected, 0)
    (tmp_path / "cache" / f"codedigest-py{sys.version_info[0]}.{sys.version_info[1]}.json").write_text("{not json")
    assert fresh_process()[0] == expected
