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
    pip_names = _names(project["dependencies"]) | _names(project["optional-dependencies"]["workflow"]) | _names(
        project["optional-dependencies"]["test"]
    )
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    conda_names = _names(env["dependencies"]) - {"python", "pip"}
    assert pip_names == conda_names, (pip_names ^ conda_names)
    rule_env = yaml.safe_load((REPO / "workflow/envs/privopt.yaml").read_text())
    rule_names = _names(rule_env["dependencies"]) - {"python"}
    runtime = pip_names - {"snakemake", "jsonschema", "pytest"}
    assert rule_names == runtime, (rule_names ^ runtime)
