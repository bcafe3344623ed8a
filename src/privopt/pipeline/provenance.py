"""What produced a result: the software environment, the code's git commit, the config's digest.

numpy's ``Generator`` streams (``choice``, ``gumbel``, ...) are not promised stable across
versions, so a table is only reproducible together with the versions that made it.  This
module collects them; it never prints and never raises for a missing package or a missing git.

>>> env = environment()
>>> sorted(env) == ["git", "packages", "platform", "python"]
True
>>> config_digest({"b": 1, "a": [0.5, "x"]}) == config_digest({"a": [0.5, "x"], "b": 1})
True
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from privopt.seeding import _canonical

__all__ = ["PACKAGES", "NOT_INSTALLED", "environment", "git_state", "git_changes", "config_digest", "file_sha256",
           "first_changed", "TableChanged", "verify_record", "write_check_stamp"]

#: Distributions whose versions can change the numbers in a table or a figure.
PACKAGES = ("numpy", "scipy", "pandas", "pyarrow", "numba", "llvmlite", "snakemake", "matplotlib", "seaborn")
NOT_INSTALLED = "not installed"

_SOURCE_DIR = Path(__file__).resolve().parent
_GIT_TIMEOUT_S = 10


def _package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return NOT_INSTALLED


def _git(args: list[str], cwd: Path) -> str | None:
    """stdout of ``git ARGS`` run in *cwd*, or None when git is missing, fails or times out."""
    env = {k: v for k, v in os.environ.items() if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")}
    # Read-only: `git status` must not take .git/index.lock from people committing in this checkout.
    env["GIT_OPTIONAL_LOCKS"] = "0"
    env["LC_ALL"] = "C"
    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if proc.returncode != 0:
        return None
    return proc.stdout


def git_state(path: str | os.PathLike[str] | None = None, exclude: tuple[str, ...] = ()) -> dict[str, Any]:
    """``{"commit": sha or None, "dirty": bool or None}`` of the git checkout holding *path*.

    *path* defaults to privopt's own source directory.  Both values are None when *path* is
    not in a git work tree whose files include it (e.g. privopt installed into a venv that
    sits inside some checkout), or when git is missing or fails.  ``dirty`` is True when
    ``git status --porcelain`` lists anything (modified, staged or untracked files) outside the
    top-level folders ``exclude`` (e.g. the reference folder a reference writer is writing).
    """
    none = {"commit": None, "dirty": None}
    try:
        cwd = Path(_SOURCE_DIR if path is None else path).resolve()
        if not cwd.is_dir():
            cwd = cwd.parent
        if not cwd.is_dir():
            return none
        # The directory itself must hold tracked files of that checkout, not merely lie inside it.
        tracked = _git(["ls-files", "--", "."], cwd)
        if not tracked or not tracked.strip():
            return none
        head = _git(["rev-parse", "--verify", "HEAD"], cwd)
        top = _git(["rev-parse", "--show-toplevel"], cwd)
        status = _git(["status", "--porcelain", "--", top.strip() if top else ".",
                       *(f":(exclude,top){x}" for x in exclude)], cwd)
        if head is None or status is None:
            return none
        return {"commit": head.strip(), "dirty": bool(status.strip())}
    except Exception:  # provenance must never break a run
        return none


def git_changes(path: str | os.PathLike[str] | None = None, exclude: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """What makes the checkout holding *path* dirty, as :func:`git_state` counts it: ``{"changed": [paths],
    "diff_sha256": hex}``, or None when git is missing or fails.

    ``changed``: every path ``git status --porcelain`` lists outside ``exclude`` (modified, staged, deleted or
    untracked), relative to the top of the checkout.  ``diff_sha256``: the sha256 of ``git diff --binary HEAD``
    of those paths followed, for each untracked file in path order, by the line ``untracked <path> <sha256 of
    its bytes>``: the same uncommitted state gives the same digest, so a reference written from a dirty tree
    can be matched with the diff that made it.
    """
    try:
        cwd = Path(_SOURCE_DIR if path is None else path).resolve()
        if not cwd.is_dir():
            cwd = cwd.parent
        top = _git(["rev-parse", "--show-toplevel"], cwd)
        if top is None:
            return None
        root = Path(top.strip())
        spec = [".", *(f":(exclude,top){x}" for x in exclude)]
        status = _git(["status", "--porcelain", "-z", "--untracked-files=all", "--", *spec], root)
        diff = _git(["diff", "--binary", "HEAD", "--", *spec], root)
        if status is None or diff is None:
            return None
        changed, untracked = [], []
        entries = iter(status.split("\0"))
        for entry in entries:
            if not entry:
                continue
            code, name = entry[:2], entry[3:]
            if code[0] in "RC":  # a rename or copy is followed by its source path
                next(entries, None)
            changed.append(name)
            if code == "??":
                untracked.append(name)
        h = hashlib.sha256(diff.encode())
        for name in sorted(untracked):
            h.update(f"untracked {name} {file_sha256(root / name)}\n".encode())
        return {"changed": sorted(changed), "diff_sha256": h.hexdigest()}
    except Exception:  # provenance must never break a run
        return None


def environment() -> dict[str, Any]:
    """The Python, platform, result-relevant package versions and git state of this run.

    ``{"python": "3.11.7", "platform": {...}, "packages": {"numpy": "2.4.6", ...,
    "snakemake": "not installed"}, "git": {"commit": "<sha>" | None, "dirty": bool | None}}``
    """
    return {
        "python": platform.python_version(),
        "platform": {
            "implementation": platform.python_implementation(),
            "system": platform.system(),
            "release": platform.release(),
            "machine": platform.machine(),
            "platform": platform.platform(),
        },
        "packages": {name: _package_version(name) for name in PACKAGES},
        "git": git_state(),
    }


def config_digest(obj: Any) -> str:
    """sha256 (hex) of the canonical JSON of a config: independent of key order.

    Uses :func:`privopt.seeding._canonical`, the form random streams are keyed on: floats by
    ``repr`` (so ``1`` and ``1.0`` differ), tuples as lists, numpy scalars unwrapped, mapping
    keys as strings.  Raises TypeError for values with no canonical form.
    """
    text = json.dumps(_canonical(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def file_sha256(path: str | os.PathLike[str]) -> str:
    """sha256 (hex) of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def first_changed(digests: dict[str, str], root: str | os.PathLike[str] = ".") -> tuple[str, str | None] | None:
    """The first ``(path, sha256 found or None when missing)`` among ``digests`` (path relative to ``root`` →
    sha256 recorded) whose file differs from its record; None when every file is as recorded."""
    for rel, expected in digests.items():
        path = Path(root) / rel
        if not path.is_file():
            return rel, None
        got = file_sha256(path)
        if got != expected:
            return rel, got
    return None


class TableChanged(ValueError):
    """A table's bytes differ from the sha256 its provenance record holds: it was changed after the
    pipeline wrote it (by hand, or by another program)."""


def verify_record(record_path: str | os.PathLike[str], regenerate: str = "") -> dict[str, Any]:
    """Check every table a provenance record lists against the sha256 it recorded; return the record.

    Raises :class:`TableChanged` naming the first table that differs (or is missing, or a record
    without digests), and how to regenerate it (``regenerate``: a command).  Tables are written
    atomically by the pipeline, so a difference means someone changed a table after it was made.
    """
    record = json.loads(Path(record_path).read_text())
    digests = record.get("sha256")
    how = f"; regenerate it with `{regenerate}`" if regenerate else ""
    if not isinstance(digests, dict) or set(digests) != set(record.get("tables", [])):
        raise TableChanged(f"{record_path}: the provenance record holds no sha256 of its tables (written by an "
                           f"older version of the pipeline){how}")
    changed = first_changed(digests)
    if changed:
        table, got = changed
        if got is None:
            raise TableChanged(f"{table}: missing, though {record_path} records it{how}")
        raise TableChanged(f"{table}: its sha256 {got[:16]}… is not the {digests[table][:16]}… that {record_path} "
                           f"recorded when the pipeline wrote it: the table was changed by hand (or another "
                           f"program) since{how}")
    return record


def write_check_stamp(record_path: str | os.PathLike[str], stamp: str | os.PathLike[str], regenerate: str = "") -> None:
    """:func:`verify_record`, then a stamp listing the checked tables and their sha256 (what every rule that
    reads the tables takes as input)."""
    record = verify_record(record_path, regenerate)
    Path(stamp).write_text("".join(f"{digest}  {table}\n" for table, digest in record["sha256"].items()))
