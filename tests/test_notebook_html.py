"""privopt.pipeline.notebook_html: an executed notebook as HTML without Snakemake's job cell or machine paths."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import nbformat
import pytest

from privopt.pipeline.notebook_html import PREAMBLE_TAG, machine_paths, render_notebook_html, scrub_notebook

RUN = "/srv/runs/privopt-7f3a"  # a run directory and a home directory no real page could contain by chance
HOME = "/home/researcher-q9"
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def _executed(path: Path) -> Path:
    """An executed notebook as Snakemake leaves it: its job cell first (the run directory, a pickled blob),
    then cells whose outputs name the run directory and the home directory, and an image."""
    nb = nbformat.v4.new_notebook()
    preamble = nbformat.v4.new_code_cell(
        f"\n######## snakemake preamble start (automatically inserted, do not edit) ########\n"
        f"import sys; sys.path.extend(['{HOME}/.local/lib']); import pickle; snakemake = pickle.loads(b'\\x80\\x04');"
        f"import os; os.chdir(r'{RUN}');\n######## snakemake preamble end #########\n")
    preamble.metadata["tags"] = [PREAMBLE_TAG]
    plot = nbformat.v4.new_code_cell("fig = draw(tables)\nsave(fig, snakemake.output.png)")
    plot.outputs = [
        nbformat.v4.new_output("stream", name="stderr", text=f"{HOME}/.cache/numba: compiling\nwrote {RUN}/results/f.png\n"),
        nbformat.v4.new_output("display_data", data={"image/png": base64.b64encode(PNG).decode(),
                                                     "text/plain": f"<Figure at {RUN}/results/f.png>"}),
    ]
    nb.cells = [preamble, nbformat.v4.new_markdown_cell("# Figure 1"), plot]
    nb.metadata["papermill"] = {"input_path": f"{RUN}/workflow/notebooks/f.py.ipynb"}
    path.write_text(nbformat.writes(nb))
    return path


def test_scrubbing_drops_the_job_cell_and_replaces_machine_paths_but_not_images(tmp_path):
    nb = json.loads(_executed(tmp_path / "f.ipynb").read_text())
    clean = scrub_notebook(nb, machine_paths(RUN, HOME))
    text = json.dumps(clean)
    assert len(clean["cells"]) == 2 and "snakemake preamble" not in text and "pickle" not in text
    assert RUN not in text and HOME not in text
    assert "~/.cache/numba" in text and "wrote ./results/f.png" in text
    assert clean["cells"][1]["outputs"][1]["data"]["image/png"] == nb["cells"][2]["outputs"][1]["data"]["image/png"]
    assert len(nb["cells"]) == 3 and RUN in json.dumps(nb)  # the executed notebook itself is left as it was


def test_a_run_directory_under_home_is_replaced_as_the_run_directory():
    pairs = machine_paths(f"{HOME}/privopt", HOME)
    assert pairs[0] == (f"{HOME}/privopt", ".") and (HOME, "~") in pairs
    assert scrub_notebook({"cells": [{"source": f"{HOME}/privopt/results and {HOME}/x", "metadata": {}}]},
                          pairs)["cells"][0]["source"] == "./results and ~/x"


def test_the_rendered_page_holds_no_machine_path_and_the_notebook_still_reads(tmp_path):
    executed = _executed(tmp_path / "f.ipynb")
    before = executed.read_bytes()
    out = tmp_path / "html" / "f.html"
    render_notebook_html(executed, out, title="Figure 1 — x", paths=machine_paths(RUN, HOME))
    html = out.read_text()
    assert "<html" in html and "Figure 1" in html and "data:image/png;base64," in html
    assert RUN not in html and HOME not in html and "snakemake preamble" not in html
    assert executed.read_bytes() == before
    nbformat.validate(nbformat.reads(before.decode(), as_version=4))


def test_a_missing_executed_notebook_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="no executed notebook at .*absent.ipynb"):
        render_notebook_html(tmp_path / "absent.ipynb", tmp_path / "x.html")
    assert not (tmp_path / "x.html").exists()
