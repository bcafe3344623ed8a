"""The counter-based normals of the decision sets (privopt.fastrng.counter_based, issue 24): known answers, the kernels'
two passes against the independent numpy implementation bit for bit, and the exact N(0, 1) law — with a planted
"biased fix-up" that the law checks must catch."""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest
from scipy import stats

from privopt.fastrng.counter_based import (
    GOLDEN,
    SLOT_LIMIT,
    fill_normals,
    fix_normals,
    mix64,
    normal_exact,
    normal_fast,
    normals_numpy,
    word,
)
from privopt.fastrng.counter_based import _KI, _ZIG_R

# SplitMix64 seeded with 0: its first four outputs (https://prng.di.unimi.it/splitmix64.c).
SPLITMIX64_SEED0 = [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F, 0xF88BB8A8724C81EC]


@numba.njit(cache=True)
def _two_pass(ka, kb, p0, n):
    out = np.empty(n)
    bad = fill_normals(ka, kb, np.uint64(p0), out, 0, n)
    fix_normals(ka, kb, np.uint64(p0), out, 0, n, bad)
    return out


@numba.njit(cache=True)
def _inner_splitmix(ka, n):
    out = np.empty(n, dtype=np.uint64)
    for c in range(n):
        out[c] = mix64(ka + np.uint64(c + 1) * GOLDEN)
    return out


def _draw(n, key=(0x0123456789ABCDEF, 0xFEDCBA9876543210)):
    return _two_pass(np.uint64(key[0]), np.uint64(key[1]), 0, n)


def test_inner_hash_is_splitmix64():
    assert [int(v) for v in _inner_splitmix(np.uint64(0), 4)] == SPLITMIX64_SEED0


def test_word_is_the_keyed_splitmix64():
    """w(c) = mix(splitmix64_seed(ka)[c] ⊕ kb): with kb = 0 it is mix of the SplitMix64 outputs."""
    expect = [int(mix64(np.uint64(v))) for v in SPLITMIX64_SEED0]
    got = [int(word(np.uint64(0), np.uint64(0), np.uint64(c))) for c in range(4)]
    assert got == expect


@pytest.mark.parametrize("key", [(0, 0), (1, 2), (2**64 - 1, 12345), (0x9E3779B97F4A7C15, 2**63)])
def test_kernel_passes_equal_numpy_bit_for_bit(key):
    n = 50_000
    ka, kb = key
    got = _two_pass(np.uint64(ka), np.uint64(kb), 7, n)
    ref = normals_numpy(ka, kb, 7, n)
    assert np.array_equal(got, ref)
    # the scalar exact routine agrees slot by slot, including rejected slots
    fast = np.array([normal_fast(np.uint64(ka), np.uint64(kb), 7 + i) for i in range(2000)])
    rejected = np.flatnonzero(np.isnan(fast))
    assert rejected.size > 0
    for i in rejected:
        assert normal_exact(np.uint64(ka), np.uint64(kb), 7 + int(i)) == ref[i]
    assert np.array_equal(fast[~np.isnan(fast)], ref[:2000][~np.isnan(fast)])


def test_slots_do_not_depend_on_the_block_they_are_filled_in():
    whole = _draw(10_000)
    parts = np.concatenate([_two_pass(np.uint64(0x0123456789ABCDEF), np.uint64(0xFEDCBA9876543210), p, 250)
                            for p in range(0, 10_000, 250)])
    assert np.array_equal(whole, parts)


def test_slot_range_is_checked():
    with pytest.raises(ValueError, match="2\\^32"):
        normals_numpy(1, 2, SLOT_LIMIT - 5, 10)


def test_rejection_rate_is_the_ziggurats():
    """P(first attempt rejected) = Σ_i P(idx = i)·P(rabs ≥ k_i) = 1 − mean_i(k_i/2⁵²), exactly."""
    n = 400_000
    ka, kb = np.uint64(11), np.uint64(13)
    out = np.empty(n)
    count = numba.njit(lambda a, b, o: fill_normals(a, b, np.uint64(0), o, 0, o.size))(ka, kb, out)
    assert count == np.isnan(out).sum()  # the fast pass counts what it leaves to the exact pass
    p = 1.0 - float(np.mean(_KI.astype(np.float64) / 2.0**52))
    sd = math.sqrt(p * (1 - p) / n)
    assert abs(np.isnan(out).mean() - p) < 5 * sd


def _law_checks(x: np.ndarray) -> None:
    """Checks of the N(0, 1) law with tolerances derived for n draws (5 standard errors; KS at 10⁻⁶)."""
    n = x.size
    assert abs(x.mean()) < 5 / math.sqrt(n)
    assert abs(x.var() - 1.0) < 5 * math.sqrt(2.0 / n)
    # the tail beyond the ziggurat's r is drawn only by the exact pass: its frequency is 2(1 − Φ(r))
    p_tail = 2.0 * stats.norm.sf(_ZIG_R)
    k = int(np.sum(np.abs(x) > _ZIG_R))
    assert abs(k - n * p_tail) < 5 * math.sqrt(n * p_tail * (1 - p_tail)), k
    # the wedges: mass between each layer's inner and outer edge is right overall (fourth moment 3)
    assert abs(np.mean(x**4) - 3.0) < 5 * math.sqrt(96.0 / n)
    assert stats.kstest(x, "norm").pvalue > 1e-6


def test_normals_have_the_exact_normal_law():
    _law_checks(_draw(1_000_000))


def test_planted_biased_fix_up_is_caught():
    """Planted bug: a rejected first attempt replaced by a fresh draw of another slot (instead of the slot's own
    wedge/tail test) — the law is then the rectangles' mixture, with almost no tail; the checks must fail."""
    n = 1_000_000
    ka, kb = np.uint64(0x0123456789ABCDEF), np.uint64(0xFEDCBA9876543210)
    out = np.empty(n)
    numba.njit(lambda a, b, o: fill_normals(a, b, np.uint64(0), o, 0, o.size))(ka, kb, out)
    bad = np.isnan(out)
    out[bad] = _two_pass(ka ^ np.uint64(1), kb, 0, n)[bad]
    with pytest.raises(AssertionError):
        _law_checks(out)


def test_streams_and_neighbour_slots_are_uncorrelated():
    """Adjacent slots, and two streams whose inner SplitMix64 windows overlap (ka shifted by γ) under different
    kb, are uncorrelated (|r| < 5/√n)."""
    n = 200_000
    ka, kb = 0x0123456789ABCDEF, 0xFEDCBA9876543210
    x = normals_numpy(ka, kb, 0, n + 1)
    y = normals_numpy((ka + int(GOLDEN)) % 2**64, kb ^ 0x5555, 0, n)  # inner words = x's shifted by one
    tol = 5 / math.sqrt(n)
    assert abs(np.corrcoef(x[:-1], x[1:])[0, 1]) < tol
    assert abs(np.corrcoef(x[1:], y)[0, 1]) < tol
    assert abs(np.corrcoef(x[:-1], y)[0, 1]) < tol
