# Reproduction pipeline for differentially private optimisation and learning papers.
# Entry point only: rules live in workflow/rules/, helpers in workflow/rules/common.smk.
#   snakemake --cores 2                                   every figure, quick scale
#   snakemake --cores 2 chaturvedi2021_fig1               one figure
#   snakemake --cores 8 --configfile config/paper.yaml    paper scale

from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/chaturvedi2021.smk"
include: "workflow/rules/shariff2018.smk"
include: "workflow/rules/report.smk"


rule all:
    """Every figure, every paper's claims, and the reproduction report."""
    default_target: True
    input:
        report_files("image"),
        report_files("pdf"),
        [paper["claims"] for paper in REPORT_PAPERS.values()],
        "results/paper/index.html",


localrules:
    all,
