# Reference results (privopt.pipeline.reference_results): the tables of the largest run of each paper,
# committed under reference/<paper>/, and what the pipeline does with them.
#   reference_<paper>          this scale's finished tables -> reference/<paper>/ (+ manifest)   (on demand;
#                              with --config "reference_part=[exp]" only those experiments, the rest kept)
#   <paper>_claims_reference   today's claims code on the reference tables                      (in `all`)
#   <paper>_<fig>_plot_reference  each figure drawn from the reference tables (its own config; the
#                              figure's notebook cells run in the job's process, no kernel)      (in `all`)
#   verify_<paper>, verify     recompute the run jobs the reference sampled, compare value by value (on demand)
#   reference_pending_<paper>  a part too long for one session, block by block: the run jobs of the seed blocks
#                              `reference_blocks` of `reference_part` -> reference/pending/<paper>/<exp>/ (on demand)
#   reference_resume_<paper>   the pending parts' finished run files back into this scale's results, where
#                              Snakemake takes them as done (only those of today's settings and run code)
#   reference_attest_<paper>   a pending part carried over to today's run code after a change that keeps its rows:
#                              a prefix of every pending job recomputed and compared bit for bit (on demand)
# Nothing reads reference/<paper>/ through the writer's output, so a run of another scale never
# rewrites the committed reference: only `snakemake reference_<paper>` does, and it refuses to replace a
# larger one unless `--config reference_replace=true`.  Every reader checks the manifest first
# (privopt.pipeline.reference_results.check_manifest); a reference folder whose manifest or a listed file is missing
# keeps its jobs, which fail naming the file (that paper only: the report leaves its reference out).


for _paper in PAPERS.values():

    rule:
        name:
            f"reference_{_paper.key}"
        localrule: True
        input:
            tables=[_paper.table_file(t.stem, paper_root(_paper)) for e in reference_experiments(_paper) for t in e.table_files],
            checked=[_paper.checked_file(e.name, paper_root(_paper)) for e in reference_experiments(_paper)],
            records=[_paper.provenance_file(e.name, paper_root(_paper)) for e in reference_experiments(_paper)],
            data=data_provenance(_paper.datasets),
        output:
            f"{paper_root(_paper)}/reference/{_paper.key}.written",
        params:
            paper=_paper.key,
            datasets=list(_paper.datasets),
            folder=reference_folder(_paper),
            section=config[_paper.key],
            scale=config["scale"],
            jobs=reference_jobs(_paper),
            code=reference_code(_paper),
            budget_s=config["reference"]["verify_seconds"],
            replace=config["reference_replace"],
            # the experiments of a part (the others kept from the reference); [] for the whole reference
            part=config["reference_part"],
            # the paper scale each figure is compared with (the manifest's `figures`)
            paper_config="config/paper.yaml",
        conda:
            "../envs/privopt.yaml"
        log:
            f"{paper_logs(_paper)}/reference/{_paper.key}.log",
        script:
            "../../scripts/reference.py"

    rule:
        name:
            f"reference_pending_{_paper.key}"
        localrule: True
        input:
            # the run files of the seed blocks `reference_blocks` of the part's experiments: computed if missing
            lambda wc, paper=_paper: pending_run_files(paper),
        output:
            f"{paper_root(_paper)}/reference/{_paper.key}.pending.json",
        params:
            paper=_paper.key,
            jobs=lambda wc, paper=_paper: pending_jobs(paper),
            totals={e.name: sum(1 for _ in _paper.run_jobs(config[_paper.key], e.name)) for e in reference_experiments(_paper)},
            code=run_code(_paper, reference_experiments(_paper)),
            modules=reference_code(_paper),
            scale=config["scale"],
        conda:
            "../envs/privopt.yaml"
        log:
            f"{paper_logs(_paper)}/reference/{_paper.key}.pending.log",
        script:
            "../../scripts/reference_pending.py"

    rule:
        name:
            f"reference_resume_{_paper.key}"
        localrule: True
        input:
            manifests=pending_manifests(_paper),
            instances=pending_instance_inputs(_paper),
        output:
            f"{paper_root(_paper)}/reference/{_paper.key}.resumed.json",
        params:
            paper=_paper.key,
            jobs=reference_jobs(_paper, pending_experiments(_paper)),
            code=run_code(_paper, pending_experiments(_paper)),
        conda:
            "../envs/privopt.yaml"
        log:
            f"{paper_logs(_paper)}/reference/{_paper.key}.resume.log",
        script:
            "../../scripts/reference_resume.py"

    rule:
        name:
            f"reference_attest_{_paper.key}"
        localrule: True
        input:
            pending_manifests(_paper),
        output:
            f"{paper_root(_paper)}/reference/{_paper.key}.attested.json",
        params:
            paper=_paper.key,
            code=run_code(_paper, pending_experiments(_paper)),
            modules=reference_code(_paper),
            budget_s=config["reference"]["verify_seconds"],
        conda:
            "../envs/privopt.yaml"
        log:
            f"{paper_logs(_paper)}/reference/{_paper.key}.attest.log",
        script:
            "../../scripts/reference_attest.py"

    if reference_exists(_paper):

        rule:
            name:
                f"{_paper.key}_claims_reference"
            localrule: True
            input:
                reference_table_files(_paper),
                # a broken reference (its check fails, naming the file) only after the report of the others
                [] if reference_healthy(_paper) else rules.report_html.output,
                # the parts in progress (the report says how far they are)
                pending_manifests(_paper),
            output:
                claims=f"{RESULTS}/claims/{_paper.key}.reference.csv",
                about=f"{RESULTS}/claims/{_paper.key}.reference.json",
            params:
                paper=_paper.key,
                manifest=reference_manifest_digest(_paper),
                # the listed files that are missing: a deletion reruns the job, which then names the file
                missing=reference_missing(_paper),
                code=digest_param(_paper.claims.evaluate, "privopt.pipeline.reference_results:check_manifest"),
                modules=reference_code(_paper),
            conda:
                "../envs/privopt.yaml"
            log:
                f"{LOGS}/{_paper.key}/claims.reference.log",
            script:
                "../../scripts/claims_reference.py"

        _ref_section = reference_manifest(_paper).get("config", {})
        for _fig in reference_figures(_paper):

            rule:
                name:
                    f"{_paper.key}_{_fig.id}_plot_reference"
                localrule: True
                input:
                    **{name: reference_table(_paper, stem) for name, stem in _fig.inputs.items()},
                    # the same notebook as the figure's, its cells run in the job's process (no kernel)
                    notebook=figure_notebook(_paper, _fig),
                output:
                    pdf=reference_figure_files(_paper, _fig)["pdf"],
                    png=reference_figure_files(_paper, _fig)["png"],
                params:
                    **_fig.params(_ref_section),
                    scale=reference_scale_param(_paper),
                    code=notebook_digest(f"{_paper.key}_{_fig.id}"),
                    notebook=f"{_paper.key}_{_fig.id}",
                    manifest=reference_manifest_digest(_paper),
                    missing=reference_missing(_paper),
                conda:
                    "../envs/privopt.yaml"
                log:
                    _paper.executed_notebook(_fig.id, LOGS).replace(".ipynb", ".reference.log"),
                script:
                    "../../scripts/plot_reference.py"

        rule:
            name:
                f"verify_{_paper.key}"
            localrule: True
            input:
                reference_manifest_file(_paper),
                **dataset_inputs(_paper.datasets),
            output:
                verify_file(_paper),
            params:
                paper=_paper.key,
                missing=reference_missing(_paper),
            conda:
                "../envs/privopt.yaml"
            log:
                verify_file(_paper).replace("results/", "logs/", 1).replace(".csv", ".log"),
            script:
                "../../scripts/verify.py"


rule verify:
    """Recompute the sampled run jobs of every paper's reference and compare them row by row."""
    localrule: True
    input:
        [verify_file(p) for p in PAPERS.values() if reference_exists(p)],
