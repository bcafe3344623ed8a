# The reproduction report: paper/report.html.j2 is its source, results/paper/index.html is rendered
# from every registered paper's figures, tables and claims.


rule privacy_audit:
    """Every registered paper's privacy audits in one table (results/audit/audits.csv)."""
    localrule: True
    input:
        all_audit_files(),
    output:
        "results/audit/audits.csv",
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/report/privacy_audit.log",
    script:
        "../../scripts/audit_table.py"


rule report_html:
    """Render the reproduction report (figures, original captions, settings, data source, claims)."""
    localrule: True
    input:
        template="paper/report.html.j2",
        provenance=uber_provenance_if_used(),
        figures=all_figure_files("png") + all_figure_files("pdf"),
        tables=all_table_files(),
        claims=all_claims_files(),
        audits=rules.privacy_audit.output,
    output:
        "results/paper/index.html",
    params:
        # Only what the report shows, so an unrelated config edit does not rerun it.
        settings={key: config[key] for key in PAPERS},
        papers={key: paper.metadata() for key, paper in PAPERS.items()},
        scale=config["scale"],
        audit=config["privacy_audit"],
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/report/index.log",
    script:
        "../../scripts/render_report.py"
