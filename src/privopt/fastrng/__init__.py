"""Fast random variates for numba kernels: xoshiro256++, ziggurat normals, Gamma/χ², ``FastGenerator``.

The package holds the project's two random number generators: this module, the sequential one (every draw
advances a state), and :mod:`privopt.fastrng.counter_based`, a counter-based one (draw n is a function of a
key and n alone, so a kernel draws a block of normals in one vectorised loop).

The fast RNG path of the private LinUCB kernels (docs/performance.md).

Why hand-written: numba's legacy ``np.random`` costs ~40 ns per normal and its ``Generator``
support calls the bit generator through a function pointer (~5–6 ns per variate), which dominates a
1–2 µs bandit round.  This module therefore implements the variates, as small inlinable ``@njit``
functions, on a state *tuple* of four uint64 (``*_t`` functions: ``value, state = rng_normal_t(state)``
— the state stays in registers, ≈15% faster in hot loops) and, as thin wrappers, on a ``uint64[4]``
state array (``rng_load``/``rng_store`` convert between the two):

* ``xoshiro256++`` (Blackman & Vigna) — :func:`rng_next`;
* uniforms on [0, 1): (next >> 11)·2⁻⁵³ — :func:`rng_uniform`;
* standard normals by the 256-layer ziggurat (Marsaglia & Tsang 2000, in the layout of numpy's
  ``random_standard_normal``: 8 index bits, 1 sign bit, 52 magnitude bits; exact tail and wedges)
  — :func:`rng_normal`;
* Gamma(a) by Marsaglia & Tsang's squeeze method (a ≥ 1; a < 1 via Gamma(a+1)·U^(1/a)) and
  χ²_k = 2·Gamma(k/2) — :func:`rng_gamma`.

Users: the node-noise samplers of :mod:`privopt.mechanisms.gaussian` and
:mod:`privopt.mechanisms.wishart`, and the bandit kernels (:mod:`privopt.bandits.kernels`).

Seeding: :class:`FastGenerator` takes a ``numpy.random.SeedSequence`` (or an int, or draws from a
``numpy.random.Generator``) and sets the state to ``SeedSequence.generate_state(4, uint64)``; the
stream is a deterministic function of that SeedSequence.  ``FastGenerator`` exposes the numpy
``Generator`` methods the project's samplers use (``random``, ``standard_normal``, ``normal``,
``standard_gamma``, ``chisquare``), so plain-numpy reference code run on a ``FastGenerator`` consumes
exactly the same numbers as a numba kernel given its ``.state`` (which the kernel advances in place).
Every stream is part of the project's reproducibility contract: changing any function here changes
every stored result.
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = [
    "FastGenerator",
    "rng_load",
    "rng_store",
    "rng_next_t",
    "rng_uniform_t",
    "rng_normal_t",
    "rng_gamma_t",
    "rng_next",
    "rng_uniform",
    "rng_normal",
    "rng_gamma",
]

_ZIG_R = 3.6541528853610087963519472518  # start of the tail of the 256-layer normal ziggurat
_ZIG_V = 4.92867323399e-3  # common area of the layers


def _ziggurat_tables(layers: int = 256, r: float = _ZIG_R, v: float = _ZIG_V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Marsaglia–Tsang tables for ``layers`` layers with 52-bit magnitudes (ki, wi, fi); ``r`` is the start of
    the tail and ``v`` the common area of the layers (:mod:`privopt.fastrng.counter_based` builds its 1,024)."""
    m1 = 2.0**52
    ki = np.zeros(layers, dtype=np.uint64)
    wi = np.zeros(layers)
    fi = np.zeros(layers)
    dn = tn = r
    q = v / math.exp(-0.5 * dn * dn)
    ki[0] = np.uint64(int(dn / q * m1))
    wi[0] = q / m1
    wi[layers - 1] = dn / m1
    fi[0] = 1.0
    fi[layers - 1] = math.exp(-0.5 * dn * dn)
    for i in range(layers - 2, 0, -1):
        dn = math.sqrt(-2.0 * math.log(v / dn + math.exp(-0.5 * dn * dn)))
        ki[i + 1] = np.uint64(int(dn / tn * m1))
        tn = dn
        fi[i] = math.exp(-0.5 * dn * dn)
        wi[i] = dn / m1
    return ki, wi, fi


_KI, _WI, _FI = _ziggurat_tables()
_U8 = np.uint64(8)
_U1 = np.uint64(1)
_U11 = np.uint64(11)
_UFF = np.uint64(0xFF)
_MANT = np.uint64(0x000FFFFFFFFFFFFF)
_INV53 = 1.0 / 9007199254740992.0


@numba.njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@numba.njit(cache=True, inline="always")
def rng_load(s):
    """State array → state tuple (the ``*_t`` functions keep the state in registers)."""
    return (s[0], s[1], s[2], s[3])


@numba.njit(cache=True, inline="always")
def rng_store(s, st):
    """Write a state tuple back into the state array."""
    s[0] = st[0]
    s[1] = st[1]
    s[2] = st[2]
    s[3] = st[3]


@numba.njit(cache=True, inline="always")
def rng_next_t(st):
    """xoshiro256++ step on a state tuple: returns (64-bit output, new state)."""
    s0, s1, s2, s3 = st
    result = _rotl(s0 + s3, 23) + s0
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, (s0, s1, s2, s3)


@numba.njit(cache=True, inline="always")
def rng_uniform_t(st):
    """Uniform on [0, 1) with 53 random bits: returns (u, new state)."""
    r, st = rng_next_t(st)
    return float(r >> _U11) * _INV53, st


@numba.njit(cache=True, inline="always")
def rng_normal_t(st):
    """Standard normal by the 256-layer ziggurat (exact; ≈99% of draws use one 64-bit output).

    Returns (z, new state).  Fully inlined, no calls taking arrays: a few ns per draw.
    """
    while True:
        r, st = rng_next_t(st)
        idx = int(r & _UFF)
        r >>= _U8
        sign = r & _U1
        rabs = (r >> _U1) & _MANT
        x = float(rabs) * _WI[idx]
        if sign:
            x = -x
        if rabs < _KI[idx]:
            return x, st
        if idx == 0:  # tail beyond r (Marsaglia's exponential rejection)
            while True:
                u1, st = rng_uniform_t(st)
                u2, st = rng_uniform_t(st)
                xx = -math.log1p(-u1) / _ZIG_R
                yy = -math.log1p(-u2)
                if yy + yy > xx * xx:
                    return (-(_ZIG_R + xx) if ((rabs >> _U8) & _U1) else _ZIG_R + xx), st
        else:
            u, st = rng_uniform_t(st)
            if (_FI[idx - 1] - _FI[idx]) * u + _FI[idx] < math.exp(-0.5 * x * x):
                return x, st


@numba.njit(cache=True, inline="always")
def rng_gamma_t(st, a):
    """Gamma(a, 1) (Marsaglia & Tsang 2000), exact for every a > 0: returns (g, new state)."""
    boost = 1.0
    if a < 1.0:
        u0, st = rng_uniform_t(st)
        boost = u0 ** (1.0 / a)
        a += 1.0
    dd = a - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * dd)
    while True:
        x, st = rng_normal_t(st)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u, st = rng_uniform_t(st)
        x2 = x * x
        if u < 1.0 - 0.0331 * x2 * x2:
            return dd * v * boost, st
        if u > 0.0 and math.log(u) < 0.5 * x2 + dd * (1.0 - v + math.log(v)):
            return dd * v * boost, st


@numba.njit(cache=True, inline="always")
def rng_next(s):
    """Next 64-bit output of xoshiro256++ on the state array ``s`` (uint64[4], updated in place)."""
    r, st = rng_next_t(rng_load(s))
    rng_store(s, st)
    return r


@numba.njit(cache=True, inline="always")
def rng_uniform(s):
    """Uniform on [0, 1) with 53 random bits (state array version)."""
    u, st = rng_uniform_t(rng_load(s))
    rng_store(s, st)
    return u


@numba.njit(cache=True, inline="always")
def rng_normal(s):
    """Standard normal (state array version of :func:`rng_normal_t`)."""
    z, st = rng_normal_t(rng_load(s))
    rng_store(s, st)
    return z


@numba.njit(cache=True, inline="always")
def rng_gamma(s, a):
    """Gamma(a, 1) (state array version of :func:`rng_gamma_t`)."""
    g, st = rng_gamma_t(rng_load(s), a)
    rng_store(s, st)
    return g


@numba.njit(cache=True)
def _fill_words(s, out):
    for i in range(out.size):
        out[i] = rng_next(s)


@numba.njit(cache=True)
def _fill_uniform(s, out):
    for i in range(out.size):
        out[i] = rng_uniform(s)


@numba.njit(cache=True)
def _fill_normal(s, out):
    for i in range(out.size):
        out[i] = rng_normal(s)


@numba.njit(cache=True)
def _fill_gamma(s, a, out):
    for i in range(out.size):
        out[i] = rng_gamma(s, a)


def _seed_state(seed) -> np.ndarray:
    if isinstance(seed, np.random.Generator):
        seed = np.random.SeedSequence([int(v) for v in seed.integers(0, 2**32, size=8, dtype=np.uint64)])
    elif seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)):
        seed = np.random.SeedSequence(seed)
    if not isinstance(seed, np.random.SeedSequence):
        raise TypeError(f"seed must be a SeedSequence, int, Generator or None, got {seed!r}")
    state = seed.generate_state(4, np.uint64)
    if not state.any():  # the all-zero state is the one invalid xoshiro state
        state[0] = np.uint64(0x9E3779B97F4A7C15)
    return state


class FastGenerator:
    """xoshiro256++ stream with a numpy-``Generator``-like interface (see module docstring).

    ``FastGenerator(seed)`` with ``seed`` a ``SeedSequence`` (recommended: from
    :func:`privopt.seeding.seed_sequence`), an int, or a ``Generator`` (8 of its draws seed us).
    ``.state`` is the uint64[4] array that numba kernels take and advance in place.
    """

    def __init__(self, seed=None) -> None:
        self.state = _seed_state(seed)

    def _fill(self, fn, size, *args):
        if size is None:
            out = np.empty(1)
            fn(self.state, *args, out)
            return float(out[0])
        out = np.empty(size)
        fn(self.state, *args, out.reshape(-1))
        return out

    def words(self, size=None):
        """Raw 64-bit outputs of xoshiro256++ (uint64), as a kernel's ``rng_next_t`` draws them."""
        out = np.empty(1 if size is None else size, dtype=np.uint64)
        _fill_words(self.state, out.reshape(-1))
        return int(out[0]) if size is None else out

    def random(self, size=None):
        return self._fill(_fill_uniform, size)

    def standard_normal(self, size=None):
        return self._fill(_fill_normal, size)

    def normal(self, loc=0.0, scale=1.0, size=None):
        return loc + scale * self.standard_normal(size)

    def standard_gamma(self, shape, size=None):
        if not shape > 0:
            raise ValueError("shape must be > 0")
        return self._fill(_fill_gamma, size, float(shape))

    def chisquare(self, df, size=None):
        if not df > 0:
            raise ValueError("df must be > 0")
        return 2.0 * self.standard_gamma(0.5 * df, size)

    def __repr__(self) -> str:
        return f"FastGenerator(state={[hex(int(v)) for v in self.state]})"
