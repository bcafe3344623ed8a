"""An executed figure notebook as a page a reader can open: HTML rendered by nbconvert, without the cell
Snakemake inserts at the top of every notebook it runs (the job's properties: the run directory, library
paths and a pickled blob) and with every machine path in what remains (the run directory, the home
directory) replaced by a neutral one (``.`` and ``~``).  The executed ``.ipynb`` itself is left as it is
(it still runs where it was run).

Images (``image/*`` outputs) are left untouched: a path cannot appear in their base64 text except by
chance, and rewriting them would break them.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from privopt.io import atomic_path

__all__ = ["PREAMBLE_TAG", "machine_paths", "scrub_notebook", "render_notebook_html"]

#: the tag Snakemake gives the cell it inserts at the top of a notebook it runs (snakemake.notebook)
PREAMBLE_TAG = "snakemake-job-properties"


def machine_paths(run_dir: str | os.PathLike | None = None, home: str | os.PathLike | None = None
                  ) -> list[tuple[str, str]]:
    """(machine path, replacement) pairs, longest path first: the run directory (default: the working
    directory) as ``.``, the home directory as ``~``; each also in its resolved form when that differs."""
    pairs: dict[str, str] = {}
    for path, alias in ((run_dir if run_dir is not None else os.getcwd(), "."),
                        (home if home is not None else Path.home(), "~")):
        for form in (str(path), str(Path(path).resolve())):
            form = form.rstrip("/")
            if form and form != "/" and form not in pairs:
                pairs[form] = alias
    return sorted(pairs.items(), key=lambda kv: -len(kv[0]))


def _scrub(value: Any, paths: Sequence[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        for path, alias in paths:
            value = value.replace(path, alias)
        return value
    if isinstance(value, list):
        return [_scrub(v, paths) for v in value]
    if isinstance(value, Mapping):
        return {k: (v if str(k).startswith("image/") else _scrub(v, paths)) for k, v in value.items()}
    return value


def scrub_notebook(nb: Mapping[str, Any], paths: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """A copy of the notebook (nbformat JSON as a mapping) without Snakemake's preamble cell and with each
    machine path of ``paths`` (see :func:`machine_paths`) replaced in every cell's source and outputs and in
    the notebook's metadata (images excepted)."""
    out = copy.deepcopy(dict(nb))
    cells = [c for c in out.get("cells", []) if PREAMBLE_TAG not in c.get("metadata", {}).get("tags", [])]
    out["cells"] = _scrub(cells, paths)
    out["metadata"] = _scrub(out.get("metadata", {}), paths)
    return out


def render_notebook_html(executed: str | os.PathLike, output: str | os.PathLike, *, title: str = "",
                         paths: Sequence[tuple[str, str]] | None = None) -> None:
    """Render the executed notebook ``executed`` to the HTML page ``output`` (written atomically), scrubbed
    by :func:`scrub_notebook` (``paths``: default :func:`machine_paths` of this process)."""
    import nbconvert
    import nbformat

    executed = Path(executed)
    if not executed.is_file():
        raise FileNotFoundError(f"no executed notebook at {executed} (the figure's plot rule writes it as its log)")
    nb = nbformat.reads(executed.read_text(encoding="utf-8"), as_version=4)
    clean = nbformat.from_dict(scrub_notebook(nb, machine_paths() if paths is None else paths))
    if title:
        clean.metadata["title"] = title
    html, _ = nbconvert.HTMLExporter(template_name="classic").from_notebook_node(clean)
    with atomic_path(output) as tmp:
        Path(tmp).write_text(html, encoding="utf-8")
