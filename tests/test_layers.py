"""The import graph of ``privopt``: floors that only look down, and no circles.

Three floors: the library (algorithms, mechanisms, audits, and the foundation modules ``seeding``, ``io``,
``fastrng``, ``codedigest``, ``numba_cache``), ``privopt.pipeline`` and ``privopt.plotting`` (the machinery
every paper uses) and the declarations on top: the papers (``privopt.experiments.<key>``) and the data sets
(``privopt.datasets.<name>``: each a package of its declaration, fetch and parse steps and reader, which the
papers' instance builders import sideways). An import may run down or sideways within a floor, never up, a
paper never imports another paper, and a data set never imports a paper. Every import statement counts, at
module level or inside a function, so a lazy import cannot hide an arrow. The graph is read from the source
with :mod:`ast`.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
TOY = Path(__file__).resolve().parent / "toy_paper" / "src"


def _modules(root: Path) -> dict[str, Path]:
    out = {}
    for path in sorted((root / "privopt").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _resolve(name: str, known: set[str]) -> str | None:
    """The longest known module that ``name`` names (``a.b.func`` → ``a.b``)."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def import_graph(roots: list[Path]) -> dict[str, set[str]]:
    """module → the privopt modules it imports (absolute and relative imports, anywhere in the file).

    ``from pkg import name`` is an arrow to ``pkg.name`` when that is a module, else to ``pkg``."""
    modules: dict[str, Path] = {}
    for root in roots:
        modules.update(_modules(root))
    known = set(modules)
    graph: dict[str, set[str]] = {}
    for mod, path in modules.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        names = []
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names += [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                names += [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        targets = {_resolve(n, known) for n in names if n.startswith("privopt")}
        graph[mod] = targets - {None, mod}
    return graph


def floor(module: str) -> str:
    if module.startswith("privopt.experiments."):
        return "papers"
    if module in ("privopt.experiments", "privopt.datasets"):
        return "papers namespace"
    if module.startswith("privopt.datasets."):
        return "data sets"
    if module in ("privopt.pipeline", "privopt.plotting") or module.startswith(("privopt.pipeline.", "privopt.plotting.")):
        return "pipeline"
    return "library"


RANK = {"library": 0, "pipeline": 1, "papers namespace": 2, "papers": 2, "data sets": 2}


def upward_arrows(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Imports that run up a floor, from one paper into another, or from a data set into a paper."""
    bad = []
    for mod, targets in graph.items():
        for t in targets:
            if floor(mod) == "pipeline" and floor(t) == "papers namespace":
                continue  # the registries discover papers and data sets in their (empty) namespace packages
            if RANK[floor(t)] > RANK[floor(mod)]:
                bad.append((mod, t))
            elif floor(mod) == floor(t) == "papers" and mod.split(".")[2] != t.split(".")[2]:
                bad.append((mod, t))
            elif floor(mod) == "data sets" and floor(t) == "papers":
                bad.append((mod, t))  # papers read data sets, never the other way
    return sorted(bad)


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out = []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


@pytest.fixture(scope="module")
def graph():
    return import_graph([SRC])


def test_the_graph_sees_absolute_relative_and_lazy_imports(tmp_path):
    pkg = tmp_path / "privopt"
    (pkg / "pipeline").mkdir(parents=True)
    (pkg / "experiments" / "p").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "io.py").write_text("def f():\n    from privopt.pipeline import errors\n")
    (pkg / "pipeline" / "__init__.py").write_text("")
    (pkg / "pipeline" / "errors.py").write_text("from .. import io\n")
    (pkg / "experiments" / "__init__.py").write_text("")
    (pkg / "experiments" / "p" / "__init__.py").write_text("")
    (pkg / "experiments" / "p" / "runs.py").write_text("from . import tables\nimport privopt.io\n")
    (pkg / "experiments" / "p" / "tables.py").write_text("")
    g = import_graph([tmp_path])
    assert g["privopt.io"] == {"privopt.pipeline.errors"}
    assert g["privopt.pipeline.errors"] == {"privopt.io"}
    assert g["privopt.experiments.p.runs"] == {"privopt.experiments.p.tables", "privopt.io"}
    assert upward_arrows(g) == [("privopt.io", "privopt.pipeline.errors")]
    assert circles(g) == [["privopt.io", "privopt.pipeline.errors"]]


def test_no_import_runs_up_a_floor_or_from_one_paper_into_another(graph):
    assert upward_arrows(graph) == []


def test_the_toy_paper_keeps_to_its_floor_too():
    assert upward_arrows(import_graph([SRC, TOY])) == []


def test_no_circles(graph):
    assert circles(graph) == []


def test_every_floor_is_populated(graph):
    """Guards the test itself: a renamed package would silently empty a floor."""
    floors = defaultdict(int)
    for mod in graph:
        floors[floor(mod)] += 1
    assert floors["library"] >= 40 and floors["pipeline"] >= 10 and floors["papers"] >= 40
