# Helpers shared by the rule files (config validation, the paper registry, parameter points and seed
# blocks, code digests, job resources).  No rules here, and nothing that names one paper: every paper
# is a privopt.experiments.<key> package declaring a Paper (src/privopt/pipeline/protocol.py).

import functools
import json
import os
import sys
from pathlib import Path


# Jobs import the privopt library of this checkout, whichever environment runs them (a venv with
# privopt installed, a --use-conda env, a cluster node); so does this parse.
# (First on the path, also when an installed privopt or a PYTHONPATH entry points at another checkout.)
_src = str(Path(workflow.basedir) / "src")
os.environ.update(PYTHONPATH=os.pathsep.join(p for p in [_src, os.environ.get("PYTHONPATH", "")] if p))
sys.path[:] = [_src] + [p for p in sys.path if p != _src]

# Every job sums through the same OpenBLAS kernel family (Haswell where the CPU has AVX2 and FMA; a value the
# user sets is kept), so rows that go through BLAS are the same bits on every such CPU (privopt.pipeline.blas).
from privopt.pipeline.blas import pin_openblas

pin_openblas()

from privopt.pipeline import cost as run_cost
from privopt.pipeline import costguard
from privopt.pipeline import tablecheck
from privopt.codedigest import code_digest, module_digests, notebook_imports
from privopt.pipeline.config import ConfigSources, load_config, paper_parts
from privopt.pipeline.protocol import ConfigError, logs_root, point_path, ref_module, results_root, seeds_of
from privopt.pipeline.protocol import data_namespace, settings_key
from privopt.pipeline.reference_results import reference_folder as reference_folder_of
from privopt.pipeline.pending import MANIFEST as PENDING_MANIFEST, pending_folder, select_jobs
from privopt.pipeline.registry import papers
from privopt.pipeline.captions import write_captions
from privopt.pipeline.protocol import CAPTIONS
from privopt.pipeline.datasets import used_datasets
from privopt.pipeline.provenance import file_sha256

PAPERS = papers()
# The captions of `snakemake --report` (report(caption=...) needs a file now), generated from the papers'
# declarations (Figure.caption, Claims.caption; privopt.pipeline.captions) into a git-ignored folder.
REPORT_CAPTIONS = write_captions(PAPERS.values(), CAPTIONS)
# The data sets the registered papers' instances read (privopt.pipeline.datasets; rules in data.smk).
DATASETS = used_datasets(PAPERS.values())


# ----------------------------------------------------------------------------- data sets
# (privopt.pipeline.datasets; rules in workflow/rules/data.smk)


def check_datasets():
    """Each used data set's own checks of the config keys it reads (a local source that does not exist)."""
    for data in DATASETS.values():
        for key, problem in data.check(data.settings(config)):
            raise ConfigError(f"config key {key} (set in {config_sources().origin((key,))}): {problem}")


def dataset_inputs(names):
    """The parsed files of the data sets ``names``, by output name (what an instance's build receives)."""
    return {output: path for name in names for output, path in DATASETS[name].output_files(config).items()}


def data_provenance(names):
    """The provenance records of the data sets ``names`` (in that order)."""
    return [DATASETS[name].provenance_file(config) for name in names]


# ----------------------------------------------------------------------------- config


# jsonschema imports rfc3987_syntax, when installed (jupyter pulls it in), only to check the "iri" formats,
# and that import builds its grammars: about 2.4 s on every Snakemake start (every dry run, every cluster
# job).  No schema of this workflow uses those formats, so it is left out; jsonschema then skips them.
if "jsonschema" not in sys.modules:
    sys.modules.setdefault("rfc3987_syntax", None)


@functools.cache
def config_files():
    """The config files Snakemake merged, lowest precedence first: the Snakefile's configfile, then each
    --configfile."""
    cli = [str(f) for f in workflow.config_settings.configfiles]
    return [str(f) for f in workflow.configfiles if str(f) not in cli] + cli


@functools.cache
def config_sources():
    """The config files (each followed by its papers' parts, config/<paper>/<file>) and the --config overrides: to
    say which of them set a key."""
    return ConfigSources(paper_parts(config_files(), PAPERS), workflow.config_settings.config)


def check_config():
    """Read and validate the config before any job is planned, as the benchmarks and the tests do
    (privopt.pipeline.config.load_config): the files Snakemake merged and the --config overrides, checked
    against the workflow's schema, then each paper's section against workflow/schemas/<paper>.schema.yaml
    (defaults filled in, numbers in scientific notation read as numbers), then each paper's cross-key
    checks, then each used data set's checks, then the number of run jobs it plans (counted, before
    Snakemake plans them: privopt.pipeline.costguard.check_plan) and the price of the audit jobs
    (costguard.check_audits).  Every error names the paper, the key
    path and the config file that set it."""
    loaded = load_config(config_files(), workflow.config_settings.config, papers=PAPERS, base=None,
                         schemas=Path(workflow.basedir) / "workflow/schemas")
    config.clear()
    config.update(loaded)
    check_datasets()
    costguard.check_plan(config, PAPERS, origin=config_sources().origin)
    costguard.check_audits(config, PAPERS, origin=config_sources().origin)
    known = {e.name for p in PAPERS.values() for e in p.experiments}
    unknown = [e for e in config["reference_part"] if e not in known]
    if unknown:
        raise ConfigError(f"reference_part ({config_sources().origin(('reference_part',))}): {', '.join(unknown)} "
                          f"is no experiment of any paper (experiments: {', '.join(sorted(known))})")


check_config()
# The config files given (in order) and the --config overrides, for the command a failed table check
# prints (privopt.pipeline.tablecheck): through the environment of the jobs, never a job parameter (a
# parameter is a rerun trigger).  Set by the snakemake the user started, not by the ones it spawns.
if not (workflow.remote_exec or workflow.subprocess_exec):
    tablecheck.export_sources(workflow.config_settings.configfiles, workflow.config_settings.config)

# Every result of this run lies under the namespace of its scale (results/<scale>/, logs/<scale>/), so
# switching scale never overwrites or deletes another scale's results (privopt.pipeline.protocol).
RESULTS = results_root(config["scale"])
LOGS = logs_root(config["scale"])

# The results of a paper that reads data sets lie further under the checks its data passed (the content keys
# that name their folders in resources/: Dataset.key), results/<scale>/<data set>~<check>/ (+-joined for
# several: privopt.pipeline.protocol.data_namespace), and so do its logs; a paper without data keeps
# results/<scale>/.  Switching the data never overwrites nor deletes the results of other data, and switching
# back finds them (nothing reruns).  The report, which reads every paper, lies under the checks of every data
# set read.  Privacy audits and the claims and figures of the committed references read no data: they stay in
# results/<scale>/.
DATA_KEYS = {name: data.key(config) for name, data in DATASETS.items()}
REPORT_ROOT = data_namespace(RESULTS, DATA_KEYS)
REPORT_LOGS = data_namespace(LOGS, DATA_KEYS)


def paper_root(paper):
    """The namespace of a paper's results: the scale's, and the checks of the data sets it reads."""
    return paper.namespace(RESULTS, DATA_KEYS)


def paper_logs(paper):
    """The namespace of a paper's logs (and executed notebooks), like :func:`paper_root`."""
    return paper.namespace(LOGS, DATA_KEYS)


def data_params(names):
    """The checks of the data sets ``names`` (a job parameter: what it reads of the data, by content)."""
    return {name: DATA_KEYS[name] for name in sorted(names)}


def experiment_data(paper, exp):
    """The data sets the runs of ``exp`` read (through its instances)."""
    return sorted({d for name in exp.instances for d in paper.instance(name).datasets})


# ----------------------------------------------------------------------------- points, files, digests

_DIGESTS = {}


def digest(*refs):
    """Digest of the library code the functions ``refs`` ("module:function") run (privopt.codedigest)."""
    roots = tuple(sorted({ref_module(r) for r in refs}))
    if roots not in _DIGESTS:
        _DIGESTS[roots] = code_digest(roots, Path(_src))
    return _DIGESTS[roots]


_POINTS = {}


def points_by_path(paper, exp):
    """The experiment's parameter points by their path form."""
    key = (paper.key, exp.name)
    if key not in _POINTS:
        _POINTS[key] = {point_path(job.point): job.point for job in paper.run_jobs(config[paper.key], exp.name)}
    return _POINTS[key]


def run_point(paper, exp, wc):
    """The parameter point of a run job, from its wildcards (which must name the current settings)."""
    where = point_path({k: wc[k] for k in exp.point_keys(config[paper.key])})
    try:
        point = points_by_path(paper, exp)[where]
    except KeyError:
        raise ConfigError(f"{where!r} is not a parameter point of {paper.key}.{exp.name} in the config") from None
    current = point_settings_key(paper, exp, point)
    if wc.get("settings", current) != current:
        raise ConfigError(f"settings~{wc['settings']} of {paper.key}.{exp.name} at {where!r} are not the settings "
                          f"of the config (settings~{current}): that run file was made by another configuration")
    return point


def point_settings_key(paper, exp, point):
    """The folder of a point's run files: the digest of exactly the settings its run jobs read."""
    return settings_key(exp.settings(config[paper.key], point))


def run_files(paper, exp, output="runs"):
    """Every run file of an experiment (points in config order, then seed blocks)."""
    return [paper.run_file(exp.name, j.point, j.block, output, root=paper_root(paper),
                           settings=point_settings_key(paper, exp, j.point))
            for j in paper.run_jobs(config[paper.key], exp.name)]


def run_settings(paper, exp):
    """What the runs of an experiment read, per parameter point (written into its tables' provenance)."""
    section = config[paper.key]
    return [{"point": point, "settings": exp.settings(section, point),
             "settings_key": point_settings_key(paper, exp, point)} for point in exp.points(section)]


# ----------------------------------------------------------------- the report's inputs (report.smk)

def notebook_html_file(paper, figure_id):
    return paper.notebook_page(figure_id, paper_root(paper))


def all_notebook_html():
    return {key: {f.id: notebook_html_file(p, f.id) for f in p.figures} for key, p in PAPERS.items()}


def reference_figure_labels(paper):
    """Per reference figure, the part of the reference's description that is about it."""
    from privopt.pipeline.report import figure_scale_label

    label = reference_manifest(paper).get("label", "")
    exp_labels = {e.name: e.label for e in paper.experiments}
    return {f.id: figure_scale_label(label, [exp_labels[paper.table_owner(s)[0].name] for s in f.inputs.values()], f.title)
            for f in reference_figures(paper)}


def report_references():
    out = reference_report_inputs()
    return {key: {**ref, "figure_labels": reference_figure_labels(PAPERS[key])} for key, ref in out.items()}


def all_figure_files(kind):
    """Every figure's file of one kind ("png" or "pdf") over the registered papers."""
    return [p.figure_files(f.id, paper_root(p))[kind] for p in PAPERS.values() for f in p.figures]


def all_claims_files():
    return [p.claims_file_at(paper_root(p)) for p in PAPERS.values()]


def all_audit_files():
    return [p.audit_file_at(RESULTS) for p in PAPERS.values() if p.audits]


def all_table_files():
    return [p.table_file(t.stem, paper_root(p)) for p in PAPERS.values() for e in p.experiments for t in e.table_files]


def checked_inputs(paper, stems):
    """The stamps of the experiments whose tables ``stems`` are: a rule reading a table takes them, so a
    table changed by hand since its provenance record was written fails before anything reads it (the
    check job when the table is newer than its stamp; the reader itself, by content, always:
    privopt.pipeline.tablecheck)."""
    return [paper.checked_file(name, paper_root(paper)) for name in paper.readers_of(stems)]


# ----------------------------------------------------------------------------- params of the generic rules
# (factories, so that each rule of the loops in papers.smk binds its own paper and experiment)


def point_param(paper, exp):
    return lambda wc: run_point(paper, exp, wc)


def settings_param(paper, exp):
    return lambda wc: exp.settings(config[paper.key], run_point(paper, exp, wc))


def digest_param(*refs):
    return lambda wc: digest(*refs)


def figure_notebook(paper, fig):
    """The notebook that draws ``fig`` (an input of the jobs that run its cells as a script: "notebook" is
    then the name of that input, so no figure may call one of its tables so)."""
    if "notebook" in fig.inputs:
        raise ConfigError(f"{paper.key} figure {fig.id}: a table input may not be named 'notebook'")
    return paper.notebook(fig.id)


def notebook_digest(name):
    """Digest of the privopt code the notebook workflow/notebooks/<name>.py.ipynb imports (privopt.plotting,
    a paper's figure module, and what they import): editing the figure style redraws the figures."""
    path = Path(workflow.basedir) / "workflow" / "notebooks" / f"{name}.py.ipynb"
    roots = tuple(notebook_imports(path, Path(_src)))
    if roots not in _DIGESTS:
        _DIGESTS[roots] = code_digest(roots, Path(_src))
    return _DIGESTS[roots]


def instance_inputs(paper, exp):
    """Every file of each instance the experiment uses, named by the instance."""
    return {name: [paper.instance_file(name, f, paper_root(paper)) for f in paper.instance(name).outputs]
            for name in exp.instances}


def run_log_pattern(paper, exp, keys):
    """The log of a run job, with the wildcards of its run file: the same path under the paper's logs."""
    root = paper_root(paper)
    return paper.run_pattern(exp.name, keys, root=root).replace(root, paper_logs(paper), 1).replace(".parquet", ".log")


def verify_file(paper):
    """What ``verify_<paper>`` writes: recomputed on this config's data, so under its checks."""
    return f"{paper.namespace('results/verify', DATA_KEYS)}/{paper.key}.csv"


def run_file_inputs(paper, exp):
    return {name: run_files(paper, exp, name) for name in exp.outputs}


# ----------------------------------------------------------------------------- run-job resources
# Each run job asks a cluster for the time and memory its paper's cost model predicts
# (privopt.pipeline.cost); short jobs are sent to SLURM several at a time (profiles/slurm:
# group-components of the groups below).

def job_seconds(paper, exp, wc):
    return run_cost.job_seconds(exp, config[paper.key], run_point(paper, exp, wc), len(seeds_of(wc.block)))


def guard(paper, exp, wc, **estimate):
    """The cost guard (privopt.pipeline.costguard): refuse a planned run job out of reach of this
    machine (or of the cluster limits with a cluster executor) before any job runs: Snakemake asks for a
    job's resources when it prints it (dry runs) or schedules it, and onstart below asks for every planned
    run job's.  Jobs on a cluster node (remote execution) were checked by the snakemake that submitted them."""
    if workflow.remote_exec:
        return
    costguard.check_job(rule=f"{paper.key}_runs_{exp.name}", key=paper.key, exp=exp, section=config[paper.key],
                        point=run_point(paper, exp, wc), block=wc.block, n_seeds=len(seeds_of(wc.block)),
                        guard=config["cost_guard"], local=workflow.local_exec, origin=config_sources().origin,
                        **estimate)


onstart:
    # Price every planned run job before the first job starts (Snakemake evaluates a job's resources
    # only when it prints or schedules it, and run jobs wait for their instances): asking for each
    # one's resources runs the cost guard above.  (A dry run prices them as it prints them.)
    _run_rules = {f"{p.key}_runs_{e.name}" for p in PAPERS.values() for e in p.experiments}
    for _job in workflow.dag.needrun_jobs():
        if _job.rule.name in _run_rules:
            _job.resources


def job_runtime(paper, exp):
    """SLURM runtime (minutes) of a run job: predicted seconds with margin and start-up."""

    def runtime(wc):
        seconds = job_seconds(paper, exp, wc)
        guard(paper, exp, wc, seconds=seconds)
        return run_cost.runtime_minutes(seconds)

    return runtime


def job_mem_mb(paper, exp):
    """SLURM mem_mb of a run job: interpreter and libraries plus the data its settings make it hold."""

    def mem(wc):
        if exp.data_mb is None:
            return run_cost.mem_mb()
        mb = run_cost.mem_mb(run_cost.job_data_mb(exp, config[paper.key], run_point(paper, exp, wc),
                                                  len(seeds_of(wc.block))))
        guard(paper, exp, wc, mem_mb=mb)
        return mb

    return mem


def job_group(paper, exp):
    """Cluster job group of a run job by its predicted length (privopt.pipeline.cost.cluster_group)."""
    return lambda wc: run_cost.cluster_group(job_seconds(paper, exp, wc))


# ----------------------------------------------------------------------------- reference results
# (privopt.pipeline.reference_results; rules in workflow/rules/reference.smk)


def reference_folder(paper):
    return reference_folder_of(config, paper.key)


def reference_exists(paper):
    """Whether the paper has a reference folder (a manifest, or files that should have one: a missing
    manifest is then an error of that paper's reference jobs, naming it, not a paper silently dropped)."""
    folder = Path(reference_folder(paper))
    return folder.is_dir() and any(not p.name.startswith(".") for p in folder.iterdir())


_MANIFESTS = {}


def reference_manifest(paper):
    """The manifest as listed ({} when missing or unreadable: the jobs' own check then names it)."""
    if paper.key not in _MANIFESTS:
        try:
            _MANIFESTS[paper.key] = json.loads(Path(reference_folder(paper), "manifest.json").read_text())
        except (OSError, ValueError):
            _MANIFESTS[paper.key] = {}
    return _MANIFESTS[paper.key] if isinstance(_MANIFESTS[paper.key], dict) else {}


def reference_manifest_file(paper):
    path = Path(reference_folder(paper), "manifest.json")
    return [str(path)] if path.is_file() else []


def reference_missing(paper):
    """The manifest, or the files it lists, that are missing (a parameter: a deletion reruns the readers,
    whose manifest check then names the file)."""
    folder = Path(reference_folder(paper))
    if not (folder / "manifest.json").is_file():
        return ["manifest.json"]
    return sorted(rel for rel in reference_manifest(paper).get("files", {}) if not (folder / rel).is_file())


def reference_healthy(paper):
    return reference_exists(paper) and not reference_missing(paper)


def reference_table_files(paper):
    """The reference's tables, as listed in its manifest, that exist, and the manifest (so that an edit of
    one reruns the claims on the reference, where the manifest check then names it)."""
    folder = reference_folder(paper)
    listed = [f"{folder}/{rel}" for rel in reference_manifest(paper).get("files", {}) if rel.startswith("tables/")]
    return reference_manifest_file(paper) + [f for f in listed if Path(f).is_file()]


def reference_manifest_digest(paper):
    path = Path(reference_folder(paper), "manifest.json")
    return file_sha256(path) if path.is_file() else "missing"


def reference_scale_param(paper):
    """The scale stamp of a reference figure: the reference's scale name, short enough for a figure title
    (the whole label stands beside the figure in the report).  A function, so that no brace of a name is
    ever read as a wildcard."""
    label = f"reference: {reference_manifest(paper).get('scale', '?')} scale"
    return lambda wc: label


def reference_table(paper, stem):
    """A figure's reference table; the manifest in its place when it is missing (the plot's manifest check
    then names the missing table instead of the whole workflow stopping at a missing input)."""
    path = f"{reference_folder(paper)}/tables/{paper.table_owner(stem)[1].file}"
    return path if Path(path).is_file() else (reference_manifest_file(paper) or [path])[0]


def reference_figures(paper):
    """The paper's figures whose every table the reference holds."""
    listed = reference_manifest(paper).get("files", {})
    return [f for f in paper.figures
            if all(f"tables/{paper.table_owner(stem)[1].file}" in listed for stem in f.inputs.values())]


def reference_figure_files(paper, fig):
    return {k: v.replace(f".{k}", f".reference.{k}") for k, v in paper.figure_files(fig.id, RESULTS).items()}


def reference_report_inputs():
    """What the report reads of each paper's reference: its claims, what it is, its figures (a reference
    whose manifest or a listed file is missing is left out: its own jobs fail, naming the file)."""
    out = {}
    for paper in PAPERS.values():
        if reference_healthy(paper):
            out[paper.key] = {"claims": f"{RESULTS}/claims/{paper.key}.reference.csv",
                              "about": f"{RESULTS}/claims/{paper.key}.reference.json",
                              "figures": {f.id: reference_figure_files(paper, f)["png"] for f in reference_figures(paper)}}
    return out


def reference_broken_files():
    """The claims on each reference whose manifest or a listed file is missing: in `all`, so that the run
    fails naming the file, after the report of everything else (their job waits for it)."""
    return [f"{RESULTS}/claims/{p.key}.reference.csv" for p in PAPERS.values()
            if reference_exists(p) and not reference_healthy(p)]


def reference_report_files():
    return [f for ref in reference_report_inputs().values() for f in (ref["claims"], ref["about"], *ref["figures"].values())]


def reference_experiments(paper):
    """The experiments `reference_<paper>` writes: those `reference_part` names (a reference written in
    parts: the others are kept from the committed reference), every experiment of the paper when it is empty."""
    part = config["reference_part"]
    return [e for e in paper.experiments if not part or e.name in part]


def reference_jobs(paper, experiments=None):
    """Every run job of the experiments written (or of ``experiments``) with its run files and log (the writer
    samples a few for verify)."""
    out = []
    root = paper_root(paper)
    for exp in reference_experiments(paper) if experiments is None else experiments:
        keys = exp.point_keys(config[paper.key])
        log = run_log_pattern(paper, exp, keys)
        for job in paper.run_jobs(config[paper.key], exp.name):
            skey = point_settings_key(paper, exp, job.point)
            out.append({"experiment": exp.name, "point": job.point, "block": job.block, "seeds": job.seeds,
                        "files": {o: paper.run_file(exp.name, job.point, job.block, o, root=root, settings=skey)
                                  for o in exp.outputs},
                        "log": log.format(**{k: point_path({k: v}).split("~", 1)[1] for k, v in job.point.items()},
                                          settings=skey, block=job.block)})
    return out


# ----------------------------------------------------------------------------- reference parts in progress
# A part longer than a session lands block by block under reference/pending/ (privopt.pipeline.pending).  Read
# lazily (input and params functions): reference_blocks names blocks of the paper being targeted only.


def pending_jobs(paper):
    """The run jobs `reference_pending_<paper>` adds: the seed blocks `reference_blocks` at the points
    `reference_points` (all when empty) of the experiments `reference_part` names (all when empty)."""
    section = config[paper.key]
    try:
        jobs = select_jobs(reference_jobs(paper), config["reference_blocks"], config["reference_points"])
    except ValueError as exc:
        keys = ", ".join(f"{k} ({config_sources().origin((k,))})" for k in ("reference_blocks", "reference_points")
                         if config[k])
        raise ConfigError(f"{paper.key}: {exc}; see {keys}") from None
    # what each run read: a part whose code changed is attested on a prefix of its jobs (reference_attest_<paper>)
    return [{**j, "settings": paper.experiment(j["experiment"]).settings(section, j["point"])} for j in jobs]


def pending_run_files(paper):
    return [f for job in pending_jobs(paper) for f in job["files"].values()]


def run_code(paper, experiments=None):
    """Per experiment, the digest of the code its runs import (what the tables' provenance records as
    code_digest.runs)."""
    return {e.name: digest(e.run) for e in (paper.experiments if experiments is None else experiments)}


def pending_experiments(paper):
    """The experiments of the paper with a part in progress under the reference root."""
    root = config["reference"]["folder"]
    return [e for e in paper.experiments if Path(pending_folder(root, paper.key, e.name), PENDING_MANIFEST).is_file()]


def pending_manifests(paper):
    root = config["reference"]["folder"]
    return [str(Path(pending_folder(root, paper.key, e.name), PENDING_MANIFEST)) for e in pending_experiments(paper)]


def pending_instance_inputs(paper):
    """The instance files the runs of the pending experiments read: built before their run files come back,
    so that the restored files are newer than their inputs."""
    return sorted({f for e in pending_experiments(paper) for files in instance_inputs(paper, e).values() for f in files})


_REFERENCE_CODE = {}


def reference_code(paper):
    """Per experiment, the digest of each library module its runs and tables import (the report names
    the modules that changed since a reference was computed; computed once per paper and process)."""
    if paper.key not in _REFERENCE_CODE:
        _REFERENCE_CODE[paper.key] = {e.name: module_digests(sorted({ref_module(e.run), ref_module(e.tables)}),
                                                             Path(_src)) for e in paper.experiments}
    return _REFERENCE_CODE[paper.key]


# ----------------------------------------------------------------------------- run files lost beneath their tables
# Snakemake deletes a job's outputs when it starts the job, and makes a missing file again only when a job that
# has to run reads it.  A run job killed midway (an interrupted --forcerun) thus left its run file missing under
# tables made from it, and the next run said "Nothing to be done" (even with rerun-incomplete).  The run files of
# the current settings that are missing while their experiment's tables record exactly these settings (their
# provenance) are inputs of the paper's target and of `all`: the next run computes them again, then (newer
# inputs) the tables, figures and claims that read them.  Not in the snakemake processes that run single jobs.


def lost_run_files(paper=None):
    """The run files of the current settings missing beneath tables whose provenance records those settings (of
    one paper, or of all)."""
    if workflow.remote_exec or workflow.subprocess_exec:
        return []
    lost = []
    for p in [paper] if paper is not None else PAPERS.values():
        for exp in p.experiments:
            provenance = Path(p.provenance_file(exp.name, paper_root(p)))
            try:
                recorded = json.loads(provenance.read_text())["runs"]
                points = lambda runs: [(json.dumps(r["point"], sort_keys=True), r["settings_key"]) for r in runs]
                if points(recorded) != points(run_settings(p, exp)):
                    continue
            except (OSError, ValueError, KeyError, TypeError):
                continue
            lost += [f for name in exp.outputs for f in run_files(p, exp, name) if not Path(f).exists()]
    new = [f for f in lost if f not in _LOST_SAID]
    if new:
        _LOST_SAID.update(new)
        print(f"{len(new)} run file(s) missing beneath their tables (an interrupted run?), computed again: "
              + ", ".join(new[:5]) + (" ..." if len(new) > 5 else ""), file=sys.stderr)
    return lost


_LOST_SAID = set()  # the lost run files already named (the paper targets and `all` ask for the same)
