"""Run a figure notebook's code cells in this process, without a Jupyter kernel.

A figure notebook (``workflow/notebooks/<paper>_<figure>.py.ipynb``) reads its tables and draws through
:mod:`privopt.plotting`; nothing in it needs a kernel.  The pipeline draws each figure twice, both times in
the job's own process: from this scale's tables by :func:`execute_notebook`, which also writes the executed
notebook users open (each cell with its outputs, as a kernel would have left them), and from the committed
reference tables by :func:`run_cells` (no executed notebook).  Starting a Jupyter kernel through nbconvert,
as Snakemake's ``notebook:`` directive does, cost about 3 s of each figure job's 7-8 s.
"""

from __future__ import annotations

import ast
import base64
import builtins
import json
import os
import pickle
import sys
import traceback
from pathlib import Path
from typing import Any

# the tag of the executed notebook's first cell, which recreates the job's ``snakemake`` object: Snakemake's own
# for its notebook preamble, which the HTML page leaves out
from privopt.pipeline.notebook_html import PREAMBLE_TAG


def code_cells(path: str | Path) -> list[str]:
    """The source of each code cell of the notebook ``path``, in order.  A cell with an IPython magic or a
    shell line (``%``, ``!``) cannot run outside a kernel: an error names the notebook and the cell."""
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    sources = []
    for number, cell in enumerate((c for c in cells if c["cell_type"] == "code"), start=1):
        source = "".join(cell["source"])
        if any(line.lstrip().startswith(("%", "!")) for line in source.splitlines()):
            raise ValueError(f"{path}: code cell {number} uses an IPython magic or shell line (% or !), "
                             "which only a Jupyter kernel runs; figure notebooks draw with plain Python")
        sources.append(source)
    return sources


def run_cells(path: str | Path, namespace: dict) -> dict:
    """Execute the code cells of the notebook ``path`` one after the other in ``namespace`` (which holds
    ``snakemake``), as a kernel would: a cell's last bare expression is evaluated and discarded (a kernel
    would display it).  A traceback names the notebook and the cell.  Returns the namespace."""
    for number, source in enumerate(code_cells(path), start=1):
        name = f"{path} [cell {number}]"
        exec(compile(ast.parse(source, filename=name), name, "exec"), namespace)  # noqa: S102 - our notebooks
    return namespace


def _split_last_expression(source: str, name: str):
    """The cell compiled as (its statements but a final bare expression, that expression or None)."""
    tree = ast.parse(source, filename=name)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    return compile(tree, name, "exec"), (compile(last, name, "eval") if last is not None else None)


def _preamble(snakemake: Any) -> str:
    """A cell that recreates the job's ``snakemake`` object (pickled, as Snakemake's notebook preamble does):
    the executed notebook then runs again, cell by cell, in a Jupyter session started where the job ran."""
    paths = [p for p in sys.path if p]
    return ("# The job's `snakemake` object (inputs, outputs, params, config) and working directory, written by\n"
            "# privopt.plotting.cells: run this cell first to rerun or edit the notebook where the job ran.\n"
            f"import os, pickle, sys; sys.path.extend({paths!r}); os.chdir({os.getcwd()!r})\n"
            f"snakemake = pickle.loads({pickle.dumps(snakemake)!r})")


def _mime_bundle(data: dict) -> dict:
    """A display's data as notebook JSON: binary (an image) base64-encoded, as a kernel sends it."""
    return {mime: base64.b64encode(v).decode("ascii") if isinstance(v, bytes) else v for mime, v in data.items()}


def _result_bundle(value: Any) -> dict:
    """A cell's result as a kernel formats it: its repr and, for a table, its HTML (``_repr_html_``)."""
    from IPython.core.interactiveshell import InteractiveShell

    data, _ = InteractiveShell.instance().display_formatter.format(value)
    return _mime_bundle(data)


def execute_notebook(path: str | Path, namespace: dict, executed: str | Path) -> dict:
    """Execute the code cells of the notebook ``path`` in this process, as a Jupyter kernel would, and write
    the notebook with each cell's outputs to ``executed`` (nbformat 4, atomically; also when a cell fails, up
    to and with the failing cell's traceback).  Returns the namespace.

    An IPython shell is made current, so that ``IPython.display.display`` works as in a kernel (the heading's
    Markdown, the saved figure's PNG: :func:`privopt.plotting.show`); what a cell prints becomes its stream
    output and its last bare expression, when not None, its ``execute_result`` in the shell's formats
    (plain text and, for a table, HTML).  The notebook's first cell, tagged :data:`PREAMBLE_TAG`, recreates
    ``namespace["snakemake"]`` when there is one.  A traceback names the notebook and the cell.

    The notebook is read and written as JSON: importing ``nbformat`` (its schema validation) alone costs more
    than a second of each figure job, and the HTML page's renderer validates what this writes.
    """
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    code_cells(path)  # refuses a magic or shell line, naming the cell
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    if InteractiveShell.initialized():
        return _execute(nb, path, namespace, executed, InteractiveShell.instance())
    config = Config()
    config.HistoryManager.enabled = False  # no history database under the user's ~/.ipython
    had_marker = hasattr(builtins, "__IPYTHON__")
    try:
        return _execute(nb, path, namespace, executed, InteractiveShell.instance(config=config))
    finally:  # this process is no IPython session again (privopt.plotting.heading prints outside one)
        InteractiveShell.clear_instance()
        if not had_marker and hasattr(builtins, "__IPYTHON__"):
            del builtins.__IPYTHON__


def _execute(nb: dict, path: str | Path, namespace: dict, executed: str | Path, shell: Any) -> dict:
    """:func:`execute_notebook`'s work, in the current IPython ``shell``."""
    from IPython.utils.capture import capture_output

    from privopt.io import atomic_path

    shell.user_ns.update(namespace)
    count = 0
    if "snakemake" in namespace:
        count = 1
        nb["cells"].insert(0, {"cell_type": "code", "execution_count": count, "id": "snakemake-job",
                               "metadata": {"tags": [PREAMBLE_TAG]}, "outputs": [],
                               "source": _preamble(namespace["snakemake"])})
    failure = None
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and PREAMBLE_TAG not in c.get("metadata", {}).get("tags", [])]
    for number, cell in enumerate(cells, start=1):
        count += 1
        name = f"{path} [cell {number}]"
        result = None
        with capture_output(display=True) as captured:
            try:
                body, last = _split_last_expression("".join(cell["source"]), name)
                exec(body, shell.user_ns)  # noqa: S102 - the project's own notebooks
                if last is not None:
                    result = eval(last, shell.user_ns)  # noqa: S307
            except Exception as error:  # noqa: BLE001 - recorded in the notebook, then raised
                failure = error
        outputs = [{"output_type": "stream", "name": stream, "text": text}
                   for stream, text in (("stdout", captured.stdout), ("stderr", captured.stderr)) if text]
        outputs += [{"output_type": "display_data", "data": _mime_bundle(shown.data), "metadata": shown.metadata or {}}
                    for shown in captured.outputs]
        if result is not None:
            outputs.append({"output_type": "execute_result", "data": _result_bundle(result), "metadata": {},
                            "execution_count": count})
        if failure is not None:
            outputs.append({"output_type": "error", "ename": type(failure).__name__, "evalue": str(failure),
                            "traceback": traceback.format_exception(failure)})
        cell["outputs"], cell["execution_count"] = outputs, count
        if failure is not None:
            break
    nb.setdefault("metadata", {}).setdefault("language_info", {}).update(name="python", version=sys.version.split()[0])
    with atomic_path(executed) as tmp:
        Path(tmp).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if failure is not None:
        raise RuntimeError(f"{name} failed (its traceback is in the executed notebook {executed})") from failure
    return shell.user_ns
