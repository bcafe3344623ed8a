# Raw data: the April 2014 Uber pickups, fetched once, verified, parsed once.
#
# The data lives under the name of the check it passes (privopt.data.uber.content_key, known from the
# config before anything is fetched): resources/uber/sha256-<16 hex>/ for a configured uber_sha256,
# resources/uber/canonical-<16 hex of the git blob id>/ otherwise.  A failed or different source only
# ever writes its own folder, so it leaves verified data in place, and switching back plans nothing.
# The source itself is read from the config by the script (not an input or a param): once the data of a
# check is there, where it came from does not matter.

# Both run where snakemake runs, never as cluster jobs (profiles/slurm): the download needs the
# internet, which compute nodes often lack, and the parse takes seconds.


rule uber_download:
    """Fetch the pickups (URL or local path, gzip or plain) and verify them by digest."""
    localrule: True
    output:
        csv=f"{uber_dir()}/uber-raw-data-apr14.csv",
        provenance=f"{uber_dir()}/provenance.json",
    conda:
        "../envs/privopt.yaml"
    log:
        f"logs/data/{uber_key()}/uber_download.log",
    resources:
        runtime=30,
    script:
        "../../scripts/uber_download.py"


rule uber_parse:
    """Parse the CSV once into a typed table (time, lat, lon, base); everything downstream reads it.
    Fewer records than uber_min_records fail here, naming the file and the count."""
    localrule: True
    input:
        csv=rules.uber_download.output.csv,
        provenance=rules.uber_download.output.provenance,
    output:
        f"{uber_dir()}/pickups.parquet",
    conda:
        "../envs/privopt.yaml"
    log:
        f"logs/data/{uber_key()}/uber_parse.log",
    resources:
        mem_mb=4000,
    script:
        "../../scripts/uber_parse.py"
