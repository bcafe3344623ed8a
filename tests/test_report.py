"""privopt.pipeline.report: the verdict first, the open claims, the summary at both scales, the findings, the per-figure
settings and claims, the provenance and audits pages (no browser)."""

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


def test_the_report_opens_on_the_verdict_and_links_every_section_and_page(rendered):
    html = rendered
    order = [html.index(f'id="{i}"') for i in ("contents", "verdict", "open", "summary", "findings", "p")]
    assert order == sorted(order), order
    assert "PCG0 beats Random by 1.7 (2.3 SE)." in html and "Claim F1.a is reproduced for reading paper" in html
    ids = set(re.findall(r'id="([^"]+)"', html))
    links = set(re.findall(r'href="#([^"]+)"', html))
    assert links and links <= ids, links - ids
    assert {"p-fig1", "p-fig1-claims", "p-fig2", "p-other", "p-other-claims"} <= ids
    # the pages the first screen links to are written beside the report, and link back
    contents = html.split('id="contents"', 1)[1].split("</nav>", 1)[0]
    for page in ("provenance.html", "audits.html"):
        assert f'href="{page}' in contents and 'href="index.html' in Path(page).read_text()
    # no reference: the open claims are this run's, say so, and are folded below the reference's (none here)
    open_rows = html.split('id="open"', 1)[1].split("</section>", 1)[0]
    assert open_rows.count('<tr class="open-claim-run"') == 3 and "this run (quick); no reference yet" in open_rows
    assert '<tr class="open-claim"' not in open_rows and '<details class="unreferenced">' in open_rows


def test_each_figure_has_its_caption_at_its_scale_claims_and_settings_behind_a_disclosure(rendered):
    fig1 = rendered.split('id="p-fig1"', 1)[1].split('id="p-fig2"', 1)[0]
    assert "The original caption." in fig1 and "data:image/png;base64," in fig1
    # the declared caption, its config values filled in, its inline markup as HTML, the rest escaped, its scale said
    assert "Our <b>figure</b> &lt;i&gt;: m = 100 at scale quick." in fig1
    assert "caption at this run's settings, scale quick" in fig1
    assert fig1.count('<tr class="claim">') == 5  # the five rows of figure fig1's claims, none of S.1
    assert "<code>fig1.m</code></td><td>100</td>" in fig1 and "exp2" not in fig1
    settings = fig1.split('<details class="settings more">', 1)[1]
    assert settings.startswith("<summary>Settings of this run (quick)") and "<details><summary>Raw YAML</summary>" in settings


def test_provenance_page_lists_commit_packages_digests_date_scale_and_data(rendered):
    prov = Path("provenance.html").read_text()
    assert 'id="provenance"' not in rendered and "numpy" not in rendered  # moved off the report
    for text in ("git commit", "packages", "numpy", "config digest", "date", "quick", "/data/x.csv.gz", "e" * 64,
                 "99,997", "c" * 12, "a" * 12, "b" * 12, "d" * 12, "No reference results yet"):
        assert text in prov, text


def test_audits_page_holds_each_audit_beside_its_planted_bug(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    meta = _figures_and_claims()
    rows = [{"audit": "A1", "paper": "p", "mechanism": "Laplace", "instance": "i", "relation": "r", "variant": v,
             "bug": b, "claimed_eps": 1.0, "claimed_delta": 0.0, "eps_lb": lb, "exact_eps": 1.0, "samples": 300,
             "result": res, "tightness": "loose", "tightness_note": "far"}
            for v, b, lb, res in (("correct", "", 0.4, "pass"), ("planted", "no noise", 9.0, "caught"))]
    pd.DataFrame(rows).to_csv("audits.csv", index=False)
    render_report(TEMPLATE, {"p": meta}, {"p": {}}, None, "quick", "index.html", audits="audits.csv",
                  audit_settings={"samples": 300})
    audits = Path("audits.html").read_text()
    assert "A1" in audits and "no noise" in audits and "pass; planted: caught" in audits and "samples per input:\n300" in audits
    assert "A1" not in Path("index.html").read_text()


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
    assert ("theorems" in row["kind_text"]) == (kind == "theory") and row["settings"] == "not recorded"
    assert row["this"][INCONCLUSIVE] == len(verdicts) and row["reference"][REPRODUCED] == verdicts.count(REPRODUCED)
    alone = glance_row({"short": "P", "key": "p", "kind": kind}, ref, None, None)
    assert alone["reference"] is None and "no reference yet" in alone["status"]


def test_the_first_screen_gives_both_scales_the_settings_and_every_open_claim_with_its_statement(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    meta = _figures_and_claims()
    other = Path("other.png")
    from PIL import Image

    Image.new("RGB", (4, 3), "red").save(other)
    ref = _claims(CLAIMS).assign(measured="at paper scale")
    ref.loc[ref["claim"] == "F1.c", "needs"] = "10^7 rounds"
    ref.to_csv("ref.csv", index=False)
    Path("refdir").mkdir()
    Path("refdir/manifest.json").write_text(json.dumps({"figures": {"fig1": {"paper_settings": True, "differs": []},
                                                                    "fig2": {"paper_settings": False, "differs": ["e2: 5 runs (paper scale: 30)"]}}}))
    Path("about.json").write_text(json.dumps({"label": "Fig. 1: 30 runs; Fig. 2: 5 runs", "core_hours": 2.5,
                                              "commit": "a" * 40, "changed_modules": {"fig1": ["privopt.x"]},
                                              "cpu": "AMD EPYC", "scale": "paper", "folder": "refdir",
                                              "parts": [{"experiments": ["e1"], "written": "2026-01-02", "commit": "b" * 40,
                                                         "core_hours": 2.0},
                                                        {"experiments": ["e2"], "written": "2026-02-03", "commit": "a" * 40,
                                                         "dirty": True, "core_hours": 0.5}],
                                              "pending": [{"experiment": "e2", "label": "Fig. 2", "done": 2, "total": 30,
                                                           "core_hours": 2.5, "folder": "reference/pending/p/e2"}]}))
    render_report(TEMPLATE, {"p": meta}, {"p": {}}, None, "quick", "index.html",
                  references={"p": {"claims": "ref.csv", "about": "about.json",
                                    "figures": {"fig1": meta["figures"][0]["image"], "fig2": str(other)},
                                    "figure_labels": {"fig1": "Fig. 1: 30 runs", "fig2": "Fig. 2: 5 runs"}}})
    html = (tmp_path / "index.html").read_text()
    verdict = html.split('id="verdict"', 1)[1].split("</section>", 1)[0]
    # reference 3 / 2 / 1 (the CLAIMS rows), this run the same table; the settings flag read from the manifest
    assert verdict.count('<tr class="paper-line"') == 1 and verdict.count("3 / 2 / 1") == 2
    assert "yes, except Figure 2" in verdict and "new figures" not in verdict
    # a part in progress under reference/pending/: how far it is, on the first screen
    assert "in progress: Fig. 2 (e2), 2 of 30 run jobs, in reference/pending/p/e2" in verdict
    open_rows = html.split('id="open"', 1)[1].split("</section>", 1)[0]
    rows = re.findall(r'<tr class="open-claim"[^>]*>(.*?)</tr>', open_rows, re.S)
    assert [re.search(r'href="#[^"]+">([^<]+)<', r)[1] for r in rows] == ["F1.a", "F1.b", "F1.c"]  # not reproduced first
    assert all('<div class="clamp">s</div>' in r and "at paper scale" in r for r in rows)  # statement and the reference's value
    assert "10^7 rounds" in rows[2] and "decided against its threshold: against E[R]" in rows[1]
    # the provenance moved to its own page: core-hours, CPU, commit, changed modules
    assert "core-hours" not in html and "privopt.x" not in html
    prov = Path("provenance.html").read_text()
    assert "2.5 core-hours on AMD EPYC" in prov and "fig1: privopt.x" in prov and "1 module (<code>snakemake verify_p</code>" in prov
    # a reference written in parts: each part's experiments, date, commit and core-hours
    assert re.search(r"written in parts</th><td>e1: 2026-01-02, commit <code>b{12}</code>, 2.0 core-hours<br>"
                     r"e2: 2026-02-03, commit <code>a{12}</code> \(uncommitted changes\), 0.5 core-hours</td>", prov)
    # a pair of the same picture is shown once; a different one behind a disclosure, each with its own label
    fig1 = html.split('id="p-fig1"', 1)[1].split('id="p-fig2"', 1)[0]
    assert fig1.count("<img") == 1 and "shows the same data" in fig1 and "Fig. 1: 30 runs" in fig1 and "Fig. 2" not in fig1
    assert "at the paper's settings" in fig1
    # its claims folded under a line with the counts at both scales and the claims open at the reference scale
    assert re.search(r'<details class="claims"><summary><b>Claims of this figure</b>: 5 rows;\s+'
                     r'reference scale <span[^>]*>2 / 2 / 1</span>, this run \(quick\) <span[^>]*>2 / 2 / 1</span>; '
                     r'<b>open or failing at the reference scale: F1.a, F1.b, F1.c</b></summary>\s*<table class="wide claims" id="p-fig1-claims">',
                     fig1), fig1[:3000]
    fig2 = html.split('id="p-fig2"', 1)[1]
    assert fig2.count("<img") == 2 and '<details class="this-run"><summary>This run\'s figure (scale quick)' in fig2
    assert "<b>not</b> at the paper's settings (e2: 5 runs (paper scale: 30))" in fig2
    assert "Figure 2 — y: e2: 5 runs (paper scale: 30)" in prov
    summary = html.split('id="summary"', 1)[1].split("</section>", 1)[0]
    assert summary.count("2 / 2 / 1") == 2 and "this run (quick)" in summary


@pytest.mark.parametrize("manifest, expected", [
    (None, "not recorded"),
    ({}, "not recorded"),
    ({"paper_settings": {"fig1": True, "fig2": True}}, "yes, every figure"),
    ({"figures": {"fig1": {"paper_settings": True}, "fig2": {"paper_settings": False}}}, "yes, except Figure 2"),
    ({"paper_settings": {"fig1": False, "fig2": False}}, "no figure"),
    ({"paper_settings": {"fig1": True}}, "yes, 1 of 2 figures recorded"),
])
def test_whether_a_reference_is_at_the_papers_settings_comes_from_its_manifest(manifest, expected):
    from privopt.pipeline.report import paper_settings_flags, settings_note

    figures = [{"id": "fig1", "title": "Figure 1 — x"}, {"id": "fig2", "title": "Figure 2 — y"}]
    assert settings_note(paper_settings_flags(manifest), figures) == expected


def test_a_figure_gets_the_part_of_the_reference_description_about_it():
    from privopt.pipeline.report import figure_scale_label

    generic = "P E1 (runs): 12 points × 400 runs; P E2: 10 points × 400 runs"
    assert figure_scale_label(generic, ["P E2"], "Figure 2 — y") == "P E2: 10 points × 400 runs"
    named = "Figs. 2–3: 100 runs on 10^5-round runs; Fig. 4: 30 runs on prefixes; Fig. 4c: 30 runs; Fig. 5: 5 gaps"
    assert figure_scale_label(named, ["S Fig. 4 (Exp. 2)"], "Figure 3 — regret vs d") == "Figs. 2–3: 100 runs on 10^5-round runs"
    assert figure_scale_label(named, [], "Figure 4 — private variants") == "Fig. 4: 30 runs on prefixes"
    assert figure_scale_label(named, [], "Figure 4c (new) — per counter") == "Fig. 4c: 30 runs"
    assert figure_scale_label(named, [], "Figure 1 — decision set") == ""
    assert figure_scale_label(generic, [], "ST-0 — error") == ""


def test_same_picture_compares_pixels_not_bytes(tmp_path):
    from PIL import Image

    from privopt.pipeline.report import same_picture

    im = Image.new("RGB", (20, 10), "white")
    im.save(tmp_path / "a.png")
    im.save(tmp_path / "b.png", optimize=True, compress_level=1)  # other bytes, same pixels
    im.putpixel((3, 4), (0, 0, 0))
    im.save(tmp_path / "c.png")
    assert (tmp_path / "a.png").read_bytes() != (tmp_path / "b.png").read_bytes()
    assert same_picture(tmp_path / "a.png", tmp_path / "b.png")
    assert not same_picture(tmp_path / "a.png", tmp_path / "c.png")
    Image.new("RGB", (20, 11), "white").save(tmp_path / "d.png")
    assert not same_picture(tmp_path / "a.png", tmp_path / "d.png")


def test_same_tables_compares_a_figures_tables_with_the_references_row_for_row(tmp_path):
    from privopt.pipeline.report import same_tables

    (tmp_path / "run").mkdir()
    (tmp_path / "ref" / "tables").mkdir(parents=True)
    frame = pd.DataFrame({"t": [1, 2, 3], "regret": [0.5, 0.25, 0.125]})
    frame.to_csv(tmp_path / "run" / "f.csv", index=False)
    frame.to_csv(tmp_path / "ref" / "tables" / "f.csv", index=False)
    assert same_tables([tmp_path / "run" / "f.csv"], tmp_path / "ref")
    frame.assign(regret=[0.5, 0.25, 0.126]).to_csv(tmp_path / "ref" / "tables" / "f.csv", index=False)
    assert not same_tables([tmp_path / "run" / "f.csv"], tmp_path / "ref")  # one value differs
    assert not same_tables([tmp_path / "run" / "f.csv", tmp_path / "run" / "g.csv"], tmp_path / "ref")  # one absent
    assert not same_tables([], tmp_path / "ref") and not same_tables([tmp_path / "run" / "f.csv"], "")


def test_findings_on_the_reference_come_first_and_say_their_scale(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    meta = _figures_and_claims()
    _claims(CLAIMS).to_csv("ref.csv", index=False)
    Path("about.json").write_text(json.dumps({"label": "L", "scale": "paper", "changed_modules": {}}))
    render_report(TEMPLATE, {"p": meta}, {"p": {}}, None, "quick", "index.html",
                  findings={"p": [Finding("Run sentence.", figure="fig1")]},
                  references={"p": {"claims": "ref.csv", "about": "about.json", "figures": {}}},
                  reference_found={"p": [Finding("Reference sentence.", figure="fig1")]})
    found = Path("index.html").read_text().split('id="findings"', 1)[1].split("</section>", 1)[0]
    assert found.index("At the reference scale</b> (paper)") < found.index("Reference sentence.") \
        < found.index("At this run's scale</b> (quick)") < found.index("Run sentence.")


def test_findings_on_a_reference_that_lacks_a_table_say_so(tmp_path, monkeypatch):
    import privopt.pipeline.reference_results as reference
    import privopt.pipeline.registry as registry
    from privopt.pipeline.report import reference_findings

    class Stub:
        def find(self, tables, claims, settings):
            return [Finding(f"{len(claims)} rows, setting {settings['k']}.")] if "t" in tables else tables["t"]

        def settings(self, section):
            return {"k": section["k"]}

        inputs = ("t",)

    monkeypatch.setattr(registry, "paper", lambda key: type("P", (), {"claims": Stub()})())
    monkeypatch.setattr(reference, "read_manifest", lambda folder: {"config": {"k": 7}})
    tables = {"t": pd.DataFrame()}
    monkeypatch.setattr(reference, "reference_tables", lambda folder, paper, stems: tables)
    _claims(CLAIMS).to_csv(tmp_path / "ref.csv", index=False)
    (tmp_path / "about.json").write_text(json.dumps({"folder": "reference/p"}))
    refs = {"p": {"claims": str(tmp_path / "ref.csv"), "about": str(tmp_path / "about.json")}}
    assert [f.text for f in reference_findings({"p": {}, "q": {}}, refs)["p"]] == ["6 rows, setting 7."]
    tables.clear()
    assert [f.text for f in reference_findings({"p": {}}, refs)["p"]] == ["No findings on the reference: it lacks 't' (in reference/p)."]


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


def test_the_figures_embed_to_the_same_bytes_on_two_processes(tmp_path):
    """The report job embeds its figures on its two threads (privopt.pipeline.report.embedded_pngs): the same bytes,
    in the same order, as one by one; a figure named twice (a reference beside its run) is embedded once."""
    import numpy as np
    from PIL import Image

    from privopt.pipeline.report import embedded_png, embedded_pngs

    rng = np.random.default_rng(1)
    paths = []
    for i, width in enumerate((1800, 300, 900)):
        pixels = np.full((200, width, 3), 255, dtype=np.uint8)
        pixels[:: 3 + i, :, :] = rng.integers(0, 255, size=(len(range(0, 200, 3 + i)), width, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(tmp_path / f"f{i}.png")
        paths.append(tmp_path / f"f{i}.png")
    one = embedded_pngs([*paths, paths[0]], workers=1)
    two = embedded_pngs([*paths, paths[0]], workers=2)
    assert list(one) == list(two) == [str(p) for p in paths]
    assert one == two == {str(p): embedded_png(p) for p in paths}


def test_save_shows_the_figure_only_inside_a_notebook(tmp_path):
    from privopt.plotting import show

    (tmp_path / "f.png").write_bytes(PNG)
    assert show(tmp_path / "f.png") is False  # no IPython kernel here


# ---------------------------------------------------------------------------------------------------- the paper beside us

def test_a_figure_shows_what_the_paper_reports_beside_the_reference_and_this_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    meta = _figures_and_claims()
    rows = {"fig2": [{"quantity": "the slope", "paper": "roughly 2", "where": "App. D.1, on Figure 3",
                      "reference": "1.85 and 1.98", "this_run": "1.7"}]}
    render_report(TEMPLATE, {"p": meta}, {"p": {}}, None, "quick", "index.html", reported={"p": rows})
    html = Path("index.html").read_text()
    fig1 = html.split('id="p-fig1"', 1)[1].split('id="p-fig2"', 1)[0]
    fig2 = html.split('id="p-fig2"', 1)[1]
    assert "the paper beside us" not in fig1  # the paper reports nothing about Figure 1 here
    table = fig2.split("the paper beside us", 1)[1].split("</table>", 1)[0]
    assert ("<td>the slope</td><td>roughly 2 <small>(App. D.1, on Figure 3)</small></td><td>1.85 and 1.98</td>"
            "<td>1.7</td>") in table and "this run (quick)" in table


def _registered(monkeypatch, reported):
    """Make ``paper("p")`` the test paper, declaring ``reported`` (module attribute of this test module)."""
    import sys

    import privopt.pipeline.registry as registry

    the = _paper()
    the = Paper(**{**{f: getattr(the, f) for f in the.__dataclass_fields__}, "reported": f"{__name__}:_REPORTED"})
    monkeypatch.setattr(sys.modules[__name__], "_REPORTED", reported, raising=False)
    monkeypatch.setattr(registry, "papers", lambda: {"p": the})


def test_paper_numbers_measure_each_reported_quantity_on_both_scales_tables(tmp_path, monkeypatch):
    from privopt.pipeline.protocol import Reported
    from privopt.pipeline.report import paper_numbers

    monkeypatch.chdir(tmp_path)
    _registered(monkeypatch, (Reported("fig1", "largest x", "10", "Figure 1", lambda t: f"{t['table']['x'].max()}"),))
    meta = _paper().metadata()
    Path(meta["figures"][0]["tables"][0]).parent.mkdir(parents=True)
    pd.DataFrame({"x": [1, 4]}).to_csv(meta["figures"][0]["tables"][0], index=False)
    (tmp_path / "ref" / "tables").mkdir(parents=True)
    pd.DataFrame({"x": [3, 9]}).to_csv(tmp_path / "ref" / "tables" / "fig1.csv", index=False)
    Path("about.json").write_text(json.dumps({"folder": str(tmp_path / "ref")}))
    got = paper_numbers({"p": meta}, {"p": {"about": "about.json"}})
    assert got == {"p": {"fig1": [{"quantity": "largest x", "paper": "10", "where": "Figure 1", "reference": "9",
                                   "this_run": "4"}]}}
    # without a reference, or a reference without the figure's table: '' there (shown as —)
    assert paper_numbers({"p": meta})["p"]["fig1"][0]["reference"] == ""
    (tmp_path / "ref" / "tables" / "fig1.csv").unlink()
    assert paper_numbers({"p": meta}, {"p": {"about": "about.json"}})["p"]["fig1"][0]["reference"] == ""


def test_paper_numbers_name_the_declaration_of_an_unknown_figure_or_a_failing_measure(tmp_path, monkeypatch):
    from privopt.pipeline.protocol import Reported
    from privopt.pipeline.report import paper_numbers

    monkeypatch.chdir(tmp_path)
    meta = _paper().metadata()
    _registered(monkeypatch, (Reported("fig9", "q", "1", "w", lambda t: "1"),))
    with pytest.raises(ValueError, match=r"test_report:_REPORTED: figures \['fig9'\] are not declared by paper p"):
        paper_numbers({"p": meta})
    _registered(monkeypatch, (Reported("fig1", "largest y", "1", "w", lambda t: str(t["table"]["y"].max())),))
    Path(meta["figures"][0]["tables"][0]).parent.mkdir(parents=True)
    pd.DataFrame({"x": [1]}).to_csv(meta["figures"][0]["tables"][0], index=False)
    with pytest.raises(RuntimeError, match=r"measuring “largest y” of figure fig1 on .*fig1.csv.* failed: KeyError"):
        paper_numbers({"p": meta})


@pytest.mark.parametrize("key", ["chaturvedi2021", "shariff2018"])
def test_each_papers_reported_numbers_measure_its_committed_reference(key):
    """Every declared number of the paper, measured on its committed reference tables: a value for each, and the
    values the paper's text lets one check by eye where they are exact (Shariff & Sheffet's Fig. 1 set: 1,000
    actions, the optimal one at 0.75; Chaturvedi et al.'s ε0 ≈ 0.01006)."""
    from privopt.pipeline.registry import paper
    from privopt.pipeline.report import paper_beside_us

    repo = Path(__file__).resolve().parents[1]
    the = paper(key)
    rows = {}
    for fig in the.figures:
        tables = [next((repo / "reference" / key / "tables").glob(f"{stem}.*"), None) for stem in fig.inputs.values()]
        if None not in tables:  # a figure declared after the reference was written (Fig. 4e) has none
            rows[fig.id] = paper_beside_us(key, fig.id, tables, repo / "reference" / key)
    measured = {r["quantity"]: r["reference"] for found in rows.values() for r in found}
    assert measured and all(measured.values()), measured
    assert all(r["reference"] == r["this_run"] for found in rows.values() for r in found)  # the same tables twice
    if key == "shariff2018":
        assert measured["the example decision set"] == "1,000 actions, d = 3"
        assert measured["the optimal action's mean reward"] == "0.750"
        assert set(rows) >= {"fig1", "fig2", "fig3", "fig4", "fig5"}
    else:
        assert measured["PCG's per-step privacy parameter ε0"].count("0.0100") == 2  # both readings
        assert set(rows) >= {"fig1", "fig2"}


def test_a_claim_open_in_many_readings_is_one_row_of_the_first_screen_per_verdict():
    """Chaturvedi et al.'s E.a is checked at 32 (figure, rank, accounting) readings: one row per reading put 55
    rows of one figure on the first screen.  Now one row per claim and verdict, with the count of readings."""
    from privopt.pipeline.report import open_claims

    def row(claim, verdict, reading):
        return {"claim": claim, "verdict": verdict, "reading": reading, "figure": "fig1", "needs": "",
                "statement": f"{claim} statement", "measured": f"{claim} at {reading}", "threshold": "ratio > 1"}

    claims = pd.DataFrame([row("E.a", NOT_REPRODUCED, "r = 10"), row("E.a", REPRODUCED, "r = 13"),
                           row("E.a", NOT_REPRODUCED, "r = 16"), row("E.a", INCONCLUSIVE, "r = 19"),
                           row("E.b", NOT_REPRODUCED, "r = 10"), row("E.a", NOT_REPRODUCED, "r = 22")])
    meta = {"figures": [{"id": "fig1", "title": "Figure 1"}], "short": "P", "key": "p"}
    rows = open_claims(meta, claims, "reference")
    assert [(r["claim"], r["verdict"], r["reading"]) for r in rows] == [
        ("E.a", NOT_REPRODUCED, "3 readings, e.g. r = 10"), ("E.b", NOT_REPRODUCED, "r = 10"),
        ("E.a", INCONCLUSIVE, "r = 19")]
    assert rows[0]["measured"] == "E.a at r = 10" and rows[0]["decide"] == "decided against its threshold: ratio > 1"
