"""The text of config/config.yaml: it holds only what the quick scale sets differently from the schemas'
defaults (plus the groups a schema fills only as a whole, restated so that a layered file can change one
of their keys), and every key in it has a comment.  The schemas (workflow/schemas/*.schema.yaml) are the
reference for every key; tests/test_workflow.py checks that each key there has a description and a default."""

import json
import re

import yaml

from workflow_runs import REPO

CONFIG = REPO / "config" / "config.yaml"
SCHEMAS = REPO / "workflow" / "schemas"
#: kept although equal to its default: the file names its scale, as paper.yaml and smoke.yaml do
NAMED_ANYWAY = {("scale",)}


def _defaults() -> dict:
    from privopt.pipeline.config import load_config

    return load_config([], base=None, schemas=SCHEMAS)


def _schema_at(path: tuple) -> dict | None:
    """The property schema of a key path (None past what the schema names, e.g. inside a reading)."""
    from privopt.pipeline.config import schema_of

    if (SCHEMAS / f"{path[0]}.schema.yaml").is_file():
        node, rest = schema_of(path[0], SCHEMAS), path[1:]
    else:
        node, rest = schema_of("config", SCHEMAS), path
    for part in rest:
        node = (node.get("properties") or {}).get(part)
        if node is None:
            return None
    return node


def _filled_whole(path: tuple) -> bool:
    """A key inside a group whose schema default is a whole mapping (its keys have no defaults of their own)."""
    for n in range(1, len(path) + 1):
        node = _schema_at(path[:n])
        if node is not None and isinstance(node.get("default"), dict) and node["default"]:
            return True
    return False


def _leaves(doc, path=()):
    for key, value in doc.items():
        if isinstance(value, dict):
            yield from _leaves(value, (*path, key))
        else:
            yield (*path, key), value


def test_config_yaml_holds_only_what_the_quick_scale_changes():
    doc = yaml.safe_load(CONFIG.read_text())
    defaults = _defaults()
    restated = []
    for path, value in _leaves(doc):
        default = defaults
        for part in path:
            default = default.get(part, {}) if isinstance(default, dict) else None
        if json.dumps(value, sort_keys=True) == json.dumps(default, sort_keys=True):
            if path not in NAMED_ANYWAY and not _filled_whole(path):
                restated.append(".".join(path))
    assert not restated, (f"config/config.yaml restates schema defaults {restated}: leave them to "
                          "workflow/schemas/ (config.yaml holds what the quick scale changes)")


def test_every_key_in_config_yaml_has_a_comment():
    """Each key line has a comment line directly above it (or at its end): what it changes, why quick differs."""
    lines = CONFIG.read_text().splitlines()
    bare = []
    for i, line in enumerate(lines):
        match = re.match(r"^\s*([A-Za-z_][\w-]*):", line)
        if not match:
            continue
        above = lines[i - 1].strip() if i else ""
        if not above.startswith("#") and "#" not in line:
            bare.append(f"line {i + 1}: {match.group(1)}")
    assert not bare, f"keys of config/config.yaml without a comment: {bare}"
