"""Continual counters behind one interface: calibrated, streamed (numba) noise of private prefix sums.

Issue 27; derivations, sources and the choice per learner in docs/continual-counting.md.  Every counter here
is *data-independent additive noise on the prefix sums*: after item t it releases Σ_{s≤t} x_s + N(t), with
items x_s ∈ R^p of ℓ2 sensitivity Δ (one item replaced/changed by at most Δ in ℓ2, each item once).  So a
learner needs only the law of N(1), …, N(T): it keeps its exact prefix sum and adds N(t).

Counters (:data:`COUNTERS`) and the guarantees they support (``noise``):

==========  ==================================================  ===================  =============================
name        mechanism                                           noise                Var N_i(t) / v
==========  ==================================================  ===================  =============================
``tree``    dyadic binary mechanism (= tree.py "dyadic")        laplace, gaussian    popcount(t)
``honaker`` Honaker's bottom-up estimator on the same tree      laplace, gaussian    Σ_{ℓ∈bits(t)} 2^ℓ/(2^{ℓ+1}−1)
``sqrt``    (banded) square-root factorisation of A             gaussian             Σ_{n<t} D_n² (D_n = c_n if b≥T)
``smooth``  Andersson & Pagh's smooth binary mechanism          laplace, gaussian    k (every t)
==========  ==================================================  ===================  =============================

v is the per-coordinate variance of one seed noise: σ² (Gaussian) or (p + 1)λ² (ℓ2-Laplace in R^p).

Calibration (:func:`make_counter`): "laplace" = pure ε with ℓ2-Laplace seeds, λ = ‖C‖_{1→col}·Δ/ε, where
‖C‖_{1→col} is the largest ℓ1 norm of a column of the counter's encoder C (number of noised nodes holding an
item for the trees); "gaussian" = (ε, δ)-DP by the analytic Gaussian mechanism (Balle & Wang 2018, exact) on
the ℓ2 sensitivity max_s ‖C e_s‖₂·Δ.  ``scale=`` overrides the calibration (e.g. a paper's own σ);
:func:`certify` then says what the stream really guarantees.

Interface
---------
``make_counter(name, T, p, sensitivity, eps, delta=None, *, noise=None, bands=None, scale=None) -> Counter``
    the frozen spec; ``counter.scale`` is the calibrated seed scale (λ or σ).
``noise_variance(counter) -> ndarray (T,)``
    exact Var N_i(t), t = 1..T, any coordinate i (closed form / recursion).
``init_state(counter, rng) -> CounterState``  and each counter's step (numba)
    streamed N(t) for t = 1, 2, …, T in order (call once per t; O(log T) or O(bands) per step, no allocation);
    usable inside ``@njit`` kernels: pass the CounterState fields to :func:`laplace_counter_step` (pure ε) or
    :func:`gaussian_counter_step` (``code, scale, p, n, params, ibuf, buf, rng_state, gbuf, t, out``), or call a
    counter's own step (``tree_step``, ``honaker_step``, ``sqrt_step``, ``smooth_step``) with its law.
``prefix_noise(counter, rng) -> ndarray (T, p)``
    all of N(1..T) at once (convenience; the same numbers as the streamed steps).
``linear_maps(counter) -> (B, C)`` and ``certify(counter) -> dict``
    the explicit N = B z and the encoder C with B C = A (small T: tests, audits).

Randomness: ``rng`` is a :class:`privopt.fastrng.FastGenerator` (its ``.state`` is advanced in place, as the
project's numba samplers do), or anything ``FastGenerator`` accepts (a SeedSequence from
:func:`privopt.seeding.seed_sequence`, an int).  Seed noises are drawn by
:func:`privopt.mechanisms.node_noise.draw_node_into` in each counter's documented draw order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr, ndtr

from privopt.fastrng import FastGenerator
from privopt.mechanisms.dyadic_counter import (tree_linear_maps, tree_node_count, tree_state_rows, tree_step,
                                              tree_variance_factor)
from privopt.mechanisms.factorisation import (sqrt_coefficients, sqrt_l1_factor, sqrt_linear_maps,
                                             sqrt_sensitivity_factor, sqrt_state_rows, sqrt_step,
                                             sqrt_variance_factor)
from privopt.mechanisms.honaker import (honaker_linear_maps, honaker_state_rows, honaker_step, honaker_u,
                                       honaker_variance_factor)
from privopt.mechanisms.node_noise import GAUSSIAN, LAPLACE, NOISE_CODES, coordinate_variance
from privopt.mechanisms.smooth_binary import (smooth_linear_maps, smooth_shape, smooth_state_rows,
                                             smooth_step)

__all__ = [
    "COUNTERS",
    "NOISES",
    "Counter",
    "CounterState",
    "make_counter",
    "gaussian_delta",
    "analytic_gaussian_sigma",
    "encoder_norms",
    "seed_variance",
    "noise_variance",
    "peak_variance",
    "init_state",
    "laplace_counter_step",
    "gaussian_counter_step",
    "prefix_noise",
    "linear_maps",
    "certify",
]

TREE, HONAKER, SQRT, SMOOTH = 0, 1, 2, 3
COUNTERS = ("tree", "honaker", "sqrt", "smooth")
_CODES = {"tree": TREE, "honaker": HONAKER, "sqrt": SQRT, "smooth": SMOOTH}
#: which seed-noise laws (guarantees) each counter is offered with
NOISES = {"tree": ("laplace", "gaussian"), "honaker": ("laplace", "gaussian"), "sqrt": ("gaussian",),
          "smooth": ("laplace", "gaussian")}


@dataclass(frozen=True)
class Counter:
    """A calibrated continual counter (build with :func:`make_counter`).

    ``scale``: λ of each ℓ2-Laplace seed (``noise == "laplace"``) or σ of each Gaussian seed coordinate.
    ``bands``: the band count b of ``sqrt`` (min(b, T)), else 0.  ``height``/``weight``: (h, k) of ``smooth``, else 0.
    """

    name: str
    T: int
    p: int
    sensitivity: float
    eps: float
    delta: float | None
    noise: str
    scale: float
    bands: int = 0
    height: int = 0
    weight: int = 0

    @property
    def code(self) -> int:
        return _CODES[self.name]


# ----------------------------------------------------------------------------- calibration
def gaussian_delta(mu: float, eps: float) -> float:
    """δ(ε) of the Gaussian mechanism with standardised shift μ = Δ/σ (Balle & Wang 2018, Thm 8; exact)."""
    if mu <= 0.0:
        return 0.0
    a = mu / 2.0 - eps / mu
    b = -mu / 2.0 - eps / mu
    return float(ndtr(a) - math.exp(eps + log_ndtr(b)))


def analytic_gaussian_sigma(sensitivity: float, eps: float, delta: float) -> float:
    """Smallest σ with δ(ε; Δ/σ) ≤ δ (the analytic Gaussian mechanism); 0 for ε = ∞ or Δ = 0."""
    if not sensitivity >= 0:
        raise ValueError(f"sensitivity must be >= 0, got {sensitivity!r}")
    if not eps > 0:
        raise ValueError(f"eps must be > 0 (math.inf for no privacy), got {eps!r}")
    if delta is None or not 0 < delta < 1:
        raise ValueError(f"the Gaussian guarantee needs 0 < delta < 1, got {delta!r}")
    if math.isinf(eps) or sensitivity == 0:
        return 0.0
    hi = 1.0
    while gaussian_delta(hi, eps) < delta:
        hi *= 2.0
    mu = brentq(lambda m: gaussian_delta(m, eps) - delta, 1e-12, hi, xtol=1e-14, rtol=1e-15)
    sigma = float(sensitivity) / mu
    while gaussian_delta(float(sensitivity) / sigma, eps) > delta:  # round towards privacy
        sigma = math.nextafter(sigma, math.inf)
    return sigma


def encoder_norms(name: str, T: int, *, bands: int = 0, height: int = 0, weight: int = 0) -> tuple[float, float]:
    """(max column ℓ1 norm, max column ℓ2 norm) of the counter's encoder C, in closed form.

    tree/honaker: (L, √L), L = bit_length(T); sqrt: (Σ c_k, √Σ c_k²) over k < min(b, T); smooth: (h − k, √(h − k)).
    """
    if name in ("tree", "honaker"):
        L = tree_node_count(T)
        return float(L), math.sqrt(L)
    if name == "sqrt":
        return sqrt_l1_factor(T, bands), sqrt_sensitivity_factor(T, bands)
    if name == "smooth":
        return float(height - weight), math.sqrt(height - weight)
    raise ValueError(f"unknown counter {name!r}; choose from {COUNTERS}")


def make_counter(name: str, T: int, p: int, sensitivity: float, eps: float, delta: float | None = None, *,
                 noise: str | None = None, bands: int | None = None, scale: float | None = None) -> Counter:
    """A counter for T items in R^p of ℓ2 sensitivity Δ = ``sensitivity``, calibrated to ε (``noise="laplace"``,
    the default without δ) or (ε, δ) (``noise="gaussian"``, the default with δ).  ε = math.inf: no noise.

    ``bands``: the b of ``sqrt`` (default T: the full square root).  ``scale``: use this seed scale instead of
    the calibrated one (the returned counter's privacy is then what :func:`certify` reports).
    """
    if name not in COUNTERS:
        raise ValueError(f"unknown counter {name!r}; choose from {COUNTERS}")
    for value, what in ((T, "T"), (p, "p")):
        if isinstance(value, bool) or int(value) != value or value < 1:
            raise ValueError(f"{what} must be an integer >= 1, got {value!r}")
    T, p = int(T), int(p)
    if noise is None:
        noise = "laplace" if delta is None else "gaussian"
    if noise not in ("laplace", "gaussian"):
        raise ValueError(f"noise must be 'laplace' or 'gaussian', got {noise!r}")
    if noise not in NOISES[name]:
        raise ValueError(
            f"counter {name!r} is not offered with {noise!r} noise: under pure ε with ℓ2-Laplace seeds a "
            f"factorisation pays the ℓ1 norm of its encoder's columns (≈ 2√(T/π) for the square root), so only "
            f"the tree-structured counters {[c for c in COUNTERS if 'laplace' in NOISES[c]]} apply")
    if noise == "laplace" and delta is not None:
        raise ValueError("noise='laplace' is the pure ε guarantee: pass delta=None")
    if not sensitivity >= 0:
        raise ValueError(f"sensitivity must be >= 0, got {sensitivity!r}")
    if not eps > 0:
        raise ValueError(f"eps must be > 0 (math.inf for no privacy), got {eps!r}")
    b = h = k = 0
    if name == "sqrt":
        b = T if bands is None else bands
        if isinstance(b, bool) or int(b) != b or b < 1:
            raise ValueError(f"bands must be an integer >= 1, got {bands!r}")
        b = min(int(b), T)
    elif bands is not None:
        raise ValueError(f"bands applies to the 'sqrt' counter only, not {name!r}")
    if name == "smooth":
        h, k = smooth_shape(T, noise)
    l1, l2 = encoder_norms(name, T, bands=b, height=h, weight=k)
    if scale is None:
        if noise == "laplace":
            scale = 0.0 if math.isinf(eps) else l1 * float(sensitivity) / float(eps)
        else:
            scale = analytic_gaussian_sigma(l2 * float(sensitivity), float(eps), float(delta))
    elif not scale >= 0:
        raise ValueError(f"scale must be >= 0, got {scale!r}")
    return Counter(name, T, p, float(sensitivity), float(eps), None if delta is None else float(delta), noise,
                   float(scale), b, h, k)


# ----------------------------------------------------------------------------- variance
def seed_variance(counter: Counter) -> float:
    """Per-coordinate variance v of one seed noise: σ² or (p + 1)λ²."""
    return coordinate_variance(counter.noise, counter.p, counter.scale)


def noise_variance(counter: Counter) -> np.ndarray:
    """Exact Var N_i(t) for t = 1..T (shape (T,)), the same for every coordinate i (module table)."""
    v = seed_variance(counter)
    if counter.name == "tree":
        factor = tree_variance_factor(counter.T)
    elif counter.name == "honaker":
        factor = honaker_variance_factor(counter.T)
    elif counter.name == "sqrt":
        factor = sqrt_variance_factor(counter.T, counter.bands)
    else:
        factor = np.full(counter.T, float(counter.weight))
    return v * factor


def _max_bit_weight(T: int, weights) -> float:
    """max over 1 ≤ t ≤ T of Σ_{ℓ ∈ bits(t)} w_ℓ for positive weights: attained at T itself or at T with one set
    bit j cleared and every bit below j set (a t ≤ T first differs from T at a bit j set in T and cleared in t,
    and below j the most it can hold is every bit)."""
    def weight(t: int) -> float:
        return sum(weights[lv] for lv in range(t.bit_length()) if (t >> lv) & 1)

    candidates = [T] + [((T >> (j + 1)) << (j + 1)) | ((1 << j) - 1) for j in range(T.bit_length()) if (T >> j) & 1]
    return float(max(weight(t) for t in candidates if t))


def peak_variance(counter: Counter) -> float:
    """max_{t ≤ T} Var N_i(t) without the O(T) table of :func:`noise_variance` (a learner's worst-case bound over
    a horizon of 5·10^7): tree max popcount(t), Honaker max Σ_{ℓ∈bits(t)} u_ℓ (both by the bits of T), smooth k
    (every t), sqrt the last step (its variance only grows; O(T·b))."""
    v = seed_variance(counter)
    T = counter.T
    if counter.name == "tree":
        return v * _max_bit_weight(T, [1.0] * T.bit_length())
    if counter.name == "honaker":
        return v * _max_bit_weight(T, list(honaker_u(T.bit_length())))
    if counter.name == "smooth":
        return v * float(counter.weight)
    return v * float(sqrt_variance_factor(T, counter.bands)[-1])


# ----------------------------------------------------------------------------- streaming
class CounterState(NamedTuple):
    """The arrays a numba kernel passes to a counter's step (in this order, then t and out; the step functions
    that fix the law take them without ``law``)."""

    code: int
    law: int
    scale: float
    p: int
    n: int  # L (tree, honaker), b (sqrt) or h (smooth)
    params: np.ndarray  # float64: u (honaker), c (sqrt), unused otherwise
    ibuf: np.ndarray  # int64: the current leaf (smooth)
    buf: np.ndarray  # float64 (rows, p): the counter's rows
    rng_state: np.ndarray  # uint64[4]: the FastGenerator state, advanced in place
    gbuf: np.ndarray  # float64 (p,): scratch


def _fast_state(rng) -> np.ndarray:
    if isinstance(rng, FastGenerator):
        return rng.state
    return FastGenerator(rng).state


def init_state(counter: Counter, rng) -> CounterState:
    """Fresh state before item 1.  ``rng``: a FastGenerator (shared: its state advances) or a seed for one."""
    p = counter.p
    params = np.zeros(1)
    ibuf = np.zeros(1, dtype=np.int64)
    if counter.name == "tree":
        n, rows = tree_node_count(counter.T), tree_state_rows(counter.T)
    elif counter.name == "honaker":
        n, rows = tree_node_count(counter.T), honaker_state_rows(counter.T)
        params = honaker_u(n)
    elif counter.name == "sqrt":
        n, rows = counter.bands, sqrt_state_rows(counter.bands)
        params = sqrt_coefficients(counter.bands)
    else:
        n, rows = counter.height, smooth_state_rows(counter.height)
        ibuf[0] = (1 << counter.weight) - 1
    return CounterState(counter.code, NOISE_CODES[counter.noise], counter.scale, p, n, params, ibuf,
                        np.zeros((rows, p)), _fast_state(rng), np.zeros(p))


@numba.njit(cache=True)
def laplace_counter_step(code, scale, p, n, params, ibuf, buf, rng_state, gbuf, t, out):
    """The step of the pure-ε counters (``tree``, ``honaker``, ``smooth``; ℓ2-Laplace seeds, the ``law`` field
    fixed), dispatching on ``code``: a plain call (not inlined into the caller's IR) that compiles in half the time
    of a step dispatching on the law too, for the pure-ε learners (PFTAL, SubmodPFTAL), which pay it in every run.
    Scale 0 (ε = ∞) writes zeros but still draws: skip the call when the random stream must not move (as
    :func:`prefix_noise` does).  Their kernels inline the tree's step
    (the paper's TBAP, the one counter of their loop) and call this for the others."""
    if code == 0:
        tree_step(t, LAPLACE, scale, p, n, buf, rng_state, gbuf, out)
    elif code == 1:
        honaker_step(t, LAPLACE, scale, p, n, params, buf, rng_state, gbuf, out)
    else:
        smooth_step(t, LAPLACE, scale, p, n, ibuf, buf, rng_state, gbuf, out)


@numba.njit(cache=True)
def gaussian_counter_step(code, scale, p, n, params, ibuf, buf, rng_state, gbuf, t, out):
    """The step of the tree-structured counters with Gaussian seeds (``tree``, ``honaker``,
    ``smooth``; the law fixed): the call Shariff & Sheffet's private LinUCB makes once per round and noise group
    (:func:`privopt.bandits.lockstep.lockstep_kernel`), beside the paper's own path tree.  ``sqrt`` is left out:
    its state grows with the band count, which a horizon of 5·10^7 rounds would need near T."""
    if code == 0:
        tree_step(t, GAUSSIAN, scale, p, n, buf, rng_state, gbuf, out)
    elif code == 1:
        honaker_step(t, GAUSSIAN, scale, p, n, params, buf, rng_state, gbuf, out)
    else:
        smooth_step(t, GAUSSIAN, scale, p, n, ibuf, buf, rng_state, gbuf, out)


# One loop per counter, the law a constant in each branch.  Measured (issue 27): a run-time counter or law read
# inside the loop made a tree step 40–50 ns instead of 7 ns; inlining every counter and law into one loop
# (``inline="always"``) compiled for over 10 minutes on a cold cache, so each loop here holds one counter and its
# two laws.
@numba.njit(cache=True)
def _fill_tree(law, scale, p, n, params, ibuf, buf, rng_state, gbuf, T, out):
    if law == 0:
        for t in range(1, T + 1):
            tree_step(t, 0, scale, p, n, buf, rng_state, gbuf, out[t - 1])
    else:
        for t in range(1, T + 1):
            tree_step(t, 1, scale, p, n, buf, rng_state, gbuf, out[t - 1])


@numba.njit(cache=True)
def _fill_honaker(law, scale, p, n, params, ibuf, buf, rng_state, gbuf, T, out):
    if law == 0:
        for t in range(1, T + 1):
            honaker_step(t, 0, scale, p, n, params, buf, rng_state, gbuf, out[t - 1])
    else:
        for t in range(1, T + 1):
            honaker_step(t, 1, scale, p, n, params, buf, rng_state, gbuf, out[t - 1])


@numba.njit(cache=True)
def _fill_sqrt(law, scale, p, n, params, ibuf, buf, rng_state, gbuf, T, out):
    if law == 0:
        for t in range(1, T + 1):
            sqrt_step(t, 0, scale, p, n, params, buf, rng_state, gbuf, out[t - 1])
    else:
        for t in range(1, T + 1):
            sqrt_step(t, 1, scale, p, n, params, buf, rng_state, gbuf, out[t - 1])


@numba.njit(cache=True)
def _fill_smooth(law, scale, p, n, params, ibuf, buf, rng_state, gbuf, T, out):
    if law == 0:
        for t in range(1, T + 1):
            smooth_step(t, 0, scale, p, n, ibuf, buf, rng_state, gbuf, out[t - 1])
    else:
        for t in range(1, T + 1):
            smooth_step(t, 1, scale, p, n, ibuf, buf, rng_state, gbuf, out[t - 1])


_FILLS = (_fill_tree, _fill_honaker, _fill_sqrt, _fill_smooth)  # indexed by Counter.code


def prefix_noise(counter: Counter, rng) -> np.ndarray:
    """N(1), …, N(T) as a (T, p) array (the streamed steps, run to the horizon)."""
    if counter.scale == 0.0:  # ε = ∞: no noise, no draws
        return np.zeros((counter.T, counter.p))
    st = init_state(counter, rng)
    out = np.empty((counter.T, counter.p))
    _FILLS[st.code](*st[1:], counter.T, out)
    return out


# ----------------------------------------------------------------------------- explicit form (small T)
def linear_maps(counter: Counter) -> tuple[np.ndarray, np.ndarray]:
    """(B, C): N = B z with z the K seed noises in draw order (each in R^p, independent), and the encoder C (K × T)
    with B C = A (the T × T prefix-sum matrix), so the released stream A x + N = B (C x + z) is a post-processing
    of the seed mechanism C x + z.  O(T²) memory: for tests and audits on small T."""
    if counter.name == "tree":
        return tree_linear_maps(counter.T)
    if counter.name == "honaker":
        return honaker_linear_maps(counter.T)
    if counter.name == "sqrt":
        return sqrt_linear_maps(counter.T, counter.bands)
    return smooth_linear_maps(counter.T, counter.height, counter.weight)


def certify(counter: Counter) -> dict:
    """The guarantee of the released stream read off the explicit maps (small T), against the claim.

    Checks B C = A (else ValueError), then from the encoder's columns: pure ε certified = max_s ‖C e_s‖₁·Δ/λ
    (ℓ2-Laplace seeds; the triangle inequality per node), or δ certified = δ(ε; max_s ‖C e_s‖₂·Δ/σ) for the
    Gaussian seeds (exact for the seed mechanism; post-processing for the stream).  Returns a dict with
    ``l1``, ``l2`` (the column norms), ``eps``/``delta`` certified and ``ok`` (certified within the claim).
    """
    B, C = linear_maps(counter)
    T = counter.T
    A = np.tril(np.ones((T, T)))
    if not np.allclose(B @ C, A, rtol=0, atol=1e-9):
        raise ValueError(f"{counter.name}: B C != A, the release is not a post-processing of C x + z")
    l1 = float(np.abs(C).sum(axis=0).max())
    l2 = float(np.sqrt((C * C).sum(axis=0)).max())
    out = {"l1": l1, "l2": l2}
    if counter.noise == "laplace":
        eps = 0.0 if counter.sensitivity == 0 else (math.inf if counter.scale == 0 else
                                                     l1 * counter.sensitivity / counter.scale)
        out.update(eps=eps, ok=eps <= counter.eps * (1 + 1e-12))
    else:
        mu = 0.0 if counter.sensitivity == 0 else (math.inf if counter.scale == 0 else
                                                    l2 * counter.sensitivity / counter.scale)
        delta = 1.0 if math.isinf(mu) else gaussian_delta(mu, counter.eps)
        out.update(delta=delta, ok=delta <= counter.delta * (1 + 1e-9))
    return out
