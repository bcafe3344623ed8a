"""Helpers for tests that run the Snakemake workflow on a copy of this checkout."""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
#: the shipped config files (privopt.pipeline.config.load_config reads config/config.yaml, then the files given)
CONFIG = REPO / "config"
TOY = REPO / "tests" / "toy_paper"  # a paper that plugs in by adding files only (docs/adding-a-paper.md)
SUBSET = (REPO / ".." / "shared" / "data" / "uber-raw-data-apr14.subset.csv.gz").resolve()
SUBSET_SHA256 = "8dfd591402b260e2a1497fa6e4556b046627f5e42e664228c1d3290bdeda8923"
# Where the workflow keeps the verified subset: named by the check it passes (privopt.datasets.uber.fetch.content_key).
SUBSET_DIR = f"resources/uber/sha256-{SUBSET_SHA256[:16]}"
SNAKEMAKE = [sys.executable, "-m", "snakemake"]

# The papers that the scheduling checks (the --cores 1 rerun of tests/test_workflow.py and the SLURM run of
# tests/test_slurm.py) send through the workflow a second time, to compare tables with the --cores 2 run:
# the toy paper alone.  Every paper goes through the same generic rules, and a run job's rows depend only
# on its params (each paper's tests check that its run jobs give the same rows whatever the seed blocks);
# the toy has two experiments, several points and two seed blocks per point, which is what the scheduling
# varies.  (Rerunning the real papers cost about a minute each.)
SCHEDULING_PAPERS = ("toy",)


TIMING = ["wall_s"]  # columns that record how long a run took, not what it computed


#: the namespace of the smoke scale's results and logs (config/smoke.yaml), where the workflow tests run
SMOKE = "results/smoke"
SMOKE_LOGS = "logs/smoke"
#: the checks of the data the workflow tests read (data_config(): the shared subset; the toy paper's data set):
#: the results of a paper reading data lie under them (privopt.pipeline.protocol.data_namespace)
SUBSET_CHECK = f"sha256-{SUBSET_SHA256[:16]}"
SMOKE_CHECKS = {"uber": SUBSET_CHECK, "toy": "generated-v1"}
#: the namespaces of the papers reading the subset, of the toy paper (it reads its toy data set), and of the
#: report in a copy with the toy paper added
SUBSET_ROOT, SUBSET_LOGS = f"{SMOKE}/uber~{SUBSET_CHECK}", f"{SMOKE_LOGS}/uber~{SUBSET_CHECK}"
TOY_ROOT, TOY_LOGS = f"{SMOKE}/toy~generated-v1", f"{SMOKE_LOGS}/toy~generated-v1"
SMOKE_REPORT = f"{SMOKE}/toy~generated-v1+uber~{SUBSET_CHECK}/paper"
_DATA = re.compile(r"^((?:results|logs)/[^/]+)/[^/]*~[^/]*/")


def without_data(rel: str) -> str:
    """A path with its data namespace left out: ``results/<scale>/<data>/x`` → ``results/<scale>/x``."""
    return _DATA.sub(r"\1/", rel)


def of_papers(rel: str, keys=SCHEDULING_PAPERS, root: str = SMOKE) -> bool:
    """Whether a path under results/<scale>/ (relative to the workdir) belongs to one of the papers ``keys``."""
    rel = without_data(rel)
    return any(rel.startswith((f"{root}/{k}/", f"{root}/claims/{k}.", f"{root}/audit/{k}.")) for k in keys)


def table_targets(work: Path, keys=SCHEDULING_PAPERS) -> list[str]:
    """Every table, claims file and audit the papers ``keys`` declare in the copy ``work``: what their
    figures and the report read, without the notebooks (which take most of a run's time)."""
    return [f for key, files in registry_files(work).items() if key in keys for f in files
            if not without_data(f).startswith((f"{SMOKE}/figures/", f"{SMOKE_LOGS}/notebooks/"))]


def result_files(work: Path, root: str = SMOKE) -> dict[str, Path]:
    """Every result table, claims file, audit and per-job run file, by path relative to the workdir (in
    every data namespace of ``root``)."""
    found = {}
    for base in [root, *(str(p.relative_to(work)) for p in sorted((work / root).glob("*~*")) if p.is_dir())]:
        for pattern in (f"{base}/*/tables/*.csv", f"{base}/*/tables/*.parquet", f"{base}/claims/*.csv",
                        f"{base}/audit/*.csv", f"{base}/*/runs/**/*.parquet"):
            found.update({str(p.relative_to(work)): p for p in work.glob(pattern) if p.is_file()})
    return found


def assert_same_results(got: dict[str, Path], expected: dict[str, Path]) -> None:
    """The same files, byte for byte (CSV) or frame for frame (parquet), but for the measured wall time of
    each run (``TIMING``), which no two runs share."""
    assert set(got) == set(expected), set(got) ^ set(expected)
    for rel in sorted(got):
        if rel.endswith(".csv"):
            assert got[rel].read_bytes() == expected[rel].read_bytes(), rel
        else:
            a, b = (pd.read_parquet(f[rel]).drop(columns=TIMING, errors="ignore") for f in (got, expected))
            pd.testing.assert_frame_equal(a, b, obj=rel)


needs_subset = pytest.mark.skipif(not SUBSET.exists(), reason=f"shared data subset not found at {SUBSET}")


def copy_workflow(dest: Path, *, toy: bool = False, reference: bool = False) -> Path:
    """A copy of the workflow sources (no results) in which Snakemake can run undisturbed; with
    ``toy``, the toy paper of ``tests/toy_paper`` added to it (:func:`add_toy_paper`); with ``reference``, the
    committed reference results.

    The ``__pycache__`` folders go along, with their times (``copy2``): the bytecode (keyed by the
    source's modification time and size) stays valid for the copied sources.  The numba kernels are shared
    through ``NUMBA_CACHE_DIR`` (tests/conftest.py), keyed by the code of the source and of what it imports
    (:mod:`privopt.numba_cache`): a copy compiles only what no copy of the same code compiled before; a
    source edited in the copy is compiled again as usual."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ["Snakefile", "workflow", "config", "scripts", "paper", "profiles", "src"]:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("*.egg-info"))
        else:
            shutil.copy2(src, dest / name)
    if reference:  # the committed reference results (the workflow tests leave them out: they add jobs)
        shutil.copytree(REPO / "reference", dest / "reference")
    if toy:
        add_toy_paper(dest)
    return dest


def toy_files() -> list[Path]:
    """The toy paper's files, relative to the workflow root they are added to."""
    return sorted(p.relative_to(TOY) for p in TOY.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def add_toy_paper(work: Path) -> list[Path]:
    """Add the toy paper to a workflow copy: its files only, none of which may exist there already."""
    added = toy_files()
    clash = [str(rel) for rel in added if (work / rel).exists()]
    assert not clash, f"adding the toy paper would overwrite {clash}"
    for rel in added:
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(TOY / rel, work / rel)
    return added


@contextlib.contextmanager
def toy_in_process():
    """The toy paper's declaration (its ``PAPER``), imported in this process from ``tests/toy_paper`` as
    ``privopt.experiments.toy`` for the duration; the registry (``privopt.pipeline.registry.papers``, cached)
    does not list it.  For library-level tests of what the workflow derives from a paper."""
    import privopt.experiments as experiments

    path = list(experiments.__path__)
    experiments.__path__[:] = [*path, str(TOY / "src" / "privopt" / "experiments")]
    try:
        yield importlib.import_module("privopt.experiments.toy.paper").PAPER
    finally:
        experiments.__path__[:] = path
        for name in [m for m in sys.modules if m == "privopt.experiments.toy" or m.startswith("privopt.experiments.toy.")]:
            del sys.modules[name]


def toy_schemas(dest: Path) -> Path:
    """A schemas folder: the workflow's schemas (its data sets' included) and the toy paper's."""
    shutil.copytree(REPO / "workflow" / "schemas", dest, dirs_exist_ok=True)
    for schema in (TOY / "workflow" / "schemas").glob("*.yaml"):
        shutil.copy2(schema, dest / schema.name)
    return dest


def load_toy_config(toy, schemas: Path, files=(), overrides=None) -> dict:
    """privopt.pipeline.config.load_config with the toy paper (:func:`toy_in_process`) registered beside the
    real ones and its schema in ``schemas`` (:func:`toy_schemas`)."""
    from privopt.pipeline.config import load_config
    from privopt.pipeline.registry import papers

    return load_config(files, overrides, papers={**papers(), "toy": toy}, schemas=schemas)


def run_jobs_planned_by(edit: dict, files=("smoke.yaml",)) -> dict[str, int]:
    """Run jobs per run rule that the config edit ``edit`` (a mapping over config/<files>, as a further
    config file) plans once the runs of the unedited config exist: the run files (point, seed block and the
    digest of exactly the settings the job reads) the edited config names and the unedited one does not.
    tests/test_workflow.py checks on the toy paper that Snakemake plans exactly these; a paper's own
    tests check with it that its settings whitelists are right."""
    from privopt.pipeline.config import load_config
    from privopt.pipeline.protocol import settings_key
    from privopt.pipeline.registry import papers

    configs = [load_config([CONFIG / f for f in files], overrides) for overrides in (None, edit)]
    planned = {}
    for key, paper in papers().items():
        for exp in paper.experiments:
            before, after = ({paper.run_file(exp.name, j.point, j.block, settings=settings_key(exp.settings(c[key], j.point)))
                              for j in paper.run_jobs(c[key], exp.name)} for c in configs)
            if after - before:
                planned[f"{key}_runs_{exp.name}"] = len(after - before)
    return planned


def registry_files(work: Path, scale: str = "smoke", checks=None) -> dict[str, list[str]]:
    """Per registered paper of the workflow copy ``work`` (toy included when added): its figure files,
    tables and claims file at ``scale``, in the namespace of the data checks ``checks`` (data set → check;
    default :data:`SMOKE_CHECKS`), as that copy's registry declares them."""
    checks = SMOKE_CHECKS if checks is None else checks
    code = (
        "import json\n"
        "from privopt.pipeline.protocol import logs_root, results_root\n"
        "from privopt.pipeline.registry import papers\n"
        f"s, l, c = results_root({scale!r}), logs_root({scale!r}), {dict(checks)!r}\n"
        "def files(p, r, g):\n"
        "    return [*(f for fig in p.figures for f in p.figure_files(fig.id, r).values()),"
        " *(p.executed_notebook(fig.id, g) for fig in p.figures),"
        " *(p.table_file(t.stem, r) for e in p.experiments for t in e.table_files), p.claims_file_at(r),"
        " *([p.audit_file_at(s)] if p.audits else [])]\n"
        "print(json.dumps({k: files(p, p.namespace(s, c), p.namespace(l, c)) for k, p in papers().items()}))"
    )
    env = {**os.environ, "PYTHONPATH": str(work / "src")}
    out = subprocess.run([sys.executable, "-c", code], cwd=work, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def snakemake_env() -> dict[str, str]:
    """The environment for a Snakemake run: this interpreter's bin/ first on PATH, so the jobs
    find its tools (jupyter-nbconvert for the notebook pages) even when the venv is not activated."""
    return {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}


def snakemake(workdir: Path, *args: str, check: bool = True, timeout: float | None = None) -> subprocess.CompletedProcess:
    """Run Snakemake in ``workdir``; on ``timeout`` (s) the process is killed (SIGKILL)."""
    proc = subprocess.run([*SNAKEMAKE, *args], cwd=workdir, capture_output=True, text=True, env=snakemake_env(), timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}")
    return proc


def data_config() -> list[str]:
    return ["--config", f"uber_source={SUBSET}", f"uber_sha256={SUBSET_SHA256}"]


def planned_jobs(proc: subprocess.CompletedProcess) -> dict[str, int]:
    """Job counts from a dry run's 'Job stats' table ({} when there is nothing to do)."""
    text = proc.stdout + proc.stderr
    if "Nothing to be done" in text:
        return {}
    block = text.split("Job stats:", 1)[1]
    counts = {}
    for line in block.splitlines()[3:]:
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit():
            break
        counts[parts[0]] = int(parts[1])
    counts.pop("total", None)
    return counts


def assert_config_refused(override: dict, key: str, tmp_path: Path) -> None:
    """A config file ``override`` is refused by privopt.pipeline.config.load_config (which the workflow calls
    before planning any job) with a message naming ``key`` and the file."""
    from privopt.pipeline.config import load_config
    from privopt.pipeline.errors import ConfigError

    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(override))
    with pytest.raises(ConfigError) as err:
        load_config([bad])
    assert key in str(err.value) and f"set in {bad}" in str(err.value), str(err.value)
