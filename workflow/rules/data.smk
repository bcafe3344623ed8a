# Raw data: the April 2014 Uber pickups, fetched once, verified, parsed once.


# Both run where snakemake runs, never as cluster jobs (profiles/slurm): the download needs the
# internet, which compute nodes often lack, and the parse takes seconds.


rule uber_download:
    """Fetch the pickups (URL or local path, gzip or plain) and verify them by digest."""
    localrule: True
    input:
        uber_local_source(),
    output:
        csv="resources/uber/uber-raw-data-apr14.csv",
        provenance="resources/uber/uber-raw-data-apr14.provenance.json",
    params:
        source=lambda wc, input: input[0] if input else config["uber_source"],
        sha256=config["uber_sha256"],
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/data/uber_download.log",
    resources:
        runtime=30,
    script:
        "../../scripts/uber_download.py"


rule uber_parse:
    """Parse the CSV once into a typed table (time, lat, lon, base); everything downstream reads it."""
    localrule: True
    input:
        csv=rules.uber_download.output.csv,
        provenance=rules.uber_download.output.provenance,
    output:
        "resources/uber/pickups.parquet",
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/data/uber_parse.log",
    resources:
        mem_mb=4000,
    script:
        "../../scripts/uber_parse.py"
