"""Tables as the pipeline wrote them, checked by content before every reader, and the command that
writes them anew.

The tables job of an experiment records each table's sha256 in its provenance record; the check job
(``<paper>_check_<experiment>``, scripts/check_tables.py) compares the tables with that record and writes
a stamp listing the sha256 it found (:func:`privopt.pipeline.provenance.write_check_stamp`).  Every rule
that reads a table takes the stamps as its input ``checked``.  Snakemake reruns the check only when a
table is newer than its stamp, so an edit that keeps the modification time, or ``--forcerun`` of a
reader, would reach the reader unchecked; so each reader first compares the tables the stamps list with
their recorded sha256 (:func:`verify_checked`: the claims, every figure's notebook through
``privopt.plotting.heading``, the report).

The hint of a failed check is a command that regenerates the experiment's tables at the same scale
(:func:`regenerate_command`): the tables rule as target and forced, the config files in ONE
``--configfile`` option, in order (Snakemake keeps only the last ``--configfile`` option), and the
``--config`` overrides.  The workflow hands the jobs these
through the environment (:func:`export_sources`, workflow/rules/common.smk), not as a job parameter: a
parameter is a rerun trigger, and adding a config file that changes nothing, or reordering files, must
rerun nothing.
"""

from __future__ import annotations

import json
import math
import os
import shlex
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from privopt.pipeline.provenance import TableChanged, file_sha256

__all__ = ["SOURCES_ENV", "export_sources", "regenerate_command", "tables_rule", "read_stamp", "verify_checked"]

#: the environment variable the workflow puts its config files and --config overrides in (JSON)
SOURCES_ENV = "PRIVOPT_CONFIG_SOURCES"


def export_sources(files: Iterable[str], overrides: Mapping[str, Any] | None = None) -> None:
    """Put the ``--configfile`` files (in order) and the ``--config`` overrides where the jobs of this
    snakemake (its subprocesses) find them for :func:`regenerate_command`."""
    os.environ[SOURCES_ENV] = json.dumps({"configfiles": [str(f) for f in files], "config": dict(overrides or {})},
                                         default=str)


def _sources() -> tuple[list[str], dict]:
    try:
        doc = json.loads(os.environ.get(SOURCES_ENV, ""))
        return [str(f) for f in doc.get("configfiles", [])], dict(doc.get("config", {}))
    except (ValueError, AttributeError, TypeError):
        return [], {}


def _config_value(value: Any) -> str:
    """A value of ``--config KEY=VALUE`` as Snakemake parsed it, written so that it parses back the same
    (Snakemake strips quotes, then tries int, float, True/False, YAML): scalars as ``str``, mappings and
    lists in YAML flow style."""
    if isinstance(value, (dict, list)):
        return yaml.safe_dump(value, default_flow_style=True, width=math.inf, allow_unicode=True).strip()
    return str(value)


def regenerate_command(rule: str, files: Iterable[str] | None = None, overrides: Mapping[str, Any] | None = None) -> str:
    """``snakemake RULE --cores 1 --forcerun RULE --configfile A B --config K=V``: the tables rule ``RULE`` as
    the target (it writes the tables; the next run checks them and reruns their readers), forced; ``files``
    and ``overrides`` default to those the workflow exported (:func:`export_sources`).

    >>> regenerate_command("toy_tables_laplace", ["config/smoke.yaml", "my data.yaml"], {"scale": "x"})
    "snakemake toy_tables_laplace --cores 1 --forcerun toy_tables_laplace --configfile config/smoke.yaml 'my data.yaml' --config scale=x"

    ``overrides`` are as Snakemake parsed them (``workflow.config_settings.config``): written back so
    that Snakemake parses them to the same values.
    """
    if files is None and overrides is None:
        files, overrides = _sources()
    command = ["snakemake", rule, "--cores", "1", "--forcerun", rule]
    files = [str(f) for f in files or ()]
    if files:
        command += ["--configfile", *files]
    if overrides:
        command += ["--config", *(f"{key}={_config_value(value)}" for key, value in overrides.items())]
    return shlex.join(command)


def tables_rule(stamp: str | os.PathLike[str]) -> str:
    """The tables rule of a check stamp ``<root>/<paper>/tables/<experiment>.checked``
    (:meth:`privopt.pipeline.protocol.Paper.checked_file`): ``<paper>_tables_<experiment>``."""
    path = Path(stamp)
    return f"{path.parent.parent.name}_tables_{path.name.removesuffix('.checked')}"


def read_stamp(stamp: str | os.PathLike[str]) -> dict[str, str]:
    """table path → the sha256 a check stamp recorded (its lines ``<sha256>  <table>``)."""
    out = {}
    for line in Path(stamp).read_text().splitlines():
        if line.strip():
            digest, _, table = line.partition("  ")
            out[table] = digest
    return out


def verify_checked(stamps: Iterable[str | os.PathLike[str]] | str) -> None:
    """Every table the check stamps list still has the sha256 its check found; else :class:`TableChanged`
    naming the table, the stamp and the command that regenerates it (:func:`regenerate_command`).  By
    content: an edit that kept the modification time, or a reader rerun with ``--forcerun``, is caught."""
    for stamp in [stamps] if isinstance(stamps, (str, os.PathLike)) else stamps:
        how = f"; regenerate it with `{regenerate_command(tables_rule(stamp))}`"
        for table, digest in read_stamp(stamp).items():
            if not Path(table).is_file():
                raise TableChanged(f"{table}: missing, though its check {stamp} found it{how}")
            got = file_sha256(table)
            if got != digest:
                raise TableChanged(f"{table}: its sha256 {got[:16]}… is not the {digest[:16]}… its check {stamp} "
                                   f"found: the table was changed by hand (or another program) after the pipeline "
                                   f"wrote and checked it{how}")
