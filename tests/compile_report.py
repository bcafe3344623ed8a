"""A pytest plugin (tests/conftest.py loads it): the CPU each test spent in numba compilation, in the terminal summary.

On a fresh clone (CI) the numba cache is empty, and compiling the kernels is the largest single part of the suite's
time; this report says which tests pay it.  Every process that runs tests (each xdist worker, or the one process
under ``-n 0``) listens to numba's ``numba:compile`` events and adds up the CPU time (``time.process_time``) of the
outermost ones during each test's setup, call and teardown; the workers send their totals to the controller, which
prints the largest.  Compilation in the Snakemake jobs a test starts (the smoke run's) is not in the numbers: those
run in processes of their own.  Measured, never asserted (no test depends on it).
"""

from __future__ import annotations

import json
import time

import pytest

#: how many tests the summary names
SHOWN = 15

_state = {"depth": 0, "start": 0.0, "total": 0.0}
_per_test: dict[str, float] = {}


def _listen() -> None:
    from numba.core import event

    class _Compile(event.Listener):
        def on_start(self, ev):
            if _state["depth"] == 0:
                _state["start"] = time.process_time()
            _state["depth"] += 1

        def on_end(self, ev):
            _state["depth"] -= 1
            if _state["depth"] == 0:
                _state["total"] += time.process_time() - _state["start"]

    event.register("numba:compile", _Compile())


def pytest_configure(config):
    if not hasattr(config, "workerinput") and getattr(config.option, "numprocesses", None):
        return  # the xdist controller runs no test
    _listen()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    before = _state["total"]
    yield
    spent = _state["total"] - before
    if spent > 0:
        _per_test[item.nodeid] = _per_test.get(item.nodeid, 0.0) + spent


def pytest_sessionfinish(session):
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["numba_compile"] = json.dumps(_per_test)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    for nodeid, spent in json.loads(getattr(node, "workeroutput", {}).get("numba_compile", "{}")).items():
        _per_test[nodeid] = _per_test.get(nodeid, 0.0) + spent


def pytest_terminal_summary(terminalreporter):
    if not _per_test:
        return
    total = sum(_per_test.values())
    terminalreporter.write_sep("=", f"numba compilation in the test processes: {total:.0f} CPU s in "
                                    f"{len(_per_test)} tests (the largest {SHOWN})")
    for nodeid, spent in sorted(_per_test.items(), key=lambda kv: -kv[1])[:SHOWN]:
        terminalreporter.write_line(f"{spent:8.1f}s  {nodeid}")
