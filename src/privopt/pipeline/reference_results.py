"""Reference results: a paper's tables at the largest scale that has run, committed under ``reference/<paper>/``.

A paper-scale run costs tens of core-hours; its aggregated tables cost kilobytes.  The reference folder
holds them, so that every user gets the paper-scale verdicts without recomputing them::

    reference/<paper>/manifest.json                   what ran, and the sha256 of every file below
    reference/<paper>/tables/<table file>             the paper's tables (means, SEMs, per-run values)
    reference/<paper>/runs/<experiment>/…/seeds~a-b.parquet
                                                      a few run files, chosen reproducibly, for ``verify``;
                                                      of a job too long to recompute, the rows of its prefix

The manifest records the commit, the resolved config section, the scale label, the code digest of each
experiment, the provenance record of each data set its instances read (source, digests, record count; by data
set name), the date, the CPU model and the core-hours of the run jobs.  Written from a checkout with
uncommitted changes (``"dirty": true``), it also records their list and the sha256 of their diff
(:func:`privopt.pipeline.provenance.git_changes`).  ``figures`` says per figure whether it is at the settings,
points and runs of ``config/paper.yaml`` (:func:`figure_scales`).  :func:`check_manifest` refuses a folder
whose files differ from it (naming the file), and a dirty manifest that does not say what was uncommitted, so
a reference changed by hand is never read; :func:`verify_jobs` recomputes the sampled run jobs and compares
them value by value with the stored ones.  Where every job of an experiment is too long for verify's time budget
(a quarter of a core-hour at the paper's horizon), one is sampled on a prefix: the reference keeps its first seed's
rows at rounds ≤ P, and verify recomputes those P rounds alone (:class:`~privopt.pipeline.protocol.Prefix`,
:class:`VerifyJob`).

:func:`write_reference` never replaces a reference of a larger scale (another scale name, fewer runs at a
point, a point or experiment dropped, a shorter horizon: :func:`scale_losses`) unless told to, and it removes
the temporary folders an interrupted write left beside the reference.  A reference can grow in parts, one
experiment at a time (:func:`merge_part`; ``--config reference_part=[exp]``): the part's experiments are written
anew, the others kept as they are, and the manifest keeps each part's provenance (``parts``).  A part longer than
a session lands block by block beside the papers' folders, under ``reference/pending/`` (:mod:`privopt.pipeline.pending`),
until its last block is in.

Only aggregated tables and per-run summary rows go in (never pickups, instances or anything
record-level); :data:`MAX_BYTES` bounds all papers together.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import platform
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from privopt.pipeline.protocol import Paper, Prefix, RunJob, point_path
from privopt.pipeline.datasets import dataset_outputs
from privopt.pipeline.provenance import file_sha256, first_changed

__all__ = ["MAX_BYTES", "ReferenceError", "cpu_model", "check_listed_files", "check_manifest", "check_provenance",
           "read_manifest", "reference_tables", "choose_verify_jobs", "VerifyJob", "prefix_rows", "verify_samples",
           "write_reference", "thin_rows", "tree_bytes", "run_seconds", "compare_rows",
           "diff_rows", "RowDiff", "changed_modules", "describe_scale", "scale_losses", "figure_scales",
           "verify_jobs", "verify_summary", "RECOMPUTED", "merge_part", "kept_experiments", "kept_verify", "data_digests",
           "experiment_differences", "compact_reference", "swap_in", "leading_digit_floor", "store_file"]

#: the size budget of the reference folders of all papers together (bytes)
MAX_BYTES = 10_000_000
#: columns that record how long a run took, not what it computed (never compared)
TIMING = ("wall_s",)
_RUN_LOG = re.compile(r" rows in ([0-9.]+) s$", re.M)


def reference_folder(config: Mapping[str, Any], key: str) -> str:
    """The reference folder of paper ``key`` under the workflow's config (``reference.folder``/<key>): one
    definition for the rules and the scripts, which read it from ``snakemake.config`` rather than from a
    parameter (Snakemake's lint refuses a hard-coded path prefix of an input as a parameter)."""
    return f"{config['reference']['folder']}/{key}"


class ReferenceError(ValueError):
    """A reference folder that does not match its manifest, or that cannot be written."""


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``; the platform's processor string elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# ----------------------------------------------------------------------------- reading


#: the manifest field of a reference written from a dirty checkout before dirty writes recorded their diff:
#: its sampled run jobs recomputed later from a clean checkout at a named commit, and how each compared
RECOMPUTED = "sampled_jobs_recomputed_at_clean_commit"


def read_manifest(folder: str | os.PathLike) -> dict[str, Any]:
    path = Path(folder) / "manifest.json"
    if not path.is_file():
        raise ReferenceError(f"{path}: no reference manifest, though {Path(folder)} is a reference folder "
                             f"(restore it with `git checkout -- {path}`, or write the reference anew with "
                             f"`snakemake reference_{Path(folder).name} --configfile config/paper.yaml`)")
    try:
        manifest = json.loads(path.read_text())
    except ValueError as exc:
        raise ReferenceError(f"{path}: not a JSON manifest ({exc})") from None
    if not isinstance(manifest, dict):
        raise ReferenceError(f"{path}: not a JSON object")
    return manifest


def check_provenance(manifest: Mapping[str, Any], where: str = "the manifest") -> None:
    """Refuse a manifest written from a checkout with uncommitted changes (``"dirty": true``) that does not
    say what they were: the list of changed files and the sha256 of their diff (``changes``), or, for a
    reference written before those were recorded, the record of its sampled jobs recomputed from a clean
    checkout (:data:`RECOMPUTED`: commit, and per job whether its rows are bit-identical).  Written outside a
    git checkout (no commit, ``dirty`` None), the code digests it records (``modules``) must be there."""
    if not manifest.get("commit") and manifest.get("dirty") is None:
        # written outside a git checkout: the digests of the modules its runs import are then the record
        if manifest.get("modules") or manifest.get("code_digest"):
            return
        raise ReferenceError(f"{where}: names neither a commit nor the digests of the code that wrote it")
    if manifest.get("dirty") is False:
        return
    changes = manifest.get("changes") or {}
    if changes.get("diff_sha256") and changes.get("changed"):
        return
    redone = manifest.get(RECOMPUTED) or {}
    if redone.get("commit") and redone.get("jobs"):
        return
    raise ReferenceError(f"{where}: written from a checkout with uncommitted changes (dirty: "
                         f"{manifest.get('dirty')!r}) but records neither the changed files and the sha256 of their "
                         f"diff (changes.changed, changes.diff_sha256) nor a clean recomputation ({RECOMPUTED}): "
                         f"what code wrote it cannot be told; write it anew from a clean checkout")


def check_listed_files(folder: Path, listed: Mapping[str, str], manifest: str, restore: str) -> None:
    """Every file ``listed`` (path relative to ``folder`` → sha256) is there with its sha256, and ``folder`` holds no
    file it does not list but the manifest itself (named ``manifest``).  Raises :class:`ReferenceError` naming the
    first file that differs, with ``restore`` (what to do about it); shared by a reference folder and a pending
    part (:func:`privopt.pipeline.pending.read_pending`)."""
    changed = first_changed(dict(listed), folder)
    if changed:
        rel, got = changed
        what = "missing" if got is None else f"sha256 {got[:16]}… differs from the {listed[rel][:16]}… recorded"
        raise ReferenceError(f"{folder / rel}: listed in {folder / manifest} but {what} ({restore})")
    extra = sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                   if p.is_file() and p.name != manifest and str(p.relative_to(folder)) not in listed)
    if extra:
        raise ReferenceError(f"{folder}: files not in its {manifest}: {', '.join(extra)}")


def tree_bytes(root: Path, *besides: Path) -> int:
    """Bytes of the files under ``root``, but for those under any of the folders ``besides`` (what a reference
    folder or pending part about to be replaced leaves of the budget, :data:`MAX_BYTES`)."""
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not any(b in p.parents for b in besides))


def check_manifest(folder: str | os.PathLike) -> dict[str, Any]:
    """The manifest, after checking that every file it lists has its recorded sha256 and that the folder
    holds no file it does not list.  Raises :class:`ReferenceError` naming the first file that differs."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    check_provenance(manifest, str(folder / "manifest.json"))
    for part in manifest.get("parts") or []:  # a reference written in parts: each part's own record
        check_provenance(part, f"{folder / 'manifest.json'}, the part {part.get('experiments')}")
    check_listed_files(folder, manifest.get("files", {}), "manifest.json",
                       f"the reference was changed after it was written: restore it with `git checkout -- {folder}` "
                       f"or write a new reference")
    return manifest


def reference_tables(folder: str | os.PathLike, paper: Paper, stems: Sequence[str]) -> dict[str, pd.DataFrame]:
    """The reference's tables ``stems`` (checked against the manifest first); a stem the reference lacks
    is left out (its claims are then inconclusive: no data)."""
    from privopt.io import read_table

    folder = Path(folder)
    check_manifest(folder)
    out = {}
    for stem in stems:
        _, table = paper.table_owner(stem)
        path = folder / "tables" / table.file
        if path.is_file():
            out[stem] = read_table(path)
    return out


def changed_modules(manifest: Mapping[str, Any], current: Mapping[str, Mapping[str, str]]) -> dict[str, list[str]]:
    """Per experiment, the library modules whose code differs between the reference and now
    (``current``: experiment → {module: digest}, as :func:`privopt.codedigest.module_digests`)."""
    out = {}
    for exp, then in manifest.get("modules", {}).items():
        now = current.get(exp, {})
        changed = sorted(m for m in set(then) | set(now) if then.get(m) != now.get(m))
        if changed:
            out[exp] = changed
    return out


# ----------------------------------------------------------------------------- writing


@dataclass(frozen=True)
class VerifyJob:
    """A run job ``verify`` recomputes: whole (``rounds`` None), or, for an experiment whose jobs are all too long
    for the budget and that declares a :class:`~privopt.pipeline.protocol.Prefix`, the first ``rounds`` of the
    job's ``horizon`` rounds for its seeds ``seeds`` (the block's first)."""

    job: RunJob
    rounds: int | None = None
    horizon: int | None = None
    seeds: tuple[int, ...] = ()
    seconds: float = 0.0


def leading_digit_floor(x: float, step: int) -> int:
    """The largest multiple of ``step`` of the form m·10^k (m = 1…9) or, where none is, of ``step`` alone, ≤ ``x``.

    >>> leading_digit_floor(3.3e6, 5000), leading_digit_floor(7_654_321, 1), leading_digit_floor(12_000, 5000)
    (3000000, 7000000, 10000)
    >>> leading_digit_floor(4999, 5000)
    0
    """
    whole = int(x // step) * step
    if whole <= 0:
        return 0
    k = 10 ** (len(str(whole)) - 1)
    nice = (whole // k) * k
    return nice if nice % step == 0 else whole


def choose_verify_jobs(paper: Paper, section: Mapping[str, Any], seconds: Mapping[str, float],
                       budget_s: float = 120.0, per_experiment: int = 1,
                       kept: Sequence[Mapping[str, Any]] = ()) -> list[VerifyJob]:
    """The run jobs ``verify`` recomputes (:class:`VerifyJob`): per experiment, ``per_experiment`` jobs picked
    reproducibly (by the sha256 of the job's path, among the jobs whose measured time ``seconds[path]`` fits the
    budget left), cheapest experiments first, within ``budget_s`` seconds in all.  Then, for each experiment none of
    whose jobs fits and that declares a prefix, the first job of that ranking on a prefix: its first seed's first
    rounds (a leading-digit number, a multiple of the prefix's step), as many as its share of the budget left buys
    at the job's measured time per seed and round — an equal share among the paper's experiments that declare a
    prefix and have no sample yet, so a reference written in parts leaves room for the parts to come.

    ``kept``: the ``verify`` records a reference written in parts keeps (of the experiments this part does not
    write): their seconds come off the budget, and their experiments are sampled already."""
    chosen, left = [], budget_s - sum(float(k.get("seconds") or 0) for k in kept)
    sampled = {k["experiment"] for k in kept}
    by_exp: dict[str, list[tuple[str, RunJob]]] = {}
    for job in paper.run_jobs(section):
        key = f"{job.experiment}/{point_path(job.point)}/{job.block}"
        by_exp.setdefault(job.experiment, []).append((key, job))
    ranked = {exp: sorted(jobs, key=lambda kj: hashlib.sha256(f"{paper.key}/{kj[0]}".encode()).hexdigest())
              for exp, jobs in by_exp.items()}
    for exp in sorted(by_exp, key=lambda e: min(seconds.get(k, float("inf")) for k, _ in by_exp[e])):
        taken = 0
        for key, job in ranked[exp]:
            cost = seconds.get(key)
            if cost is None or cost > left or taken >= per_experiment:
                continue
            chosen.append(VerifyJob(job, seconds=cost))
            left -= cost
            taken += 1
    done = sampled | {c.job.experiment for c in chosen}
    sharing = [e.name for e in paper.experiments if e.prefix is not None and e.name not in done]
    long = [e for e in sharing if e in by_exp and any(seconds.get(k) for k, _ in ranked[e])]
    for exp in long:
        prefix = paper.experiment(exp).prefix
        key, job = next((k, j) for k, j in ranked[exp] if seconds.get(k))
        settings = paper.experiment(exp).settings(section, job.point)
        horizon, step = int(prefix.horizon(settings)), int(prefix.step(settings))
        per_round = seconds[key] / len(job.seeds) / horizon
        share = left / len(sharing)
        sharing.remove(exp)
        rounds = min(leading_digit_floor(share / per_round, step), horizon)
        if rounds <= 0:
            continue
        cost = per_round * rounds
        chosen.append(VerifyJob(job, rounds=rounds, horizon=horizon, seeds=(job.seeds[0],), seconds=round(cost, 3)))
        left -= cost
    return chosen


def prefix_rows(frame: pd.DataFrame, prefix: Prefix, seeds: Sequence[int], rounds: int) -> pd.DataFrame:
    """The rows of a run's ``frame`` that a prefix recomputes: seeds ``seeds``, rounds ≤ ``rounds``."""
    keep = frame[prefix.seed_column].isin(list(seeds)) & (frame[prefix.column] <= rounds)
    return frame[keep].reset_index(drop=True)


def verify_samples(paper: Paper, chosen: Sequence[VerifyJob], jobs: Sequence[Mapping[str, Any]],
                   scratch: str | os.PathLike) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The manifest's ``verify`` records of the ``chosen`` jobs and the run files the reference stores for them
    (relative path under ``runs/`` → source).  ``jobs``: the scale's run jobs as the workflow lists them
    (``experiment``, ``point``, ``block``, ``seeds``, ``files``: output → run file).  A job sampled whole is stored
    as it is; of a job sampled on a prefix, the rows verify recomputes (:func:`prefix_rows`), written under
    ``scratch``, and its record says which (``seeds``, ``rounds``, ``horizon``)."""
    from privopt.io import read_table, write_table

    by_key = {f"{j['experiment']}/{point_path(j['point'])}/{j['block']}": j for j in jobs}
    verify, runs = [], {}
    for pick in chosen:
        job = by_key[f"{pick.job.experiment}/{point_path(pick.job.point)}/{pick.job.block}"]
        rel = {o: "/".join(x for x in (job["experiment"], point_path(job["point"]), Path(f).name) if x)
               for o, f in job["files"].items()}
        entry = {"experiment": job["experiment"], "point": job["point"], "block": job["block"],
                 "seeds": list(job["seeds"]), "files": {o: f"runs/{r}" for o, r in rel.items()},
                 "seconds": pick.seconds}
        if pick.rounds is None:
            runs.update({rel[o]: str(f) for o, f in job["files"].items()})
        else:
            prefix = paper.experiment(pick.job.experiment).prefix
            for o, f in job["files"].items():
                dest = Path(scratch) / rel[o]
                dest.parent.mkdir(parents=True, exist_ok=True)
                write_table(prefix_rows(read_table(f), prefix, pick.seeds, pick.rounds), dest)
                runs[rel[o]] = str(dest)
            entry.update(seeds=list(pick.seeds), rounds=pick.rounds, horizon=pick.horizon)
        verify.append(entry)
    return verify, runs


def run_seconds(log_files: Sequence[str | os.PathLike]) -> float:
    """The seconds a run job took, from the line scripts/run.py logs ("… rows in 1.23 s"); 0 when absent."""
    total = 0.0
    for log in log_files:
        try:
            found = _RUN_LOG.findall(Path(log).read_text(errors="replace"))
        except OSError:
            continue
        total += sum(float(x) for x in found)
    return total


def describe_scale(paper: Paper, section: Mapping[str, Any]) -> str:
    """What ran, per experiment: its label, the number of parameter points and runs per point."""
    parts = []
    for exp in paper.experiments:
        points = exp.points(section)
        runs = sorted({exp.runs_at(section, p) for p in points})
        many = f"{runs[0]}–{runs[-1]}" if len(runs) > 1 else f"{runs[0]}" if runs else "0"
        parts.append(f"{exp.label}: {len(points)} point{'s' if len(points) != 1 else ''} × {many} runs")
    return "; ".join(parts)


def _point_name(exp: str, point: Mapping[str, Any]) -> str:
    return f"{exp} " + (", ".join(f"{k}={v}" for k, v in point.items()) if point else "(single point)")


def _runs_by_point(paper: Paper, manifest: Mapping[str, Any]) -> dict[str, dict[str, tuple[dict, int | None, dict]]]:
    """Per experiment of a manifest, per point (canonical JSON): ``(point, runs or None when its config no
    longer reads, settings its run jobs read)``, from the provenance records the manifest keeps (``runs``)."""
    out: dict[str, dict[str, tuple[dict, int | None, dict]]] = {}
    section = manifest.get("config", {})
    for exp_name, records in (manifest.get("runs") or {}).items():
        try:
            exp = paper.experiment(exp_name)
        except KeyError:
            exp = None
        points = out.setdefault(exp_name, {})
        for rec in records:
            point = dict(rec.get("point", {}))
            try:
                runs = exp.runs_at(section, point) if exp is not None else None
            except Exception:  # a config of older code: the runs cannot be told
                runs = None
            points[json.dumps(point, sort_keys=True, default=str)] = (point, runs, dict(rec.get("settings", {})))
    return out


def _smaller(old: Any, new: Any, key: str) -> str | None:
    """How the setting ``key`` at ``new`` covers less than at ``old`` (None when it covers as much): a
    number that shrank, a list that lost values; any other change (a name, None and a number) is a
    different computation, reported too."""
    if old == new:
        return None
    numbers = (int, float)
    if isinstance(old, numbers) and isinstance(new, numbers) and not isinstance(old, bool) \
            and not isinstance(new, bool):
        return f"{key} {old} → {new}" if new < old else None
    if isinstance(old, list) and isinstance(new, list):
        try:
            lost = [v for v in old if v not in new]
        except TypeError:
            lost = old
        return f"{key} loses {lost}" if lost else None
    if isinstance(old, dict) and isinstance(new, dict):
        found = [_smaller(old.get(k), new.get(k), f"{key}.{k}") for k in sorted(set(old) | set(new), key=str)]
        found = [f for f in found if f]
        return "; ".join(found) if found else None
    return f"{key} {old!r} → {new!r}"


def scale_losses(old: Mapping[str, Any], new: Mapping[str, Any], paper: Paper) -> list[str]:
    """What writing the reference ``new`` (a manifest) over ``old`` would lose, one sentence per loss; []
    when ``new`` holds everything ``old`` did.

    A loss: another scale name; an experiment or parameter point of ``old`` missing from ``new``; fewer
    runs at a point (seeds 0…n−1, so more runs include the old ones); a setting of a point's run jobs that
    covers less (a number that shrank: a shorter horizon; a list that lost values: a coarser grid) or that
    changed otherwise (another value, None against a number: a different computation).  A number that grew
    or a list that gained values is not a loss.
    """
    losses = []
    if old.get("scale") != new.get("scale"):
        losses.append(f"the scale {old.get('scale')!r} (label: {old.get('label', '')}) would become "
                      f"{new.get('scale')!r} (label: {new.get('label', '')})")
    was, now = _runs_by_point(paper, old), _runs_by_point(paper, new)
    for exp, points in was.items():
        if exp not in now:
            losses.append(f"experiment {exp} ({len(points)} point{'s' if len(points) != 1 else ''}) would be dropped")
            continue
        for key, (point, runs, settings) in points.items():
            name = _point_name(exp, point)
            if key not in now[exp]:
                losses.append(f"{name} ({runs if runs is not None else '?'} runs) would be dropped")
                continue
            _, runs_now, settings_now = now[exp][key]
            if runs is None or runs_now is None:
                losses.append(f"{name}: the runs of the {'old' if runs is None else 'new'} reference cannot be "
                              f"told from its config")
            elif runs_now < runs:
                losses.append(f"{name}: {runs} runs → {runs_now}")
            less = _smaller(settings, settings_now, "settings")
            if less:
                losses.append(f"{name}: {less.replace('settings.', '')}")
    return losses


def experiment_differences(exp: Any, section: Mapping[str, Any], other: Mapping[str, Any],
                           other_name: str) -> list[str]:
    """How experiment ``exp`` under ``section`` differs from it under ``other`` (named ``other_name``), one
    sentence per difference: points of ``other`` not run, points beyond it, runs and run settings per point;
    [] when both give the same points, runs and settings."""
    name, differs = exp.name, []
    here = {json.dumps(p, sort_keys=True, default=str): p for p in exp.points(section)}
    there = {json.dumps(p, sort_keys=True, default=str): p for p in exp.points(other)}
    missing = [there[k] for k in there if k not in here]
    if missing:
        differs.append(f"{name}: {len(missing)} of the {other_name}'s {len(there)} points not run "
                       f"({', '.join(_point_name(name, p).split(' ', 1)[1] for p in missing[:4])}"
                       f"{', …' if len(missing) > 4 else ''})")
    extra = [here[k] for k in here if k not in there]
    if extra:
        differs.append(f"{name}: {len(extra)} points beyond the {other_name}'s")
    for key in sorted(here.keys() & there.keys()):
        point = here[key]
        runs, runs_other = exp.runs_at(section, point), exp.runs_at(other, point)
        if runs != runs_other:
            differs.append(f"{_point_name(name, point)}: {runs} runs ({other_name}: {runs_other})")
        a, b = exp.settings(section, point), exp.settings(other, point)
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                differs.append(f"{_point_name(name, point)}: {k} = {a.get(k)!r} ({other_name}: {b.get(k)!r})")
    return differs


def figure_scales(paper: Paper, section: Mapping[str, Any], paper_section: Mapping[str, Any]) -> dict[str, dict]:
    """Per figure: ``{"paper_settings": bool, "differs": [sentences]}``: whether every experiment behind
    the figure's tables ran at the points, runs and run settings ``paper_section`` (the resolved section of
    ``config/paper.yaml``, the project's paper scale) gives, and where not, how it differs."""
    out = {}
    for fig in paper.figures:
        differs: list[str] = []
        exps = sorted({paper.table_owner(stem)[0].name for stem in fig.inputs.values()})
        for name in exps:
            try:
                differs += experiment_differences(paper.experiment(name), section, paper_section, "paper scale")
            except Exception as exc:  # a config the code no longer reads
                differs.append(f"{name}: cannot compare with the paper scale ({type(exc).__name__}: {exc})")
        out[fig.id] = {"paper_settings": not differs, "differs": _merge_points(differs)}
    return out


def _merge_points(differs: list[str], most: int = 12) -> list[str]:
    """The sentences, the same setting difference at many points said once with the count of points."""
    grouped: dict[str, list[str]] = {}
    for d in differs:
        head, _, tail = d.partition(": ")
        what = tail if tail else head
        grouped.setdefault(f"{head.split(' ', 1)[0]}|{what}", []).append(head)
    out = []
    for key, heads in grouped.items():
        exp, what = key.split("|", 1)
        out.append(f"{heads[0]}: {what}" if len(heads) == 1 else f"{exp} ({len(heads)} points): {what}")
    return out[:most] + ([f"… and {len(out) - most} more"] if len(out) > most else [])


def thin_rows(frame: pd.DataFrame, thin: int, along: str) -> pd.DataFrame:
    """The rows of ``frame`` at every ``thin``-th distinct value of ``along`` (ranks thin−1, 2·thin−1, …),
    and at its first and last value: a curve thinned to what a figure can show.

    >>> thin_rows(pd.DataFrame({"t": [1, 2, 3, 4, 5, 6, 7], "y": range(7)}), 3, "t")["t"].tolist()
    [1, 3, 6, 7]
    """
    if thin <= 1 or along not in frame:
        return frame
    values = sorted(frame[along].unique())
    keep = {values[0], values[-1], *(v for r, v in enumerate(values) if (r + 1) % thin == 0)}
    return frame[frame[along].isin(keep)].reset_index(drop=True)


def store_file(src: str | os.PathLike, dest: Path) -> None:
    """Copy a file into the reference: a parquet file re-encoded compactly (:func:`privopt.io.compact_parquet`,
    the same values in fewer bytes; an already compact file comes out byte for byte the same), others as
    they are."""
    from privopt.io import compact_parquet

    if str(dest).endswith(".parquet"):
        compact_parquet(src, dest)
    else:
        shutil.copyfile(src, dest)


def _copy_table(src: str | os.PathLike, dest: Path, table: Any | None) -> None:
    """Copy a table into the reference, thinned as its :class:`~privopt.pipeline.protocol.Table` says."""
    if table is None or (table.thin <= 1 and table.max_points is None):
        store_file(src, dest)
        return
    from privopt.io import read_table, write_table

    frame = read_table(src)
    thin = table.thin_for(frame[table.along].nunique()) if table.along in frame else 1
    if thin <= 1:
        store_file(src, dest)
        return
    write_table(thin_rows(frame, thin, table.along), dest, table.float_format, compact=True)


#: what a manifest says of the run that wrote it: each part of a reference written in parts keeps these
PART_FIELDS = ("scale", "commit", "dirty", "changes", RECOMPUTED, "written", "cpu", "core_hours", "run_jobs",
               "openblas_coretype", "openblas_corename", "packages", "python", "carried")


def _part_record(manifest: Mapping[str, Any], experiments: Sequence[str]) -> dict[str, Any]:
    return {"experiments": sorted(experiments), **{k: manifest[k] for k in PART_FIELDS if k in manifest}}


def data_digests(data: Any) -> set[str]:
    """The content digests in a manifest's ``data`` record (every ``*sha256`` and ``*git_blob_id`` value, at any
    depth): what identifies the data, whatever file it was read from and however the record is laid out (one
    record, or one per data set name).

    >>> sorted(data_digests({"uber": {"source": "a.csv", "csv_sha256": "c1", "records": 9}}))
    ['c1']
    >>> data_digests({"source": "b.csv", "csv_sha256": "c1"}) == data_digests({"uber": {"csv_sha256": "c1"}})
    True
    """
    if isinstance(data, Mapping):
        found = {str(v) for k, v in data.items() if isinstance(v, str) and str(k).endswith(("sha256", "git_blob_id"))}
        for v in data.values():
            found |= data_digests(v)
        return found
    return set()


def kept_experiments(paper: Paper, old: Mapping[str, Any], part: Sequence[str]) -> list:
    """The experiments a part of a reference keeps from the reference ``old`` (its manifest) it is merged into:
    those it holds runs of, but the part's own."""
    return [e for e in paper.experiments if e.name not in part and e.name in (old.get("runs") or {})]


def kept_verify(paper: Paper, old: Mapping[str, Any], part: Sequence[str]) -> list[dict[str, Any]]:
    """The samples of ``old``'s ``verify`` that a part keeps (those of :func:`kept_experiments`): the writer counts
    them against verify's budget (:func:`choose_verify_jobs`), the merge (:func:`merge_part`) copies them in."""
    keep = {e.name for e in kept_experiments(paper, old, part)}
    return [j for j in old.get("verify", []) if j["experiment"] in keep]


def merge_part(folder: Path, paper: Paper, part: Sequence[str], manifest: Mapping[str, Any],
               verify_runs: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, Path], dict[str, str]]:
    """A reference written in parts: ``manifest`` (of a run of the experiments ``part`` only) merged with the
    reference in ``folder``, whose other experiments it keeps as they are.

    Returns the merged manifest, the kept tables (file name → path in ``folder``, copied as they are) and the
    run files ``verify`` samples (relative path → source: the new part's, then the kept experiments' from
    ``folder``).  Refused (:class:`ReferenceError`) when ``folder`` holds no healthy reference, when ``part``
    names no experiment of the paper, when the part's config changes a kept experiment (its points, runs or run
    settings: the merged manifest has one config, which must describe every experiment it holds), or when the
    paper reads data sets and the part ran on other data than the reference.  The manifest keeps each part's
    provenance (``parts``: experiments, scale, commit, uncommitted changes, date, CPU, core-hours); its
    ``commit`` and ``dirty`` are the newest part's, its ``core_hours`` and ``run_jobs`` the sum over the parts (the
    time spent: an earlier part's count still includes an experiment a later part rewrote, which its record no
    longer lists).
    """
    names = {e.name for e in paper.experiments}
    unknown = sorted(set(part) - names)
    if unknown or not part:
        raise ReferenceError(f"reference_part = {list(part)}: names no experiment of {paper.key} "
                             f"({', '.join(unknown) or 'empty'}; its experiments: {', '.join(sorted(names))})")
    if not (folder / "manifest.json").is_file():
        raise ReferenceError(f"{folder}: no reference to add the part {list(part)} to; write the whole reference "
                             f"first (without reference_part)")
    old = check_manifest(folder)
    kept = kept_experiments(paper, old, part)
    for exp in kept:
        try:
            differs = experiment_differences(exp, manifest["config"], old["config"], "reference")
        except Exception as exc:  # the reference's config no longer reads: its experiments cannot be kept as such
            differs = [f"{exp.name}: the reference's config cannot be read ({type(exc).__name__}: {exc})"]
        if differs:
            raise ReferenceError(f"{folder}: the part {list(part)} runs with a config that changes {exp.name}, which "
                                 f"it does not write, so one manifest could not describe both: "
                                 + "; ".join(differs[:6]) + ". Run the part with the reference's config "
                                 f"(its manifest's `config`), or write the whole reference")
    if paper.datasets and data_digests(old.get("data")) != data_digests(manifest.get("data")):
        raise ReferenceError(f"{folder}: the part {list(part)} ran on other data than the reference's "
                             f"experiments {', '.join(e.name for e in kept)} (the content digests of the manifests' "
                             f"`data` differ: {sorted(data_digests(old.get('data')))} here, "
                             f"{sorted(data_digests(manifest.get('data')))} in the part)")
    keep = {e.name for e in kept}
    tables = {t.file: folder / "tables" / t.file for e in kept for t in e.table_files
              if (folder / "tables" / t.file).is_file()}
    old_verify = kept_verify(paper, old, part)
    runs = dict(verify_runs)
    runs.update({rel[len("runs/"):]: str(folder / rel) for j in old_verify for rel in j["files"].values()})

    def kept_of(key):
        return {k: v for k, v in (old.get(key) or {}).items() if k in keep}

    earlier = old.get("parts") or [_part_record(old, sorted((old.get("runs") or {}).keys()))]
    # an earlier part's experiments that this part rewrites are no longer what it holds
    earlier = [{**p, "experiments": [e for e in p["experiments"] if e in keep]} for p in earlier]
    parts = [p for p in earlier if p["experiments"]] + [_part_record(manifest, part)]
    merged = {**manifest,
              "code_digest": {**kept_of("code_digest"), **(manifest.get("code_digest") or {})},
              "modules": {**kept_of("modules"), **(manifest.get("modules") or {})},
              "runs": {**kept_of("runs"), **(manifest.get("runs") or {})},
              "verify": old_verify + list(manifest.get("verify", [])),
              "core_hours": round(sum(p.get("core_hours") or 0 for p in parts), 3),
              "run_jobs": sum(p.get("run_jobs") or 0 for p in parts),
              "parts": parts}
    for p in parts:
        check_provenance(p, f"the part {p['experiments']} of {folder}")
    return merged, tables, runs


def _clean_leftovers(folder: Path) -> list[str]:
    """Remove the folders an interrupted :func:`write_reference` of ``folder`` left beside it (its stage
    ``.<name>.<random>`` and the swapped-out ``.<name>.old``); their names."""
    removed = []
    for p in sorted(folder.parent.glob(f".{folder.name}.*")):
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
            removed.append(p.name)
    return removed


def write_reference(folder: str | os.PathLike, *, paper: Paper, tables: Mapping[str, str],
                    verify_runs: Mapping[str, str], manifest: Mapping[str, Any], replace: bool = False,
                    part: Sequence[str] = ()) -> dict[str, Any]:
    """Write ``folder`` anew: ``tables`` (file name → source path) under ``tables/`` (thinned where the
    paper's :class:`~privopt.pipeline.protocol.Table` says), ``verify_runs`` (relative path → source run
    file) under ``runs/``, then ``manifest.json`` with the sha256 of each.

    The new folder is built beside the old one and swapped in at the end, so a failure leaves the old
    reference whole; folders an earlier, interrupted write left beside it are removed first.  Raises
    :class:`ReferenceError` when the reference of all papers together would exceed :data:`MAX_BYTES`, and,
    unless ``replace``, when ``folder`` holds a reference that the new one does not cover (naming what would be
    lost: :func:`scale_losses`) or one whose manifest cannot be read.

    ``part``: the experiments this run wrote, to be merged into the reference in ``folder``, whose other
    experiments are kept as they are (:func:`merge_part`); () writes the whole reference.
    """
    folder = Path(folder)
    check_provenance(manifest, f"the manifest for {folder}")
    folder.parent.mkdir(parents=True, exist_ok=True)
    _clean_leftovers(folder)
    kept: dict[str, Path] = {}
    if part:
        manifest, kept, verify_runs = merge_part(folder, paper, part, manifest, verify_runs)
    if folder.exists() and not replace:
        how = (f"to replace it, rerun with `--config reference_replace=true` (the committed reference stays in "
               f"git: `git checkout -- {folder}` brings it back)")
        try:
            old = read_manifest(folder)
        except ReferenceError as exc:
            raise ReferenceError(f"{folder}: holds a reference whose manifest cannot be read ({exc}); {how}") from None
        losses = scale_losses(old, {**manifest, "paper": paper.key}, paper)
        if losses:
            raise ReferenceError(f"{folder}: the reference there ({old.get('scale')!r} scale, "
                                 f"{old.get('run_jobs', '?')} run jobs, {old.get('core_hours', '?')} core-hours) "
                                 f"is larger than this one in {len(losses)} way{'s' if len(losses) != 1 else ''}, "
                                 f"which would be lost: " + "; ".join(losses[:20])
                                 + (f"; … and {len(losses) - 20} more" if len(losses) > 20 else "") + f". {how}")
    stage = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        files = {}
        declared = {t.file: t for e in paper.experiments for t in e.table_files}
        for name, src in tables.items():
            dest = stage / "tables" / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            _copy_table(src, dest, declared.get(name))
            files[f"tables/{name}"] = file_sha256(dest)
        for name, src in kept.items():  # a kept experiment's tables, already thinned
            dest = stage / "tables" / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            store_file(src, dest)
            files[f"tables/{name}"] = file_sha256(dest)
        for rel, src in verify_runs.items():
            dest = stage / "runs" / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            store_file(src, dest)
            files[f"runs/{rel}"] = file_sha256(dest)
        size = tree_bytes(stage)
        others = tree_bytes(folder.parent, folder, stage)
        if size + others > MAX_BYTES:
            raise ReferenceError(f"{folder}: {size:,} bytes, with the other papers' {others:,}, exceed the "
                                 f"reference budget of {MAX_BYTES:,} bytes: thin the tables")
        full = {**manifest, "paper": paper.key, "bytes": size,
                "written": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), "files": files}
        if part:  # the new part's record was made before the date of this write
            full["parts"] = [*full["parts"][:-1], {**full["parts"][-1], "written": full["written"]}]
        _swap_in(stage, folder, full)
        return full
    finally:
        if stage.exists():
            shutil.rmtree(stage)


def _swap_in(stage: Path, folder: Path, manifest: Mapping[str, Any]) -> None:
    """Write ``manifest`` into the finished ``stage`` and put it in the place of ``folder``."""
    swap_in(stage, folder, "manifest.json", manifest)


def swap_in(stage: Path, folder: Path, name: str, manifest: Mapping[str, Any]) -> None:
    """Write ``manifest`` as ``name`` into the finished ``stage`` and put it in the place of ``folder`` (the old
    one removed only once the new one is there)."""
    (stage / name).write_text(json.dumps(manifest, indent=1, sort_keys=True, default=str) + "\n")
    os.chmod(stage, 0o755)
    old = folder.with_name(f".{folder.name}.old")
    if old.exists():
        shutil.rmtree(old)
    if folder.exists():
        folder.rename(old)
    stage.rename(folder)
    if old.exists():
        shutil.rmtree(old)


def compact_reference(folder: str | os.PathLike) -> tuple[int, int]:
    """Re-encode a written reference's parquet files compactly (:func:`store_file`; the values read back
    unchanged, checked file by file) and record their new sha256 and the folder's size in its manifest,
    which keeps everything else.  What a reference written before the compact encoding needs to give the
    budget its bytes back; nothing is recomputed.  Returns the folder's bytes before and after."""
    folder = Path(folder)
    manifest = check_manifest(folder)
    _clean_leftovers(folder)
    before = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and p.name != "manifest.json")
    stage = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        files = {}
        for rel in manifest["files"]:
            dest = stage / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            store_file(folder / rel, dest)
            files[rel] = file_sha256(dest)
        after = sum(p.stat().st_size for p in stage.rglob("*") if p.is_file())
        _swap_in(stage, folder, {**manifest, "files": files, "bytes": after})
    finally:
        if stage.exists():
            shutil.rmtree(stage)
    return before, after


# ----------------------------------------------------------------------------- verify


@dataclass(frozen=True)
class RowDiff:
    """How recomputed rows compare with the stored ones, value by value (timing columns aside).

    ``shape``: a sentence when the columns or the row count differ (then nothing else was compared);
    ``values``: how many values were compared; ``differing``: how many differ (NaN equals NaN), per column in
    ``columns``; ``max_ulps``: the largest difference of a float, in units of the last place of the largest
    magnitude in its column (a difference of two values, like a regret, carries the rounding of its terms, not
    of its own size), 0 when none; ``exact``: columns whose values differ but are not floats (never within a
    tolerance); ``first``: the first differing value, in words.
    """

    shape: str | None = None
    values: int = 0
    differing: int = 0
    columns: Mapping[str, int] = field(default_factory=dict)
    max_ulps: float = 0.0
    exact: tuple[str, ...] = ()
    first: str = ""

    @property
    def identical(self) -> bool:
        return self.shape is None and self.differing == 0

    def within(self, ulps: int) -> bool:
        """Whether the rows pass a tolerance of ``ulps`` (0: bit for bit)."""
        return self.shape is None and not self.exact and (self.differing == 0 or self.max_ulps <= ulps)

    def describe(self) -> str:
        if self.shape:
            return self.shape
        if self.identical:
            return f"bit-identical ({self.values:,} values)"
        cols = ", ".join(f"{c} {n}" for c, n in self.columns.items())
        return (f"{self.differing:,} of {self.values:,} values differ ({cols}); largest difference "
                f"{self.max_ulps:g} ulp{'' if self.max_ulps == 1 else 's'} of its column's largest value; first: "
                f"{self.first}")


def diff_rows(got: pd.DataFrame, expected: pd.DataFrame) -> RowDiff:
    """Compare recomputed rows ``got`` with the reference's ``expected``, every value (:class:`RowDiff`)."""
    import numpy as np

    a = got.drop(columns=[c for c in TIMING if c in got], errors="ignore").reset_index(drop=True)
    b = expected.drop(columns=[c for c in TIMING if c in expected], errors="ignore").reset_index(drop=True)
    if list(a.columns) != list(b.columns):
        return RowDiff(shape=f"columns {list(a.columns)} differ from the reference's {list(b.columns)}")
    if len(a) != len(b):
        return RowDiff(shape=f"{len(a)} rows, the reference has {len(b)}")
    columns: dict[str, int] = {}
    worst, exact, first = 0.0, [], ""
    for col in a.columns:
        x, y = a[col].to_numpy(), b[col].to_numpy()
        floats = x.dtype.kind == "f" and y.dtype.kind == "f"
        if floats:
            same = (x == y) | (np.isnan(x) & np.isnan(y))
        else:
            same = np.array([u == v or (u != u and v != v) for u, v in zip(x, y)], dtype=bool)
        if same.all():
            continue
        bad = np.flatnonzero(~same)
        columns[col] = len(bad)
        if floats:
            finite = np.abs(np.concatenate([x[np.isfinite(x)], y[np.isfinite(y)]]))
            unit = np.spacing(finite.max()) if finite.size else 0.0
            with np.errstate(invalid="ignore", over="ignore"):
                gaps = np.abs(x[bad] - y[bad])
            gaps = np.where(np.isfinite(gaps), gaps, np.inf)  # NaN or inf against a number: no tolerance
            worst = max(worst, float(gaps.max() / unit) if unit > 0 else float("inf"))
        else:
            exact.append(col)
        if not first:
            row = int(bad[0])
            here, there = (v.item() if hasattr(v, "item") else v for v in (x[row], y[row]))
            first = f"row {row}, column {col!r}: {here!r} here, {there!r} in the reference"
    return RowDiff(values=int(a.size), differing=sum(columns.values()), columns=columns, max_ulps=worst,
                   exact=tuple(exact), first=first)


def compare_rows(got: pd.DataFrame, expected: pd.DataFrame, what: str, ulps: int = 0) -> str | None:
    """None when the frames hold the same rows (timing columns aside; floats within ``ulps`` units in the
    last place of their column's largest value, 0: bit for bit), else a sentence naming ``what``, how many
    values differ, the largest difference and the first differing value (:func:`diff_rows`)."""
    diff = diff_rows(got, expected)
    return None if diff.within(ulps) else f"{what}: {diff.describe()}"


def verify_jobs(folder: str | os.PathLike, paper: Paper, inputs: Mapping[str, str], workdir: str | os.PathLike,
                ulps: int = 0) -> list[dict[str, Any]]:
    """Recompute the run jobs the reference sampled (``manifest["verify"]``) with the reference's own
    settings and compare their rows with the stored ones (of a job sampled on a prefix, its ``rounds`` first
    rounds for its ``seeds``: :class:`VerifyJob`).

    ``inputs``: the data sets' outputs instances read, by output name (``{"pickups": path}``), ``workdir``: where instances are
    built.  Returns one record per job: its path, the seconds it took, ``identical`` (every value bit for
    bit), ``values`` (compared), ``differing`` (how many differ), ``max_ulps`` (the largest difference, in units
    of the last place of its column's largest value), ``result`` (in words, per file) and ``mismatch`` (None
    when the rows pass the tolerance ``ulps``, else the sentence of the first file that does not).
    """
    import time

    from privopt.io import read_table, write_output, write_table

    folder, workdir = Path(folder), Path(workdir)
    manifest = check_manifest(folder)
    section = manifest["config"]
    built: dict[str, str] = {}
    out = []
    for job in manifest.get("verify", []):
        exp = paper.experiment(job["experiment"])
        for name in exp.instances:
            if name not in built:
                inst = paper.instance(name)
                where = workdir / name
                where.mkdir(parents=True, exist_ok=True)
                made = inst.make(inst.settings(section), {o: inputs[o] for o in dataset_outputs(inst.datasets)})
                for file in inst.outputs:
                    write_output(made[file], where / file)
                built[name] = str(where)
        start = time.perf_counter()
        inst = {name: built[name] for name in exp.instances}
        settings, rounds = exp.settings(section, job["point"]), job.get("rounds")
        if rounds is None:
            frames = exp.execute(job["point"], settings, job["seeds"], inst)
            drop, scope = (), f"seeds {job['block']}"
        else:  # a prefix: the job's first `rounds` rounds for `seeds`; end-of-run counts are not comparable
            frames = exp.execute_prefix(job["point"], settings, job["seeds"], inst, rounds)
            drop = exp.prefix.totals
            scope = (f"seed{'s' if len(job['seeds']) != 1 else ''} {', '.join(map(str, job['seeds']))} of "
                     f"{job['block']}, rounds ≤ {rounds:,} of {job['horizon']:,}"
                     + (f"; {', '.join(drop)} (end-of-run counts) not compared" if drop else ""))
        seconds = time.perf_counter() - start
        mismatch, differing, values, worst, notes = None, 0, 0, 0.0, []
        for output, rel in job["files"].items():
            # through the same parquet writer as a run file, so values compare as stored (a NaN in an
            # object column is stored as null)
            stored = workdir / "recomputed" / rel
            stored.parent.mkdir(parents=True, exist_ok=True)
            write_table(frames[output], stored)
            expected = read_table(folder / rel)
            if rounds is not None:
                expected = prefix_rows(expected, exp.prefix, job["seeds"], rounds)
            diff = diff_rows(read_table(stored).drop(columns=list(drop), errors="ignore"),
                             expected.drop(columns=list(drop), errors="ignore"))
            what = f"{rel} ({job['experiment']} {point_path(job['point']) or '(single point)'} {scope})"
            differing, values = differing + diff.differing, values + diff.values
            worst = max(worst, diff.max_ulps)
            notes.append(f"{what}: {diff.describe()}")
            if not diff.within(ulps) and mismatch is None:
                mismatch = f"{what}: {diff.describe()}"
        out.append({"job": job["files"]["runs"], "seconds": round(seconds, 3),
                    "identical": differing == 0 and all("bit-identical" in n for n in notes),
                    "values": values, "differing": differing, "max_ulps": worst, "result": "; ".join(notes),
                    "mismatch": mismatch})
    return out


def verify_summary(key: str, found: Sequence[Mapping[str, Any]], ulps: int = 0, *, kernels: str | None = None,
                   reference_kernels: str | None = None) -> str:
    """One line on the jobs :func:`verify_jobs` recomputed: how many are bit-identical, how many pass the tolerance
    ``ulps`` with how many values differing and the largest difference, how many fail; where any value differs, the
    OpenBLAS kernel family in use here (``kernels``) and the one the reference was written with
    (``reference_kernels``), the usual reason (values summed through BLAS or LAPACK)."""
    same = [f for f in found if f["identical"]]
    within = [f for f in found if not f["identical"] and not f["mismatch"]]
    beyond = [f for f in found if f["mismatch"]]
    parts = [f"verify_{key}: {len(same)} of {len(found)} recomputed run jobs bit-identical"]
    for jobs, what in ((within, f"within the tolerance of {ulps} ulps"), (beyond, "beyond the tolerance" if ulps else
                                                                           "differ")):
        if jobs:
            values = sum(int(f["differing"]) for f in jobs)
            worst = max(float(f["max_ulps"]) for f in jobs)
            total = sum(int(f["values"]) for f in jobs)
            shapes = sum(int(f["values"]) == 0 or "differ from the reference's" in f["result"]
                         or "rows, the reference has" in f["result"] for f in jobs)
            by = f"the largest by {worst:g} ulps" if worst else "none of them floats"
            counted = f"{values:,} of {total:,} values differ, {by}" if values else ""
            shaped = f"{shapes} with other columns or rows" if shapes else ""
            parts.append(f"{len(jobs)} {what} ({'; '.join(x for x in (counted, shaped) if x)})")
    if within or beyond:
        parts.append(f"OpenBLAS kernels here: {kernels or 'unknown'}, "
                     f"the reference's: {reference_kernels or 'not recorded'}")
    return "; ".join(parts)
