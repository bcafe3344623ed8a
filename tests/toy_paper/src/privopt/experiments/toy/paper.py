"""The toy paper's declaration: one experiment (the Laplace mean at each ε), one figure, one claim.

It plugs into the workflow through the public mechanism alone: this package, its notebook
(workflow/notebooks/toy_fig1.py.ipynb), its captions (workflow/report/toy_*.rst) and its schema
(workflow/schemas/toy.schema.yaml), and nothing else.
"""

from privopt.pipeline.protocol import Claims, ConfigError, Experiment, Figure, Paper, Table


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
    ),
    figures=(
        Figure("fig1", title="Figure 1 — error of the private mean versus ε",
               original_caption="(none: a toy paper)", inputs={"table": "fig1"},
               params=lambda section: {"n": section["n"]}),
    ),
    claims=Claims(evaluate="privopt.experiments.toy.claims:evaluate", inputs=("fig1",),
                  settings=lambda section: {"n": section["n"]}),
    check=check,
)
