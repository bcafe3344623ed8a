# The reproduction report: paper/report.html.j2 is its source, <report root>/paper/index.html is rendered
# from every registered paper's figures, tables and claims of that scale and data, with its provenance and
# privacy-audit pages beside it (paper/provenance.html.j2, paper/audits.html.j2) and each figure's executed
# notebook rendered to HTML under <paper root>/notebooks/.  The report root is results/<scale>/ under the checks
# of every data set the papers read (REPORT_ROOT: results/<scale>/uber~<check>/), a paper's root its own
# (paper_root in common.smk): the report of other data lies beside this one.


for _paper in PAPERS.values():

    rule:
        """A paper's executed figure notebooks (the logs of its plot rules) as HTML pages, without Snakemake's
        job cell and machine paths: one job per paper (nbconvert's start-up, most of a page's cost, paid once)."""
        name:
            f"{_paper.key}_notebooks_html"
        localrule: True
        input:
            [_paper.figure_files(f.id, paper_root(_paper))["png"] for f in _paper.figures],
        output:
            [notebook_html_file(_paper, f.id) for f in _paper.figures],
        params:
            executed=[_paper.executed_notebook(f.id, paper_logs(_paper)) for f in _paper.figures],
            titles=[f.title for f in _paper.figures],
            code=digest("privopt.pipeline.notebook_html:render_notebook_html"),
        conda:
            "../envs/privopt.yaml"
        log:
            f"{paper_logs(_paper)}/report/notebooks/{_paper.key}.log",
        script:
            "../../scripts/render_notebook.py"


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
    """Render the reproduction report: the verdict per paper and the open claims, summary, findings, figures
    with their captions, claims and settings; beside it the provenance page (references, data source,
    software, each table's record) and the privacy audits page."""
    localrule: True
    input:
        template="paper/report.html.j2",
        pages=["paper/_base.html.j2", "paper/provenance.html.j2", "paper/audits.html.j2"],
        notebooks=[f for figs in all_notebook_html().values() for f in figs.values()],
        manifests=[f for p in PAPERS.values() if reference_healthy(p) for f in reference_manifest_file(p)],
        provenance=data_provenance(DATASETS),
        figures=all_figure_files("png") + all_figure_files("pdf"),
        tables=all_table_files(),
        records=[p.provenance_file(e.name, paper_root(p)) for p in PAPERS.values() for e in p.experiments],
        checked=[p.checked_file(e.name, paper_root(p)) for p in PAPERS.values() for e in p.experiments],
        claims=all_claims_files(),
        audits=rules.privacy_audit.output,
        references=reference_report_files(),
    output:
        f"{REPORT_ROOT}/paper/index.html",
        f"{REPORT_ROOT}/paper/provenance.html",
        f"{REPORT_ROOT}/paper/audits.html",
    # it runs last, alone: embedding the figures (privopt.pipeline.report.embedded_pngs) takes both cores
    threads: 2
    params:
        # Only what the report shows, so an unrelated config edit does not rerun it.
        settings={key: config[key] for key in PAPERS},
        papers={key: paper.metadata(paper_root(paper), paper_logs(paper), audit_root=RESULTS) for key, paper in PAPERS.items()},
        scale=config["scale"],
        datasets=list(DATASETS),
        audit=config["privacy_audit"],
        # what each paper's findings read besides its tables, and the code that computes them
        claims_settings={key: paper.claims.settings(config[key]) for key, paper in PAPERS.items()},
        # each paper's reference results (reference/<paper>/): its claims, what it is, its figures
        references=report_references(),
        notebooks=all_notebook_html(),
        code=digest("privopt.pipeline.report:render_report", "privopt.pipeline.report:reference_findings", *(paper.claims.findings_ref for paper in PAPERS.values()),
                    # what the papers report beside our values (Paper.reported), measured on the tables
                    *(paper.reported for paper in PAPERS.values() if paper.reported),
                    *(f"privopt.datasets.{name}.dataset:DATASET" for name in DATASETS)),
    conda:
        "../envs/privopt.yaml"
    log:
        f"{REPORT_LOGS}/report/index.log",
    script:
        "../../scripts/render_report.py"
