"""Run a figure notebook's code cells in this process, without a Jupyter kernel.

A figure notebook (``workflow/notebooks/<paper>_<figure>.py.ipynb``) reads its tables and draws through
:mod:`privopt.plotting`; nothing in it needs a kernel (:func:`privopt.plotting.heading` prints outside
one, :func:`privopt.plotting.save` writes the files either way).  The pipeline draws each figure twice:
from this scale's tables through Snakemake's ``notebook:`` directive (the executed notebook is what
users open), and from the committed reference tables.  The second drawing runs the same cells here:
starting a kernel costs about 3 s a figure, a tenth of the quick pipeline's notebook time.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path


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
