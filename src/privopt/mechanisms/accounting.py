"""Per-step privacy parameters ε0 and composition (chaturvedi2021 readings R2, R3, R8).

Throughout, L = log(1/δ) with the natural logarithm (the paper's logarithms are natural).  Every function
validates its inputs: ε (and ε0 where a positive value is needed) must be finite
and > 0, 0 < δ < 1, and ranks / step counts must be integers ≥ 1; violations
raise ValueError naming the offending argument.

Summary (with the entry of docs/papers/chaturvedi2021.md, "Reading of the paper", each formula comes from):

==========================  =================================================  ============
function                    formula                                            reading
==========================  =================================================  ============
pcg_eps0(rule="split")      2·log(1 + ε/(2(3 + L)))                            R3 (split)
pcg_eps0(rule="alg1")       2·log(1 + ε/(4 + L))                               R3 (Algorithm 1 as printed)
pmcg_eps0                   ε/(14 + 4L)                                        R4
dpg_eps0_basic              ε/r                                                R8 (basic)
dpg_eps0_advanced_code      √(2L/r + ε/r) − √(2L/r)                            R8 (authors' closed form)
dpg_eps0_advanced_drv       root of √(2rL)·ε0 + r·ε0(e^ε0 − 1) = ε             R8 (exact DRV)
dpg_eps0_improved           2ε/((e − 1)(3 + L)), only for ε ≤ ε*(δ)            R8 (improved)
dpg_eps0(rule="better_of")  max(basic, advanced_code)                          R8 (better of)
basic_composition           k·ε0                                               R8 (basic)
advanced_composition        √(2k·L)·ε0 + k·ε0(e^ε0 − 1)                        R8 (advanced)
==========================  =================================================  ============

The ``*_eps_total`` helpers invert the ε0 rules (total ε claimed for a given ε0).

Domain of the improved rule.  Its derivation bounds the privacy loss of DPG on a
decomposable objective by ε0/2 + (e^{ε0/2} − 1)(3 + L) (:func:`dpg_improved_bound`), then
uses e^x − 1 ≤ (e − 1)x (true only for x ≤ 1) and drops the ε0/2 term.  The resulting ε0
is covered by the bound only for ε ≤ ε*(δ) (:func:`dpg_improved_max_eps`; ≈ 7.26 at
δ = 0.1, ≈ 27.1 at δ = 1e-6).  Above it :func:`dpg_eps0_improved` and
:func:`dpg_improved_eps_total` raise ValueError instead of returning a per-step parameter
the paper's bound no longer covers.
"""

from __future__ import annotations

import math
import numbers

from scipy.optimize import brentq

__all__ = [
    "pcg_eps0",
    "pmcg_eps0",
    "dpg_eps0_basic",
    "dpg_eps0_advanced_code",
    "dpg_eps0_advanced_drv",
    "dpg_eps0_improved",
    "dpg_eps0",
    "basic_composition",
    "advanced_composition",
    "pcg_eps_total",
    "pmcg_eps_total",
    "dpg_improved_eps_total",
    "dpg_improved_bound",
    "dpg_improved_max_eps",
    "PCG_RULES",
    "DPG_RULES",
]

PCG_RULES = ("split", "alg1")
DPG_RULES = ("basic", "advanced_code", "advanced_drv", "improved", "better_of")


# ----------------------------------------------------------------------------- validation
def _real(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    return float(value)


def _check_eps(eps, name: str = "eps") -> float:
    eps = _real(eps, name)
    if not (eps > 0.0) or math.isinf(eps):
        raise ValueError(f"{name} must be finite and > 0, got {eps!r}")
    return eps


def _check_eps0(eps0, name: str = "eps0") -> float:
    eps0 = _real(eps0, name)
    if not (eps0 >= 0.0) or math.isinf(eps0):
        raise ValueError(f"{name} must be finite and >= 0, got {eps0!r}")
    return eps0


def _check_delta(delta, name: str = "delta") -> float:
    delta = _real(delta, name)
    if not (0.0 < delta < 1.0):
        raise ValueError(f"{name} must satisfy 0 < {name} < 1, got {delta!r}")
    return delta


def _check_count(r, name: str = "r") -> int:
    if isinstance(r, bool):
        raise ValueError(f"{name} must be an integer >= 1, got {r!r}")
    if isinstance(r, numbers.Integral):
        r_int = int(r)
    elif isinstance(r, numbers.Real) and float(r).is_integer():
        r_int = int(r)
    else:
        raise ValueError(f"{name} must be an integer >= 1, got {r!r}")
    if r_int < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {r!r}")
    return r_int


def _log_inv(delta: float) -> float:
    return math.log(1.0 / delta)


# ----------------------------------------------------------------------------- PCG / PMCG
def pcg_eps0(eps, delta, rule: str = "split") -> float:
    """Per-step ε0 of Private Continuous Greedy (Algorithm 1).

    * ``rule="split"`` (default, chaturvedi2021 reading R3, the value used in the
      experiments): ε0 = 2·log(1 + ε/(2·(3 + log(1/δ)))).  It solves
      (e^{ε0/2} − 1)(3 + log(1/δ)) = ε/2 from the proof of Thm 3.9; e.g.
      ε = 0.1, δ = 1e-3 gives 0.0100677 (the paper's "ε0 ≈ 0.01006").
    * ``rule="alg1"`` (chaturvedi2021 reading R3, Algorithm 1 line 2 as printed):
      ε0 = 2·log(1 + ε/(4 + log(1/δ))), the inverse of Thm 3.9's
      ((e^{ε0/2} − 1)(4 + log(1/δ)), δ)-DP; 0.018252 at ε = 0.1, δ = 1e-3.

    η, r and n do not enter (chaturvedi2021 reading R3).
    """
    eps = _check_eps(eps)
    L = _log_inv(_check_delta(delta))
    if rule == "split":
        return 2.0 * math.log1p(eps / (2.0 * (3.0 + L)))
    if rule == "alg1":
        return 2.0 * math.log1p(eps / (4.0 + L))
    raise ValueError(f"rule must be one of {PCG_RULES}, got {rule!r}")


def pcg_eps_total(eps0, delta, rule: str = "split") -> float:
    """Inverse of :func:`pcg_eps0`: the total ε that rule assigns to a per-step ε0.

    * ``"split"`` (chaturvedi2021 reading R3, split): ε = 2·(e^{ε0/2} − 1)·(3 + log(1/δ)).
    * ``"alg1"`` (chaturvedi2021 reading R3, Algorithm 1 as printed, Thm 3.9): ε = (e^{ε0/2} − 1)·(4 + log(1/δ)).
    """
    eps0 = _check_eps0(eps0)
    L = _log_inv(_check_delta(delta))
    if rule == "split":
        return 2.0 * math.expm1(eps0 / 2.0) * (3.0 + L)
    if rule == "alg1":
        return math.expm1(eps0 / 2.0) * (4.0 + L)
    raise ValueError(f"rule must be one of {PCG_RULES}, got {rule!r}")


def pmcg_eps0(eps, delta) -> float:
    """Per-step ε0 of Private Measured Continuous Greedy (Algorithm 2).

    ε0 = ε / (14 + 4·log(1/δ))  — chaturvedi2021 reading R4 (Thm 4.9:
    ((14 + 4 log(1/δ))·ε0, δ)-DP), chaturvedi2021 reading R4 (0.0024021 at ε = 0.1, δ = 1e-3).
    """
    eps = _check_eps(eps)
    L = _log_inv(_check_delta(delta))
    return eps / (14.0 + 4.0 * L)


def pmcg_eps_total(eps0, delta) -> float:
    """Inverse of :func:`pmcg_eps0`: ε = (14 + 4·log(1/δ))·ε0 (chaturvedi2021 reading R4, Thm 4.9)."""
    eps0 = _check_eps0(eps0)
    L = _log_inv(_check_delta(delta))
    return (14.0 + 4.0 * L) * eps0


# ----------------------------------------------------------------------------- DPG / MBKK
def dpg_eps0_basic(eps, r) -> float:
    """Basic composition over r exponential-mechanism steps: ε0 = ε/r (chaturvedi2021 reading R8, basic)."""
    eps = _check_eps(eps)
    r = _check_count(r, "r")
    return eps / r


def dpg_eps0_advanced_code(eps, delta, r) -> float:
    """Advanced composition, the authors' closed form (chaturvedi2021 reading R8, advanced, the authors' constant).

    ε0 = √(2·log(1/δ)/r + ε/r) − √(2·log(1/δ)/r), the positive root of
    r·ε0² + 2·√(2r·log(1/δ))·ε0 = ε.  Evaluated in the cancellation-free form
    (ε/r) / (√(2L/r + ε/r) + √(2L/r)).
    """
    eps = _check_eps(eps)
    L = _log_inv(_check_delta(delta))
    r = _check_count(r, "r")
    a = 2.0 * L / r
    return (eps / r) / (math.sqrt(a + eps / r) + math.sqrt(a))


def dpg_eps0_advanced_drv(eps, delta, r) -> float:
    """Advanced composition, exact Dwork–Rothblum–Vadhan bound solved for ε0 (chaturvedi2021 reading R8, advanced).

    Returns the unique ε0 ≥ 0 with √(2r·log(1/δ))·ε0 + r·ε0·(e^{ε0} − 1) = ε
    (the left side is increasing in ε0), found with scipy.optimize.brentq on
    [0, min(ε/√(2rL), √(ε/r))] — both ends are upper bounds of the root.
    """
    eps = _check_eps(eps)
    delta = _check_delta(delta)
    r = _check_count(r, "r")
    L = _log_inv(delta)

    def g(e0: float) -> float:
        return math.sqrt(2.0 * r * L) * e0 + r * e0 * math.expm1(e0) - eps

    hi = math.sqrt(eps / r)
    if L > 0.0:
        hi = min(hi, eps / math.sqrt(2.0 * r * L))
    if g(hi) == 0.0:
        return hi
    return float(brentq(g, 0.0, hi, xtol=1e-300, rtol=4 * 2.220446049250313e-16, maxiter=500))


def dpg_eps0_improved(eps, delta) -> float:
    """Improved (rank-invariant) analysis for decomposable f (chaturvedi2021 reading R8, improved, the authors' constant).

    ε0 = 2ε / ((e − 1)·(3 + log(1/δ))), from requiring (e − 1)(ε0/2)(3 + log 1/δ) = ε.
    Used by DPG in Figure 2 (chaturvedi2021 reading R8).

    Domain: only for ε ≤ :func:`dpg_improved_max_eps` (δ).  Above it the returned ε0 would
    not be covered by the bound the rule is derived from (:func:`dpg_improved_bound`
    exceeds ε, because e^x − 1 ≤ (e − 1)x fails for x = ε0/2 > 1 and the dropped ε0/2
    term no longer fits), so a ValueError is raised; use another rule there.
    """
    eps = _check_eps(eps)
    delta = _check_delta(delta)
    L = _log_inv(delta)
    eps0 = 2.0 * eps / ((math.e - 1.0) * (3.0 + L))
    if _improved_loss(eps0, L) > eps:
        raise ValueError(
            f"eps = {eps!r} is outside the domain of the improved DPG rule at delta = {delta!r}: its eps0 = {eps0:.6g} "
            f"is covered by eps0/2 + (e^(eps0/2) - 1)(3 + log(1/delta)) <= eps only for eps <= "
            f"{dpg_improved_max_eps(delta):.6g} (e^x - 1 <= (e - 1)x needs x = eps0/2 <= 1 and the dropped eps0/2 term "
            "must fit); use rule 'basic', 'advanced_drv' or 'better_of'"
        )
    return eps0


def _improved_loss(eps0: float, L: float) -> float:
    x = 0.5 * eps0
    return x + math.expm1(x) * (3.0 + L)


def dpg_improved_bound(eps0, delta) -> float:
    """Privacy loss bound of DPG on a decomposable objective (chaturvedi2021 reading R8, improved, from Thm 3.9's proof):
    ε0/2 + (e^{ε0/2} − 1)(3 + log(1/δ)), holding with probability 1 − δ."""
    eps0 = _check_eps0(eps0)
    return _improved_loss(eps0, _log_inv(_check_delta(delta)))


def dpg_improved_max_eps(delta) -> float:
    """ε*(δ): the largest ε whose improved-rule ε0 is still covered by :func:`dpg_improved_bound`.

    With x = ε0/2 the rule sets ε = (e − 1)·x·(3 + L); the bound x + (e^x − 1)(3 + L) ≤ ε
    holds iff x ≤ x*, the positive root of x = (3 + L)·((e − 1)x − e^x + 1) (x* < 1; the
    right side over x decreases in x).  Returns (e − 1)·x*·(3 + L): 7.26 at δ = 0.1,
    27.1 at δ = 1e-6.
    """
    L = _log_inv(_check_delta(delta))

    def h(x: float) -> float:
        return x + (3.0 + L) * (math.expm1(x) - (math.e - 1.0) * x)

    x_star = brentq(h, 1e-6, 1.0, xtol=1e-15, rtol=4 * 2.220446049250313e-16, maxiter=500)
    return (math.e - 1.0) * x_star * (3.0 + L)


def dpg_improved_eps_total(eps0, delta) -> float:
    """Inverse of :func:`dpg_eps0_improved`: ε = (e − 1)·(ε0/2)·(3 + log(1/δ)) (chaturvedi2021 reading R8, improved).

    Same domain as :func:`dpg_eps0_improved`: raises ValueError when this ε is smaller than
    the bound :func:`dpg_improved_bound` (ε0/2 beyond the rule's validity).
    """
    eps0 = _check_eps0(eps0)
    delta = _check_delta(delta)
    L = _log_inv(delta)
    total = (math.e - 1.0) * (eps0 / 2.0) * (3.0 + L)
    if _improved_loss(eps0, L) > total:
        raise ValueError(
            f"eps0 = {eps0!r} is outside the domain of the improved DPG rule at delta = {delta!r}: the rule's total "
            f"{total:.6g} is below its own bound {_improved_loss(eps0, L):.6g} (valid for totals up to "
            f"{dpg_improved_max_eps(delta):.6g})"
        )
    return total


def dpg_eps0(eps, delta, r, rule: str) -> float:
    """Per-step ε0 of the private greedy DPG/MBKK (chaturvedi2021 reading R8), dispatching on ``rule``.

    ``"basic"`` ε/r (chaturvedi2021 reading R8; Figure 1 choice, ``delta`` may be None),
    ``"advanced_code"`` / ``"advanced_drv"`` (chaturvedi2021 reading R8), ``"improved"`` (chaturvedi2021 reading R8;
    Figure 2; ``r`` is ignored but still validated when given, may be None),
    ``"better_of"`` = max(basic, advanced_code) — the authors' rule (chaturvedi2021 reading R8, "Which
    variant where").
    """
    if rule == "basic":
        if delta is not None:
            _check_delta(delta)
        return dpg_eps0_basic(eps, r)
    if rule == "advanced_code":
        return dpg_eps0_advanced_code(eps, delta, r)
    if rule == "advanced_drv":
        return dpg_eps0_advanced_drv(eps, delta, r)
    if rule == "improved":
        if r is not None:
            _check_count(r, "r")
        return dpg_eps0_improved(eps, delta)
    if rule == "better_of":
        return max(dpg_eps0_basic(eps, r), dpg_eps0_advanced_code(eps, delta, r))
    raise ValueError(f"rule must be one of {DPG_RULES}, got {rule!r}")


# ----------------------------------------------------------------------------- composition
def basic_composition(eps0, k) -> float:
    """Total ε of k adaptively composed ε0-DP mechanisms, basic theorem: k·ε0 (chaturvedi2021 reading R8, basic)."""
    eps0 = _check_eps0(eps0)
    k = _check_count(k, "k")
    return k * eps0


def advanced_composition(eps0, k, delta) -> float:
    """Total ε of k composed ε0-DP mechanisms, advanced (DRV 2010) theorem (chaturvedi2021 reading R8, advanced).

    ε = √(2k·log(1/δ))·ε0 + k·ε0·(e^{ε0} − 1), at additional failure probability δ.
    """
    eps0 = _check_eps0(eps0)
    k = _check_count(k, "k")
    L = _log_inv(_check_delta(delta))
    return math.sqrt(2.0 * k * L) * eps0 + k * eps0 * math.expm1(eps0)
