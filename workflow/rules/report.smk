# The reproduction report: paper/report.html.j2 is its source, results/<scale>/paper/index.html is
# rendered from every registered paper's figures, tables and claims of that scale.


rule privacy_audit:
    """Every registered paper's privacy audits in one table (results/<scale>/audit/audits.csv), the white-box
    audits beside them (privopt.audit.catalogue.white_box_table: noise laws, PCG's draws), and the claimed-vs-exact
    accounting table (results/<scale>/audit/accounting.csv, privopt.audit.accounting_table)."""
    localrule: True
    input:
        all_audit_files(),
    output:
        audits=f"{RESULTS}/audit/audits.csv",
        accounting=f"{RESULTS}/audit/accounting.csv",
    params:
        seed=config["privacy_audit"]["seed"],
        code=digest_param("privopt.audit.catalogue:white_box_table", "privopt.audit.accounting_table:accounting_table"),
    conda:
        "../envs/privopt.yaml"
    log:
        f"{LOGS}/report/privacy_audit.log",
    script:
        "../../scripts/audit_table.py"


rule report_html:
    """Render the reproduction report: summary, findings, figures beside their original captions with their
    claims and settings, privacy audits, provenance (data source, software, each table's record)."""
    localrule: True
    input:
        template="paper/report.html.j2",
        provenance=data_provenance(DATASETS),
        figures=all_figure_files("png") + all_figure_files("pdf"),
        tables=all_table_files(),
        records=[p.provenance_file(e.name, RESULTS) for p in PAPERS.values() for e in p.experiments],
        checked=[p.checked_file(e.name, RESULTS) for p in PAPERS.values() for e in p.experiments],
        claims=all_claims_files(),
        audits=rules.privacy_audit.output,
        references=reference_report_files(),
    output:
        f"{RESULTS}/paper/index.html",
    params:
        # Only what the report shows, so an unrelated config edit does not rerun it.
        settings={key: config[key] for key in PAPERS},
        papers={key: paper.metadata(RESULTS, LOGS) for key, paper in PAPERS.items()},
        scale=config["scale"],
        datasets=list(DATASETS),
        audit=config["privacy_audit"],
        # what each paper's findings read besides its tables, and the code that computes them
        claims_settings={key: paper.claims.settings(config[key]) for key, paper in PAPERS.items()},
        # each paper's reference results (reference/<paper>/): its claims, what it is, its figures
        references=reference_report_inputs(),
        code=digest("privopt.pipeline.report:render_report", *(paper.claims.findings_ref for paper in PAPERS.values()),
                    *(f"privopt.datasets.{name}:DATASET" for name in DATASETS)),
    conda:
        "../envs/privopt.yaml"
    log:
        f"{LOGS}/report/index.log",
    script:
        "../../scripts/render_report.py"
