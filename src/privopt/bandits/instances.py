"""Bandit instances of the experiments (shariff2018 reading R13, paper App. D).

One *run* (episode) has a parameter θ* uniform on the unit sphere of R^d and, every round, a
fresh decision set of K (= d² by default) unit vectors:

* one optimal arm with ⟨x, θ*⟩ = ``opt_mean`` (0.75) exactly, uniform on that (d−2)-sphere;
* K − 1 sub-optimal arms uniform on the spherical zone {‖x‖ = 1, ⟨x, θ*⟩ ∈ [low, opt_mean − Δ]}
  (low = −0.75);
* the optimal arm sits at a uniformly random position of the list.

Exact zone sampler (shariff2018 reading R13).  For x uniform on S^{d−1}, T = ⟨x, θ*⟩ has density

    f_d(t) ∝ (1 − t²)^{(d−3)/2} on [−1, 1]   ⇔   (T + 1)/2 ~ Beta((d−1)/2, (d−1)/2),

and given T = t, x = t·θ* + sqrt(1 − t²)·w with w uniform on the unit sphere of θ*^⊥.  T is drawn
on [a, b] by rejection from one of two proposals (:func:`zone_envelope_k` chooses, by acceptance rate):
the uniform one (method B: propose t = a + (b − a)·U₁, accept iff U₂ ≤ f_d(t)/f_d(t₀) with t₀ the
mode of f_d on [a, b] — clip(0, a, b) for d > 3, the endpoint of largest |t| for d = 2; d = 3 is
uniform, Archimedes, and accepts without U₂), or, when [a, b] contains 0 and d is large enough, the
Gaussian envelope f_d(t)/f_d(0) = exp(k log(1 − t²)) ≤ exp(−k t²), k = (d − 3)/2 (propose t = Z/√(2k)
with Z standard normal, reject it outside [a, b], accept iff U ≤ exp(k(log(1 − t²) + t²)):
:func:`zone_envelope_accept`), which accepts ≈ 99 % of proposals at d = 64 against ≈ 23 %.  The vector is built
in the basis where θ* = e₁ — x' = (T, sqrt(1 − T²)·g/‖g‖), g ~ N(0, I_{d−1}) — and mapped to the
original basis by the Householder reflection Q with Q e₁ = θ* (:func:`householder`), so ⟨x, θ*⟩ = T
exactly in law and the regret 0.75 − T needs no inner product.

Canonical draw order of one round (shared by the numba kernels and the numpy reference, so the
same environment stream — a :class:`privopt.fastrng.FastGenerator` — gives the same decision set and
reward coin):

1. U → position of the optimal arm ⌊U·K⌋; then two raw 64-bit words (ka, kb), the keys of the
   round's counter-based normals (:mod:`privopt.fastrng.counter_based`, issue 24);
2. for each arm j = 0..K−1: its T (optimal: none; zone, uniform proposal: pairs (U₁, U₂) until
   acceptance, d = 3: U₁ only; Gaussian envelope: Z, then U only if Z/√(2k) ∈ [a, b], until acceptance); its d − 1 normals g are slots j(d − 1) … j(d − 1) + d − 2 of the stream (ka, kb),
   which the kernels draw by a vectorised pass (they never touch the environment stream);
3. after the choice, the reward: ±1 model: U, y = +1 iff U < (1 + μ)/2; Gaussian model:
   y = μ + Z with one standard normal Z.

θ* itself is drawn at the start of the episode from the same generator: g ~ N(0, I_d), θ* = g/‖g‖.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from privopt.fastrng.counter_based import normals_numpy

__all__ = [
    "REWARD_MODELS",
    "zone_envelope_k",
    "zone_envelope_accept",
    "BanditInstance",
    "draw_theta",
    "householder",
    "embed",
    "zone_mode",
    "zone_accept_prob",
    "zone_cdf",
    "sample_zone_inner",
    "sample_arm",
    "sample_decision_set",
    "draw_reward",
]

REWARD_MODELS = ("pm1", "gaussian")


@dataclass(frozen=True)
class BanditInstance:
    """Instance family of shariff2018 reading R13: dimension, arms per round, gap and reward model.

    ``K = None`` means d² (the paper's choice).  Sub-optimal means lie in [low, opt_mean − gap].
    ``theta`` fixes θ* (e.g. (1,1,1)/√3 for Fig. 1); by default θ* is drawn uniformly per run.
    """

    d: int
    K: int | None = None
    gap: float = 0.1
    opt_mean: float = 0.75
    low: float = -0.75
    reward: str = "pm1"
    theta: tuple | None = None

    def __post_init__(self) -> None:
        if isinstance(self.d, bool) or int(self.d) != self.d or self.d < 2:
            raise ValueError(f"d must be an integer >= 2, got {self.d!r}")
        if self.K is not None and (int(self.K) != self.K or self.K < 1):
            raise ValueError(f"K must be a positive integer, got {self.K!r}")
        if not (-1.0 <= self.low < self.high <= 1.0):
            raise ValueError(f"need -1 <= low < opt_mean - gap <= 1 (low={self.low}, high={self.high})")
        if not (-1.0 < self.opt_mean < 1.0):
            raise ValueError("opt_mean must be in (-1, 1)")
        if self.gap < 0:
            raise ValueError("gap must be >= 0")
        if self.reward not in REWARD_MODELS:
            raise ValueError(f"reward must be one of {REWARD_MODELS}, got {self.reward!r}")
        if self.reward == "pm1" and not (-1.0 <= self.low and self.opt_mean <= 1.0):
            raise ValueError("±1 rewards need means in [-1, 1]")
        if self.theta is not None:
            th = np.asarray(self.theta, dtype=np.float64)
            if th.shape != (self.d,) or not np.isclose(np.linalg.norm(th), 1.0, atol=1e-12):
                raise ValueError("theta must be a unit vector of length d")

    @property
    def n_arms(self) -> int:
        return int(self.d * self.d if self.K is None else self.K)

    @property
    def high(self) -> float:
        """Upper end of the sub-optimal zone: opt_mean − gap."""
        return self.opt_mean - self.gap


# ----------------------------------------------------------------------------- geometry
def draw_theta(rng: np.random.Generator, d: int) -> np.ndarray:
    """θ* uniform on the unit sphere of R^d: g ~ N(0, I_d), θ* = g/‖g‖ (shariff2018 reading R13)."""
    g = rng.standard_normal(d)
    return g / math.sqrt(float(g @ g))


def householder(theta: np.ndarray) -> tuple[np.ndarray, float, float]:
    """(v, c, sign) of the orthogonal map Q x' = sign·(x' − c·(v·x')·v) with Q e₁ = θ*.

    θ₁ ≥ 0: v = θ* + e₁, sign = −1 (reflection onto −θ*, negated); θ₁ < 0: v = θ* − e₁, sign = +1.
    Both choices keep ‖v‖² ≥ 2, so c = 2/‖v‖² is well conditioned.
    """
    theta = np.asarray(theta, dtype=np.float64)
    v = theta.copy()
    if theta[0] >= 0:
        v[0] += 1.0
        sign = -1.0
    else:
        v[0] -= 1.0
        sign = 1.0
    return v, 2.0 / float(v @ v), sign


def embed(theta: np.ndarray, xp: np.ndarray) -> np.ndarray:
    """Map arm(s) from the θ* = e₁ basis to the original basis (rows of ``xp``)."""
    v, c, sign = householder(theta)
    xp = np.asarray(xp, dtype=np.float64)
    proj = xp @ v
    return sign * (xp - c * np.multiply.outer(proj, v))


# ----------------------------------------------------------------------------- zone law
def zone_mode(a: float, b: float, d: int) -> float:
    """t₀ = argmax of f_d on [a, b] (uniform proposals, shariff2018 reading R13)."""
    if d > 3:
        return min(max(0.0, a), b)
    return a if abs(a) >= abs(b) else b


def zone_accept_prob(t: float, one_minus_t0sq: float, d: int) -> float:
    """f_d(t)/f_d(t₀) = ((1 − t²)/(1 − t₀²))^((d−3)/2), by multiplications and one sqrt.

    Written with IEEE basic operations only so that the numba twin used by the kernel returns
    bit-identical values (the stream comparison tests rely on it).
    """
    r = (1.0 - t * t) / one_minus_t0sq
    if d == 2:
        return 1.0 / math.sqrt(r)
    e2 = d - 3  # twice the exponent
    out = 1.0
    for _ in range(e2 // 2):
        out *= r
    if e2 % 2 == 1:
        out *= math.sqrt(r)
    return out


_zone_accept_prob_nb = numba.njit(cache=True, inline="always")(zone_accept_prob)


def zone_envelope_k(a: float, b: float, d: int) -> float:
    """k = (d − 3)/2 when T is proposed from the Gaussian envelope exp(−k t²) ≥ f_d(t)/f_d(0), else 0.0
    (uniform proposal).  The envelope is used when the zone contains the mode 0 and its acceptance rate
    Z/√(π/k) beats the uniform proposal's Z/(b − a) (Z = ∫_a^b (1 − t²)^k dt): from d = 7 on for the paper's
    zone [−0.75, 0.65]; at d = 64 it accepts ≈ 99 % of proposals, the uniform one ≈ 23 %."""
    if d <= 3 or not (a <= 0.0 <= b):
        return 0.0
    k = 0.5 * (d - 3)
    return k if math.sqrt(math.pi / k) < b - a else 0.0


def zone_envelope_accept(u: float, t: float, k: float) -> bool:
    """``u ≤ f_d(t)/(f_d(0)·exp(−k t²)) = exp(k·(log(1 − t²) + t²))``, exactly, for |t| < 1.

    Squeeze first: with x = t², log(1 − x) + x ≥ −x²/(2(1 − x)), so u ≤ 1 − k x²/(2(1 − x)) accepts without
    the transcendental functions (most proposals); otherwise the full test decides."""
    x = t * t
    if u <= 1.0 - k * x * x / (2.0 * (1.0 - x)):
        return True
    return u <= math.exp(k * (math.log1p(-x) + x))


_zone_envelope_k_nb = numba.njit(cache=True, inline="always")(zone_envelope_k)
_zone_envelope_accept_nb = numba.njit(cache=True, inline="always")(zone_envelope_accept)


def zone_cdf(t, d: int, a: float = -1.0, b: float = 1.0) -> np.ndarray:
    """Exact CDF of T on [a, b]: (F(t) − F(a))/(F(b) − F(a)), F the Beta((d−1)/2,(d−1)/2) law on [−1, 1]."""
    from scipy import stats  # here, not at the top: importing scipy.stats costs every run job ~1 CPU-s, and only
    # the exact CDF (audits, tests) needs it

    t = np.clip(np.asarray(t, dtype=np.float64), a, b)
    law = stats.beta((d - 1) / 2.0, (d - 1) / 2.0, loc=-1.0, scale=2.0)
    fa, fb = law.cdf(a), law.cdf(b)
    return (law.cdf(t) - fa) / (fb - fa)


# ----------------------------------------------------------------------------- samplers
def _zone_T(rng: np.random.Generator, a: float, b: float, d: int, om: float) -> float:
    k = zone_envelope_k(a, b, d)
    if k > 0.0:  # Gaussian envelope: t = Z/√(2k), kept if in [a, b], then the test on one U
        s = 1.0 / math.sqrt(2.0 * k)
        while True:
            t = s * rng.standard_normal()
            if a <= t <= b and zone_envelope_accept(rng.random(), t, k):
                return t
    width = b - a
    while True:
        t = a + width * rng.random()
        if d == 3:
            return t
        if rng.random() <= zone_accept_prob(t, om, d):
            return t


def sample_zone_inner(rng: np.random.Generator, d: int, a: float, b: float, size: int) -> np.ndarray:
    """``size`` i.i.d. draws of T on [a, b] with density ∝ (1 − t²)^((d−3)/2) (method B)."""
    t0 = zone_mode(a, b, d)
    om = 1.0 - t0 * t0
    return np.array([_zone_T(rng, a, b, d, om) for _ in range(int(size))])


def sample_arm(g: np.ndarray, t: float) -> np.ndarray:
    """Arm in the θ* = e₁ basis with first coordinate t: (t, sqrt(1 − t²)·g/‖g‖), g ~ N(0, I_{d−1}) given."""
    d = g.size + 1
    x = np.empty(d)
    x[0] = t
    x[1:] = g * (math.sqrt(1.0 - t * t) / math.sqrt(float(g @ g)))
    return x


def _word(rng) -> int:
    """One raw 64-bit word: a :class:`~privopt.fastrng.FastGenerator`'s next output (as the kernels draw
    it), or 64 random bits of a numpy ``Generator`` (Figure 1's sets)."""
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(0, 2**64, dtype=np.uint64))
    return int(rng.words())


def sample_decision_set(rng: np.random.Generator, theta: np.ndarray, K: int, *, gap: float = 0.1,
                        opt_mean: float = 0.75, low: float = -0.75) -> tuple[np.ndarray, np.ndarray, int]:
    """One decision set in the canonical order (module docstring).

    Returns ``(arms, means, j_opt)``: arms (K, d) unit vectors in the original basis, their exact
    means ⟨x, θ*⟩ (``opt_mean`` for the optimal arm, the sampled T otherwise) and the optimal index.
    """
    theta = np.asarray(theta, dtype=np.float64)
    d = theta.size
    a, b = low, opt_mean - gap
    t0 = zone_mode(a, b, d)
    om = 1.0 - t0 * t0
    j_opt = int(rng.random() * K)
    ka, kb = _word(rng), _word(rng)
    g = normals_numpy(ka, kb, 0, K * (d - 1)).reshape(K, d - 1)
    xp = np.empty((K, d))
    means = np.empty(K)
    for j in range(K):
        t = opt_mean if j == j_opt else _zone_T(rng, a, b, d, om)
        means[j] = t
        xp[j] = sample_arm(g[j], t)
    return embed(theta, xp), means, j_opt


def draw_reward(rng: np.random.Generator, mu: float, model: str = "pm1") -> float:
    """Reward with mean μ: ±1 with P(+1) = (1 + μ)/2 (one U), or μ + N(0, 1) (one Z) (shariff2018 reading R13)."""
    if model == "pm1":
        return 1.0 if rng.random() < 0.5 * (1.0 + mu) else -1.0
    if model == "gaussian":
        return mu + rng.standard_normal()
    raise ValueError(f"reward model must be one of {REWARD_MODELS}, got {model!r}")
