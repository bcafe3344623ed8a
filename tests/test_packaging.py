"""pyproject.toml, requirements.lock, environment.yml and the rule environment agree.

pyproject.toml declares compatible ranges, requirements.lock pins every package ``==`` (what
``.ci/run`` and the README install), and the two conda files pin the lock's versions.  Bumping
one of them and not the others fails here.
"""

import re
import tomllib
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "requirements.lock"
CONDA_FILES = ("environment.yml", "workflow/envs/privopt.yaml")
# Conda-only entries (no PyPI counterpart in the lock).
CONDA_ONLY = {"python", "pip"}


def _names(specs):
    return {re.split(r"[<>=!~ \[]", s, maxsplit=1)[0].strip().lower() for s in specs if isinstance(s, str)}


def _pyproject_requirements():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    specs = list(project["dependencies"])
    for extra in ("workflow", "test", "slurm"):
        specs += extras[extra]
    return [Requirement(s) for s in specs]


def _lock():
    """{canonical name: version} of requirements.lock; every requirement line must be ``name==version``."""
    pins = {}
    for lineno, raw in enumerate(LOCK.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9.+!_-]+)", line)
        assert m, f"requirements.lock:{lineno}: not an exact name==version pin: {raw!r}"
        name = canonicalize_name(m[1])
        assert name not in pins, f"requirements.lock:{lineno}: {name} pinned twice"
        Version(m[2])  # a valid version
        pins[name] = m[2]
    return pins


def _conda_pins(path):
    """{canonical name: pinned version} of a conda environment file (``name==v`` or ``name=v``)."""
    env = yaml.safe_load((REPO / path).read_text())
    pins = {}
    for spec in env["dependencies"]:
        if not isinstance(spec, str) or spec == "pip":
            continue
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*==?\s*([A-Za-z0-9.+!_-]+)", spec.strip())
        assert m, f"{path}: {spec!r} is not pinned to one version (name==version or name=version)"
        pins[canonicalize_name(m[1])] = m[2]
    return pins


def test_dependency_lists_are_in_step():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    pip_names = _names(project["dependencies"]).union(*(_names(extras[k]) for k in ("workflow", "test", "slurm")))
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    conda_names = _names(env["dependencies"]) - {"python", "pip"}
    assert pip_names == conda_names, (pip_names ^ conda_names)
    rule_env = yaml.safe_load((REPO / "workflow/envs/privopt.yaml").read_text())
    rule_names = _names(rule_env["dependencies"]) - {"python"}
    runtime = pip_names - {"snakemake", "jsonschema", "pytest", "pytest-xdist", "websocket-client", "snakemake-executor-plugin-slurm"}
    assert rule_names == runtime, (rule_names ^ runtime)


def test_lock_pins_every_direct_dependency_inside_its_range():
    pins = _lock()
    assert "privopt" not in pins, "privopt is installed editable from the checkout, not pinned"
    problems = []
    for req in _pyproject_requirements():
        name = canonicalize_name(req.name)
        if name not in pins:
            problems.append(f"{name}: in pyproject.toml but not in requirements.lock")
        elif not req.specifier.contains(pins[name], prereleases=True):
            problems.append(f"{name}: requirements.lock pins {pins[name]}, outside pyproject's {req.specifier}")
    assert not problems, "\n".join(problems)


def test_lock_is_for_python_311_and_says_how_to_regenerate():
    header = [line for line in LOCK.read_text().splitlines() if line.startswith("#")]
    text = "\n".join(header[:10])
    assert "uv pip compile pyproject.toml" in text, "the header must give the command that regenerates the lock"
    for flag in ("--extra workflow", "--extra test", "--extra slurm", "--python-version 3.11"):
        assert flag in text, f"regeneration command lacks {flag}"


def test_conda_files_pin_the_locked_versions():
    pins = _lock()
    problems = []
    for path in CONDA_FILES:
        conda = _conda_pins(path)
        python = conda.get("python")
        if python is None or not (python == "3.11" or python.startswith("3.11.")):
            problems.append(f"{path}: python must be pinned to 3.11, got {python!r}")
        for name, version in sorted(conda.items()):
            if name in CONDA_ONLY:
                continue
            if name not in pins:
                problems.append(f"{path}: {name} is not in requirements.lock")
            elif version != pins[name]:
                problems.append(f"{path}: {name}={version} but requirements.lock has {pins[name]}")
    assert not problems, "\n".join(problems)
