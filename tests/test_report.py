"""privopt.report: the summary, the findings, the per-figure settings and claims, the provenance (no browser)."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from privopt.experiments.claims import NOT_EVALUATED, NOT_REPRODUCED, REPRODUCED
from privopt.experiments.protocol import Claims, Experiment, Figure, Finding, Paper, Table
from privopt.report import figure_settings, flatten_settings, render_report, summary_rows, verdict_findings

TEMPLATE = Path(__file__).resolve().parents[1] / "paper" / "report.html.j2"
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def _claims(rows) -> pd.DataFrame:
    cols = ["paper", "claim", "figure", "reading", "statement", "measured", "threshold", "verdict", "scale", "details"]
    return pd.DataFrame([dict(zip(cols, ("p", *r, "x", "quick", ""))) for r in rows], columns=cols)


def _paper() -> Paper:
    exp = Experiment(name="fig1", label="F1", points=lambda s: [{}], settings=lambda s, p: {}, seeds=lambda s: (1, 1),
                     run="m:f", tables="m:f", table_files=(Table("fig1.csv"),))
    exp2 = Experiment(name="exp2", label="E2", points=lambda s: [{}], settings=lambda s, p: {}, seeds=lambda s: (1, 1),
                      run="m:f", tables="m:f", table_files=(Table("fig2.csv"),))
    return Paper(key="p", title="A paper", authors="A", venue="V", spec="S", short="P 2020", experiments=(exp, exp2),
                 figures=(Figure("fig1", "Figure 1 — x", "The original caption.", {"table": "fig1"}),
                          Figure("fig2", "Figure 2 — y", "Second caption.", {"table": "fig2"})),
                 claims=Claims("m:f", ("fig1",)))


CLAIMS = [("F1.a", "fig1", "paper", "s", "m1", "t", REPRODUCED),
          ("F1.a", "fig1", "code", "s", "m2", "t", NOT_REPRODUCED),
          ("F1.b", "fig1", "paper", "s", "m", "against R", REPRODUCED),
          ("F1.b", "fig1", "paper", "s", "m", "against E[R]", NOT_REPRODUCED),
          ("F1.c", "fig1", "paper", "s", "no data", "t", NOT_EVALUATED),
          ("S.1", "sanity", "", "s", "m", "t", REPRODUCED)]


def test_summary_counts_each_figures_rows_and_collects_claims_about_no_figure():
    rows = summary_rows(_paper().metadata(), _claims(CLAIMS))
    assert [(r["figure"], r["counts"][REPRODUCED], r["counts"][NOT_REPRODUCED], r["counts"][NOT_EVALUATED], r["n"])
            for r in rows] == [("Figure 1 — x", 2, 2, 1, 5), ("Figure 2 — y", 0, 0, 0, 0),
                               ("claims about no single figure", 1, 0, 0, 1)]
    assert [r["anchor"] for r in rows] == ["p-fig1", "p-fig2", "p-other"]


def test_verdict_findings_name_the_rows_that_disagree():
    found = verdict_findings(_claims(CLAIMS))
    assert [f.figure for f in found] == ["fig1", "fig1"]
    assert found[0].text == "Claim F1.a is reproduced for reading paper; not reproduced for reading code."
    assert found[1].text == ("Claim F1.b is for reading paper, reproduced with threshold “against R” and "
                             "not reproduced with threshold “against E[R]”.")  # same reading: the thresholds tell
    assert not verdict_findings(_claims(CLAIMS[4:]))  # "not evaluated" disagrees with nothing


def test_settings_of_a_figure_are_its_experiments_subsection_and_the_shared_keys():
    section = {"eps": 0.1, "seeds": 5, "fig1": {"ranks": [10, 16], "readings": {"paper": {"s": 500, "on": True}}},
               "exp2": {"n": None}}
    own = figure_settings(section, ["fig1"])
    assert own == {"eps": 0.1, "seeds": 5, "fig1": section["fig1"]}
    assert flatten_settings(own) == [("eps", "0.1"), ("seeds", "5"), ("fig1.ranks", "10, 16"),
                                     ("fig1.readings.paper.s", "500"), ("fig1.readings.paper.on", "true")]
    assert figure_settings(section, ["absent"]) == section


@pytest.fixture
def rendered(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    paper = _paper()
    meta = paper.metadata()
    for fig in meta["figures"]:
        Path(fig["image"]).parent.mkdir(parents=True, exist_ok=True)
        Path(fig["image"]).write_bytes(PNG)
    Path(meta["claims"]).parent.mkdir(parents=True)
    _claims(CLAIMS).to_csv(meta["claims"], index=False)
    Path("results/p/tables").mkdir(parents=True)
    Path(meta["provenance"]["fig1"]).write_text(json.dumps({
        "tables": ["results/p/tables/fig1.csv"], "settings_digest": "d" * 64,
        "code_digest": {"runs": "a" * 64, "tables": "b" * 64},
        "environment": {"git": {"commit": "c" * 40, "dirty": False}}}))
    data = {"source": "/data/x.csv.gz", "canonical": False, "records": 99997, "verified_by": "sha256",
            "fetched_sha256": "e" * 64, "csv_git_blob_id": "f" * 40}
    render_report(TEMPLATE, {"p": meta}, {"p": {"eps": 0.1, "fig1": {"m": 100}, "exp2": {"n": 5}}}, data, "quick",
                  "index.html", findings={"p": [Finding("PCG0 beats Random by 1.7 (2.3 SE).", figure="fig1")]})
    return (tmp_path / "index.html").read_text()


def test_the_report_starts_with_the_summary_and_findings_and_links_every_section(rendered):
    html = rendered
    assert html.index('id="summary"') < html.index('id="findings"') < html.index('id="contents"') < html.index('id="p"')
    assert "PCG0 beats Random by 1.7 (2.3 SE)." in html and "Claim F1.a is reproduced for reading paper" in html
    ids = set(re.findall(r'id="([^"]+)"', html))
    links = set(re.findall(r'href="#([^"]+)"', html))
    assert links and links <= ids, links - ids
    assert {"p-fig1", "p-fig1-claims", "p-fig2", "p-other", "p-other-claims", "provenance"} <= ids


def test_each_figure_has_its_caption_claims_and_settings_table(rendered):
    fig1 = rendered.split('id="p-fig1"', 1)[1].split('id="p-fig2"', 1)[0]
    assert "The original caption." in fig1 and "data:image/png;base64," in fig1
    assert fig1.count("<tr class=") == 5  # the five rows of figure fig1's claims, none of S.1
    assert "<code>fig1.m</code></td><td>100</td>" in fig1 and "exp2" not in fig1
    assert "<details><summary>Raw YAML</summary>" in fig1


def test_provenance_lists_commit_packages_digests_date_scale_and_data(rendered):
    prov = rendered.split('id="provenance"', 1)[1]
    for text in ("git commit", "packages", "numpy", "config digest", "date", "quick", "/data/x.csv.gz", "e" * 64,
                 "99,997", "c" * 12, "a" * 12, "b" * 12, "d" * 12):
        assert text in prov, text
