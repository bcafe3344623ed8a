"""privopt.pipeline.tablecheck: a table changed after its check is refused by every reader, by content, and
the refusal names a command that really regenerates it (issue 38).

The tamper check was walked around two ways: an edit that kept the table's modification time never
reran the check job, and ``--forcerun <paper>_claims`` reran the reader without it; both passed the edited
value on.  Its hint held two ``--configfile`` options, of which Snakemake keeps only the last, so it
planned another scale and never repaired the table.  (tests/test_workflow.py runs the whole story on the
toy paper.)"""

from __future__ import annotations

import json
import os
import shlex
import types

import pytest

from privopt.pipeline import tablecheck
from privopt.pipeline.provenance import TableChanged, file_sha256, write_check_stamp


def _snakemake_args(command: str):
    """The command as Snakemake's own command line reads it."""
    from snakemake.cli import get_argument_parser

    words = shlex.split(command)
    assert words[0] == "snakemake"
    return get_argument_parser().parse_args(words[1:])


def test_the_regenerate_command_gives_snakemake_every_config_file_in_order():
    from snakemake.cli import parse_config

    files = ["config/smoke.yaml", "../shared data/subset.yaml", "mine.yaml"]
    given = ["uber_source=../shared/data/uber subset.csv.gz", "uber_sha256=" + "ab" * 32, "scale=custom",
             "toy={n: 200, eps: [0.5, 1.0]}", "flag=True", "alpha=1e-3"]
    overrides = parse_config(given)  # what the workflow gets from Snakemake
    args = _snakemake_args(tablecheck.regenerate_command("toy_tables_laplace", files, overrides))
    assert [str(f) for f in args.configfile] == files
    assert args.forcerun == {"toy_tables_laplace"} and list(args.targets) == ["toy_tables_laplace"]
    assert parse_config(args.config) == overrides  # the same --config values, parsed back
    # why one option: of two --configfile options Snakemake keeps the last (the old hint's form)
    assert [str(f) for f in _snakemake_args("snakemake --configfile a.yaml --configfile b.yaml").configfile] == ["b.yaml"]


def test_the_command_takes_the_sources_the_workflow_exported(monkeypatch):
    monkeypatch.delenv(tablecheck.SOURCES_ENV, raising=False)
    assert tablecheck.regenerate_command("p_tables_e") == "snakemake p_tables_e --cores 1 --forcerun p_tables_e"
    tablecheck.export_sources(["config/paper.yaml", "config/shared-data.yaml"], {"scale": "big"})
    assert json.loads(os.environ[tablecheck.SOURCES_ENV])["configfiles"] == ["config/paper.yaml", "config/shared-data.yaml"]
    assert tablecheck.regenerate_command("p_tables_e") == (
        "snakemake p_tables_e --cores 1 --forcerun p_tables_e --configfile config/paper.yaml config/shared-data.yaml "
        "--config scale=big")


def test_the_tables_rule_of_a_stamp():
    assert tablecheck.tables_rule("results/smoke/chaturvedi2021/tables/fig1.checked") == "chaturvedi2021_tables_fig1"
    # in a data namespace (results/<scale>/<data set>~<check>/) too
    assert tablecheck.tables_rule("results/smoke/uber~sha256-8dfd591402b260e2/chaturvedi2021/tables/fig1.checked") == \
        "chaturvedi2021_tables_fig1"


@pytest.fixture()
def checked_table(tmp_path, monkeypatch):
    """A table, its provenance record and its check stamp, as the tables and check jobs write them (paths
    relative to the working directory, as in the workflow)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(tablecheck.SOURCES_ENV, json.dumps({"configfiles": ["config/smoke.yaml", "more.yaml"], "config": {}}))
    tables = tmp_path / "results/smoke/toy/tables"
    tables.mkdir(parents=True)
    table = "results/smoke/toy/tables/fig1.csv"
    (tmp_path / table).write_text("eps,mean\n0.5,1.25\n1.0,0.75\n")
    record = tables / "laplace.provenance.json"
    record.write_text(json.dumps({"tables": [table], "sha256": {table: file_sha256(table)}}))
    stamp = "results/smoke/toy/tables/laplace.checked"
    write_check_stamp(record, stamp)
    return tmp_path / table, stamp


def _edit_keeping_mtime(path) -> None:
    st = os.stat(path)
    path.write_text(path.read_text().replace("1.25", "9.25"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_a_table_edited_after_its_check_is_refused_by_content(checked_table):
    table, stamp = checked_table
    tablecheck.verify_checked([stamp])  # as checked: the reader goes on
    mtime = os.stat(table).st_mtime_ns
    _edit_keeping_mtime(table)
    assert os.stat(table).st_mtime_ns == mtime  # nothing for Snakemake's rerun triggers to see
    with pytest.raises(TableChanged) as err:
        tablecheck.verify_checked([stamp])
    message = str(err.value)
    assert message.startswith("results/smoke/toy/tables/fig1.csv: its sha256") and stamp in message, message
    assert ("regenerate it with `snakemake toy_tables_laplace --cores 1 --forcerun toy_tables_laplace --configfile "
            "config/smoke.yaml more.yaml`") in message, message
    table.unlink()
    with pytest.raises(TableChanged, match="fig1.csv: missing"):
        tablecheck.verify_checked(stamp)


def test_every_figure_notebook_checks_its_tables_first(checked_table):
    """The notebooks all begin with pp.heading(snakemake) (tests/test_plotting.py): it runs the check."""
    from privopt import plotting as pp

    table, stamp = checked_table
    job = types.SimpleNamespace(params=types.SimpleNamespace(notebook="toy_fig9"), config={},
                                input={"table": str(table), "checked": [stamp]})
    _edit_keeping_mtime(table)
    with pytest.raises(TableChanged, match="fig1.csv: its sha256"):
        pp.heading(job)
