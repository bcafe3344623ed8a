"""The toy paper's declaration: two experiments (the Laplace mean at each ε; the mean answered k times
under basic composition) with one figure and a claim on each table, and one on a data set of its own (the
private mean of the toy data set's values) with its claim.

It plugs into the workflow through the public mechanism alone: this package (its captions included: the
``caption`` of its Figure and Claims), its notebook (workflow/notebooks/toy_fig1.py.ipynb), its schema
(workflow/schemas/toy.schema.yaml) and its data set (src/privopt/datasets/toy/), and nothing else.
"""

from privopt.experiments.toy import cost
from privopt.pipeline.protocol import Claims, ConfigError, Experiment, Figure, Instance, Paper, Table
from privopt.pipeline.section_readers import grid, one_seed, reads, seeds_from


def check(section) -> None:
    if section["n"] < 2 * len(section["eps"]):
        raise ConfigError(f"config key toy.n = {section['n']}: use at least two users per value of toy.eps")


PAPER = Paper(
    key="toy",
    title="The Laplace mechanism for a mean (toy paper of the tests)",
    authors="privopt",
    venue="tests/toy_paper",
    reading="docs/adding-a-paper.md",
    short="Toy paper",
    summary="a Laplace mean, its k-fold repetition and a mean over a toy data set",
    instances=(
        Instance("values", build="privopt.experiments.toy.data:build", outputs=("values.parquet", "values.json"),
                 datasets=("toy",)),
    ),
    experiments=(
        Experiment(
            name="laplace",
            label="Toy Fig. 1",
            points=grid(eps=("eps", float)),
            settings=reads("n"),
            seeds=seeds_from("runs", "seeds_per_job"),
            run="privopt.experiments.toy.runs:run_job",
            tables="privopt.experiments.toy.runs:tables",
            table_files=(Table("fig1.csv"), Table("fig1_runs.parquet")),
            cost=cost.job_seconds,
            data_mb=cost.data_mb,
        ),
        Experiment(
            name="repeat",
            label="Toy Fig. 2",
            points=grid(k=("repeat.ks", int)),
            settings=reads("n", "repeat.eps"),
            seeds=seeds_from("runs", "seeds_per_job"),
            run="privopt.experiments.toy.repeat:run_job",
            tables="privopt.experiments.toy.repeat:tables",
            table_files=(Table("fig2.csv", float_format="%.10g"),),
            cost=cost.job_seconds,
        ),
        Experiment(
            name="data",
            label="Toy data set",
            points=lambda section: [{"eps": 1.0}],  # one fixed point, not from the config: a lambda says it best
            settings=reads(),
            seeds=one_seed,
            run="privopt.experiments.toy.runs:data_job",
            tables="privopt.experiments.toy.runs:data_tables",
            table_files=(Table("data.csv"),),
            instances=("values",),
            cost=cost.job_seconds,
        ),
    ),
    figures=(
        Figure("fig1", title="Figure 1 — error of the private mean versus ε",
               original_caption="(none: a toy paper)",
               caption=('Toy paper, Figure 1: mean absolute error of the Laplace mean of '
                        '{{ snakemake.config["toy"]["n"] }} values in [0, 1] versus ε, with the expected error 1/(n·ε).'), inputs={"table": "fig1"},
               params=reads("n")),
    ),
    claims=Claims(evaluate="privopt.experiments.toy.claims:evaluate", inputs=("fig1", "fig2", "data"),
                  settings=reads("n", repeat_eps="repeat.eps", sems="claim_sems"),
                  caption="The toy paper's claim, checked on its regenerated table."),
    check=check,
)
