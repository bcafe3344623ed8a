"""Audit descriptions, one audit run, and the table of a list of audits (:func:`run_audits`).

An :class:`Audit` names a private mechanism of ``privopt`` on a small instance: the paper
whose privacy claim is checked, the neighbouring relation used, the claimed (ε, δ), a
sampler of the mechanism's output on the two neighbouring inputs — once as implemented
("correct") and once with a planted bug — and, where the output law is exactly
computable, the exact ε of the pair (a white-box check).

:func:`run_audit` draws ``n`` outputs on each input, chooses events on one half and bounds
ε on the other (:mod:`privopt.audit.events`).  The verdict of a correct configuration is
"pass" when ε_lb ≤ claimed ε, otherwise "VIOLATION" (the mechanism leaks more than it
claims, with confidence 1 − α); a planted bug is "caught" when ε_lb > claimed ε,
otherwise "missed".

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

from privopt.audit.events import Evidence, audit_continuous, audit_discrete
from privopt.seeding import seed_sequence

__all__ = ["Audit", "COLUMNS", "SCALES", "evidence", "run_audit", "run_audits", "samples_for"]

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
    "samples",
    "result",
    "event",
]

SCALES = ("quick", "paper")

# sampler(planted, which, n, rng) -> outputs of M on input `which` (0 = D, 1 = D')
Sampler = Callable[[bool, int, int, np.random.Generator], np.ndarray]


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
    bug: the planted bug, in words.
    sampler: ``sampler(planted, which, n, rng)``, n outputs on D (which = 0) or D' (1).
    exact: ``exact(planted) -> float`` exact ε of the pair at the claimed δ, or None.
    exact_note: what ``exact`` computes.
    samples: samples per input for each scale ("quick", "paper").
    describe: renders a discrete event (tuple of codes); labels: names of continuous coordinates.
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


def evidence(audit: Audit, planted: bool, n: int, seed: int = 0, *, alpha: float = 0.05) -> Evidence:
    """Sample n outputs on each input and return the held-out :class:`Evidence`."""
    variant = "planted" if planted else "correct"
    out0 = audit.sampler(planted, 0, n, _rng(audit, variant, 0, n, seed))
    out1 = audit.sampler(planted, 1, n, _rng(audit, variant, 1, n, seed))
    if audit.kind == "discrete":
        return audit_discrete(out0, out1, audit.delta, alpha=alpha, n_events=audit.n_events, describe=audit.describe)
    if audit.kind == "continuous":
        return audit_continuous(out0, out1, audit.delta, alpha=alpha, n_events=audit.n_events, labels=audit.labels)
    raise ValueError(f"unknown audit kind {audit.kind!r}")


def run_audit(audit: Audit, planted: bool, n: int, seed: int = 0, *, alpha: float = 0.05) -> dict:
    """One row of the audit table (keys :data:`COLUMNS`)."""
    ev = evidence(audit, planted, n, seed, alpha=alpha)
    exact = float(audit.exact(planted)) if audit.exact is not None else float("nan")
    if planted:
        result = "caught" if ev.eps_lb > audit.eps else "missed"
    else:
        result = "pass" if ev.eps_lb <= audit.eps else "VIOLATION"
    return {
        "audit": audit.name,
        "variant": "planted" if planted else "correct",
        "mechanism": audit.mechanism,
        "paper": audit.paper,
        "instance": audit.instance,
        "relation": audit.relation,
        "bug": audit.bug if planted else "",
        "claimed_eps": float(audit.eps),
        "claimed_delta": float(audit.delta),
        "eps_lb": ev.eps_lb,
        "confidence": ev.confidence,
        "exact_eps": exact,
        "samples": int(n),
        "result": result,
        "event": f"{ev.direction}: {ev.event}",
    }


def run_audits(audits, samples_scale="quick", seed: int = 0, *, alpha: float = 0.05) -> pd.DataFrame:
    """The audit table of ``audits`` (a list of :class:`Audit`), one row per (audit, variant), correct
    then planted; arguments as :func:`privopt.audit.catalogue.run_all`."""
    rows = []
    for audit in audits:
        n = samples_for(audit, samples_scale)
        for planted in (False, True):
            rows.append(run_audit(audit, planted, n, seed, alpha=alpha))
    return pd.DataFrame(rows, columns=COLUMNS)
