"""Declarative readers of a paper's config section: the points, seeds and whitelists most experiments declare.

A declaration (:mod:`privopt.pipeline.protocol`) hands the workflow functions of the paper's config section:
``points(section)``, ``seeds(section)``, ``settings(section, point)``, ``table_settings(section)``,
``Figure.params(section)``, ``Claims.settings(section)``, ``Instance.settings(section)``.  Most of them only
pick values by key; these readers say which keys, so a declaration reads as data::

    points=grid(T=("rc1a.T", int))                            # [{"T": 64}, {"T": 256}, ...]
    points=grid(reward="exp1.rewards", d=("exp1.dims", int))  # every reward × every d, rewards outermost
    settings=reads("n", "eps", under="rc1a", also=("c_sens", "lambda_g"))
    seeds=seeds_from("rc1a.runs", "rc1a.seeds_per_job")
    points=one_point, seeds=one_seed                          # one job, seed 0 (e.g. the privacy checks)
    params=reads("delta", eps_plot="plot.f1_eps")

A *path* is a config key under the section, dotted for a key of a subsection (``"rc1a.T"`` is
``section["rc1a"]["T"]``).  A reader returns the config's values as they are (no cast unless ``grid`` is given
one; no copy but :class:`subsection`'s shallow one), so it computes what a hand-written function picking the same
keys computes, and the settings digest of a run job (:func:`privopt.pipeline.protocol.settings_key`) with it.  A
declaration keeps a
plain function (named, with a docstring) where the shape is its own: a point that depends on a transformed
value, settings that depend on the point, a default for an absent group.

The readers that take paths are frozen dataclasses: one compares equal to the same declaration and shows what it
reads in its ``repr``.  Nothing here imports anything heavy (the workflow reads every declaration at each start).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["value_at", "grid", "one_point", "reads", "subsection", "seeds_from", "one_seed"]

Section = Mapping[str, Any]


def value_at(section: Section, path: str) -> Any:
    """The value of the dotted config ``path`` under ``section`` (a KeyError names the path when it is absent).

    >>> value_at({"rc1a": {"T": [64, 256]}, "c_sens": 1.0}, "rc1a.T"), value_at({"c_sens": 1.0}, "c_sens")
    ([64, 256], 1.0)
    """
    value: Any = section
    for i, key in enumerate(path.split(".")):
        if not isinstance(value, Mapping) or key not in value:
            where = ".".join(path.split(".")[:i]) or "the section"
            raise KeyError(f"config key {path!r}: {where} has no key {key!r}")
        value = value[key]
    return value


@dataclass(frozen=True)
class grid:  # noqa: N801 - used as a function in declarations
    """``points(section)``: the product of config lists, one point key per list, the first key outermost.

    ``grid(name=path)`` or ``grid(name=(path, cast))``: the key ``name`` of each point takes every value of the
    list at ``path`` (a mapping gives its keys, in order), cast by ``cast`` (``int``, ``float``) when given.

    >>> grid(reading="fig1.readings", r=("fig1.ranks", int))({"fig1": {"readings": {"G": {}, "F": {}}, "ranks": [2.0, 5]}})
    [{'reading': 'G', 'r': 2}, {'reading': 'G', 'r': 5}, {'reading': 'F', 'r': 2}, {'reading': 'F', 'r': 5}]
    """

    axes: tuple[tuple[str, str, Callable | None], ...]

    def __init__(self, **axes: str | tuple[str, Callable]) -> None:
        if not axes:
            raise TypeError("grid needs at least one point key (an experiment without grid declares no points)")
        parsed = []
        for name, spec in axes.items():
            path, cast = (spec, None) if isinstance(spec, str) else spec
            parsed.append((name, path, cast))
        object.__setattr__(self, "axes", tuple(parsed))

    def __call__(self, section: Section) -> list[dict[str, Any]]:
        values = [[v if cast is None else cast(v) for v in value_at(section, path)] for _, path, cast in self.axes]
        names = [name for name, _, _ in self.axes]
        return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def one_point(section: Section) -> list[dict[str, Any]]:
    """``points(section)`` of an experiment without grid: one point, with no key (its runs lie directly under
    the experiment's folder)."""
    return [{}]


@dataclass(frozen=True)
class reads:  # noqa: N801 - used as a function in declarations
    """A whitelist: the config values at the given paths, each under the last key of its path.

    ``reads(*paths, under=sub, also=paths, **renamed)``: ``paths`` under the subsection ``sub`` (none: under
    the section itself); ``also``: paths under the section itself, put first (the top-level keys every run
    reads, next to its subsection's); ``name=path`` puts a value under another name, and ``name=reads(...)``
    nests a whitelist.  Serves as ``settings(section, point)`` (the point is not read) and as a section-only
    whitelist (``table_settings``, ``Figure.params``, ``Claims.settings``, ``Instance.settings``).

    >>> sec = {"c_sens": 1.0, "rc1a": {"n": 8, "eps": [0.5, 1.0], "runs": 5}, "plot": {"f1_eps": 1.0}}
    >>> reads("n", "eps", under="rc1a", also=("c_sens",))(sec, {"T": 64})
    {'c_sens': 1.0, 'n': 8, 'eps': [0.5, 1.0]}
    >>> reads("c_sens", eps_plot="plot.f1_eps", rc1a=reads("n", under="rc1a"))(sec)
    {'c_sens': 1.0, 'eps_plot': 1.0, 'rc1a': {'n': 8}}
    """

    paths: tuple[tuple[str, Any], ...]

    def __init__(self, *paths: str, under: str = "", also: tuple[str, ...] = (), **renamed: Any) -> None:
        if isinstance(also, str):
            raise TypeError(f"reads: also is a tuple of paths, e.g. ({also!r},)")
        prefix = f"{under}." if under else ""
        named = [(p.rsplit(".", 1)[-1], p) for p in also]
        named += [(p.rsplit(".", 1)[-1], prefix + p) for p in paths]
        named += [(name, spec if isinstance(spec, reads) else prefix + spec) for name, spec in renamed.items()]
        names = [n for n, _ in named]
        if len(set(names)) != len(names):
            raise ValueError(f"reads: two paths give the same setting name: {names}")
        object.__setattr__(self, "paths", tuple(named))

    def __call__(self, section: Section, point: Any = None) -> dict[str, Any]:
        return {name: spec(section) if isinstance(spec, reads) else value_at(section, spec) for name, spec in self.paths}


@dataclass(frozen=True)
class subsection:  # noqa: N801 - used as a function in declarations
    """A whitelist of every key of a subsection (a shallow copy): for a job that reads all of it.

    >>> subsection("privacy")({"privacy": {"samples": 10, "seed": 0}, "c_sens": 1.0}, {})
    {'samples': 10, 'seed': 0}
    """

    path: str

    def __call__(self, section: Section, point: Any = None) -> dict[str, Any]:
        return dict(value_at(section, self.path))


@dataclass(frozen=True)
class seeds_from:  # noqa: N801 - used as a function in declarations
    """``seeds(section)``: ``(n_runs, seeds_per_job)`` read at two paths.

    >>> seeds_from("rc1a.runs", "seeds_per_job")({"rc1a": {"runs": 30}, "seeds_per_job": 10})
    (30, 10)
    """

    runs: str
    per_job: str

    def __call__(self, section: Section) -> tuple[Any, Any]:
        return value_at(section, self.runs), value_at(section, self.per_job)


def one_seed(section: Section) -> tuple[int, int]:
    """``seeds(section)`` of a job that runs once (seed 0): a check or a table computed, not sampled."""
    return (1, 1)
