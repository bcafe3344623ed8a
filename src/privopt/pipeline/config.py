"""The workflow's configuration: reading the files, numbers in scientific notation, validation against
the schemas, and which file set a key — written once, for the workflow (workflow/rules/common.smk), the
cost benchmark (benchmarks/paper_cost.py) and the tests.

:func:`load_config` is the one way in: config/config.yaml (the Snakefile's ``configfile:``), every given
file over it key by key (each followed by its papers' parts: config/paper.yaml by config/<paper>/paper.yaml,
:func:`paper_parts`), then the ``--config KEY=VALUE`` overrides, merged as Snakemake merges them and
then checked by :func:`validate_config`.  The workflow calls it with the files and overrides Snakemake
was given (workflow/rules/common.smk) and uses what it returns; the cost benchmark and the tests call it
with config file names.  The checks:

* a key that is neither a setting of the workflow nor a registered paper is refused with the nearest
  names ("unknown key scael, did you mean scale?");
* YAML 1.1 reads ``1e-3`` and ``1e12`` as strings; where the schema wants a number such a string
  becomes the number before validation (:func:`coerce_numbers`);
* every schema error names the paper (or "workflow setting"), the key path (``shariff2018.fig1.n_runs``)
  and the config file that set the key (:class:`ConfigSources`); so do the papers' cross-key checks;
* NaN and ±infinity (YAML's ``.nan``, ``.inf``) are refused wherever they stand: they pass every bound of
  the schemas (``nan > 0`` and ``nan < 1`` are both false) and would reach the jobs;
* a number where the schema wants a string (YAML reads an unquoted all-digit hash as an int) is told to
  be quoted; a string too long for its schema (a folder name) says how long it is and how long it may be;
* defaults of the schemas are filled in (as ``snakemake.utils.validate(..., set_default=True)``).

``python -m privopt.pipeline.config FILE...`` checks config files this way without Snakemake, naming
the file and line of a YAML syntax error (Snakemake reads ``--configfile`` files before the workflow
starts and says only "Config file is not valid JSON or YAML").
"""

from __future__ import annotations

import copy
import difflib
import math
import re
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import yaml

from privopt.pipeline.errors import ConfigError

__all__ = ["BASE_CONFIG", "SCHEMAS", "ConfigSources", "read_config_file", "parts_of", "paper_parts", "read_part",
           "merge", "coerce_numbers", "non_finite", "validate_config", "load_config", "schema_of"]

_REPO = Path(__file__).resolve().parents[3]
#: The Snakefile's ``configfile:``.
BASE_CONFIG = _REPO / "config" / "config.yaml"
#: The schemas (config.schema.yaml for the workflow's keys, <paper>.schema.yaml for each paper's section).
SCHEMAS = _REPO / "workflow" / "schemas"

#: Where a key came from when no file or ``--config`` set it.
DEFAULT_ORIGIN = "the schema's default"
COMMAND_LINE = "--config on the command line"

_NUMBER = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$")
#: how much of a long value a message quotes
_QUOTE_CHARS = 40


# ----------------------------------------------------------------------------- files


def _load_yaml(text: str):
    """YAML as ``yaml.safe_load`` reads it, through libyaml when PyYAML has it: the workflow reads about fifteen
    config and schema files at every Snakemake start, which the pure-Python parser took 1.4 CPU-s for."""
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 - a safe loader


def read_config_file(path: str | Path) -> dict:
    """One config file as a mapping; a YAML syntax error is a :class:`ConfigError` naming the file and
    the line (1-based) and column where the parser stopped."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"config file {path}: cannot be read ({exc.strerror or exc})") from None
    try:
        try:
            data = _load_yaml(text)
        except yaml.YAMLError:
            data = yaml.safe_load(text)  # the pure-Python parser's marks and wording, for the message
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f", line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        what = "; ".join(str(s) for s in (exc.context, exc.problem) if s)
        if exc.context_mark is not None and mark is not None and exc.context_mark.line != mark.line:
            what += f" (the construct it was reading starts on line {exc.context_mark.line + 1})"
        raise ConfigError(f"config file {path}{where}: not valid YAML: {what}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"config file {path}: not valid YAML: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path}: must hold a mapping of keys at the top level, "
                          f"got {type(data).__name__}")
    return data


def parts_of(file: str | Path, keys: Iterable[str]) -> list[tuple[str, Path]]:
    """The papers' parts of a config file ``DIR/NAME.yaml``: ``(key, DIR/<key>/NAME.yaml)`` of every paper ``key`` (in
    key order) that has one.

    A scale's file (config/paper.yaml) holds the workflow's keys of the scale and each paper's section at that
    scale is the paper's own file (config/shariff2018/paper.yaml), so adding a paper adds files and edits none
    of the shared ones (docs/adding-a-paper.md).  A part holds its paper's section only (:func:`read_part`), so
    the order of the parts among themselves changes nothing; a file given after the scale's file (yours) is
    layered over its parts as over the file itself."""
    file = Path(file)
    return [(key, part) for key in sorted(keys) if (part := file.parent / key / file.name).is_file()]


def paper_parts(files: Iterable[str | Path], keys: Iterable[str]) -> list[Path]:
    """``files`` with each one's papers' parts (:func:`parts_of`) right after it, lowest precedence first."""
    keys = sorted(keys)
    return [p for file in files for p in (Path(file), *(part for _, part in parts_of(file, keys)))]


def read_part(path: str | Path, key: str) -> dict:
    """Paper ``key``'s part of a config file (:func:`parts_of`), read as :func:`read_config_file` reads a file: it
    must hold that paper's section and nothing else, or a :class:`ConfigError` names the file."""
    path = Path(path)
    doc = read_config_file(path)
    other = sorted(k for k in doc if k != key)
    if other:
        raise ConfigError(f"config file {path}: a paper's part holds the section {key} only (the workflow's keys "
                          f"go in {path.parent.parent / path.name}, another paper's in its own folder), "
                          f"got {', '.join(other)}")
    return doc


def merge(base: dict, update: Mapping) -> dict:
    """``update`` over ``base`` key by key, recursing into mappings (as ``snakemake.utils.update_config``)."""
    for key, value in update.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            merge(base[key], value)
        else:
            base[key] = copy.deepcopy(value)
    return base


def _has(doc: Any, path: tuple) -> bool:
    for part in path:
        if isinstance(doc, dict) and part in doc:
            doc = doc[part]
        elif isinstance(doc, list) and isinstance(part, int) and 0 <= part < len(doc):
            doc = doc[part]
        else:
            return False
    return True


class ConfigSources:
    """The config files (lowest precedence first) and the ``--config`` overrides a config was merged
    from, and which of them set a key."""

    def __init__(self, files: Iterable[str | Path] = (), overrides: Mapping | None = None):
        self.files = [Path(f) for f in files]
        self.overrides = dict(overrides or {})
        self._docs: dict[Path, dict] = {}

    def _doc(self, path: Path) -> dict:
        if path not in self._docs:
            try:
                self._docs[path] = read_config_file(path)
            except ConfigError:
                self._docs[path] = {}
        return self._docs[path]

    def origin(self, key_path: Iterable) -> str:
        """Which source set ``key_path`` (a tuple of keys and list indices): the last that has it, else
        the last that has its longest prefix ("set in" a file means the key or its section), else
        :data:`DEFAULT_ORIGIN`."""
        key_path = tuple(key_path)
        for n in range(len(key_path), 0, -1):
            prefix = key_path[:n]
            if _has(self.overrides, prefix):
                return COMMAND_LINE
            for path in reversed(self.files):
                if _has(self._doc(path), prefix):
                    return str(path)
        return DEFAULT_ORIGIN


# ----------------------------------------------------------------------------- schemas


_SCHEMA_CACHE: dict[Path, dict] = {}


def _read_schema(path: Path) -> dict:
    if path not in _SCHEMA_CACHE:
        _SCHEMA_CACHE[path] = _load_yaml(path.read_text(encoding="utf-8"))
    return _SCHEMA_CACHE[path]


def schema_of(name: str, schemas: Path = SCHEMAS) -> dict:
    """A schema (``config`` or a paper key) as a mapping.

    ``config``, the workflow's top-level keys, is ``config.schema.yaml`` plus the keys of every data set:
    each declared data set's own schema, ``datasets/<name>.schema.yaml`` (the top-level keys it reads,
    :attr:`privopt.pipeline.datasets.Dataset.config_keys`), so adding a data set edits no shared schema."""
    own = _read_schema(Path(schemas) / f"{name}.schema.yaml")
    if name != "config":
        return own
    merged = dict(own, properties=dict(own["properties"]))
    for path in sorted((Path(schemas) / "datasets").glob("*.schema.yaml")):
        for key, spec in _read_schema(path).get("properties", {}).items():
            if key in merged["properties"]:
                raise ValueError(f"{path}: the key {key} is already a workflow setting or another data set's")
            merged["properties"][key] = spec
    return merged


def _validator(schema: dict):
    """A Draft 2020-12 validator that fills in the schemas' defaults (copies) as it validates."""
    from jsonschema import Draft202012Validator, validators

    plain = Draft202012Validator.VALIDATORS["properties"]

    def properties(validator, props, instance, sch):
        if isinstance(instance, dict):
            for name, sub in props.items():
                if isinstance(sub, dict) and "default" in sub and name not in instance:
                    instance[name] = copy.deepcopy(sub["default"])
        yield from plain(validator, props, instance, sch)

    return validators.extend(Draft202012Validator, {"properties": properties})(schema)


def _plain_validator(schema: dict):
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema)


def _set(doc: Any, path: tuple, value: Any) -> None:
    for part in path[:-1]:
        doc = doc[part]
    doc[path[-1]] = value


def _as_number(text: str) -> list:
    """The numbers a string in (scientific) decimal notation may stand for: an int when it is integral
    (exactly: 1e12 -> 1000000000000), and the float."""
    try:
        exact = Decimal(text.strip())
    except InvalidOperation:
        return []
    out = []
    if exact == exact.to_integral_value():
        out.append(int(exact))
    out.append(float(exact))
    return out


#: YAML's words for null and the booleans, which Snakemake leaves as strings in a nested ``--config`` value
#: (``--config "paper={exp: {n_rounds: null}}"``: it reads nested values with YAML's BaseLoader)
_WORDS = {**{w: None for w in ("null", "Null", "NULL", "~")},
          **{w: True for w in ("true", "True", "TRUE")}, **{w: False for w in ("false", "False", "FALSE")}}


def _as_value(text: str) -> list:
    """What a string may stand for where the schema wants no string: its numbers (:func:`_as_number`) when it
    is in decimal notation, None or a boolean when it is YAML's word for one; [] otherwise."""
    if _NUMBER.match(text):
        return _as_number(text)
    return [_WORDS[text.strip()]] if text.strip() in _WORDS else []


def coerce_numbers(instance: Any, schema: dict) -> list[tuple]:
    """Replace, in place, every string such as ``"1e-3"`` or ``"1e12"`` (what YAML 1.1 reads from
    ``1e-3``) by its number where the schema wants a number there, and ``"null"``, ``"true"``, ``"false"`` (what
    Snakemake leaves of them in a nested ``--config`` value) by None or the boolean where the schema wants one;
    returns the key paths changed.  Strings the schema wants as strings are left alone (the value must remove
    the type error)."""
    checker = _plain_validator(schema)

    def type_errors(doc, path):
        n = 0
        for error in checker.iter_errors(doc):
            for err in [error, *_leaves(error)]:
                where = tuple(err.absolute_path)
                if err.validator in ("type", "oneOf", "anyOf") and path[: len(where)] == where:
                    n += 1
        return n

    changed: list[tuple] = []
    tried: set[tuple] = set()
    while True:
        todo = []
        for error in checker.iter_errors(instance):
            for err in [error, *_leaves(error)]:
                path = tuple(err.absolute_path)
                value = err.instance
                if path and path not in tried and isinstance(value, str) and _as_value(value):
                    todo.append((path, value))
        if not todo:
            return changed
        for path, value in dict(todo).items():
            tried.add(path)
            before = type_errors(instance, path)
            for number in _as_value(value):
                trial = copy.deepcopy(instance)
                _set(trial, path, number)
                if type_errors(trial, path) < before:
                    _set(instance, path, number)
                    changed.append(path)
                    break


def _leaves(error) -> list:
    out = []
    for sub in error.context or ():
        out.append(sub)
        out.extend(_leaves(sub))
    return out


# ----------------------------------------------------------------------------- validation


def _dotted(path: Iterable) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _suggest(name: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(str(name), sorted(choices), n=3, cutoff=0.6)
    return f", did you mean {' or '.join(close)}?" if close else ""


def _quoted(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _QUOTE_CHARS else f"{text[:_QUOTE_CHARS]}… ({len(str(value))} characters)"


def _wants_string(error) -> bool:
    expected = error.validator_value
    return "string" in (expected if isinstance(expected, list) else [expected])


def _message(error, prefix: tuple) -> str:
    """A jsonschema error in words (without the 'Failed validating ... in schema' dump)."""
    if (error.validator == "type" and _wants_string(error) and isinstance(error.instance, (int, float))
            and not isinstance(error.instance, bool)):
        return (f"{_quoted(error.instance)} is a number, and a string is wanted here: YAML reads a value of digits "
                f"as a number, so write it in quotes in a config file (key: \"0123…\"; --config reads digits as a "
                f"number whatever the quotes)")
    if error.validator == "maxLength" and isinstance(error.instance, str):
        return (f"{error.instance[:_QUOTE_CHARS]!r}… is {len(error.instance)} characters long, more than the "
                f"{error.validator_value} allowed")
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set((error.schema.get("properties") or {}))
        extra = [k for k in error.instance if k not in allowed]
        return "; ".join(f"unknown key {k}{_suggest(k, allowed)} (the keys of "
                         f"{_dotted((*prefix, *error.absolute_path)) or 'the config'}: {', '.join(sorted(allowed))})"
                         for k in extra)
    if error.validator in ("oneOf", "anyOf") and error.context:
        return "; ".join(sorted({sub.message for sub in error.context}))
    return error.message


def non_finite(doc: Any, path: tuple = ()) -> list[tuple[tuple, float]]:
    """The key paths (and values) of every NaN or ±infinity in ``doc`` (mappings and lists, recursively)."""
    if isinstance(doc, float):
        return [] if math.isfinite(doc) else [(path, doc)]
    if isinstance(doc, dict):
        return [found for key, value in doc.items() for found in non_finite(value, (*path, key))]
    if isinstance(doc, list):
        return [found for i, value in enumerate(doc) for found in non_finite(value, (*path, i))]
    return []


def _errors(section: Any, schema: dict, prefix: tuple) -> list[tuple[tuple, str]]:
    coerce_numbers(section, schema)
    found = [((*prefix, *path), f"{value!r} is not a number any setting can take (NaN and infinity are refused; "
                                f"give a finite number)") for path, value in non_finite(section)]
    for error in _validator(schema).iter_errors(section):
        path = (*prefix, *error.absolute_path)
        if error.validator == "additionalProperties":  # name the unknown key itself
            allowed = set((error.schema.get("properties") or {}))
            extra = [k for k in error.instance if k not in allowed]
            path = (*path, extra[0]) if extra else path
        found.append((path, _message(error, prefix)))
    return sorted(found, key=lambda e: [str(p) for p in e[0]])


def _describe(path: tuple, papers: Mapping, sources: ConfigSources) -> str:
    owner = f"paper {path[0]}" if path and path[0] in papers else "workflow setting"
    return f"config key {_dotted(path)} ({owner}; set in {sources.origin(path)})"


_KEY_IN_MESSAGE = re.compile(r"\b([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)")


def validate_config(config: dict, papers: Mapping, *, sources: ConfigSources | None = None,
                    schemas: Path = SCHEMAS) -> dict:
    """Check ``config`` in place (defaults filled in, scientific-notation strings made numbers) against
    the workflow's schema and each registered paper's, then each paper's cross-key checks
    (``paper.check``).  Raises :class:`ConfigError` listing every problem, each naming the paper, the
    key path and the config file that set it."""
    sources = sources or ConfigSources()
    own_schema = schema_of("config", schemas)
    own = set(own_schema["properties"])
    problems: list[str] = []

    unknown = sorted(set(config) - own - set(papers), key=str)
    for key in unknown:
        problems.append(f"unknown key {key} (set in {sources.origin((key,))}){_suggest(key, own | set(papers))} "
                        f"(the workflow's settings: {', '.join(sorted(own))}; the registered papers: "
                        f"{', '.join(papers)})")
    workflow_part = {k: v for k, v in config.items() if k in own}
    for path, msg in _errors(workflow_part, {**own_schema, "additionalProperties": True}, ()):
        problems.append(f"{_describe(path, papers, sources)}: {msg}")
    config.update(workflow_part)

    for key, paper in papers.items():
        section = config.setdefault(key, {})
        if not isinstance(section, dict):
            problems.append(f"{_describe((key,), papers, sources)}: the section of a paper must be a mapping, "
                            f"got {section!r}")
            continue
        if not (Path(schemas) / f"{key}.schema.yaml").is_file():
            problems.append(f"paper {key} (src/privopt/experiments/{key}/) has no config schema: write "
                            f"workflow/schemas/{key}.schema.yaml (docs/adding-a-paper.md)")
            continue
        errors = _errors(section, schema_of(key, schemas), (key,))
        problems += [f"{_describe(path, papers, sources)}: {msg}" for path, msg in errors]
        if errors:
            continue
        try:
            paper.check(section)
        except ConfigError as exc:
            text = str(exc)
            named = [m for m in _KEY_IN_MESSAGE.findall(text) if m.split(".")[0] == key]
            where = sources.origin(tuple(named[0].split("."))) if named else sources.origin((key,))
            problems.append(f"paper {key}: {text} (set in {where})")
    if problems:
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(problems))
    return config


def load_config(files: Iterable[str | Path] = (), overrides: Mapping | None = None, *, papers: Mapping | None = None,
                base: str | Path | None = BASE_CONFIG, schemas: Path = SCHEMAS) -> dict:
    """The config ``snakemake --configfile FILES --config OVERRIDES`` uses: ``base`` (the Snakefile's
    config/config.yaml), each file over it key by key, each followed by its papers' parts (:func:`paper_parts`),
    the overrides, then validated with defaults filled in (:func:`validate_config`; ``papers`` defaults to the
    registry)."""
    if papers is None:
        from privopt.pipeline.registry import papers as registered

        papers = registered()
    files = [*([base] if base is not None else []), *files]
    config: dict = {}
    for path in files:
        merge(config, read_config_file(path))
        for key, part in parts_of(path, papers):
            merge(config, read_part(part, key))
    merge(config, overrides or {})
    return validate_config(config, papers, sources=ConfigSources(paper_parts(files, papers), overrides), schemas=schemas)


def main(argv: list[str] | None = None) -> int:
    import argparse
    import sys

    ap = argparse.ArgumentParser(prog="python -m privopt.pipeline.config",
                                 description="Check config files as the workflow does (config/config.yaml first).")
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args(argv)
    try:
        load_config(args.files)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 1
    print("valid")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
