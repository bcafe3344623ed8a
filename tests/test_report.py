"""privopt.pipeline.report: the summary, the findings, the per-figure settings and claims, the provenance (no browser)."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from privopt.pipeline.claims import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED
from privopt.pipeline.protocol import Claims, Experiment, Figure, Finding, Paper, Table
from privopt.pipeline.report import figure_settings, flatten_settings, render_report, summary_rows, verdict_findings

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
    return Paper(key="p", title="A paper", authors="A", venue="V", short="P 2020", experiments=(exp, exp2),
                 figures=(Figure("fig1", "Figure 1 — x", "The original caption.", {"table": "fig1"},
                                 caption='Our **figure** <i>: m = {{ snakemake.config["p"]["fig1"]["m"] }} at scale {{ snakemake.config["scale"] }}.'),
                          Figure("fig2", "Figure 2 — y", "Second caption.", {"table": "fig2"})),
                 claims=Claims("m:f", ("fig1",)))


CLAIMS = [("F1.a", "fig1", "paper", "s", "m1", "t", REPRODUCED),
          ("F1.a", "fig1", "code", "s", "m2", "t", NOT_REPRODUCED),
          ("F1.b", "fig1", "paper", "s", "m", "against R", REPRODUCED),
          ("F1.b", "fig1", "paper", "s", "m", "against E[R]", NOT_REPRODUCED),
          ("F1.c", "fig1", "paper", "s", "no data", "t", INCONCLUSIVE),
          ("S.1", "sanity", "", "s", "m", "t", REPRODUCED)]


def test_summary_counts_each_figures_rows_and_collects_claims_about_no_figure():
    rows = summary_rows(_paper().metadata(), _claims(CLAIMS))
    assert [(r["figure"], r["counts"][REPRODUCED], r["counts"][NOT_REPRODUCED], r["counts"][INCONCLUSIVE], r["n"])
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


def _figures_and_claims() -> dict:
    """In the current folder: the paper's figure images and claims table; returns its metadata."""
    meta = _paper().metadata()
    for fig in meta["figures"]:
        Path(fig["image"]).parent.mkdir(parents=True, exist_ok=True)
        Path(fig["image"]).write_bytes(PNG)
    Path(meta["claims"]).parent.mkdir(parents=True)
    _claims(CLAIMS).to_csv(meta["claims"], index=False)
    return meta


@pytest.fixture
def rendered(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    meta = _figures_and_claims()
    Path("results/p/tables").mkdir(parents=True)
    Path(meta["provenance"]["fig1"]).write_text(json.dumps({
        "tables": ["results/p/tables/fig1.csv"], "settings_digest": "d" * 64,
        "code_digest": {"runs": "a" * 64, "tables": "b" * 64},
        "environment": {"git": {"commit": "c" * 40, "dirty": False}}}))
    data = {"source": "/data/x.csv.gz", "canonical": False, "records": 99997, "verified_by": "sha256",
            "fetched_sha256": "e" * 64, "csv_git_blob_id": "f" * 40}
    render_report(TEMPLATE, {"p": meta}, {"p": {"eps": 0.1, "fig1": {"m": 100}, "exp2": {"n": 5}}}, {"uber": data}, "quick",
                  "index.html", findings={"p": [Finding("PCG0 beats Random by 1.7 (2.3 SE).", figure="fig1")]})
    return (tmp_path / "index.html").read_text()


def test_the_report_starts_with_the_summary_and_findings_and_links_every_section(rendered):
    html = rendered
    assert html.index('id="glance"') < html.index('id="summary"') < html.index('id="findings"') < html.index('id="contents"') < html.index('id="p"')
    assert "PCG0 beats Random by 1.7 (2.3 SE)." in html and "Claim F1.a is reproduced for reading paper" in html
    ids = set(re.findall(r'id="([^"]+)"', html))
    links = set(re.findall(r'href="#([^"]+)"', html))
    assert links and links <= ids, links - ids
    assert {"p-fig1", "p-fig1-claims", "p-fig2", "p-other", "p-other-claims", "provenance"} <= ids


def test_each_figure_has_its_caption_claims_and_settings_table(rendered):
    fig1 = rendered.split('id="p-fig1"', 1)[1].split('id="p-fig2"', 1)[0]
    assert "The original caption." in fig1 and "data:image/png;base64," in fig1
    # the declared caption, its config values filled in, its inline markup as HTML, the rest escaped
    assert "Our <b>figure</b> &lt;i&gt;: m = 100 at scale quick." in fig1
    assert fig1.count('<tr class="claim">') == 5  # the five rows of figure fig1's claims, none of S.1
    assert "<code>fig1.m</code></td><td>100</td>" in fig1 and "exp2" not in fig1
    assert "<details><summary>Raw YAML</summary>" in fig1


def test_provenance_lists_commit_packages_digests_date_scale_and_data(rendered):
    prov = rendered.split('id="provenance"', 1)[1]
    for text in ("git commit", "packages", "numpy", "config digest", "date", "quick", "/data/x.csv.gz", "e" * 64,
                 "99,997", "c" * 12, "a" * 12, "b" * 12, "d" * 12):
        assert text in prov, text


# ----------------------------------------------------------------------------- the reference beside this run


def test_each_claim_row_carries_the_reference_verdict_of_the_same_row():
    from privopt.pipeline.report import attach_reference

    mine = _claims(CLAIMS).to_dict("records")
    ref = _claims(CLAIMS).assign(verdict=NOT_REPRODUCED, measured="ref")
    ref = ref[ref["claim"] != "F1.c"]  # a row the reference lacks
    rows = attach_reference(mine, ref)
    assert [r["claim"] for r in rows] == [c["claim"] for c in mine]
    assert {r["reference_verdict"] for r in rows if r["claim"] != "F1.c"} == {NOT_REPRODUCED}
    assert all(r["reference_verdict"] == "" for r in rows if r["claim"] == "F1.c")
    assert all(r["reference_verdict"] == "" for r in attach_reference(mine, None))


@pytest.mark.parametrize("kind, verdicts, expected", [
    ("experimental", [REPRODUCED, REPRODUCED], "Reproduced at the reference scale: all 2 claim rows."),
    ("experimental", [REPRODUCED, REPRODUCED, INCONCLUSIVE],
     "No claim contradicted at the reference scale: 2 of 3 claim rows reproduced; 1 inconclusive."),
    ("experimental", [REPRODUCED, NOT_REPRODUCED], "Partly reproduced at the reference scale: 1 of 2 claim rows; not reproduced: C2."),
    ("theory", [REPRODUCED, NOT_REPRODUCED, REPRODUCED], "Theorems illustrated: 2 of 3 predictions hold at the reference scale; not reproduced: C2."),
])
def test_the_first_screen_line_says_what_the_reference_shows(kind, verdicts, expected):
    from privopt.pipeline.report import glance_row

    ref = pd.DataFrame({"claim": [f"C{i + 1}" for i in range(len(verdicts))], "verdict": verdicts})
    mine = ref.assign(verdict=INCONCLUSIVE)
    row = glance_row({"short": "P", "key": "p", "kind": kind}, mine, ref, {"label": "E: 1 point × 30 runs",
                                                                          "core_hours": 1.5, "changed_modules": {}})
    assert row["status"] == expected and row["label"] == "E: 1 point × 30 runs"
    assert row["this"][INCONCLUSIVE] == len(verdicts) and row["reference"][REPRODUCED] == verdicts.count(REPRODUCED)
    alone = glance_row({"short": "P", "key": "p", "kind": kind}, ref, None, None)
    assert alone["reference"] is None and "no reference yet" in alone["status"]


def test_the_report_shows_the_reference_figure_beside_this_runs_and_both_verdicts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    meta = _figures_and_claims()
    Path("ref.png").write_bytes(PNG)
    _claims(CLAIMS).assign(verdict=NOT_REPRODUCED, measured="at paper scale").to_csv("ref.csv", index=False)
    Path("about.json").write_text(json.dumps({"label": "Fig. 1: 30 runs", "core_hours": 2.5, "commit": "a" * 40,
                                              "changed_modules": {"fig1": ["privopt.x"]}, "cpu": "AMD EPYC"}))
    render_report(TEMPLATE, {"p": meta}, {"p": {}}, None, "quick", "index.html",
                  references={"p": {"claims": "ref.csv", "about": "about.json", "figures": {"fig1": "ref.png"}}})
    html = (tmp_path / "index.html").read_text()
    glance = html.split('id="glance"', 1)[1].split('id="summary"', 1)[0]
    assert "Fig. 1: 30 runs" in glance and "2.5 core-hours on AMD EPYC" in glance and "fig1: privopt.x" in glance
    # the changed modules fold under one line (counted once over the experiments) that says how to check them
    assert "1 module (<code>snakemake verify_p</code>" in glance and '<details class="changed">' in glance
    fig1 = html.split('id="p-fig1"', 1)[1].split('id="p-fig2"', 1)[0]
    assert "Reference scale: Fig. 1: 30 runs" in fig1 and 'href="ref.png"' in fig1 and "This run: scale quick" in fig1
    assert fig1.count("at paper scale") == 5 and "no external data" in html


# ----------------------------------------------------------------------------- figures: links and size


def test_each_figure_opens_full_size_and_links_its_pdf_notebook_and_tables_relative_to_the_report(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    meta = _figures_and_claims()
    for fig in meta["figures"]:
        for path in (fig["pdf"], fig["notebook"], *fig["tables"]):
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text("x")
    out = Path("results/quick/paper/index.html")
    render_report(TEMPLATE, {"p": meta}, {"p": {}}, None, "quick", out)
    html = out.read_text()
    fig1 = html.split('id="p-fig1"', 1)[1].split('id="p-fig2"', 1)[0]
    # the embedded image is a link to the full-size PNG
    assert re.search(r'<a class="zoom" href="[^"]+\.png"[^>]*><img src="data:image/png;base64,', fig1)
    hrefs = [h for h in re.findall(r'href="([^"#][^"]*)"', fig1)]
    fig = meta["figures"][0]
    wanted = {fig["image"], fig["pdf"], fig["notebook"], *fig["tables"]}
    resolved = {(out.parent / h).resolve() for h in hrefs}
    assert {Path(w).resolve() for w in wanted} <= resolved, (hrefs, wanted)
    assert all(not h.startswith("/") and (out.parent / h).exists() for h in hrefs), hrefs


def test_a_wide_figure_is_embedded_scaled_down_and_smaller_and_a_small_one_as_it_is(tmp_path):
    import io

    import numpy as np
    from PIL import Image

    from privopt.pipeline.report import EMBED_WIDTH, embedded_png

    rng = np.random.default_rng(0)
    pixels = np.full((700, 2000, 3), 255, dtype=np.uint8)
    pixels[::7, :, :] = rng.integers(0, 255, size=(100, 2000, 3), dtype=np.uint8)  # lines, many colours
    Image.fromarray(pixels).save(tmp_path / "wide.png")
    b64, size = embedded_png(tmp_path / "wide.png")
    small = Image.open(io.BytesIO(base64.b64decode(b64)))
    assert size == (2000, 700) and small.width == EMBED_WIDTH and small.height == round(700 * EMBED_WIDTH / 2000)
    assert len(base64.b64decode(b64)) < (tmp_path / "wide.png").stat().st_size
    (tmp_path / "dot.png").write_bytes(PNG)
    b64, size = embedded_png(tmp_path / "dot.png")
    assert size == (1, 1) and Image.open(io.BytesIO(base64.b64decode(b64))).size == (1, 1)


def test_save_shows_the_figure_only_inside_a_notebook(tmp_path):
    from privopt.plotting import show

    (tmp_path / "f.png").write_bytes(PNG)
    assert show(tmp_path / "f.png") is False  # no IPython kernel here
