"""Reference results: a paper's tables at the largest scale that has run, committed under ``reference/<paper>/``.

A paper-scale run costs tens of core-hours; its aggregated tables cost kilobytes.  The reference folder
holds them, so that every user gets the paper-scale verdicts without recomputing them::

    reference/<paper>/manifest.json                   what ran, and the sha256 of every file below
    reference/<paper>/tables/<table file>             the paper's tables (means, SEMs, per-run values)
    reference/<paper>/runs/<experiment>/…/seeds~a-b.parquet
                                                      a few run files, chosen reproducibly, for ``verify``

The manifest records the commit, the resolved config section, the scale label, the code digest of each
experiment, the provenance record of each data set its instances read (source, digests, record count; by data set name), the date, the CPU model and the core-hours of the
run jobs.  :func:`check_manifest` refuses a folder whose files differ from it (naming the file), so a
reference changed by hand is never read; :func:`verify_jobs` recomputes the sampled run jobs and
compares them row by row with the stored ones.

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
from typing import Any

import pandas as pd

from privopt.pipeline.protocol import Paper, RunJob, point_path
from privopt.pipeline.datasets import dataset_outputs
from privopt.pipeline.provenance import file_sha256, first_changed

__all__ = ["MAX_BYTES", "ReferenceError", "cpu_model", "check_manifest", "read_manifest", "reference_tables",
           "choose_verify_jobs", "write_reference", "thin_rows", "run_seconds", "compare_rows", "changed_modules",
           "describe_scale", "verify_jobs"]

#: the size budget of the reference folders of all papers together (bytes)
MAX_BYTES = 10_000_000
#: columns that record how long a run took, not what it computed (never compared)
TIMING = ("wall_s",)
_RUN_LOG = re.compile(r" rows in ([0-9.]+) s$", re.M)


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


def read_manifest(folder: str | os.PathLike) -> dict[str, Any]:
    path = Path(folder) / "manifest.json"
    if not path.is_file():
        raise ReferenceError(f"{path}: no reference manifest (write one with `snakemake reference_<paper> "
                             f"--configfile config/paper.yaml`)")
    return json.loads(path.read_text())


def check_manifest(folder: str | os.PathLike) -> dict[str, Any]:
    """The manifest, after checking that every file it lists has its recorded sha256 and that the folder
    holds no file it does not list.  Raises :class:`ReferenceError` naming the first file that differs."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    listed = manifest.get("files", {})
    changed = first_changed(listed, folder)
    if changed:
        rel, got = changed
        path = folder / rel
        if got is None:
            raise ReferenceError(f"{path}: listed in {folder / 'manifest.json'} but missing")
        raise ReferenceError(f"{path}: sha256 {got[:16]}… differs from the {listed[rel][:16]}… in "
                             f"{folder / 'manifest.json'}: the reference was changed after it was written "
                             f"(restore it with `git checkout -- {path}` or write a new reference)")
    extra = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()
                   and p.name != "manifest.json" and str(p.relative_to(folder)) not in listed)
    if extra:
        raise ReferenceError(f"{folder}: files not in its manifest: {', '.join(extra)}")
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


def choose_verify_jobs(paper: Paper, section: Mapping[str, Any], seconds: Mapping[str, float],
                       budget_s: float = 120.0, per_experiment: int = 1) -> list[RunJob]:
    """The run jobs ``verify`` recomputes: per experiment, ``per_experiment`` jobs picked reproducibly
    (by the sha256 of the job's path, among the jobs whose measured time ``seconds[path]`` fits the budget
    left), cheapest experiments first, within ``budget_s`` seconds in all."""
    chosen, left = [], budget_s
    by_exp: dict[str, list[tuple[str, RunJob]]] = {}
    for job in paper.run_jobs(section):
        key = f"{job.experiment}/{point_path(job.point)}/{job.block}"
        by_exp.setdefault(job.experiment, []).append((key, job))
    for exp in sorted(by_exp, key=lambda e: min(seconds.get(k, float("inf")) for k, _ in by_exp[e])):
        ranked = sorted(by_exp[exp], key=lambda kj: hashlib.sha256(f"{paper.key}/{kj[0]}".encode()).hexdigest())
        taken = 0
        for key, job in ranked:
            cost = seconds.get(key)
            if cost is None or cost > left or taken >= per_experiment:
                continue
            chosen.append(job)
            left -= cost
            taken += 1
    return chosen


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


def _copy_table(src: str | os.PathLike, dest: Path, table: Any | None) -> None:
    """Copy a table into the reference, thinned as its :class:`~privopt.pipeline.protocol.Table` says."""
    if table is None or table.thin <= 1:
        shutil.copyfile(src, dest)
        return
    from privopt.io import read_table, write_table

    write_table(thin_rows(read_table(src), table.thin, table.along), dest, table.float_format)


def write_reference(folder: str | os.PathLike, *, paper: Paper, tables: Mapping[str, str],
                    verify_runs: Mapping[str, str], manifest: Mapping[str, Any]) -> dict[str, Any]:
    """Write ``folder`` anew: ``tables`` (file name → source path) under ``tables/`` (thinned where the
    paper's :class:`~privopt.pipeline.protocol.Table` says), ``verify_runs`` (relative path → source run
    file) under ``runs/``, then ``manifest.json`` with the sha256 of each.

    The new folder is built beside the old one and swapped in at the end, so a failure leaves the old
    reference whole.  Raises :class:`ReferenceError` when the reference of all papers together would
    exceed :data:`MAX_BYTES`.
    """
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        files = {}
        declared = {t.file: t for e in paper.experiments for t in e.table_files}
        for name, src in tables.items():
            dest = stage / "tables" / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            _copy_table(src, dest, declared.get(name))
            files[f"tables/{name}"] = file_sha256(dest)
        for rel, src in verify_runs.items():
            dest = stage / "runs" / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)
            files[f"runs/{rel}"] = file_sha256(dest)
        size = sum(p.stat().st_size for p in stage.rglob("*") if p.is_file())
        others = sum(p.stat().st_size for p in folder.parent.rglob("*") if p.is_file()
                     and folder not in p.parents and stage not in p.parents)
        if size + others > MAX_BYTES:
            raise ReferenceError(f"{folder}: {size:,} bytes, with the other papers' {others:,}, exceed the "
                                 f"reference budget of {MAX_BYTES:,} bytes: thin the tables")
        full = {**manifest, "paper": paper.key, "bytes": size,
                "written": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), "files": files}
        (stage / "manifest.json").write_text(json.dumps(full, indent=1, sort_keys=True, default=str) + "\n")
        os.chmod(stage, 0o755)
        old = folder.with_name(f".{folder.name}.old")
        if old.exists():
            shutil.rmtree(old)
        if folder.exists():
            folder.rename(old)
        stage.rename(folder)
        if old.exists():
            shutil.rmtree(old)
        return full
    finally:
        if stage.exists():
            shutil.rmtree(stage)


# ----------------------------------------------------------------------------- verify


def compare_rows(got: pd.DataFrame, expected: pd.DataFrame, what: str, ulps: int = 0) -> str | None:
    """None when the frames hold the same rows (timing columns aside), else a sentence naming ``what`` and
    the first differing row and column.  ``ulps``: the tolerance for floats, in units of the last place of
    the column's largest value (0: bit for bit)."""
    import numpy as np

    a = got.drop(columns=[c for c in TIMING if c in got], errors="ignore").reset_index(drop=True)
    b = expected.drop(columns=[c for c in TIMING if c in expected], errors="ignore").reset_index(drop=True)
    if list(a.columns) != list(b.columns):
        return f"{what}: columns {list(a.columns)} differ from the reference's {list(b.columns)}"
    if len(a) != len(b):
        return f"{what}: {len(a)} rows, the reference has {len(b)}"
    for col in a.columns:
        x, y = a[col].to_numpy(), b[col].to_numpy()
        if x.dtype.kind == "f" and y.dtype.kind == "f":
            same = (x == y) | (np.isnan(x) & np.isnan(y))
            if ulps:  # in units of the last place of the column's largest value (a difference of two
                # values, like a regret, carries the rounding of its terms, not of its own size)
                finite_values = np.abs(np.concatenate([x[np.isfinite(x)], y[np.isfinite(y)]]))
                scale = np.spacing(finite_values.max()) if finite_values.size else 0.0
                same |= np.abs(x - y) <= ulps * scale
        else:
            same = np.array([u == v or (u != u and v != v) for u, v in zip(x, y)], dtype=bool)
        if not same.all():
            row = int(np.flatnonzero(~same)[0])
            here, there = (v.item() if hasattr(v, "item") else v for v in (x[row], y[row]))
            return (f"{what}: row {row}, column {col!r}: {here!r} here, {there!r} in the reference "
                    f"(first of {int((~same).sum())} differing values in that column)")
    return None


def verify_jobs(folder: str | os.PathLike, paper: Paper, inputs: Mapping[str, str], workdir: str | os.PathLike,
                ulps: int = 0) -> list[dict[str, Any]]:
    """Recompute the run jobs the reference sampled (``manifest["verify"]``) with the reference's own
    settings and compare their rows with the stored ones.

    ``inputs``: the data sets' outputs instances read, by output name (``{"pickups": path}``), ``workdir``: where instances are
    built.  Returns one record per job: its path, the seconds it took, and ``mismatch`` (None when every
    row is the same, else the sentence of :func:`compare_rows`).
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
        frames = exp.execute(job["point"], exp.settings(section, job["point"]), job["seeds"],
                             {name: built[name] for name in exp.instances})
        seconds = time.perf_counter() - start
        mismatch = None
        for output, rel in job["files"].items():
            # through the same parquet writer as a run file, so values compare as stored (a NaN in an
            # object column is stored as null)
            stored = workdir / "recomputed" / rel
            stored.parent.mkdir(parents=True, exist_ok=True)
            write_table(frames[output], stored)
            mismatch = compare_rows(read_table(stored), read_table(folder / rel), f"{rel} ({job['experiment']} "
                                    f"{point_path(job['point']) or '(single point)'} seeds {job['block']})", ulps)
            if mismatch:
                break
        out.append({"job": job["files"]["runs"], "seconds": round(seconds, 3), "mismatch": mismatch})
    return out
