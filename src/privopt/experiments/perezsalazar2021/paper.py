"""Perez-Salazar & Cummings (2021): the declaration the workflow reads.

The paper proves regret bounds and draws nothing; every figure here is an *illustration of its
theorems*, designed by the project (docs/papers/perezsalazar2021.md, reading R20: F1–F8).  Five experiments:

* ``fi`` — full information on SYN-CLICK (Figures 1–3): groups ``syn`` (k = 3 over the T grid), ``collapse``
  (other k over the T grid), ``kscan`` (k sweep at one T), ``nscan`` (ln n sweep on SYN-CLICK-PAD);
* ``uber`` — the Uber pickups (Figure 1 row 2, Figure 4): groups ``fi`` (T grid), ``anytime`` (one run
  per algorithm, checkpoints, modal sets, the map), ``granularity`` (per-window against per-pickup privacy);
* ``bandit`` — Figures 5–6: groups ``s1``, ``s2`` (BanditDP, SG-BANDIT-NP, full-information references)
  and ``variants`` (App. B: B1-NAIVE, B2-PRESAMPLE);
* ``cont`` — Figure 7 (Algorithm 4 on the multilinear extension);
* ``privacy`` — Figure 8 (certified ε, the exact T-PRIV table).

A point is a group; a run job is a group × a block of seeds.  Privacy checks: the exact T-PRIV
enumeration (experiment ``privacy``, claim C8.2, with a planted bug, C8.3) and the black-box audits of
:mod:`.audits` (FI-DP's kernel and Algorithm 4's, each with a planted bug).  The config section is
``perezsalazar2021`` (``workflow/schemas/perezsalazar2021.schema.yaml``).
"""

from __future__ import annotations

from functools import partial

from privopt.experiments.perezsalazar2021 import cost
from privopt.pipeline.protocol import Claims, ConfigError, Experiment, Figure, Instance, Paper, Table
from privopt.pipeline.section_readers import one_point, one_seed, reads, seeds_from

KEY = "perezsalazar2021"
MOD = f"privopt.experiments.{KEY}"
FI_GROUPS = ("syn", "collapse", "kscan", "nscan")
UBER_GROUPS = ("fi", "anytime", "granularity")
BANDIT_GROUPS = ("s1", "s2", "variants")
CONT_GROUPS = ("sweep", "ablation")
ILLUSTRATION = ("(none: the paper has no figures.) Illustration of the paper's theorems, not a figure of the "
                "paper; designed by the project (docs/papers/perezsalazar2021.md, reading R20).")

#: the instance each fi group runs on (SYN-CLICK-PAD pads the s2 instance, perezsalazar2021 reading R18)
FI_INSTANCE = {"syn": "main", "collapse": "main", "kscan": "main", "nscan": "s2"}


def _groups(section, experiment: str, names) -> list[dict]:
    """One point per group of ``names`` the subsection configures (a group set to null is left out: a filter,
    so not a :func:`~privopt.pipeline.section_readers.grid`)."""
    cfg = section[experiment]
    return [{"group": g} for g in names if cfg.get(g) is not None]


def _group_seeds(section, experiment: str, names) -> tuple[int, int]:
    """The most runs any configured group asks (1 if none is: each group's job runs only its own seeds), in
    blocks of ``seeds_per_job``."""
    cfgs = [section[experiment].get(g) for g in names]
    return max([int(c["runs"]) for c in cfgs if c is not None] or [1]), section["seeds_per_job"]


def _fi_settings(section, point):
    """δ, the SYN-CLICK instance of the point's group (:data:`FI_INSTANCE`) and the group's own keys: settings that
    depend on the point, so a plain function (as are the bandit, cont and uber ones)."""
    g = point["group"]
    return {"delta": section["delta"], "instance": section["syn"][FI_INSTANCE[g]], "group": section["fi"][g]}


def _uber_settings(section, point):
    """δ, the candidate grid of the box and the point's group."""
    u = section["uber"]
    return {"delta": section["delta"], "instance": {"grid": u["grid"], "radius_km": u["radius_km"]},
            "group": u[point["group"]]}


def _uber_instance_settings(section):
    """What the Uber instance build reads: the candidates, the windows, and the horizons to check
    against the pickups in the box (named by their config keys)."""
    u = section["uber"]
    horizons = {}
    if u.get("fi") is not None:
        horizons[f"{KEY}.uber.fi.T"] = list(u["fi"]["T"])
    for g in ("anytime", "granularity"):
        if u.get(g) is not None and u[g]["T_pick"] is not None:
            horizons[f"{KEY}.uber.{g}.T_pick"] = [u[g]["T_pick"]]
    return {"grid": u["grid"], "radius_km": u["radius_km"], "windows": list(u["windows"]), "horizons": horizons}


def _bandit_settings(section, point):
    """δ, the bandit keys every group shares, the instance the point's group names, and the group."""
    b = section["bandit"]
    g = b[point["group"]]
    return {"delta": section["delta"], "T": b["T"], "c_gamma": b["c_gamma"], "runs": b["runs"],
            "instance": section["syn"][g["instance"]], "group": g}


def _cont_settings(section, point):
    """δ, the main instance, Algorithm 4's shared keys and the point's group."""
    c = section["cont"]
    return {"delta": section["delta"], "instance": section["syn"]["main"], "runs": c["runs"], "c_H": c["c_H"],
            "group": c[point["group"]]}


def _bandit_table_settings(section):
    """What the bandit tables read: the horizon and exploration of the runs, the k of group s2 (2 when s2 is not
    configured) and δ."""
    b = section["bandit"]
    return {"T": b["T"], "c_gamma": b["c_gamma"], "k": b["s2"]["k"] if b.get("s2") else 2, "delta": section["delta"]}


def check(section) -> None:
    """Cross-key checks the schema cannot express (raised before any job is planned)."""
    syn = section["syn"]
    for g in FI_GROUPS:
        cfg = section["fi"].get(g)
        if cfg is None:
            continue
        n = syn[FI_INSTANCE[g]]["n"]
        ks = [cfg["k"]] if "k" in cfg else cfg["ks"]
        if g == "nscan":
            small = [v for v in cfg["ns"] if v < n]
            if small:
                raise ConfigError(f"config key {KEY}.fi.nscan.ns: n = {small} below the {n} products of "
                                  f"{KEY}.syn.s2 that SYN-CLICK-PAD pads")
            n = min(cfg["ns"])
        big = [k for k in ks if k > n]
        if big:
            raise ConfigError(f"config key {KEY}.fi.{g}.{'k' if 'k' in cfg else 'ks'}: k = {big} exceeds |U| = {n}")
    u = section["uber"]
    n_cand = u["grid"] ** 2
    for g in UBER_GROUPS:
        cfg = u.get(g)
        if cfg is None:
            continue
        if cfg["k"] > n_cand:
            raise ConfigError(f"config key {KEY}.uber.{g}.k: k = {cfg['k']} exceeds the {n_cand} candidate locations "
                              f"({KEY}.uber.grid = {u['grid']})")
    gran = u.get("granularity")
    if gran is not None:
        unknown = [w for w in gran["units"] if w != "pick" and int(w) not in u["windows"]]
        if unknown:
            raise ConfigError(f"config key {KEY}.uber.granularity.units: windows {unknown} are not in "
                              f"{KEY}.uber.windows = {u['windows']}")
    for g in BANDIT_GROUPS:
        cfg = section["bandit"].get(g)
        if cfg is None:
            continue
        n = syn[cfg["instance"]]["n"]
        if cfg["k"] > n:
            raise ConfigError(f"config key {KEY}.bandit.{g}.k: k = {cfg['k']} exceeds |U| = {n} of "
                              f"{KEY}.syn.{cfg['instance']}")
    cont = section["cont"]
    for g in CONT_GROUPS:
        if cont.get(g) is not None and cont[g]["k"] > syn["main"]["n"]:
            raise ConfigError(f"config key {KEY}.cont.{g}.k: k = {cont[g]['k']} exceeds |U| = {syn['main']['n']}")


PAPER = Paper(
    key=KEY,
    title="Differentially Private Online Submodular Maximization",
    authors="Sebastian Perez-Salazar, Rachel Cummings",
    venue="AISTATS 2021 (PMLR 130); the figures are new illustrations of its theorems",
    reading="docs/papers/perezsalazar2021.md",
    short="Perez-Salazar & Cummings 2021",
    summary="F1–F8: new figures illustrating its theorems (the paper has none), SYN-CLICK and Uber pickups",
    styles="privopt.experiments.perezsalazar2021.styles:STYLES",
    kind="theory",
    # The offline comparators (OPT, G, UB: privopt.online.osm.offline) sum in one fixed order
    # (privopt.online.osm.fixed_sums), not through BLAS: every row is bit for bit whatever the CPU's OpenBLAS kernel.
    verify_ulps=0,
    instances=(
        Instance("uber", build=f"{MOD}.uber:build",
                 outputs=("pick.parquet", "windows.parquet", "signatures.parquet", "instance.json"),
                 settings=_uber_instance_settings, datasets=("uber",)),
    ),
    experiments=(
        Experiment(
            name="fi", label="Perez-Salazar & Cummings F1–F3 (full information, SYN-CLICK)",
            points=partial(_groups, experiment="fi", names=FI_GROUPS),
            settings=_fi_settings,
            seeds=partial(_group_seeds, experiment="fi", names=FI_GROUPS),
            run=f"{MOD}.runs:fi_job", tables=f"{MOD}.tables:fi_tables",
            table_files=(Table("fi.csv"), Table("fi_runs.parquet"), Table("fi_breakeven.csv")),
            cost=cost.job_seconds,
        ),
        Experiment(
            name="uber", label="Perez-Salazar & Cummings F1 row 2, F4 (Uber pickups)",
            points=partial(_groups, experiment="uber", names=UBER_GROUPS),
            settings=_uber_settings,
            seeds=partial(_group_seeds, experiment="uber", names=UBER_GROUPS),
            run=f"{MOD}.runs:uber_job", instances=("uber",),
            outputs={"runs": "", "curves": ".curves", "map": ".map"},
            tables=f"{MOD}.tables:uber_tables",
            table_files=(Table("uber.csv"), Table("uber_runs.parquet"), Table("f4a.csv"), Table("f4b.csv"),
                         Table("f4c.csv")),
            cost=cost.job_seconds,
        ),
        Experiment(
            name="bandit", label="Perez-Salazar & Cummings F5–F6 (bandit feedback)",
            points=partial(_groups, experiment="bandit", names=BANDIT_GROUPS),
            settings=_bandit_settings,
            seeds=seeds_from("bandit.runs", "seeds_per_job"),
            run=f"{MOD}.runs:bandit_job", tables=f"{MOD}.tables:bandit_tables",
            table_files=(Table("bandit.csv"), Table("bandit_runs.parquet"), Table("f6_tail.csv", float_format="%.8g")),
            table_settings=_bandit_table_settings,
            cost=cost.job_seconds,
        ),
        Experiment(
            name="cont", label="Perez-Salazar & Cummings F7 (Algorithm 4)",
            points=partial(_groups, experiment="cont", names=CONT_GROUPS),
            settings=_cont_settings,
            seeds=seeds_from("cont.runs", "seeds_per_job"),
            run=f"{MOD}.runs:cont_job", tables=f"{MOD}.tables:cont_tables",
            table_files=(Table("cont.csv"), Table("cont_runs.parquet")),
            cost=cost.job_seconds,
        ),
        Experiment(
            name="privacy", label="Perez-Salazar & Cummings F8 (privacy bookkeeping, T-PRIV)",
            points=one_point,
            settings=reads("delta", group="privacy.cert", tpriv="privacy.tpriv"),
            seeds=one_seed,
            run=f"{MOD}.runs:privacy_job", outputs={"runs": "", "tpriv": ".tpriv"},
            tables=f"{MOD}.tables:privacy_tables",
            table_files=(Table("f8_cert.csv"), Table("tpriv.csv", float_format="%.12g")),
            cost=cost.job_seconds,
            data_mb=cost.job_data_mb,
        ),
    ),
    figures=(
        Figure("f1", title="F1 — full information: regret against horizon (Thm 6; illustration, not in the paper)",
               original_caption=ILLUSTRATION,
               caption=('Perez-Salazar & Cummings (2021), F1 — **an illustration of Theorem 6, not a figure of the paper** '
                        '(the paper has no figures). FI-DP (Algorithm 2: k ordered Hedge experts, η = ε/(k√(32 T '
                        'ln(k/δ))), δ = {{ snakemake.config["perezsalazar2021"]["delta"] }}) on SYN-CLICK (k = '
                        '{{ snakemake.config["perezsalazar2021"]["fi"]["syn"]["k"] }}, n = 30, horizons '
                        '{{ snakemake.config["perezsalazar2021"]["fi"]["syn"]["T"] }}, '
                        '{{ snakemake.config["perezsalazar2021"]["fi"]["syn"]["runs"] }} seeds) and on UBER-PICK (the '
                        'time-sorted April 2014 Uber pickups in lower/midtown Manhattan, one pickup per round, 36 '
                        'candidate locations, horizons {{ snakemake.config["perezsalazar2021"]["uber"]["fi"]["T"] }}), '
                        'each horizon a separate run. (a) mean expert regret Σ_i r_i with min(B_FI, kT) dashed; (b) '
                        '(1−1/e)-regret R_T/T with UNIF; (c) regret against the offline greedy set. SG-NP is the '
                        'non-private Streeter–Golovin rate. Hollow markers: nominal ε (not certified). Bars ±1 SEM. Design: '
                        'docs/papers/perezsalazar2021.md, reading R20.'), inputs={"fi": "fi", "uber": "uber"},
               params=reads("delta", eps_plot="plot.f1_eps")),
        Figure("f2", title="F2 — collapse onto the effective budget u = ε√T/k² (Thm 6; illustration)",
               original_caption=ILLUSTRATION,
               caption=('Perez-Salazar & Cummings (2021), F2 — **an illustration of Theorem 6, not a figure of the '
                        'paper**: FI-DP runs of every (T, ε, k) on SYN-CLICK (k = 3 and k ∈ '
                        '{{ snakemake.config["perezsalazar2021"]["fi"]["collapse"]["ks"] }}) and UBER-PICK (crosses) '
                        'against the effective budget u = ε√T/(k² ln n √(32 ln(k/δ))), δ = '
                        '{{ snakemake.config["perezsalazar2021"]["delta"] }}: (a) E[Σ_i r_i]/T with y = 1/u; (b) R_T/T; '
                        '(c) the break-even horizon T* where E[R_T] turns negative (k = 3), with slope −2. Design: '
                        'docs/papers/perezsalazar2021.md, reading R20.'), inputs={"fi": "fi", "uber": "uber", "breakeven": "fi_breakeven"},
               params=reads("delta", breakeven_eps="plot.f2_breakeven_eps")),
        Figure("f3", title="F3 — scaling in ε, k and ln n at fixed T (Thm 6; illustration)",
               original_caption=ILLUSTRATION,
               caption=('Perez-Salazar & Cummings (2021), F3 — **an illustration of Theorem 6, not a figure of the '
                        "paper**: FI-DP's expert regret at a fixed horizon against (a) ε (SYN-CLICK, k = 3, the largest T "
                        'of the F1 grid; UNIF and SG-NP as lines), (b) k (T = '
                        '{{ snakemake.config["perezsalazar2021"]["fi"]["kscan"]["T"] }}, ε ∈ '
                        '{{ snakemake.config["perezsalazar2021"]["fi"]["kscan"]["eps"] }}, guides k² and k^½) and (c) ln n '
                        'on SYN-CLICK-PAD (T = {{ snakemake.config["perezsalazar2021"]["fi"]["nscan"]["T"] }}, n ∈ '
                        '{{ snakemake.config["perezsalazar2021"]["fi"]["nscan"]["ns"] }}). δ = '
                        '{{ snakemake.config["perezsalazar2021"]["delta"] }}. Design: docs/papers/perezsalazar2021.md, reading R20.'), inputs={"fi": "fi"},
               params=reads("delta")),
        Figure("f4", title="F4 — Uber pickups: privacy–utility, the map, and the privacy unit (illustration)",
               original_caption=ILLUSTRATION,
               caption=("Perez-Salazar & Cummings (2021), F4 — **an illustration of the paper's theorems, not a figure of "
                        'the paper**, on the April 2014 Uber pickups (data source: the FiveThirtyEight FOIL release, or '
                        'the configured subset; sorted by time globally, box Lat 40.70–40.80, Lon −74.02 to −73.93, 36 '
                        'grid candidates covering pickups within 1 km, L1). (a) running average reward of one run per '
                        'algorithm over the first {{ snakemake.config["perezsalazar2021"]["uber"]["anytime"]["T_pick"] }} '
                        'pickups (null = all), FI-DP at ε ∈ '
                        '{{ snakemake.config["perezsalazar2021"]["uber"]["anytime"]["eps"] }}, BanditDP at ε ∈ '
                        '{{ snakemake.config["perezsalazar2021"]["uber"]["anytime"]["bandit_eps"] }}, non-private '
                        'baselines; (b) density, candidates, optimal and modal sets; (c) normalised progress φ against ε '
                        'for windows of {{ snakemake.config["perezsalazar2021"]["uber"]["granularity"]["units"] }} '
                        '(minutes or pick) as the privacy unit. δ = {{ snakemake.config["perezsalazar2021"]["delta"] }}. '
                        'Design: docs/papers/perezsalazar2021.md, reading R20.'), inputs={"uber": "uber", "curves": "f4a", "map": "f4b", "phi": "f4c"},
               params=reads("delta")),
        Figure("f5", title="F5 — bandit feedback: regret against horizon (Thms 7–8; illustration)",
               original_caption=ILLUSTRATION,
               caption=('Perez-Salazar & Cummings (2021), F5 — **an illustration of Theorems 7–8, not a figure of the '
                        'paper**: BanditDP (Algorithm 3, γ = min(½, '
                        '{{ snakemake.config["perezsalazar2021"]["bandit"]["c_gamma"] }}·T^(−1/3))) on SYN-CLICK-S1 (k = '
                        '1, n = 5) and S2 (k = 2, n = 10), horizons '
                        '{{ snakemake.config["perezsalazar2021"]["bandit"]["T"] }} (separate runs), '
                        '{{ snakemake.config["perezsalazar2021"]["bandit"]["runs"] }} seeds, with SG-BANDIT-NP and the '
                        'full-information FI-DP/SG-NP on the same streams. (a) E[REG_OPT] with B_BD dashed; (b) R_T/T; (c) '
                        'M/T, γ and the cap 2γ. Hollow: nominal ε. δ = '
                        '{{ snakemake.config["perezsalazar2021"]["delta"] }}. Design: docs/papers/perezsalazar2021.md, reading R20.'), inputs={"bandit": "bandit"},
               params=reads("delta")),
        Figure("f6", title="F6 — why Algorithm 3 updates only after exploration rounds (App. B; illustration)",
               original_caption=ILLUSTRATION,
               caption=('Perez-Salazar & Cummings (2021), F6 — **an illustration of Section 4 and Appendix B, not a figure '
                        'of the paper**: on SYN-CLICK-S2, Algorithm 3 against B1-NAIVE (a fresh set every round, at '
                        "Algorithm 3's γ and at 2T^(−1/4)) and B2-PRESAMPLE (explore times drawn in advance), ε ∈ "
                        '{{ snakemake.config["perezsalazar2021"]["bandit"]["variants"]["eps"] }} (hollow: nominal); (c) '
                        "the exact exploration tail P(M ≥ 2γT) against Hoeffding's, the paper's and Chernoff's bounds. δ = "
                        '{{ snakemake.config["perezsalazar2021"]["delta"] }}. Design: docs/papers/perezsalazar2021.md, reading R20.'), inputs={"bandit": "bandit", "tail": "f6_tail"},
               params=reads("delta")),
        Figure("f7", title="F7 — the continuous extension, Algorithm 4 (Thm 9; illustration)",
               original_caption=ILLUSTRATION,
               caption=('Perez-Salazar & Cummings (2021), F7 — **an illustration of Theorem 9, not a figure of the '
                        'paper**: Algorithm 4 (K ordered PFTAL experts, tree-aggregated gradients with ℓ2-Laplace node '
                        'noise, (ε, 0)-DP) on the multilinear extension of SYN-CLICK (k = 3, n = 30), T ∈ '
                        '{{ snakemake.config["perezsalazar2021"]["cont"]["sweep"]["T"] }}, ε ∈ '
                        '{{ snakemake.config["perezsalazar2021"]["cont"]["sweep"]["eps"] }}, c_H = '
                        '{{ snakemake.config["perezsalazar2021"]["cont"]["c_H"] }}, '
                        '{{ snakemake.config["perezsalazar2021"]["cont"]["runs"] }} seeds; (c) the number of experts K. '
                        'Design: docs/papers/perezsalazar2021.md, reading R20.'), inputs={"cont": "cont"},
               params=reads("delta")),
        Figure("f8", title="F8 — privacy bookkeeping: certified against nominal ε, and T-PRIV (illustration)",
               original_caption=ILLUSTRATION,
               caption=('Perez-Salazar & Cummings (2021), F8 — **an illustration of the privacy analysis, not a figure of '
                        'the paper**: (a) the ε that composition certifies against the nominal ε that sets η (FI-DP k ∈ '
                        '{{ snakemake.config["perezsalazar2021"]["privacy"]["cert"]["fi_ks"] }}, BanditDP k ∈ '
                        '{{ snakemake.config["perezsalazar2021"]["privacy"]["cert"]["bandit_ks"] }}, T ∈ '
                        '{{ snakemake.config["perezsalazar2021"]["privacy"]["cert"]["T"] }}, δ = '
                        '{{ snakemake.config["perezsalazar2021"]["delta"] }}); thin dotted, beyond the paper: the ε of '
                        'the same k·N draws under optimal composition of 2η-DP steps (Kairouz, Oh & Viswanath 2015, '
                        'valid for adaptive draws; claim C8.4); (b) T-PRIV, the exact output law of FI-DP '
                        'on a tiny instance: largest privacy loss against the pure bound, as implemented and with a '
                        'planted bug (gains ×{{ snakemake.config["perezsalazar2021"]["privacy"]["tpriv"]["bug_scale"] }}). '
                        'Design: docs/papers/perezsalazar2021.md, reading R20.'), inputs={"cert": "f8_cert", "tpriv": "tpriv"},
               params=reads("delta")),
    ),
    claims=Claims(
        evaluate=f"{MOD}.claims:evaluate",
        inputs=("fi", "fi_runs", "fi_breakeven", "uber", "uber_runs", "f4c", "bandit", "bandit_runs", "f6_tail", "cont", "cont_runs",
                "f8_cert", "tpriv"),
        settings=reads("delta"),
        caption=('The checkable claims about the figures F1–F8 (docs/papers/perezsalazar2021.md, reading R20), which '
                 "illustrate Perez-Salazar & Cummings' theorems (the paper itself has no figures): measured value, "
                 "the design's calibrated threshold and the verdict (reproduced / not reproduced / not evaluated) at "
                 'scale "{{ snakemake.config["scale"] }}", evaluated on the points that ran.'),
    ),
    audits=(f"{MOD}.audits:audits",),
    check=check,
)
