"""The text of config/config.yaml and its papers' parts (config/<paper>/config.yaml): they hold only what the quick
scale sets differently from the schemas' defaults (plus the groups a schema fills only as a whole, restated so that
a layered file can change one of their keys), and every key in them has a comment.  Each scale's file holds the
workflow's keys and each paper's section is the paper's own part, layered right after it.  The schemas
(workflow/schemas/*.schema.yaml) are the reference for every key; tests/test_workflow.py checks that each key there
has a description and a default."""

import json
import re

import pytest
import yaml

from workflow_runs import REPO

CONFIG = REPO / "config" / "config.yaml"
#: config/config.yaml and its papers' parts
QUICK = [CONFIG, *sorted(REPO.glob("config/*/config.yaml"))]
#: the shipped scales' files, each with its papers' parts (config/<paper>/<file>)
SCALES = ("config.yaml", "paper.yaml", "smoke.yaml")
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


@pytest.mark.parametrize("path", QUICK, ids=lambda p: str(p.relative_to(REPO)))
def test_config_yaml_holds_only_what_the_quick_scale_changes(path):
    doc = yaml.safe_load(path.read_text())
    defaults = _defaults()
    restated = []
    for path, value in _leaves(doc):
        default = defaults
        for part in path:
            default = default.get(part, {}) if isinstance(default, dict) else None
        if json.dumps(value, sort_keys=True) == json.dumps(default, sort_keys=True):
            if path not in NAMED_ANYWAY and not _filled_whole(path):
                restated.append(".".join(path))
    assert not restated, (f"{path} restates schema defaults {restated}: leave them to "
                          "workflow/schemas/ (config.yaml and its parts hold what the quick scale changes)")


@pytest.mark.parametrize("path", QUICK, ids=lambda p: str(p.relative_to(REPO)))
def test_every_key_in_config_yaml_has_a_comment(path):
    """Each key line has a comment line directly above it (or at its end): what it changes, why quick differs."""
    lines = path.read_text().splitlines()
    bare = []
    for i, line in enumerate(lines):
        match = re.match(r"^\s*([A-Za-z_][\w-]*):", line)
        if not match:
            continue
        above = lines[i - 1].strip() if i else ""
        if not above.startswith("#") and "#" not in line:
            bare.append(f"line {i + 1}: {match.group(1)}")
    assert not bare, f"keys of {path} without a comment: {bare}"


def test_each_scale_file_holds_the_workflow_keys_and_each_paper_its_own_part():
    """The shipped scales' files hold no paper's section; config/<paper>/<name>.yaml is a part of a scale's file and
    holds that paper's section only (a sixth paper adds its parts and edits none of the shared files).  (The other
    files of config/ are layers for one purpose, given after a scale's file: the shared data, Shariff & Sheffet's
    reference and Figure 5.)"""
    from privopt.pipeline.registry import papers

    keys = set(papers())
    for name in SCALES:
        assert not keys & set(yaml.safe_load((REPO / "config" / name).read_text())), f"{name}: a section belongs in a part"
    parts = sorted(REPO.glob("config/*/*.yaml"))
    assert {p.parent.name for p in parts} == keys  # every paper has its paper-scale part at least
    for part in parts:
        assert part.parent.name in keys and part.name in SCALES, part
        assert list(yaml.safe_load(part.read_text())) == [part.parent.name], part
    for key in keys:
        assert (REPO / "config" / key / "paper.yaml").is_file() and (REPO / "config" / key / "smoke.yaml").is_file()


def test_a_paper_part_is_layered_right_after_its_file_and_named_where_it_sets_a_key(tmp_path):
    from privopt.pipeline.config import ConfigSources, load_config, paper_parts, read_part
    from privopt.pipeline.errors import ConfigError

    (tmp_path / "smith2013").mkdir()
    mine, part, later = tmp_path / "mine.yaml", tmp_path / "smith2013" / "mine.yaml", tmp_path / "later.yaml"
    mine.write_text("scale: mine\nsmith2013: {st1: {runs: 2}}\n")
    part.write_text("smith2013: {st1: {runs: 3}}\n")
    later.write_text("smith2013: {st1: {runs: 5}}\n")
    keys = ["smith2013", "cardoso2019"]
    assert paper_parts([mine, later], keys) == [mine, part, later]
    assert load_config([mine])["smith2013"]["st1"]["runs"] == 3  # the part over its file
    assert load_config([mine, later])["smith2013"]["st1"]["runs"] == 5  # a later file over both
    assert ConfigSources(paper_parts([mine], keys)).origin(("smith2013", "st1", "runs")) == str(part)
    part.write_text("smith2013: {st1: {runs: 0}}\n")  # a bad value: the message names the part
    with pytest.raises(ConfigError, match=rf"smith2013.st1.runs .*set in {re.escape(str(part))}"):
        load_config([mine])
    part.write_text("smith2013: {st1: {runs: 3}}\ncardoso2019: {rc1a: {runs: 3}}\nscale: other\n")
    with pytest.raises(ConfigError, match=rf"config file {re.escape(str(part))}: a paper's part holds the section "
                                          r"smith2013 only .* got cardoso2019, scale"):
        load_config([mine])
    assert read_part(later, "smith2013") == {"smith2013": {"st1": {"runs": 5}}}  # a plain layer read as a part: fine
    with pytest.raises(ConfigError, match="got scale"):
        read_part(mine, "smith2013")
