"""Fixtures shared by the workflow tests (tests/test_workflow.py, tests/test_slurm.py, tests/test_plotting.py,
tests/test_report_browser.py), and how the suite is shared among pytest-xdist's workers (``-n auto`` in
pyproject.toml's addopts)."""

from __future__ import annotations

import fcntl
import os
import shutil
import traceback
from pathlib import Path

# One numba cache for the checkout and every workflow copy the tests make (the smoke pipeline runs on one):
# under NUMBA_CACHE_DIR, privopt's kernels are filed by their place in the package and the code of their
# import closure (privopt.numba_cache.package_subpath), so a kernel the smoke run compiled is not compiled
# again by the unit tests, nor the reverse.  Set before numba is imported, by this process and the jobs it
# starts; kept between sessions (gitignored), as the checkout's own __pycache__ would be.
os.environ.setdefault("NUMBA_CACHE_DIR", str(Path(__file__).resolve().parents[1] / ".numba-cache"))

import pytest  # noqa: E402

import compile_report  # noqa: E402
from kernel_contract import parametrise_contract  # noqa: E402
from workflow_runs import SUBSET, copy_workflow, data_config, snakemake  # noqa: E402


#: the fixture whose pipeline run (minutes) the end-to-end tests read
SMOKE_FIXTURE = "smoke_run_two_cores"
#: the module that starts first: its fixture builds the smoke run, which it reads most
BUILDS_THE_SMOKE_RUN = "tests/test_workflow.py"


def xdist_group_of(module: str, explicit: str | None = None) -> str:
    """The xdist group of a test (``--dist loadgroup``: a group's tests run on one worker, in order): its module,
    or the group its ``@pytest.mark.xdist_group(name)`` names (a long test split into parts that may run on
    different workers).

    A module's tests stay together, so its module-scoped fixtures (a copy of the workflow, a simulated data
    set) are built once, not once per worker.  The smoke pipeline run, which several modules read, is built
    once per session by whichever worker asks first (:func:`once_per_session`), so its readers need no
    group of their own and spread over the workers."""
    return explicit or module


def _join_group(item, group: str) -> None:
    """What ``--dist loadgroup`` does with an ``xdist_group`` mark: the group goes into the node id as
    ``<nodeid>@<group>``, which the controller schedules by.  pytest-xdist 3.8 writes it to ``item._nodeid``,
    which pytest 9.2 no longer reads (it keeps the node id as a ``NodeId`` in ``item._id``), so that every test
    was scheduled on its own and two workers each built the smoke run; done here for both."""
    new = f"{item.nodeid}@{group}"
    if not hasattr(item, "_id"):  # pytest < 9.2
        item._nodeid = new
        return
    from _pytest.nodeid import NodeId

    item._id = NodeId.parse(new)


def pytest_generate_tests(metafunc):
    """The kernel/twin contract's tests, once per case and kernel (tests/kernel_contract.py)."""
    parametrise_contract(metafunc)


def pytest_itemcollected(item):
    """Put each test in its xdist group as it is collected (``-n``, ``--dist loadgroup``; no-op without xdist)."""
    config = item.config
    if not getattr(config.option, "loadgroup", False):  # set on each xdist worker under --dist loadgroup
        return
    mark = item.get_closest_marker("xdist_group")
    explicit = (mark.args[0] if mark.args else mark.kwargs.get("name")) if mark else None
    group = xdist_group_of(item.nodeid.split("::", 1)[0], explicit)
    if not mark:
        item.add_marker(pytest.mark.xdist_group(group))
    if "@" not in item.nodeid:
        _join_group(item, group)


def reads_smoke_run(item) -> bool:
    """Whether a test reads the smoke run: asks for its fixture, or is marked ``reads_smoke_run`` (asks at run time)."""
    return SMOKE_FIXTURE in getattr(item, "fixturenames", ()) or item.get_closest_marker("reads_smoke_run") is not None


def scheduling_order(groups: list[str], slow: set[str], smoke: set[str], split: set[str], first: str) -> list[str]:
    """The order in which the workers take the xdist groups (``--no-loadscope-reorder`` keeps the collection's;
    a stable sort, each part in collection order): ``first``, whose fixture builds the smoke run (a worker
    waits for it; the other worker meanwhile takes the groups that do not read it), then the groups with
    slow tests, the other groups, those that read the smoke run (``smoke``), and last the parts of split
    tests that read it (``split``: groups named by an ``xdist_group`` mark, short ones that fill both workers to
    the end)."""
    def rank(group: str) -> int:
        if group == first:
            return 0
        if group in split and group in smoke:
            return 4
        if group in smoke:
            return 3
        return 1 if group in slow else 2

    return sorted(groups, key=rank)


def pytest_configure(config):
    """Load the plugin that reports each test's numba compilation CPU (tests/compile_report.py)."""
    config.pluginmanager.register(compile_report, "compile_report")


def pytest_collection_modifyitems(config, items):
    """Under xdist, the groups in :func:`scheduling_order` (a stable sort: each group's tests keep their order)."""
    if not getattr(config.option, "loadgroup", False):
        return
    group_of = {id(item): item.nodeid.rsplit("@", 1)[-1] for item in items}
    module_of = {id(item): item.nodeid.split("::", 1)[0] for item in items}
    groups = list(dict.fromkeys(group_of.values()))
    slow = {group_of[id(i)] for i in items if i.get_closest_marker("slow") is not None}
    smoke = {group_of[id(i)] for i in items if reads_smoke_run(i)}
    split = {group_of[id(i)] for i in items if group_of[id(i)] != module_of[id(i)]}
    place = {g: n for n, g in enumerate(scheduling_order(groups, slow, smoke, split, BUILDS_THE_SMOKE_RUN))}
    items.sort(key=lambda item: place[group_of[id(item)]])


@pytest.fixture(scope="session")
def session_dir(tmp_path_factory) -> Path:
    """A folder of this test session that all its xdist workers share (pytest-xdist's documented pattern: the
    parent of a worker's base temp); without xdist, the session's base temp."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once_per_session(tmp_path_factory, name: str, build) -> Path:
    """``build(folder)`` run once per test session and its result (a path) returned to every caller.

    Without xdist, a fixture of session scope is built once anyway.  Under xdist every worker is a process
    of its own, with its own session fixtures: the first worker to ask builds in a folder of the session's
    base temporary directory, which all workers share (``getbasetemp().parent``, pytest-xdist's documented
    pattern), holding an exclusive ``flock`` on a lock file there; the others wait on the lock, then read
    the path from ``<name>.done``.  A failed build leaves its message in ``<name>.failed``, which the others
    report without building again; a worker that dies while building releases the lock (the kernel drops a
    dead process's locks) and the next one clears the half-built folder and builds anew."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return build(tmp_path_factory.mktemp(name))
    shared = tmp_path_factory.getbasetemp().parent
    done, failed, folder = shared / f"{name}.done", shared / f"{name}.failed", shared / name
    with open(shared / f"{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the process dies
        if done.is_file():
            return Path(done.read_text())
        if failed.is_file():
            pytest.fail(f"{name}: building it failed on another worker:\n{failed.read_text()}", pytrace=False)
        if folder.exists():  # left by a worker that died while building
            shutil.rmtree(folder)
        try:
            path = build(folder)
        except Exception:
            failed.write_text(traceback.format_exc()[-20000:])
            raise
        done.write_text(str(path))
        return path


@pytest.fixture(scope="session")
def smoke_run_two_cores(tmp_path_factory):
    """The smoke pipeline (config/smoke.yaml, shared data subset) run from scratch with
    ``--cores 2`` on a fresh copy of the workflow with the toy paper added (it runs end to end through
    the same rules as every paper); returns the copy's directory.  Built once per session, whichever xdist
    worker asks first (:func:`once_per_session`); its readers only read it, but for tests/test_workflow.py,
    whose edits of its sources are atomic and put back."""
    if not SUBSET.exists():
        pytest.skip(f"shared data subset not found at {SUBSET}")

    def build(folder: Path) -> Path:
        work = copy_workflow(folder, toy=True)
        snakemake(work, "--cores", "2", "--configfile", "config/smoke.yaml", *data_config())
        return work

    return once_per_session(tmp_path_factory, "smoke_run_two_cores", build)
