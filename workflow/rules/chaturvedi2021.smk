# Chaturvedi, Nguyen, Zakynthinou (AAAI 2021): Figures 1 and 2 from the Uber pickups.
# instances -> runs (parameter point × seed block) -> tables -> figures (notebooks) -> claims

wildcard_constraints:
    figure="fig[12]",
    reading="[A-Za-z0-9_]+",
    param="[rm]",
    point=r"\d+",
    block=r"\d+-\d+",


rule chaturvedi2021_instance:
    """Candidate locations, the in-box pool of pickups and the normaliser C of one figure."""
    input:
        rules.uber_parse.output,
    output:
        pool="results/chaturvedi2021/instances/{figure}/pool.parquet",
        locations="results/chaturvedi2021/instances/{figure}/locations.csv",
        meta="results/chaturvedi2021/instances/{figure}/instance.json",
    params:
        # Only what the instance depends on, so that editing a reading reruns its runs only.
        n_copies=lambda wc: CH["fig1"]["n_copies"] if wc.figure == "fig1" else 0,
        grid_modes=lambda wc: ch_grid_modes() if wc.figure == "fig1" else [],
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/chaturvedi2021/instances/{figure}.log",
    script:
        "../../scripts/chaturvedi2021_instance.py"


rule chaturvedi2021_runs:
    """All algorithms on the datasets of one parameter point and a block of seeds."""
    input:
        pool=rules.chaturvedi2021_instance.output.pool,
        locations=rules.chaturvedi2021_instance.output.locations,
        meta=rules.chaturvedi2021_instance.output.meta,
    output:
        "results/chaturvedi2021/runs/{figure}/{reading}/{param}~{point}/seeds~{block}.parquet",
    params:
        common=lambda wc: {k: v for k, v in CH.items() if k in ("eps", "delta_exponent", "delta")},
        fig=lambda wc: {k: v for k, v in CH[wc.figure].items() if k not in ("readings", "plot_reading", "n_runs")},
        settings=lambda wc: CH[wc.figure]["readings"][wc.reading],
        seeds=lambda wc: seeds_of(wc.block),
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/chaturvedi2021/runs/{figure}/{reading}/{param}~{point}/seeds~{block}.log",
    threads: 1
    resources:
        mem_mb=ch_mem_mb,
        runtime=ch_runtime,
    script:
        "../../scripts/chaturvedi2021_runs.py"


rule chaturvedi2021_aggregate:
    """Per-run records of one figure -> mean, std, SEM, N per (reading, point, algorithm)."""
    input:
        lambda wc: ch_run_files(wc.figure),
    output:
        table="results/chaturvedi2021/tables/{figure}.csv",
        runs="results/chaturvedi2021/tables/{figure}_runs.parquet",
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/chaturvedi2021/tables/{figure}.log",
    script:
        "../../scripts/chaturvedi2021_aggregate.py"


rule chaturvedi2021_fig1_plot:
    """Figure 1: utility versus rank (notebook; the executed copy is kept under logs/notebooks/)."""
    input:
        table="results/chaturvedi2021/tables/fig1.csv",
    output:
        pdf="results/figures/chaturvedi2021/fig1.pdf",
        png=report(
            "results/figures/chaturvedi2021/fig1.png",
            caption="../report/chaturvedi2021_fig1.rst",
            category="Chaturvedi et al. 2021",
        ),
    params:
        plot_reading=CH["fig1"]["plot_reading"],
        eps=CH["eps"],
        scale=config["scale"],
    conda:
        "../envs/privopt.yaml"
    log:
        notebook="logs/notebooks/chaturvedi2021_fig1.ipynb",
    notebook:
        "../notebooks/chaturvedi2021_fig1.py.ipynb"


rule chaturvedi2021_fig2_plot:
    """Figure 2: utility/m versus m (notebook; the executed copy is kept under logs/notebooks/)."""
    input:
        table="results/chaturvedi2021/tables/fig2.csv",
    output:
        pdf="results/figures/chaturvedi2021/fig2.pdf",
        png=report(
            "results/figures/chaturvedi2021/fig2.png",
            caption="../report/chaturvedi2021_fig2.rst",
            category="Chaturvedi et al. 2021",
        ),
    params:
        plot_reading=CH["fig2"]["plot_reading"],
        eps=CH["eps"],
        scale=config["scale"],
    conda:
        "../envs/privopt.yaml"
    log:
        notebook="logs/notebooks/chaturvedi2021_fig2.ipynb",
    notebook:
        "../notebooks/chaturvedi2021_fig2.py.ipynb"


rule chaturvedi2021_claims:
    """The paper's statements about Figures 1 and 2, checked on the regenerated tables."""
    input:
        fig1="results/chaturvedi2021/tables/fig1.csv",
        fig2="results/chaturvedi2021/tables/fig2.csv",
    output:
        report(
            "results/claims/chaturvedi2021.csv",
            caption="../report/chaturvedi2021_claims.rst",
            category="Chaturvedi et al. 2021",
        ),
    params:
        eps=CH["eps"],
        m=CH["fig1"]["m"],
        delta_exponent=CH["delta_exponent"],
        delta=CH["delta"],
        scale=config["scale"],
    conda:
        "../envs/privopt.yaml"
    log:
        "logs/chaturvedi2021/claims.log",
    script:
        "../../scripts/chaturvedi2021_claims.py"


rule chaturvedi2021_fig1:
    """Target: Figure 1 of Chaturvedi et al."""
    input:
        ch_figure_files("fig1"),


rule chaturvedi2021_fig2:
    """Target: Figure 2 of Chaturvedi et al."""
    input:
        ch_figure_files("fig2"),


rule chaturvedi2021:
    """Target: both figures and the claims of Chaturvedi et al."""
    input:
        ch_figure_files("fig1"),
        ch_figure_files("fig2"),
        "results/claims/chaturvedi2021.csv",


# Everything but the run rules stays local on a cluster (see workflow/rules/data.smk).
localrules:
    chaturvedi2021_instance,
    chaturvedi2021_aggregate,
    chaturvedi2021_fig1_plot,
    chaturvedi2021_fig2_plot,
    chaturvedi2021_claims,
    chaturvedi2021_fig1,
    chaturvedi2021_fig2,
    chaturvedi2021,
