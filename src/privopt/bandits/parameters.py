"""Constants of the private LinUCB variants (shariff2018 readings R1–R12, R17–R19, R22).

Every variant of Algorithm 1 is described by one immutable :class:`VariantParams`:
the node-noise mechanism of the tree (none / symmetric Gaussian / Wishart), its
per-node parameter, the diagonal ``shift`` added to the d×d block of the released
matrix, and the accuracy bounds ``(ρ_min, ρ_max, γ)`` that enter the confidence width

    β_t = σ·sqrt(max(0, 2·log(2/α) + log det V_t − d·log ρ_min)) + S·sqrt(ρ_max) + γ      (Prop. 4, shariff2018 reading R2)

All logarithms are natural.  Constants are always computed for the *full* horizon
``n`` of the experiment (``m``, ``α = 1/n``, ``k``, ``c``, ``Υ``, ``γ``); a quick run is a
prefix of ``n_rounds ≤ n`` rounds of the same algorithm (shariff2018 reading R19).

Summary of the formulas (L̃² = L² + B̃², Δ₈ = √d + sqrt(2 log(8n/α)), Δ₂ = √d + sqrt(2 log(2n/α))):

=====================  ============================================================  ========
quantity               formula                                                       spec
=====================  ============================================================  ========
m                      ⌈log2(n) + 1⌉ = 1 + ⌈log2 n⌉                                  §1.2, §11.17
k (paper)              d + 1 + ⌈224·m·ε⁻²·log(8m/δ)·log(2/δ)⌉                        §4.1
k (authors_code)       d + 1 + ⌊28·log(4/δ₀)/ε₀²⌋, δ₀ = δ/(m+1),                     §4.4
                       ε₀ = ε/sqrt(8m·log((m+1)/δ))
Wishart unshifted      ρ_min = L̃²(√(mk) − Δ₈)², ρ_max = L̃²(√(mk) + Δ₈)², γ = L̃·Δ₂   §4.2
c (Eq. 4)              ρ_min − 4L̃²√(mk)·Δ₈                                           §4.3
Wishart shifted        shift −c; ρ'_min = 4L̃²√(mk)Δ₈, ρ'_max = 2ρ'_min,              §4.3
                       γ' = L̃·sqrt(√(mk)·Δ₂) (prop9) or γ·sqrt(ρ_min/ρ'_min) (claim20)
Gaussian σ_noise       4·√m·L̃²·log(4/δ)/ε                                            §5.1
  (exact, beyond)      smallest σ with δ_Gauss(ε; √m·L̃²/σ) ≤ δ (analytic Gaussian)  issue 39
Υ                      σ_noise·sqrt(2m)·(4√d + 2 log(2n/α))                          §5.2
Gaussian               shift +2Υ; ρ_min = Υ, ρ_max = 3Υ,                             §5.2
                       γ = σ_noise·sqrt(m/Υ)·Δ₂
NonPrivate             H = ρ·I (ρ = 1): shift ρ, ρ_min = ρ_max = ρ, γ = 0            §6
target ρ* (Fig. 5)     s = ρ* − ρ⁰_min, ρ_max = ρ⁰_max + s, γ rescaled (Claim 20)    §7.5.1
=====================  ============================================================  ========
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from privopt.mechanisms.tree import tree_levels

__all__ = [
    "VariantParams",
    "VARIANTS",
    "MECHANISMS",
    "MECH_CODES",
    "K_RULES",
    "BANDIT_COUNTERS",
    "gaussian_counter",
    "GAMMA_RULES",
    "default_alpha",
    "wishart_df",
    "gaussian_node_sigma",
    "gaussian_node_sigma_exact",
    "CALIBRATIONS",
    "gaussian_upsilon",
    "nonprivate_params",
    "wishart_params",
    "gaussian_params",
    "variant_params",
    "params_for_rho_min",
    "rho_min_grid",
]

VARIANTS = ("nonprivate", "gaussian", "wishart", "wishart_unshifted")
MECHANISMS = ("none", "gaussian", "wishart")
#: mechanism name → integer code: the kernels' ``mech`` argument and the noise stream's spawn key
MECH_CODES = {name: code for code, name in enumerate(MECHANISMS)}
K_RULES = ("paper", "authors_code")
#: how the Gaussian variant's released noise is made: the paper's path tree, or a continual counter of
#: privopt.mechanisms.counting on the same symmetric Gaussian nodes at the same privacy (``sqrt`` is not
#: offered: its state grows with its band count, which would have to approach the horizon n = 5·10^7)
BANDIT_COUNTERS = ("path", "tree", "honaker", "smooth")
GAMMA_RULES = ("prop9", "claim20")
#: how the Gaussian variant's node σ is calibrated to (ε, δ): the paper's formula (§5.1), or exactly, as the
#: analytic Gaussian mechanism of the m node releases of one item (issue 39, beyond the paper)
CALIBRATIONS = ("paper", "exact")


@dataclass(frozen=True)
class VariantParams:
    """Everything the learner of Algorithm 1 needs for one variant (shariff2018 reading R1).

    Attributes
    ----------
    name : label of the variant ("nonprivate", "gaussian", "wishart", "wishart_unshifted",
        or e.g. "gaussian@rho_min=3.8e+04" for a Fig. 5 grid point).
    mechanism : "none" | "gaussian" | "wishart" — the tree's node-noise distribution.
    n : full horizon the constants are computed for (``α = 1/n`` by default, ``m`` levels).
    d : dimension of the actions.
    m : number of tree levels = number of node noises in every release (``0`` for "none").
    alpha : failure probability α of the confidence sets.
    shift : added to the diagonal of the d×d block: ``V_t = G_t + N_t[:d,:d] + shift·I``
        (−c shifted Wishart, 0 unshifted, +2Υ Gaussian, ρ non-private).
    rho_min, rho_max, gamma : accuracy bounds of Definition 3 used in β_t.
    sigma : sub-Gaussian parameter of the reward noise (1 for ±1 and N(0,1) rewards).
    S : bound on ‖θ*‖.
    L_tilde_sq : L̃² = L² + B̃², scale of the Wishart node noise ``W_{d+1}(L̃²I, k)``.
    df : Wishart degrees of freedom k per node (Wishart only, else 0).
    sigma_noise : standard deviation of the off-diagonal entries of a Gaussian node (else 0).
    eps, delta : privacy parameters (None for non-private).
    counter : how the Gaussian nodes make the released noise (:data:`BANDIT_COUNTERS`): "path", the paper's
        tree (all m levels summed every round), or a continual counter of :mod:`privopt.mechanisms.counting`
        at the same privacy (:func:`gaussian_params`; issue 27, beyond the paper).
    extras : derived reference quantities (c, Υ, unshifted bounds, rules used) for metadata.
    """

    name: str
    mechanism: str
    n: int
    d: int
    m: int
    alpha: float
    shift: float
    rho_min: float
    rho_max: float
    gamma: float
    sigma: float = 1.0
    S: float = 1.0
    L_tilde_sq: float = 2.0
    df: int = 0
    sigma_noise: float = 0.0
    eps: float | None = None
    delta: float | None = None
    counter: str = "path"
    extras: dict = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.mechanism not in MECHANISMS:
            raise ValueError(f"mechanism must be one of {MECHANISMS}, got {self.mechanism!r}")
        if not (self.rho_min > 0 and self.rho_max >= self.rho_min):
            raise ValueError(f"need 0 < rho_min <= rho_max, got {self.rho_min}, {self.rho_max}")
        if self.gamma < 0:
            raise ValueError("gamma must be >= 0")
        if not (0 < self.alpha < 1):
            raise ValueError("alpha must be in (0, 1)")
        if self.mechanism == "wishart" and self.df < self.d + 1:
            raise ValueError("Wishart df must be >= d + 1")
        if self.mechanism == "gaussian" and not self.sigma_noise > 0:
            raise ValueError("Gaussian sigma_noise must be > 0")
        if self.counter not in BANDIT_COUNTERS:
            raise ValueError(f"counter must be one of {BANDIT_COUNTERS}, got {self.counter!r}")
        if self.counter != "path" and self.mechanism != "gaussian":
            raise ValueError(f"counter {self.counter!r} applies to the Gaussian mechanism only (Wishart noise needs "
                             "the path tree's sum of m nodes: docs/continual-counting.md §3)")

    @property
    def kappa(self) -> float:
        """Constant part of β_t under the root: 2·log(2/α) − d·log ρ_min (shariff2018 reading R2)."""
        return 2.0 * math.log(2.0 / self.alpha) - self.d * math.log(self.rho_min)

    @property
    def xi(self) -> float:
        """Constant additive part of β_t: S·sqrt(ρ_max) + γ (shariff2018 reading R2)."""
        return self.S * math.sqrt(self.rho_max) + self.gamma

    def beta(self, logdet_v: float) -> float:
        """β_t of Prop. 4 for a given log det V_t (with the max(0, ·) guard, shariff2018 reading R2)."""
        return self.sigma * math.sqrt(max(0.0, self.kappa + logdet_v)) + self.xi

    def metadata(self) -> dict[str, Any]:
        """Flat dict of the constants (for per-run metadata / parquet columns)."""
        out = {k: v for k, v in asdict(self).items() if k != "extras"}
        out.update({f"x_{k}": v for k, v in self.extras.items()})
        return out


# ----------------------------------------------------------------------------- helpers
def _check_int(value, name: str, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _check_privacy(eps, delta) -> tuple[float, float]:
    eps = float(eps)
    delta = float(delta)
    if not (math.isfinite(eps) and eps > 0):
        raise ValueError(f"eps must be finite and > 0, got {eps}")
    if not (0 < delta < 1):
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    return eps, delta


def default_alpha(n: int) -> float:
    """α = 1/n (paper App. D; shariff2018 reading R11)."""
    return 1.0 / _check_int(n, "n")


def wishart_df(m: int, d: int, eps: float, delta: float, rule: str = "paper") -> int:
    """Wishart degrees of freedom k per tree node (shariff2018 reading R7).

    * ``paper``: k = d + 1 + ⌈224·m·ε⁻²·log(8m/δ)·log(2/δ)⌉ (Thm 8 with (ε₀, δ₀) =
      (ε/sqrt(8m log(2/δ)), δ/(2m)));  139 115 at m = 27, d = 5, ε = 1, δ = 0.1.
    * ``authors_code``: k = d + 1 + ⌊28·log(4/δ₀)/ε₀²⌋ with δ₀ = δ/(m+1),
      ε₀ = ε/sqrt(8m·log((m+1)/δ)) (PrivateBandits.jl bookkeeping); 239 278 at the same point.
    """
    m = _check_int(m, "m")
    d = _check_int(d, "d")
    eps, delta = _check_privacy(eps, delta)
    if rule == "paper":
        return d + 1 + math.ceil(224.0 * m * math.log(8.0 * m / delta) * math.log(2.0 / delta) / eps**2)
    if rule == "authors_code":
        delta0 = delta / (m + 1)
        eps0 = eps / math.sqrt(8.0 * m * math.log((m + 1) / delta))
        return d + 1 + math.floor(28.0 * math.log(4.0 / delta0) / eps0**2)
    raise ValueError(f"k rule must be one of {K_RULES}, got {rule!r}")


def gaussian_node_sigma(m: int, eps: float, delta: float, L_tilde_sq: float = 2.0) -> float:
    """σ_noise = 4·√m·L̃²·log(4/δ)/ε of each Gaussian node entry (paper §4.2, shariff2018 reading R10); 153.34 at paper scale."""
    m = _check_int(m, "m")
    eps, delta = _check_privacy(eps, delta)
    return 4.0 * math.sqrt(m) * L_tilde_sq * math.log(4.0 / delta) / eps


def gaussian_node_sigma_exact(m: int, eps: float, delta: float, L_tilde_sq: float = 2.0) -> float:
    """The smallest σ of each Gaussian node entry at which the paper's own privacy accounting holds exactly (issue
    39, beyond the paper): one item enters m node sums, each changed by at most L̃² in Frobenius norm under the
    paper's model (§4.2: i.i.d. N(0, σ²) per coordinate), so the m releases together are one Gaussian mechanism of
    L2 sensitivity √m·L̃², calibrated by the analytic Gaussian mechanism (Balle & Wang 2018, exact δ(ε)):
    11.28 at m = 27, ε = 1, δ = 0.1 against the paper's 153.34 (:func:`gaussian_node_sigma`)."""
    from privopt.mechanisms.counting import analytic_gaussian_sigma

    m = _check_int(m, "m")
    eps, delta = _check_privacy(eps, delta)
    return analytic_gaussian_sigma(math.sqrt(m) * float(L_tilde_sq), eps, delta)


def gaussian_upsilon(sigma_noise: float, m: int, d: int, n: int, alpha: float) -> float:
    """Υ = σ_noise·sqrt(2m)·(4√d + 2·log(2n/α)) — operator-norm bound of N_t[:d,:d] (shariff2018 reading R10)."""
    return sigma_noise * math.sqrt(2.0 * m) * (4.0 * math.sqrt(d) + 2.0 * math.log(2.0 * n / alpha))


def _common(n, d, alpha):
    n = _check_int(n, "n")
    d = _check_int(d, "d")
    alpha = default_alpha(n) if alpha is None else float(alpha)
    if not (0 < alpha < 1):
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    return n, d, alpha


# ----------------------------------------------------------------------------- variants
def nonprivate_params(n: int, d: int, *, rho: float = 1.0, alpha: float | None = None,
                      sigma: float = 1.0, S: float = 1.0, name: str = "nonprivate") -> VariantParams:
    """NonPrivate LinUCB: H_t = ρ·I, h_t = 0, ρ_min = ρ_max = ρ, γ = 0 (shariff2018 reading R12)."""
    n, d, alpha = _common(n, d, alpha)
    rho = float(rho)
    return VariantParams(name=name, mechanism="none", n=n, d=d, m=0, alpha=alpha, shift=rho,
                         rho_min=rho, rho_max=rho, gamma=0.0, sigma=sigma, S=S)


def _wishart_unshifted_bounds(n, d, alpha, m, k, L_tilde_sq):
    L2 = L_tilde_sq
    smk = math.sqrt(m * k)
    d8 = math.sqrt(d) + math.sqrt(2.0 * math.log(8.0 * n / alpha))
    d2 = math.sqrt(d) + math.sqrt(2.0 * math.log(2.0 * n / alpha))
    rho_min = L2 * (smk - d8) ** 2
    rho_max = L2 * (smk + d8) ** 2
    gamma = math.sqrt(L2) * d2
    return smk, d8, d2, rho_min, rho_max, gamma


def wishart_params(n: int, d: int, eps: float = 1.0, delta: float = 0.1, *, shifted: bool = True,
                   gamma_rule: str = "prop9", k_rule: str = "paper", alpha: float | None = None,
                   L_tilde_sq: float = 2.0, sigma: float = 1.0, S: float = 1.0,
                   name: str | None = None) -> VariantParams:
    """Wishart variants (shariff2018 readings R7–R9): nodes W_{d+1}(L̃²I, k), N_t ~ W_{d+1}(L̃²I, m·k).

    ``shifted=False`` — "WishartUnshifted" (shariff2018 reading R8): shift 0, ρ_min = L̃²(√(mk) − Δ₈)²,
    ρ_max = L̃²(√(mk) + Δ₈)², γ = L̃·Δ₂.

    ``shifted=True`` — "Wishart" (shariff2018 reading R9, Eq. 4): shift −c with c = ρ_min − ρ'_min,
    ρ'_min = 4L̃²√(mk)Δ₈, ρ'_max = 8L̃²√(mk)Δ₈, and γ' by ``gamma_rule``:
    ``prop9`` (Fig. 4 default) γ' = L̃·sqrt(√(mk)·Δ₂); ``claim20`` γ' = γ·sqrt(ρ_min/ρ'_min).
    """
    n, d, alpha = _common(n, d, alpha)
    eps, delta = _check_privacy(eps, delta)
    if gamma_rule not in GAMMA_RULES:
        raise ValueError(f"gamma_rule must be one of {GAMMA_RULES}, got {gamma_rule!r}")
    m = tree_levels(n)
    k = wishart_df(m, d, eps, delta, k_rule)
    smk, d8, d2, rho_min, rho_max, gamma = _wishart_unshifted_bounds(n, d, alpha, m, k, L_tilde_sq)
    if rho_min <= 0 or smk <= d8:
        raise ValueError("Wishart bounds degenerate: sqrt(mk) <= Δ8 (k too small for this n, d)")
    extras = {"k_rule": k_rule, "rho_min_unshifted": rho_min, "rho_max_unshifted": rho_max,
              "gamma_unshifted": gamma}
    rho_min_s = 4.0 * L_tilde_sq * smk * d8
    c = rho_min - rho_min_s
    extras["c"] = c
    if not shifted:
        return VariantParams(name=name or "wishart_unshifted", mechanism="wishart", n=n, d=d, m=m,
                             alpha=alpha, shift=0.0, rho_min=rho_min, rho_max=rho_max, gamma=gamma,
                             sigma=sigma, S=S, L_tilde_sq=L_tilde_sq, df=k, eps=eps, delta=delta,
                             extras=extras)
    if gamma_rule == "prop9":
        gamma_s = math.sqrt(L_tilde_sq) * math.sqrt(smk * d2)
    else:
        gamma_s = gamma * math.sqrt(rho_min / rho_min_s)
    extras["gamma_rule"] = gamma_rule
    return VariantParams(name=name or "wishart", mechanism="wishart", n=n, d=d, m=m, alpha=alpha,
                         shift=-c, rho_min=rho_min_s, rho_max=2.0 * rho_min_s, gamma=gamma_s,
                         sigma=sigma, S=S, L_tilde_sq=L_tilde_sq, df=k, eps=eps, delta=delta,
                         extras=extras)


def gaussian_counter(counter: str, n: int, d: int, sigma_path: float, eps: float, delta: float):
    """The continual counter (:class:`privopt.mechanisms.counting.Counter`) that replaces the paper's path tree at
    the same privacy: T = n items (the released prefixes of rounds 2 … n hold 1 … n − 1 of them) in the packed
    (d+1)×(d+1) triangle without its corner, Gaussian seeds of scale σ_c = σ_path·‖C‖_col,2/√m.

    Same privacy, exactly: either release is a post-processing of C x + Z with i.i.d. symmetric Gaussian node
    matrices Z of scale σ, so its privacy loss is that of a Gaussian mechanism with μ = max_s ‖C e_s‖₂·Δ/σ (Δ the
    Mahalanobis size of one changed item under the node law, the same for both); the path tree's encoder puts
    each item in m nodes (‖C e_s‖₂ = √m), so equal ‖C‖_col,2/σ means equal μ, whatever the paper's σ certifies.
    The counter draws i.i.d. N(0, σ_c²) seeds per packed entry; the kernel multiplies the diagonal entries of
    every release by √2 (a linear map of the seeds: the symmetric node law, diagonal variance 2σ_c²).
    """
    from privopt.mechanisms.counting import encoder_norms, make_counter
    from privopt.mechanisms.smooth_binary import smooth_shape

    if counter not in BANDIT_COUNTERS[1:]:
        raise ValueError(f"counter must be one of {BANDIT_COUNTERS[1:]}, got {counter!r}")
    h, k = smooth_shape(n, "gaussian") if counter == "smooth" else (0, 0)
    _, l2 = encoder_norms(counter, n, height=h, weight=k)
    p = (d + 1) * (d + 2) // 2 - 1
    return make_counter(counter, n, p, 1.0, eps, delta, noise="gaussian",
                        scale=sigma_path * l2 / math.sqrt(tree_levels(n)))


def gaussian_params(n: int, d: int, eps: float = 1.0, delta: float = 0.1, *, alpha: float | None = None,
                    L_tilde_sq: float = 2.0, sigma: float = 1.0, S: float = 1.0, counter: str = "path",
                    calibration: str = "paper", name: str | None = None) -> VariantParams:
    """Gaussian variant (shariff2018 reading R10): symmetric N(0, σ²_noise) nodes, shift +2Υ, ρ_min = Υ, ρ_max = 3Υ,
    γ = s·(√d + sqrt(2 log(2n/α)))/√Υ (Prop. 11, equality form), with s the standard deviation of an off-diagonal
    entry of the released noise and Υ = √2·s·(4√d + 2 log(2n/α)).

    ``counter="path"`` (the paper's): s = σ_noise·√m at every round.  Another counter
    (:data:`BANDIT_COUNTERS`, issue 27, beyond the paper) makes the release from the same kind of nodes at the
    same privacy (:func:`gaussian_counter`; ``sigma_noise`` is then its seed σ_c), and s is the worst case over
    the horizon, max_{t ≤ n} sqrt(Var N_ij(t)) (docs/continual-counting.md §3: Υ, the shift and ρ_min/ρ_max
    scale with s, γ with √s).

    ``calibration="exact"`` (:data:`CALIBRATIONS`; issue 39, beyond the paper): the path tree's node σ is
    :func:`gaussian_node_sigma_exact` instead of the paper's formula, and every bound above follows it by the same
    derivation (Υ, the shift and ρ_min/ρ_max ∝ σ, γ ∝ √σ); a counter is then calibrated from that σ as from the
    paper's.  The name gets ``_exact`` (``gaussian_exact``, ``gaussian_exact_honaker``), the extras the paper's σ."""
    n, d, alpha = _common(n, d, alpha)
    eps, delta = _check_privacy(eps, delta)
    if calibration not in CALIBRATIONS:
        raise ValueError(f"calibration must be one of {CALIBRATIONS}, got {calibration!r}")
    m = tree_levels(n)
    sn = gaussian_node_sigma(m, eps, delta, L_tilde_sq)
    extras = {}
    if calibration == "exact":
        extras = {"calibration": "exact", "sigma_paper": sn}
        sn = gaussian_node_sigma_exact(m, eps, delta, L_tilde_sq)
    if counter == "path":
        ups = gaussian_upsilon(sn, m, d, n, alpha)
    else:
        from privopt.mechanisms.counting import peak_variance

        c = gaussian_counter(counter, n, d, sn, eps, delta)
        entry_sd = math.sqrt(peak_variance(c))
        ups = math.sqrt(2.0) * entry_sd * (4.0 * math.sqrt(d) + 2.0 * math.log(2.0 * n / alpha))
        extras = {**extras, "sigma_path": sn, "entry_sd": entry_sd}
        sn = c.scale
    d2 = math.sqrt(d) + math.sqrt(2.0 * math.log(2.0 * n / alpha))
    # the path's γ in the paper's form σ_noise·sqrt(m/Υ)·Δ₂ (the same number as before, to the last bit)
    gamma = sn * math.sqrt(m / ups) * d2 if counter == "path" else entry_sd * d2 / math.sqrt(ups)
    gamma_loose = math.sqrt(m * L_tilde_sq * (math.sqrt(d) + 2.0 * math.log(2.0 * n / alpha)) / (math.sqrt(2.0) * eps))
    label = "gaussian" + ("_exact" if calibration == "exact" else "") + ("" if counter == "path" else f"_{counter}")
    return VariantParams(name=name or label,
                         mechanism="gaussian", n=n, d=d, m=m, alpha=alpha, shift=2.0 * ups,
                         rho_min=ups, rho_max=3.0 * ups, gamma=gamma, sigma=sigma, S=S,
                         L_tilde_sq=L_tilde_sq, sigma_noise=sn, eps=eps, delta=delta, counter=counter,
                         extras={"upsilon": ups, "gamma_loose": gamma_loose, **extras})


def variant_params(name: str, n: int, d: int, eps: float = 1.0, delta: float = 0.1, *,
                   gamma_rule: str = "prop9", k_rule: str = "paper", alpha: float | None = None,
                   rho: float = 1.0, **kw) -> VariantParams:
    """The four variants of Fig. 4 by name (shariff2018 reading R17):
    "nonprivate" (ρ = 1), "gaussian" (+2Υ), "wishart" (−c, γ' by ``gamma_rule``), "wishart_unshifted"."""
    if name == "nonprivate":
        return nonprivate_params(n, d, rho=rho, alpha=alpha, **kw)
    if name == "gaussian":
        return gaussian_params(n, d, eps, delta, alpha=alpha, **kw)
    if name == "wishart":
        return wishart_params(n, d, eps, delta, shifted=True, gamma_rule=gamma_rule, k_rule=k_rule,
                              alpha=alpha, **kw)
    if name == "wishart_unshifted":
        return wishart_params(n, d, eps, delta, shifted=False, k_rule=k_rule, alpha=alpha, **kw)
    raise ValueError(f"unknown variant {name!r}; expected one of {VARIANTS}")


def params_for_rho_min(mechanism: str, rho_target: float, n: int, d: int, eps: float = 1.0,
                       delta: float = 0.1, *, k_rule: str = "paper", alpha: float | None = None,
                       name: str | None = None, **kw) -> VariantParams:
    """Variant whose shifted regulariser has high-probability lower bound ρ_min = ``rho_target`` (shariff2018 reading R18).

    With (ρ⁰_min, ρ⁰_max, γ⁰) the bounds of the *unshifted* noise block N_t[:d,:d] and
    H_t = N_t[:d,:d] + s·I:  s = ρ* − ρ⁰_min, ρ_min = ρ*, ρ_max = ρ⁰_max + s, and

    * Gaussian (ρ⁰_min = −Υ, ρ⁰_max = +Υ): s = ρ* + Υ, ρ_max = ρ* + 2Υ,
      γ(ρ*) = σ_noise·sqrt(m)·(√d + sqrt(2 log(2n/α)))/sqrt(ρ*)   (= shariff2018 reading R10 at ρ* = Υ);
    * Wishart: γ(ρ*) = γ⁰·sqrt(ρ⁰_min/ρ*) if s ≤ 0 (Claim 20), γ⁰ if s > 0
      (= the proof's γ' of shariff2018 reading R9 at ρ* = ρ'_min, = WishartUnshifted at s = 0).
    """
    rho_target = float(rho_target)
    if not (math.isfinite(rho_target) and rho_target > 0):
        raise ValueError(f"rho_target must be finite and > 0, got {rho_target}")
    label = name or f"{mechanism}@rho_min={rho_target:.4g}"
    if mechanism == "gaussian":
        base = gaussian_params(n, d, eps, delta, alpha=alpha, **kw)
        ups = base.extras["upsilon"]
        d2 = math.sqrt(base.d) + math.sqrt(2.0 * math.log(2.0 * base.n / base.alpha))
        gamma = base.sigma_noise * math.sqrt(base.m) * d2 / math.sqrt(rho_target)
        extras = dict(base.extras, rho_target=rho_target)
        return replace(base, name=label, shift=rho_target + ups, rho_min=rho_target,
                       rho_max=rho_target + 2.0 * ups, gamma=gamma, extras=extras)
    if mechanism == "wishart":
        base = wishart_params(n, d, eps, delta, shifted=False, k_rule=k_rule, alpha=alpha, **kw)
        r0, R0, g0 = base.rho_min, base.rho_max, base.gamma
        s = rho_target - r0
        gamma = g0 * math.sqrt(r0 / rho_target) if s <= 0 else g0
        extras = dict(base.extras, rho_target=rho_target, gamma_rule="claim20")
        return replace(base, name=label, shift=s, rho_min=rho_target, rho_max=R0 + s, gamma=gamma,
                       extras=extras)
    raise ValueError(f"mechanism must be 'gaussian' or 'wishart', got {mechanism!r}")


def rho_min_grid(n: int, d: int, eps: float = 1.0, delta: float = 0.1, *, k_rule: str = "paper",
                 alpha: float | None = None, include_shifted_wishart: bool = True, **kw) -> np.ndarray:
    """Fig. 5 ρ_min grid (shariff2018 reading R18): ρ_i = lo·(hi/lo)^((i−1)/5), i = 0..7, lo = Υ (Gaussian default),
    hi = unshifted-Wishart ρ_min, plus the shifted-Wishart ρ'_min as a 9th point; sorted ascending.

    Paper constants: {3.800e4, 9.155e4, 1.690e5, 2.205e5, 5.313e5, 1.280e6, 3.083e6, 7.428e6, 1.789e7}.
    """
    lo = gaussian_params(n, d, eps, delta, alpha=alpha, **kw).rho_min
    wu = wishart_params(n, d, eps, delta, shifted=False, k_rule=k_rule, alpha=alpha, **kw)
    hi = wu.rho_min
    grid = [lo * (hi / lo) ** ((i - 1) / 5.0) for i in range(8)]
    if include_shifted_wishart:
        grid.append(4.0 * wu.L_tilde_sq * math.sqrt(wu.m * wu.df)
                    * (math.sqrt(wu.d) + math.sqrt(2.0 * math.log(8.0 * wu.n / wu.alpha))))
    return np.array(sorted(grid))
