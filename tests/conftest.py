"""Fixtures shared by the workflow tests (tests/test_workflow.py, tests/test_slurm.py)."""

from __future__ import annotations

import pytest

from workflow_runs import SUBSET, copy_workflow, data_config, snakemake


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
