"""Rivera Cardoso & Cummings (2018), DP online submodular minimisation: the declaration the workflow reads.

The paper has no experiments or figures; every figure here is **new** (cardoso2019 readings R1, R9, figures RC-1 …
RC-4) and illustrates its theorems — none is a figure of the paper.  Instance: the grid cells of the Uber box (``cells``, every
supported grid n ∈ {4, 8, 16, 32, 64}).  Experiments, each named after its config subsection: RC-1a
(SubmodPFTAL regret vs T, one point per T), RC-1b (BanditSubmodPFTAL vs T), RC-2a/b (regret vs the
number of cells n at fixed T, one point per n), RC-3a/b (excess regret vs ε at fixed n and T), RC-4
(RC-ZERO, the √T regime), RC-1c (beyond the paper: SubmodPFTAL with each continual counter of issue 27,
one point per T), and the privacy checks.  Inside a job every ε of the grid plus ε = ∞ run on
the same cell streams.  The config section is ``cardoso2019`` (``workflow/schemas/cardoso2019.schema.yaml``).
"""

from __future__ import annotations

from privopt.experiments.cardoso2019 import cost
from privopt.experiments.cardoso2019.modes import BANDIT
from privopt.pipeline.protocol import Claims, ConfigError, Experiment, Figure, Instance, Paper, Table
from privopt.pipeline.section_readers import grid, one_point, one_seed, reads, seeds_from, subsection

RUNS = "privopt.experiments.cardoso2019.runs"
TABLES = "privopt.experiments.cardoso2019.tables"
COUNTERS = "privopt.experiments.cardoso2019.counters"
NEW = ("(none: the paper has no experiments or figures; this is a new figure of the project's design, {fig}, "
       "illustrating {what}; it is not a figure of the paper)")
#: experiment → (the key of its points (None: one point), the keys of its subsection a run reads, top-level keys)
SPECS = {
    "rc1a": ("T", ("n", "eps"), ("c_sens", "lambda_g")),
    "rc1b": ("T", ("n", "eps"), ("c_sens", "lambda_g")),
    "rc2a": ("n", ("T", "eps"), ("c_sens", "lambda_g")),
    "rc2b": ("n", ("T", "eps"), ("c_sens", "lambda_g")),
    "rc3a": (None, ("n", "T", "eps"), ("c_sens", "lambda_g")),
    "rc3b": (None, ("n", "T", "eps"), ("c_sens", "lambda_g")),
    "rc4": ("T", ("n", "eps"), ("c_sens",)),
}
#: the top-level keys of the regret experiments, their figures and claims
COMMON = ("c_sens", "lambda_g")
LABELS = {"rc1a": "RC-1a (SubmodPFTAL regret vs T)", "rc1b": "RC-1b (BanditSubmodPFTAL regret vs T)",
          "rc2a": "RC-2a (SubmodPFTAL regret vs n)", "rc2b": "RC-2b (BanditSubmodPFTAL regret vs n)",
          "rc3a": "RC-3a (SubmodPFTAL excess regret vs ε)", "rc3b": "RC-3b (BanditSubmodPFTAL excess regret vs ε)",
          "rc4": "RC-4 (RC-ZERO regret vs T)"}


def _experiment(name) -> Experiment:
    """The regret experiment ``name`` of :data:`SPECS` (seven of one shape: a loop, not seven declarations)."""
    key, keys, common = SPECS[name]
    return Experiment(
        name=name,
        label=f"Rivera Cardoso & Cummings {LABELS[name]}",
        points=grid(**{key: (f"{name}.{key}", int)}) if key else one_point,
        settings=reads(*keys, under=name, also=common),
        seeds=seeds_from(f"{name}.runs", f"{name}.seeds_per_job"),
        run=f"{RUNS}:rc_job",
        instances=("cells",),
        tables=f"{TABLES}:rc_tables",
        table_files=(Table(f"{name}.csv"), Table(f"{name}_fit.csv"), Table(f"{name}_runs.parquet")),
        cost=cost.job_seconds,
        data_mb=cost.job_data_mb,
    )


def check(section) -> None:
    """Cross-key checks the schema cannot express (raised before any job is planned)."""
    if "rc1c" in section:
        sub = section["rc1c"]
        for k in ("T", "eps"):
            if sorted(sub[k]) != list(sub[k]):
                raise ConfigError(f"config key cardoso2019.rc1c.{k}: list the values in increasing order, got {sub[k]}")
        if "tree" not in sub["counters"]:
            raise ConfigError("config key cardoso2019.rc1c.counters: the figure's ratios are to the tree (TBAP): "
                              f"list 'tree', got {sub['counters']}")
    for name, (key, keys, _) in SPECS.items():
        sub = section[name]
        for k in ("T", "n", "eps"):
            v = sub.get(k)
            if isinstance(v, list) and sorted(v) != list(v):
                raise ConfigError(f"config key cardoso2019.{name}.{k}: list the values in increasing order, got {v}")
        if name in BANDIT:  # γ = n/T^(1/4) ≤ 1 needs T ≥ n⁴ (cardoso2019 reading R5)
            ns = sub["n"] if isinstance(sub["n"], list) else [sub["n"]]
            Ts = sub["T"] if isinstance(sub["T"], list) else [sub["T"]]
            if min(Ts) < max(ns) ** 4:
                raise ConfigError(f"config key cardoso2019.{name}.T: BanditSubmodPFTAL needs T >= n^4 = {max(ns) ** 4} "
                                  f"(gamma = n/T^(1/4) <= 1, cardoso2019 reading R5), got T = {min(Ts)}")


PAPER = Paper(
    key="cardoso2019",
    title="Differentially Private Online Submodular Optimization",
    authors="Adrian Rivera Cardoso, Rachel Cummings",
    venue="AISTATS 2019 (arXiv 1807.02290)",
    reading="docs/papers/cardoso2019.md",
    short="Rivera Cardoso & Cummings 2019",
    summary="new figures RC-1–RC-4 illustrating its theorems (the paper has none), Uber grid cells",
    styles="privopt.experiments.cardoso2019.styles:STYLES",
    kind="theory",
    instances=(
        Instance("cells", build="privopt.experiments.cardoso2019.instances:build",
                 outputs=("cells.parquet", "cells.json"), datasets=("uber",)),
    ),
    experiments=(
        *(_experiment(name) for name in SPECS),
        Experiment(  # RC-1c (beyond the paper): SubmodPFTAL with each continual counter, one job per T and seed block
            name="rc1c",
            label="Rivera Cardoso & Cummings RC-1c (SubmodPFTAL regret per continual counter, beyond the paper)",
            points=grid(T=("rc1c.T", int)),
            settings=reads("n", "eps", "counters", under="rc1c", also=COMMON),
            seeds=seeds_from("rc1c.runs", "rc1c.seeds_per_job"),
            run=f"{COUNTERS}:rc1c_job",
            instances=("cells",),
            tables=f"{COUNTERS}:rc1c_tables",
            table_files=(Table("rc1c.csv"), Table("rc1c_runs.parquet")),
            cost=cost.job_seconds,
            data_mb=cost.job_data_mb,
        ),
        Experiment(
            name="privacy",
            label="Rivera Cardoso & Cummings privacy checks",
            points=one_point,
            settings=subsection("privacy"),
            seeds=one_seed,
            run="privopt.experiments.cardoso2019.privacy:privacy_job",
            tables=f"{TABLES}:privacy_tables",
            table_files=(Table("privacy.csv", float_format="%.6g"),),
            cost=cost.job_seconds,
        ),
    ),
    figures=(
        Figure("rc1", title="RC-1 (new) — regret versus T: SubmodPFTAL (n = 8) and BanditSubmodPFTAL (n = 4)",
               original_caption=NEW.format(fig="RC-1", what="Thm 7 (Õ(n^3/2 √T/ε)) and Thm 9 (Õ(n^3/2 T^3/4/ε))"),
               caption=("Rivera Cardoso & Cummings (2018), new figure RC-1: this figure illustrates the paper's theorems "
                        'and is not a figure of the paper (which has none).  Expected regret Σ_t E[f_t(S_t) | x_t] − min_S '
                        'Σ_t f_t(S) versus the horizon T on RC-MRF (a modular demand term plus a grid cut cost over the '
                        'cells of the Uber box, one rider per round), each T a separate run, for several ε and the '
                        'non-private learner (black).  (a) SubmodPFTAL, n = 8 (Thm 7: Õ(n^3/2 √T/ε)); (b) '
                        'BanditSubmodPFTAL, n = 4, with the corrected TBAP bound μ = 2M(n+1)/γ + H√n (Thm 9: Õ(n^3/2 '
                        'T^3/4/ε)).  On these stochastic streams private curves are linear during a burn-in ∝ 1/ε and then '
                        'flatten; the theorems are upper bounds (their explicit values exceed the measured regret by 10²× '
                        'or more: claim U1.a).  Claims RC1.a, RC1.b, U1.a, U2.a.'),
               inputs={"full": "rc1a", "bandit": "rc1b"},
               params=reads(*COMMON)),
        Figure("rc1c", title="RC-1c (new, beyond the paper) — SubmodPFTAL's regret with each continual counter",
               original_caption=NEW.format(fig="RC-1c", what="what modern continual counting (issue 27) buys "
                                           "SubmodPFTAL at the same ε-DP guarantee (beyond the paper)"),
               caption=("Rivera Cardoso & Cummings (2018), new figure RC-1c (beyond the paper, which has no experiments "
                        "or figures): SubmodPFTAL (full information, RC-MRF, n = "
                        '{{ snakemake.config["cardoso2019"]["rc1c"]["n"] }} cells) with the private sum of its '
                        "vectors released by three continual counters at the same pure-ε guarantee: the paper's TBAP "
                        "tree (λ = c_sens·μ·K/ε), Honaker's estimator on the same tree with the same λ (post-processing), "
                        "and the smooth binary mechanism (its own ℓ1 calibration).  Paired: per seed the same cell "
                        "stream and play randomness for every counter.  (a) Expected regret versus T per ε, mean over "
                        '{{ snakemake.config["cardoso2019"]["rc1c"]["runs"] }} seeds; bands: 95 % bootstrap interval '
                        "of the mean.  (b) Ratio of each counter's mean regret to the tree's at the same (ε, T), with "
                        "its 95 % paired bootstrap interval over seeds.  Claims RC1c.a–b."),
               inputs={"table": "rc1c"},
               params=reads(*COMMON)),
        Figure("rc2", title="RC-2 (new) — regret versus the number of cells n",
               original_caption=NEW.format(fig="RC-2", what="the n^3/2 dependence of Thm 7 and Thm 9"),
               caption=("Rivera Cardoso & Cummings (2018), new figure RC-2: this figure illustrates the paper's theorems "
                        'and is not a figure of the paper (which has none).  Expected regret versus the number of grid '
                        'cells n ∈ {4, …, 64} on RC-MRF at a fixed horizon: (a) SubmodPFTAL, (b) BanditSubmodPFTAL (T ≥ '
                        'max(n)⁴ so that γ ≤ 1); the dashed guide has slope 3/2, the n^3/2 of Thm 7 and 9 (an upper '
                        'bound).  Claim RC2.a.'),
               inputs={"full": "rc2a", "bandit": "rc2b"},
               params=reads(*COMMON)),
        Figure("rc3", title="RC-3 (new) — excess regret versus ε",
               original_caption=NEW.format(fig="RC-3", what="the 1/ε dependence of Thm 7 and Thm 9"),
               caption=("Rivera Cardoso & Cummings (2018), new figure RC-3: this figure illustrates the paper's theorems "
                        'and is not a figure of the paper (which has none).  Excess expected regret (private − '
                        'non-private, paired by seed on the same cell streams) versus ε at a fixed n and T: (a) '
                        'SubmodPFTAL, n = 8; (b) BanditSubmodPFTAL, n = 4.  The dashed guide has slope −1 (the 1/ε of Thm '
                        '7 and 9); the dotted line is the non-private regret.  Claim RC3.a.'),
               inputs={"full": "rc3a", "bandit": "rc3b"},
               params=reads(*COMMON)),
        Figure("rc4", title="RC-4 (new) — the √T regime on RC-ZERO",
               original_caption=NEW.format(fig="RC-4", what="that the √T rate of Thm 7 cannot be avoided"),
               caption=("Rivera Cardoso & Cummings (2018), new figure RC-4: this figure illustrates the paper's theorems "
                        'and is not a figure of the paper (which has none).  On RC-ZERO (no cut; unary a_t = ½(q̄ − q_t) '
                        'with q̄ the mean cell shares) every fixed set has expected loss 0, so regret = −min_S Σ f_t(S) ≈ '
                        'Θ(√T) for every ε and for the non-private learner: the √T rate that no algorithm avoids, which '
                        'the stochastic RC-MRF curves of RC-1 do not show.  Claim RC4.a.'),
               inputs={"table": "rc4"}, params=reads("c_sens")),
    ),
    claims=Claims(
        evaluate="privopt.experiments.cardoso2019.claims:evaluate",
        inputs=("rc1a", "rc1b", "rc2a", "rc2b", "rc3a", "rc3b", "rc4", "rc1a_runs", "rc1b_runs", "rc2a_runs",
                "rc2b_runs", "rc3a_runs", "rc3b_runs", "rc4_runs", "privacy", "rc1c"),
        settings=reads(*COMMON),
        caption=('The checkable claims for Rivera Cardoso & Cummings (docs/papers/cardoso2019.md, reading R11: '
                 'C-RC1a = RC1.a, C-RC1b = RC1.b, C-RC2 = RC2.a, C-RC3 = RC3.a, C-RC4 = RC4.a, C-U1 = U1.a, C-U2 = '
                 "U2.a) and the privacy checks (P1.a: no violation found by the audit of BanditSubmodPFTAL's "
                 "releases or the TBAP-bound guards; P1.b: every planted bug caught, among them the paper's bandit "
                 "calibration) and, beyond the paper (issue 27), RC1c.a–b: the regret of SubmodPFTAL with Honaker's "
                 'estimator and with the smooth binary mechanism against the tree at the same ε; each evaluated from '
                 'the regenerated tables: measured value, threshold and verdict '
                 '(reproduced / not reproduced / not evaluated) at scale "{{ snakemake.config["scale"] }}".  The '
                 "paper has no experiments: the claims are the project's predictions of its theorems on new figures, "
                 'which illustrate the theorems and are not figures of the paper; where the grid that ran lacks a '
                 "claim's fit range the claim says which quick-scale range it used."),
    ),
    check=check,
    audits=("privopt.experiments.cardoso2019.privacy:audits",),
)
