"""privopt.pipeline.figure_text: a figure's smallest text and width read from its PDF, and the width that makes
that text readable."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from privopt.pipeline.figure_text import displayed_pt, pdf_text_sizes, readable_width  # noqa: E402


def _figure(path, label_pt: float, note_pt: float | None = None, compress: bool = True):
    matplotlib.rcParams["pdf.compression"] = 6 if compress else 0
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.loglog([1, 10, 1e5], [1, 2, 3])  # tick labels 10^0 … 10^5: an exponent at 0.7 of the label's size
    ax.tick_params(labelsize=label_pt)
    ax.set_xlabel("T", fontsize=10)
    if note_pt:
        ax.text(0.5, 0.5, "note", fontsize=note_pt, transform=ax.transAxes)
    fig.savefig(path)  # no tight box: the page is the figure, 6 × 72 pt wide
    plt.close(fig)
    matplotlib.rcParams["pdf.compression"] = 6
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
