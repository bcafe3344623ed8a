"""A digest of the library code a job runs, so that a library change reruns exactly its jobs.

Snakemake tracks a rule's script and params, not the modules the script imports.  The workflow
therefore puts, in the params of every job that calls the library, the digest of the source of the
module it calls *and of every ``privopt`` module that module imports, transitively*.  The imports
are found statically (``ast``: nothing is imported, so the workflow parses in milliseconds), package
``__init__`` modules included, since importing a submodule runs them.

The digest is taken over the syntax tree without docstrings (``ast.dump``), so editing a comment,
a docstring or the layout of a file reruns nothing, while any change to code does.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable
from functools import cache
from pathlib import Path

__all__ = ["module_file", "imported_modules", "notebook_imports", "closure", "code_digest", "module_digests"]

ROOT_PACKAGE = "privopt"


def _src_root() -> Path:
    """The directory holding the ``privopt`` package this module belongs to."""
    return Path(__file__).resolve().parents[2]


def module_file(name: str, src: Path | None = None) -> Path | None:
    """The source file of module ``name`` (``pkg/__init__.py`` for a package), or None."""
    base = (src or _src_root()).joinpath(*name.split("."))
    if base.is_dir() and (base / "__init__.py").is_file():
        return base / "__init__.py"
    file = base.with_suffix(".py")
    return file if file.is_file() else None


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def imported_modules(name: str, src: Path | None = None) -> set[str]:
    """The ``privopt`` modules that module ``name`` imports (absolute and relative), without recursion."""
    file = module_file(name, src)
    if file is None:
        raise ModuleNotFoundError(f"no source for module {name!r}")
    found = _imports(name, str(file), file.stat().st_mtime_ns)
    return {m for m in found if (m == ROOT_PACKAGE or m.startswith(ROOT_PACKAGE + ".")) and module_file(m, src)}


@cache
def _imports(name: str, path: str, mtime_ns: int) -> frozenset[str]:
    """Every module named by an import statement of the file (parsed once per file version: the workflow
    asks for the closures of many modules that share most of their imports)."""
    file = Path(path)
    tree = ast.parse(file.read_text(encoding="utf-8"), filename=path)
    package = name if file.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            # ``from pkg import sub`` imports the submodule ``pkg.sub`` when it is one
            found.update(f"{target}.{alias.name}" for alias in node.names if alias.name != "*")
    return frozenset(found)


def notebook_imports(path: str | Path, src: Path | None = None) -> list[str]:
    """The ``privopt`` modules a notebook's code cells import (its roots for :func:`code_digest`): a figure
    notebook draws through ``privopt.plotting`` and, for some papers, the paper's own figure module, so
    editing either redraws exactly the figures whose notebooks import it.  IPython magics and shell lines
    (``%``, ``!``) are skipped."""
    import json

    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    code = "\n".join(line for cell in cells if cell["cell_type"] == "code"
                     for line in "".join(cell["source"]).splitlines() if not line.lstrip().startswith(("%", "!")))
    found: set[str] = set()
    for node in ast.walk(ast.parse(code, filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*")
    return sorted(m for m in found if (m == ROOT_PACKAGE or m.startswith(ROOT_PACKAGE + ".")) and module_file(m, src))


def closure(roots: Iterable[str], src: Path | None = None) -> list[str]:
    """Every ``privopt`` module the roots import, transitively, with their parent packages; sorted."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if module_file(name, src) is None:
            raise ModuleNotFoundError(f"no source for module {name!r} under {src or _src_root()}")
        seen.add(name)
        todo.extend(p for p in _parents(name) if p not in seen)
        todo.extend(m for m in imported_modules(name, src) if m not in seen)
    return sorted(seen)


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


@cache
def _module_digest(path: str, mtime_ns: int) -> str:
    text = Path(path).read_text(encoding="utf-8")
    dumped = ast.dump(_strip_docstrings(ast.parse(text)), include_attributes=False)
    return hashlib.sha256(dumped.encode("utf-8")).hexdigest()


def code_digest(roots: Iterable[str], src: Path | None = None) -> str:
    """sha256 (hex, 16 digits) over the code of every module in the closure of ``roots``."""
    h = hashlib.sha256()
    for name in closure(roots, src):
        file = module_file(name, src)
        h.update(name.encode() + b"\0" + _module_digest(str(file), file.stat().st_mtime_ns).encode() + b"\n")
    return h.hexdigest()[:16]


def module_digests(roots: Iterable[str], src: Path | None = None) -> dict[str, str]:
    """Per module of the closure of ``roots``, the digest of its code (16 hex digits): what a reference
    records, so that the report can say which modules changed since it was computed."""
    out = {}
    for name in closure(roots, src):
        file = module_file(name, src)
        out[name] = _module_digest(str(file), file.stat().st_mtime_ns)[:16]
    return out
