"""Small I/O helpers shared by the workflow scripts: atomic writes and log files.

Outputs are written to a temporary name in the destination directory and renamed
into place only when complete, so an interrupted job never leaves a half-written
file that a later run could mistake for a result.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["atomic_path", "write_csv", "write_parquet", "write_json", "log_to_file"]


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it onto ``path`` on success, delete it on error."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, path)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def write_csv(df, path, **kwargs) -> None:
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False, **kwargs)


def write_parquet(df, path) -> None:
    with atomic_path(path) as tmp:
        df.to_parquet(tmp, index=False)


def write_json(obj: Any, path) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n")


def log_to_file(path: str | os.PathLike | None, level: int = logging.INFO) -> None:
    """Send the ``logging`` output of the library (and warnings) to ``path``."""
    handlers: list[logging.Handler] = []
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(path, mode="w"))
    else:
        handlers.append(logging.StreamHandler())
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(name)s %(levelname)s: %(message)s",
        handlers=handlers,
        force=True,
    )
    logging.captureWarnings(True)
