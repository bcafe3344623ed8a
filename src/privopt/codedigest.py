"""A digest of the library code a job runs, so that a library change reruns exactly its jobs.

Snakemake tracks a rule's script and params, not the modules the script imports.  The workflow
therefore puts, in the params of every job that calls the library, the digest of the source of the
module it calls *and of every ``privopt`` module that module imports, transitively*.  The imports
are found statically (``ast``: nothing is imported, so the workflow parses in milliseconds), package
``__init__`` modules included, since importing a submodule runs them.

The digest is taken over the syntax tree without docstrings (``ast.dump``), so editing a comment,
a docstring or the layout of a file reruns nothing, while any change to code does.

Parsing the ~150 modules the workflow's rules name took about 1.3 s of each Snakemake start (a third of a dry
run); what a file's parse gives (its imports, its digest) is therefore kept between processes, keyed by the
sha256 of the file's bytes, the module's name and the Python version (whose ``ast.dump`` it is), in
``$PRIVOPT_CACHE_DIR`` (default ``~/.cache/privopt``): a file that changes gets a new key, so the cache can
never answer for another version of it, and a missing or unwritable cache only costs the parse.
"""

from __future__ import annotations

import ast
import atexit
import hashlib
import json
import os
import sys
import tempfile
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
    return _module_file(name, str(src or _src_root()))


@cache
def _module_file(name: str, src: str) -> Path | None:
    """:func:`module_file`, asked once per process: the closures of the workflow's ~70 rules look the same
    ~250 names up ~19,000 times.  A module file added or removed while a process runs is not seen by it."""
    base = Path(src).joinpath(*name.split("."))
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


def _cache_file() -> Path:
    base = os.environ.get("PRIVOPT_CACHE_DIR") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "privopt"
    return Path(base) / f"codedigest-py{sys.version_info[0]}.{sys.version_info[1]}.json"


class _ParseCache:
    """What parsing a file gave, kept between processes (see the module's docstring): read once per process,
    the entries it added merged into the file at exit (written atomically; two processes writing at once
    lose at most each other's new entries, which are parsed again next time)."""

    def __init__(self) -> None:
        self.path = _cache_file()
        self.new: dict[str, list] = {}
        try:
            self.entries = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.entries = {}
        if not isinstance(self.entries, dict):
            self.entries = {}

    def get(self, key: str) -> list | None:
        return self.entries.get(key)

    def put(self, key: str, value: list) -> None:
        if not self.new:
            atexit.register(self.save)
        self.entries[key] = self.new[key] = value

    def save(self) -> None:
        try:
            try:
                merged = json.loads(self.path.read_text(encoding="utf-8"))
                merged = merged if isinstance(merged, dict) else {}
            except (OSError, ValueError):
                merged = {}
            merged.update(self.new)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(merged, out, sort_keys=True)
            os.replace(tmp, self.path)
        except OSError:
            pass  # a cache that cannot be written costs the parse next time, nothing else


@cache
def _parse_cache() -> _ParseCache:
    return _ParseCache()


def _import_targets(tree: ast.AST, name: str, is_package: bool) -> set[str]:
    """Every module named by an import statement of the module ``name``'s syntax tree."""
    package = name if is_package else name.rpartition(".")[0]
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
    return found


@cache
def _parsed(name: str, path: str, mtime_ns: int) -> tuple[frozenset[str], str]:
    """The modules the file's import statements name and the sha256 of its code without docstrings (once per
    file version and process, and from the cache across processes: the workflow asks for the closures of
    many modules that share most of their imports)."""
    data = Path(path).read_bytes()
    key = f"{name}:{Path(path).name == '__init__.py'}:{hashlib.sha256(data).hexdigest()}"
    hit = _parse_cache().get(key)
    if isinstance(hit, list) and len(hit) == 2:
        return frozenset(hit[0]), hit[1]
    tree = ast.parse(data.decode("utf-8"), filename=path)
    found = _import_targets(tree, name, Path(path).name == "__init__.py")
    digest = hashlib.sha256(ast.dump(_strip_docstrings(tree), include_attributes=False).encode("utf-8")).hexdigest()
    _parse_cache().put(key, [sorted(found), digest])
    return frozenset(found), digest


def _imports(name: str, path: str, mtime_ns: int) -> frozenset[str]:
    """Every module named by an import statement of the file."""
    return _parsed(name, path, mtime_ns)[0]


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


def _module_digest(name: str, file: Path) -> str:
    return _parsed(name, str(file), file.stat().st_mtime_ns)[1]


def code_digest(roots: Iterable[str], src: Path | None = None) -> str:
    """sha256 (hex, 16 digits) over the code of every module in the closure of ``roots``."""
    h = hashlib.sha256()
    for name in closure(roots, src):
        file = module_file(name, src)
        h.update(name.encode() + b"\0" + _module_digest(name, file).encode() + b"\n")
    return h.hexdigest()[:16]


def module_digests(roots: Iterable[str], src: Path | None = None) -> dict[str, str]:
    """Per module of the closure of ``roots``, the digest of its code (16 hex digits): what a reference
    records, so that the report can say which modules changed since it was computed."""
    out = {}
    for name in closure(roots, src):
        file = module_file(name, src)
        out[name] = _module_digest(name, file)[:16]
    return out
