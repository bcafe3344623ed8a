# The generic rules, instantiated for every registered paper (privopt.pipeline.registry):
#   <paper>_instance_<name>   its data sets' files -> what its runs share (local)
#   <paper>_runs_<exp>        one parameter point x one seed block       (the only cluster jobs)
#   <paper>_tables_<exp>      run files -> tables (+ a provenance record) (local)
#   <paper>_check_<exp>       tables still as recorded (sha256) -> stamp  (local; each reader compares the
#                             tables with the stamp again, by content: privopt.pipeline.tablecheck)
#   <paper>_<fig>_plot        tables -> figure, by its notebook (cells run in the job: no kernel) (local)
#   <paper>_claims            tables -> the paper's claims               (local)
#   <paper>_audit             black-box privacy audits of its mechanisms (local; if it declares any)
#   <paper>_<fig>, <paper>    targets                                    (local)
# Paths, notebooks and captions (generated from the declarations, common.smk) follow the conventions of
# privopt.pipeline.protocol.Paper, under the paper's namespace: the configured scale's (RESULTS = results/<scale>,
# LOGS = logs/<scale>) and, for a paper that reads data sets, the checks its data passed
# (results/<scale>/<data set>~<check>/: paper_root, paper_logs in common.smk), so the results of other data
# never share a path with these.  Its audits read no data: they lie in the scale's namespace.


for _paper in PAPERS.values():
    _section = config[_paper.key]
    _root, _logs = paper_root(_paper), paper_logs(_paper)

    for _inst in _paper.instances:

        rule:
            name:
                f"{_paper.key}_instance_{_inst.name}"
            localrule: True
            input:
                **dataset_inputs(_inst.datasets),
            output:
                [_paper.instance_file(_inst.name, f, _root) for f in _inst.outputs],
            params:
                paper=_paper.key,
                instance=_inst.name,
                settings=_inst.settings(_section),
                # the checks of the data it reads (their content; also in its path, through _root)
                data=data_params(_inst.datasets),
                code=digest_param(_inst.build),
            conda:
                "../envs/privopt.yaml"
            log:
                f"{_logs}/{_paper.key}/instances/{_inst.name}.log",
            script:
                "../../scripts/instance.py"

    for _exp in _paper.experiments:
        _keys = _exp.point_keys(_section)

        rule:
            name:
                f"{_paper.key}_runs_{_exp.name}"
            input:
                **instance_inputs(_paper, _exp),
            output:
                **{o: _paper.run_pattern(_exp.name, _keys, o, _root) for o in _exp.outputs},
            wildcard_constraints:
                **{k: "[^/]+" for k in _keys},
                settings="[0-9a-f]{12}",
                block=r"\d+-\d+",
            params:
                paper=_paper.key,
                experiment=_exp.name,
                point=point_param(_paper, _exp),
                settings=settings_param(_paper, _exp),
                seeds=lambda wc: seeds_of(wc.block),
                data=data_params(experiment_data(_paper, _exp)),
                code=digest_param(_exp.run),
            conda:
                "../envs/privopt.yaml"
            log:
                run_log_pattern(_paper, _exp, _keys),
            threads: 1
            resources:
                mem_mb=job_mem_mb(_paper, _exp),
                runtime=job_runtime(_paper, _exp),
            group:
                job_group(_paper, _exp)
            script:
                "../../scripts/run.py"

        rule:
            name:
                f"{_paper.key}_tables_{_exp.name}"
            localrule: True
            input:
                **run_file_inputs(_paper, _exp),
            output:
                tables=[_paper.table_file(t.stem, _root) for t in _exp.table_files],
                provenance=_paper.provenance_file(_exp.name, _root),
            params:
                paper=_paper.key,
                experiment=_exp.name,
                settings=_exp.table_settings(_section),
                runs=run_settings(_paper, _exp),
                scale=config["scale"],
                data=data_params(experiment_data(_paper, _exp)),
                code=digest_param(_exp.tables),
                run_code=digest_param(_exp.run),
            conda:
                "../envs/privopt.yaml"
            log:
                f"{_logs}/{_paper.key}/tables/{_exp.name}.log",
            script:
                "../../scripts/tables.py"

        rule:
            name:
                f"{_paper.key}_check_{_exp.name}"
            localrule: True
            input:
                tables=[_paper.table_file(t.stem, _root) for t in _exp.table_files],
                provenance=_paper.provenance_file(_exp.name, _root),
            output:
                _paper.checked_file(_exp.name, _root),
            conda:
                "../envs/privopt.yaml"
            log:
                f"{_logs}/{_paper.key}/tables/{_exp.name}.check.log",
            script:
                "../../scripts/check_tables.py"

    for _fig in _paper.figures:

        rule:
            name:
                f"{_paper.key}_{_fig.id}_plot"
            localrule: True
            input:
                **{name: _paper.table_file(stem, _root) for name, stem in _fig.inputs.items()},
                checked=checked_inputs(_paper, list(_fig.inputs.values())),
                # its cells run in the job's process, which writes the executed notebook (no kernel)
                notebook=figure_notebook(_paper, _fig),
            output:
                pdf=_paper.figure_files(_fig.id, _root)["pdf"],
                png=report(
                    _paper.figure_files(_fig.id, _root)["png"],
                    caption=REPORT_CAPTIONS[f"{_paper.key}_{_fig.id}.rst"],
                    category=_paper.short,
                ),
            params:
                **_fig.params(_section),
                scale=config["scale"],
                code=notebook_digest(f"{_paper.key}_{_fig.id}"),
                notebook=f"{_paper.key}_{_fig.id}",
            conda:
                "../envs/privopt.yaml"
            log:
                notebook=_paper.executed_notebook(_fig.id, _logs),
            script:
                "../../scripts/plot.py"

        rule:
            name:
                f"{_paper.key}_{_fig.id}"
            localrule: True
            input:
                list(_paper.figure_files(_fig.id, _root).values()),

    rule:
        name:
            f"{_paper.key}_claims"
        localrule: True
        input:
            **{stem: _paper.table_file(stem, _root) for stem in _paper.claims.inputs},
            checked=checked_inputs(_paper, _paper.claims.inputs),
        output:
            report(
                _paper.claims_file_at(_root),
                caption=REPORT_CAPTIONS[f"{_paper.key}_claims.rst"],
                category=_paper.short,
            ),
        params:
            paper=_paper.key,
            settings=_paper.claims.settings(_section),
            scale=config["scale"],
            code=digest_param(_paper.claims.evaluate),
        conda:
            "../envs/privopt.yaml"
        log:
            f"{_logs}/{_paper.key}/claims.log",
        script:
            "../../scripts/claims.py"

    if _paper.audits:

        rule:
            name:
                f"{_paper.key}_audit"
            localrule: True
            output:
                report(_paper.audit_file_at(RESULTS), caption=REPORT_CAPTIONS["privacy_audit.rst"], category="Privacy audits"),
            params:
                paper=_paper.key,
                samples=config["privacy_audit"]["samples"],
                seed=config["privacy_audit"]["seed"],
                alpha=config["privacy_audit"]["alpha"],
                code=digest_param(*_paper.audits),
            conda:
                "../envs/privopt.yaml"
            log:
                f"{LOGS}/{_paper.key}/audit.log",
            script:
                "../../scripts/audit.py"

    rule:
        name:
            _paper.key
        localrule: True
        input:
            [f for fig in _paper.figures for f in _paper.figure_files(fig.id, _root).values()],
            _paper.claims_file_at(_root),
            lost_run_files(_paper),  # run files lost beneath their tables: computed again (common.smk)
