# The reproduction report: paper/ holds its source, results/paper/index.html is rendered.


rule report_html:
    """Render the reproduction report (figures, original captions, settings, data source, claims)."""
    input:
        sources=["paper/report.html.j2", "paper/papers.yaml"],
        provenance=report_provenance(),
        figures=report_files("image") + report_files("pdf"),
        tables=report_files("table"),
        claims=[paper["claims"] for paper in REPORT_PAPERS.values()],
    output:
        "results/paper/index.html",
    params:
        # Only what the report shows, so an unrelated config edit does not rerun it.
        settings={paper["config_key"]: config[paper["config_key"]] for paper in REPORT_PAPERS.values()},
        scale=config["scale"],
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/report/index.log",
    script:
        "../../scripts/render_report.py"


# Submitted nowhere: the report renders in seconds where snakemake runs (see data.smk).
localrules:
    report_html,
