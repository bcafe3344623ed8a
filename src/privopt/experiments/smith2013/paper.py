"""Smith & Thakurta (NIPS 2013): the declaration the workflow reads.

The paper has no experiments or figures; every figure here is **new** (smith2013 reading R12, figures ST-0 … ST-4)
and illustrates a theorem empirically — none is "paper figure N".  Experiments: ST-0 (TBAP error, one point per d),
ST-1 (regret vs T on the Uber disk, one point per T), ST-1c (the same with each continual counter,
beyond the paper), ST-2 (regret vs ε at fixed T), ST-3 (regret vs
the dimension p on a synthetic stream, one point per p), ST-4 (bandit PFTAL regret vs T), and the
privacy checks.  Inside a job, both losses (or both β rules) and every ε of the grid plus ε = ∞ run on
the same point streams.  The config section is ``smith2013`` (``workflow/schemas/smith2013.schema.yaml``).
"""

from __future__ import annotations

from privopt.pipeline.protocol import Claims, ConfigError, Experiment, Figure, Instance, Paper, Table
from privopt.pipeline.section_readers import grid, one_point, one_seed, reads, seeds_from, subsection
from privopt.experiments.smith2013 import cost

RUNS = "privopt.experiments.smith2013.runs"
TABLES = "privopt.experiments.smith2013.tables"
#: keys of the section every PFTAL run reads
COMMON = ("c_sens", "h_rule")
NEW = ("(none: the paper has no experiments or figures; this is a new figure of the project's design, {fig}, "
       "illustrating {what})")


def check(section) -> None:
    """Cross-key checks the schema cannot express (raised before any job is planned)."""
    if "st0c" in section and int(section["st0c"]["bands"]) > int(section["st0c"]["T"]):
        raise ConfigError(f"config key smith2013.st0c.bands: at most T = {section['st0c']['T']} bands, got "
                          f"{section['st0c']['bands']}")
    for name in ("st1", "st1c", "st4"):
        if name in section and sorted(section[name]["T"]) != list(section[name]["T"]):
            raise ConfigError(f"config key smith2013.{name}.T: list the horizons in increasing order, "
                              f"got {section[name]['T']}")
    if "st1c" in section and "tree" not in section["st1c"]["counters"]:
        raise ConfigError("config key smith2013.st1c.counters: the tree (TBAP, the paper's) must run: every ratio is "
                          f"to it, got {section['st1c']['counters']}")
    if sorted(section["st3"]["dims"]) != list(section["st3"]["dims"]):
        raise ConfigError(f"config key smith2013.st3.dims: list the dimensions in increasing order, "
                          f"got {section['st3']['dims']}")
    for name in ("st1", "st1c", "st2", "st3", "st4"):
        if name not in section:
            continue
        eps = section[name]["eps"]
        if sorted(eps) != list(eps):
            raise ConfigError(f"config key smith2013.{name}.eps: list the values in increasing order, got {eps}")


PAPER = Paper(
    key="smith2013",
    title="(Nearly) Optimal Algorithms for Private Online Learning in Full-information and Bandit Settings",
    authors="Adam Smith, Abhradeep Thakurta",
    venue="NIPS 2013",
    reading="docs/papers/smith2013.md",
    short="Smith & Thakurta 2013",
    summary="new figures ST-0–ST-4 (the paper has none), Uber pickups and a synthetic stream",
    styles="privopt.experiments.smith2013.styles:STYLES",
    kind="theory",
    instances=(
        Instance("disk", build="privopt.experiments.smith2013.instances:build", outputs=("disk.parquet", "disk.json"),
                 datasets=("uber",)),
    ),
    experiments=(
        Experiment(
            name="st0",
            label="Smith & Thakurta ST-0 (TBAP error)",
            points=grid(d=("st0.d", int)),
            settings=reads("T", "eps", "mu", under="st0", also=("c_sens",)),
            # every tree of a dimension in one job: the per-t sums are then added in seed order
            seeds=seeds_from("st0.draws", "st0.draws"),
            run=f"{RUNS}:st0_job",
            tables=f"{TABLES}:st0_tables",
            table_files=(Table("st0.csv"),),
            cost=cost.job_seconds,
            data_mb=cost.job_data_mb,
        ),
        Experiment(
            name="st0c",
            label="Smith & Thakurta ST-0c (continual counters, beyond the paper)",
            points=grid(guarantee="st0c.guarantees"),
            settings=reads("T", "p", "eps", "delta", "sensitivity", "bands", under="st0c"),
            # every draw of a guarantee in one job: the per-t sums are then added in seed order
            seeds=seeds_from("st0c.draws", "st0c.draws"),
            run="privopt.experiments.smith2013.counters:st0c_job",
            outputs={"runs": "", "seeds": ".seeds"},
            tables=f"{TABLES}:st0c_tables",
            table_files=(Table("st0c.parquet", thin=16), Table("st0c_ratio.csv")),
            cost=cost.job_seconds,
            data_mb=cost.job_data_mb,
        ),
        Experiment(
            name="st1",
            label="Smith & Thakurta ST-1 (regret vs T)",
            points=grid(T=("st1.T", int)),
            settings=reads("losses", "eps", under="st1", also=COMMON),
            seeds=seeds_from("st1.runs", "st1.seeds_per_job"),
            run=f"{RUNS}:uber_job",
            instances=("disk",),
            tables=f"{TABLES}:st1_tables",
            table_files=(Table("st1.csv"), Table("st1_runs.parquet")),
            cost=cost.job_seconds,
            data_mb=cost.job_data_mb,
        ),
        Experiment(
            name="st1c",
            label="Smith & Thakurta ST-1c (PFTAL regret with each continual counter, beyond the paper)",
            points=grid(T=("st1c.T", int)),
            settings=reads("losses", "eps", "counters", under="st1c", also=COMMON),
            seeds=seeds_from("st1c.runs", "st1c.seeds_per_job"),
            run="privopt.experiments.smith2013.pftal_counters:st1c_job",
            instances=("disk",),
            tables=f"{TABLES}:st1c_tables",
            table_files=(Table("st1c.csv"), Table("st1c_runs.parquet")),
            cost=cost.job_seconds,
            data_mb=cost.job_data_mb,
        ),
        Experiment(
            name="st2",
            label="Smith & Thakurta ST-2 (regret vs ε)",
            points=one_point,
            settings=reads("losses", "T", "eps", under="st2", also=COMMON),
            seeds=seeds_from("st2.runs", "st2.seeds_per_job"),
            run=f"{RUNS}:uber_job",
            instances=("disk",),
            tables=f"{TABLES}:st2_tables",
            table_files=(Table("st2.csv"), Table("st2_runs.parquet")),
            cost=cost.job_seconds,
            data_mb=cost.job_data_mb,
        ),
        Experiment(
            name="st3",
            label="Smith & Thakurta ST-3 (regret vs p)",
            points=grid(p=("st3.dims", int)),
            settings=reads("losses", "T", "eps", under="st3", also=COMMON),
            seeds=seeds_from("st3.runs", "st3.seeds_per_job"),
            run=f"{RUNS}:st3_job",
            tables=f"{TABLES}:st3_tables",
            table_files=(Table("st3.csv"), Table("st3_runs.parquet")),
            cost=cost.job_seconds,
            data_mb=cost.job_data_mb,
        ),
        Experiment(
            name="st4",
            label="Smith & Thakurta ST-4 (bandit regret vs T)",
            points=grid(T=("st4.T", int)),
            settings=reads("beta_rules", "eps", "B", "H", under="st4", also=("c_sens",)),
            seeds=seeds_from("st4.runs", "st4.seeds_per_job"),
            run=f"{RUNS}:st4_job",
            instances=("disk",),
            tables=f"{TABLES}:st4_tables",
            table_files=(Table("st4.csv"), Table("st4_runs.parquet")),
            cost=cost.job_seconds,
            data_mb=cost.job_data_mb,
        ),
        Experiment(
            name="privacy",
            label="Smith & Thakurta privacy checks",
            points=one_point,
            settings=subsection("privacy"),
            seeds=one_seed,
            run="privopt.experiments.smith2013.privacy:privacy_job",
            tables=f"{TABLES}:privacy_tables",
            table_files=(Table("privacy.csv", float_format="%.6g"),),
            cost=cost.job_seconds,
        ),
    ),
    figures=(
        Figure("st0", title="ST-0 (new) — TBAP error against the exact formula",
               original_caption=NEW.format(fig="ST-0", what="the accuracy of the tree-based aggregation protocol"),
               caption=('Smith & Thakurta (2013), new figure ST-0 (not in the paper, which has no experiments): the error '
                        'of the tree-based aggregation protocol TBAP (dyadic tree, ℓ2-Laplace node noise of scale λ = '
                        'c_sens·μ·K/ε) over the items t of one tree, averaged over independent trees, against the exact '
                        'E‖v̂_t − v_t‖² = popcount(t)·d(d+1)·λ² (claim ST0.a).'),
               inputs={"table": "st0"}),
        Figure("st0c", title="ST-0c (new, beyond the paper) — prefix-sum error of every continual counter against its formula",
               original_caption=NEW.format(fig="ST-0c", what="what modern continual counting buys TBAP (issue 27)"),
               caption=('Smith & Thakurta (2013), new figure ST-0c (beyond the paper, which has no experiments): the '
                        'error of the released prefix sum of every continual counter of privopt.mechanisms.counting at '
                        'the same (T, p, Δ, ε) (pure ε, ℓ2-Laplace seeds: tree, Honaker, smooth binary) or (ε, δ) '
                        '(Gaussian seeds: also the square-root factorisation, full and banded), over '
                        '{{ snakemake.config["smith2013"]["st0c"]["draws"] }} independent draws.  (a) pure ε and (b) (ε, δ): '
                        'measured RMS error at each t (octave means, dots) against the exact √Var N_i(t) (lines); the band '
                        'is the range of the per-t measured RMS within the octave.  (c) each counter\'s variance averaged over t, '
                        'as a ratio to the tree\'s: measured (95 % interval over the draws) and formula.  Claims ST0c.a–b.'),
               inputs={"table": "st0c", "ratio": "st0c_ratio"}),
        Figure("st1", title="ST-1 (new) — PFTAL regret versus T on the Uber disk",
               original_caption=NEW.format(fig="ST-1", what="Thm 4 (strongly convex) and §2.1 (Lipschitz losses)"),
               caption=('Smith & Thakurta (2013), new figure ST-1 (not in the paper, which has no experiments): regret of '
                        'PFTAL versus the horizon T on i.i.d. Uber pickups in the unit disk (25 km about Midtown), each T '
                        'a separate run, for several ε and the non-private baseline (black).  Left: ½‖w − x_t‖² (Thm 4 '
                        'predicts O(p log^2.5 T/ε)); right: ‖w − x_t‖ with the regularisation H*(T, ε) (√T).  On these '
                        'stochastic streams private curves are linear during a burn-in ∝ 1/ε, then flatten (smith2013 reading R13); the '
                        'theorems are upper bounds.  Claims ST1.a–d.'),
               inputs={"table": "st1"},
               params=reads("h_rule", "c_sens")),
        Figure("st1c", title="ST-1c (new, beyond the paper) — PFTAL regret with each continual counter at the same ε",
               original_caption=NEW.format(fig="ST-1c", what="what modern continual counting buys PFTAL (issue 27)"),
               caption=('Smith & Thakurta (2013), new figure ST-1c (beyond the paper, which has no experiments): regret '
                        'of PFTAL on ST-1\'s Uber stream (p = 2) when its private prefix sums come from each continual '
                        'counter of privopt.mechanisms.counting at the same pure ε: the tree (TBAP, the paper\'s, '
                        'λ = c_sens·μ·K/ε), Honaker\'s estimator on the same tree at the same λ (post-processing: the '
                        'identical guarantee) and the smooth binary mechanism at its own ε calibration; every counter '
                        'sees the same points per seed ({{ snakemake.config["smith2013"]["st1c"]["runs"] }} seeds).  '
                        '(a, b) mean regret versus T per counter and ε, band: 95 % bootstrap interval of the mean '
                        'over the seeds.  (c) mean regret as a ratio to the tree\'s at the same (loss, ε, T), with '
                        'its 95 % paired-bootstrap interval over the seeds.  Claims ST1c.a–b.'),
               inputs={"table": "st1c"},
               params=reads("h_rule", "c_sens")),
        Figure("st2", title="ST-2 (new) — excess regret versus ε",
               original_caption=NEW.format(fig="ST-2", what="the 1/ε dependence of Thm 4 and §2.1"),
               caption=('Smith & Thakurta (2013), new figure ST-2 (not in the paper, which has no experiments): excess '
                        'regret of PFTAL over the non-private run on the same points, versus ε at a fixed horizon, with '
                        'slope guides −1 (strongly convex) and −½ (Lipschitz with the bound-optimal H*).  Claims ST2.a–b.'),
               inputs={"table": "st2"},
               params=reads("h_rule", "c_sens")),
        Figure("st3", title="ST-3 (new) — regret versus the dimension p",
               original_caption=NEW.format(fig="ST-3", what="the dimension dependence of Table 1"),
               caption=('Smith & Thakurta (2013), new figure ST-3 (not in the paper, which has no experiments): regret of '
                        'PFTAL versus the dimension p on the synthetic stream x_t = Π_B(0.3e₁ + (0.3/√p)g_t), with slope '
                        'guides 1 (strongly convex, Table 1: p log^2.5 T/ε) and ½ (Lipschitz).  Claims ST3.a–b.'),
               inputs={"table": "st3"},
               params=reads("h_rule", "c_sens")),
        Figure("st4", title="ST-4 (new) — bandit PFTAL regret versus T",
               original_caption=NEW.format(fig="ST-4", what="Thm 6 (bandit setting)"),
               caption=('Smith & Thakurta (2013), new figure ST-4 (not in the paper, which has no experiments): regret of '
                        'private bandit PFTAL (one-point gradient estimates; ½‖w − x_t‖² on the Uber disk, p = 2) on the '
                        'played points versus T, for the exploration radii β = p/T^{1/3} (oblivious adversary, Thm 6: '
                        'T^{2/3}) and β = p/T^{1/4} (adaptive: T^{3/4}). Claims ST4.a–b.'),
               inputs={"table": "st4"}, params=reads("c_sens")),
    ),
    claims=Claims(
        evaluate="privopt.experiments.smith2013.claims:evaluate",
        inputs=("st0", "st0c", "st0c_ratio", "st1", "st1_runs", "st1c", "st2", "st2_runs", "st3", "st3_runs", "st4", "privacy"),
        settings=reads("h_rule", "c_sens"),
        caption=('The checkable claims for Smith & Thakurta (docs/papers/smith2013.md, reading R13: C-ST0 … '
                 'C-ST4, C-U1) and the privacy checks (P1.a: no violation found by the TBAP audits or the '
                 'gradient-bound guard; P1.b: every planted bug caught), each evaluated from the regenerated '
                 'tables: measured value, threshold and verdict (reproduced / not reproduced / not evaluated) at '
                 'scale "{{ snakemake.config["scale"] }}".  The paper has no experiments: the claims are the '
                 "project's predictions of its theorems on new figures, with the design's tolerances at every scale."),
    ),
    check=check,
    audits=("privopt.experiments.smith2013.privacy:audits",),
)
