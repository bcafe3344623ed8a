"""The captions of ``snakemake --report``, generated from the papers' declarations.

Each figure's caption is written once, in its :class:`privopt.pipeline.protocol.Figure` (``caption``, and the
paper's ``original_caption``), each paper's claims caption in its :class:`~privopt.pipeline.protocol.Claims`;
the privacy audits' caption, which no paper owns, is :data:`AUDIT_CAPTION`.  Snakemake's ``report(caption=...)``
needs a file when the workflow is parsed, so ``workflow/rules/common.smk`` writes them with
:func:`write_captions` into a git-ignored folder (:data:`privopt.pipeline.protocol.CAPTIONS`) on every start.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["AUDIT_CAPTION", "caption_files", "write_captions"]

#: the caption of every paper's privacy-audit table (``<paper>_audit``)
AUDIT_CAPTION = (
    "Black-box privacy audits of the mechanisms of this paper (privopt.audit): for each mechanism on a small instance "
    "and a pair of neighbouring inputs, an ε lower bound with {{ snakemake.config[\"privacy_audit\"][\"samples\"] }}-scale "
    "samples at confidence 1 − {{ snakemake.config[\"privacy_audit\"][\"alpha\"] }}, beside the claimed (ε, δ), the exact "
    "ε where the output law is computable, and the same audit on a planted bug, which it must catch.\n")


def caption_files(papers: Iterable, folder: str | Path) -> dict[str, str]:
    """Caption file name → its text: ``<paper>_<figure>.rst`` and ``<paper>_claims.rst`` of every paper,
    and ``privacy_audit.rst``."""
    out = {}
    for paper in papers:
        for name in [f.id for f in paper.figures] + ["claims"]:
            out[Path(paper.caption(name, str(folder))).name] = paper.caption_text(name)
    out["privacy_audit.rst"] = AUDIT_CAPTION
    return out


def write_captions(papers: Iterable, folder: str | Path) -> dict[str, str]:
    """Write :func:`caption_files` into ``folder`` (created); return file name → absolute path.  A file whose
    text is already there is not touched (every job parses the workflow), and each write is atomic, so
    Snakemake processes starting at once never read half a caption."""
    folder = Path(folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, text in caption_files(papers, folder).items():
        path = folder / name
        paths[name] = str(path)
        try:
            if path.read_text(encoding="utf-8") == text:
                continue
        except FileNotFoundError:
            pass
        tmp = path.with_name(f".{name}.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    return paths
