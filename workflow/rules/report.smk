# The reproduction report: paper/report.html.j2 is its source, results/paper/index.html is rendered
# from every registered paper's figures, tables and claims.


rule report_html:
    """Render the reproduction report (figures, original captions, settings, data source, claims)."""
    localrule: True
    input:
        template="paper/report.html.j2",
        provenance=uber_provenance_if_used(),
        figures=all_figure_files("png") + all_figure_files("pdf"),
        tables=all_table_files(),
        claims=all_claims_files(),
    output:
        "results/paper/index.html",
    params:
        # Only what the report shows, so an unrelated config edit does not rerun it.
        settings={key: config[key] for key in PAPERS},
        papers={key: paper.metadata() for key, paper in PAPERS.items()},
        scale=config["scale"],
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/report/index.log",
    script:
        "../../scripts/render_report.py"
