"""Figure 1–2e (beyond the paper): DPG and PCG with ε0 from exact composition (privopt.experiments.chaturvedi2021.exact).

The exact ε0 composes to exactly the paper's (ε, δ) over the run's step count; the runs are Figures 1–2's runs
(same datasets and streams) with only ε0 changed; the tables hold the paired ratios the claims read."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privopt.experiments.chaturvedi2021 import cost, exact, instances, paper, runs
from privopt.mechanisms import exact_accounting as ea
from privopt.pipeline.protocol import ConfigError
from chaturvedi_fixtures import uber_pools

SUBSET = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "uber-raw-data-apr14.subset.csv.gz"
COMMON = {"eps": 0.1, "delta_exponent": 1.5, "delta": None, "runs_per_dataset": 1}
FIG1 = {**COMMON, "m": 100, "n_copies": 80, "grid_mode": "full", "rounds": 5, "pcg_scores": "G", "s": 200,
        "pcg_eps0_rule": "split", "dpg_eps0_rule": "basic", "rounding": "swap"}
FIG2 = {**COMMON, "rounds": 7, "pcg_scores": "G", "s": 200, "pcg_eps0_rule": "split", "dpg_eps0_rule": "improved",
        "rounding": "swap"}
#: the exact δ at the chosen ε0 lies within this relative distance of the target (the root search stops at
#: 4 ulp relative in ε0 and δ(ε0) has a slope of order k/ε0, so 1e-9 is far above its error and far below a step)
REL = 1e-9


@pytest.mark.parametrize("figure, point, settings, dpg_steps, pcg_steps",
                         [("fig1", 10, FIG1, 10, 50), ("fig1", 22, FIG1, 22, 110), ("fig2", 1000, FIG2, 2, 14)])
def test_step_counts_are_r_for_dpg_and_t_times_r_for_pcg(figure, point, settings, dpg_steps, pcg_steps):
    setting = runs.make_setting(figure, "paper", point, settings)
    assert exact.steps(setting, "DPG") == dpg_steps
    assert exact.steps(setting, "PCG") == pcg_steps
    with pytest.raises(ValueError, match="family"):
        exact.steps(setting, "Greedy")


@pytest.mark.parametrize("accountant, delta_of", [("exactDP", ea.pure_dp_delta), ("exactBR", ea.br_delta)])
@pytest.mark.parametrize("figure, point, settings", [("fig1", 10, FIG1), ("fig1", 22, FIG1), ("fig2", 10000, FIG2)])
def test_the_exact_eps0_composes_to_exactly_the_papers_eps_delta(figure, point, settings, accountant, delta_of):
    """δ(ε) of the run's k steps at the chosen ε0 is the paper's δ (the largest such ε0: 1e-6 more exceeds it)."""
    setting = runs.make_setting(figure, "paper", point, settings)
    eps0 = exact.eps0_of(setting)
    for family in exact.FAMILIES:
        k = exact.steps(setting, family)
        e0 = eps0[exact.variant(family, accountant)]
        assert delta_of(e0, k, setting.eps) == pytest.approx(setting.delta, rel=REL)
        assert delta_of(e0 * (1 + 1e-6), k, setting.eps) > setting.delta * (1 + 10 * REL)
        assert e0 > setting.eps / k  # never below basic composition, which is exact only at δ = 0


def test_exact_eps0_orders_and_the_papers_own_values():
    """DP-step composition ≤ the BR optimum; the paper's values are the paper's rules; Greedy has none."""
    setting = runs.make_setting("fig1", "paper", 10, FIG1)
    e = exact.eps0_of(setting)
    for family in exact.FAMILIES:
        assert e[exact.variant(family, "exactDP")] < e[exact.variant(family, "exactBR")]
    assert e["DPG"] == pytest.approx(0.01) and e["PCG"] == pytest.approx(0.0100677, rel=1e-5)
    assert math.isnan(e["Greedy"])
    # DPG at Figure 1's (0.1, 10^-3, r = 10), as docs/accounting.md reads them
    assert e["DPG_exactDP"] == pytest.approx(0.0183, abs=5e-5) and e["DPG_exactBR"] == pytest.approx(0.0358, abs=5e-5)
    with pytest.raises(ValueError, match="accountant"):
        exact.exact_eps0(0.1, 1e-3, 10, "advanced")


pools = pytest.fixture(scope="module", name="pools")(uber_pools)


def _block(pools, figure, point, settings, seeds):
    setting = runs.make_setting(figure, "paper", point, settings)
    return exact.exact_block(pools[figure], runs.candidate_locations(figure, settings), setting, seeds,
                             instances.normaliser(figure)), setting


@pytest.mark.parametrize("figure, point, settings", [("fig1", 10, FIG1), ("fig2", 1000, FIG2)])
def test_runs_are_figure_1_2s_runs_and_differ_only_in_eps0(pools, figure, point, settings):
    """PCG, DPG and Greedy are row for row the figure's own runs (paired); each exact variant is the same algorithm
    on the same stream at its ε0 (at the paper's ε0 it would be the paper's run)."""
    block, setting = _block(pools, figure, point, settings, [0, 1, 2])
    theirs = runs.run_block(pools[figure], runs.candidate_locations(figure, settings), setting, [0, 1, 2],
                            instances.normaliser(figure))
    for name in ("PCG", "DPG", "Greedy"):
        mine = block[block["algorithm"] == name].set_index("seed")["utility"]
        np.testing.assert_array_equal(mine.to_numpy(), theirs[theirs["algorithm"] == name].set_index("seed")
                                      .loc[mine.index, "utility"].to_numpy())
    assert set(block["algorithm"]) == set(exact.ALGORITHMS)
    e0 = block.groupby("algorithm")["eps0"].first()
    assert e0["PCG_exactBR"] == exact.eps0_of(setting)["PCG_exactBR"]
    # the same stream at the paper's ε0 is the paper's PCG; at the exact ε0 it is this table's row
    from privopt.experiments.chaturvedi2021 import geometry

    _, data = runs.sample_dataset(pools[figure], setting, 1)
    objective = runs.FacilityLocation(geometry.manhattan_distance_matrix(runs.candidate_locations(figure, settings),
                                                                         data, instances.normaliser(figure)))
    for name, eps0 in (("PCG", setting.pcg_eps0), ("PCG_exactDP", e0["PCG_exactDP"])):
        gen = runs._algorithm_rng(setting, "PCG", 1)
        chosen = runs.round_point(runs.continuous_point(objective, setting, gen, eps0=eps0), setting, gen)
        assert objective.value(chosen) == block[(block["algorithm"] == name) & (block["seed"] == 1)]["utility"].item()


def test_rows_do_not_depend_on_the_seed_blocks(pools):
    a, _ = _block(pools, "fig2", 1000, FIG2, [0, 1, 2])
    b = pd.concat([_block(pools, "fig2", 1000, FIG2, [2])[0], _block(pools, "fig2", 1000, FIG2, [0, 1])[0]])
    key = ["seed", "algorithm"]
    pd.testing.assert_frame_equal(a.sort_values(key).reset_index(drop=True), b.sort_values(key).reset_index(drop=True))


def _synthetic_runs(gain: float = 1.1, n: int = 12) -> pd.DataFrame:
    """Runs of one Figure 1 point whose exact variants have ``gain`` × the paper's utility on every seed (the DPG
    exactBR variant 1 × on seeds 0..n/2−1 and 2·gain − 1 × on the rest)."""
    rng = np.random.default_rng(0)
    rows = []
    for seed in range(n):
        base = 70.0 + rng.random()
        for name in exact.ALGORITHMS:
            family = name.split("_")[0]
            factor = 1.0 if name in ("PCG", "DPG") else gain
            if name == "DPG_exactBR":
                factor = 1.0 if seed < n // 2 else 2 * gain - 1
            value = 90.0 if name == "Greedy" else base * factor
            rows.append({"figure": "fig1", "reading": "paper", "point": 10, "r": 10, "m": 100, "seed": seed,
                         "dataset": seed, "algorithm": name, "utility": value, "utility_per_m": value / 100,
                         "eps0": {"PCG": 0.01, "DPG": 0.01, "Greedy": math.nan}.get(name, 0.02),
                         "steps": 0 if name == "Greedy" else (10 if family == "DPG" else 50), "eps": 0.1,
                         "delta": 1e-3})
    return pd.DataFrame(rows)


def test_tables_hold_the_paired_ratio_and_its_interval():
    tables = exact.exact_tables(paper.PAPER.experiment("exact"), {"runs": _synthetic_runs()}, {})
    assert set(tables) == {"fig12e", "fig12e_ratio", "fig12e_runs"}
    ratio = tables["fig12e_ratio"].set_index("algorithm")
    assert list(ratio.index) == ["PCG_exactDP", "PCG_exactBR", "DPG_exactDP", "DPG_exactBR"]
    assert {"figure", "reading", "point", "family", "accountant", "n", "steps", "eps0_paper", "eps0_exact",
            "eps0_ratio", "mean_paper", "mean_exact", "ratio", "ratio_lo", "ratio_hi"} <= set(ratio.columns)
    # a gain of exactly 1.1 on every seed: ratio 1.1 and a degenerate paired interval
    for name in ("PCG_exactDP", "PCG_exactBR", "DPG_exactDP"):
        assert ratio.loc[name, ["ratio", "ratio_lo", "ratio_hi"]].tolist() == pytest.approx([1.1] * 3, rel=1e-12)
        assert ratio.loc[name, "eps0_ratio"] == pytest.approx(2.0)
    r = ratio.loc["DPG_exactBR"]
    assert r["ratio"] == pytest.approx(r["mean_exact"] / r["mean_paper"])
    assert r["ratio_lo"] < r["ratio"] < r["ratio_hi"]  # the gain varies over the seeds: a real interval
    assert ratio["steps"].tolist() == [50, 50, 10, 10] and (ratio["n"] == 12).all()
    summary = tables["fig12e"]
    assert set(summary["algorithm"]) == set(exact.ALGORITHMS) and (summary["value"] == "utility").all()
    again = exact.exact_tables(paper.PAPER.experiment("exact"), {"runs": _synthetic_runs().sample(frac=1.0, random_state=1)}, {})
    pd.testing.assert_frame_equal(again["fig12e_ratio"], tables["fig12e_ratio"])  # deterministic, order-free


def _section(**exact_keys):
    fig1 = {"ranks": [10], "n_copies": 80, "readings": {"paper": {}}, "plot_reading": "paper", "m": 100, "n_runs": 2,
            "runs_per_dataset": 1}
    fig2 = {"ms": [1000], "readings": {"paper": {}}, "plot_reading": "paper", "n_runs": 2, "runs_per_dataset": 1}
    ex = {"reading": "paper", "ranks": [10, 22], "ms": [1000, 10000], "n_runs": 30, "seeds_per_job": 30, **exact_keys}
    return {"eps": 0.1, "delta_exponent": 1.5, "delta": None, "seeds_per_job": 50, "fig1": fig1, "fig2": fig2,
            "exact": ex}


def test_the_experiment_runs_both_figures_points_and_refuses_bad_keys():
    section = _section()
    exp = next(e for e in paper.PAPER.experiments if e.name == "exact")
    points = exp.points(section)
    assert points == [{"figure": "fig1", "reading": "paper", "point": 10}, {"figure": "fig1", "reading": "paper", "point": 22},
                      {"figure": "fig2", "reading": "paper", "point": 1000},
                      {"figure": "fig2", "reading": "paper", "point": 10000}]
    assert exp.settings(section, points[0]) == paper._fig1_settings(section, points[0])
    assert exp.settings(section, points[2]) == paper._fig2_settings(section, points[2])
    paper.check(section)
    with pytest.raises(ConfigError, match="chaturvedi2021.exact.reading"):
        paper.check(_section(reading="authors_code"))
    with pytest.raises(ConfigError, match="chaturvedi2021.exact.ranks"):
        paper.check(_section(ranks=[10, 101]))


def test_the_cost_is_the_figures_job_times_the_measured_factor():
    EXP = paper.PAPER.experiment  # the cost model takes the experiment itself
    s = {**FIG1}
    exact = {"figure": "fig1", "reading": "paper", "point": 22}
    fig1 = cost.job_seconds(EXP("fig1"), s, {"reading": "paper", "r": 22}, 30)
    assert cost.job_seconds(EXP("exact"), s, exact, 30) == pytest.approx(cost.EXACT_FACTOR * fig1)
    assert cost.job_data_mb(EXP("exact"), s, exact, 30) == cost.job_data_mb(EXP("fig1"), s, {"reading": "paper", "r": 22}, 30)
    fig2 = {"figure": "fig2", "reading": "paper", "point": 1000}
    assert cost.job_seconds(EXP("exact"), FIG2, fig2, 30) == pytest.approx(
        cost.EXACT_FACTOR * cost.job_seconds(EXP("fig2"), FIG2, {"reading": "paper", "m": 1000}, 30))


def test_the_figure_finding_is_one_sentence_of_ranges_and_counts_per_algorithm_and_accountant():
    """The finding listed every point (a 2,000-character paragraph in the report's findings); now per algorithm,
    accountant and figure the ranges of the ε0 and utility ratios and where the interval lies above or below 1."""
    from privopt.experiments.chaturvedi2021.claims import _fig12e_finding

    rows = [{"family": "DPG", "accountant": "exactDP", "figure": fig, "point": x, "n": 400, "eps0_ratio": e,
             "ratio": r, "ratio_lo": r - 0.005, "ratio_hi": r + 0.005}
            for fig, x, e, r in (("fig1", 10, 1.83, 1.0115), ("fig1", 25, 2.89, 1.0031), ("fig2", 1000, 5.75, 0.9899),
                                 ("fig2", 4000, 7.22, 0.9990))]
    text = _fig12e_finding(pd.DataFrame(rows)).text
    assert "400 paired runs per point" in text
    assert ("DPG exactDP: Fig. 1: ε0 ×1.83–2.89, utility ×1.003–1.012 (above 1 at 1, below at 0 of 2 points), "
            "Fig. 2: ε0 ×5.75–7.22, utility ×0.990–0.999 (above 1 at 0, below at 1 of 2 points)") in text, text
    assert _fig12e_finding(pd.DataFrame()) is None
