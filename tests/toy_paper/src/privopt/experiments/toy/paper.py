"""The toy paper's declaration: one experiment (the Laplace mean at each ε) with its figure and claim, and one
on a data set of its own (the private mean of the toy data set's values) with its claim.

It plugs into the workflow through the public mechanism alone: this package, its notebook
(workflow/notebooks/toy_fig1.py.ipynb), its captions (workflow/report/toy_*.rst), its schema
(workflow/schemas/toy.schema.yaml) and its data set (src/privopt/datasets/toy.py), and nothing else.
"""

from privopt.pipeline.protocol import Claims, ConfigError, Experiment, Figure, Instance, Paper, Table


def check(section) -> None:
    if section["n"] < 2 * len(section["eps"]):
        raise ConfigError(f"config key toy.n = {section['n']}: use at least two users per value of toy.eps")


PAPER = Paper(
    key="toy",
    title="The Laplace mechanism for a mean (toy paper of the tests)",
    authors="privopt",
    venue="tests/toy_paper",
    spec="docs/adding-a-paper.md",
    short="Toy paper",
    instances=(
        Instance("values", build="privopt.experiments.toy.data:build", outputs=("values.parquet", "values.json"),
                 datasets=("toy",)),
    ),
    experiments=(
        Experiment(
            name="laplace",
            label="Toy Fig. 1",
            points=lambda section: [{"eps": float(e)} for e in section["eps"]],
            settings=lambda section, point: {"n": section["n"]},
            seeds=lambda section: (section["runs"], section["seeds_per_job"]),
            run="privopt.experiments.toy.runs:run_job",
            tables="privopt.experiments.toy.runs:tables",
            table_files=(Table("fig1.csv"), Table("fig1_runs.parquet")),
            cost=lambda settings, point, n_seeds: 1e-6 * n_seeds * settings["n"],
        ),
        Experiment(
            name="data",
            label="Toy data set",
            points=lambda section: [{"eps": 1.0}],
            settings=lambda section, point: {},
            seeds=lambda section: (1, 1),
            run="privopt.experiments.toy.runs:data_job",
            tables="privopt.experiments.toy.runs:data_tables",
            table_files=(Table("data.csv"),),
            instances=("values",),
            cost=lambda settings, point, n_seeds: 0.1,
        ),
    ),
    figures=(
        Figure("fig1", title="Figure 1 — error of the private mean versus ε",
               original_caption="(none: a toy paper)", inputs={"table": "fig1"},
               params=lambda section: {"n": section["n"]}),
    ),
    claims=Claims(evaluate="privopt.experiments.toy.claims:evaluate", inputs=("fig1", "data"),
                  settings=lambda section: {"n": section["n"]}),
    check=check,
)
