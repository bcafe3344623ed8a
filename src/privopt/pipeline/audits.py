"""Every privacy audit of the project, in one list: where a reader finds them all.

Audits live in two places, for a reason: the library's own mechanisms are audited in :mod:`privopt.audit`
(listed by :func:`privopt.audit.catalogue.all_audits`: the exponential mechanism, DPG, PCG, PMCG, the tree
aggregation), and a paper whose algorithm is audited on the paper's own terms declares its audits in its
package (``Paper.audits``: ``experiments/<key>/privacy.py`` or ``audits.py``), which the library may not
import (``tests/test_layers.py``).  :func:`every_audit` joins the two through the papers' declarations, each
audit once, naming who lists it.  Beside them, the white-box checks (the noise laws of the Gaussian releases and
PCG's draws, :func:`privopt.audit.catalogue.white_box_audits`) add their rows to the audit table of the
``privacy_audit`` rule.

Used by ``benchmarks/bench_audit.py`` and the tests (``tests/test_audit.py``: every ``audits()`` function of the
source is reached from here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from privopt.audit import catalogue
from privopt.pipeline.protocol import resolve
from privopt.pipeline.registry import papers

__all__ = ["ListedAudit", "every_audit"]


@dataclass(frozen=True)
class ListedAudit:
    """One audit and where it is listed: ``"privopt.audit.catalogue"``, or the papers whose declarations name the
    function that makes it (``"module:function"`` in ``source``)."""

    audit: Any
    source: str
    papers: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.audit.name


def every_audit() -> list[ListedAudit]:
    """Every black-box audit, each name once: the library catalogue's, in its order, then each registered paper's
    declared ones (``Paper.audits``) not in the catalogue, in key order.  ``papers`` names every paper that
    declares the audit (a library audit may be a paper's too: Chaturvedi et al. declare the exponential
    mechanism's).  Two audits of one name are refused, naming both sources."""
    declared: dict[str, list[tuple[str, str]]] = {}
    for key, paper in papers().items():
        for ref in paper.audits:
            for a in resolve(ref)():
                declared.setdefault(a.name, []).append((key, ref))
    listed: dict[str, ListedAudit] = {}

    def add(a, source):
        if a.name in listed and listed[a.name].source != source:
            raise ValueError(f"two audits named {a.name!r}: {listed[a.name].source} and {source}")
        if a.name not in listed:
            listed[a.name] = ListedAudit(a, source, tuple(k for k, _ in declared.get(a.name, ())))

    for a in catalogue.all_audits():
        add(a, "privopt.audit.catalogue")
    for key, paper in papers().items():
        for ref in paper.audits:
            for a in resolve(ref)():
                if a.name in listed and listed[a.name].source == "privopt.audit.catalogue":
                    continue
                add(a, ref)
    return list(listed.values())

