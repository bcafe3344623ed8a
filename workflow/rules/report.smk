# The reproduction report: paper/ holds its source, results/paper/index.html is rendered.


rule report_html:
    """Render the reproduction report (figures, original captions, settings, data source, claims)."""
    input:
        sources=["paper/report.html.j2", "paper/papers.yaml"],
        provenance="resources/uber/uber-raw-data-apr14.provenance.json",
        figures=ch_figure_files("fig1") + ch_figure_files("fig2"),
        claims="results/claims/chaturvedi2021.csv",
        tables=expand("results/chaturvedi2021/tables/{figure}.csv", figure=["fig1", "fig2"]),
    output:
        "results/paper/index.html",
    params:
        config=config,
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/report/index.log",
    script:
        "../../scripts/render_report.py"


localrules:
    chaturvedi2021_fig1,
    chaturvedi2021_fig2,
    chaturvedi2021,
