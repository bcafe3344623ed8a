"""privopt.pipeline.figure_text: a figure's smallest text and width read from its PDF, and the width that makes
that text readable."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from privopt.pipeline.figure_text import displayed_pt, pdf_text_sizes, readable_width  # noqa: E402


def _figure(path, label_pt: float, note_pt: float | None = None, compress: bool = True):
    # matplotlib's own style whatever an earlier test of the process set (the project's theme draws minor tick
    # labels at 8 pt: this test failed after tests/test_plotting.py in one process)
    with plt.style.context("default"), matplotlib.rc_context({"pdf.compression": 6 if compress else 0}):
        fig, ax = plt.subplots(figsize=(6, 3))
        ax.loglog([1, 10, 1e5], [1, 2, 3])  # tick labels 10^0 … 10^5: an exponent at 0.7 of the label's size
        ax.tick_params(which="both", labelsize=label_pt)
        ax.set_xlabel("T", fontsize=10)
        if note_pt:
            ax.text(0.5, 0.5, "note", fontsize=note_pt, transform=ax.transAxes)
        fig.savefig(path)  # no tight box: the page is the figure, 6 × 72 pt wide
        plt.close(fig)
    return path


@pytest.mark.parametrize("compress", [True, False])
def test_the_smallest_text_is_a_texts_own_size_not_its_exponent(tmp_path, compress):
    size, width = pdf_text_sizes(_figure(tmp_path / "f.pdf", 9, compress=compress))
    assert size == 9 and width == pytest.approx(6 * 72)


def test_a_smaller_text_anywhere_is_found(tmp_path):
    size, _ = pdf_text_sizes(_figure(tmp_path / "f.pdf", 9, note_pt=6))
    assert size == 6


def test_shown_at_the_readable_width_the_smallest_text_reads_at_8_pt(tmp_path):
    size, width = pdf_text_sizes(_figure(tmp_path / "f.pdf", 6))
    px = readable_width(size, width)
    assert px == 768 and displayed_pt(size, width, px) == pytest.approx(8, abs=0.02)  # 6 in at 96 px × 8/6
    big = pdf_text_sizes(_figure(tmp_path / "g.pdf", 12))
    assert readable_width(*big) == 6 * 96  # never shown larger than its own size for its text's sake


def test_a_file_that_is_no_pdf_page_is_named(tmp_path):
    (tmp_path / "x.pdf").write_bytes(b"not a pdf")
    with pytest.raises(ValueError, match="x.pdf: no /MediaBox"):
        pdf_text_sizes(tmp_path / "x.pdf")


#: the report's content width at its 1400 px reading width (body max-width 84rem less 1rem padding each side)
REPORT_CONTENT_PX = 84 * 16 - 2 * 16


def test_the_reference_rc1c_reads_at_8_pt_within_the_report_width(tmp_path):
    """Rivera Cardoso & Cummings RC-1c drawn from its committed reference tables (five ε: ten panels) is shown
    at its own size or narrower in the report, with its smallest text at 8 pt or more (issue 37: it was 16.6 in
    wide, 6.6 pt once fitted into the page)."""
    import json
    import types
    from pathlib import Path

    from privopt.pipeline.registry import paper
    from privopt.plotting.cells import run_cells

    repo = Path(__file__).resolve().parents[1]
    the = paper("cardoso2019")
    fig = next(f for f in the.figures if f.id == "rc1c")
    section = json.loads((repo / "reference/cardoso2019/manifest.json").read_text())["config"]
    out = types.SimpleNamespace(pdf=tmp_path / "rc1c.pdf", png=tmp_path / "rc1c.png")
    sm = types.SimpleNamespace(
        input=types.SimpleNamespace(**{n: repo / "reference/cardoso2019/tables" / f"{s}.csv" for n, s in fig.inputs.items()}),
        params=types.SimpleNamespace(**fig.params(section), scale="reference", notebook="cardoso2019_rc1c"),
        config={"cardoso2019": section, "scale": "reference"}, output=out)
    run_cells(repo / the.notebook("rc1c"), {"snakemake": sm, "__name__": "__main__"})
    plt.close("all")
    size, width = pdf_text_sizes(out.pdf)
    shown = min(readable_width(size, width), REPORT_CONTENT_PX)
    assert displayed_pt(size, width, shown) >= 8.0, (size, width / 72, shown)
