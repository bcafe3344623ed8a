"""Audit descriptions, one audit run, and the table of a list of audits (:func:`run_audits`).

An :class:`Audit` names a private mechanism of ``privopt`` on a small instance: the paper
whose privacy claim is checked, the neighbouring relation used, the claimed (ε, δ), a
sampler of the mechanism's output on the two neighbouring inputs — as implemented
("correct"), with a blatant planted bug ("planted", a ×2 or larger violation) and, where the
instance is tight, with a *subtle* planted bug ("subtle": noise scale ×1/√2, or the paper's
printed constant alone) — and, where the output law is exactly computable, the exact ε of the
pair (a white-box check).

The audit's *statistic* (``Audit.statistic``), where given, is (close to) the optimal one: the
privacy loss log p_D(x)/p_D'(x) of the correct mechanism's output law (the exact log-ratio of a
discrete outcome, the node-wise sum of log-density ratios of a tree's released nodes, …); the
events are its level sets {t ≥ c}, {t ≤ c} (:func:`privopt.audit.events.audit_statistic`).  It is
rounded to :data:`STAT_DECIMALS` decimals first: the events then cannot be built from the
last-bit rounding patterns of the float outputs (a distinguisher of the floating-point
representation, Mironov 2012, which the real-arithmetic claims do not cover: unrounded, the
node-wise loss of TBAP with d = 1 shows ε_lb 1.58 > 1 at 3·10^5 samples from the rounding of
|y − s'| − |y − s| on its atom alone).  Without a statistic the generic families of
:mod:`privopt.audit.events` are used (discrete outcome unions, Fisher's linear statistic).

``Audit.tightness`` says what the audit can show: "tight" (the exact ε of the instance is
close to the claim, and the subtle bug is a real violation that the audit must catch),
"loose" (the claim itself is loose on every tractable instance: a composition theorem or a
conservative calibration, so the exact ε of the pair is far below the claim and no subtle bug
violates it) or "diluted" (the mechanism spreads the leakage of one neighbour over internal
randomness that is not released — the bandit learners — so even a real ×2 bug is far below the
claim on a tractable instance).  ``tightness_note`` gives the numbers.

:func:`run_audit` draws ``n`` outputs on each input, chooses events on one half and bounds
ε on the other (:mod:`privopt.audit.events`).  The verdict of a correct configuration is
"pass" when ε_lb ≤ claimed ε, otherwise "VIOLATION" (the mechanism leaks more than it
claims, with confidence 1 − α); a planted bug (blatant or subtle) is "caught" when
ε_lb > claimed ε, otherwise "missed".

Randomness: the samples of (audit, variant, input) come from
``privopt.seeding.seed_sequence("audit", audit.name, {"variant": …, "input": …,
"samples": n}, seed)`` — the table is a deterministic function of the seed and the
sample counts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privopt.audit.events import Evidence, audit_continuous, audit_discrete, audit_statistic
from privopt.seeding import seed_sequence

__all__ = ["Audit", "COLUMNS", "SCALES", "STAT_DECIMALS", "TIGHTNESS", "VARIANTS", "evidence", "run_audit",
           "run_audits", "samples_for", "variant_name"]

#: Columns of the audit table, in order.
COLUMNS = [
    "audit",
    "variant",
    "mechanism",
    "paper",
    "instance",
    "relation",
    "bug",
    "claimed_eps",
    "claimed_delta",
    "eps_lb",
    "confidence",
    "exact_eps",
    "tightness",
    "tightness_note",
    "samples",
    "result",
    "event",
]

SCALES = ("quick", "paper")

#: the configurations of an audit: as implemented, the blatant planted bug, the subtle planted bug
VARIANTS = ("correct", "planted", "subtle")
#: what an audit can show (module docstring)
TIGHTNESS = ("tight", "loose", "diluted")
#: the audit statistic is rounded to this many decimals (module docstring: no floating-point events)
STAT_DECIMALS = 9

# sampler(variant, which, n, rng) -> outputs of M on input `which` (0 = D, 1 = D'); variant in VARIANTS
Sampler = Callable[[str, int, int, np.random.Generator], np.ndarray]


@dataclass(frozen=True)
class Audit:
    """One audited mechanism on one instance.

    name: identifier (also the key of its random streams).
    mechanism: what is audited (library function and options).
    paper: ``chaturvedi2021`` or ``shariff2018``.
    instance: the neighbouring inputs, in words.
    relation: the neighbouring relation, as the paper defines it.
    eps, delta: the claimed privacy of the correct configuration.
    kind: "discrete" (int64 outcome codes) or "continuous" ((n, k) floats).
    bug: the blatant planted bug, in words.
    sampler: ``sampler(variant, which, n, rng)``, n outputs on D (which = 0) or D' (1) of the
        configuration ``variant`` ("correct", "planted" or "subtle").
    exact: ``exact(variant) -> float`` exact ε of the pair at the claimed δ, or None.
    exact_note: what ``exact`` computes.
    samples: samples per input for each scale ("quick", "paper").
    describe: renders a discrete event (tuple of codes); labels: names of continuous coordinates.
    subtle_bug: the subtle planted bug, in words ("" = none: no "subtle" row).
    statistic: ``statistic(outputs) -> (n,) floats``, the privacy loss (or a monotone proxy) of the
        correct mechanism, fixed before sampling (it never sees the variant); None = generic events.
    statistic_note: what ``statistic`` computes.
    tightness, tightness_note: one of :data:`TIGHTNESS` and why (module docstring).
    """

    name: str
    mechanism: str
    paper: str
    instance: str
    relation: str
    eps: float
    delta: float
    kind: str
    bug: str
    sampler: Sampler
    samples: Mapping[str, int]
    exact: Callable[[bool], float] | None = None
    exact_note: str = ""
    describe: Callable[[tuple], str] | None = None
    labels: tuple[str, ...] | None = None
    n_events: int = 4
    extra: Mapping[str, object] = field(default_factory=dict)
    subtle_bug: str = ""
    statistic: Callable[[np.ndarray], np.ndarray] | None = None
    statistic_note: str = ""
    tightness: str = "tight"
    tightness_note: str = ""

    def __post_init__(self) -> None:
        if self.tightness not in TIGHTNESS:
            raise ValueError(f"audit {self.name}: tightness must be one of {TIGHTNESS}, got {self.tightness!r}")
        if self.tightness == "tight" and not self.subtle_bug:
            raise ValueError(f"audit {self.name}: a tight audit needs a subtle planted bug")

    def variants(self) -> tuple[str, ...]:
        """The configurations audited: correct, planted and (if there is one) subtle."""
        return VARIANTS if self.subtle_bug else VARIANTS[:2]


def variant_name(variant) -> str:
    """"correct" / "planted" / "subtle" from a variant name or a bool (True = the blatant planted bug)."""
    if isinstance(variant, (bool, np.bool_)):
        return "planted" if variant else "correct"
    if variant not in VARIANTS:
        raise ValueError(f"unknown audit variant {variant!r}; use one of {VARIANTS}")
    return str(variant)


def samples_for(audit: Audit, samples_scale) -> int:
    """Samples per input: ``samples_scale`` is "quick", "paper", an int, or a dict
    {audit name or "*": scale name or int} (missing names fall back to "quick")."""
    if isinstance(samples_scale, Mapping):
        spec = samples_scale.get(audit.name, samples_scale.get("*", "quick"))
    else:
        spec = samples_scale
    if isinstance(spec, str):
        if spec not in audit.samples:
            raise ValueError(f"unknown sample scale {spec!r}; use one of {sorted(audit.samples)} or an int")
        return int(audit.samples[spec])
    n = int(spec)
    if n < 4:
        raise ValueError(f"need at least 4 samples per input, got {n}")
    return n


def _rng(audit: Audit, variant: str, which: int, n: int, seed: int) -> np.random.Generator:
    ss = seed_sequence("audit", audit.name, {"variant": variant, "input": which, "samples": n}, seed)
    return np.random.Generator(np.random.PCG64(ss))


def evidence(audit: Audit, variant, n: int, seed: int = 0, *, alpha: float = 0.05) -> Evidence:
    """Sample n outputs on each input of configuration ``variant`` and return the held-out :class:`Evidence`."""
    variant = variant_name(variant)
    if variant == "subtle" and not audit.subtle_bug:
        raise ValueError(f"audit {audit.name} has no subtle planted bug")
    out0 = audit.sampler(variant, 0, n, _rng(audit, variant, 0, n, seed))
    out1 = audit.sampler(variant, 1, n, _rng(audit, variant, 1, n, seed))
    if audit.statistic is not None:
        t0 = np.round(np.asarray(audit.statistic(out0), dtype=np.float64), STAT_DECIMALS)
        t1 = np.round(np.asarray(audit.statistic(out1), dtype=np.float64), STAT_DECIMALS)
        return audit_statistic(t0, t1, audit.delta, alpha=alpha, n_events=audit.n_events, label="loss")
    if audit.kind == "discrete":
        return audit_discrete(out0, out1, audit.delta, alpha=alpha, n_events=audit.n_events, describe=audit.describe)
    if audit.kind == "continuous":
        return audit_continuous(out0, out1, audit.delta, alpha=alpha, n_events=audit.n_events, labels=audit.labels)
    raise ValueError(f"unknown audit kind {audit.kind!r}")


def result_word(variant: str, violated: bool) -> str:
    """The audit table's result: for the correct mechanism "pass" or "VIOLATION", for a planted bug "caught" or
    "missed" (``violated``: the evidence exceeds what the claimed guarantee allows)."""
    if variant == "correct":
        return "VIOLATION" if violated else "pass"
    return "caught" if violated else "missed"


def run_audit(audit: Audit, variant, n: int, seed: int = 0, *, alpha: float = 0.05) -> dict:
    """One row of the audit table (keys :data:`COLUMNS`); ``variant``: "correct", "planted", "subtle"
    (or a bool: True = "planted")."""
    variant = variant_name(variant)
    ev = evidence(audit, variant, n, seed, alpha=alpha)
    exact = float(audit.exact(variant)) if audit.exact is not None else float("nan")
    result = result_word(variant, ev.eps_lb > audit.eps)
    bug = {"correct": "", "planted": audit.bug, "subtle": audit.subtle_bug}[variant]
    return {
        "audit": audit.name,
        "variant": variant,
        "mechanism": audit.mechanism,
        "paper": audit.paper,
        "instance": audit.instance,
        "relation": audit.relation,
        "bug": bug,
        "claimed_eps": float(audit.eps),
        "claimed_delta": float(audit.delta),
        "eps_lb": ev.eps_lb,
        "confidence": ev.confidence,
        "exact_eps": exact,
        "tightness": audit.tightness,
        "tightness_note": audit.tightness_note,
        "samples": int(n),
        "result": result,
        "event": f"{ev.direction}: {ev.event}",
    }


def run_audits(audits, samples_scale="quick", seed: int = 0, *, alpha: float = 0.05) -> pd.DataFrame:
    """The audit table of ``audits`` (a list of :class:`Audit`), one row per (audit, variant): correct,
    planted, then subtle where the audit has one.

    ``samples_scale``: "quick" (about half a minute of CPU for the library's audits), "paper" (10x the samples
    or more), an int (samples per input for every audit) or a dict {audit name or "*": scale or int}.
    ``seed``: every random stream is ``seed_sequence("audit", name, {variant, input, samples}, seed)``, so the
    table is deterministic for a seed.  Columns: :data:`COLUMNS`; ``confidence`` is 1 − α of ``eps_lb``;
    ``exact_eps`` is NaN where the law is not computed; ``samples`` is per input; ``result`` is
    pass/VIOLATION (correct) or caught/missed (planted, subtle); ``tightness`` says whether the audit is tight,
    loose or diluted."""
    rows = []
    for audit in audits:
        n = samples_for(audit, samples_scale)
        for variant in audit.variants():
            rows.append(run_audit(audit, variant, n, seed, alpha=alpha))
    return pd.DataFrame(rows, columns=COLUMNS)
