# Shariff & Sheffet (NeurIPS 2018): Figures 1-5 of the private contextual linear bandits.
# decision set (Fig. 1) and runs (Exp. 1-3, parameter point x seed block) -> tables -> figures (notebooks) -> claims

wildcard_constraints:
    reward="gaussian|pm1",
    d=r"\d+",
    gap=r"[0-9.e-]+",
    mechanism="wishart|gaussian",
    block=r"\d+-\d+",


rule shariff2018_decision_set:
    """Figure 1: one decision set of the common generator (d = 3, K = 1000) as a table of points."""
    output:
        "results/shariff2018/tables/fig1.csv",
    params:
        fig1=SH["fig1"],
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/shariff2018/tables/fig1.log",
    script:
        "../../scripts/shariff2018_decision_set.py"


rule shariff2018_runs_exp1:
    """Experiment 1: non-private LinUCB at one (reward model, d) for a block of seeds."""
    output:
        "results/shariff2018/runs/exp1/reward~{reward}/d~{d}/seeds~{block}.parquet",
    params:
        settings=sh_settings("exp1"),
        seeds=lambda wc: seeds_of(wc.block),
        experiment="exp1",
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/shariff2018/runs/exp1/reward~{reward}/d~{d}/seeds~{block}.log",
    threads: 1
    resources:
        mem_mb=sh_mem_mb("exp1"),
        runtime=sh_runtime("exp1"),
    script:
        "../../scripts/shariff2018_runs.py"


rule shariff2018_runs_exp2:
    """Experiment 2: the four variants on one gap for a block of seeds (common random numbers), and their audit."""
    output:
        "results/shariff2018/runs/exp2/gap~{gap}/seeds~{block}.parquet",
        audit="results/shariff2018/runs/exp2/gap~{gap}/seeds~{block}.audit.parquet",
    params:
        settings=sh_settings("exp2"),
        seeds=lambda wc: seeds_of(wc.block),
        experiment="exp2",
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/shariff2018/runs/exp2/gap~{gap}/seeds~{block}.log",
    threads: 1
    resources:
        mem_mb=sh_mem_mb("exp2"),
        runtime=sh_runtime("exp2"),
    script:
        "../../scripts/shariff2018_runs.py"


rule shariff2018_runs_exp3:
    """Experiment 3: one mechanism at every rho_min of the grid on one gap, for a block of seeds."""
    output:
        "results/shariff2018/runs/exp3/mechanism~{mechanism}/gap~{gap}/seeds~{block}.parquet",
    params:
        settings=sh_settings("exp3"),
        seeds=lambda wc: seeds_of(wc.block),
        experiment="exp3",
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/shariff2018/runs/exp3/mechanism~{mechanism}/gap~{gap}/seeds~{block}.log",
    threads: 1
    resources:
        mem_mb=sh_mem_mb("exp3"),
        runtime=sh_runtime("exp3"),
    script:
        "../../scripts/shariff2018_runs.py"


rule shariff2018_aggregate_exp1:
    """Experiment 1 runs -> Figure 2 curves table, Figure 3 table and fits, and the final regret of every run."""
    input:
        sh_run_files("exp1"),
    output:
        fig2="results/shariff2018/tables/fig2.csv",
        fig3="results/shariff2018/tables/fig3.csv",
        fit="results/shariff2018/tables/fig3_fit.csv",
        runs="results/shariff2018/tables/exp1_runs.parquet",
    params:
        experiment="exp1",
        settings=sh_settings("exp1"),
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/shariff2018/tables/exp1.log",
    script:
        "../../scripts/shariff2018_aggregate.py"


rule shariff2018_aggregate_exp2:
    """Experiment 2 runs -> Figure 4 curves table, the per-run curves and the audited rounds (claims S.1, S.2)."""
    input:
        runs=sh_run_files("exp2"),
        audits=sh_run_files("exp2", ".audit.parquet"),
    output:
        fig4="results/shariff2018/tables/fig4.csv",
        runs="results/shariff2018/tables/fig4_runs.parquet",
        audit="results/shariff2018/tables/fig4_audit.parquet",
    params:
        experiment="exp2",
        settings=sh_settings("exp2"),
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/shariff2018/tables/exp2.log",
    script:
        "../../scripts/shariff2018_aggregate.py"


rule shariff2018_aggregate_exp3:
    """Experiment 3 runs -> Figure 5 table (final regret per mechanism, gap, rho_min) and per-run values."""
    input:
        sh_run_files("exp3"),
    output:
        fig5="results/shariff2018/tables/fig5.csv",
        runs="results/shariff2018/tables/fig5_runs.parquet",
        defaults="results/shariff2018/tables/fig5_defaults.csv",
    params:
        experiment="exp3",
        settings=sh_settings("exp3"),
        mechanisms=SH["exp3"]["mechanisms"],
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/shariff2018/tables/exp3.log",
    script:
        "../../scripts/shariff2018_aggregate.py"


rule shariff2018_fig1_plot:
    """Figure 1: the example decision set in 3-D (notebook; the executed copy is kept under logs/notebooks/)."""
    input:
        table="results/shariff2018/tables/fig1.csv",
    output:
        pdf="results/figures/shariff2018/fig1.pdf",
        png=report(
            "results/figures/shariff2018/fig1.png",
            caption="../report/shariff2018_fig1.rst",
            category="Shariff & Sheffet 2018",
        ),
    params:
        gap=SH["fig1"]["gap"],
        scale=config["scale"],
    conda:
        "../envs/privopt.yaml"
    log:
        notebook="logs/notebooks/shariff2018_fig1.ipynb",
    notebook:
        "../notebooks/shariff2018_fig1.py.ipynb"


rule shariff2018_fig2_plot:
    """Figure 2: mean regret over time for each d, two reward models (notebook)."""
    input:
        table="results/shariff2018/tables/fig2.csv",
    output:
        pdf="results/figures/shariff2018/fig2.pdf",
        png=report(
            "results/figures/shariff2018/fig2.png",
            caption="../report/shariff2018_fig2.rst",
            category="Shariff & Sheffet 2018",
        ),
    params:
        scale=config["scale"],
    conda:
        "../envs/privopt.yaml"
    log:
        notebook="logs/notebooks/shariff2018_fig2.ipynb",
    notebook:
        "../notebooks/shariff2018_fig2.py.ipynb"


rule shariff2018_fig3_plot:
    """Figure 3: total regret versus d on log-log axes with the best-fit line (notebook)."""
    input:
        table="results/shariff2018/tables/fig3.csv",
        fit="results/shariff2018/tables/fig3_fit.csv",
        runs="results/shariff2018/tables/exp1_runs.parquet",
    output:
        pdf="results/figures/shariff2018/fig3.pdf",
        png=report(
            "results/figures/shariff2018/fig3.png",
            caption="../report/shariff2018_fig3.rst",
            category="Shariff & Sheffet 2018",
        ),
    params:
        scale=config["scale"],
    conda:
        "../envs/privopt.yaml"
    log:
        notebook="logs/notebooks/shariff2018_fig3.ipynb",
    notebook:
        "../notebooks/shariff2018_fig3.py.ipynb"


rule shariff2018_fig4_plot:
    """Figure 4: regret over time of the four variants, gaps 0 and 0.1 (notebook)."""
    input:
        table="results/shariff2018/tables/fig4.csv",
    output:
        pdf="results/figures/shariff2018/fig4.pdf",
        png=report(
            "results/figures/shariff2018/fig4.png",
            caption="../report/shariff2018_fig4.rst",
            category="Shariff & Sheffet 2018",
        ),
    params:
        plot_until=SH["exp2"]["plot_until"],
        scale=config["scale"],
    conda:
        "../envs/privopt.yaml"
    log:
        notebook="logs/notebooks/shariff2018_fig4.ipynb",
    notebook:
        "../notebooks/shariff2018_fig4.py.ipynb"


rule shariff2018_fig5_plot:
    """Figure 5: final regret versus rho_min for Wishart and Gaussian, one line per gap (notebook)."""
    input:
        table="results/shariff2018/tables/fig5.csv",
        defaults="results/shariff2018/tables/fig5_defaults.csv",
    output:
        pdf="results/figures/shariff2018/fig5.pdf",
        png=report(
            "results/figures/shariff2018/fig5.png",
            caption="../report/shariff2018_fig5.rst",
            category="Shariff & Sheffet 2018",
        ),
    params:
        scale=config["scale"],
    conda:
        "../envs/privopt.yaml"
    log:
        notebook="logs/notebooks/shariff2018_fig5.ipynb",
    notebook:
        "../notebooks/shariff2018_fig5.py.ipynb"


rule shariff2018_claims:
    """The statements of spec section 8 about Figures 1-5, checked on the regenerated tables."""
    input:
        fig1="results/shariff2018/tables/fig1.csv",
        fig2="results/shariff2018/tables/fig2.csv",
        exp1_runs="results/shariff2018/tables/exp1_runs.parquet",
        fig4_runs="results/shariff2018/tables/fig4_runs.parquet",
        fig4_audit="results/shariff2018/tables/fig4_audit.parquet",
        fig5_runs="results/shariff2018/tables/fig5_runs.parquet",
    output:
        report(
            "results/claims/shariff2018.csv",
            caption="../report/shariff2018_claims.rst",
            category="Shariff & Sheffet 2018",
        ),
    params:
        settings=SH,
        scale=config["scale"],
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/shariff2018/claims.log",
    script:
        "../../scripts/shariff2018_claims.py"


rule shariff2018_fig1:
    """Target: Figure 1 of Shariff & Sheffet."""
    input:
        sh_figure_files("fig1"),


rule shariff2018_fig2:
    """Target: Figure 2 of Shariff & Sheffet."""
    input:
        sh_figure_files("fig2"),


rule shariff2018_fig3:
    """Target: Figure 3 of Shariff & Sheffet."""
    input:
        sh_figure_files("fig3"),


rule shariff2018_fig4:
    """Target: Figure 4 of Shariff & Sheffet."""
    input:
        sh_figure_files("fig4"),


rule shariff2018_fig5:
    """Target: Figure 5 of Shariff & Sheffet."""
    input:
        sh_figure_files("fig5"),


rule shariff2018:
    """Target: all five figures and the claims of Shariff & Sheffet."""
    input:
        [sh_figure_files(f"fig{i}") for i in range(1, 6)],
        "results/claims/shariff2018.csv",


# Everything but the run rules stays local on a cluster (see workflow/rules/data.smk).
localrules:
    shariff2018_decision_set,
    shariff2018_aggregate_exp1,
    shariff2018_aggregate_exp2,
    shariff2018_aggregate_exp3,
    shariff2018_fig1_plot,
    shariff2018_fig2_plot,
    shariff2018_fig3_plot,
    shariff2018_fig4_plot,
    shariff2018_fig5_plot,
    shariff2018_claims,
    shariff2018_fig1,
    shariff2018_fig2,
    shariff2018_fig3,
    shariff2018_fig4,
    shariff2018_fig5,
    shariff2018,
