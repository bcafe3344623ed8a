"""Figure RC-1c (beyond the paper, issue 27): SubmodPFTAL with a pluggable continual counter.

* the ``tree`` counter at TBAP's λ gives bit for bit the numbers of the former TBAP-only kernel (kept here,
  frozen, as the reference: today's RC-1a numbers are unchanged);
* ``honaker`` runs at the same λ on the same tree (same node scales, same nodes per item, B C = A), ``smooth``
  at its own pure-ε calibration (certified ε = the claim);
* the rc1c job pairs the counters (same streams and play randomness per seed), its tables and claims.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import pandas as pd
import pytest

from privopt.experiments.cardoso2019.grid import GRIDS, rc_mrf
from privopt.fastrng import FastGenerator, rng_uniform
from privopt.mechanisms.counting import certify, linear_maps
from privopt.mechanisms.tree import tree_depth, tree_levels
from privopt.online.submod_pftal import FULL_COUNTERS, full_setup, run_submod, submod_counter
from privopt.online.tbap import tbap_add, tbap_scale
from privopt.pipeline.claims import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED
from privopt.submodular.cuts import cut_chain_into, padded_adjacency, sort_chain


# ------------------------------------------------------------------ the former kernel (TBAP path), frozen

@numba.njit(cache=True)
def _tbap_kernel(base, half, cells, rows, nbr, wts, T, H, mu, lam, noise, play, exp_loss, real_loss, max_ratio,
                 xrec):
    """submod_full_kernel as it was before the counter interface (commit 305cb73), verbatim."""
    R = H.shape[0]
    n = base.shape[0]
    m = tree_depth(T)
    x = np.zeros(n)
    a = np.zeros(n)
    g = np.zeros(n)
    z = np.zeros(n)
    S = np.zeros(n)
    xsum = np.zeros(n)
    gbuf = np.zeros(n)
    vals = np.zeros(n + 1)
    inset = np.zeros(n + 1, dtype=np.bool_)
    perm = np.zeros(n, dtype=np.int64)
    scratch = np.zeros(n + 1, dtype=np.int64)
    eta = np.zeros((m, n))
    partial = np.zeros((m + 1, n))
    record = xrec.shape[1] > 0
    for r in range(R):
        for i in range(n):
            x[i] = 0.0
            S[i] = 0.0
            xsum[i] = 0.0
            perm[i] = i
        eta[:, :] = 0.0
        partial[:, :] = 0.0
        h = H[r]
        ex = 0.0
        re = 0.0
        worst = 0.0
        row = rows[r]
        nst = noise[r]
        pst = play[r]
        for t in range(1, T + 1):
            if record:
                for i in range(n):
                    xrec[r, t - 1, i] = x[i]
            for i in range(n):
                a[i] = base[i]
            c = cells[row, t - 1]
            a[c] -= half
            sort_chain(x, perm, n, scratch)
            cut_chain_into(a, nbr, wts, perm, n, inset, vals, g)
            fh = (1.0 - x[perm[0]]) * vals[0]
            for k in range(1, n):
                fh += (x[perm[k - 1]] - x[perm[k]]) * vals[k]
            fh += x[perm[n - 1]] * vals[n]
            ex += fh
            tau = rng_uniform(pst)
            cnt = 0
            for i in range(n):
                cnt += x[i] > tau
            re += vals[cnt]
            ss = 0.0
            for i in range(n):
                z[i] = g[i] + h * x[i]
                ss += z[i] * z[i]
            ratio = math.sqrt(ss) / mu[r]
            if ratio > worst:
                worst = ratio
            tbap_add(nst, t, n, lam[r], z, xsum, eta, partial, gbuf)
            for i in range(n):
                S[i] = S[i] + x[i]
            for i in range(n):
                v = S[i] / t - (xsum[i] + partial[0, i]) / (h * t)
                x[i] = 0.0 if v < 0.0 else (1.0 if v > 1.0 else v)
        if record:
            for i in range(n):
                xrec[r, T, i] = x[i]
        exp_loss[r] = ex
        real_loss[r] = re
        max_ratio[r] = worst


def _states(R, offset):
    return np.stack([FastGenerator(offset + r).state for r in range(R)])


@pytest.mark.parametrize("n, T, seed", [(8, 300, 0), (4, 1024, 1), (8, 777, 2), (16, 513, 3)])
def test_tree_counter_is_bit_identical_to_the_tbap_kernel(n, T, seed):
    """Today's RC-1a numbers are unchanged: the tree counter at λ = tbap_scale(μ, ε, T) gives array_equal
    losses, ratios and iterates to the former TBAP kernel, ε = ∞ included (no draws)."""
    inst = rc_mrf(n)
    rng = np.random.default_rng(seed)
    cells = rng.integers(0, n, size=(3, T)).astype(np.int64)
    eps = [1.0, 10.0, math.inf, 3.0, 100.0, 0.3]
    setups = [full_setup(n, T, e) for e in eps]
    rows = np.array([0, 1, 2, 0, 1, 2], dtype=np.int64)
    R = len(setups)
    out = run_submod(inst, cells, rows, setups, _states(R, 10 * seed), _states(R, 10 * seed + 100), record_x=True,
                     counter="tree")
    lam = np.array([tbap_scale(s.mu, s.eps, T) for s in setups])
    assert np.array_equal(out["scale"], lam) and np.array_equal(lam, [s.lam for s in setups])
    nbr, wts = padded_adjacency(n, inst.edges, inst.w)
    ex, re, ratio, xrec = np.zeros(R), np.zeros(R), np.zeros(R), np.zeros((R, T + 1, n))
    _tbap_kernel(inst.base, inst.demand, cells, rows, nbr, wts, T, np.array([s.H for s in setups]),
                 np.array([s.mu for s in setups]), lam, _states(R, 10 * seed), _states(R, 10 * seed + 100), ex, re,
                 ratio, xrec)
    assert np.array_equal(out["exp_loss"], ex)
    assert np.array_equal(out["real_loss"], re)
    assert np.array_equal(out["max_ratio"], ratio)
    assert np.array_equal(out["x"], xrec)
    # the default counter is the tree
    again = run_submod(inst, cells, rows, setups, _states(R, 10 * seed), _states(R, 10 * seed + 100))
    assert np.array_equal(again["exp_loss"], ex)


def test_counters_change_the_noise_only():
    """The same streams and play randomness: at ε = ∞ every counter gives the same run; at finite ε they differ,
    and each is deterministic in its states."""
    n, T = 8, 400
    inst = rc_mrf(n)
    cells = np.random.default_rng(5).integers(0, n, size=(2, T)).astype(np.int64)
    setups = [full_setup(n, T, e) for e in (math.inf, math.inf, 1.0, 1.0)]
    rows = np.array([0, 1, 0, 1], dtype=np.int64)
    outs = {c: run_submod(inst, cells, rows, setups, _states(4, 0), _states(4, 9), counter=c) for c in FULL_COUNTERS}
    for c in FULL_COUNTERS:
        assert np.array_equal(outs[c]["exp_loss"][:2], outs["tree"]["exp_loss"][:2])
        assert np.array_equal(outs[c]["scale"][:2], [0.0, 0.0])
        again = run_submod(inst, cells, rows, setups, _states(4, 0), _states(4, 9), counter=c)
        assert np.array_equal(again["exp_loss"], outs[c]["exp_loss"])
    assert outs["honaker"]["exp_loss"][2] != outs["tree"]["exp_loss"][2]
    assert outs["smooth"]["exp_loss"][2] != outs["tree"]["exp_loss"][2]
    with pytest.raises(ValueError, match="^counter: SubmodPFTAL runs with one of"):
        run_submod(inst, cells, rows, setups, _states(4, 0), _states(4, 9), counter="sqrt")


@pytest.mark.parametrize("T", [5, 8, 13, 16])
def test_honaker_same_lambda_same_tree_and_smooth_certified(T):
    """Honaker: the tree's λ, its nodes (the same column ℓ1 norm: nodes per item), B C = A, certified ε ≤ the
    claim; smooth: its own calibration, certified ε equal to the claim."""
    s = full_setup(8, T, 2.0)
    tree, hon, smooth = (submod_counter(s, c) for c in FULL_COUNTERS)
    assert tree.scale == hon.scale == s.lam == tbap_scale(s.mu, 2.0, T)
    assert tree.sensitivity == hon.sensitivity == smooth.sensitivity == s.c_sens * s.mu
    Bt, Ct = linear_maps(tree)
    Bh, Ch = linear_maps(hon)
    A = np.tril(np.ones((T, T)))
    np.testing.assert_allclose(Bh @ Ch, A, atol=1e-12)
    np.testing.assert_allclose(Bt @ Ct, A, atol=1e-12)
    # the same tree: honaker noises every complete node, each an interval of the tree's dyadic nodes
    rows_t = {tuple(r) for r in Ct.astype(int)}
    rows_h = {tuple(r) for r in Ch.astype(int)}
    assert rows_t <= rows_h and set(np.unique(Ch)) <= {0.0, 1.0}
    l1_t, l1_h = np.abs(Ct).sum(axis=0).max(), np.abs(Ch).sum(axis=0).max()
    assert l1_t == l1_h == T.bit_length() <= tree_levels(T)
    for c in (tree, hon):
        cert = certify(c)
        assert cert["ok"] and cert["eps"] == pytest.approx(2.0 * T.bit_length() / tree_levels(T))
    cert = certify(smooth)
    assert cert["ok"] and cert["eps"] == pytest.approx(2.0)
    assert smooth.scale == pytest.approx((smooth.height - smooth.weight) * s.c_sens * s.mu / 2.0)
    # a planted bug is caught: half the tree's λ breaks the claim (certified 2εL/K > ε, L ≥ K − 1 ≥ K/2)
    from dataclasses import replace
    assert not certify(replace(hon, scale=hon.scale / 2))["ok"]
