"""A reference part in progress: the finished run jobs of an experiment, carried between sessions and machines.

A part at a paper's full settings can cost more core-hours than one working session has (Shariff & Sheffet's
Figure 5 at 5·10^7 rounds: 30 run jobs of about a quarter of a core-hour each).  Run jobs are deterministic,
so the finished ones can be kept and the others computed later, anywhere; this module keeps them::

    reference/pending/<paper>/<experiment>/pending.json       what is there (below), and the sha256 of every file
    reference/pending/<paper>/<experiment>/runs/<run file>    a finished run job's run files (parquet in the compact
    reference/pending/<paper>/<experiment>/logs/<run log>     encoding: the same values) and logs, under their paths
                                                              relative to the results (logs) namespace of their
                                                              scale: the settings key is in them

``snakemake reference_pending_<paper> --config "reference_part=[exp]" "reference_blocks=[0-9]"`` computes the
run jobs of those seed blocks (every block when the list is empty; ``reference_points`` narrows them to some
parameter points, so that a session's finished jobs land even where a block is not whole) and adds them
(:func:`add_jobs`);
``snakemake reference_resume_<paper>`` copies them back into the results of the configured scale
(:func:`restore`), where Snakemake takes them as finished (a file without a metadata record is not rerun), so
the next ``reference_pending_<paper>`` or the final ``reference_<paper> reference_part=[exp]`` computes only
the others.  Because Snakemake cannot then tell whether a restored file is current, :func:`restore` does: it
restores only files whose settings key is today's (it is in their path) and whose run code digest is today's,
and names the others.  A pending part whose code changed cannot be combined with new jobs (:func:`add_jobs`
refuses): recompute it, or go back to the commit that computed it.

The claims never read a pending part; the report shows how far it is (:func:`pending_status`).  When the
part lands whole in the reference (``reference_<paper>`` with the part's experiment), the writer removes its
pending folder (:func:`landing`, :func:`drop_landed`) and the part's record keeps the jobs' provenance
(``carried``: each job's commit, CPU, seconds).  Its files count against the reference budget (:data:`privopt.pipeline.reference_results.MAX_BYTES`).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from privopt.pipeline.provenance import file_sha256
from privopt.pipeline.reference_results import (MAX_BYTES, ReferenceError, check_listed_files, check_provenance, run_seconds,
                                        store_file, swap_in, tree_bytes)

__all__ = ["PENDING", "MANIFEST", "checkout_provenance", "pending_folder", "read_pending", "add_jobs", "restore", "attest", "pending_status",
           "landing", "drop_landed", "select_jobs"]

#: the folder of the pending parts, under the reference root (beside the papers' reference folders)
PENDING = "pending"
#: the manifest of one pending part
MANIFEST = "pending.json"


def checkout_provenance(what: str) -> dict[str, Any]:
    """What the jobs record of the checkout and machine adding or attesting them: commit, dirty and (when dirty)
    the changed files with the sha256 of their diff, CPU, OpenBLAS family.  Raises SystemExit when the checkout is
    dirty and git cannot list its changes (``what``: the rule, for the message)."""
    from privopt.pipeline.blas import openblas_corename
    from privopt.pipeline.provenance import git_changes, git_state
    from privopt.pipeline.reference_results import cpu_model

    state = git_state(exclude=("reference",))  # the folder being written is not a change of the code
    provenance = {**state, "cpu": cpu_model(), "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE"),
                  "openblas_corename": openblas_corename()}
    if state["dirty"]:
        changes = git_changes(exclude=("reference",))
        if not changes:
            raise SystemExit(f"{what}: the checkout has uncommitted changes that git cannot list; commit them or "
                             f"run it from a clean checkout")
        provenance["changes"] = changes
    return provenance


def pending_folder(reference_root: str | os.PathLike, paper: str, experiment: str) -> Path:
    return Path(reference_root) / PENDING / paper / experiment


def _files_of(manifest: Mapping[str, Any]) -> dict[str, str]:
    """Every file a pending manifest lists (relative path in the folder → sha256)."""
    return {rel: sha for job in manifest.get("jobs", {}).values() for rel, sha in job["files"].items()}


def read_pending(folder: str | os.PathLike) -> dict[str, Any] | None:
    """The manifest of the pending part in ``folder`` after checking it (every listed file there with its
    sha256, no file it does not list, each job's provenance recorded), or None when there is none.  Raises
    :class:`~privopt.pipeline.reference_results.ReferenceError` naming the first file that differs."""
    folder = Path(folder)
    path = folder / MANIFEST
    if not path.is_file():
        if folder.is_dir() and any(p.is_file() for p in folder.rglob("*")):
            raise ReferenceError(f"{folder}: holds files but no {MANIFEST} (restore it with `git checkout -- "
                                 f"{folder}`, or remove the folder)")
        return None
    try:
        manifest = json.loads(path.read_text())
    except ValueError as exc:
        raise ReferenceError(f"{path}: not a JSON manifest ({exc})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("jobs"), dict):
        raise ReferenceError(f"{path}: not a pending part's manifest (no `jobs` object)")
    for name, job in manifest["jobs"].items():
        check_provenance({"modules": manifest.get("modules"), **job}, f"{path}, the job {name}")
    check_listed_files(folder, _files_of(manifest), MANIFEST, f"restore it with `git checkout -- {folder}`")
    return manifest


def select_jobs(jobs: Sequence[Mapping[str, Any]], blocks: Sequence[str] = (),
                points: Sequence[str] = ()) -> list[Mapping[str, Any]]:
    """The jobs of the seed blocks ``blocks`` ("a-b", as in the run files' ``seeds~a-b``) at the parameter points
    ``points`` (as in the run files' paths: ``mechanism~gaussian/gap~0.1``); all blocks, or all points, when
    empty.  Raises ValueError naming a block or point no job has."""
    from privopt.pipeline.protocol import point_path

    for wanted, key, what in ((blocks, lambda j: j["block"], "seed block"), (points, lambda j: point_path(j["point"]),
                                                                             "point")):
        known = {key(j) for j in jobs}
        unknown = [b for b in wanted if b not in known]
        if unknown:
            raise ValueError(f"no run job has the {what}(s) {', '.join(map(str, unknown))} (the {what}s of this "
                             f"config: {', '.join(sorted(known))})")
    return [j for j in jobs if (not blocks or j["block"] in blocks) and (not points or point_path(j["point"]) in points)]


def _job_name(job: Mapping[str, Any], results_root: str) -> str:
    """A job's name in the manifest: the path of its first run file relative to the results root."""
    return os.path.relpath(sorted(job["files"].values())[0], results_root)


def add_jobs(folder: str | os.PathLike, *, paper: str, experiment: str, jobs: Sequence[Mapping[str, Any]],
             results_root: str, logs_root: str, code: str, modules: Mapping[str, str], scale: str,
             total_jobs: int, provenance: Mapping[str, Any]) -> dict[str, Any]:
    """Add the finished run ``jobs`` of ``experiment`` (each ``{"point", "block", "files": {output: path},
    "log": path}``; the files under ``results_root``, the log under ``logs_root``) to the pending part in
    ``folder``, with ``provenance`` (the commit of the checkout adding it, or its uncommitted changes, CPU, …) and
    the seconds its log records.  A job the part holds already keeps its record (its run files must be the same).

    Refused when the part there was computed with other run code (``code``, the digest of the modules the
    runs import) or holds a job of the same name with other files; the folder is rebuilt beside the old one and
    swapped in, so a failure leaves it whole.  Returns the new manifest."""
    folder = Path(folder)
    # outside a git checkout, the digests of the modules the runs import are the record
    check_provenance({"modules": modules, **provenance}, f"the run jobs of {paper} {experiment}")
    old = read_pending(folder) or {}
    if old and old.get("code") != code:
        raise ReferenceError(
            f"{folder}: its {len(old['jobs'])} job(s) were computed with run code {old.get('code')} (modules "
            f"{_changed(old.get('modules') or {}, modules)} differ), today's is {code}: the two cannot make one "
            f"part. Go back to the commit that computed them (their `commit` in {folder / MANIFEST}), or remove "
            f"the folder and compute every job with today's code")
    if old and old.get("experiment") != experiment:
        raise ReferenceError(f"{folder}: holds the experiment {old.get('experiment')!r}, not {experiment!r}")
    written = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    stage = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=_ensure(folder.parent)))
    try:
        if folder.is_dir():
            shutil.copytree(folder, stage, dirs_exist_ok=True)
            (stage / MANIFEST).unlink(missing_ok=True)
        entries = dict(old.get("jobs", {}))
        for job in jobs:
            name = _job_name(job, results_root)
            files, outputs = {}, {}
            for output, path in sorted(job["files"].items()):
                rel = f"runs/{os.path.relpath(path, results_root)}"
                files[rel], outputs[output] = _copy(path, stage / rel), rel
            log_rel = f"logs/{os.path.relpath(job['log'], logs_root)}"
            files[log_rel] = _copy(job["log"], stage / log_rel)
            if name in entries:  # added before (then restored): its own record and log stay
                if {k: v for k, v in entries[name]["files"].items() if k.startswith("runs/")} != \
                        {k: v for k, v in files.items() if k.startswith("runs/")}:
                    raise ReferenceError(f"{folder}: holds the job {name} with other run files than this one's "
                                         f"(same settings key and code, different rows: not deterministic?)")
                shutil.copyfile(folder / log_rel, stage / log_rel)
                continue
            entries[name] = {"point": job["point"], "block": job["block"], "seeds": list(job.get("seeds", [])),
                             # what the run read (for :func:`attest`, which recomputes a prefix of it)
                             "settings": job.get("settings"), "files": files, "outputs": outputs,
                             "seconds": round(run_seconds([job["log"]]), 2), "scale": scale, "written": written,
                             **provenance}
        manifest = {"paper": paper, "experiment": experiment, "code": code, "modules": dict(modules),
                    "total_jobs": total_jobs, "jobs": dict(sorted(entries.items())),
                    "core_hours": round(sum(e.get("seconds") or 0 for e in entries.values()) / 3600, 3)}
        _check_budget(folder, stage)
        swap_in(stage, folder, MANIFEST, manifest)
        return manifest
    finally:
        if stage.exists():
            shutil.rmtree(stage)


def restore(folder: str | os.PathLike, *, jobs: Sequence[Mapping[str, Any]], results_root: str, logs_root: str,
            code: str) -> dict[str, list[str]]:
    """Copy the pending part's run files and logs of the current ``jobs`` (as for :func:`add_jobs`; their paths
    carry today's settings keys) to where the pipeline writes them, so that Snakemake takes them as finished.

    Returns ``{"restored": [...], "present": [...], "other_settings": [...], "stale": [...]}`` (job names):
    a job whose run files are already there is left alone; a pending job that is none of ``jobs`` (another
    config) is not restored; with another run code digest than ``code`` nothing is (stale).  Files are checked
    against their sha256 first (:func:`read_pending`)."""
    folder = Path(folder)
    out: dict[str, list[str]] = {"restored": [], "present": [], "other_settings": [], "stale": []}
    manifest = read_pending(folder)
    if manifest is None:
        return out
    if manifest.get("code") != code:
        out["stale"] = sorted(manifest["jobs"])
        return out
    current = {_job_name(j, results_root): j for j in jobs}
    for name, entry in sorted(manifest["jobs"].items()):
        job = current.get(name)
        if job is None:
            out["other_settings"].append(name)
            continue
        targets = {f"runs/{os.path.relpath(p, results_root)}": Path(p) for p in job["files"].values()}
        targets[f"logs/{os.path.relpath(job['log'], logs_root)}"] = Path(job["log"])
        if set(targets) != set(entry["files"]):
            out["other_settings"].append(name)
            continue
        if all(Path(p).is_file() for p in job["files"].values()):
            out["present"].append(name)
            continue
        for rel, dest in sorted(targets.items(), key=lambda kv: kv[0].startswith("runs/")):  # logs first
            dest.parent.mkdir(parents=True, exist_ok=True)
            tmp = dest.with_name(f".{dest.name}.restoring")
            shutil.copyfile(folder / rel, tmp)  # a fresh mtime: newer than the job's inputs
            os.replace(tmp, dest)
        out["restored"].append(name)
    return out


def attest(folder: str | os.PathLike, *, paper: Any, code: str, modules: Mapping[str, str], budget_s: float,
           provenance: Mapping[str, Any], scratch: str | os.PathLike) -> dict[str, Any]:
    """Carry the pending part in ``folder`` over to today's run code ``code`` after a change of the library that
    should leave its rows as they are (a refactoring, a faster kernel): each pending job's first seed is recomputed
    with today's code on a prefix of its horizon (the experiment's :class:`~privopt.pipeline.protocol.Prefix`,
    as ``verify`` does: the rounds an equal share of ``budget_s`` buys at the job's measured time per seed and
    round, a leading-digit multiple of the prefix's step), and compared value by value with the stored rows.

    Only if every job is bit-identical is the part's ``code`` (and ``modules``) set to today's, with the record in
    ``attested`` (the two digests, the modules that changed, per job the seed and rounds compared, the checkout's
    ``provenance``); otherwise :class:`~privopt.pipeline.reference_results.ReferenceError` names the first job that differs
    and the part is left as it was.  ``paper``: the :class:`~privopt.pipeline.protocol.Paper`.  Returns the
    manifest (as it was when its code is today's already)."""
    from privopt.io import read_table, write_table
    from privopt.pipeline.reference_results import diff_rows, leading_digit_floor, prefix_rows

    folder = Path(folder)
    manifest = read_pending(folder)
    if manifest is None:
        raise ReferenceError(f"{folder}: no pending part to attest")
    if manifest.get("code") == code:
        return manifest
    check_provenance({"modules": modules, **provenance}, f"the attestation of {folder}")
    exp = paper.experiment(manifest["experiment"])
    if exp.prefix is None or exp.instances:
        raise ReferenceError(f"{folder}: {paper.key} {exp.name} "
                             + ("declares no prefix" if exp.prefix is None else "reads instances")
                             + ": its pending jobs cannot be attested on a prefix; recompute them with today's code")
    share = budget_s / max(len(manifest["jobs"]), 1)
    checked = {}
    for name, entry in sorted(manifest["jobs"].items()):
        settings, seeds = entry.get("settings"), entry.get("seeds") or []
        if settings is None or not seeds:
            raise ReferenceError(f"{folder}: the job {name} does not record its settings and seeds; recompute it")
        horizon, step = int(exp.prefix.horizon(settings)), int(exp.prefix.step(settings))
        per_round = max(float(entry.get("seconds") or 0), 1e-9) / len(seeds) / horizon
        rounds = max(min(leading_digit_floor(share / per_round, step), horizon), step)
        frames = exp.execute_prefix(entry["point"], settings, seeds[:1], {}, rounds)
        values = 0
        for output, rel in sorted(entry["outputs"].items()):
            stored = Path(scratch) / rel
            stored.parent.mkdir(parents=True, exist_ok=True)
            write_table(frames[output], stored)  # through the run files' writer: values compare as stored
            expected = prefix_rows(read_table(folder / rel), exp.prefix, seeds[:1], rounds)
            drop = list(exp.prefix.totals)
            diff = diff_rows(read_table(stored).drop(columns=drop, errors="ignore"),
                             expected.drop(columns=drop, errors="ignore"))
            if diff.differing or not len(expected):
                raise ReferenceError(
                    f"{folder}: the job {name}, seed {seeds[0]}, rounds ≤ {rounds:,} of {horizon:,}, recomputed with "
                    f"today's run code {code}: {diff.describe() if len(expected) else 'no stored rows'}; the part "
                    f"stays with its code {manifest.get('code')} (go back to its commit, or recompute it)")
            values += diff.values
        checked[name] = {"seed": seeds[0], "rounds": rounds, "horizon": horizon, "values": values}
    record = {"from": manifest.get("code"), "to": code,
              "modules_changed": sorted(m for m in set(manifest.get("modules") or {}) | set(modules)
                                        if (manifest.get("modules") or {}).get(m) != modules.get(m)),
              "jobs": checked, "written": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
              **provenance}
    new = {**manifest, "code": code, "modules": dict(modules),
           "attested": [*(manifest.get("attested") or []), record]}
    tmp = folder / f".{MANIFEST}.new"
    tmp.write_text(json.dumps(new, indent=1, sort_keys=True, default=str) + "\n")
    os.replace(tmp, folder / MANIFEST)
    return new


def pending_status(reference_root: str | os.PathLike, paper: str) -> list[dict[str, Any]]:
    """Per pending part of ``paper``: experiment, jobs done, jobs in all, core-hours spent, run code digest."""
    base = Path(reference_root) / PENDING / paper
    status = []
    for folder in sorted(p for p in base.glob("*") if p.is_dir() and not p.name.startswith(".")):
        manifest = read_pending(folder)
        if manifest:
            status.append({"experiment": manifest["experiment"], "done": len(manifest["jobs"]),
                           "total": manifest.get("total_jobs"), "core_hours": manifest.get("core_hours"),
                           "code": manifest.get("code"), "folder": str(folder)})
    return status


def landing(reference_root: str | os.PathLike, paper: str, landed: Mapping[str, str],
            jobs: Sequence[Mapping[str, Any]], results_root: str) -> dict[str, dict[str, Any]]:
    """The pending parts of ``paper`` that a reference write of the experiments ``landed`` (experiment → run code
    digest) with the run ``jobs`` completes: same run code, and every pending job among ``jobs`` (a pending part
    of other code or other settings is not landing, and stays).  Per experiment, its jobs' records without the
    files (the landed part's provenance: each job's commit, CPU, seconds)."""
    names = {_job_name(j, results_root) for j in jobs}
    out = {}
    for exp, code in landed.items():
        manifest = read_pending(pending_folder(reference_root, paper, exp))
        if manifest and manifest.get("code") == code and set(manifest["jobs"]) <= names:
            out[exp] = {n: {k: v for k, v in j.items() if k != "files"} for n, j in manifest["jobs"].items()}
    return out


def drop_landed(reference_root: str | os.PathLike, paper: str, experiments: Sequence[str]) -> list[str]:
    """Remove the pending parts of ``paper``'s ``experiments`` (those :func:`landing` found, once the reference
    holding them is written) and the folders left empty; the folders removed."""
    removed = []
    for exp in experiments:
        folder = pending_folder(reference_root, paper, exp)
        if folder.is_dir():
            shutil.rmtree(folder)
            removed.append(str(folder))
        for empty in (folder.parent, folder.parent.parent):
            if empty.is_dir() and not any(empty.iterdir()):
                empty.rmdir()
    return removed


def _ensure(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def _copy(src: str | os.PathLike, dest: Path) -> str:
    """Store ``src`` as ``dest`` (a parquet file in the reference's compact encoding: the same schema and values in
    fewer bytes, checked by reading it back); its sha256."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    store_file(src, dest)
    return file_sha256(dest)


def _changed(old: Mapping[str, str], new: Mapping[str, str]) -> str:
    names = sorted(m for m in set(old) | set(new) if old.get(m) != new.get(m))
    return ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "") if names else "(none listed)"


def _check_budget(folder: Path, stage: Path) -> None:
    """The reference root (two levels above a pending part) within :data:`MAX_BYTES`, the old folder replaced
    by the stage."""
    root = folder.parent.parent.parent
    total = tree_bytes(root, folder)
    if total > MAX_BYTES:
        raise ReferenceError(f"{folder}: with it the reference folders hold {total:,} bytes, over the budget of "
                             f"{MAX_BYTES:,} bytes")
