"""tests/conftest.py: the smoke run built once for all xdist workers, and the order the workers take the modules in.

Real processes contend for the lock (as xdist's workers do): the build runs once, a failed build is reported
to the others without a second attempt, and a worker killed in mid-build leaves nothing the next one trips on."""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from pathlib import Path

import pytest

from conftest import once_per_session, scheduling_order


class _Factory:
    """What once_per_session asks of pytest's tmp_path_factory: a worker's base temp under a shared folder."""

    def __init__(self, shared: Path, worker: str):
        self.base = shared / f"popen-{worker}"
        if os.environ.get("PLANTED_OWN_BASE"):  # the planted bug: a folder per worker, not the session's
            self.base = shared / worker / "popen"

    def getbasetemp(self) -> Path:
        self.base.mkdir(parents=True, exist_ok=True)
        return self.base

    def mktemp(self, name: str) -> Path:
        path = self.getbasetemp() / name
        path.mkdir()
        return path


def _build(folder: Path, shared: Path, workers: int, how: str) -> Path:
    folder.mkdir(parents=True)
    with open(shared / "builds.log", "a") as log:
        log.write(f"{os.getpid()}\n")
    (folder / "half").write_text("")
    deadline = time.monotonic() + 20
    while len(list(shared.glob("*.arrived"))) < workers and time.monotonic() < deadline:
        time.sleep(0.01)  # every worker has asked (and, but for a planted bug, waits on the lock) ...
    time.sleep(0.3)  # ... and (in the planted bugs) has looked for a finished build before this one ends
    if how == "die":
        os._exit(9)  # a worker killed mid-build: no exception, no cleanup
    if how == "fail":
        raise RuntimeError("planted build failure")
    (folder / "whole").write_text("")
    return folder


def _worker(shared: Path, worker: str, workers: int, how: str) -> None:
    os.environ["PYTEST_XDIST_WORKER"] = worker
    (shared / f"{worker}.arrived").write_text("")
    try:
        path = once_per_session(_Factory(shared, worker), "run", lambda folder: _build(folder, shared, workers, how))
        got = ["ok", str(path), sorted(p.name for p in path.iterdir())]
    except BaseException as exc:  # noqa: BLE001 (pytest.fail raises an OutcomeException)
        got = [type(exc).__name__, str(exc), []]
    (shared / f"{worker}.json").write_text(json.dumps(got))


def _run(shared: Path, hows: list[str]) -> dict:
    """One process per entry of ``hows`` (how its build ends: ok, fail, die), gw0 started first; what each got."""
    ctx = multiprocessing.get_context("fork")
    procs = []
    for i, how in enumerate(hows):
        procs.append(ctx.Process(target=_worker, args=(shared, f"gw{i}", len(hows), how)))
        procs[-1].start()
        if i == 0:
            while not (shared / "builds.log").exists():  # gw0 holds the lock and builds
                time.sleep(0.01)
    for p in procs:
        p.join(60)
    return {f"gw{i}": tuple(json.loads((shared / f"gw{i}.json").read_text()))
            for i in range(len(hows)) if (shared / f"gw{i}.json").exists()}


def _builds(shared: Path) -> int:
    log = shared / "builds.log"
    return len(log.read_text().split()) if log.exists() else 0


def test_three_workers_build_once_and_share_the_path(tmp_path):
    got = _run(tmp_path, ["ok", "ok", "ok"])
    assert _builds(tmp_path) == 1
    assert {w: g for w, g in got.items()} == {f"gw{i}": ("ok", str(tmp_path / "run"), ["half", "whole"]) for i in range(3)}


def test_a_failed_build_is_reported_to_the_others_without_building_again(tmp_path):
    got = _run(tmp_path, ["fail", "ok"])
    assert _builds(tmp_path) == 1
    assert got["gw0"][:2] == ("RuntimeError", "planted build failure")
    assert got["gw1"][0] == "Failed" and "failed on another worker" in got["gw1"][1] and "planted build failure" in got["gw1"][1]


def test_a_worker_killed_mid_build_leaves_the_next_one_a_clean_build(tmp_path):
    got = _run(tmp_path, ["die", "ok"])
    assert _builds(tmp_path) == 2 and "gw0" not in got
    assert got["gw1"] == ("ok", str(tmp_path / "run"), ["half", "whole"])


def test_without_xdist_the_build_is_the_fixtures_own(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    path = once_per_session(_Factory(tmp_path, "main"), "run", lambda folder: (folder / "x").write_text("") or folder)
    assert path == tmp_path / "popen-main" / "run" and (path / "x").is_file()


def test_the_smoke_runs_builder_starts_its_readers_and_the_parts_of_split_tests_end():
    groups = ["tests/test_a.py", "tests/test_browser.py", "tests/test_b.py", "tests/test_p.py::part::1",
              "tests/test_slurm.py", "tests/test_c.py", "tests/test_workflow.py", "tests/test_p.py::part::2"]
    order = scheduling_order(groups, slow={"tests/test_c.py", "tests/test_workflow.py", "tests/test_slurm.py"},
                             smoke={"tests/test_browser.py", "tests/test_slurm.py", "tests/test_workflow.py",
                                    "tests/test_p.py::part::1", "tests/test_p.py::part::2"},
                             split={"tests/test_p.py::part::1", "tests/test_p.py::part::2"}, first="tests/test_workflow.py")
    assert order == ["tests/test_workflow.py", "tests/test_c.py", "tests/test_a.py", "tests/test_b.py",
                     "tests/test_browser.py", "tests/test_slurm.py", "tests/test_p.py::part::1", "tests/test_p.py::part::2"]


@pytest.mark.parametrize("planted", ["no lock", "a folder per worker"])
def test_the_sharing_checks_have_power(tmp_path, monkeypatch, planted):
    """Without the lock, or with the lock and the build in each worker's own base temp (not the session's),
    the workers each build."""
    import conftest

    if planted == "no lock":
        monkeypatch.setattr(conftest.fcntl, "flock", lambda fd, op: None)
    else:
        monkeypatch.setenv("PLANTED_OWN_BASE", "1")
    _run(tmp_path, ["ok", "ok"])
    assert _builds(tmp_path) == 2
