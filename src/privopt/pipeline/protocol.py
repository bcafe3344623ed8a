"""The experiment protocol: what a paper declares once, and what the workflow derives from it.

A paper is a :class:`Paper`: its instances (built once from raw inputs), its experiments (parameter
points × seed blocks → run files → tables), its figures (a notebook each, reading tables) and its
claims (a function of tables).  The Snakemake workflow (``workflow/rules/papers.smk``), the cost
table (``benchmarks/paper_cost.py``), the SLURM job groups and the workflow tests loop over the
registered papers (:mod:`privopt.pipeline.registry`); nothing outside a paper's own files names it.

What a run depends on is a *whitelist*: :attr:`Experiment.settings` returns exactly the config values
that one run job reads besides its parameter point and seeds, so that editing any other key (a grid,
a plot option, ``n_runs``) plans no run job.  The heavy functions (run, tables, instance, claims) are
referenced as ``"module:function"`` strings, so that declaring a paper imports nothing but this module
and the paper's cost model; the workflow digests the source those modules import
(:mod:`privopt.codedigest`) so a library change reruns exactly the jobs that use it.

Paths are fixed by convention (a reader of ``results/`` needs no key).  Every result lies under the
*namespace* of the scale that made it, ``results/<scale>`` (:func:`results_root`), so a quick run never
overwrites or deletes a paper-scale one; the results of a paper that reads data sets lie further under the
check each data set's data passed, ``<root>`` = ``results/<scale>/<data set>~<check>`` (``+``-joined in name
order for several: :func:`data_namespace`, :meth:`Paper.namespace`; the check is the name of the data's
folder, ``resources/<data set>/<check>/``), so results of other data never replace (nor, failing, delete)
them, and switching the data back finds them again; a paper without data has ``<root>`` = ``results/<scale>``.
Run files sit further under the digest of the settings they read (:func:`settings_key`), so a run of another
configuration never replaces (nor, failing, deletes) a good one, and switching a setting back finds its runs
again::

    <root>/<paper>/instances/<instance>/<file>
    <root>/<paper>/runs/<experiment>/<key>~<value>/…/settings~<digest>/seeds~<a>-<b>.parquet
    <root>/<paper>/tables/<table file>                (+ <experiment>.provenance.json: settings, sha256)
    <root>/figures/<paper>/<figure>.{pdf,png}         workflow/notebooks/<paper>_<figure>.py.ipynb
    <root>/claims/<paper>.csv                         .snakemake/report-captions/<paper>_<figure|claims>.rst
    results/<scale>/audit/<paper>.csv                 (the privacy audits of its mechanisms: they read no data)
    logs/<scale>/…                                    (each job's log, executed notebooks: under the same
                                                       data namespace as the results, logs/<scale>/<data>/…)
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from privopt.pipeline.errors import ConfigError

__all__ = [
    "ConfigError",
    "Instance",
    "Experiment",
    "Prefix",
    "Table",
    "Figure",
    "Reported",
    "Claims",
    "Finding",
    "Paper",
    "RunJob",
    "format_value",
    "point_path",
    "seed_blocks",
    "seeds_of",
    "resolve",
    "ref_module",
    "results_root",
    "logs_root",
    "settings_key",
    "data_namespace",
    "RESULTS",
]

Section = Mapping[str, Any]
Point = dict[str, Any]

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_VALUE = re.compile(r"^[A-Za-z0-9_.+-]+$")
#: path keys the layout itself uses (a parameter point cannot use them)
_RESERVED = ("block", "settings")

#: the results folder of no particular scale (what the path methods use when given no root)
RESULTS = "results"
#: where the workflow writes the ``snakemake --report`` captions it generates from the declarations (git-ignored)
CAPTIONS = ".snakemake/report-captions"


def results_root(scale: str) -> str:
    """The namespace of a scale's results: ``results/<scale>``.

    >>> results_root("quick"), results_root("paper")
    ('results/quick', 'results/paper')
    """
    if not re.match(r"^[A-Za-z][A-Za-z0-9_-]*$", scale):
        raise ValueError(f"scale {scale!r} must be a word (letters, digits, - and _: it names the results folder)")
    return f"{RESULTS}/{scale}"


def logs_root(scale: str) -> str:
    """Where the jobs of a scale write their logs: ``logs/<scale>``."""
    return f"logs/{results_root(scale).split('/', 1)[1]}"


_CHECK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def data_namespace(root: str, checks: Mapping[str, str]) -> str:
    """The namespace under ``root`` of the results made from the data sets ``checks`` (data set name → the
    check its data passed, the name of its folder ``resources/<name>/<check>/``): ``root`` itself when there
    are none, else ``<root>/<name>~<check>``, several joined by ``+`` in name order.  Data of another check
    gives another namespace, so their results never share a path.

    >>> data_namespace("results/quick", {})
    'results/quick'
    >>> data_namespace("results/quick", {"uber": "sha256-8dfd591402b260e2"})
    'results/quick/uber~sha256-8dfd591402b260e2'
    >>> data_namespace("logs/smoke", {"uber": "canonical-e8af4b8e0c4adb58", "census": "v2"})
    'logs/smoke/census~v2+uber~canonical-e8af4b8e0c4adb58'
    """
    for name, check in checks.items():
        if not _NAME.match(name) or not isinstance(check, str) or not _CHECK.match(check):
            raise ValueError(f"data set {name!r} with check {check!r}: a data namespace needs a word and a plain "
                             f"folder name (letters, digits, '.', '-', '_')")
    if not checks:
        return root
    return f"{root}/" + "+".join(f"{name}~{checks[name]}" for name in sorted(checks))


def settings_key(settings: Mapping[str, Any]) -> str:
    """The short digest (12 hex digits of the sha256 of the canonical JSON) of the settings one run job
    reads: the folder its run files lie in, so runs of different settings never share a path."""
    from privopt.pipeline.provenance import config_digest

    return config_digest(dict(settings))[:12]


# ----------------------------------------------------------------------------- paths and seeds


def format_value(value: Any) -> str:
    """Path form of a parameter value: exact and unique (floats by ``repr``: 0.123456789 stays whole).

    >>> [format_value(v) for v in (10, 0.1, 0.0, 1e-05, "pm1", True)]
    ['10', '0.1', '0.0', '1e-05', 'pm1', 'true']
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"a parameter point cannot hold {value!r}")
        return repr(value)
    if isinstance(value, str) and _VALUE.match(value):
        return value
    raise ValueError(f"cannot put {value!r} ({type(value).__name__}) in a path; use ints, floats or words")


def point_path(point: Mapping[str, Any]) -> str:
    """``key~value/key~value`` for a parameter point ('' for the single point of an experiment without grid)."""
    return "/".join(f"{k}~{format_value(v)}" for k, v in point.items())


def seed_blocks(n_runs: int, per_job: int) -> list[str]:
    """Seed blocks ``a-b`` (inclusive) covering seeds 0..n_runs-1, ``per_job`` seeds each."""
    if n_runs < 1 or per_job < 1:
        raise ValueError(f"need n_runs >= 1 and per_job >= 1, got {n_runs}, {per_job}")
    return [f"{a}-{min(a + per_job, n_runs) - 1}" for a in range(0, n_runs, per_job)]


def seeds_of(block: str) -> list[int]:
    a, b = (int(x) for x in block.split("-"))
    return list(range(a, b + 1))


def resolve(ref: str) -> Callable:
    """The function a ``"package.module:function"`` reference names (imported on first use)."""
    module, _, name = ref.partition(":")
    if not name:
        raise ValueError(f"reference {ref!r} is not of the form 'module:function'")
    return getattr(importlib.import_module(module), name)


def ref_module(ref: str) -> str:
    return ref.partition(":")[0]


def _expect_keys(what: str, made: Mapping[str, Any], expected: Sequence[str]) -> None:
    if set(made) != set(expected):
        raise ValueError(f"{what} returned {sorted(made)}; it declares {sorted(expected)}")


# ----------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Instance:
    """What several runs share, built once from raw inputs (e.g. the pickups inside a box).

    ``build(name, settings, inputs) -> {file name: DataFrame | dict}`` writes ``outputs``; ``inputs`` maps
    each output of the data sets it reads (``datasets``, names of :mod:`privopt.pipeline.datasets`
    declarations) to its path: ``datasets=("uber",)`` gives ``inputs["pickups"]``, the parsed Uber table.
    """

    name: str
    build: str
    outputs: tuple[str, ...]
    settings: Callable[[Section], dict] = lambda section: {}
    datasets: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.datasets, str):
            raise TypeError(f"instance {self.name}: datasets is a tuple of names, e.g. ({self.datasets!r},)")

    def make(self, settings: Mapping[str, Any], inputs: Mapping[str, str]) -> dict[str, Any]:
        """Build the instance (imports ``build``) and check it returns exactly ``outputs``."""
        made = resolve(self.build)(self.name, settings, inputs)
        _expect_keys(f"instance {self.name} ({self.build})", made, self.outputs)
        return made


@dataclass(frozen=True)
class Table:
    """An aggregated table of an experiment: its file name (``.csv`` or ``.parquet``) and CSV float format.

    ``thin``: in the committed reference results (:mod:`privopt.pipeline.reference_results`) a curve keeps every
    ``thin``-th value of its column ``along`` (and the first and last): what a figure can show, within the
    size budget of the references.  1 keeps every row.  ``max_points``: at most about this many values of
    ``along`` whatever the horizon (the thinning grows with it: a run 25 times longer is thinned 25 times
    more); None: ``thin`` alone.
    """

    file: str
    float_format: str = "%.10g"
    thin: int = 1
    along: str = "t"
    max_points: int | None = None

    def thin_for(self, n_values: int) -> int:
        """The thinning of a table whose column ``along`` has ``n_values`` distinct values.

        >>> Table("c.csv", thin=4, max_points=100).thin_for(400), Table("c.csv", thin=4, max_points=100).thin_for(10_000)
        (4, 100)
        """
        if self.max_points is None or n_values <= self.max_points * self.thin:
            return self.thin
        return -(-n_values // self.max_points)

    @property
    def stem(self) -> str:
        return self.file.rsplit(".", 1)[0]


@dataclass(frozen=True)
class Prefix:
    """How ``verify`` checks a run job too long for its time budget: it recomputes the job's first ``rounds``
    rounds for one of its seeds and compares them with the stored run's rows at rounds ≤ ``rounds`` (a run of an
    online learner is the exact prefix of a longer run with the same constants).

    * ``run``: ``"module:function"``, ``run(experiment, point, settings, seeds, inputs, rounds) -> {output: DataFrame}``
      (``experiment``: the :class:`Experiment` it belongs to, as for every callback): the
      rows the full job writes at rounds ≤ ``rounds`` (for every output of the experiment), computed on those rounds
      only (the full horizon's constants, records and audited rounds).
    * ``horizon(settings)``: the rounds of the full job; ``step(settings)``: ``rounds`` must be a multiple of it
      (the recording interval, so the prefix records the full run's rounds).
    * ``column``: the round column of every output; ``seed_column``: the seed column.
    * ``totals``: columns holding end-of-run values (a count over the whole run), which a prefix cannot reproduce:
      compared nowhere, and said so.
    """

    run: str
    horizon: Callable[[Mapping[str, Any]], int]
    step: Callable[[Mapping[str, Any]], int] = lambda settings: 1
    column: str = "t"
    seed_column: str = "seed"
    totals: tuple[str, ...] = ()


@dataclass(frozen=True)
class Experiment:
    """Parameter points × seed blocks of one algorithm comparison, and how its runs become tables.

    * ``points(section)``: the parameter points, in order; each a dict whose keys are the path keys.
    * ``settings(section, point)``: exactly the config values one run job reads (the whitelist).
    * ``seeds(section)``: ``(n_runs, seeds_per_job)``.
    * Most of these only pick config values by key: :mod:`privopt.pipeline.section_readers` declares them
      (``grid``, ``reads``, ``subsection``, ``seeds_from``, ``one_point``, ``one_seed``); a plain function where
      the shape is the paper's own.
    * Every callback takes the :class:`Experiment` itself first (its ``name``, ``outputs``, ``table_files``), so
      one function can serve several experiments of one shape without a wrapper per experiment.
    * ``run``: ``"module:function"``, ``run(experiment, point, settings, seeds, inputs) -> {output: DataFrame}``
      with one frame per name of ``outputs`` (``{"runs": ""}``; e.g. ``"audit": ".audit"`` adds
      ``seeds~a-b.audit.parquet``); ``inputs`` maps each name of ``instances`` to its directory.
    * ``tables``: ``"module:function"``, ``tables(experiment, frames, settings) -> {table stem: DataFrame}`` where
      ``frames`` maps each output name to the concatenated run frames; ``table_settings(section)``
      is its whitelist; ``table_files`` the tables it writes.
    * ``cost(experiment, settings, point, n_seeds) -> seconds`` and ``data_mb(...) -> MB`` (optional): the
      paper's cost model, one function for all its experiments, called with the experiment itself
      (:func:`privopt.pipeline.cost.job_seconds`, :func:`privopt.pipeline.cost.job_data_mb`): the SLURM
      runtime, memory and job grouping of each run job; without them a generic allowance is used.
    * ``prefix`` (optional, :class:`Prefix`): how ``verify`` recomputes a prefix of a job too long to recompute whole.
    * ``point_runs(section, point) -> n_runs`` (optional): the runs of one point where a configuration
      gives points different numbers (a reference computed in parts holds fewer runs at its dearest
      points until all are in); seeds 0…n−1 of that point, in the same blocks.  Default: ``seeds(section)[0]``.
    """

    name: str
    label: str
    points: Callable[[Section], list[Point]]
    settings: Callable[[Section, Point], dict]
    seeds: Callable[[Section], tuple[int, int]]
    run: str
    tables: str
    table_files: tuple[Table, ...]
    table_settings: Callable[[Section], dict] = lambda section: {}
    outputs: Mapping[str, str] = field(default_factory=lambda: {"runs": ""})
    instances: tuple[str, ...] = ()
    cost: Callable[["Experiment", dict, Point, int], float] | None = None
    data_mb: Callable[["Experiment", dict, Point, int], float] | None = None
    point_runs: Callable[[Section, Point], int] | None = None
    prefix: Prefix | None = None

    def runs_at(self, section: Section, point: Point) -> int:
        """How many runs (seeds 0…n−1) the configuration asks of ``point``."""
        return int(self.point_runs(section, point) if self.point_runs else self.seeds(section)[0])

    def execute(self, point: Point, settings: Mapping[str, Any], seeds: Sequence[int],
                inputs: Mapping[str, str]) -> dict[str, Any]:
        """One run job (imports ``run``); checks it returns a frame for exactly the names of ``outputs``."""
        frames = resolve(self.run)(self, point, settings, list(seeds), inputs)
        _expect_keys(f"experiment {self.name} ({self.run})", frames, tuple(self.outputs))
        return frames

    def execute_prefix(self, point: Point, settings: Mapping[str, Any], seeds: Sequence[int],
                       inputs: Mapping[str, str], rounds: int) -> dict[str, Any]:
        """The first ``rounds`` rounds of one run job (:class:`Prefix`); the same checks as :meth:`execute`."""
        if self.prefix is None:
            raise ValueError(f"experiment {self.name} declares no prefix: its jobs can only be recomputed whole")
        frames = resolve(self.prefix.run)(self, point, settings, list(seeds), inputs, int(rounds))
        _expect_keys(f"experiment {self.name} ({self.prefix.run})", frames, tuple(self.outputs))
        return frames

    def make_tables(self, frames: Mapping[str, Any], settings: Mapping[str, Any]) -> dict[str, Any]:
        """The experiment's tables (imports ``tables``); checks it returns exactly ``table_files``."""
        made = resolve(self.tables)(self, frames, settings)
        _expect_keys(f"experiment {self.name} ({self.tables})", made, tuple(t.stem for t in self.table_files))
        return made

    def point_keys(self, section: Section) -> tuple[str, ...]:
        points = self.points(section)
        keys = tuple(points[0]) if points else ()
        for p in points:
            if tuple(p) != keys:
                raise ValueError(f"experiment {self.name}: every point must have the keys {keys}, got {tuple(p)}")
        for k in keys:
            if not _NAME.match(k) or k in _RESERVED:
                raise ValueError(f"experiment {self.name}: point key {k!r} cannot be a path key")
        return keys


@dataclass(frozen=True)
class Figure:
    """One figure: a notebook reading tables (``inputs``: notebook name → table stem) with ``params``.

    ``caption``: our description of the figure (what is drawn, from which runs and settings), written here
    once: ``snakemake --report`` shows it followed by "Original caption: …" (:meth:`Paper.caption_text`).
    It may name config values as ``{{ snakemake.config["<paper>"]["<key>"] }}``, filled in by Snakemake's
    report (Jinja).
    """

    id: str
    title: str
    original_caption: str
    inputs: Mapping[str, str]
    params: Callable[[Section], dict] = lambda section: {}
    caption: str = ""


@dataclass(frozen=True)
class Reported:
    """A number a paper reports about one of its figures (stated in its text or read off the figure), and the
    same quantity measured here, which the report shows beside it ("the paper beside us").

    ``figure``: the id of the figure; ``quantity``: what is compared, in words; ``paper``: the paper's value as
    it gives it ("roughly 2"); ``where``: where the paper gives it, in our words ("App. D.1, on Figure 3");
    ``measure(tables) -> str``: the value here, from the figure's tables (its ``inputs`` names → DataFrames),
    short, with its units and which reading or setting it is for."""

    figure: str
    quantity: str
    paper: str
    where: str
    measure: Callable[[Mapping[str, Any]], str]


@dataclass(frozen=True)
class Finding:
    """One sentence a reader of the report must not miss, computed from the tables (not written by hand);
    ``figure``: the id of the figure it is about ('' for the paper as a whole)."""

    text: str
    figure: str = ""


@dataclass(frozen=True)
class Claims:
    """The paper's claims: ``evaluate(tables, settings) -> list[Claim]`` over the table stems ``inputs``.

    ``findings`` (optional): ``"module:function"``, ``findings(tables, claims, settings) -> [Finding]`` over
    the same tables and settings, ``claims`` the evaluated claims table (``results/claims/<paper>.csv``);
    the report shows them at the top.  None: the function ``findings`` of the ``evaluate`` module, if it
    defines one (otherwise the paper has none).
    """

    evaluate: str
    inputs: tuple[str, ...]
    settings: Callable[[Section], dict] = lambda section: {}
    findings: str | None = None
    #: what the claims table holds, for ``snakemake --report`` (like :attr:`Figure.caption`)
    caption: str = ""

    def run(self, tables: Mapping[str, Any], settings: Mapping[str, Any]) -> list:
        """Every claim (imports ``evaluate``) as a list of :class:`privopt.pipeline.claims.Claim`."""
        return list(resolve(self.evaluate)(tables, settings))

    @property
    def findings_ref(self) -> str:
        """The findings function's reference (the default one may not exist: see :meth:`find`)."""
        return self.findings if self.findings is not None else f"{ref_module(self.evaluate)}:findings"

    def find(self, tables: Mapping[str, Any], claims: Any, settings: Mapping[str, Any]) -> list[Finding]:
        """The paper's findings (imports the findings module); [] when it declares none."""
        if self.findings is None:
            fn = getattr(importlib.import_module(ref_module(self.evaluate)), "findings", None)
            if fn is None:
                return []
        else:
            fn = resolve(self.findings)
        found = [Finding(f) if isinstance(f, str) else f for f in fn(tables, claims, settings)]
        bad = [f for f in found if not isinstance(f, Finding) or not f.text.strip()]
        if bad:
            raise TypeError(f"{self.findings_ref} must return Finding objects (or sentences) with text, got {bad!r}")
        return found


@dataclass(frozen=True)
class RunJob:
    """One run job: a parameter point and a block of seeds."""

    experiment: str
    point: Point
    block: str

    @property
    def seeds(self) -> list[int]:
        return seeds_of(self.block)


@dataclass(frozen=True)
class Paper:
    """Everything the workflow, the report and the cost table need to know about one paper."""

    key: str
    title: str
    authors: str
    venue: str
    short: str
    experiments: tuple[Experiment, ...]
    figures: tuple[Figure, ...]
    claims: Claims
    instances: tuple[Instance, ...] = ()
    check: Callable[[Section], None] = lambda section: None
    #: black-box privacy audits of the paper's mechanisms: ``"module:function"`` references to functions
    #: returning lists of :class:`privopt.audit.Audit` (run by the ``<paper>_audit`` rule)
    audits: tuple[str, ...] = ()
    #: "experimental" (the paper has figures: a reproduction can reproduce it) or "theory" (no experiments:
    #: the figures here illustrate its theorems, and the report says so)
    kind: str = "experimental"
    #: ``scale_label(section) -> str``: what a run of this configuration is, in words ("Fig. 5: 30 runs on
    #: 10^7-round prefixes of the 5·10^7-round runs"), for the reference manifest; None: the generic one
    #: (:func:`privopt.pipeline.reference_results.describe_scale`: points × runs per experiment)
    scale_label: Callable[[Section], str] | None = None
    #: how far, in units of the last place, ``snakemake verify_<paper>`` lets a recomputed float differ from
    #: the reference's: 0 (bit for bit) unless the paper's runs sum through BLAS, whose summation order
    #: depends on the CPU's kernel (then say why where the paper sets it)
    verify_ulps: int = 0
    #: the repository page that records how the paper was read — every ambiguity the implementation resolved
    #: and how, as numbered entries that code cites as "<key> reading Rn" (tests/test_readings.py checks them);
    #: a path inside the repository, relative to its root.  Empty: ``docs/papers/<key>.md``
    reading: str = ""
    #: what its figures here are, in a few words: the "figures" cell of the README's paper table
    #: (:mod:`privopt.pipeline.doctables`), e.g. "Figs 1–2, Uber pickups"
    summary: str = ""
    #: ``"module:NAME"``, a mapping algorithm name → :class:`privopt.plotting.palette.AlgoStyle` of the algorithms
    #: its figures draw, collected into the project's palette (one style per name across the project); "" if its
    #: figures draw only shared styles
    styles: str = ""
    #: ``"module:NAME"``, a sequence of :class:`Reported`: what the paper reports about its figures, shown by the
    #: report beside the same quantities measured on the reference's tables and this run's; "" if it reports none
    reported: str = ""

    def __post_init__(self) -> None:
        if not _NAME.match(self.key):
            raise ValueError(f"paper key {self.key!r} must be a word")
        if self.reading.startswith("/") or ".." in self.reading.replace("\\", "/").split("/"):
            raise ValueError(f"paper {self.key}: reading must name a page inside the repository, relative to its root, "
                             f"got {self.reading!r}")
        if self.kind not in ("experimental", "theory"):
            raise ValueError(f"paper {self.key}: kind must be 'experimental' or 'theory', got {self.kind!r}")
        for kind, names in (("experiment", [e.name for e in self.experiments]), ("figure", [f.id for f in self.figures]),
                            ("instance", [i.name for i in self.instances])):
            bad = [n for n in names if not _NAME.match(n)]
            if bad or len(set(names)) != len(names):
                raise ValueError(f"paper {self.key}: {kind} names must be distinct words, got {names}")
        stems = [t.stem for e in self.experiments for t in e.table_files]
        if len(set(stems)) != len(stems):
            raise ValueError(f"paper {self.key}: two experiments write a table of the same name: {stems}")
        known = set(stems)
        for fig in self.figures:
            missing = set(fig.inputs.values()) - known
            if missing:
                raise ValueError(f"paper {self.key}, figure {fig.id}: no experiment writes the tables {sorted(missing)}")
        if set(self.claims.inputs) - known:
            raise ValueError(f"paper {self.key}: claims read tables no experiment writes: {set(self.claims.inputs) - known}")
        instances = {i.name for i in self.instances}
        for e in self.experiments:
            if set(e.instances) - instances:
                raise ValueError(f"paper {self.key}, experiment {e.name}: unknown instances {set(e.instances) - instances}")

    @property
    def reading_page(self) -> str:
        """The page recording how the paper was read (:attr:`reading`, else ``docs/papers/<key>.md``)."""
        return self.reading or f"docs/papers/{self.key}.md"

    # ------------------------------------------------------------------ lookups

    def experiment(self, name: str) -> Experiment:
        for e in self.experiments:
            if e.name == name:
                return e
        raise KeyError(f"paper {self.key} has no experiment {name!r}")

    def instance(self, name: str) -> Instance:
        for i in self.instances:
            if i.name == name:
                return i
        raise KeyError(f"paper {self.key} has no instance {name!r}")

    def figure(self, fid: str) -> Figure:
        for f in self.figures:
            if f.id == fid:
                return f
        raise KeyError(f"paper {self.key} has no figure {fid!r}")

    def table_owner(self, stem: str) -> tuple[Experiment, Table]:
        for e in self.experiments:
            for t in e.table_files:
                if t.stem == stem:
                    return e, t
        raise KeyError(f"paper {self.key} has no table {stem!r}")

    @property
    def datasets(self) -> tuple[str, ...]:
        """The data sets its instances read (in order of first use)."""
        return tuple(dict.fromkeys(d for i in self.instances for d in i.datasets))

    # ------------------------------------------------------------------ paths
    # ``root``: the paper's namespace (:meth:`namespace`: the scale's, :func:`results_root`, and the checks of
    # the data it reads); the workflow always passes it.

    def namespace(self, root: str, checks: Mapping[str, str]) -> str:
        """Where the results of this paper lie under the scale's ``root``: :func:`data_namespace` of the
        checks (data set name → check, for at least every data set it reads) of the data sets it reads;
        ``root`` itself when it reads none."""
        missing = [d for d in self.datasets if d not in checks]
        if missing:
            raise KeyError(f"paper {self.key} reads the data sets {missing}, whose checks are not given")
        return data_namespace(root, {d: checks[d] for d in self.datasets})

    def instance_file(self, instance: str, file: str, root: str = RESULTS) -> str:
        return f"{root}/{self.key}/instances/{instance}/{file}"

    def run_file(self, experiment: str, point: Mapping[str, Any], block: str, output: str = "runs",
                 root: str = RESULTS, settings: str | None = None) -> str:
        """A run file; ``settings``: the :func:`settings_key` of the settings the run reads (its folder)."""
        exp = self.experiment(experiment)
        where = "/".join(p for p in (point_path(point), f"settings~{settings}" if settings else "") if p)
        return f"{root}/{self.key}/runs/{experiment}/{where + '/' if where else ''}seeds~{block}{exp.outputs[output]}.parquet"

    def run_pattern(self, experiment: str, keys: Sequence[str], output: str = "runs", root: str = RESULTS) -> str:
        """The run file with Snakemake wildcards: one per point key, ``{settings}`` and ``{block}``."""
        exp = self.experiment(experiment)
        where = "/".join([*(f"{k}~{{{k}}}" for k in keys), "settings~{settings}"])
        return f"{root}/{self.key}/runs/{experiment}/{where}/seeds~{{block}}{exp.outputs[output]}.parquet"

    def table_file(self, stem: str, root: str = RESULTS) -> str:
        _, table = self.table_owner(stem)
        return f"{root}/{self.key}/tables/{table.file}"

    def figure_files(self, fid: str, root: str = RESULTS) -> dict[str, str]:
        return {ext: f"{root}/figures/{self.key}/{fid}.{ext}" for ext in ("pdf", "png")}

    def notebook(self, fid: str) -> str:
        return f"workflow/notebooks/{self.key}_{fid}.py.ipynb"

    def executed_notebook(self, fid: str, logs: str = "logs") -> str:
        return f"{logs}/notebooks/{self.key}_{fid}.ipynb"

    def notebook_page(self, fid: str, root: str = RESULTS) -> str:
        """The executed notebook rendered to HTML for reading (no job cell, no machine path)."""
        return f"{root}/notebooks/{self.key}/{fid}.html"

    def caption(self, name: str, folder: str = CAPTIONS) -> str:
        """The file of the ``snakemake --report`` caption of a figure (or of ``claims``), generated from the
        declaration (:meth:`caption_text`, :func:`privopt.pipeline.captions.write_captions`) into ``folder``."""
        return f"{folder}/{self.key}_{name}.rst"

    def caption_text(self, name: str) -> str:
        """The ``snakemake --report`` caption (reStructuredText with Jinja) of a figure: its :attr:`Figure.caption`
        and "Original caption: …"; of ``claims``: :attr:`Claims.caption`."""
        if name == "claims":
            return f"{self.claims.caption.strip()}\n"
        fig = self.figure(name)
        original = fig.original_caption.strip()
        original = original if original.startswith("(") else f'"{original}"'
        return f"{fig.caption.strip()}\n\nOriginal caption: {original}\n"

    def provenance_file(self, experiment: str, root: str = RESULTS) -> str:
        """The provenance record the tables job of ``experiment`` writes beside its tables."""
        return f"{root}/{self.key}/tables/{self.experiment(experiment).name}.provenance.json"

    def checked_file(self, experiment: str, root: str = RESULTS) -> str:
        """The stamp saying the tables of ``experiment`` still have the sha256 their provenance records
        (every rule that reads a table takes it as input: a table edited by hand fails there)."""
        return f"{root}/{self.key}/tables/{self.experiment(experiment).name}.checked"

    def claims_file_at(self, root: str = RESULTS) -> str:
        return f"{root}/claims/{self.key}.csv"

    def audit_file_at(self, root: str = RESULTS) -> str | None:
        """The paper's audit table (None when it declares no audit)."""
        return f"{root}/audit/{self.key}.csv" if self.audits else None

    @property
    def claims_file(self) -> str:
        return self.claims_file_at()

    @property
    def audit_file(self) -> str | None:
        return self.audit_file_at()

    def metadata(self, root: str = RESULTS, logs: str = "logs", audit_root: str | None = None) -> dict[str, Any]:
        """What the report shows of the paper: citation, per figure its caption, files and experiments, the
        tables its claims (and findings) read, and the provenance record of each experiment's tables
        (``root``, ``logs``: the paper's namespaces; ``audit_root``: the scale's, where its audits lie, since
        they read no data; default ``root``)."""
        return {
            "key": self.key, "title": self.title, "authors": self.authors, "venue": self.venue,
            "reading": self.reading_page, "short": self.short, "kind": self.kind, "datasets": list(self.datasets), "claims": self.claims_file_at(root),
            "audit": self.audit_file_at(root if audit_root is None else audit_root),
            "figures": [{"id": f.id, "title": f.title, "original_caption": f.original_caption, "caption": f.caption,
                         "image": self.figure_files(f.id, root)["png"], "pdf": self.figure_files(f.id, root)["pdf"],
                         "tables": [self.table_file(stem, root) for stem in f.inputs.values()],
                         "experiments": list(dict.fromkeys(self.table_owner(stem)[0].name for stem in f.inputs.values())),
                         "notebook": self.executed_notebook(f.id, logs), "target": f"{self.key}_{f.id}"}
                        for f in self.figures],
            "claims_tables": {stem: self.table_file(stem, root) for stem in self.claims.inputs},
            "provenance": {e.name: self.provenance_file(e.name, root) for e in self.experiments},
        }

    def readers_of(self, stems: Sequence[str]) -> list[str]:
        """The experiments whose tables ``stems`` are (in declaration order)."""
        return list(dict.fromkeys(self.table_owner(stem)[0].name for stem in stems))

    # ------------------------------------------------------------------ jobs

    def run_jobs(self, section: Section, experiment: str | None = None) -> Iterator[RunJob]:
        """Every run job of the configuration (points in config order, then seed blocks)."""
        for exp in self.experiments:
            if experiment is not None and exp.name != experiment:
                continue
            per_job = int(exp.seeds(section)[1])
            seen: dict[str, Point] = {}
            for point in exp.points(section):
                where = point_path(point)
                if where in seen:
                    raise ConfigError(f"config key {self.key}.{exp.name}: the points {seen[where]} and {point} share the path {where!r}")
                seen[where] = point
                for block in seed_blocks(exp.runs_at(section, point), per_job):
                    yield RunJob(exp.name, point, block)
