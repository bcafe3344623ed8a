"""privopt.plotting: one palette in every figure, bands that say what they are, clipping on log axes.

The palette test reads the figures' artists: every line, band and bar drawn through the helpers carries a
``gid`` naming its algorithm and ε, and :func:`privopt.plotting.palette_problems` compares each artist's
colour and marker with the palette.  Synthetic figures with different ε sets per panel and per figure
check the helpers; ``test_the_notebooks_keep_the_palette`` runs every figure notebook on the tables of a
finished run (``$PRIVOPT_FIGURE_TABLES``, ``results/quick``, else the workflow tests' smoke run) and checks the figures
they draw, across all of them.
"""

from __future__ import annotations

import json
import math
import os
import traceback
import types
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

from privopt import plotting as pp  # noqa: E402
from privopt.plotting.cells import code_cells, execute_notebook, run_cells  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
INF = math.inf


@pytest.fixture(autouse=True)
def _close():
    pp.use()
    yield
    plt.close("all")


def _table(eps_values, xs=(256, 1024, 4096), seed=0, n=10):
    rng = np.random.default_rng(seed)
    rows = []
    for e in eps_values:
        for x in xs:
            m = float(x) ** 0.5 * (1 + (0 if math.isinf(e) else 10 / e)) * (1 + 0.05 * rng.standard_normal())
            rows.append({"eps": e, "T": x, "mean": m, "ci_lo": 0.8 * m, "ci_hi": 1.2 * m, "N": n})
    return pd.DataFrame(rows)


def _styles(fig) -> dict:
    """gid → (colour, marker) of the figure's lines drawn for an ε or algorithm."""
    out = {}
    for line in fig.findobj(lambda a: isinstance(a, matplotlib.lines.Line2D) and isinstance(a.get_gid(), str)):
        if "eps=" in line.get_gid() or "algo=" in line.get_gid():
            out.setdefault(line.get_gid(), set()).add((to_hex(line.get_color()), line.get_marker()))
    return out


def _figure(panels):
    fig, axes = plt.subplots(1, len(panels), layout="constrained", squeeze=False)
    for ax, (kind, eps_values) in zip(axes[0], panels):
        ax.set_xscale("log")
        ax.set_yscale("log")
        t = _table(eps_values, seed=len(eps_values))
        if kind == "eps":
            pp.eps_curves(ax, t, "T")
        else:  # an algorithm at several ε, and the non-private reference
            for e, c in t.groupby("eps"):
                pp.curve(ax, c.assign(certified=c["T"] < 4096), "T", algo=kind if math.isfinite(e) else "SG-NP",
                         eps=e if math.isfinite(e) else None, label=str(e), lo="ci_lo", hi="ci_hi", certified="certified")
    pp.figure_legend(fig)
    return fig


def test_eps_colours_come_from_one_fixed_scale_not_from_the_panel():
    # the same ε gets the same colour whatever else is drawn; distinct project ε get distinct colours
    assert len({pp.eps_colour(e) for e in pp.PROJECT_EPS}) == len(pp.PROJECT_EPS)
    assert pp.eps_colour(10) == pp.eps_colour(10.0) == pp.style(eps=10)["color"] == pp.style("FI-DP", 10)["color"]
    assert pp.eps_colour(INF) == pp.EPS_INF_COLOUR == "#000000" and pp.eps_colour(0) == pp.EPS_ZERO_COLOUR
    assert pp.eps_colour(1e-6) == pp.eps_colour(pp.EPS_RANGE[0])  # clipped to the project's range, not re-spread
    assert pp.eps_marker(1) != pp.eps_marker(3) != pp.eps_marker(10)
    assert "\\infty" in pp.eps_label(INF) and "\\varepsilon" in pp.eps_label(1)  # mathtext, not a glyph


def test_an_unknown_algorithm_is_an_error_and_every_notebook_algorithm_has_a_style():
    with pytest.raises(KeyError, match="no style for algorithm"):
        pp.algo_style("NoSuchAlgorithm")
    with pytest.raises(KeyError):
        pp.style("NoSuchAlgorithm", 1.0)
    import re

    named = set()
    for nb in (REPO / "workflow/notebooks").glob("*.ipynb"):
        source = _code(nb)
        named |= set(re.findall(r"""algo=["']([^"']+)["']""", source))
        named |= set(re.findall(r"""(?:algo_style|style)\(["']([^"']+)["']""", source))
    for module in (REPO / "src/privopt/experiments").glob("*/figures.py"):  # a paper's drawing, called by its notebooks
        source = module.read_text()
        named |= set(re.findall(r"""algo=["']([^"']+)["']""", source))
        named |= set(re.findall(r"""(?:algo_style|style)\(["']([^"']+)["']""", source))
    assert named and named <= set(pp.ALGORITHMS), named - set(pp.ALGORITHMS)


def test_the_same_eps_and_algorithm_keep_colour_and_marker_in_every_figure_and_panel():
    figs = [_figure([("eps", [1, 10, INF]), ("eps", [3, 10, 100, INF])]),
            _figure([("eps", [10, 300]), ("FI-DP", [1, 10, INF])]),
            _figure([("BanditDP", [10, 50, INF]), ("eps", [0.3, 1, 10])])]
    seen: dict = {}
    for fig in figs:
        assert pp.palette_problems(fig) == []
        for gid, styles in _styles(fig).items():
            seen.setdefault(gid, set()).update(styles)
    assert {"eps=10", "algo=FI-DP|eps=10", "algo=BanditDP|eps=10", "algo=SG-NP"} <= set(seen)
    for gid, styles in seen.items():
        assert len({c for c, _ in styles}) == 1, (gid, styles)  # one colour for a gid across figures and panels
        markers = {m for _, m in styles} - {"None"}
        assert len(markers) == 1, (gid, styles)
    # ε decides the colour, the algorithm the marker
    assert {c for c, _ in seen["eps=10"]} == {c for c, _ in seen["algo=FI-DP|eps=10"]} == {pp.eps_colour(10)}
    assert {m for _, m in seen["algo=FI-DP|eps=10"]} - {"None"} != {m for _, m in seen["algo=BanditDP|eps=10"]} - {"None"}


def test_the_palette_check_has_power():
    fig, ax = plt.subplots()
    ax.plot([1, 2], [1, 2], color=pp.eps_colour(3), marker=pp.eps_marker(10), gid="eps=10")  # ε = 3's colour
    fig2, ax2 = plt.subplots()
    ax2.fill_between([1, 2], [1, 1], [2, 2], color="C5", gid="band|algo=PCG")
    assert pp.palette_problems(fig) and pp.palette_problems(fig2)


def test_a_band_below_zero_on_a_log_axis_is_clipped_and_counted_never_dropped():
    fig, ax = plt.subplots()
    ax.set_yscale("log")
    clipped = pp.band(ax, [1, 2, 3, 4], [2.0, 1.5, -0.535, 3.0], [4.0, 4.5, 8.0, 6.0], "k")
    assert clipped == 1
    (poly,) = [c for c in ax.collections if isinstance(c, PolyCollection)]
    verts = poly.get_paths()[0].vertices
    assert np.all(verts[:, 1] > 0)                   # drawable on the log axis
    assert {1, 2, 3, 4} <= set(verts[:, 0].round(6))  # the point with the negative lower end is still in the band
    # a curve whose mean is ≤ 0 cannot be shown: counted, so the panel can say it
    t = pd.DataFrame({"T": [1, 2, 3], "mean": [1.0, -0.5, 2.0], "ci_lo": [0.5, -1.0, -0.1], "ci_hi": [2.0, 0.1, 4.0]})
    assert pp.curve(ax, t.assign(eps=1.0), "T", eps=1.0, lo="ci_lo", hi="ci_hi") == {"dropped": 1, "clipped": 1}
    # on a linear axis nothing is clipped
    fig, ax = plt.subplots()
    assert pp.band(ax, [1, 2], [-1.0, 0.5], [1.0, 2.0], "k") == 0


def test_error_bars_below_zero_on_a_log_axis_are_clipped_too():
    fig, ax = plt.subplots()
    ax.set_yscale("log")
    t = pd.DataFrame({"x": [1, 2], "v": [1.0, 2.0], "e": [1.5, 0.5]})
    assert pp.curve(ax, t, "x", "v", algo="PCG", err="e")["clipped"] == 1
    segs = [s for c in ax.collections for s in c.get_segments()]
    assert segs and all(np.all(s[:, 1] > 0) for s in segs)


def test_the_legend_says_what_a_band_is_and_over_how_many_runs():
    assert pp.band_text("boot95", 10) == "95 % bootstrap interval over 10 seeds"
    assert pp.band_text("sem", [30, 30, 30], unit="runs") == "±1 SEM over 30 runs"
    assert pp.band_text("sd", pd.Series([100, 100])) == "±1 SD over 100 seeds"
    few = pp.band_text("boot95", [2, 3])
    assert few.startswith("95 % bootstrap interval over 2–3 seeds") and "fewer than 10" in few
    assert "fewer than" not in pp.band_text("boot95", [10, 12])
    label = pp.band_handle("boot95", 10, clipped=2).get_label()
    assert label.startswith("bands: 95 % bootstrap interval over 10 seeds") and "2 lower end(s) ≤ 0 clipped" in label
    assert pp.band_handle("sem", 5, bars=True).get_label().startswith("bars: ±1 SEM over 5 seeds")
    with pytest.raises(KeyError):
        pp.band_text("two sigma", 10)


def test_save_stamps_the_scale_and_writes_both_files(tmp_path):
    for title in (None, "F0 — a figure"):
        fig, ax = plt.subplots()
        pp.nodata(ax)
        if title:
            fig.suptitle(title)
        out = types.SimpleNamespace(pdf=tmp_path / "f.pdf", png=tmp_path / "f.png")
        pp.save(fig, out, "quick")
        assert fig._suptitle.get_text() == (f"{title}  ·  scale: quick" if title else "scale: quick")
        assert out.pdf.stat().st_size > 0 and out.png.stat().st_size > 0
    assert ax.texts[0].get_text() == "no data at this scale"


def test_text_size_at_the_report_width():
    fig, ax = plt.subplots(figsize=(pp.REPORT_WIDTH_IN, 3))
    ax.set_xlabel("x", fontsize=9)
    ax.tick_params(labelsize=9)
    assert 9 <= pp.min_text_pt(fig) < 12  # the saved figure is cropped to its content (bbox_inches="tight")
    fig, ax = plt.subplots(figsize=(2 * pp.REPORT_WIDTH_IN, 3))
    ax.tick_params(labelsize=9)
    assert pp.min_text_pt(fig) < 6


def _tables_root(request) -> tuple[Path, bool]:
    """A finished run's results: ``$PRIVOPT_FIGURE_TABLES`` or ``results/quick`` of this checkout when there
    is one (a developer's run), else the smoke run of the workflow tests (so CI always runs this test); and
    whether it is that smoke run (which draws every figure)."""
    root = Path(os.environ.get("PRIVOPT_FIGURE_TABLES", REPO / "results/quick"))
    if [*root.glob("cardoso2019/tables/rc1a.csv"), *root.glob("*~*/cardoso2019/tables/rc1a.csv")]:
        return root, False
    return request.getfixturevalue("smoke_run_two_cores") / "results" / "smoke", True


WIDE = {"perezsalazar2021_f1", "perezsalazar2021_f5", "smith2013_st0"}


def _figures() -> list[tuple[str, str]]:
    from privopt.pipeline.registry import papers

    return [(key, fig.id) for key, paper in papers().items() for fig in paper.figures]


FIGURES = _figures()


def test_the_palette_check_runs_every_registered_figure():
    assert len(FIGURES) >= 20 and len(set(FIGURES)) == len(FIGURES)


def _record_styles(folder: Path, name: str, styles: dict) -> dict:
    """Write one figure's gid → {(colour, marker)} to ``folder`` (a write renamed into place), then read every
    figure's written so far: gid → {frozenset of styles: [figures]}.  Each figure's test writes before it
    reads, so of any two figures checked in the session, whichever test reads later sees both (on whatever
    xdist worker each ran)."""
    folder.mkdir(parents=True, exist_ok=True)
    part = folder / f".{name}.json.part"
    part.write_text(json.dumps({gid: sorted(map(list, s)) for gid, s in styles.items()}))
    part.replace(folder / f"{name}.json")
    seen: dict = {}
    for path in sorted(folder.glob("*.json")):
        for gid, pairs in json.loads(path.read_text()).items():
            seen.setdefault(gid, {}).setdefault(frozenset(map(tuple, pairs)), []).append(path.stem)
    return seen


@pytest.mark.slow
@pytest.mark.reads_smoke_run
@pytest.mark.parametrize("key, fig_id", [
    pytest.param(k, f, id=f"{k}_{f}", marks=pytest.mark.xdist_group(f"tests/test_plotting.py::palette::{k}_{f}"))
    for k, f in FIGURES])
def test_the_notebooks_keep_the_palette(key, fig_id, tmp_path, request, session_dir, monkeypatch):
    """Every figure notebook, run on a finished run's tables: no artist off the palette, one style per ε and
    algorithm across all figures, and the wide figures' text at least 8 pt at the report's width.  One test per
    figure, each its own xdist group (the notebooks take minutes in all: tests/conftest.py spreads them over
    the workers); the styles across figures are compared through files in the session's shared folder.
    ``pp.save`` only stamps the scale here: writing the PDF and PNG took 2–3 s of each figure's 3–4 s, and the
    pipeline's figure jobs (the smoke run draws every figure) write them."""
    monkeypatch.setattr(pp, "save", lambda fig, output, scale: pp.draw._stamp(fig, scale))  # noqa: SLF001
    from privopt.pipeline.config import load_config
    from privopt.pipeline.registry import papers

    root, smoke_run = _tables_root(request)
    config = load_config([] if root.name == "quick" else [REPO / f"config/{root.name}.yaml"])
    paper, fig_decl, name = papers()[key], papers()[key].figure(fig_id), f"{key}_{fig_id}"
    # the paper's tables in the scale's namespace or in one of its data namespaces (a paper reading data lies
    # under results/<scale>/<data set>~<check>/)
    for space in [root, *sorted(root.glob("*~*"))]:
        inputs = {n: paper.table_file(s, str(space)) for n, s in fig_decl.inputs.items()}
        if all(Path(p).is_file() for p in inputs.values()):
            break
    missing = [p for p in inputs.values() if not Path(p).is_file()]
    if missing and not smoke_run:  # a developer's run may lack a figure; the smoke run draws every one
        pytest.skip(f"{name}: {missing} not in {root}")
    assert not missing, (name, missing)
    sm = types.SimpleNamespace(input=types.SimpleNamespace(**inputs),
                               params=types.SimpleNamespace(**fig_decl.params(config[key]), scale=root.name,
                                                            notebook=name), config=config,
                               output=types.SimpleNamespace(pdf=tmp_path / f"{name}.pdf", png=tmp_path / f"{name}.png"))
    fig = run_cells(REPO / paper.notebook(fig_decl.id), {"snakemake": sm})["fig"]
    assert pp.palette_problems(fig) == [], name
    assert f"scale: {root.name}" in fig._suptitle.get_text(), name
    if name in WIDE:
        assert pp.min_text_pt(fig) >= 8.0, name
    seen = _record_styles(session_dir / f"palette-styles-{root.name}", name, _styles(fig))
    for gid, variants in seen.items():
        colours = {c for styles in variants for c, _ in styles}
        assert len(colours) == 1, (gid, variants)


def test_the_styles_across_figures_are_compared_whatever_the_order(tmp_path):
    """The record of _record_styles: two figures that give one gid two colours are caught by the later of the two."""
    _record_styles(tmp_path, "a_f1", {"algo=X|eps=1": {("#111111", "o")}})
    seen = _record_styles(tmp_path, "b_f2", {"algo=X|eps=1": {("#222222", "o")}, "eps=2": {("#333333", "None")}})
    assert seen == {"algo=X|eps=1": {frozenset({("#111111", "o")}): ["a_f1"], frozenset({("#222222", "o")}): ["b_f2"]},
                    "eps=2": {frozenset({("#333333", "None")}): ["b_f2"]}}


def _code(nb: Path) -> str:
    """A notebook's code cells, joined."""
    return "\n".join("".join(c["source"]) for c in json.loads(nb.read_text())["cells"] if c["cell_type"] == "code")


MAX_NOTEBOOK_LINES = 40


def test_every_figure_notebook_is_short_its_drawing_lives_in_helpers():
    """Issue 26: a notebook loads its tables, calls the helpers (``privopt.plotting``, or the paper's own
    ``figures`` module for paper-specific drawing) and saves: at most 40 lines of code, blank lines and
    comments not counted."""
    notebooks = [*(REPO / "workflow/notebooks").glob("*.py.ipynb"), *(REPO / "tests/toy_paper/workflow/notebooks").glob("*.py.ipynb")]
    assert len(notebooks) >= 20
    lines = {nb.name: sum(1 for line in _code(nb).splitlines() if line.strip() and not line.strip().startswith("#"))
             for nb in notebooks}
    assert {n: k for n, k in lines.items() if k > MAX_NOTEBOOK_LINES} == {}


def test_every_figure_notebook_runs_without_a_kernel():
    """The figure jobs run a figure notebook's cells in the job's process (privopt.plotting.cells): no
    notebook may use an IPython magic or shell line, which only a kernel runs."""
    notebooks = [*(REPO / "workflow/notebooks").glob("*.py.ipynb"), *(REPO / "tests/toy_paper/workflow/notebooks").glob("*.py.ipynb")]
    assert len(notebooks) >= 20
    assert all(code_cells(nb) for nb in notebooks)


def test_running_cells_keeps_one_namespace_rejects_magics_and_names_the_failing_cell(tmp_path):
    def notebook(*sources):
        path = tmp_path / "nb.py.ipynb"
        cells = [{"cell_type": "markdown", "source": ["x = 'not code'"]}]
        cells += [{"cell_type": "code", "source": src.splitlines(keepends=True)} for src in sources]
        path.write_text(json.dumps({"cells": cells}))
        return path

    scope = run_cells(notebook("a = snakemake * 2\na", "b = a + 1"), {"snakemake": 20})
    assert (scope["a"], scope["b"]) == (40, 41)
    with pytest.raises(ValueError, match=r"nb.py.ipynb: code cell 2 uses an IPython magic"):
        code_cells(notebook("a = 1", "%matplotlib inline"))
    with pytest.raises(ZeroDivisionError) as failed:
        run_cells(notebook("a = 1", "b = 2\nc = a / 0"), {})
    assert any(f.filename.endswith("nb.py.ipynb [cell 2]") for f in traceback.extract_tb(failed.value.__traceback__))


def test_executing_a_notebook_in_process_writes_what_a_kernel_would_and_names_a_failing_cell(tmp_path):
    """The figure jobs run their notebook's cells in the job's process and write the executed notebook
    (privopt.plotting.cells.execute_notebook): a valid nbformat 4 notebook whose first cell recreates the
    job's ``snakemake`` object, each cell with what it printed, displayed (Markdown, the saved PNG byte for
    byte) and returned (repr and a table's HTML); a failing cell's traceback is in the notebook, the cells
    after it are not run, and the error names the notebook and the cell.  The process is no IPython session
    afterwards (privopt.plotting.heading prints outside one)."""
    import base64

    import nbformat
    from IPython import get_ipython

    from privopt.pipeline.notebook_html import PREAMBLE_TAG

    def notebook(*sources):
        path = tmp_path / "nb.py.ipynb"
        cells = [{"cell_type": "markdown", "id": "m", "metadata": {}, "source": ["x = 'not code'"]}]
        cells += [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [],
                   "source": src.splitlines(keepends=True)} for i, src in enumerate(sources)]
        path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
        return path

    png = tmp_path / "f.png"
    fig, ax = plt.subplots(figsize=(1, 1))
    fig.savefig(png)
    plt.close(fig)
    job = types.SimpleNamespace(value=21, png=str(png))
    executed = tmp_path / "logs" / "nb.ipynb"
    scope = execute_notebook(notebook(
        "import pandas as pd\nprint('hello')\nsnakemake.value * 2",
        "from IPython.display import Markdown, display\nfrom privopt import plotting as pp\n"
        "display(Markdown('# H'))\nshown = pp.show(snakemake.png)\npd.DataFrame({'a': [1]})",
        "nothing = None\nnothing"), {"snakemake": job, "__name__": "__main__"}, executed)
    assert scope["shown"] is True and get_ipython() is None
    nb = nbformat.read(executed, as_version=4)
    nbformat.validate(nb)
    preamble, _, first, second, third = nb.cells
    assert PREAMBLE_TAG in preamble.metadata.tags and preamble.execution_count == 1
    recreated = {}
    exec(preamble.source, recreated)  # noqa: S102 - written by the test's own run
    assert recreated["snakemake"] == job and f"os.chdir({os.getcwd()!r})" in preamble.source
    assert [(o.output_type, o.get("text")) for o in first.outputs] == [("stream", "hello\n"), ("execute_result", None)]
    assert first.outputs[1].data["text/plain"] == "42" and first.execution_count == 2
    kinds = [o.output_type for o in second.outputs]
    assert kinds == ["display_data", "display_data", "execute_result"], kinds
    assert second.outputs[0].data["text/markdown"] == "# H"
    assert base64.b64decode(second.outputs[1].data["image/png"]) == png.read_bytes()
    assert "<table" in second.outputs[2].data["text/html"]
    assert third.outputs == [] and third.execution_count == 4

    with pytest.raises(RuntimeError, match=r"nb.py.ipynb \[cell 2\] failed") as failed:
        execute_notebook(notebook("a = 1", "print('before')\nb = a / 0", "c = 3"), {}, executed)
    assert isinstance(failed.value.__cause__, ZeroDivisionError) and get_ipython() is None
    nb = nbformat.read(executed, as_version=4)
    nbformat.validate(nb)
    _, first, second, third = nb.cells
    assert [o.output_type for o in second.outputs] == ["stream", "error"] and second.outputs[1].ename == "ZeroDivisionError"
    assert any("nb.py.ipynb [cell 2]" in line for line in second.outputs[1].traceback)
    assert third.outputs == [] and third.execution_count is None


def test_every_notebook_reads_the_tables_its_figure_declares():
    """The names a notebook reads from ``snakemake.input`` are those of its ``Figure``'s inputs, all of them and
    no more, each written out as ``snakemake.input.<name>`` (no ``getattr``)."""
    import re

    from privopt.pipeline.registry import papers

    checked = 0
    for key, paper in papers().items():
        for fig_decl in paper.figures:
            source = _code(REPO / paper.notebook(fig_decl.id))
            assert not re.search(r"snakemake\.input(?!\.\w)", source), f"{key}_{fig_decl.id}: read snakemake.input.<name>"
            assert set(re.findall(r"snakemake\.input\.(\w+)", source)) == set(fig_decl.inputs), f"{key}_{fig_decl.id}"
            checked += 1
    assert checked >= 20


def test_every_notebook_heading_comes_from_the_figures_declaration():
    """No notebook writes its own heading: its first cell shows the declared title and captions."""
    notebooks = [*(REPO / "workflow/notebooks").glob("*.py.ipynb"), *(REPO / "tests/toy_paper/workflow/notebooks").glob("*.py.ipynb")]
    assert len(notebooks) >= 20
    for nb in notebooks:
        cells = json.loads(nb.read_text())["cells"]
        assert cells[0]["cell_type"] == "code" and "pp.heading(snakemake)" in "".join(cells[0]["source"]), nb.name
        assert not [c for c in cells if c["cell_type"] == "markdown"], f"{nb.name}: a hand-written markdown cell"


def test_the_heading_fills_in_the_config_values_of_the_declared_caption(capsys):
    from privopt.pipeline.registry import papers

    paper = papers()["shariff2018"]
    fig = paper.figure("fig1")
    sm = types.SimpleNamespace(params=types.SimpleNamespace(notebook="shariff2018_fig1"),
                               config={"shariff2018": {"fig1": {"K": 1234, "gap": 0.25}}})
    pp.heading(sm)
    text = capsys.readouterr().out
    assert text.startswith(f"# {paper.short}: {fig.title}") and fig.original_caption in text
    assert "K = 1234 actions, Δ = 0.25" in text and "{{" not in text
    with pytest.raises(KeyError, match="nope_fig9"):
        pp.heading(types.SimpleNamespace(params=types.SimpleNamespace(notebook="nope_fig9"), config={}))


def test_the_palette_collects_each_papers_styles_and_refuses_one_name_with_two_styles(monkeypatch):
    """Paper.styles: a paper declares its algorithms' styles in its own package; the palette collects them, and a
    name two papers style differently is an error naming both (one style per algorithm across the project)."""
    import sys
    import types

    from privopt.pipeline import registry
    from privopt.plotting.palette import SHARED, _Palette, algo

    # every registered paper's names are there, and the shared ones
    assert {"PCG", "nonprivate", "FI-DP", "SubmodPFTAL", "PFTAL", "tree"} <= set(pp.ALGORITHMS)
    mine = types.ModuleType("privopt_test_styles")
    mine.A = {"alg": algo("C0", "o", "-", "alg"), "tree": SHARED["tree"]}
    mine.B = {"alg": algo("C1", "o", "-", "alg")}
    monkeypatch.setitem(sys.modules, mine.__name__, mine)
    fake = {"p1": types.SimpleNamespace(styles=f"{mine.__name__}:A"), "p2": types.SimpleNamespace(styles="")}
    monkeypatch.setattr(registry, "papers", lambda: fake)
    palette = _Palette()
    assert palette["alg"].colour == algo("C0", "o", "-", "").colour and set(SHARED) <= set(palette)
    fake["p2"] = types.SimpleNamespace(styles=f"{mine.__name__}:B")
    with pytest.raises(ValueError, match=r"'alg' has two styles: p1's .*:A and p2's .*:B"):
        list(_Palette())


def _drawn_with(apply) -> tuple[dict, bytes]:
    """The rc values after matplotlib's defaults and ``apply()``, and the PNG of one small figure drawn under them."""
    import io

    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        apply()
        rc = {k: v for k, v in matplotlib.rcParams.items() if k != "image.cmap"}
        fig, ax = plt.subplots(figsize=(3, 2))
        for i in range(3):
            ax.plot([1, 2, 3], [i, i + 1, i * i], marker="o", label=f"line {i}")
        ax.bar([1, 2], [0.5, 1.5])
        ax.set(title="title", xlabel="x", ylabel="y")
        ax.legend(title="legend")
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=pp.draw.DPI, metadata={"Software": None})
        plt.close(fig)
    return rc, buf.getvalue()


def test_the_written_theme_is_seaborns_paper_whitegrid():
    """privopt.plotting.theme writes seaborn's theme out (a figure job then needs no seaborn import): the rc values
    and a figure's PNG bytes equal those under seaborn's own set_theme (an upgrade that changes it fails here)."""
    import seaborn as sns

    def seaborn_theme():
        sns.set_theme(context="paper", style="whitegrid")
        plt.rcParams.update(pp.draw.RC)

    ours, png = _drawn_with(pp.use)
    theirs, their_png = _drawn_with(seaborn_theme)
    assert {k: (ours[k], theirs[k]) for k in ours if ours[k] != theirs[k]} == {}
    assert png == their_png
    # and a seaborn colour map asked for by name is there without seaborn imported first (it imports it)
    assert len(pp.level_colours([0.0, 0.1, 0.2], cmap="flare")) == 3
