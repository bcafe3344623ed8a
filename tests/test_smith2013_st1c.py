"""Figure ST-1c (beyond the paper): PFTAL with a pluggable continual counter — the tree path is TBAP's bit for bit,
Honaker at the same λ has the same privacy, the job pairs the counters on the same points, and the ratio tables and
claims ST1c.a–b decide planted gains, losses and ties."""

from __future__ import annotations

import functools
import math
import re

import numpy as np
import pandas as pd
import pytest

from privopt.experiments.smith2013 import claims as claims_mod
from privopt.experiments.smith2013 import tables
from privopt.experiments.smith2013.paper import PAPER
from privopt.experiments.smith2013.pftal_counters import st1c_job
from privopt.fastrng import FastGenerator
from privopt.mechanisms.counting import certify, linear_maps, noise_variance, prefix_noise
from privopt.mechanisms.tree import tree_levels
from privopt.online.pftal.losses import loss_code
from privopt.online.pftal.full import pftal_counter, pftal_setup, run_pftal
from privopt.online.pftal.reference import pftal_reference
from privopt.mechanisms.tbap import tbap_scale
from privopt.pipeline.claims import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED


# ----------------------------------------------------------------------------- the tree path is TBAP's


def _disk(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 2))
    return x / np.linalg.norm(x, axis=1)[:, None] * np.sqrt(rng.random((n, 1)))


def _states(n, base):
    return np.stack([FastGenerator(base + i).state for i in range(n)])


#: run_pftal's cumulative losses before the counters (commit 305cb73, today's TBAP kernel), float.hex: the
#: golden numbers of the script in test_tree_counter_reproduces_the_recorded_pftal_numbers
GOLDEN = {
    "sc": ["0x1.07a0efc7524a9p+8", "0x1.007ba4f1aa6efp+8", "0x1.ef19baceb5319p+7", "0x1.2d851610d3749p+7",
           "0x1.4ed92d031256ap+7", "0x1.5f31c7794d9d2p+7", "0x1.ce45cab6fee57p+6", "0x1.d0dba81883083p+6",
           "0x1.daab7544b3c6dp+6"],
    "gc": ["0x1.67dd07040fe46p+8", "0x1.613d71c8f42d5p+8", "0x1.5f5cb808349b3p+8", "0x1.1c87ab64e8cc6p+8",
           "0x1.2d69c28f45136p+8", "0x1.2f4c843516e45p+8", "0x1.fd9e22aca0e50p+7", "0x1.fc9cca077729fp+7",
           "0x1.03a48ce930c90p+8"],
}


@pytest.mark.parametrize("loss", ["sc", "gc"])
def test_tree_counter_reproduces_the_recorded_pftal_numbers(loss):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((500, 2))
    x /= np.maximum(1, np.linalg.norm(x, axis=1))[:, None]
    idx = np.stack([np.random.default_rng(s).integers(0, 500, 300) for s in range(3)]).astype(np.int64)
    setups = [pftal_setup(loss, 300, 2, e) for e in (0.5, 3.0, math.inf) for _ in range(3)]
    rows = [i for _ in range(3) for i in range(3)]
    out = run_pftal(x, idx, rows, setups, _states(9, 100))
    assert [v.hex() for v in out["cum_loss"]] == GOLDEN[loss]


@pytest.mark.parametrize("loss", ["sc", "gc"])
@pytest.mark.parametrize("T", [37, 256, 1000])
def test_tree_counter_is_bit_identical_to_the_tbap_kernel(loss, T):
    """The tree counter at scale = tbap_scale(...) gives array_equal cumulative losses to TBAP's path, the numpy
    reference on TreeAggregator (which the former TBAP-only kernel matched bit for bit, until 2026-12-06 kept here
    beside it), on several seeds and ε, ε = ∞ too."""
    pts = _disk(700, T)
    seeds = 4
    idx = np.stack([np.random.default_rng(1000 + s).integers(0, len(pts), T) for s in range(seeds)]).astype(np.int64)
    eps = (0.3, 2.0, math.inf)
    setups = [pftal_setup(loss, T, 2, e) for e in eps for _ in range(seeds)]
    rows = np.array([i for _ in eps for i in range(seeds)])
    for s in setups:
        assert pftal_counter(s, "tree").scale == tbap_scale(s.mu, s.eps, T) == s.lam
    new = run_pftal(pts, idx, rows, setups, _states(len(setups), 7 * T), counter="tree")
    cum, _, _ = pftal_reference(pts, idx, rows, loss_code(loss), setups[0].regularised, T, [s.H for s in setups],
                            [s.mu for s in setups], [s.lam for s in setups], 1.0,
                            [FastGenerator(7 * T + r) for r in range(len(setups))])
    assert np.array_equal(new["cum_loss"], cum)
    # the other counters run on the same code path and move the iterates (ε = ∞: no noise, the same numbers)
    for name in ("honaker", "smooth"):
        other = run_pftal(pts, idx, rows, setups, _states(len(setups), 7 * T), counter=name)
        inf = np.isinf([s.eps for s in setups])
        assert np.array_equal(other["cum_loss"][inf], new["cum_loss"][inf])
        assert not np.array_equal(other["cum_loss"][~inf], new["cum_loss"][~inf])


def test_counter_state_is_reset_per_replica():
    """A replica's numbers do not depend on the replicas run before it in the same call (buf zeroed, ibuf reset)."""
    pts, T = _disk(400, 3), 100
    idx = np.random.default_rng(0).integers(0, 400, (2, T)).astype(np.int64)
    for name in ("tree", "honaker", "smooth"):
        s = pftal_setup("sc", T, 2, 1.0)
        both = run_pftal(pts, idx, [0, 1], [s, s], _states(2, 50), counter=name)["cum_loss"]
        alone = run_pftal(pts, idx, [1], [s], _states(2, 50)[1:], counter=name)["cum_loss"]
        assert both[1] == alone[0], name


def test_unknown_or_gaussian_only_counter_is_refused():
    s = pftal_setup("sc", 64, 2, 1.0)
    with pytest.raises(ValueError, match="pure ε"):
        pftal_counter(s, "sqrt")


# ----------------------------------------------------------------------------- the same privacy


@pytest.mark.parametrize("T", [5, 8, 13, 16, 37])
@pytest.mark.parametrize("loss, eps", [("sc", 1.0), ("gc", 0.3)])
def test_honaker_at_the_tree_scale_has_the_trees_guarantee(T, loss, eps):
    """Same λ, same tree: the node scales are equal; Honaker's N(t) is B z of its node noises with B C = A (a
    post-processing of the node releases C x + z); every node the tree noises is one of Honaker's, and an item
    lies in as many of Honaker's nodes as the tree's worst item (bit_length(T) ≤ K): at λ = c_sens·μ·K/ε both
    certify ε.  The smooth mechanism's own calibration certifies ε too."""
    s = pftal_setup(loss, T, 2, eps)
    tree, hon, smooth = (pftal_counter(s, c) for c in ("tree", "honaker", "smooth"))
    assert hon.scale == tree.scale == s.lam
    assert hon.sensitivity == tree.sensitivity == smooth.sensitivity == s.c_sens * s.mu
    Bt, Ct = linear_maps(tree)
    Bh, Ch = linear_maps(hon)
    A = np.tril(np.ones((T, T)))
    np.testing.assert_allclose(Bh @ Ch, A, atol=1e-12)
    np.testing.assert_allclose(Bt @ Ct, A, atol=1e-12)
    honaker_nodes = {tuple(row) for row in Ch}
    assert all(tuple(row) in honaker_nodes for row in Ct)
    assert np.abs(Ch).sum(axis=0).max() == np.abs(Ct).sum(axis=0).max() == T.bit_length() <= tree_levels(T)
    for c in (tree, hon, smooth):
        cert = certify(c)
        assert cert["ok"] and cert["eps"] <= eps * (1 + 1e-12), (c.name, cert)
    assert certify(tree)["eps"] == certify(hon)["eps"]
    # Honaker's released noise has a smaller variance than the tree's at every t > 1, at the same privacy
    assert (noise_variance(hon)[1:] < noise_variance(tree)[1:]).all()
    # the streamed noise of the tree counter is TBAP's node sums (same λ, same draws)
    assert np.array_equal(prefix_noise(tree, FastGenerator(3)), prefix_noise(tree, FastGenerator(3)))


# ----------------------------------------------------------------------------- the job


@pytest.fixture(scope="module")
def disk_dir(tmp_path_factory):
    rng = np.random.default_rng(0)
    r, a = np.sqrt(rng.random(2000)), 2 * math.pi * rng.random(2000)
    where = tmp_path_factory.mktemp("disk")
    pd.DataFrame({"ux": r * np.cos(a), "uy": r * np.sin(a)}).to_parquet(where / "disk.parquet")
    return str(where)


SETTINGS = {"losses": ["sc", "gc"], "eps": [1.0, 3.0], "counters": ["tree", "honaker", "smooth"], "c_sens": 2.0,
            "h_rule": "hstar"}


def test_st1c_job_pairs_the_counters_and_does_not_depend_on_the_blocks(disk_dir):
    inputs = {"disk": disk_dir}
    both = st1c_job(PAPER.experiment("st1c"), {"T": 128}, SETTINGS, [0, 1], inputs)["runs"]
    assert len(both) == 2 * 3 * 2 * 2
    split = pd.concat([st1c_job(PAPER.experiment("st1c"), {"T": 128}, SETTINGS, [s], inputs)["runs"] for s in (0, 1)])
    key = ["counter", "loss", "eps", "seed"]
    pd.testing.assert_frame_equal(both.drop(columns="wall_s").sort_values(key).reset_index(drop=True),
                                  split.drop(columns="wall_s").sort_values(key).reset_index(drop=True))
    # paired: every counter of a (loss, seed) has the same comparator (the same points)
    assert (both.groupby(["loss", "seed"])["best_loss"].nunique() == 1).all()
    tree = both[both["counter"] == "tree"]
    assert (tree["scale"] == tree["lam"]).all()
    assert (both[both["counter"] == "honaker"]["scale"].to_numpy() == tree["scale"].to_numpy()).all()
    assert (both["max_ratio"] <= 1 + 1e-9).all()
    # distinct noise per counter: no two counters give the same cumulative loss
    wide = both.pivot_table(index=["loss", "eps", "seed"], columns="counter", values="cum_loss")
    assert (wide["tree"] != wide["honaker"]).all() and (wide["tree"] != wide["smooth"]).all()
    with pytest.raises(ValueError, match="finite"):
        st1c_job(PAPER.experiment("st1c"), {"T": 64}, {**SETTINGS, "eps": [1.0, math.inf]}, [0], inputs)


# ----------------------------------------------------------------------------- tables and claims


def _runs(factors: dict, seeds=12, Ts=(1024, 4096), spread=0.02, base=100.0):
    """Synthetic runs: the tree's regret base·(1 + spread·g_seed); another counter's is ``factor`` × the tree's on
    the same seed (paired), ± a small independent term.  factor "tie": the tree's values in reverse seed order
    (exactly the same mean, different pairs)."""
    rng = np.random.default_rng(0)
    rows = []
    for loss in ("sc", "gc"):
        for e in (0.3, 1.0):
            for T in Ts:
                tree = base * T / 1024 * (1 + spread * rng.standard_normal(seeds))
                for c, f in {"tree": 1.0, **factors}.items():
                    if c == "tree":
                        vals = tree
                    elif f == "tie":
                        vals = tree[::-1]
                    else:
                        vals = tree * f * (1 + 0.002 * rng.standard_normal(seeds))
                    rows += [{"experiment": "st1c", "counter": c, "loss": loss, "T": T, "p": 2, "eps": e, "seed": s,
                              "regret": float(vals[s]), "scale": 1.0} for s in range(seeds)]
    return pd.DataFrame(rows)


def _claims(runs):
    t = tables.st1c_tables(PAPER.experiment("st1c"), {"runs": runs}, {})
    out = {}
    for r in claims_mod.evaluate({"st1c": t["st1c"]}, {}):
        if r.claim.startswith("ST1c"):
            out.setdefault(r.claim, []).append(r)
    return t, out


def test_st1c_tables_ratio_and_paired_interval():
    t, _ = _claims(_runs({"honaker": 0.8, "smooth": 1.25}))
    s = t["st1c"]
    assert list(s.columns) == ["loss", "eps", "T", "counter", "mean", "std", "sem", "n", "ci_lo", "ci_hi", "scale",
                               "ratio", "ratio_lo", "ratio_hi"]
    assert list(s["counter"].iloc[:3]) == ["tree", "honaker", "smooth"]
    tree = s[s["counter"] == "tree"]
    assert (tree["ratio"] == 1.0).all() and (tree["ratio_lo"] == 1.0).all()
    hon = s[s["counter"] == "honaker"]
    np.testing.assert_allclose(hon["ratio"], 0.8, rtol=0.01)
    # paired: the seed-to-seed spread (2 %) cancels, the interval is as narrow as the 0.2 % independent part
    assert ((hon["ratio_hi"] - hon["ratio_lo"]) < 0.01).all() and (hon["ratio_lo"] < hon["ratio"]).all()
    assert len(t["st1c_runs"]) == len(_runs({"honaker": 0.8, "smooth": 1.25}))
    again, _ = _claims(_runs({"honaker": 0.8, "smooth": 1.25}))
    pd.testing.assert_frame_equal(s, again["st1c"])  # a fixed bootstrap stream: deterministic


def _measured(row, counter) -> float:
    return float(re.search(rf"{counter}/tree = ([0-9.]+)", row.measured).group(1))


def test_st1c_claims_gain_loss_tie():
    _, gain = _claims(_runs({"honaker": 0.8, "smooth": 0.5}))
    assert {r.verdict for r in gain["ST1c.a"] + gain["ST1c.b"]} == {REPRODUCED}
    assert len(gain["ST1c.a"]) == 4  # one per (loss, ε), at the largest T
    for r in gain["ST1c.a"]:  # the text reports the measured ratio at the largest T
        assert "T = 2^12" in r.measured and abs(_measured(r, "honaker") - 0.8) < 0.005, r.measured
    _, loss = _claims(_runs({"honaker": 1.2, "smooth": 1.3}))
    assert {r.verdict for r in loss["ST1c.a"] + loss["ST1c.b"]} == {NOT_REPRODUCED}
    assert all(abs(_measured(r, "smooth") - 1.3) < 0.005 for r in loss["ST1c.b"])
    _, tie = _claims(_runs({"honaker": "tie", "smooth": "tie"}))
    rows = tie["ST1c.a"] + tie["ST1c.b"]
    assert {r.verdict for r in rows} == {INCONCLUSIVE}, [(r.measured, r.verdict) for r in rows]
    assert all("= 1.000" in r.measured and "larger T" in r.needs for r in rows), [(r.measured, r.needs) for r in rows]


def test_st1c_claims_need_ten_seeds_and_a_tree():
    _, few = _claims(_runs({"honaker": 0.8, "smooth": 0.5}, seeds=4))
    rows = few["ST1c.a"] + few["ST1c.b"]
    assert {r.verdict for r in rows} == {INCONCLUSIVE} and all("≥ 10 seeds" in r.needs for r in rows)
    runs = _runs({"honaker": 0.8})
    _, no_smooth = _claims(runs)
    assert {r.verdict for r in no_smooth["ST1c.b"]} == {INCONCLUSIVE}


@functools.lru_cache(maxsize=1)
def _good():
    return tables.st1c_tables(PAPER.experiment("st1c"), {"runs": _runs({"honaker": 0.8, "smooth": 0.5})}, {})


def good_st1c_tables() -> dict:
    """ST-1c tables with a planted gain (the claims read true): for tests/test_smith2013.py's table set."""
    return {k: v.copy() for k, v in _good().items()}


@pytest.mark.parametrize("eps", [(1.0,), (0.3, 1.0)])
def test_st1c_panels_keep_the_palette(eps):
    """The figure's drawing (one ε: colour by counter; several: colour by ε, marker by counter) stays on the palette."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from privopt import plotting as pp
    from privopt.experiments.smith2013.figures import st1c_panels

    t = good_st1c_tables()["st1c"]
    t = t[t["eps"].isin(eps)]
    fig, axes = plt.subplots(2, 2, squeeze=False)
    assert st1c_panels(axes, t) == 0
    assert pp.palette_problems(fig) == []
    assert len(axes[1][0].containers) == 2 * len(eps)  # honaker and smooth per ε
    plt.close(fig)
