"""Chaturvedi, Nguyễn, Zakynthinou (AAAI 2021): the declaration the workflow reads.

Two experiments on the Uber pickups, one per figure.  A parameter point is a reading (a named set of
algorithm settings, ``chaturvedi2021.figN.readings``) and the x value (rank r, or dataset size m); all
readings run on the same datasets.  The config section is ``chaturvedi2021``
(``workflow/schemas/chaturvedi2021.schema.yaml``).
"""

from __future__ import annotations

from privopt.experiments.chaturvedi2021 import cost
from privopt.pipeline.protocol import Claims, ConfigError, Experiment, Figure, Instance, Paper, Table
from privopt.pipeline.section_readers import grid, reads, seeds_from

#: config keys of the section every run of both figures reads
COMMON = ("eps", "delta_exponent", "delta")
#: grid points of Figure 1 besides the copies of the north vertex (chaturvedi2021 reading R11)
GRID_POINTS = 20


def _fig1_settings(section, point):
    """The common keys, Figure 1's, and the algorithm settings of the point's reading (point-dependent: a plain
    function)."""
    fig = section["fig1"]
    return {**{k: section[k] for k in COMMON}, "m": fig["m"], "n_copies": fig["n_copies"],
            "runs_per_dataset": fig["runs_per_dataset"], **fig["readings"][point["reading"]]}


def _fig2_settings(section, point):
    """The common keys, Figure 2's, and the algorithm settings of the point's reading."""
    fig = section["fig2"]
    return {**{k: section[k] for k in COMMON}, "runs_per_dataset": fig["runs_per_dataset"],
            **fig["readings"][point["reading"]]}


def _exact_points(section):
    """Figure 1's ranks, then Figure 2's m, at one reading: a point names its figure (a grid of two lists would pair
    every rank with every m)."""
    ex = section["exact"]
    return ([{"figure": "fig1", "reading": ex["reading"], "point": int(r)} for r in ex["ranks"]]
            + [{"figure": "fig2", "reading": ex["reading"], "point": int(m)} for m in ex["ms"]])


def _exact_settings(section, point):
    """What a run of Figure 1 or 2 at this reading reads (the same settings, so the same runs: paired)."""
    return (_fig1_settings if point["figure"] == "fig1" else _fig2_settings)(section, point)


def check(section) -> None:
    """Cross-key checks the schema cannot express (raised before any job is planned)."""
    n_candidates = GRID_POINTS + section["fig1"]["n_copies"]
    too_big = [r for r in section["fig1"]["ranks"] if r > n_candidates]
    if too_big:
        raise ConfigError(
            f"config key chaturvedi2021.fig1.ranks: r = {too_big} exceeds the {n_candidates} candidate locations "
            f"(20 grid points + chaturvedi2021.fig1.n_copies = {section['fig1']['n_copies']})")
    too_big = [r for r in section["exact"]["ranks"] if r > n_candidates]
    if too_big:
        raise ConfigError(f"config key chaturvedi2021.exact.ranks: r = {too_big} exceeds the {n_candidates} candidate "
                          "locations (20 grid points + chaturvedi2021.fig1.n_copies)")
    for fig in ("fig1", "fig2"):
        if section["exact"]["reading"] not in section[fig]["readings"]:
            raise ConfigError(f"config key chaturvedi2021.exact.reading = {section['exact']['reading']!r} is not one "
                              f"of chaturvedi2021.{fig}.readings ({', '.join(section[fig]['readings'])})")
    for fig in ("fig1", "fig2"):
        cfg = section[fig]
        if cfg["plot_reading"] not in cfg["readings"]:
            raise ConfigError(f"config key chaturvedi2021.{fig}.plot_reading = {cfg['plot_reading']!r} is not one of "
                              f"chaturvedi2021.{fig}.readings ({', '.join(cfg['readings'])})")


PAPER = Paper(
    key="chaturvedi2021",
    title="Differentially Private Decomposable Submodular Maximization",
    authors="Anamay Chaturvedi, Huy Lê Nguyễn, Lydia Zakynthinou",
    venue="AAAI 2021 (arXiv 2005.14717)",
    reading="docs/papers/chaturvedi2021.md",
    short="Chaturvedi et al. 2021",
    summary=("Figs 1–2, Uber pickups; beyond the paper, Fig. 1–2e (DPG and PCG with ε0 from exact composition at "
             "the paper's (ε, δ))"),
    styles="privopt.experiments.chaturvedi2021.styles:STYLES",
    reported="privopt.experiments.chaturvedi2021.paper_numbers:REPORTED",
    instances=(
        Instance("fig1", build="privopt.experiments.chaturvedi2021.instances:build",
                 outputs=("pool.parquet", "instance.json"), datasets=("uber",)),
        Instance("fig2", build="privopt.experiments.chaturvedi2021.instances:build",
                 outputs=("pool.parquet", "instance.json"), datasets=("uber",)),
    ),
    experiments=(
        Experiment(
            name="fig1",
            label="Chaturvedi et al. Fig. 1 (all readings)",
            points=grid(reading="fig1.readings", r=("fig1.ranks", int)),
            settings=_fig1_settings,
            seeds=seeds_from("fig1.n_runs", "seeds_per_job"),
            run="privopt.experiments.chaturvedi2021.runs:run_job",
            instances=("fig1",),
            tables="privopt.experiments.chaturvedi2021.tables:figure_tables",
            table_files=(Table("fig1.csv"), Table("fig1_runs.parquet")),
            cost=cost.job_seconds,
            data_mb=cost.job_data_mb,
        ),
        Experiment(
            name="fig2",
            label="Chaturvedi et al. Fig. 2",
            points=grid(reading="fig2.readings", m=("fig2.ms", int)),
            settings=_fig2_settings,
            seeds=seeds_from("fig2.n_runs", "seeds_per_job"),
            run="privopt.experiments.chaturvedi2021.runs:run_job",
            instances=("fig2",),
            tables="privopt.experiments.chaturvedi2021.tables:figure_tables",
            table_files=(Table("fig2.csv"), Table("fig2_runs.parquet")),
            cost=cost.job_seconds,
            data_mb=cost.job_data_mb,
        ),
        Experiment(
            name="exact",
            label="Chaturvedi et al. Fig. 1–2e (ε0 from exact composition, beyond the paper)",
            points=_exact_points,
            settings=_exact_settings,
            seeds=seeds_from("exact.n_runs", "exact.seeds_per_job"),
            run="privopt.experiments.chaturvedi2021.exact:exact_job",
            instances=("fig1", "fig2"),
            tables="privopt.experiments.chaturvedi2021.exact:exact_tables",
            table_files=(Table("fig12e.csv"), Table("fig12e_ratio.csv"), Table("fig12e_runs.parquet")),
            cost=cost.job_seconds,
            data_mb=cost.job_data_mb,
        ),
    ),
    figures=(
        Figure("fig1", title="Figure 1 — utility versus rank, ε = 0.1",
               original_caption="Empirical performance of non-private greedy, PCG, DPG, and random selection under "
                                "the cardinality constraint.",
               caption=('Chaturvedi et al. (2021), Figure 1: mean utility versus matroid rank r under a cardinality '
                        'constraint (ε = {{ snakemake.config["chaturvedi2021"]["eps"] }}, δ = 1/m^1.5, m = '
                        '{{ snakemake.config["chaturvedi2021"]["fig1"]["m"] }} pickups per run, '
                        '{{ snakemake.config["chaturvedi2021"]["fig1"]["n_runs"] }} runs per rank). Candidates: a 5×4 grid '
                        'plus {{ snakemake.config["chaturvedi2021"]["fig1"]["n_copies"] }} copies of the box\'s north '
                        'vertex. Bars: ±1 SEM. Thin lines are diagnostics, not in the paper: PCG with ε0 = 0 (never reads '
                        'the data), PCG and PCG0 with the element labels permuted at random before rounding (both '
                        'roundings pair elements in index order; the grid points are elements 0–19), and E[Random], the '
                        "exact expected utility of a uniform basis on each run's dataset."),
               inputs={"table": "fig1"},
               params=reads("fig1.plot_reading", "eps")),
        Figure("fig2", title="Figure 2 — utility versus number of data, ε = 0.1",
               original_caption="Empirical performance of PCG and DPG under the partition matroid constraint.",
               caption=('Chaturvedi et al. (2021), Figure 2: mean utility/m versus dataset size m under the partition '
                        'matroid {A}, {B, C} (ε = {{ snakemake.config["chaturvedi2021"]["eps"] }}, δ = 1/m^1.5, η = 1/7, '
                        '{{ snakemake.config["chaturvedi2021"]["fig2"]["n_runs"] }} runs per m). Bars: ±1 SEM. Thin lines '
                        'are diagnostics, not in the paper: a sampled Random basis, its exact expectation E[Random] on '
                        "each run's dataset, and PCG with ε0 = 0 (never reads the data)."),
               inputs={"table": "fig2"},
               params=reads("fig2.plot_reading", "eps")),
        Figure("fig12e", title="Figure 1–2e (new, beyond the paper) — DPG and PCG with ε0 from exact composition",
               original_caption=("(none: a new figure beside Figures 1 and 2, issue 39: what exact privacy accounting "
                                 "buys DPG and PCG at the paper's own (ε, δ))"),
               caption=("Chaturvedi et al. (2021), new figure 1–2e (beyond the paper): DPG and PCG at the settings of "
                        "Figures 1 (left, utility versus rank r) and 2 (right, utility/m versus m), with their per-step "
                        "ε0 set three ways for the same (ε, δ) = ({{ snakemake.config[\"chaturvedi2021\"][\"eps\"] }}, "
                        "1/m^1.5): the paper's rules (DPG ε/r in Figure 1 and the improved rule in Figure 2, PCG Thm "
                        "3.9's split rule), the optimal composition of the run's exponential-mechanism steps as ε0-DP "
                        "steps (exact DP: Kairouz, Oh & Viswanath 2015, valid for adaptive steps, so a certificate), "
                        "and as ε0-bounded-range steps (exact BR: Dong, Durfee & Rogers 2020, the optimum for "
                        "non-adaptive steps, an optimistic bound here: the exact adaptive ε0 lies between the two). DPG "
                        "has r steps, PCG T·r.  Reading '{{ snakemake.config[\"chaturvedi2021\"][\"exact\"][\"reading\"] }}', "
                        "{{ snakemake.config[\"chaturvedi2021\"][\"exact\"][\"n_runs\"] }} runs per point on Figures "
                        "1–2's datasets and random streams (each variant differs from the paper's run only in ε0).  Top: "
                        "mean utility, bars ±1 SEM; bottom: mean utility at the exact ε0 over the paper's, bars the 95 % "
                        "paired-bootstrap interval over the runs, each variant's ε0 over the paper's in the corner.  Claims E.a–b."),
               inputs={"table": "fig12e", "ratio": "fig12e_ratio"}),
    ),
    claims=Claims(
        evaluate="privopt.experiments.chaturvedi2021.claims:evaluate",
        inputs=("fig1", "fig2", "fig12e_ratio"),
        settings=reads("eps", "fig1.m", "delta_exponent", "delta"),
        caption=('The claims of Chaturvedi et al. about Figures 1 and 2, each evaluated from the regenerated '
                 'tables: measured value, threshold and verdict (reproduced / not reproduced / not evaluated), per '
                 'reading (claims that compare against Random also against its exact expectation E[Random], as a '
                 'second row), at scale "{{ snakemake.config["scale"] }}".'),
    ),
    check=check,
    audits=("privopt.audit.exponential:audits", "privopt.audit.greedy:audits", "privopt.audit.continuous:audits"),
)
