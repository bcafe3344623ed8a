"""Shariff & Sheffet (2018) experiment module: run functions (deterministic, tidy) and claims
on synthetic tables that can pass and fail."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privopt.experiments.claims import NOT_EVALUATED, NOT_REPRODUCED, REPRODUCED
from privopt.experiments.shariff2018 import claims, runs
from privopt.experiments.shariff2018 import tables as aggregation

N_FULL = 50_000_000


def by_id(found):
    return {c.claim: c for c in found}


# ----------------------------------------------------------------------------- run functions


def test_decision_set_is_deterministic_and_passes_f1a():
    a = runs.decision_set(seed=3)
    pd.testing.assert_frame_equal(a, runs.decision_set(seed=3))
    assert not a.equals(runs.decision_set(seed=4))
    assert (a["kind"] == "optimal").sum() == 1 and (a["kind"] == "theta").sum() == 1
    assert by_id(claims.figure1_claims(a, K=1000, gap=0.1))["F1.a"].verdict == REPRODUCED


def test_decision_set_outside_the_zone_fails_f1a():
    a = runs.decision_set(seed=0)
    theta = a[a["kind"] == "theta"][["x0", "x1", "x2"]].to_numpy()[0]
    i = a.index[a["kind"] == "action"][0]
    a.loc[i, ["x0", "x1", "x2"]] = theta  # ⟨x,θ*⟩ = 1, outside [−0.75, 0.65]
    assert by_id(claims.figure1_claims(a, K=1000, gap=0.1))["F1.a"].verdict == NOT_REPRODUCED


def test_exp1_block_is_tidy_deterministic_and_independent_of_blocking():
    kw = dict(n=100_000, n_rounds=600, rec_every=200)
    both = runs.exp1_block("pm1", 4, [0, 1], **kw)
    assert list(both.columns[:4]) == ["experiment", "reward", "d", "gap"]
    assert {"variant", "seed", "t", "regret", "pd_failures"} <= set(both.columns)
    assert sorted(both["t"].unique()) == [0, 200, 400, 600]
    split = pd.concat([runs.exp1_block("pm1", 4, [0], **kw), runs.exp1_block("pm1", 4, [1], **kw)], ignore_index=True)
    pd.testing.assert_frame_equal(both.drop(columns="wall_s"), split.drop(columns="wall_s"))
    assert (both.groupby("seed")["regret"].diff().dropna() >= -1e-12).all()


def test_exp2_block_common_random_numbers_and_prefix():
    kw = dict(n=N_FULL, d=5, rec_every=100)
    short = runs.exp2_block(0.1, [0], n_rounds=300, **kw)
    assert set(short["variant"]) == set(runs.VARIANTS)
    alone = runs.exp2_block(0.1, [0], n_rounds=300, variants=["nonprivate"], **kw)
    np.testing.assert_array_equal(short.loc[short["variant"] == "nonprivate", "regret"].to_numpy(), alone["regret"].to_numpy())
    longer = runs.exp2_block(0.1, [0], n_rounds=600, variants=["gaussian"], **kw)
    prefix = longer[longer["t"] <= 300]["regret"].to_numpy()
    np.testing.assert_allclose(prefix, short.loc[short["variant"] == "gaussian", "regret"].to_numpy())


def test_exp3_block_covers_the_grid():
    out = runs.exp3_block("gaussian", 0.0, [0], n=N_FULL, n_rounds=200, rec_points=2)
    assert out["rho_min"].nunique() == 9
    ups = runs.default_rho("gaussian", N_FULL, 5, 1.0, 0.1)["shifted Gaussian"]
    assert np.isclose(out["rho_min"].unique(), ups, rtol=1e-9).any()
    tables = aggregation.tables_for("exp3", out, settings=dict(n=N_FULL, d=5, eps=1.0, delta=0.1, k_rule="paper"),
                               mechanisms=["gaussian"])
    assert list(tables["fig5"].columns) == ["mechanism", "gap", "rho_min", "mean", "std", "sem", "n"]
    assert len(tables["defaults"]) == 1


# ----------------------------------------------------------------------------- claims on synthetic tables


def synthetic_exp1(power: float, pm1_factor: float = 0.8, runs_per_d: int = 6) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for reward, f in (("gaussian", 1.0), ("pm1", pm1_factor)):
        for d in (4, 6, 8, 11, 16, 23):
            for s in range(runs_per_d):
                rows.append({"reward": reward, "d": d, "seed": s, "t": 1000, "pd_failures": 0,
                             "regret": f * 3 * d**power * np.exp(rng.normal(0, 0.05))})
    return pd.DataFrame(rows)


def synthetic_fig2(flat: bool) -> pd.DataFrame:
    rows = []
    for reward in ("gaussian", "pm1"):
        for d in (4, 8):
            for t in (0, 500, 1000):
                mean = {0: 0, 500: 100 if flat else 50, 1000: 101 if flat else 100}[t]
                rows.append({"reward": reward, "d": d, "t": t, "mean": mean, "std": 1, "sem": 0.5, "n": 4})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("power, expected", [(2.0, REPRODUCED), (1.0, NOT_REPRODUCED)])
def test_figure3_slope(power, expected):
    found = by_id(claims.figure3_claims(synthetic_exp1(power), quick=True))
    assert found["F3.a"].verdict == expected


def test_figure3_fit_table_has_the_slope_its_bootstrap_ci_and_matches_the_claims():
    exp1 = synthetic_exp1(2.0)
    fit = aggregation.tables_for("exp1", exp1)["fit"].set_index("reward")
    assert list(fit.reset_index().columns) == aggregation.FIT_COLUMNS and list(fit.index) == ["gaussian", "pm1"]
    for reward, row in fit.iterrows():
        assert row["b_ci_low"] < row["b"] < row["b_ci_high"] and abs(row["b"] - 2.0) < 0.05
        assert row["n_d"] == 6 and row["n_runs"] == 36
        g = exp1[exp1["reward"] == reward]
        assert row["b"] == pytest.approx(claims.ols_slope(g["d"], g["regret"]), rel=1e-12)
        assert (row["b_ci_low"], row["b_ci_high"]) == pytest.approx(claims.bootstrap_slope_ci(g))
    found = by_id(claims.figure3_claims(exp1, quick=True))["F3.b"].measured
    assert f"[{fit.loc['pm1', 'b_ci_low']:.2f}, {fit.loc['pm1', 'b_ci_high']:.2f}]" in found
    one_d = aggregation.fit_table(exp1[exp1["d"] == 4])
    assert one_d[["a", "b", "b_ci_low", "b_ci_high"]].isna().all().all()


def test_figure2_claims_pass_and_fail():
    good = by_id(claims.figure2_claims(synthetic_fig2(flat=True), synthetic_exp1(2.0), quick=True))
    assert good["F2.a"].verdict == good["F2.b"].verdict == good["F2.c"].verdict == REPRODUCED
    bad = by_id(claims.figure2_claims(synthetic_fig2(flat=False), synthetic_exp1(2.0, pm1_factor=1.2), quick=True))
    assert bad["F2.b"].verdict == bad["F2.c"].verdict == NOT_REPRODUCED


def synthetic_fig4(means: dict, t_end: int = 1000, sd: float = 0.02) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    rows = []
    for (gap, variant), m in means.items():
        for s in range(8):
            r = m * (1 + rng.normal(0, sd))
            for t in (0, t_end // 2, t_end):
                rows.append({"gap": gap, "variant": variant, "seed": s, "t": t, "regret": r * t / t_end, "pd_failures": 0})
    return pd.DataFrame(rows)


PAPER_LIKE = {(0.0, "nonprivate"): 50, (0.0, "gaussian"): 14e3, (0.0, "wishart"): 80e3, (0.0, "wishart_unshifted"): 110e3,
              (0.1, "nonprivate"): 50, (0.1, "gaussian"): 12e3, (0.1, "wishart"): 80e3, (0.1, "wishart_unshifted"): 80.5e3}


def test_figure4_claims_pass_on_paper_like_numbers():
    found = by_id(claims.figure4_claims(synthetic_fig4(PAPER_LIKE), t_star=1000, n=N_FULL, quick=True))
    for cid in ("F4.a", "F4.b", "F4.c", "F4.d", "F4.f"):
        assert found[cid].verdict == REPRODUCED, (cid, found[cid].measured)
    assert found["F4.e"].verdict == NOT_EVALUATED  # prefix runs: paper scale only


def test_figure4_claims_fail_when_reversed():
    reversed_ = {**PAPER_LIKE, (0.0, "gaussian"): 90e3, (0.1, "gaussian"): 90e3, (0.0, "wishart_unshifted"): 60e3}
    fig4 = synthetic_fig4(reversed_)
    fig4.loc[(fig4["variant"] == "wishart") & (fig4["seed"] == 0), "pd_failures"] = 3
    found = by_id(claims.figure4_claims(fig4, t_star=1000, n=N_FULL, quick=True))
    for cid in ("F4.a", "F4.c", "F4.d", "F4.f"):
        assert found[cid].verdict == NOT_REPRODUCED, cid


def synthetic_fig5(over_cost: dict) -> pd.DataFrame:
    """Regret = base + over_cost[gap]·(log ρ / log ρ_def) above the default, per mechanism."""
    rng = np.random.default_rng(2)
    grid = [3.8e4, 9.155e4, 1.69e5, 2.2e5, 5.3e5, 1.28e6, 3.08e6, 7.43e6, 1.79e7]
    rows = []
    for mech, rdef in (("gaussian", 9.155e4), ("wishart", 1.69e5)):
        for gap, cost in over_cost.items():
            for rho in grid:
                base = 10e3 + cost * max(0.0, np.log(rho / rdef)) / np.log(grid[-1] / rdef)
                for s in range(4):
                    rows.append({"mechanism": mech, "gap": gap, "rho_min": rho, "seed": s, "t": 100,
                                 "regret": base * (1 + rng.normal(0, 0.01)), "pd_failures": 0})
    return pd.DataFrame(rows)


DEFAULTS = {"gaussian": 9.155e4, "wishart": 1.69e5}


def test_figure5_claims_pass_and_fail():
    good = by_id(claims.figure5_claims(synthetic_fig5({0.0: 60e3, 0.00625: 40e3, 0.1: 10e3}), defaults=DEFAULTS, quick=True))
    for cid in ("F5.a", "F5.b", "F5.c", "F5.d"):
        assert good[cid].verdict == REPRODUCED, (cid, good[cid].measured)
    assert good["F5.e"].verdict == NOT_EVALUATED
    bad = by_id(claims.figure5_claims(synthetic_fig5({0.0: 2e3, 0.00625: 5e3, 0.1: 10e3}), defaults=DEFAULTS, quick=True))
    for cid in ("F5.a", "F5.b", "F5.c", "F5.d"):
        assert bad[cid].verdict == NOT_REPRODUCED, cid


def test_quick_and_paper_thresholds_differ():
    # slope 1.65: inside the quick interval [1.6, 2.4], outside the paper interval [1.7, 2.3]
    exp1 = synthetic_exp1(1.65)
    assert by_id(claims.figure3_claims(exp1, quick=True))["F3.a"].verdict == REPRODUCED
    assert by_id(claims.figure3_claims(exp1, quick=False))["F3.a"].verdict == NOT_REPRODUCED


# ----------------------------------------------------------------------------- audit (claims S.1, S.2)


def test_sample_audit_rounds_is_seeded_distinct_and_in_range():
    from privopt.bandits import sample_audit_rounds
    from privopt.seeding import seed_sequence

    ss = seed_sequence("shariff2018", "exp2", {"gap": 0.1}, 3)
    a = sample_audit_rounds(ss, 10_000, 200)
    np.testing.assert_array_equal(a, sample_audit_rounds(seed_sequence("shariff2018", "exp2", {"gap": 0.1}, 3), 10_000, 200))
    assert a.size == 200 and np.unique(a).size == 200 and a.min() >= 1 and a.max() <= 10_000
    assert (np.diff(a) > 0).all()
    assert not np.array_equal(a, sample_audit_rounds(seed_sequence("shariff2018", "exp2", {"gap": 0.1}, 4), 10_000, 200))
    np.testing.assert_array_equal(sample_audit_rounds(ss, 50, 200), np.arange(1, 51))  # more than n_rounds: all
    assert sample_audit_rounds(ss, 50, 0).size == 0


def test_exp2_audit_leaves_the_regret_unchanged_and_gives_shares_in_unit_interval():
    kw = dict(n=N_FULL, n_rounds=400, rec_every=100)
    plain = runs.exp2_block(0.1, [0, 1], **kw)
    records, audit = runs.exp2_block_with_audit(0.1, [0, 1], audit_rounds=30, **kw)
    pd.testing.assert_frame_equal(plain.drop(columns="wall_s"), records.drop(columns="wall_s"))
    assert tuple(audit.columns) == runs.AUDIT_TABLE_COLUMNS
    assert len(audit) == len(runs.VARIANTS) * 2 * 30 and (audit["gap"] == 0.1).all()
    assert audit["t"].between(1, 400).all()
    # the same random rounds for every variant of a seed, different rounds for different seeds
    rounds = audit.groupby(["seed", "variant"])["t"].apply(tuple)
    assert rounds.loc[0].nunique() == 1 and rounds.loc[1].nunique() == 1 and rounds.loc[0].iloc[0] != rounds.loc[1].iloc[0]
    # one seed per block gives the same rows (the sample depends on the run's seed only)
    _, alone = runs.exp2_block_with_audit(0.1, [1], audit_rounds=30, **kw)
    pd.testing.assert_frame_equal(audit[audit["seed"] == 1].reset_index(drop=True), alone)
    assert (audit.loc[audit["variant"] == "nonprivate", "mechanism"] == "none").all()
    shares = claims.audit_shares(audit)
    assert set(shares["variant"]) == set(runs.VARIANTS) and (shares["n"] == 60).all()
    private = shares[shares["variant"] != "nonprivate"]
    assert private["s1"].between(0, 1).all() and shares["s1"].isna().sum() == 1
    assert shares["s2"].between(0, 1).all()
    found = by_id(claims.sanity_claims(audit))
    assert found["S.1"].verdict != NOT_EVALUATED and found["S.2"].verdict != NOT_EVALUATED
    assert "gaussian" in found["S.1"].measured and "nonprivate" not in found["S.1"].measured
    assert "nonprivate" in found["S.2"].measured
    tables = aggregation.tables_for("exp2", records, audits=audit.sample(frac=1, random_state=0))
    pd.testing.assert_frame_equal(tables["audit"], audit.sort_values(["gap", "variant", "seed", "t"]).reset_index(drop=True))
    _, none = runs.exp2_block_with_audit(0.1, [0], audit_rounds=0, **kw)
    assert tuple(none.columns) == runs.AUDIT_TABLE_COLUMNS and len(none) == 0


def synthetic_audit(n: int = 100) -> pd.DataFrame:
    """Audited rounds well inside every bound: NonPrivate (H = I) and two private variants, two gaps."""
    rows = []
    bounds = {"nonprivate": ("none", 1.0, 1.0, 0.0), "gaussian": ("gaussian", 9e4, 2.7e5, 28.0),
              "wishart": ("wishart", 1.7e5, 3.4e5, 204.0)}
    for gap in (0.0, 0.1):
        for variant, (mech, lo, hi, gamma) in bounds.items():
            for i in range(n):
                lam = (1.0, 1.0, 0.0) if mech == "none" else (1.5 * lo, 0.8 * hi, 0.3 * gamma)
                rows.append({"gap": gap, "variant": variant, "mechanism": mech, "seed": i % 4, "t": 10 + i,
                             "lambda_min_H": lam[0], "lambda_max_H": lam[1], "h_norm_Hinv": lam[2],
                             "conf_norm_V": 5.0, "beta": 20.0, "logdet_V": 50.0, "rho_min": lo, "rho_max": hi,
                             "gamma": gamma})
    return pd.DataFrame(rows, columns=list(runs.AUDIT_TABLE_COLUMNS))


def _rows(audit, variant, gap, k):
    return audit.index[(audit["variant"] == variant) & (audit["gap"] == gap)][:k]


def test_sanity_claims_pass_inside_the_bounds():
    found = by_id(claims.sanity_claims(synthetic_audit()))
    assert found["S.1"].verdict == found["S.2"].verdict == REPRODUCED
    assert "smallest share 100.00%" in found["S.1"].measured and "of 200" in found["S.1"].measured


def test_sanity_claim_s1_threshold_is_99_percent_per_configuration():
    audit = synthetic_audit()
    one = audit.copy()
    one.loc[_rows(one, "gaussian", 0.1, 1), "lambda_min_H"] = 0.5 * 9e4  # 99% in (gaussian, Δ=0.1): still holds
    assert by_id(claims.sanity_claims(one))["S.1"].verdict == REPRODUCED
    for col, value in (("lambda_min_H", 0.5 * 1.7e5), ("lambda_max_H", 2 * 3.4e5), ("h_norm_Hinv", np.inf)):
        bad = audit.copy()
        bad.loc[_rows(bad, "wishart", 0.0, 2), col] = value  # 98% in one configuration (99.0% pooled): fails
        found = by_id(claims.sanity_claims(bad))
        assert found["S.1"].verdict == NOT_REPRODUCED, col
        assert "98.00%" in found["S.1"].measured and found["S.2"].verdict == REPRODUCED
    # S.1 does not apply to NonPrivate: its (ρ, γ) are not checked
    nonpriv = audit.copy()
    nonpriv.loc[_rows(nonpriv, "nonprivate", 0.0, 50), "h_norm_Hinv"] = 1.0
    assert by_id(claims.sanity_claims(nonpriv))["S.1"].verdict == REPRODUCED


def test_sanity_claim_s2_needs_every_audited_round():
    bad = synthetic_audit()
    bad.loc[_rows(bad, "nonprivate", 0.1, 1), "conf_norm_V"] = 21.0  # θ* outside the ellipsoid once
    found = by_id(claims.sanity_claims(bad))
    assert found["S.2"].verdict == NOT_REPRODUCED and found["S.1"].verdict == REPRODUCED
    assert "99.00%" in found["S.2"].measured


def test_sanity_claims_not_evaluated_without_audit():
    for audit in (None, runs.empty_audit()):
        found = by_id(claims.sanity_claims(audit, audit_rounds=0))
        assert found["S.1"].verdict == found["S.2"].verdict == NOT_EVALUATED
        assert "audit_rounds = 0" in found["S.1"].details
