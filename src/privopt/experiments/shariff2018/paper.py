"""Shariff & Sheffet (NeurIPS 2018): the declaration the workflow reads.

Four experiments on simulated instances (docs/papers/shariff2018.md, readings R13–R18): the
decision set of Figure 1, Experiment 1 (Figures 2–3: non-private LinUCB by reward model and d),
Experiment 2 (Figure 4: the four variants on each gap, with an audit of random rounds for S.1/S.2) and
Experiment 3 (Figure 5: one mechanism at every ρ_min of the grid on each gap); beyond the paper, Figure 4c
(the Gaussian variant with each continual counter, :mod:`.counters`) and Figure 4e (its node σ calibrated exactly
to the paper's (ε, δ), :mod:`.exact`).  The config section is
``shariff2018`` (``workflow/schemas/shariff2018.schema.yaml``).
"""

from __future__ import annotations

from privopt.pipeline.protocol import Claims, ConfigError, Experiment, Figure, Paper, Prefix, Table
from privopt.pipeline.section_readers import grid, one_point, one_seed, reads, seeds_from, subsection
from privopt.experiments.shariff2018 import cost
from privopt.experiments.shariff2018.prefixes import exp3_record_step, horizon, record_step

RUNS = "privopt.experiments.shariff2018.runs"
TABLES = "privopt.experiments.shariff2018.tables"
COUNTERS = "privopt.experiments.shariff2018.counters"
EXACT = "privopt.experiments.shariff2018.exact"


def check(section) -> None:
    """Cross-key checks the schema cannot express (raised before any job is planned)."""
    if "path" not in section["exp2c"]["counters"]:
        raise ConfigError("config key shariff2018.exp2c.counters: Figure 4c's ratios are to the paper's path tree: "
                          f"list 'path', got {section['exp2c']['counters']}")
    for delta in section["exp2e"]["deltas"]:
        if isinstance(delta, str) and delta.replace(" ", "") != "1/n":
            raise ConfigError(f"config key shariff2018.exp2e.deltas: each δ is a number in (0, 1) or '1/n', got {delta!r}")
    for exp in ("exp1", "exp2", "exp2c", "exp2e", "exp3"):
        rounds = section[exp]["n_rounds"]
        if rounds is not None and rounds > section[exp]["n"]:
            raise ConfigError(
                f"config key shariff2018.{exp}.n_rounds = {rounds} exceeds shariff2018.{exp}.n = {section[exp]['n']} "
                "(quick runs are prefixes of the full-horizon run)")
    extra = sorted(set(section["exp1"]["runs_by_d"]) - set(section["exp1"]["dims"]))
    if extra:
        raise ConfigError(f"config key shariff2018.exp1.runs_by_d names d = {extra}, which are not in "
                          f"shariff2018.exp1.dims = {section['exp1']['dims']}")


def _delta(section, delta) -> float:
    """A configured δ of Figure 4e as a number ('1/n': one over the section's horizon n; the experiment module,
    :func:`.exact.resolve_delta`, is not imported here: it loads numba)."""
    return 1.0 / int(section["n"]) if isinstance(delta, str) else float(delta)


def _exp2e_points(section):
    """Every gap × every δ of Figure 4e, the δ as a number (a value computed from the config: a plain function)."""
    exp = section["exp2e"]
    return [{"gap": float(g), "delta": _delta(exp, d)} for g in exp["gaps"] for d in exp["deltas"]]


def _exp1_runs(section, point):
    """The runs of Experiment 1 at the point's d: ``exp1.runs_by_d`` where it names d (a reference computed in parts
    holds fewer runs at its dearest d), else ``exp1.runs``."""
    return int(section["exp1"]["runs_by_d"].get(point["d"], section["exp1"]["runs"]))


def _sci(x: float) -> str:
    """10^5, 2·10^6, 5·10^7: how the paper writes its horizons."""
    mant, exp = f"{float(x):.0e}".split("e")
    return f"10^{int(exp)}" if mant == "1" else f"{mant}·10^{int(exp)}"


def scale_label(section) -> str:
    """What a run of this configuration is, in words (the reference manifest and the report show it)."""
    parts = []
    for name, what in (("exp1", "Figs. 2–3"), ("exp2", "Fig. 4"), ("exp2c", "Fig. 4c"), ("exp2e", "Fig. 4e"),
                       ("exp3", "Fig. 5")):
        e = section[name]
        horizon = (f"{_sci(e['n'])}-round runs" if e["n_rounds"] in (None, e["n"])
                   else f"{_sci(e['n_rounds'])}-round prefixes of the {_sci(e['n'])}-round runs")
        grid = (f"d ∈ {{{', '.join(str(d) for d in e['dims'])}}} × 2 reward models, " if name == "exp1"
                else f"{len(e['gaps'])} gaps, " if name == "exp3" else "")
        fewer = e.get("runs_by_d", {})
        runs = f"{e['runs']} runs" + (" (" + ", ".join(f"{n} at d = {d}" for d, n in sorted(fewer.items())) + ")"
                                      if fewer else "")
        parts.append(f"{what}: {grid}{runs} on {horizon}")
    return "; ".join(parts)


EXP1_READS = ("n", "n_rounds", "gap", "rec_every")
EXP2_READS = ("n", "n_rounds", "d", "eps", "delta", "variants", "wishart_gamma_rule", "k_rule", "rec_every",
              "audit_rounds")
EXP2C_READS = ("n", "n_rounds", "d", "eps", "delta", "counters", "rec_every")
EXP2E_READS = ("n", "n_rounds", "d", "eps", "counter", "rec_every")
EXP3_READS = ("n", "n_rounds", "d", "eps", "delta", "k_rule", "rho_grid", "rec_points")
PREFIXES = "privopt.experiments.shariff2018.prefixes"


def _prefix(function: str, step=record_step, totals=("pd_failures",)) -> Prefix:
    """How verify checks a job too long to recompute whole: its first rounds (``function`` of prefixes.py)."""
    return Prefix(run=f"{PREFIXES}:{function}", horizon=horizon, step=step, totals=totals)


PAPER = Paper(
    key="shariff2018",
    title="Differentially Private Contextual Linear Bandits",
    authors="Roshan Shariff, Or Sheffet",
    venue="NeurIPS 2018",
    reading="docs/papers/shariff2018.md",
    short="Shariff & Sheffet 2018",
    summary="Figs 1–5, simulated instances; beyond the paper, Fig. 4c (the Gaussian variant with each continual counter) and Fig. 4e (its node σ calibrated exactly to the paper's (ε, δ))",
    styles="privopt.experiments.shariff2018.styles:STYLES",
    reported="privopt.experiments.shariff2018.paper_numbers:REPORTED",
    scale_label=scale_label,
    # Decisions and regrets are bit for bit the same with numba compiled for a generic x86-64 and OpenBLAS's
    # Prescott kernels; two diagnostics go through LAPACK/BLAS and move by a few units in the last place there
    # (up to 8 seen): the eigenvalues of the Exp. 2 audit rows (LAPACK is accurate to a few n·ε·‖H‖ whatever
    # its kernel) and the normalised arms of Figure 1's decision set.
    verify_ulps=64,
    experiments=(
        Experiment(
            name="fig1",
            label="Shariff & Sheffet Fig. 1 (decision set)",
            points=one_point,
            settings=subsection("fig1"),
            seeds=one_seed,
            run=f"{RUNS}:fig1_job",
            tables=f"{TABLES}:fig1_tables",
            table_files=(Table("fig1.csv", float_format="%.12g"),),
            cost=cost.job_seconds,
        ),
        Experiment(
            name="exp1",
            label="Shariff & Sheffet Figs. 2–3 (Exp. 1)",
            points=grid(reward="exp1.rewards", d=("exp1.dims", int)),
            settings=reads(*EXP1_READS, under="exp1"),
            seeds=seeds_from("exp1.runs", "exp1.seeds_per_job"),
            point_runs=_exp1_runs,
            run=f"{RUNS}:exp1_job",
            tables=f"{TABLES}:exp1_tables",
            # the reference keeps every 10th recorded round of the curves (every 1,000 at the paper's rec_every)
            table_files=(Table("fig2.csv", thin=10), Table("fig3.csv"), Table("fig3_fit.csv"),
                         Table("exp1_runs.parquet"), Table("fig3_band.csv")),
            cost=cost.job_seconds,
            data_mb=cost.job_data_mb,
        ),
        Experiment(
            name="exp2",
            label="Shariff & Sheffet Fig. 4 (Exp. 2)",
            points=grid(gap=("exp2.gaps", float)),
            settings=reads(*EXP2_READS, under="exp2"),
            seeds=seeds_from("exp2.runs", "exp2.seeds_per_job"),
            run=f"{RUNS}:exp2_job",
            outputs={"runs": "", "audit": ".audit"},
            tables=f"{TABLES}:exp2_tables",
            # the reference keeps every 4th recorded round of the per-run curves (every 20,000 at the paper's rec_every)
            # curves of at most about 500 points whatever the horizon, within the references' budget: the
            # 2·10^6-round prefix's 401 are kept as they are, the full horizon's 10^4 thinned ×21
            table_files=(Table("fig4.csv", max_points=500), Table("fig4_runs.parquet", thin=4, max_points=125),
                         Table("fig4_audit.parquet", thin=2)),
            cost=cost.job_seconds,
            data_mb=cost.job_data_mb,
            prefix=_prefix("exp2_prefix", totals=("pd_failures", "n_optimal")),
        ),
        Experiment(
            name="exp2c",
            label="Shariff & Sheffet Fig. 4c (Gaussian variant per continual counter, beyond the paper)",
            points=grid(gap=("exp2c.gaps", float)),
            settings=reads(*EXP2C_READS, under="exp2c"),
            seeds=seeds_from("exp2c.runs", "exp2c.seeds_per_job"),
            run=f"{COUNTERS}:exp2c_job",
            tables=f"{COUNTERS}:exp2c_tables",
            table_files=(Table("fig4c.csv", max_points=500), Table("fig4c_ratio.csv"), Table("fig4c_runs.parquet")),
            cost=cost.job_seconds,
            data_mb=cost.job_data_mb,
            prefix=_prefix("shorter_prefix"),
        ),
        Experiment(
            name="exp2e",
            label="Shariff & Sheffet Fig. 4e (Gaussian variant calibrated exactly to the paper's (ε, δ), beyond the paper)",
            points=_exp2e_points,
            settings=reads(*EXP2E_READS, under="exp2e"),
            seeds=seeds_from("exp2e.runs", "exp2e.seeds_per_job"),
            run=f"{EXACT}:exp2e_job",
            tables=f"{EXACT}:exp2e_tables",
            table_files=(Table("fig4e.csv", max_points=500), Table("fig4e_ratio.csv"), Table("fig4e_runs.parquet")),
            cost=cost.job_seconds,
            data_mb=cost.job_data_mb,
            prefix=_prefix("shorter_prefix"),
        ),
        Experiment(
            name="exp3",
            label="Shariff & Sheffet Fig. 5 (Exp. 3)",
            points=grid(mechanism="exp3.mechanisms", gap=("exp3.gaps", float)),
            settings=reads(*EXP3_READS, under="exp3"),
            seeds=seeds_from("exp3.runs", "exp3.seeds_per_job"),
            run=f"{RUNS}:exp3_job",
            tables=f"{TABLES}:exp3_tables",
            table_files=(Table("fig5.csv"), Table("fig5_runs.parquet"), Table("fig5_defaults.csv")),
            table_settings=reads("n", "d", "eps", "delta", "k_rule", "mechanisms", under="exp3"),
            cost=cost.job_seconds,
            data_mb=cost.job_data_mb,
            prefix=_prefix("exp3_prefix", step=exp3_record_step, totals=("pd_failures", "n_optimal")),
        ),
    ),
    figures=(
        Figure("fig1", title="Figure 1 — an example decision set, d = 3, K = 1000",
               original_caption="An example decision set in R^3 with K = 1000 actions.",
               caption=('Shariff & Sheffet (2018), Figure 1: one decision set of the common instance generator, d = 3, K = '
                        '{{ snakemake.config["shariff2018"]["fig1"]["K"] }} actions, Δ = '
                        '{{ snakemake.config["shariff2018"]["fig1"]["gap"] }}, θ* = (1,1,1)/√3 (shariff2018 reading R16). Sub-optimal '
                        'actions lie in the band ⟨x,θ*⟩ ∈ [−0.75, 0.75 − Δ]; the single optimal action has ⟨x,θ*⟩ = 0.75.'),
               inputs={"table": "fig1"}, params=reads("fig1.gap")),
        Figure("fig2", title="Figure 2 — non-private LinUCB, regret over time for varying d",
               original_caption="Experiment 1 — Regret over time for varying dimensions.",
               caption=('Shariff & Sheffet (2018), Figure 2 (Experiment 1): mean cumulative pseudo-regret of non-private '
                        'LinUCB over time for d ∈ {{ snakemake.config["shariff2018"]["exp1"]["dims"] }}, K = d², Δ = '
                        '{{ snakemake.config["shariff2018"]["exp1"]["gap"] }}, horizon n = '
                        '{{ snakemake.config["shariff2018"]["exp1"]["n"] }} ({{ '
                        'snakemake.config["shariff2018"]["exp1"]["runs"] }} runs per curve{% if snakemake.config["shariff2018"]["exp1"]["runs_by_d"] %}, '
                        'except {{ snakemake.config["shariff2018"]["exp1"]["runs_by_d"] }} ({d: runs}){% endif %}; '
                        'ribbons ±1 SEM). Left Gaussian '
                        'N(0,1) reward noise, right ±1 rewards.'),
               inputs={"table": "fig2"}),
        Figure("fig3", title="Figure 3 — total regret versus d, log–log, best-fit line",
               original_caption="Experiment 1 — Regret vs. dimension with log–log axes and best-fit line.",
               caption=('Shariff & Sheffet (2018), Figure 3 (Experiment 1): total regret R̂_n versus d on log–log axes, '
                        'every run as a faint point, per-d means ±1 SEM, and the OLS line of log R̂_n on log d over all '
                        'runs (slope b and its bootstrap 95% CI, runs resampled within each d, in the legend).'),
               inputs={"table": "fig3", "fit": "fig3_fit", "band": "fig3_band", "runs": "exp1_runs"}),
        Figure("fig4", title="Figure 4 — private variants over time, Δ = 0 and Δ = 0.1",
               original_caption="Experiment 2 — Regret over time, with and without forced sub-optimality gaps.",
               caption=('Shariff & Sheffet (2018), Figure 4 (Experiment 2): mean cumulative pseudo-regret of NonPrivate, '
                        "Gaussian, Wishart (shift −c, γ' rule "
                        '{{ snakemake.config["shariff2018"]["exp2"]["wishart_gamma_rule"] }}) and WishartUnshifted, d = '
                        '{{ snakemake.config["shariff2018"]["exp2"]["d"] }}, ε = '
                        '{{ snakemake.config["shariff2018"]["exp2"]["eps"] }}, δ = '
                        '{{ snakemake.config["shariff2018"]["exp2"]["delta"] }}, all constants for n = '
                        '{{ snakemake.config["shariff2018"]["exp2"]["n"] }}; simulated rounds: '
                        '{{ snakemake.config["shariff2018"]["exp2"]["n_rounds"] }} (null = n; a prefix of the full run at '
                        'quick scale). Left Δ = 0, right Δ = 0.1; {{ snakemake.config["shariff2018"]["exp2"]["runs"] }} '
                        'runs per curve, ribbons ±1 SEM.'),
               inputs={"table": "fig4"}, params=reads("exp2.plot_until")),
        Figure("fig4c", title="Figure 4c (new, beyond the paper) — the Gaussian variant with each continual counter",
               original_caption=("(none: a new figure beside Figure 4, issue 27: what modern continual counting buys the "
                                 "Gaussian variant at the paper's privacy)"),
               caption=('Shariff & Sheffet (2018), new figure 4c (beyond the paper): the Gaussian variant of Figure 4 with '
                        "its noise from each continual counter at the paper's privacy (equal ‖C‖_col,2/σ: the same "
                        "Gaussian-mechanism μ as the paper's path tree): the path tree (the paper's: all m levels summed "
                        'every round), the dyadic binary tree on the same nodes, Honaker\'s estimator on it, and the '
                        'smooth binary mechanism; shift, ρ_min, ρ_max and γ follow each counter\'s worst entry variance '
                        'over the horizon.  d = {{ snakemake.config["shariff2018"]["exp2c"]["d"] }}, ε = '
                        '{{ snakemake.config["shariff2018"]["exp2c"]["eps"] }}, δ = '
                        '{{ snakemake.config["shariff2018"]["exp2c"]["delta"] }}, constants for n = '
                        '{{ snakemake.config["shariff2018"]["exp2c"]["n"] }}; simulated rounds: '
                        '{{ snakemake.config["shariff2018"]["exp2c"]["n_rounds"] }} (null = n); Figure 4\'s seeds, so the '
                        'path tree\'s curve is Figure 4\'s Gaussian one.  Top: mean regret over time, band the 95 % '
                        'bootstrap interval of the mean over the runs; bottom: mean regret as a ratio to the path tree\'s, '
                        'bars the 95 % paired-bootstrap interval over the runs.  Claims F4c.a–c.'),
               inputs={"table": "fig4c", "ratio": "fig4c_ratio"}),
        Figure("fig4e", title="Figure 4e (new, beyond the paper) — the Gaussian variant with σ calibrated exactly to "
                              "the paper's (ε, δ)",
               original_caption=("(none: a new figure beside Figure 4, issue 39: what exact privacy accounting buys "
                                 "the Gaussian variant at the paper's own guarantee)"),
               caption=('Shariff & Sheffet (2018), new figure 4e (beyond the paper): the Gaussian variant of Figure 4 '
                        "with its node σ calibrated exactly to the paper's (ε, δ): the m node releases of one item are "
                        "one Gaussian mechanism of L2 sensitivity √m·L̃² (the paper's own model), calibrated by the "
                        "analytic Gaussian mechanism (Balle & Wang 2018) instead of the paper's "
                        "σ = 4√m·L̃²·log(4/δ)/ε; Υ, the shift 2Υ, ρ_min, ρ_max and γ follow the new σ as the paper "
                        'derives them.  Beside it: the same with the best continual counter of Figure 4c ('
                        '{{ snakemake.config["shariff2018"]["exp2e"]["counter"] }}) on nodes of the exact σ, the '
                        "paper's calibration and the non-private learner.  d = "
                        '{{ snakemake.config["shariff2018"]["exp2e"]["d"] }}, ε = '
                        '{{ snakemake.config["shariff2018"]["exp2e"]["eps"] }}, δ ∈ '
                        '{{ snakemake.config["shariff2018"]["exp2e"]["deltas"] }} (one row each), constants for n = '
                        '{{ snakemake.config["shariff2018"]["exp2e"]["n"] }}; simulated rounds: '
                        '{{ snakemake.config["shariff2018"]["exp2e"]["n_rounds"] }} (null = n); Figure 4\'s seeds, so '
                        "at δ = 0.1 the paper's and the non-private curves are Figure 4's.  One column per gap, two rows "
                        "per δ: mean regret over time (log scale), band the 95 % bootstrap interval of the mean over "
                        "the runs; below it, each variant's mean regret as a ratio to the paper calibration's at "
                        "log-spaced rounds, bars the 95 % paired-bootstrap interval over the runs.  Claims F4e.a–b."),
               inputs={"table": "fig4e", "ratio": "fig4e_ratio"}),
        Figure("fig5", title="Figure 5 — final regret versus ρ_min, Wishart and Gaussian, several gaps",
               original_caption="Experiment 3 — Varying shift parameters with different sub-optimality gaps.",
               caption=('Shariff & Sheffet (2018), Figure 5 (Experiment 3): regret at the last simulated round ({{ '
                        'snakemake.config["shariff2018"]["exp3"]["n_rounds"] }}; null = n = '
                        '{{ snakemake.config["shariff2018"]["exp3"]["n"] }}) versus the ρ_min of the shifted regulariser, '
                        'Wishart (left) and Gaussian (right), one line per gap Δ ∈ '
                        '{{ snakemake.config["shariff2018"]["exp3"]["gaps"] }}; '
                        '{{ snakemake.config["shariff2018"]["exp3"]["runs"] }} runs per point, bars ±1 SEM. Dotted lines: '
                        "default ρ_min of the shifted Gaussian (Υ), shifted Wishart (ρ'_min; this point uses the Claim-20 "
                        "γ, not Figure 4's Prop. 9 γ') and unshifted Wishart."),
               inputs={"table": "fig5", "defaults": "fig5_defaults"}),
    ),
    claims=Claims(
        evaluate="privopt.experiments.shariff2018.claims:evaluate",
        inputs=("fig1", "fig2", "exp1_runs", "fig4_runs", "fig4_audit", "fig4c_ratio", "fig4e_ratio",
                "fig5_runs"),
        settings=reads(fig1=reads("K", "gap", under="fig1"), exp1=reads("n", under="exp1"),
                       exp2=reads("n", "n_rounds", "plot_until", "wishart_gamma_rule", "audit_rounds", under="exp2"),
                       exp3=reads("n", "d", "eps", "delta", "k_rule", under="exp3")),
        caption=('The claims of Shariff & Sheffet about Figures 1–5 (shariff2018 reading R20), each '
                 'evaluated from the regenerated tables: measured value, threshold and verdict (reproduced / not '
                 'reproduced / not evaluated) at scale "{{ snakemake.config["scale"] }}" (quick-scale thresholds at '
                 'quick and smoke scale).'),
    ),
    check=check,
    audits=("privopt.audit.tree:audits",),
)
