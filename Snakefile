# Reproduction pipeline for differentially private optimisation and learning papers.
# Entry point only: every registered paper (src/privopt/experiments/<paper>/paper.py) gets the
# generic rules of workflow/rules/papers.smk; helpers live in workflow/rules/common.smk.
#   snakemake --cores 2                                   every figure, quick scale
#   snakemake --cores 2 chaturvedi2021_fig1               one figure
#   snakemake --cores 8 --configfile config/paper.yaml    paper scale
# Results go to results/<scale>/ (quick, paper, smoke, ...), those of a paper reading data under the check its
# data passed (results/<scale>/uber~<check>/), so no scale or data overwrites another's.

import sys
from pathlib import Path

from snakemake.utils import min_version

min_version("9.0")


# A YAML syntax error in it is reported with the file and line (Snakemake's own message names neither).
sys.path.insert(0, str(Path(workflow.basedir) / "src"))
from privopt.pipeline.config import read_config_file

read_config_file("config/config.yaml")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/papers.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/reference.smk"


rule all:
    """Every figure, every paper's claims, the privacy audits, and the reproduction report."""
    default_target: True
    localrule: True
    input:
        all_figure_files("png"),
        all_figure_files("pdf"),
        all_claims_files(),
        rules.privacy_audit.output,
        rules.report_html.output,
        # a reference whose manifest or a listed file is missing: its claims job fails, naming the file
        reference_broken_files(),
        # run files lost beneath their tables (an interrupted --forcerun): computed again (common.smk)
        lost_run_files(),


onsuccess:
    # where the report of this scale and data is (its folder is named after the data's check)
    if Path(rules.report_html.output[0]).is_file():
        print(f"The reproduction report: {rules.report_html.output[0]}", file=sys.stderr)
