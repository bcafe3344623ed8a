"""The exact privacy each implemented mechanism spends, beside the papers' hand-written calibrations.

:mod:`privopt.mechanisms.accounting` holds the papers' formulas (per-step ε0 rules, basic and advanced
composition): the papers' own calibration, kept as they state it.  This module measures the same mechanisms
exactly, with Google's ``dp_accounting`` (privacy-loss-distribution accountant, Koskela et al. 2020 /
Doroshenko et al. 2022; analytic Gaussian, Balle & Wang 2018) and the closed forms those accountants
approximate.  What each guarantee is, paper by paper, and what the accountant says of it: docs/accounting.md.

Gaussian mechanism (Balle & Wang 2018, Thm 8).  A release with ℓ2 sensitivity Δ and noise N(0, σ²I) is
(ε, δ(ε))-DP exactly for δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ), μ = Δ/σ; r such releases composed are
again a Gaussian mechanism with μ = √(Σ μ_i²) (the joint release is one Gaussian vector), so a composition
of Gaussian releases is exact in closed form.  :func:`gaussian_epsilon`, :func:`gaussian_delta`,
:func:`gaussian_sigma`; :func:`gaussian_pld` is the same mechanism in the PLD accountant (tests check that
both agree).  :func:`zcdp_gaussian_sigma` is the zCDP calibration (Bun & Steinke 2016) for comparison.

Pure ε0-DP steps (optimal composition, Kairouz, Oh & Viswanath 2015; Murtagh & Vadhan 2016).  The worst
ε0-DP pair is randomised response: privacy loss +ε0 with probability e^ε0/(1 + e^ε0), −ε0 otherwise, and
the k-fold composition of ε0-DP mechanisms is exactly as private as the k-fold product of that pair.  Its
privacy profile is a binomial sum (:func:`two_point_delta`); dp_accounting's
``from_privacy_parameters`` is the same pair as a PLD (equal up to its rounding of the loss grid, tested).

Bounded-range (ε0-BR) steps (Dong, Durfee & Rogers 2020).  A mechanism is ε0-BR when, for every pair of
neighbours, its privacy loss lies in an interval [t − ε0, t] of width ε0 for some t ∈ [0, ε0]; the
exponential mechanism O_ε(q) ∝ exp(ε·q/(2Δq)) of :mod:`privopt.mechanisms.exponential` is ε-BR (its loss
is ε(q(D,u) − q(D',u))/(2Δq) plus a constant, a range of width ε), and ε-BR implies ε-DP.  For t fixed the
worst ε0-BR pair is the generalised randomised response with losses t and t − ε0 (its probabilities are
forced: p = (1 − e^(t−ε0))/(1 − e^(−ε0)) under D, p·e^(−t) under D'), and DDR show that for k identical
steps the optimal composition is attained with one common t, so δ_BR(ε) = max_t δ_t^{⊗k}(ε) (their
homogeneous case).  The maximum over t ∈ [0, ε0] is taken numerically
(:func:`br_delta`: a grid of :data:`BR_GRID` points refined by bounded Brent search); every value of the
objective is an exact binomial sum, so the result can only be low by the optimiser's tolerance, 1e-9 in t.
Where the steps are chosen adaptively and the BR result's scope is in doubt, the ε0-DP functions below are
the safe reading (optimal composition of ε0-DP holds adaptively).

Wishart node (:func:`wishart_node_loss`).  A node releasing A + W, W ~ W_p(L̃²I, k), against the neighbour
A' = A − Δ, Δ = zzᵀ − z'z'ᵀ, has privacy loss ℓ = −((k − p − 1)/2)·log det(I₂ + D·UᵀW⁻¹U) + tr(Δ)/(2L̃²)
(U = [z, z'], D = diag(1, −1); +∞ where W + Δ is not positive definite), and (UᵀW⁻¹U)⁻¹ ~ W₂(L̃²(UᵀU)⁻¹,
k − p + 2): the loss law is that of a function of a 2×2 Wishart (two χ² and one normal by Bartlett), sampled
exactly here.  Its exact profile and the worst neighbouring pair are not computed (docs/accounting.md);
for large k the loss is asymptotically Gaussian with μ = ‖Δ‖_F/(√2·L̃²·√k) ≤ 1/√k per node
(:func:`wishart_asymptotic_mu`), an estimate, not a certificate.

Every ``*_eps0`` function returns the largest per-step parameter whose exact composition meets (ε, δ); every
``*_epsilon`` the smallest ε at a given δ; every ``*_delta`` the exact δ at a given ε.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy.optimize import brentq, minimize_scalar
from scipy.special import gammaln, log_ndtr, ndtr

__all__ = [
    "BR_GRID",
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_sigma",
    "gaussian_pld",
    "composed_mu",
    "zcdp_gaussian_sigma",
    "two_point_delta",
    "pure_dp_delta",
    "pure_dp_epsilon",
    "pure_dp_eps0",
    "pure_dp_pld",
    "br_pair",
    "br_delta",
    "br_epsilon",
    "br_eps0",
    "wishart_node_loss",
    "wishart_asymptotic_mu",
]

#: points of the grid over t ∈ [0, ε0] before the bounded Brent refinement of :func:`br_delta`
BR_GRID = 65
#: binomial terms beyond this many standard deviations from the mean of either law carry < 1e-40 of mass
_SD_SPAN = 14.0


# ----------------------------------------------------------------------------- validation
def _pos(value, name: str, *, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    value = float(value)
    if value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{name} must be {'>= 0' if allow_zero else '> 0'}, got {value!r}")
    return value


def _delta(delta, name: str = "delta") -> float:
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real) or not 0.0 < float(delta) < 1.0:
        raise ValueError(f"{name} must satisfy 0 < {name} < 1, got {delta!r}")
    return float(delta)


def _count(k, name: str = "k") -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Real) or float(k) != int(k) or int(k) < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {k!r}")
    return int(k)


# ----------------------------------------------------------------------------- Gaussian mechanism
def gaussian_delta(sigma, sensitivity, eps) -> float:
    """Exact δ(ε) of a Gaussian release with ℓ2 sensitivity Δ and noise std σ (Balle & Wang 2018, Thm 8)."""
    sigma, sensitivity, eps = _pos(sigma, "sigma"), _pos(sensitivity, "sensitivity", allow_zero=True), \
        _pos(eps, "eps", allow_zero=True)
    mu = sensitivity / sigma
    if mu == 0.0:
        return 0.0
    return float(max(0.0, ndtr(mu / 2 - eps / mu) - math.exp(eps + log_ndtr(-mu / 2 - eps / mu))))


def gaussian_epsilon(sigma, sensitivity, delta) -> float:
    """Smallest ε at which a Gaussian release (sensitivity Δ, std σ) is (ε, δ)-DP; 0 if it is (0, δ)-DP
    (``dp_accounting.get_epsilon_gaussian``, the analytic Gaussian mechanism)."""
    from dp_accounting import get_epsilon_gaussian

    sigma, sensitivity, delta = _pos(sigma, "sigma"), _pos(sensitivity, "sensitivity"), _delta(delta)
    return float(get_epsilon_gaussian(sigma / sensitivity, delta, tol=1e-13))


def gaussian_sigma(sensitivity, eps, delta) -> float:
    """Smallest σ for which a Gaussian release with ℓ2 sensitivity Δ is (ε, δ)-DP (``dp_accounting``'s
    analytic-Gaussian calibration, :func:`privopt.mechanisms.counting.analytic_gaussian_sigma` is the
    project's own; tests check that they agree)."""
    from dp_accounting import get_sigma_gaussian

    sensitivity, eps, delta = _pos(sensitivity, "sensitivity"), _pos(eps, "eps"), _delta(delta)
    return float(sensitivity * get_sigma_gaussian(eps, delta, tol=1e-13))


def composed_mu(sensitivities, sigma) -> float:
    """μ of the composition of Gaussian releases with ℓ2 sensitivities Δ_i and common std σ: √(Σ Δ_i²)/σ."""
    s = np.asarray(sensitivities, dtype=float)
    if s.ndim != 1 or s.size == 0 or np.any(s < 0) or not np.all(np.isfinite(s)):
        raise ValueError(f"sensitivities must be a non-empty 1-d array of finite values >= 0, got {sensitivities!r}")
    return float(math.sqrt(float(s @ s)) / _pos(sigma, "sigma"))


def gaussian_pld(mu: float, *, interval: float = 1e-4):
    """The PLD accountant's privacy-loss distribution of a Gaussian mechanism with standardised shift μ
    (``dp_accounting.pld.privacy_loss_distribution.from_gaussian_mechanism``, pessimistic rounding)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    mu = _pos(mu, "mu")
    return pld.from_gaussian_mechanism(1.0 / mu, sensitivity=1.0, value_discretization_interval=interval,
                                       neighboring_relation=pld.NeighborRel.REPLACE_SPECIAL)


def zcdp_gaussian_sigma(sensitivity, eps, delta) -> float:
    """σ of the zCDP calibration: ρ = Δ²/(2σ²) with ε = ρ + 2√(ρ log(1/δ)) (Bun & Steinke 2016, Prop 1.3)."""
    sensitivity, eps, delta = _pos(sensitivity, "sensitivity"), _pos(eps, "eps"), _delta(delta)
    L = math.log(1.0 / delta)
    sqrt_rho = math.sqrt(L + eps) - math.sqrt(L)
    return sensitivity / (math.sqrt(2.0) * sqrt_rho)


# ----------------------------------------------------------------------------- two-point pairs
def _log_binom_pmf(k: int, log_p: float, log_q: float) -> tuple[np.ndarray, np.ndarray]:
    """(j, log P(J = j)) for J ~ Bin(k, p) with log p, log(1 − p) given, over the j that carry the mass."""
    p = math.exp(log_p)
    sd = math.sqrt(k * p * (1 - p))
    lo = max(0, int(math.floor(k * p - _SD_SPAN * sd - 1)))
    hi = min(k, int(math.ceil(k * p + _SD_SPAN * sd + 1)))
    j = np.arange(lo, hi + 1)
    logc = gammaln(k + 1) - gammaln(j + 1) - gammaln(k - j + 1)
    return j, logc + j * log_p + (k - j) * log_q


def two_point_delta(p, q, k, eps, *, logs: tuple[float, float, float, float] | None = None) -> float:
    """Exact δ(ε) of the k-fold product of the two-point pair P = (p, 1 − p), Q = (q, 1 − q):
    Σ_j P(J = j)·[1 − e^(ε − ℓ_j)]_+, J ~ Bin(k, p) the count of first outcomes, ℓ_j its privacy loss.

    Terms of probability below e^-98 (beyond 14 standard deviations of J) are dropped; the sum is then exact to
    1e-40 absolute.  Losses within 1e-12 of ε count as equal to it (their term is then 0 up to 1e-12 relative).
    ``logs`` = (log p, log(1 − p), log(p/q), log((1 − p)/(1 − q))) where the caller knows them exactly (p and q
    within rounding of 0 or 1 lose their logs to cancellation: at ε0 = 22.6 the randomised response's loss ε0
    computed from p comes out 10^-6 too large, and k such losses overshoot k·ε0).
    """
    return _hockey_stick(*_two_point_terms(p, q, k, logs), _pos(eps, "eps", allow_zero=True))


def _two_point_terms(p, q, k, logs=None) -> tuple[np.ndarray, np.ndarray]:
    """(ℓ_j, log P(J = j)) over the j that carry the mass (:func:`two_point_delta`): what δ(ε) sums, the same for
    every ε, so a root search over ε computes it once."""
    k = _count(k)
    if logs is not None and not (logs[0] < 0.0 and logs[1] < 0.0 and all(map(math.isfinite, logs))):
        raise ValueError(f"logs must be finite with log p < 0 and log(1 - p) < 0, got {logs!r}")
    if logs is None and not (0.0 < p < 1.0 and 0.0 < q < 1.0):
        raise ValueError(f"p and q must lie in (0, 1), got {p!r}, {q!r}")
    if logs is None:
        logs = (math.log(p), math.log1p(-p), math.log(p / q), math.log1p(-p) - math.log1p(-q))
    log_p, log_1p, la, lb = logs
    j, logP = _log_binom_pmf(k, log_p, log_1p)
    return j * la + (k - j) * lb, logP


def _hockey_stick(loss: np.ndarray, logP: np.ndarray, eps: float) -> float:
    # a loss within float rounding of ε (e.g. k·ε0 at ε = k·ε0) contributes e^0 − 1 = 0, not a rounding residue
    pos = loss > eps + 1e-12 * max(1.0, abs(eps))
    if not np.any(pos):
        return 0.0
    terms = logP[pos] + np.log(-np.expm1(eps - loss[pos]))
    m = terms.max()
    return float(math.exp(m) * np.exp(terms - m).sum())


def _largest_root(fun, lo: float, hi: float) -> float:
    return float(brentq(fun, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=500))


# ----------------------------------------------------------------------------- pure ε0-DP steps
def _pure_dp_terms(eps0: float, k) -> tuple[np.ndarray, np.ndarray]:
    """The k-fold randomised response's (ℓ_j, log P(J = j)): p = e^ε0/(1 + e^ε0), its logs and losses ±ε0 exact
    (:func:`two_point_delta`'s ``logs``)."""
    log_p = -math.log1p(math.exp(-eps0))
    p = math.exp(log_p)
    return _two_point_terms(p, 1.0 - p, k, (log_p, log_p - eps0, eps0, -eps0))


def pure_dp_delta(eps0, k, eps) -> float:
    """Exact δ(ε) of k composed ε0-DP mechanisms (optimal composition: the k-fold randomised response)."""
    return _hockey_stick(*_pure_dp_terms(_pos(eps0, "eps0"), k), _pos(eps, "eps", allow_zero=True))


def _smallest_eps(delta_of, top: float, delta: float) -> float:
    """Smallest ε ∈ [0, top] with ``delta_of(ε)`` ≤ δ (δ(ε) falls with ε)."""
    if delta_of(0.0) <= delta:
        return 0.0
    return _largest_root(lambda e: delta_of(e) - delta, 0.0, top)


def _largest_eps0(delta_of, lo: float, hi: float, delta: float) -> float:
    """Largest per-step ε0 ∈ [lo, hi] with ``delta_of(ε0)`` ≤ δ (δ grows with ε0)."""
    if delta_of(hi) <= delta:
        return hi
    return _largest_root(lambda e0: delta_of(e0) - delta, lo, hi)


def pure_dp_epsilon(eps0, k, delta) -> float:
    """Smallest ε with k composed ε0-DP mechanisms (ε, δ)-DP (optimal composition); ≤ k·ε0 always."""
    eps0, k, delta = _pos(eps0, "eps0"), _count(k), _delta(delta)
    terms = _pure_dp_terms(eps0, k)  # the same binomial terms at every ε of the search
    return _smallest_eps(lambda e: _hockey_stick(*terms, e), k * eps0, delta)


def pure_dp_eps0(eps, delta, k) -> float:
    """Largest ε0 such that k composed ε0-DP mechanisms are (ε, δ)-DP (optimal composition); ≥ ε/k."""
    eps, delta, k = _pos(eps, "eps"), _delta(delta), _count(k)
    return _largest_eps0(lambda e0: pure_dp_delta(e0, k, eps), eps / k, eps, delta)


def pure_dp_pld(eps0, *, interval: float = 1e-5):
    """The PLD accountant's pessimistic PLD of one ε0-DP step (``from_privacy_parameters``)."""
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld

    return pld.from_privacy_parameters(common.DifferentialPrivacyParameters(_pos(eps0, "eps0"), 0.0),
                                       value_discretization_interval=interval)


# ----------------------------------------------------------------------------- ε0-BR steps
def br_pair(eps0, t) -> tuple[float, float]:
    """(p, q): the worst ε0-BR pair for loss range [t − ε0, t]: P(a) = p, Q(a) = q with log(p/q) = t and
    log((1 − p)/(1 − q)) = t − ε0 (module docstring)."""
    eps0 = _pos(eps0, "eps0")
    if not 0.0 < t < eps0:
        raise ValueError(f"t must lie in (0, eps0) = (0, {eps0}), got {t!r}")
    p = -math.expm1(t - eps0) / -math.expm1(-eps0)
    return p, p * math.exp(-t)


def _br_delta_t(eps0: float, k: int, eps: float, t: float) -> float:
    if t <= 0.0 or t >= eps0:
        return 0.0
    p, q = br_pair(eps0, t)
    if not (0.0 < p < 1.0 and 0.0 < q < 1.0):
        return 0.0
    return two_point_delta(p, q, k, eps)


def br_delta(eps0, k, eps) -> float:
    """Exact δ(ε) of k composed ε0-BR mechanisms: max over a common t ∈ (0, ε0) of the k-fold generalised
    randomised response (Dong, Durfee & Rogers 2020; the maximum taken numerically, module docstring)."""
    eps0, k, eps = _pos(eps0, "eps0"), _count(k), _pos(eps, "eps", allow_zero=True)
    ts = np.linspace(0.0, eps0, BR_GRID)[1:-1]
    vals = np.array([_br_delta_t(eps0, k, eps, t) for t in ts])
    i = int(np.argmax(vals))
    if vals[i] == 0.0:
        return 0.0
    lo, hi = ts[max(i - 1, 0)] if i > 0 else 0.0, ts[i + 1] if i + 1 < ts.size else eps0
    res = minimize_scalar(lambda t: -_br_delta_t(eps0, k, eps, t), bounds=(lo, hi), method="bounded",
                          options={"xatol": 1e-9 * eps0})
    return float(max(vals[i], -res.fun))


def br_epsilon(eps0, k, delta) -> float:
    """Smallest ε with k composed ε0-BR mechanisms (ε, δ)-DP."""
    eps0, k, delta = _pos(eps0, "eps0"), _count(k), _delta(delta)
    return _smallest_eps(lambda e: br_delta(eps0, k, e), k * eps0, delta)


def br_eps0(eps, delta, k) -> float:
    """Largest ε0 such that k composed ε0-BR mechanisms (e.g. exponential mechanisms O_ε0) are (ε, δ)-DP."""
    eps, delta, k = _pos(eps, "eps"), _delta(delta), _count(k)
    return _largest_eps0(lambda e0: br_delta(e0, k, eps), eps / k, 2.0 * eps, delta)


# ----------------------------------------------------------------------------- Wishart node (sampled, not certified)
def wishart_node_loss(k, p, L_tilde_sq, z, z_prime, n, rng) -> np.ndarray:
    """n exact draws of the privacy loss of one Wishart node W_p(L̃²I, k) under D for the neighbour pair (z, z')
    (module docstring: the 2×2 reduction; +inf where the neighbour's density is 0)."""
    z, zp = np.asarray(z, dtype=float), np.asarray(z_prime, dtype=float)
    k, p = _count(k, "k"), _count(p, "p")
    if z.shape != (p,) or zp.shape != (p,):
        raise ValueError(f"z and z_prime must have shape ({p},), got {z.shape} and {zp.shape}")
    U = np.column_stack([z, zp])
    gram = U.T @ U
    if np.linalg.matrix_rank(gram) < 2:
        raise ValueError("z and z_prime must be linearly independent (a rank-2 change)")
    if k < p + 1:
        raise ValueError(f"need k >= p + 1 = {p + 1} degrees of freedom, got {k}")
    C = np.linalg.cholesky(_pos(L_tilde_sq, "L_tilde_sq") * np.linalg.inv(gram))
    nu = k - p + 2
    A = np.zeros((n, 2, 2))
    A[:, 0, 0] = np.sqrt(rng.chisquare(nu, n))
    A[:, 1, 1] = np.sqrt(rng.chisquare(nu - 1, n))
    A[:, 1, 0] = rng.standard_normal(n)
    M = np.linalg.inv(C @ (A @ A.transpose(0, 2, 1)) @ C.T)  # Uᵀ W⁻¹ U
    E = np.eye(2) + np.diag([1.0, -1.0]) @ M
    out = np.full(n, np.inf)
    ok = np.linalg.eigvals(E).real.min(axis=1) > 0
    out[ok] = -0.5 * (k - p - 1) * np.log(np.linalg.det(E[ok])) + (gram[0, 0] - gram[1, 1]) / (2.0 * L_tilde_sq)
    return out


def wishart_asymptotic_mu(k, m: int = 1, L_tilde_sq: float = 1.0, delta_frobenius: float | None = None) -> float:
    """Large-k Gaussian-equivalent μ of m composed Wishart nodes: √m·‖Δ‖_F/(√2·L̃²·√k); the worst ‖Δ‖_F = √2·L̃²
    (‖z‖² = ‖z'‖² = L̃², z ⊥ z') gives √(m/k).  An asymptotic estimate, not a certificate."""
    k, m = _count(k, "k"), _count(m, "m")
    L = _pos(L_tilde_sq, "L_tilde_sq")
    df = math.sqrt(2.0) * L if delta_frobenius is None else _pos(delta_frobenius, "delta_frobenius")
    return math.sqrt(m) * df / (math.sqrt(2.0) * L * math.sqrt(k))
