"""The registered papers: every ``privopt.experiments.<key>`` package with a ``paper`` module.

A paper plugs in by existing: ``src/privopt/experiments/<key>/paper.py`` defines ``PAPER``, a
:class:`~privopt.pipeline.protocol.Paper` whose ``key`` is ``<key>``.  Discovery imports only
those declaration modules (light: the protocol and the paper's cost model), never the algorithms.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

import privopt.experiments as _experiments
from privopt.pipeline.protocol import Paper

__all__ = ["papers", "paper"]


@cache
def papers() -> dict[str, Paper]:
    """Every registered paper by key, in key order."""
    found: dict[str, Paper] = {}
    for info in sorted(pkgutil.iter_modules(_experiments.__path__), key=lambda m: m.name):
        if not info.ispkg:
            continue
        try:
            module = importlib.import_module(f"{_experiments.__name__}.{info.name}.paper")
        except ModuleNotFoundError as err:
            if err.name == f"{_experiments.__name__}.{info.name}.paper":
                continue  # a helper package, not a paper
            raise
        declared = getattr(module, "PAPER", None)
        if not isinstance(declared, Paper):
            raise TypeError(f"{module.__name__} must define PAPER = Paper(...)")
        if declared.key != info.name:
            raise ValueError(f"{module.__name__} declares key {declared.key!r}; it must be its package name {info.name!r}")
        found[declared.key] = declared
    return found


def paper(key: str) -> Paper:
    try:
        return papers()[key]
    except KeyError:
        raise KeyError(f"no registered paper {key!r}; registered: {', '.join(papers())}") from None
