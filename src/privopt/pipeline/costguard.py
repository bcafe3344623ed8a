"""The cost guard: a run job whose predicted memory or runtime is out of reach is refused before any job
runs, with its estimate and the config key that drives it.

The workflow prices each planned run job when it asks for the job's resources (workflow/rules/common.smk,
``job_mem_mb`` and ``job_runtime``: the paper's cost model, :mod:`privopt.pipeline.cost`): Snakemake
asks when it prints a job (a dry run) or schedules it, and the workflow's ``onstart`` asks for every
planned run job before the first job starts.  The limits come from the config key ``cost_guard`` (workflow/schemas/config.schema.yaml):

* on a local run: memory ``max_mem_mb`` (null: the memory of the machine) and runtime ``max_job_hours``;
* with a cluster executor (profiles/slurm): ``cluster_max_mem_mb`` and ``cluster_max_job_hours`` (null:
  no limit, the cluster enforces what each job asks for) — set them to a node's size in a config file;
* ``enabled: false`` lets every job go on.

The keys named in a refusal are those whose doubling grows the estimate most (:func:`driving_keys`): the
numeric keys of the paper's section, the list a parameter point's value comes from, and the seeds per
job.  An estimate that is not a finite number (a cost model overflowing) is refused too.

Before any of that, the size of the plan itself: Snakemake holds every planned job in memory, so
``n_runs: 1e9`` would exhaust the memory while planning, long before any job is priced.
:func:`check_plan` counts the run jobs of the configuration by arithmetic (points × seed blocks, no job
made) and refuses more than ``max_run_jobs``, naming the experiment and the keys whose doubling grows
the count; the workflow calls it right after validating the config (workflow/rules/common.smk).

The jobs that are not run jobs are priced there too, before planning: a paper's privacy audit job, the one
local job a config key makes as large as one likes (``privacy_audit.samples``, outputs drawn per input of every
audit), is priced by :func:`check_audits` (:func:`privopt.pipeline.cost.audit_cost`) against the local limits,
and refused naming the key and the file that set it.  The other local jobs read what the run jobs wrote (priced
above) and the data sets (checked when parsed).
"""

from __future__ import annotations

import copy
import math
import os
from functools import partial
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from privopt.pipeline import cost
from privopt.pipeline.errors import ConfigError

__all__ = ["machine_mem_mb", "limits", "driving_keys", "check_job", "format_mb", "run_job_count", "check_plan",
           "check_audits"]


def machine_mem_mb() -> int | None:
    """Physical memory of this machine in MB (None where the system does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e6)
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return None


def format_mb(mb: float) -> str:
    for unit, size in (("TB", 1e6), ("GB", 1e3)):
        if mb >= size:
            return f"{mb / size:.3g} {unit}"
    return f"{mb:.3g} MB"


def _format_s(seconds: float) -> str:
    if seconds >= 86400:
        return f"{seconds / 86400:.3g} days"
    if seconds >= 3600:
        return f"{seconds / 3600:.3g} h"
    return f"{seconds / 60:.3g} min"


def limits(guard: Mapping[str, Any], *, local: bool) -> tuple[float | None, str, float | None, str]:
    """(max MB, what it is, max seconds, what it is) of one run job; None: no limit."""
    if not guard.get("enabled", True):
        return None, "", None, ""
    if local:
        mem, mem_key = guard.get("max_mem_mb"), "cost_guard.max_mem_mb"
        hours, hours_key = guard.get("max_job_hours"), "cost_guard.max_job_hours"
        if mem is None:
            mem = machine_mem_mb()
            mem_what = f"this machine's memory, {format_mb(mem)} ({mem_key}: null)" if mem else ""
        else:
            mem_what = f"{mem_key} = {mem}"
    else:
        mem, mem_key = guard.get("cluster_max_mem_mb"), "cost_guard.cluster_max_mem_mb"
        hours, hours_key = guard.get("cluster_max_job_hours"), "cost_guard.cluster_max_job_hours"
        mem_what = f"{mem_key} = {mem}" if mem is not None else ""
    hours_what = f"{hours_key} = {hours:g} (a run on {'this machine' if local else 'the cluster'})" if hours else ""
    return mem, mem_what, (hours * 3600.0 if hours else None), hours_what


def _leaves(node: Any, prefix: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    if isinstance(node, Mapping):
        for key, value in node.items():
            yield from _leaves(value, (*prefix, key))
    else:
        yield prefix, node


def _set(doc: dict, path: tuple, value: Any) -> None:
    for part in path[:-1]:
        doc = doc[part]
    doc[path[-1]] = value


def _doubled(value: Any) -> Any:
    return 2 * value


def _above_default(key: str, section: Mapping, path: tuple) -> float:
    """How many times its schema default a key's value is (its largest element for a list); 1 where either
    is not a positive number."""
    from privopt.pipeline.config import SCHEMAS, schema_of

    try:
        node, value = schema_of(key, SCHEMAS), section
        for part in path:
            node, value = node["properties"][part], value[part]
        default = node.get("default")
    except (KeyError, TypeError, OSError):
        return 1.0
    big = (lambda v: max(v) if isinstance(v, list) and v and all(isinstance(x, (int, float)) for x in v) else v)
    value, default = big(value), big(default)
    if isinstance(value, (int, float)) and isinstance(default, (int, float)) and value > 0 and default > 0:
        return float(value) / float(default)
    return 1.0


def driving_keys(section: Mapping, key: str, exp, point: Mapping, n_seeds: int,
                 measure: Callable[[dict, Mapping, int], float]) -> list[tuple[tuple, float]]:
    """The config keys of the paper's section whose doubling multiplies ``measure(settings, point,
    n_seeds)`` (factor > 1), as (key path, factor), the largest factor first (equal factors: the key
    furthest above its schema default first).  Candidates: every numeric key (a key that no longer works
    once doubled is skipped), the list a point value comes from (the point's value doubled), and the
    seeds per job (``n_seeds`` doubled)."""
    try:
        base = float(measure(exp.settings(section, point), point, n_seeds))
    except Exception:  # noqa: BLE001 - a model that cannot price the job names no key
        return []
    if not base > 0:
        return []
    found: dict[tuple, tuple[tuple, float]] = {}

    def consider(path: tuple, value: float) -> None:
        if math.isfinite(value) and value / base > 1.01:
            rank = (round(math.log(value / base), 6), _above_default(key, section, path))
            if (key, *path) not in found or rank > found[(key, *path)][0]:
                found[(key, *path)] = (rank, value / base)

    leaves = list(_leaves(section))
    for path, value in leaves:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value == 0:
            continue
        trial = copy.deepcopy(dict(section))
        _set(trial, path, _doubled(value))
        try:
            consider(path, float(measure(exp.settings(trial, point), point, n_seeds)))
        except Exception:  # noqa: BLE001 - e.g. a doubled key that breaks a cross-key rule
            continue
    settings = exp.settings(section, point)
    for name, value in point.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value == 0:
            continue
        lists = [path for path, v in leaves if isinstance(v, list) and value in v]
        if not lists:
            continue
        try:
            consider(lists[0], float(measure(settings, {**point, name: _doubled(value)}, n_seeds)))
        except Exception:  # noqa: BLE001
            continue
    per_job = [path for path, _ in leaves if path and path[-1] == "seeds_per_job"]
    if per_job:
        try:
            consider(per_job[0], float(measure(settings, point, 2 * n_seeds)))
        except Exception:  # noqa: BLE001
            pass
    ranked = sorted(found.items(), key=lambda item: item[1][0], reverse=True)
    return [(path, factor) for path, (_, factor) in ranked]


def check_job(*, rule: str, key: str, exp, section: Mapping, point: Mapping, block: str, n_seeds: int,
              seconds: float | None = None, mem_mb: float | None = None, guard: Mapping[str, Any], local: bool,
              origin: Callable[[tuple], str] = lambda path: "the config") -> None:
    """Refuse (:class:`ConfigError`) a run job predicted to need more memory or time than the limits
    allow, naming the job, its estimate, the limit, the config key that drives the estimate and how to go
    on anyway."""
    max_mb, mb_what, max_s, s_what = limits(guard, local=local)
    where = ", ".join(f"{k}={v}" for k, v in point.items())
    job = f"run job {rule} ({where}; seeds {block})"
    if guard.get("enabled", True) and any(v is not None and not math.isfinite(v) for v in (mem_mb, seconds)):
        bad = "memory" if mem_mb is not None and not math.isfinite(mem_mb) else "runtime"
        what = f"{job} has a predicted {bad} that is not a finite number ({mem_mb if bad == 'memory' else seconds!r})"
        measure = lambda s, p, n: 0.0  # noqa: E731 - no key can be ranked against an infinite estimate
        option = "cost_guard.enabled"
    elif mem_mb is not None and max_mb is not None and mem_mb > max_mb:
        what = (f"{job} is predicted to need {format_mb(mem_mb)} of memory (mem_mb={mem_mb:,.0f}), more than "
                f"{mb_what}")
        measure = partial(exp.data_mb, exp) if exp.data_mb else (lambda s, p, n: 0.0)
        option = "cost_guard.max_mem_mb" if local else "cost_guard.cluster_max_mem_mb"
    elif seconds is not None and max_s is not None and seconds > max_s:
        what = f"{job} is predicted to compute for {_format_s(seconds)}, more than {s_what}"
        measure = partial(exp.cost, exp) if exp.cost else (lambda s, p, n: 0.0)
        option = "cost_guard.max_job_hours" if local else "cost_guard.cluster_max_job_hours"
    else:
        return
    drivers = []
    for path, factor in driving_keys(section, key, exp, point, n_seeds, measure)[:3]:
        value = section
        for part in path[1:]:
            value = value[part]
        drivers.append(f"{'.'.join(str(p) for p in path)} = {value!r} (set in {origin(path)}; doubled: "
                       f"x{factor:.3g})")
    drive = f"; the config keys that drive the estimate: {', '.join(drivers)}" if drivers else ""
    lower = "one of them" if drivers else "the settings"
    raise ConfigError(f"cost guard: {what}{drive}.  Lower {lower}, or go on anyway with a higher {option} "
                      f"or cost_guard: {{enabled: false}} in a config file (privopt.pipeline.costguard)")


# ----------------------------------------------------------------------------- the size of the plan


def run_job_count(exp, section: Mapping) -> int:
    """How many run jobs an experiment plans (its points × their seed blocks), by arithmetic: no job and no
    seed block is made, so a count of 10^9 costs what a count of 10 does."""
    per_job = int(exp.seeds(section)[1])
    return sum(-(-int(exp.runs_at(section, point)) // per_job) for point in exp.points(section))


def _paper_jobs(paper, section: Mapping) -> dict[str, int]:
    return {exp.name: run_job_count(exp, section) for exp in paper.experiments}


def check_plan(config: Mapping, papers: Mapping, *, origin: Callable[[tuple], str] = lambda path: "the config") -> int:
    """Refuse (:class:`ConfigError`) a configuration that plans more run jobs than
    ``cost_guard.max_run_jobs`` (Snakemake would exhaust the memory building the plan), naming the
    experiment with the most jobs and the keys of its paper whose doubling grows the count most; return the
    number of run jobs.  ``config`` is validated (defaults filled in)."""
    guard = config.get("cost_guard", {})
    counts = {(key, name): n for key, paper in papers.items() for name, n in _paper_jobs(paper, config[key]).items()}
    total = sum(counts.values())
    limit = guard.get("max_run_jobs")
    if not guard.get("enabled", True) or limit is None or total <= limit:
        return total
    (key, name), most = max(counts.items(), key=lambda item: item[1])
    section, base = config[key], sum(n for (k, _), n in counts.items() if k == key)
    drivers = []
    for path, value in _leaves(section):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value == 0:
            continue
        trial = copy.deepcopy(dict(section))
        _set(trial, path, _doubled(value))
        try:
            factor = sum(_paper_jobs(papers[key], trial).values()) / base
        except Exception:  # noqa: BLE001 - a doubled key that breaks the experiment's points names nothing
            continue
        if factor > 1.01:
            drivers.append((factor, (key, *path), value))
    drivers.sort(key=lambda d: d[0], reverse=True)
    named = ", ".join(f"{'.'.join(str(p) for p in path)} = {value!r} (set in {origin(path)}; doubled: x{factor:.3g})"
                      for factor, path, value in drivers[:3])
    drive = f"; the config keys that drive it: {named}" if named else ""
    raise ConfigError(f"cost guard: the configuration plans {total:,} run jobs, more than cost_guard.max_run_jobs = "
                      f"{limit:,} (Snakemake holds every planned job in memory); {key}.{name} alone plans "
                      f"{most:,}{drive}.  Lower {'one of them' if named else 'the runs or points'}, or raise "
                      f"cost_guard.max_run_jobs in a config file (privopt.pipeline.costguard)")


# ----------------------------------------------------------------------------- the jobs that are not run jobs


def check_audits(config: Mapping, papers: Mapping, *,
                 origin: Callable[[tuple], str] = lambda path: "the config") -> dict:
    """Refuse (:class:`ConfigError`) a ``privacy_audit.samples`` that makes a paper's audit job need more memory
    or time than the local limits allow (audit jobs run where the workflow runs), naming the job, its estimate,
    the limit, the key and the file that set it; return {paper: (seconds, MB)} of the jobs priced.  A named
    scale ("quick", "paper") is each audit's own declared sample count, measured: only a number is priced."""
    samples = config.get("privacy_audit", {}).get("samples", "quick")
    guard = config.get("cost_guard", {})
    if isinstance(samples, str) or isinstance(samples, bool) or not guard.get("enabled", True):
        return {}
    max_mb, mb_what, max_s, s_what = limits(guard, local=True)
    priced = {}
    for key, paper in papers.items():
        if not getattr(paper, "audits", ()):
            continue
        seconds, data_mb = cost.audit_cost(key, int(samples))
        mb = cost.mem_mb(data_mb)
        priced[key] = (seconds, mb)
        job = f"audit job {key}_audit ({int(samples):,} samples per input of each of its audits)"
        if max_mb is not None and mb > max_mb:
            what = f"{job} is predicted to need {format_mb(mb)} of memory, more than {mb_what}"
            option = "cost_guard.max_mem_mb"
        elif max_s is not None and seconds > max_s:
            what = f"{job} is predicted to compute for {_format_s(seconds)}, more than {s_what}"
            option = "cost_guard.max_job_hours"
        else:
            continue
        raise ConfigError(f"cost guard: {what}; the config key that drives the estimate: privacy_audit.samples = "
                          f"{samples!r} (set in {origin(('privacy_audit', 'samples'))}).  Lower it (\"quick\" and "
                          f"\"paper\" are each audit's own sample counts), or go on anyway with a higher {option} or "
                          f"cost_guard: {{enabled: false}} in a config file (privopt.pipeline.costguard)")
    return priced
