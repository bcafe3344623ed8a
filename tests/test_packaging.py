"""pyproject.toml, environment.yml and the rule environment name the same dependencies."""

import re
import tomllib
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]


def _names(specs):
    return {re.split(r"[<>=!~ \[]", s, maxsplit=1)[0].strip().lower() for s in specs if isinstance(s, str)}


def test_dependency_lists_are_in_step():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    pip_names = _names(project["dependencies"]).union(*(_names(extras[k]) for k in ("workflow", "test", "slurm")))
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    conda_names = _names(env["dependencies"]) - {"python", "pip"}
    assert pip_names == conda_names, (pip_names ^ conda_names)
    rule_env = yaml.safe_load((REPO / "workflow/envs/privopt.yaml").read_text())
    rule_names = _names(rule_env["dependencies"]) - {"python"}
    runtime = pip_names - {"snakemake", "jsonschema", "pytest", "snakemake-executor-plugin-slurm"}
    assert rule_names == runtime, (rule_names ^ runtime)
