"""White-box noise-law audits: the released Gaussian noise against its calibrated law, sized for power.

The black-box audits (:mod:`privopt.audit.tree`) cannot see a noise scale that is too small when the paper's
calibration is loose (the Shariff & Sheffet tree spends a small part of its (1, 0.1), so σ/√2 is still private
and passes).  These audits read the noise the code actually releases and test its law.

Releases audited
----------------
* ``bandit_*``: Shariff & Sheffet's private LinUCB, run through :func:`privopt.bandits.episodes.run_lockstep`
  beside Figure 4's other three variants, with every round audited; the kernel's own audit rows
  (``EpisodeResult.extra["audit_raw"]``) hold the released H_t = N_t[:d,:d] + shift·I and h_t = N_t[:d,d], which
  carry no data (the kernel adds G_t and u_t after), so N_t is read exactly.  All four run the kernel the
  pipeline runs at this d (the lockstep kernel of Figures 4 and 5, with Figure 4's four lanes; the on-the-fly
  reference kernel releases the same noise bit for bit, which the kernel tests check).  ``bandit_path``: the
  paper's path tree at its own horizon n = 5·10^7 (m = 27 levels) over the first rounds;
  ``bandit_tree``/``bandit_honaker``/``bandit_smooth``: the continual counters that replace it (issue 27) at
  horizon 512.
* ``counter_*``: every Gaussian continual counter of :mod:`privopt.mechanisms.counting` (``tree``, ``honaker``,
  ``sqrt``, ``smooth``) through :func:`~privopt.mechanisms.counting.prefix_noise`, the numba steps the
  learners call.

The law.  Entry (i, j) of the released matrix, as a sequence over the rounds, is Gaussian with covariance
v_ij·S: v = 2σ² on the diagonal and σ² off it (the symmetric node law; the counters' seeds are i.i.d. N(0, σ²)
and the bandit kernel multiplies their diagonal by √2), S = the number of node noises two releases share
(``shared_path_levels`` for the path tree, B Bᵀ from :func:`~privopt.mechanisms.counting.linear_maps` for a
counter).  Whitening each entry's sequence by the Cholesky factor of v_ij·S gives i.i.d. N(0, 1) under the
correct law, so the sum of squares over a group of entries (diagonal, off-diagonal) is χ²_k, k the number of
whitened values.  A scale error c (noise c·σ) makes it c²·χ²_k.

The test.  Two-sided per group at a total false-alarm rate α = :data:`ALPHA` = 10⁻³ (Bonferroni: α/(2G) per
tail over G groups).  Sized from the χ² law (:func:`required_dof`): the smallest k such that c²·χ²_k falls
below the lower α/(2G) quantile of χ²_k with probability ≥ :data:`POWER` = 0.99 for c = 0.9 (the subtle bug;
c = 1/√2, the planted one, needs k = 149).  Two groups (tails of 2.5·10⁻⁴): k = 1 542 per group; one group
(tails of 5·10⁻⁴): k = 1 440.  Each row's ``tightness_note`` repeats its k.
Each audit draws the fewest independent replicates (episodes, counter runs) that give every group k whitened
values.  Rows: "correct" (the code as it is: pass unless a group rejects), "planted" (σ/√2) and "subtle"
(0.9σ), both caught when a group rejects; columns as :data:`privopt.audit.core.COLUMNS` (``eps_lb`` and
``exact_eps`` NaN: no ε is estimated; ``event`` gives each group's variance ratio and two-sided p-value).

Randomness: replicate e of variant v of audit a uses ``seed_sequence("audit", a, {"variant": v, "replicate":
e}, seed)``, so the rows are a deterministic function of the seed.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from scipy import stats
from scipy.linalg import solve_triangular

from privopt.audit.core import result_word
from privopt.seeding import seed_sequence

__all__ = ["ALPHA", "POWER", "SUBTLE", "PLANTED", "NoiseLawAudit", "required_dof", "scale_test", "whiten",
           "noise_law_audits"]

#: total false-alarm rate of one audit (all groups, both tails)
ALPHA = 1e-3
#: power demanded against each planted scale error
POWER = 0.99
#: noise scale factors of the planted bugs
PLANTED, SUBTLE = 1.0 / math.sqrt(2.0), 0.9
_FACTOR = {"correct": 1.0, "planted": PLANTED, "subtle": SUBTLE}


def required_dof(c: float, alpha_tail: float, power: float = POWER) -> int:
    """Smallest k with P(c²·χ²_k < q) ≥ power, q the lower ``alpha_tail`` quantile of χ²_k (c < 1)."""
    if not 0 < c < 1:
        raise ValueError(f"c must lie in (0, 1), got {c!r}")

    def ok(k: int) -> bool:
        return stats.chi2.cdf(stats.chi2.ppf(alpha_tail, k) / c**2, k) >= power

    hi = 1
    while not ok(hi):
        hi *= 2
    lo = hi // 2
    while hi - lo > 1:  # the power grows with k: bisect on the integers
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def whiten(x: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """L⁻¹x for cov = L Lᵀ (x: (R, q) sequences in columns; cov: (R, R))."""
    return solve_triangular(np.linalg.cholesky(cov), x, lower=True)


def scale_test(groups: Mapping[str, np.ndarray], alpha: float = ALPHA) -> tuple[bool, str]:
    """Two-sided χ² scale test of each group of whitened values (Bonferroni over groups and tails).

    Returns (reject, description): description lists per group k, the variance ratio S/k and the two-sided
    p-value min(1, 2·min(P(χ²_k ≤ S), P(χ²_k ≥ S))), against the per-group level α/G."""
    reject, parts = False, []
    for name, z in groups.items():
        k = z.size
        s = float(np.sum(z * z))
        p = min(1.0, 2.0 * min(stats.chi2.cdf(s, k), stats.chi2.sf(s, k)))
        reject |= p < alpha / len(groups)
        parts.append(f"{name}: k = {k}, var ratio {s / k:.4f}, p = {p:.3g}")
    return reject, f"χ² scale test at α = {alpha:g} (per group α/{len(groups)}): " + "; ".join(parts)


@dataclass(frozen=True)
class NoiseLawAudit:
    """One release's noise law.  ``draw(factor, ss)`` returns one replicate's whitened values per group, the
    release's noise scale multiplied by ``factor`` (1 = the code as it is); ``dof`` the values per group of a
    replicate."""

    name: str
    mechanism: str
    paper: str
    instance: str
    eps: float
    delta: float
    dof: Mapping[str, int]
    draw: Callable[[float, np.random.SeedSequence], Mapping[str, np.ndarray]]
    bug: str = "noise scale σ/√2"
    subtle_bug: str = "noise scale 0.9σ"

    def k_required(self) -> int:
        return required_dof(SUBTLE, ALPHA / (2 * len(self.dof)))

    def replicates(self) -> int:
        return max(1, math.ceil(self.k_required() / min(self.dof.values())))

    def run(self, variant: str, seed: int = 0) -> tuple[bool, str, int]:
        """(reject, description, replicates) of one configuration."""
        reps = self.replicates()
        parts: dict[str, list[np.ndarray]] = {g: [] for g in self.dof}
        for e in range(reps):
            ss = seed_sequence("audit", self.name, {"variant": variant, "replicate": e}, seed)
            for g, z in self.draw(_FACTOR[variant], ss).items():
                parts[g].append(np.ravel(z))
        reject, text = scale_test({g: np.concatenate(v) for g, v in parts.items()})
        return reject, text, reps

    def rows(self, seed: int = 0) -> list[dict]:
        """The audit-table rows (correct, planted, subtle), columns :data:`privopt.audit.core.COLUMNS`."""
        out = []
        for variant in ("correct", "planted", "subtle"):
            reject, text, reps = self.run(variant, seed)
            result = result_word(variant, reject)
            out.append({
                "audit": self.name, "variant": variant, "mechanism": self.mechanism, "paper": self.paper,
                "instance": self.instance, "relation": "white-box: the released noise against its calibrated law",
                "bug": {"correct": "", "planted": self.bug, "subtle": self.subtle_bug}[variant],
                "claimed_eps": self.eps, "claimed_delta": self.delta, "eps_lb": float("nan"),
                "confidence": 1.0 - ALPHA, "exact_eps": float("nan"), "tightness": "tight",
                "tightness_note": (f"χ² law of the whitened noise: k = {self.k_required()} values per group catch "
                                   f"{SUBTLE:g}σ (and σ/√2) with power ≥ {POWER:g} at false-alarm rate {ALPHA:g}; "
                                   f"{reps} replicate(s)"),
                "samples": int(reps), "result": result, "event": text})
        return out


# ----------------------------------------------------------------------------- the bandit kernel
BANDIT_D = 5
PATH_N, PATH_ROUNDS = 50_000_000, 400
COUNTER_N = 512


def _bandit_entries(d: int) -> tuple[np.ndarray, np.ndarray]:
    """Masks over the kernel's packed noise (H lower triangle, then h) of the diagonal entries, and the
    per-entry variance factor (2 on the diagonal, 1 off it)."""
    pd_ = d * (d + 1) // 2
    diag = np.zeros(pd_ + d, dtype=bool)
    for i in range(d):
        diag[i * (i + 1) // 2 + i] = True
    return diag, np.where(diag, 2.0, 1.0)


def _bandit_noise(variant, n_rounds: int, ss) -> np.ndarray:
    """(n_rounds, d(d+1)/2 + d) released noise of rounds 1..n_rounds (H − shift·I packed, then h).

    The kernel runs as Figures 4 and 4c run it: four variants of a seed in lockstep, here the audited one in lane
    0 beside Figure 4's three others at the same n and d — the kernel those figures' run jobs compile (run alone
    it needs the one-lane d = 5 kernel, which no quick-scale run job uses: about 12 CPU-s of compilation for the
    audit alone).  Every noise group draws from a stream of its own, so the audited lane releases the same noise,
    bit for bit, as the variant run alone (:func:`privopt.bandits.episodes.run_lockstep`, checked by the kernel
    tests)."""
    from privopt.bandits.episodes import run_lockstep
    from privopt.bandits.instances import BanditInstance
    from privopt.bandits.kernels import audit_layout
    from privopt.bandits.parameters import VARIANTS, variant_params

    d = variant.d
    others = [variant_params(name, variant.n, d) for name in VARIANTS if name != "gaussian"]
    res = run_lockstep([variant, *others], BanditInstance(d=d, K=2), n_rounds, ss, audit=np.arange(1, n_rounds + 1))[0]
    raw = res.extra["audit_raw"]
    lay = audit_layout(d)
    H = raw[:, lay["H"]].copy()
    diag, _ = _bandit_entries(d)
    H[:, diag[: H.shape[1]]] -= variant.shift
    return np.hstack([H, raw[:, lay["h"]]])


def _bandit_path_audit() -> NoiseLawAudit:
    from privopt.bandits.parameters import gaussian_params
    from privopt.mechanisms.tree import shared_path_levels

    v0 = gaussian_params(PATH_N, BANDIT_D)
    R, m, sigma = PATH_ROUNDS, v0.m, v0.sigma_noise
    S = np.array([[shared_path_levels(s, t, m) for t in range(R)] for s in range(R)], dtype=float)
    L = np.linalg.cholesky(S)
    diag, var = _bandit_entries(BANDIT_D)

    def draw(factor, ss):
        x = _bandit_noise(dataclasses.replace(v0, sigma_noise=sigma * factor), R, ss)
        z = solve_triangular(L, x, lower=True) / (sigma * np.sqrt(var))
        return {"diagonal": z[:, diag], "off-diagonal": z[:, ~diag]}

    return NoiseLawAudit(
        name="bandit_path", mechanism="Shariff & Sheffet's LinUCB kernel: path-tree Gaussian node noise "
        "(privopt.bandits.lockstep, the kernel of Figures 4 and 5)", paper="shariff2018",
        instance=f"n = {PATH_N:.0e} (m = {m} levels, σ = {sigma:.2f}), d = {BANDIT_D}, rounds 1–{R} of each episode",
        eps=v0.eps, delta=v0.delta, dof={"diagonal": R * int(diag.sum()), "off-diagonal": R * int((~diag).sum())},
        draw=draw)


def _bandit_counter_audit(counter: str) -> NoiseLawAudit:
    from privopt.bandits.parameters import gaussian_counter, gaussian_params
    from privopt.mechanisms.counting import linear_maps

    v0 = gaussian_params(COUNTER_N, BANDIT_D, counter=counter)
    sigma_path, sigma = v0.extras["sigma_path"], v0.sigma_noise
    B, _ = linear_maps(gaussian_counter(counter, COUNTER_N, BANDIT_D, sigma_path, v0.eps, v0.delta))
    R = COUNTER_N  # rounds 2..R release the prefixes 1..R−1
    L = np.linalg.cholesky(B[: R - 1] @ B[: R - 1].T)
    diag, var = _bandit_entries(BANDIT_D)

    def draw(factor, ss):
        # a planted scale error enters through the path σ the counter is calibrated from (the kernel checks that
        # the variant's σ is its counter's calibrated one), so the kernel runs exactly as it would with that bug
        planted = gaussian_counter(counter, COUNTER_N, BANDIT_D, sigma_path * factor, v0.eps, v0.delta)
        v = dataclasses.replace(v0, sigma_noise=planted.scale, extras={**v0.extras, "sigma_path": sigma_path * factor})
        x = _bandit_noise(v, R, ss)
        z = solve_triangular(L, x[1:], lower=True) / (sigma * np.sqrt(var))
        return {"diagonal": z[:, diag], "off-diagonal": z[:, ~diag]}

    return NoiseLawAudit(
        name=f"bandit_{counter}", mechanism=f"Shariff & Sheffet's LinUCB kernel with the '{counter}' continual "
        "counter (privopt.bandits.lockstep, issue 27)", paper="shariff2018",
        instance=f"n = {COUNTER_N} (σ_c = {sigma:.2f}), d = {BANDIT_D}, rounds 1–{R} of each episode",
        eps=v0.eps, delta=v0.delta,
        dof={"diagonal": (R - 1) * int(diag.sum()), "off-diagonal": (R - 1) * int((~diag).sum())}, draw=draw)


# ----------------------------------------------------------------------------- the counters themselves
COUNTER_T, COUNTER_P, COUNTER_EPS, COUNTER_DELTA = 64, 8, 1.0, 1e-6


def _counter_audit(name: str) -> NoiseLawAudit:
    from privopt.mechanisms.counting import linear_maps, make_counter, prefix_noise

    c0 = make_counter(name, COUNTER_T, COUNTER_P, 1.0, COUNTER_EPS, COUNTER_DELTA, noise="gaussian")
    B, _ = linear_maps(c0)
    L = np.linalg.cholesky(B @ B.T)

    def draw(factor, ss):
        c = dataclasses.replace(c0, scale=c0.scale * factor)
        return {"all": solve_triangular(L, prefix_noise(c, ss), lower=True) / c0.scale}

    return NoiseLawAudit(
        name=f"counter_{name}", mechanism=f"Gaussian continual counter '{name}' (privopt.mechanisms.counting."
        "prefix_noise)", paper="shariff2018",
        instance=f"T = {COUNTER_T}, p = {COUNTER_P}, Δ = 1, (ε, δ) = ({COUNTER_EPS:g}, {COUNTER_DELTA:g}), "
        f"σ = {c0.scale:.4g}", eps=COUNTER_EPS, delta=COUNTER_DELTA, dof={"all": COUNTER_T * COUNTER_P}, draw=draw)


def noise_law_audits() -> list[NoiseLawAudit]:
    """Every Gaussian release's noise-law audit, in table order."""
    return [_bandit_path_audit(), *(_bandit_counter_audit(c) for c in ("tree", "honaker", "smooth")),
            *(_counter_audit(c) for c in ("tree", "honaker", "sqrt", "smooth"))]
