# Raw data: every data set the registered papers' instances read (privopt.pipeline.datasets: one
# package per data set, src/privopt/datasets/<name>/), fetched once, verified, parsed once.
#   <name>_download   fetch and verify the raw files -> resources/<name>/<check>/ (+ provenance.json)   (local)
#   <name>_parse      the raw files -> the files instances read (e.g. pickups.parquet)                  (local)
#
# The data lives under the name of the check it passes (Dataset.folder, known from the config before anything
# is fetched; the Uber pickups: resources/uber/sha256-<16 hex>/ for a configured uber_sha256,
# resources/uber/canonical-<16 hex of the git blob id>/ otherwise).  A failed or different source only ever
# writes its own folder, so it leaves verified data in place, and switching back plans nothing.  What a data
# set reads of the config (its config_keys: the source, the expected digest, a minimum) is read by the scripts
# from the config, not passed as params: once the data of a check is there, where it came from does not matter.
#
# Both run where snakemake runs, never as cluster jobs (profiles/slurm): a download needs the internet,
# which compute nodes often lack, and a parse takes seconds.


for _data in DATASETS.values():

    rule:
        name:
            f"{_data.name}_download"
        localrule: True
        output:
            *_data.raw_files(config).values(),
            provenance=_data.provenance_file(config),
        params:
            dataset=_data.name,
        conda:
            "../envs/privopt.yaml"
        log:
            _data.log_file(config, "download"),
        resources:
            runtime=30,
        script:
            "../../scripts/dataset_fetch.py"

    rule:
        name:
            f"{_data.name}_parse"
        localrule: True
        input:
            *_data.raw_files(config).values(),
            provenance=_data.provenance_file(config),
        output:
            **_data.output_files(config),
        params:
            dataset=_data.name,
        conda:
            "../envs/privopt.yaml"
        log:
            _data.log_file(config, "parse"),
        resources:
            mem_mb=4000,
        script:
            "../../scripts/dataset_parse.py"
