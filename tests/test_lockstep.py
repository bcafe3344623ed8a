"""Variants in lockstep (issue 14): one kernel runs all variants of a seed together and gives exactly
the results of running them one by one (the per-variant numba kernel and the numpy reference)."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from privopt.bandits import (
    VARIANTS,
    BanditInstance,
    params_for_rho_min,
    rho_min_grid,
    run_episode,
    run_episodes,
    variant_params,
)
from privopt.bandits.episodes import lockstep_eligible, run_lockstep
from privopt.bandits.kernels import TIE_RTOL
from privopt.bandits.lockstep import _first_max, _first_max_running
from privopt.pipeline.registry import paper
from privopt.experiments.shariff2018 import runs
from privopt.pipeline.config import load_config
from privopt.seeding import seed_sequence
from workflow_runs import CONFIG, TIMING

N_PAPER = 50_000_000


def exp2_variants(d=5):
    return [variant_params(v, N_PAPER, d) for v in VARIANTS]


def exp3_variants(mechanism, d=5):
    return [params_for_rho_min(mechanism, rho, N_PAPER, d, name=f"{mechanism}@{i}")
            for i, rho in enumerate(rho_min_grid(N_PAPER, d))]


def assert_same_run(a, b):
    """Everything a run returns, bit for bit (wall time aside)."""
    assert a.variant == b.variant and a.n_rounds == b.n_rounds
    np.testing.assert_array_equal(a.t, b.t)
    np.testing.assert_array_equal(a.regret, b.regret)
    np.testing.assert_array_equal(a.theta, b.theta)
    np.testing.assert_array_equal(a.trace, b.trace)
    assert (a.pd_failures, a.n_optimal, a.node_draws) == (b.pd_failures, b.n_optimal, b.node_draws)
    np.testing.assert_array_equal(a.extra["env_state_end"], b.extra["env_state_end"])
    np.testing.assert_array_equal(a.extra["noise_state_end"], b.extra["noise_state_end"])
    if a.audit is None:
        assert b.audit is None
    else:
        pd.testing.assert_frame_equal(a.audit, b.audit, check_exact=True)


CASES = {
    "exp2": (exp2_variants, BanditInstance(d=5, gap=0.1), 1100),        # past 1024: an exact tree refresh
    "exp2 gap 0": (exp2_variants, BanditInstance(d=5, gap=0.0), 300),
    "exp2 gaussian rewards": (exp2_variants, BanditInstance(d=5, gap=0.1, reward="gaussian"), 300),
    "exp3 wishart": (lambda: exp3_variants("wishart"), BanditInstance(d=5, gap=0.1), 300),
    "exp3 gaussian": (lambda: exp3_variants("gaussian"), BanditInstance(d=5, gap=0.0), 300),
    "mixed grid and defaults": (lambda: exp3_variants("wishart")[:5] + exp2_variants()[::-1],
                                BanditInstance(d=5, gap=0.1), 200),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.filterwarnings("ignore")
def test_lockstep_equals_per_variant_kernel(case):
    make, inst, n_rounds = CASES[case]
    vs = make()
    seed = seed_sequence("shariff2018", "test_lockstep", {"case": case}, 5)
    audit = [1, 2, 3, 64, n_rounds]
    together = run_lockstep(vs, inst, n_rounds, seed, record=37, audit=audit, trace=True)
    assert len(together) == len(vs)
    for v, res in zip(vs, together):
        alone = run_episode(v, inst, n_rounds, seed, record=37, audit=audit, trace=True, kernel="onthefly")
        assert_same_run(res, alone)
        assert res.extra["lockstep"] == len(vs)


@pytest.mark.filterwarnings("ignore")
def test_lockstep_equals_numpy_reference():
    inst = BanditInstance(d=5, gap=0.1)
    vs = exp2_variants()
    together = run_lockstep(vs, inst, 200, 77, record=25, trace=True)
    for v, res in zip(vs, together):
        ref = run_episode(v, inst, 200, 77, record=25, trace=True, engine="numpy")
        np.testing.assert_array_equal(res.trace, ref.trace)
        np.testing.assert_array_equal(res.regret, ref.regret)
        np.testing.assert_array_equal(res.extra["env_state_end"], ref.extra["env_state_end"])
        np.testing.assert_array_equal(res.extra["noise_state_end"], ref.extra["noise_state_end"])
        assert (res.n_optimal, res.node_draws) == (ref.n_optimal, ref.node_draws)


def test_run_episodes_lockstep_frames_equal_per_variant():
    inst = BanditInstance(d=5, gap=0.1)
    vs = exp2_variants()
    seeds = [seed_sequence("shariff2018", "exp2", {"gap": 0.1}, s) for s in range(2)]
    kw = dict(labels=[0, 1], record=50, audit_sample=20)
    a = run_episodes(vs, inst, 400, seeds, lockstep=True, **kw)
    b = run_episodes(vs, inst, 400, seeds, **kw)
    pd.testing.assert_frame_equal(a.curves, b.curves, check_exact=True)
    pd.testing.assert_frame_equal(a.runs.drop(columns=["wall_s", "us_per_round"]),
                                  b.runs.drop(columns=["wall_s", "us_per_round"]), check_exact=True)
    pd.testing.assert_frame_equal(a.audits, b.audits, check_exact=True)


def test_lockstep_eligibility():
    inst = BanditInstance(d=5, gap=0.1)
    vs = exp2_variants()
    assert lockstep_eligible(vs, inst)
    assert not lockstep_eligible(vs[:1], inst)  # one variant: nothing to share
    assert not lockstep_eligible(vs, inst, kernel="batched")  # BLAS sums in another order
    big = BanditInstance(d=12, gap=0.1)
    assert not lockstep_eligible(exp2_variants(12), big)
    assert lockstep_eligible(exp2_variants(12), big, kernel="onthefly")


def test_pipeline_blocks_equal_per_variant_runs(monkeypatch):
    """The Exp. 2 (with audit) and Exp. 3 blocks run in lockstep and give the per-variant records."""
    kw2 = dict(n=N_PAPER, n_rounds=300, d=5, rec_every=100, audit_rounds=30)
    kw3 = dict(n=N_PAPER, n_rounds=300, rec_points=3)
    fast2 = runs.exp2_block_with_audit(0.1, [0, 1], **kw2)
    fast3 = runs.exp3_block("wishart", 0.1, [0], **kw3)
    original = runs.run_episodes
    monkeypatch.setattr(runs, "run_episodes", lambda *a, **k: original(*a, **{**k, "lockstep": False}))
    slow2 = runs.exp2_block_with_audit(0.1, [0, 1], **kw2)
    slow3 = runs.exp3_block("wishart", 0.1, [0], **kw3)
    for fast, slow in [(fast2[0], slow2[0]), (fast3, slow3)]:
        pd.testing.assert_frame_equal(fast.drop(columns="wall_s"), slow.drop(columns="wall_s"), check_exact=True)
    pd.testing.assert_frame_equal(fast2[1], slow2[1], check_exact=True)


def _smoke_outputs(experiment: str) -> tuple[dict[str, pd.DataFrame], dict[str, pd.DataFrame]]:
    """(the run jobs' outputs concatenated, the tables) of ``experiment`` on the smoke configuration, as its run
    and table rules make them."""
    sh = paper("shariff2018")
    section = load_config([CONFIG / "smoke.yaml"])["shariff2018"]
    exp = sh.experiment(experiment)
    outs = [exp.execute(job.point, exp.settings(section, job.point), job.seeds, {})
            for job in sh.run_jobs(section, experiment)]
    frames = {name: pd.concat([o[name] for o in outs], ignore_index=True) for name in exp.outputs}
    return frames, exp.make_tables(frames, exp.table_settings(section))


def _smoke_tables(experiment: str) -> dict[str, pd.DataFrame]:
    """The tables of ``experiment`` on the smoke configuration, as its run and table rules make them."""
    return _smoke_outputs(experiment)[1]


def frame_digest(frame: pd.DataFrame) -> str:
    """sha256 of a frame's content without its timing columns: per column its name, dtype, length and values
    (numbers as their little-endian bytes, so one changed bit changes the digest; other values as text)."""
    h = hashlib.sha256()
    frame = frame.drop(columns=[c for c in TIMING if c in frame.columns]).reset_index(drop=True)
    for name in frame.columns:
        col = frame[name]
        h.update(f"{name}:{col.dtype}:{len(col)};".encode())
        if col.dtype.kind in "fiub":
            h.update(np.ascontiguousarray(col.to_numpy()).astype(col.dtype.newbyteorder("<")).tobytes())
        else:
            h.update("\x1f".join(map(str, col.tolist())).encode())
    return h.hexdigest()


#: Figure 5 on the smoke configuration (config/smoke.yaml: 2 gaps × 2 mechanisms × 9 ρ_min × 2 seeds × 2·10^4
#: rounds), digests frozen from the lockstep kernel before issue 36 put the variants in lanes (commit aa8413a):
#: the run jobs' rows (every recorded regret, pd_failures, n_optimal) and the three tables
EXP3_SMOKE_SHA256 = {
    "runs": "2c10b3b9e2aba051a557a8c845689bd6956530229a50bd8033849a1152b2eea2",
    "fig5": "fe3d2903a9edbbed5ac03831796e238a525387c1427200d5740416b263068896",
    "fig5_runs": "84ba5cc2731d3c42e46cd789f27b20e584de2e1e6b1d643d89113a25a8537698",
    "fig5_defaults": "2c0d08185f4f02638b83ae5bdde87533fb617add911eb35a71436de7f1e0b3fe",
}


def test_exp3_smoke_rows_are_bit_for_bit_those_of_the_kernel_before_lanes():
    """Issue 36: Figure 5's run rows and tables on the smoke configuration have the digests frozen from the
    kernel before this change (one flipped bit of any regret changes them: the next test)."""
    frames, tables = _smoke_outputs("exp3")
    got = {"runs": frame_digest(frames["runs"]), **{stem: frame_digest(t) for stem, t in tables.items()}}
    assert got == EXP3_SMOKE_SHA256


def test_frame_digest_sees_one_bit_and_ignores_timing():
    frame = pd.DataFrame({"variant": ["a", "b"], "regret": [12.5, 3.25], "n": [1, 2], "wall_s": [0.1, 0.2]})
    flipped = frame.copy()
    flipped.loc[1, "regret"] = np.nextafter(3.25, 4.0)
    timed = frame.assign(wall_s=[9.0, 9.0])
    assert frame_digest(frame) != frame_digest(flipped)
    assert frame_digest(frame) == frame_digest(timed)


@pytest.mark.parametrize("experiment", ["exp2", "exp3"])
def test_smoke_tables_equal_one_variant_at_a_time_on_the_reference_kernel(experiment, monkeypatch):
    """Every table of Figures 4 and 5 on the smoke configuration (audit included) is the same whether
    the variants of a seed run in lockstep (the pipeline) or one by one on the on-the-fly kernel."""
    together = _smoke_tables(experiment)
    original = runs.run_episodes
    monkeypatch.setattr(runs, "run_episodes",
                        lambda *a, **k: original(*a, **{**k, "lockstep": False, "kernel": "onthefly"}))
    alone = _smoke_tables(experiment)
    assert together.keys() == alone.keys()
    for stem in together:
        a, b = (t.drop(columns=[c for c in TIMING if c in t.columns]) for t in (together[stem], alone[stem]))
        assert len(a) > 0 or stem == "fig5_defaults", stem
        pd.testing.assert_frame_equal(a, b, check_exact=True, obj=stem)


def _argmax_cases():
    rng = np.random.default_rng(3)
    r = TIE_RTOL
    yield "random", rng.normal(size=25)
    yield "one arm", np.array([0.3])
    yield "exact tie", np.array([0.1, 0.7, 0.2, 0.7, 0.7])
    for scale in (1.0, -1.0, 1e-300, 5e8):
        base = scale * np.array([0.5, 0.9, 0.2, 0.9, 0.4])
        for frac in (0.5, 1.0, 1.5, 2.0, 2.5, 4.0):  # second maximum frac·r·|M| above or below the first
            for sign in (1, -1):
                v = base.copy()
                v[3] = v[1] + sign * frac * r * abs(v[1])
                yield f"near tie {scale:g} {sign * frac}r", v
    yield "chain of near ties", 1.0 + 0.6 * r * np.arange(10)  # each within r of the last, not of the first
    yield "NaN first", np.array([np.nan, 1.0, 2.0])
    yield "NaN inside", np.array([1.0, np.nan, 2.0, 0.5])
    yield "+inf", np.array([1.0, np.inf, 2.0, np.inf])
    yield "-inf", np.array([-np.inf, -np.inf, -3.0])
    yield "all -inf", np.full(4, -np.inf)
    yield "negative", -np.abs(rng.normal(size=25))


@pytest.mark.parametrize("name, ucb", list(_argmax_cases()), ids=[c[0] for c in _argmax_cases()])
def test_branch_free_argmax_equals_running_argmax(name, ucb):
    """The kernels' argmax takes the branch-free path where its result is plain and the running loop
    otherwise; both must give the running loop's answer (ties within TIE_RTOL → the lowest index)."""
    assert _first_max(ucb, ucb.size) == _first_max_running(ucb, ucb.size)


def test_branch_free_argmax_on_many_random_near_ties():
    rng = np.random.default_rng(11)
    for _ in range(2000):
        k = int(rng.integers(1, 30))
        v = rng.normal(size=k)
        j, i = rng.integers(0, k, size=2)
        v[j] = v[i] * (1 + rng.uniform(-3, 3) * TIE_RTOL)
        assert _first_max(v, k) == _first_max_running(v, k)
