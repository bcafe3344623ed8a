"""The data sets the papers read: declarations, and the registry that finds them.

A data set is a :class:`Dataset`: raw files fetched once and verified (``fetch``), then parsed once into
the files the papers' instances read (``parse``).  It plugs in by existing: a package
``src/privopt/datasets/<name>/`` holds all of it, its declaration ``dataset.py`` defining ``DATASET`` whose
``name`` is ``<name>``, beside its fetch and parse steps and the reader of what it makes (for the Uber pickups:
``fetch.py``, ``parse.py``, ``reader.py``); an :class:`~privopt.pipeline.protocol.Instance` names the
data sets it reads (``datasets=("uber",)``) and its build receives each of their ``outputs`` by name.  The
workflow (``workflow/rules/data.smk``) plans the rules of the data sets that the registered papers' instances
read, and no other::

    resources/<name>/<check>/<raw file>, provenance.json     <name>_download   fetch(settings, files)
    resources/<name>/<check>/<output file>                   <name>_parse      parse(settings, files, provenance)
    logs/data/<check>/<name>_download.log, <name>_parse.log

``<check>`` (:attr:`Dataset.folder`, :meth:`Dataset.key`) names the check the data passes, known from the config
before anything is fetched (the Uber pickups: ``sha256-<16 hex>`` of a configured digest, ``canonical-<16 hex>``
otherwise), so a failed or different source only ever writes its own folder, and switching back plans nothing.
The results of the papers reading a data set lie under the same key, ``results/<scale>/<name>~<check>/``
(:func:`privopt.pipeline.protocol.data_namespace`), for the same reasons.

Like a paper's declaration, a data set's imports nothing heavy: ``fetch`` and ``parse`` are
``"module:function"`` strings imported only by the jobs that call them; the plain callables (``folder``,
``check``, ``describe``, ``provenance_rows``) run where the workflow plans and in the report's job.
"""

from __future__ import annotations

import html
import importlib
import pkgutil
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

__all__ = ["Dataset", "datasets", "dataset", "used_datasets", "dataset_outputs"]

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_FOLDER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_OUTPUT = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")

Settings = Mapping[str, Any]


def _default_rows(record: Mapping[str, Any]) -> list[tuple[str, str]]:
    rows = [("data source", f"<code>{html.escape(str(record.get('source', '—')))}</code>")]
    if isinstance(record.get("records"), int):
        rows.append(("data records", f"{record['records']:,}"))
    return rows


@dataclass(frozen=True)
class Dataset:
    """Raw data fetched once, verified, parsed once; what the instances of the papers read.

    * ``name``: a word: the folder ``resources/<name>/``, the rules ``<name>_download``
      and ``<name>_parse``, what an :class:`~privopt.pipeline.protocol.Instance` lists in ``datasets``.
    * ``title``: what it is, in words, for the report ("the April 2014 Uber pickups").
    * ``fetch``: ``"module:function"``, ``fetch(settings, files) -> provenance`` writes each of ``raw``
      (``files``: raw file name → path) and returns a JSON-able record: at least ``source`` (where the data
      came from), best ``records`` (an int) and the digests it checked.  It raises when the data fail their
      check, naming the source and both values; the workflow writes the record to ``provenance.json``.
    * ``parse``: ``"module:function"``, ``parse(settings, files, provenance) -> {output name: DataFrame | dict}``,
      one object per name of ``outputs``, written by the file's suffix (``.parquet``, ``.csv``, ``.json``).
    * ``raw``: the file names ``fetch`` writes; ``outputs``: output name → file name of what ``parse`` writes.
      Each instance reading the data set receives ``inputs[output name] = path``, so output names are
      distinct over all data sets.
    * ``config_keys``: the top-level config keys it reads (``settings`` is exactly these, taken from the config
      when the job runs: not params, so that once the data of a check is there, where it came from does not
      rerun anything).  They are validated by the data set's own schema,
      ``workflow/schemas/datasets/<name>.schema.yaml`` (merged into the workflow's by privopt.pipeline.config).
    * ``folder(settings) -> str``: the name of the check the data passes (``resources/<name>/<folder>/``).
    * ``check(settings) -> [(key, problem)]``: what the schema cannot express (a local source that does not
      exist); the workflow refuses to start, naming the key and the file that set it.
    * ``describe(record) -> str``: the data in a few words, for the report's first line ("a subset of the
      April 2014 Uber file (99,997 records)"); ``provenance_rows(record) -> [(heading, HTML)]``: its rows of the
      report's provenance table (escape what you interpolate: :func:`html.escape`).
    """

    name: str
    title: str
    fetch: str
    parse: str
    raw: tuple[str, ...]
    outputs: Mapping[str, str]
    config_keys: tuple[str, ...] = ()
    folder: Callable[[Settings], str] = lambda settings: "data"
    check: Callable[[Settings], Iterable[tuple[str, str]]] = lambda settings: ()
    describe: Callable[[Mapping[str, Any]], str] | None = None
    provenance_rows: Callable[[Mapping[str, Any]], list[tuple[str, str]]] = _default_rows

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"data set name {self.name!r} must be a word (letters, digits, _)")
        for ref in (self.fetch, self.parse):
            if ":" not in ref:
                raise ValueError(f"data set {self.name}: {ref!r} is not of the form 'module:function'")
        files = [*self.raw, "provenance.json", *self.outputs.values()]
        if len(set(files)) != len(files) or any("/" in f for f in files):
            raise ValueError(f"data set {self.name}: its raw and output file names must be distinct plain names "
                             f"(provenance.json is the fetch's record), got {files}")
        bad = [o for o in self.outputs if not _OUTPUT.match(o)]
        if bad or not self.outputs:
            raise ValueError(f"data set {self.name}: output names must be words, got {list(self.outputs)}")

    # ------------------------------------------------------------------ what the workflow derives

    def settings(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """The config values it reads (exactly ``config_keys``)."""
        missing = [k for k in self.config_keys if k not in config]
        if missing:
            raise KeyError(f"data set {self.name} reads the config keys {missing}, which the config lacks "
                           f"(declare them in workflow/schemas/datasets/{self.name}.schema.yaml)")
        return {k: config[k] for k in self.config_keys}

    def key(self, config: Mapping[str, Any]) -> str:
        """The name of the check the data of this config pass (``folder``): the content key of the data, which
        names their folder here and the namespace of the results made from them
        (:func:`privopt.pipeline.protocol.data_namespace`)."""
        check = self.folder(self.settings(config))
        if not isinstance(check, str) or not _FOLDER.match(check):
            raise ValueError(f"data set {self.name}: folder {check!r} must be a plain name")
        return check

    def folder_of(self, config: Mapping[str, Any]) -> str:
        """``resources/<name>/<check>``: where the verified data of this config lie."""
        return f"resources/{self.name}/{self.key(config)}"

    def raw_files(self, config: Mapping[str, Any]) -> dict[str, str]:
        return {f: f"{self.folder_of(config)}/{f}" for f in self.raw}

    def provenance_file(self, config: Mapping[str, Any]) -> str:
        return f"{self.folder_of(config)}/provenance.json"

    def output_files(self, config: Mapping[str, Any]) -> dict[str, str]:
        """Output name → path of the parsed files."""
        return {o: f"{self.folder_of(config)}/{f}" for o, f in self.outputs.items()}

    def log_file(self, config: Mapping[str, Any], step: str) -> str:
        """``logs/data/<check>/<name>_<step>.log`` (``step``: ``download`` or ``parse``)."""
        return f"logs/data/{self.folder_of(config).rsplit('/', 1)[1]}/{self.name}_{step}.log"

    def retrieve(self, settings: Settings, files: Mapping[str, str]) -> dict[str, Any]:
        """The fetch step (imports ``fetch``): writes ``files`` (raw file name → path), returns the record."""
        from privopt.pipeline.protocol import resolve

        provenance = resolve(self.fetch)(settings, dict(files))
        if not isinstance(provenance, Mapping) or "source" not in provenance:
            raise ValueError(f"data set {self.name} ({self.fetch}) must return its provenance record, a mapping "
                             f"with at least 'source'; got {provenance!r}")
        return dict(provenance)

    def make(self, settings: Settings, files: Mapping[str, str], provenance: Mapping[str, Any]) -> dict[str, Any]:
        """The parse step (imports ``parse``); checks it returns exactly ``outputs``."""
        from privopt.pipeline.protocol import resolve

        made = resolve(self.parse)(settings, dict(files), provenance)
        if set(made) != set(self.outputs):
            raise ValueError(f"data set {self.name} ({self.parse}) returned {sorted(made)}; it declares "
                             f"{sorted(self.outputs)}")
        return made

    def summary(self, record: Mapping[str, Any] | None) -> str:
        """The data in a few words (``describe``, else the title and the record count)."""
        if self.describe is not None and record:
            return self.describe(record)
        n = (record or {}).get("records")
        return f"{self.title} ({n:,} records)" if isinstance(n, int) else self.title


# ----------------------------------------------------------------------------- the registry


@cache
def datasets() -> dict[str, Dataset]:
    """Every declared data set by name (the ``dataset`` module of each package ``privopt.datasets.<name>``), in
    name order.  A plain module there is refused: a data set's code lives in its package, beside its declaration."""
    import privopt.datasets as package

    found: dict[str, Dataset] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        if not info.ispkg:
            raise TypeError(f"{package.__name__}.{info.name} is a module; a data set is a package "
                            f"src/privopt/datasets/{info.name}/ whose dataset.py defines DATASET = Dataset(...)")
        try:
            module = importlib.import_module(f"{package.__name__}.{info.name}.dataset")
        except ModuleNotFoundError as err:
            if err.name == f"{package.__name__}.{info.name}.dataset":
                raise TypeError(f"src/privopt/datasets/{info.name}/ has no dataset.py defining "
                                f"DATASET = Dataset(...)") from None
            raise
        declared = getattr(module, "DATASET", None)
        if not isinstance(declared, Dataset):
            raise TypeError(f"{module.__name__} must define DATASET = Dataset(...)")
        if declared.name != info.name:
            raise ValueError(f"{module.__name__} declares the data set {declared.name!r}; it must be its package "
                             f"name {info.name!r}")
        found[declared.name] = declared
    owners: dict[str, str] = {}
    for d in found.values():
        for output in d.outputs:
            if output in owners:
                raise ValueError(f"data sets {owners[output]} and {d.name} both have an output named {output!r}: an "
                                 f"instance receives its data by output name, so these must be distinct")
            owners[output] = d.name
    return found


def dataset(name: str) -> Dataset:
    try:
        return datasets()[name]
    except KeyError:
        raise KeyError(f"no declared data set {name!r} (src/privopt/datasets/{name}/dataset.py); declared: "
                       f"{', '.join(datasets()) or 'none'}") from None


def used_datasets(papers: Iterable[Any]) -> dict[str, Dataset]:
    """The data sets the instances of ``papers`` read, in name order (an unknown name fails, naming the
    paper and the instance)."""
    names: set[str] = set()
    for paper in papers:
        for inst in paper.instances:
            for name in inst.datasets:
                if name not in datasets():
                    raise KeyError(f"paper {paper.key}, instance {inst.name}: no declared data set {name!r} "
                                   f"(src/privopt/datasets/{name}/dataset.py); declared: {', '.join(datasets()) or 'none'}")
                names.add(name)
    return {name: datasets()[name] for name in sorted(names)}


def dataset_outputs(names: Iterable[str]) -> list[str]:
    """The output names of the data sets ``names``: the keys of the ``inputs`` an instance reading them gets."""
    return [o for name in names for o in dataset(name).outputs]
