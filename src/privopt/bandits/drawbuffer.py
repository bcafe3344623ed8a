"""The environment stream of the bandit kernels, read through a buffer: the same numbers, faster.

:func:`privopt.fastrng.rng_normal_t` interleaves, per normal, one xoshiro256++ step and the ziggurat's
table look-ups and test (≈ 2.8 ns a normal at d = 64, most of an Exp. 1 round's draws).  Every variate
the bandit kernels draw from the environment stream is a function of *consecutive* 64-bit outputs of
the generator, and which function applies to an output does not depend on where it falls: a uniform
is ``(r >> 11)·2⁻⁵³``, the ziggurat's fast path of a normal looks at one output only.  So
:func:`refill` generates :data:`BUF` outputs in a tight loop (the generator's dependency chain
alone, ≈ 0.6 ns an output) and, in a second loop the compiler vectorises, the fast-path value of the
normal that would start at each output and whether the fast path accepts it; the readers below
(:func:`bn_uniform`, :func:`bn_normal`) then walk through the outputs one by one *exactly* as
:func:`~privopt.fastrng.rng_uniform_t` / :func:`~privopt.fastrng.rng_normal_t` consume them (the
wedge and the tail of the ziggurat, ≈ 1.2 % of normals, read further outputs as those do).  The
numbers drawn, and the number of outputs consumed, are identical, bit for bit, to the plain
generator's (``tests/test_fastrng.py``); the state at the end is the state the plain generator
would have (:func:`bn_state`: the buffer's start state advanced by the outputs consumed).

A reader carries ``(pos, st)``: the position of the next unread output in the buffer and the
generator state after the buffer's last output; the buffer's arrays are ``raw`` (outputs), ``zx``
(fast-path normal of each output), ``zok`` (fast path accepted) and ``base`` (the generator state at
the buffer's first output).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from privopt.fastrng import _FI, _INV53, _KI, _WI, _ZIG_R, rng_load, rng_next_t

__all__ = ["BUF", "bn_buffers", "bn_start", "bn_state", "bn_uniform", "bn_normal", "refill"]

#: outputs per buffer fill (64 KiB of outputs, 64 KiB of fast-path normals, 8 KiB of flags)
BUF = 8192

_U1 = np.uint64(1)
_U8 = np.uint64(8)
_U11 = np.uint64(11)
_U17 = np.uint64(17)
_UFF = np.uint64(0xFF)
_MANT = np.uint64(0x000FFFFFFFFFFFFF)


@numba.njit(cache=True, inline="always")
def bn_buffers():
    """(raw, zx, zok, base): the arrays of one buffered reader."""
    return (np.zeros(BUF, dtype=np.uint64), np.zeros(BUF), np.zeros(BUF, dtype=np.bool_),
            np.zeros(4, dtype=np.uint64))


@numba.njit(cache=True)
def refill(raw, zx, zok, base, st):
    """Fill the buffer with the next BUF outputs of the generator at state ``st``; ``base`` ← ``st``.

    Returns the state after the last output.  The second loop computes, for every output r, the
    fast-path normal of :func:`privopt.fastrng.rng_normal_t` (8 index bits, 1 sign bit, 52
    magnitude bits: x = ±rabs·W[idx]) and whether it is accepted (rabs < K[idx])."""
    s0, s1, s2, s3 = st
    base[0] = s0
    base[1] = s1
    base[2] = s2
    base[3] = s3
    n = raw.shape[0]
    for p in range(n):
        a = s0 + s3
        raw[p] = ((a << np.uint64(23)) | (a >> np.uint64(41))) + s0
        t = s1 << _U17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = (s3 << np.uint64(45)) | (s3 >> np.uint64(19))
    for p in range(n):
        r = raw[p]
        idx = r & _UFF
        r8 = r >> _U8
        rabs = (r8 >> _U1) & _MANT
        x = float(rabs) * _WI[idx]
        zx[p] = -x if (r8 & _U1) else x
        zok[p] = rabs < _KI[idx]
    return (s0, s1, s2, s3)


@numba.njit(cache=True, inline="always")
def bn_start(raw, zx, zok, base, env):
    """Start reading the generator whose state array is ``env`` (not advanced): returns (pos, st)."""
    st = refill(raw, zx, zok, base, rng_load(env))
    return 0, st


@numba.njit(cache=True)
def bn_state(base, pos):
    """The generator state after the outputs read so far (the buffer's start state advanced ``pos`` times)."""
    st = rng_load(base)
    for _ in range(pos):
        _, st = rng_next_t(st)
    return st


@numba.njit(cache=True, inline="always")
def bn_next(raw, zx, zok, base, pos, st):
    """Next 64-bit output: returns (r, pos, st)."""
    if pos >= raw.shape[0]:
        st = refill(raw, zx, zok, base, st)
        pos = 0
    return raw[pos], pos + 1, st


@numba.njit(cache=True, inline="always")
def bn_uniform(raw, zx, zok, base, pos, st):
    """:func:`privopt.fastrng.rng_uniform_t` from the buffer: returns (u, pos, st)."""
    r, pos, st = bn_next(raw, zx, zok, base, pos, st)
    return float(r >> _U11) * _INV53, pos, st


@numba.njit(cache=True)
def _bn_tail(raw, zx, zok, base, pos, st, r):
    """The tail branch of :func:`privopt.fastrng.rng_normal_t` (index 0, not accepted by the fast path)."""
    rabs = ((r >> _U8) >> _U1) & _MANT
    while True:
        u1, pos, st = bn_uniform(raw, zx, zok, base, pos, st)
        u2, pos, st = bn_uniform(raw, zx, zok, base, pos, st)
        xx = -math.log1p(-u1) / _ZIG_R
        yy = -math.log1p(-u2)
        if yy + yy > xx * xx:
            return (-(_ZIG_R + xx) if ((rabs >> _U8) & _U1) else _ZIG_R + xx), pos, st


@numba.njit(cache=True, inline="always")
def bn_normal(raw, zx, zok, base, pos, st):
    """:func:`privopt.fastrng.rng_normal_t` from the buffer (same outputs consumed): returns (z, pos, st)."""
    while True:
        if pos >= raw.shape[0]:
            st = refill(raw, zx, zok, base, st)
            pos = 0
        p = pos
        pos += 1
        if zok[p]:
            return zx[p], pos, st
        idx = int(raw[p] & _UFF)
        if idx == 0:
            return _bn_tail(raw, zx, zok, base, pos, st, raw[p])
        x = zx[p]
        u, pos, st = bn_uniform(raw, zx, zok, base, pos, st)
        if (_FI[idx - 1] - _FI[idx]) * u + _FI[idx] < math.exp(-0.5 * x * x):
            return x, pos, st


@numba.njit(cache=True)
def _bn_draw(env, kinds, out):
    """Test helper: draw ``kinds[i]`` (0 uniform, 1 normal) in order through the buffer; advance ``env``."""
    raw, zx, zok, base = bn_buffers()
    pos, st = bn_start(raw, zx, zok, base, env)
    for i in range(kinds.shape[0]):
        if kinds[i] == 0:
            out[i], pos, st = bn_uniform(raw, zx, zok, base, pos, st)
        else:
            out[i], pos, st = bn_normal(raw, zx, zok, base, pos, st)
    end = bn_state(base, pos)
    env[0] = end[0]
    env[1] = end[1]
    env[2] = end[2]
    env[3] = end[3]
