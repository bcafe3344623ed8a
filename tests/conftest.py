"""Fixtures shared by the workflow tests (tests/test_workflow.py, tests/test_slurm.py), and how the suite is
shared among pytest-xdist's workers (``-n auto`` in pyproject.toml's addopts)."""

from __future__ import annotations

import pytest

from workflow_runs import SUBSET, copy_workflow, data_config, snakemake

#: the fixture whose pipeline run (minutes) every end-to-end test reads: its tests share one worker
SMOKE_FIXTURE = "smoke_run_two_cores"


def xdist_group_of(module: str, fixturenames, reads_smoke_run: bool = False) -> str:
    """The xdist group of a test (``--dist loadgroup``: a group's tests run on one worker, in order).

    A module's tests stay together, so its module-scoped fixtures (a copy of the workflow, a simulated data
    set) are built once, not once per worker; every test that reads the smoke pipeline run joins one group,
    so that run is made once per session, not once per worker (``reads_smoke_run``: a test that asks for the
    fixture at run time, marked ``@pytest.mark.reads_smoke_run``)."""
    return "smoke" if reads_smoke_run or SMOKE_FIXTURE in fixturenames else module


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


def pytest_itemcollected(item):
    """Put each test in its xdist group as it is collected (``-n``, ``--dist loadgroup``; no-op without xdist)."""
    config = item.config
    if not getattr(config.option, "loadgroup", False):  # set on each xdist worker under --dist loadgroup
        return
    module = item.nodeid.split("::", 1)[0]
    smoke = item.get_closest_marker("reads_smoke_run") is not None
    group = xdist_group_of(module, getattr(item, "fixturenames", ()), smoke)
    item.add_marker(pytest.mark.xdist_group(group))
    if "@" not in item.nodeid:
        _join_group(item, group)


@pytest.fixture(scope="session")
def smoke_run_two_cores(tmp_path_factory):
    """The smoke pipeline (config/smoke.yaml, shared data subset) run from scratch with
    ``--cores 2`` on a fresh copy of the workflow with the toy paper added (it runs end to end through
    the same rules as every paper); returns the copy's directory."""
    if not SUBSET.exists():
        pytest.skip(f"shared data subset not found at {SUBSET}")
    work = copy_workflow(tmp_path_factory.mktemp("cores2"), toy=True)
    snakemake(work, "--cores", "2", "--configfile", "config/smoke.yaml", *data_config())
    return work
