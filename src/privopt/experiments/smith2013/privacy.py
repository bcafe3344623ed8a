"""Privacy checks of the Smith & Thakurta mechanisms, each with a planted bug that must be caught.

TBAP (the dyadic tree with ℓ2-Laplace nodes, :mod:`privopt.mechanisms.tbap`) releases the private prefix
sums that PFTAL and bandit PFTAL post-process (ST Thm 3 and 5: adaptive composition over the ≤ K noised
nodes an item lies in).  Checks, one row each for the correct configuration and for the planted bug:

* ``tbap_l2laplace`` (black-box audit, :func:`privopt.audit.core.run_audit`): the numba TBAP path every
  run uses (:func:`privopt.mechanisms.tbap.tbap_releases`), d = 2, T = 4 (K = 3), μ = 1, ε = 1; neighbouring
  item streams differ in item 1 (μe₁ vs −μe₁, ‖Δ‖ = 2μ: one loss replaced), which lies in K noised nodes;
  the output is all four releases.  Exact ε of the pair: Σ over the nodes holding item 1 of ‖Δ‖/λ
  (:func:`privopt.mechanisms.tree.dyadic_leaf_nodes`; the ℓ2-Laplace loss (‖y − s'‖ − ‖y − s‖)/λ
  reaches ‖Δ‖/λ along the ray, and the releases are an invertible map of the node sums) = 1.
  Planted bugs: blatant, c_sens = 1, the density printed by Rivera Cardoso & Cummings (smith2013 reading R3), which
  calibrates to ‖Δ‖ ≤ μ although replacement moves an item by 2μ: exact ε = 2; subtle, the node scale
  λ/√2 (e.g. K counted as ⌈log₂ T⌉ ≈ 2 instead of 3 levels, or √2 lost in a norm): exact ε = √2.
  Statistic: the node-wise privacy loss (:func:`tbap_node_loss`), the sum over the noised nodes holding
  item 1 of the log-density ratio (‖y − s'‖ − ‖y − s‖)/λ of the node value y recovered from the
  releases (y = v̂_e − v̂_{e−2^ℓ} for the node (ℓ, j) ending at e), s and s' its sums on the two inputs:
  this is the exact privacy loss of the released stream (the node noises are independent and the
  releases an invertible map of the nodes), so its level sets are the most powerful events.
  Samples (quick): with d = 1 the loss has an atom at its maximum (all three nodes beyond both sums),
  and 10^5 per input give ε_lb ≈ 0.9 × the exact ε (4·10^4: 0.85–0.93 over seeds 0–3).  With d = 2
  the maximum is only approached along the ray: from the event probabilities of the loss level sets
  (2·10^6 draws) the Clopper–Pearson bound of the best event {loss ≥ c} is 0.71 at 5·10^4 held-out
  draws, 0.78 at 1.5·10^5 and 0.85 at 5·10^5, so d = 2 runs 10^6 per input (the tests check 0.8 and
  the subtle bug at fixed seeds).
* ``tbap_laplace_d1``: the same with d = 1 (ℓ2-Laplace = Laplace).
* ``pftal_gradient_bound`` (runtime guard): PFTAL (distance loss, H*, ε = 1, T = 1024) on points
  uniform in the unit disk; the kernel records max_t ‖z_t‖/μ and :func:`privopt.online.pftal.full.run_pftal`
  raises when it exceeds 1 (the noise would then not give the claimed ε).  Correct: μ = L + Hρ_C, the
  bound of the regularised gradient ∇f + Hŵ.  Planted bug: μ = L (forgetting the regulariser's Hρ_C,
  the kind of under-noising cardoso2019 reading R5 finds in Rivera Cardoso & Cummings' Thm 9): the guard must fire.

Rows have the columns of :data:`privopt.audit.core.COLUMNS` plus ``check`` (black-box / runtime guard).
The two audits are also the paper's declared audits (:func:`audits`, ``Paper.audits``: the pipeline's
audit table and the report); the ``privacy`` experiment runs them again with the guard, as a table the
claims P1.a/P1.b can read (claims read only experiment tables).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from privopt import seeding
from privopt.audit.core import COLUMNS, Audit, run_audit, variant_name
from privopt.experiments.smith2013.streams import PAPER, replica_states
from privopt.mechanisms.tree import dyadic_leaf_nodes
from privopt.online.pftal.full import pftal_setup, run_pftal
from privopt.mechanisms.tbap import tbap_releases, tbap_scale

__all__ = ["EPS", "MU", "T_AUDIT", "AUDIT_SAMPLES", "tbap_items", "tbap_exact_eps", "tbap_node_loss", "tbap_audit",
           "audits", "gradient_bound_check", "privacy_job"]

EPS = 1.0
MU = 1.0
T_AUDIT = 4
RELATION = "one loss f_t replaced (ST Def. 2): item 1 of TBAP moves by up to 2μ"
COLUMNS_OUT = ["check", *COLUMNS]


def tbap_items(d: int, T: int = T_AUDIT) -> tuple[np.ndarray, np.ndarray]:
    """The two neighbouring item streams: item 1 = ±μe₁, items 2..T fixed (0.3μ, alternating axes and signs)."""
    items = np.zeros((T, d))
    for t in range(1, T):
        items[t, t % d] = 0.3 * MU * (-1) ** t
    a, b = items.copy(), items.copy()
    a[0, 0], b[0, 0] = MU, -MU
    return a, b


def _c_sens(variant) -> float:
    return 1.0 if variant_name(variant) == "planted" else 2.0


def _lam(variant, T: int = T_AUDIT) -> float:
    """Node scale of each configuration: correct (c_sens = 2), planted (c_sens = 1), subtle (correct λ/√2)."""
    lam = tbap_scale(MU, EPS, T, _c_sens(variant))
    return lam / math.sqrt(2.0) if variant_name(variant) == "subtle" else lam


def tbap_exact_eps(d: int, variant, T: int = T_AUDIT) -> float:
    """Σ over the noised nodes holding item 1 of ‖Δ‖/λ (the exact ε of the released stream)."""
    a, b = tbap_items(d, T)
    return len(dyadic_leaf_nodes(1, T)) * float(np.linalg.norm(a[0] - b[0])) / _lam(variant, T)


def tbap_node_loss(releases: np.ndarray, d: int, T: int = T_AUDIT) -> np.ndarray:
    """Node-wise privacy loss of TBAP releases ((n, T·d) or (n, T, d)) under the correct λ: Σ over the
    noised nodes (ℓ, j) holding item 1 of (‖y − s'‖ − ‖y − s‖)/λ, y = v̂_e − v̂_{e−2^ℓ} (e = (j+1)·2^ℓ,
    v̂_0 = 0) the node's noisy value, s and s' its true sums on the two inputs (module docstring)."""
    a, b = tbap_items(d, T)
    lam = _lam("correct", T)
    v = np.asarray(releases, dtype=np.float64).reshape(-1, T, d)
    loss = np.zeros(v.shape[0])
    for level, j in dyadic_leaf_nodes(1, T):
        lo, hi = j << level, (j + 1) << level
        y = v[:, hi - 1] - v[:, lo - 1] if lo > 0 else v[:, hi - 1]
        s, s_prime = a[lo:hi].sum(axis=0), b[lo:hi].sum(axis=0)
        loss += (np.linalg.norm(y - s_prime, axis=1) - np.linalg.norm(y - s, axis=1)) / lam
    return loss


def tbap_audit(d: int, samples: int) -> Audit:
    """The black-box audit of TBAP in R^d (module docstring)."""
    pair = tbap_items(d)

    def sampler(variant: str, which: int, n: int, rng: np.random.Generator) -> np.ndarray:
        lam = _lam(variant)
        states = rng.integers(1, 2**63, size=(n, 4), dtype=np.uint64)
        return tbap_releases(pair[which], lam, states).reshape(n, -1)

    name = "tbap_l2laplace" if d > 1 else "tbap_laplace_d1"
    return Audit(name=name, mechanism=f"TBAP (dyadic tree, l2-Laplace nodes, numba tbap_add), d = {d}, c_sens = 2",
                 paper=PAPER, instance=f"T = {T_AUDIT} items in R^{d} (K = 3 levels), mu = 1: item 1 = +mu e1 vs "
                 "-mu e1, items 2..4 fixed; output = the 4 releases",
                 relation=RELATION, eps=EPS, delta=0.0, kind="continuous",
                 bug="c_sens = 1 (noise for |z - z'| <= mu, RC Alg. 3 as printed)", sampler=sampler,
                 subtle_bug="node scale lambda / sqrt 2 (exact eps sqrt 2)",
                 samples={"quick": samples, "paper": 4 * samples},
                 exact=lambda variant: tbap_exact_eps(d, variant),
                 exact_note="sum over the noised nodes holding item 1 of |Delta|/lambda",
                 labels=tuple(f"v{t}[{i}]" for t in range(1, T_AUDIT + 1) for i in range(d)),
                 statistic=lambda out: tbap_node_loss(out, d),
                 statistic_note="node-wise privacy loss: sum over item 1's nodes of the l2-Laplace log-density ratio",
                 tightness="tight", tightness_note="exact eps of the instance = the claim (1.0)")


#: quick-scale samples per input of each audit (module docstring: ε_lb ≥ 0.8 × exact, the subtle bug caught)
AUDIT_SAMPLES = {2: 1_000_000, 1: 100_000}


def audits() -> list[Audit]:
    """The black-box audits this paper declares (``Paper.audits``; run by the ``smith2013_audit`` rule)."""
    return [tbap_audit(d, AUDIT_SAMPLES[d]) for d in (2, 1)]


def gradient_bound_check(planted: bool, seed: int, T: int = 1024, n_runs: int = 8) -> dict:
    """The runtime guard of PFTAL's gradient bound (module docstring); a row of the privacy table."""
    rng = seeding.rng(PAPER, "privacy/points", {"T": T}, seed)
    radius = np.sqrt(rng.random((n_runs, T)))
    angle = 2 * math.pi * rng.random((n_runs, T))
    pts = np.column_stack([(radius * np.cos(angle)).ravel(), (radius * np.sin(angle)).ravel()])
    idx = np.arange(n_runs * T, dtype=np.int64).reshape(n_runs, T)
    setup = pftal_setup("gc", T, 2, EPS)
    if planted:
        setup = dataclasses.replace(setup, mu=setup.L, lam=tbap_scale(setup.L, EPS, T))
    states = replica_states("privacy", "noise", [{"T": T, "planted": planted}] * n_runs, list(range(n_runs)))
    try:
        out = run_pftal(pts, idx, np.arange(n_runs), [setup] * n_runs, states)
        fired, detail = False, f"max |z_t|/mu = {float(out['max_ratio'].max()):.4f}"
    except ValueError as err:
        fired, detail = True, f"guard fired: {err}"
    if planted:
        result = "caught" if fired else "missed"
    else:
        result = "VIOLATION" if fired else "pass"
    return {"check": "runtime guard", "audit": "pftal_gradient_bound", "variant": "planted" if planted else "correct",
            "mechanism": f"PFTAL (distance loss, H* = {setup.H:.4g}, mu = {setup.mu:.4g}), numba kernel",
            "paper": PAPER, "instance": f"{n_runs} runs of T = {T} points uniform in the unit disk, eps = {EPS}",
            "relation": RELATION, "bug": "mu = L (regulariser term H*rho missing)" if planted else "",
            "claimed_eps": EPS, "claimed_delta": 0.0, "eps_lb": math.nan, "confidence": math.nan,
            "exact_eps": math.nan, "samples": n_runs, "result": result, "event": detail}


def privacy_job(experiment, point, settings, seeds, inputs):
    """Every check, correct then planted then subtle (the run job of the ``privacy`` experiment).

    ``samples`` is the d = 1 audit's count; d = 2 draws in the ratio of :data:`AUDIT_SAMPLES` (10×:
    its loss reaches the maximum only along a ray, module docstring)."""
    samples, seed = int(settings["samples"]), int(settings["seed"])
    rows = []
    for d in (2, 1):
        n = samples * AUDIT_SAMPLES[d] // AUDIT_SAMPLES[1]
        audit = tbap_audit(d, n)
        for variant in audit.variants():
            rows.append({"check": "black-box audit", **run_audit(audit, variant, n, seed)})
    for planted in (False, True):
        rows.append(gradient_bound_check(planted, seed))
    return {"runs": pd.DataFrame(rows, columns=COLUMNS_OUT)}
