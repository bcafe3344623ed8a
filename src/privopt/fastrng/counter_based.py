"""A counter-based random number generator: standard normals by the ziggurat of :mod:`privopt.fastrng` on a keyed hash, so that a whole
decision set's normals are drawn by one vectorised loop (issue 24).

Why: a sequential generator (xoshiro256++, :mod:`privopt.fastrng`) makes every normal wait for the previous
state; at d = 64 the K(d − 1) = 258,048 normals of one Shariff & Sheffet decision set cost ≈ 2.5 ns each
inside the kernel, most of the round.  Here the n-th normal of a stream is a function of (key, n) alone, so
numba/LLVM vectorises the loop (AVX-512/AVX2 gathers for the ziggurat tables) and the draws take ≈ 1 ns.

The stream (a documented contract: changing it changes every stored Shariff & Sheffet table):

* **Words.**  A stream is keyed by two 64-bit words (ka, kb) — in the bandit kernels, two outputs of the
  run's xoshiro256++ environment stream per round.  Word c of the stream is
  ``w(c) = mix(mix(ka + (c + 1)·γ) ⊕ kb)``, where ``mix`` is the SplitMix64 finaliser (Steele, Lea & Flood,
  "Fast splittable pseudorandom number generators", OOPSLA 2014; the constants of Vigna's ``splitmix64.c``)
  and γ = 0x9E3779B97F4A7C15.  For fixed (ka, kb) the inner ``mix(ka + (c + 1)·γ)`` is exactly SplitMix64
  seeded with ka; the outer keyed mix by kb makes two streams whose ka windows happen to overlap unrelated.
  Both maps are bijections of 64-bit words, so distinct counters give distinct words.
* **Slots.**  Normal number p (0 ≤ p < 2³²) of the stream is Marsaglia & Tsang's ziggurat ("The ziggurat
  method for generating random variables", J. Stat. Softw. 5(8), 2000) with :data:`LAYERS` = 1024 layers in
  the word layout of :func:`privopt.fastrng.rng_normal_t` (numpy's, with 10 index bits: index, 1 sign
  bit, 52 magnitude bits; exact wedges and tail) run on the words c = p, p + 2³², p + 2·2³², … (attempt 0
  on word p; the k-th further word of the slot on counter p + k·2³²).  Every slot is an exact,
  independent N(0, 1) draw.
* **Two passes, the same numbers.**  :func:`normal_fast` computes attempt 0 only and returns NaN when it is
  rejected (≈ 1.2 % of slots: the wedges and the tail); :func:`normal_exact` runs the slot's whole
  ziggurat from attempt 0.  A kernel fills a block with the vectorised fast pass (:func:`fill_normals`,
  which also counts the rejected slots) and, where the count is not 0, redoes the NaN slots with the exact
  one (:func:`fix_normals`).  Redoing a rejected slot from its own words — never replacing it by a fresh draw —
  is what keeps the law exact.

:func:`normals_numpy` is an independent plain-numpy implementation of the same stream (the reference the
tests compare the kernels against, bit for bit).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.fastrng import _ziggurat_tables

#: Layers of this module's ziggurat (4 × the 256 of :mod:`privopt.fastrng`: a first attempt is rejected
#: 4 × less often, 0.3 % against 1.2 %, and the exact pass is the dear part of a vectorised fill).
LAYERS = 1024
#: Start of the tail and common area of the layers for :data:`LAYERS` layers of exp(−x²/2) (the solution of
#: Marsaglia & Tsang's closure equation, the top layer's area = v; computed with scipy's brentq to 1e-15 —
#: the same method gives their published 3.6541528853610088 / 4.92867323399e-3 for 256 layers).
_ZIG_R = 4.038849846109504
_ZIG_V = 0.0012263246463530893


_KI, _WI, _FI = _ziggurat_tables(LAYERS, _ZIG_R, _ZIG_V)

__all__ = ["GOLDEN", "LAYERS", "SLOT_LIMIT", "fill_normals", "fix_normals", "mix64", "normal_exact", "normal_fast",
           "normals_numpy", "word", "words_numpy"]

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
#: Slots per stream: the further words of slot p live at p + k·2³².
SLOT_LIMIT = 2**32
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_U1 = np.uint64(1)
_U8 = np.uint64(8)
_U11 = np.uint64(11)
_IDX = np.uint64(LAYERS - 1)
_IDX_BITS = np.uint64(10)
_MANT = np.uint64(0x000FFFFFFFFFFFFF)
_INV53 = 1.0 / 9007199254740992.0


@numba.njit(cache=True, inline="always")
def mix64(z):
    """SplitMix64 finaliser (a bijection of uint64)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@numba.njit(cache=True, inline="always")
def word(ka, kb, c):
    """Word c of the stream keyed (ka, kb): mix(mix(ka + (c + 1)·γ) ⊕ kb)."""
    return mix64(mix64(ka + (c + _U1) * GOLDEN) ^ kb)


@numba.njit(cache=True, inline="always")
def _uniform(ka, kb, c):
    return float(word(ka, kb, c) >> _U11) * _INV53


@numba.njit(cache=True, inline="always")
def normal_fast(ka, kb, p):
    """Attempt 0 of slot p: the normal if it is accepted by the ziggurat's rectangle test, else NaN."""
    r = word(ka, kb, np.uint64(p))
    idx = r & _IDX
    r >>= _IDX_BITS
    rabs = (r >> _U1) & _MANT
    x = float(rabs) * _WI[idx]
    if r & _U1:
        x = -x
    return x if rabs < _KI[idx] else np.nan


@numba.njit(cache=True)
def normal_exact(ka, kb, p):
    """Slot p's normal: the whole ziggurat (rectangle, wedge and tail tests) on the slot's own words."""
    base = np.uint64(p)
    k = np.uint64(0)
    while True:
        r = word(ka, kb, base + (k << _S32))
        k += _U1
        idx = int(r & _IDX)
        r >>= _IDX_BITS
        sign = r & _U1
        rabs = (r >> _U1) & _MANT
        x = float(rabs) * _WI[idx]
        if sign:
            x = -x
        if rabs < _KI[idx]:
            return x
        if idx == 0:  # tail beyond r (Marsaglia's exponential rejection)
            while True:
                u1 = _uniform(ka, kb, base + (k << _S32))
                u2 = _uniform(ka, kb, base + ((k + _U1) << _S32))
                k += np.uint64(2)
                xx = -math.log1p(-u1) / _ZIG_R
                yy = -math.log1p(-u2)
                if yy + yy > xx * xx:
                    return -(_ZIG_R + xx) if ((rabs >> _U8) & _U1) else _ZIG_R + xx
        else:
            u = _uniform(ka, kb, base + (k << _S32))
            k += _U1
            if (_FI[idx - 1] - _FI[idx]) * u + _FI[idx] < math.exp(-0.5 * x * x):
                return x


@numba.njit(cache=True, inline="always")
def fill_normals(ka, kb, p0, out, i0, n):
    """Fast pass: out[i0 + i] = :func:`normal_fast` (ka, kb, p0 + i) for i < n (NaN where rejected).

    Returns the number of rejected slots (counted in the same vectorised loop), so that a caller runs
    :func:`fix_normals` only on blocks that need it."""
    bad = 0
    for i in range(n):
        x = normal_fast(ka, kb, p0 + i)
        out[i0 + i] = x
        bad += x != x
    return bad


@numba.njit(cache=True, inline="always")
def fix_normals(ka, kb, p0, out, i0, n, bad):
    """Exact pass over a filled block with ``bad`` NaN slots (:func:`fill_normals`' count): each redone by
    :func:`normal_exact`; the scan stops at the last one."""
    i = 0
    while bad > 0:
        if out[i0 + i] != out[i0 + i]:
            out[i0 + i] = normal_exact(ka, kb, p0 + i)
            bad -= 1
        i += 1


# ----------------------------------------------------------------------------- plain numpy reference
def _mix_np(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def words_numpy(ka: int, kb: int, c: np.ndarray) -> np.ndarray:
    """:func:`word` for an array of counters (uint64 arithmetic wraps modulo 2⁶⁴ as in the kernel)."""
    c = np.asarray(c, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return _mix_np(_mix_np(np.uint64(ka) + (c + _U1) * GOLDEN) ^ np.uint64(kb))


def _exact_numpy(ka: int, kb: int, p: int) -> float:
    """One slot's whole ziggurat in plain Python (the rejected ≈ 1.2 %)."""
    k = 0

    def nxt() -> int:
        nonlocal k
        w = int(words_numpy(ka, kb, np.array([p + (k << 32)], dtype=np.uint64))[0])
        k += 1
        return w

    while True:
        r = nxt()
        idx = r & (LAYERS - 1)
        r >>= 10
        rabs = (r >> 1) & 0x000FFFFFFFFFFFFF
        x = float(rabs) * float(_WI[idx])
        if r & 1:
            x = -x
        if rabs < int(_KI[idx]):
            return x
        if idx == 0:
            while True:
                u1 = float(nxt() >> 11) * _INV53
                u2 = float(nxt() >> 11) * _INV53
                xx = -math.log1p(-u1) / _ZIG_R
                yy = -math.log1p(-u2)
                if yy + yy > xx * xx:
                    return -(_ZIG_R + xx) if ((rabs >> 8) & 1) else _ZIG_R + xx
        u = float(nxt() >> 11) * _INV53
        if (float(_FI[idx - 1]) - float(_FI[idx])) * u + float(_FI[idx]) < math.exp(-0.5 * x * x):
            return x


def normals_numpy(ka: int, kb: int, p0: int, n: int) -> np.ndarray:
    """Slots p0 … p0 + n − 1 of the stream keyed (ka, kb), in plain numpy (independent of the kernels)."""
    if not (0 <= p0 and p0 + n <= SLOT_LIMIT):
        raise ValueError(f"slots {p0}…{p0 + n - 1} outside 0…2^32 − 1")
    r = words_numpy(ka, kb, np.arange(p0, p0 + n, dtype=np.uint64))
    idx = (r & _IDX).astype(np.intp)
    r = r >> _IDX_BITS
    rabs = (r >> _U1) & _MANT
    x = rabs.astype(np.float64) * _WI[idx]
    x = np.where((r & _U1).astype(bool), -x, x)
    for i in np.flatnonzero(rabs >= _KI[idx]):
        x[i] = _exact_numpy(ka, kb, p0 + int(i))
    return x
