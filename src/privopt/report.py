"""The reproduction report: every paper's regenerated figures, original captions, settings and claims
in one self-contained HTML page (images embedded), rendered from ``paper/report.html.j2``."""

from __future__ import annotations

import base64
import datetime
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2
import pandas as pd
import yaml

from privopt.io import atomic_path
from privopt.provenance import config_digest, environment

__all__ = ["render_report"]


def _paper_context(meta: Mapping[str, Any], settings: Any) -> dict[str, Any]:
    figures = []
    for fig in meta["figures"]:
        fig = dict(fig)
        fig["image_b64"] = base64.b64encode(Path(fig["image"]).read_bytes()).decode("ascii")
        fig["table"] = fig["tables"][0] if fig["tables"] else ""
        figures.append(fig)
    claims_table = pd.read_csv(meta["claims"], keep_default_na=False)
    verdict_counts = {
        reading: group["verdict"].value_counts().sort_index().to_dict()
        for reading, group in claims_table.groupby("reading", sort=True)
    }
    return {**meta, "figures": figures, "claims": claims_table.to_dict("records"), "verdict_counts": verdict_counts,
            "settings": yaml.safe_dump(settings, sort_keys=False, allow_unicode=True),
            "settings_digest": config_digest(settings)}


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        return "—" if x != x else f"{x:.3g}"
    return str(x)


def audit_rows(audits: pd.DataFrame) -> list[dict[str, Any]]:
    """One row per audit: the correct configuration beside its planted bug (``audits`` as written by
    :func:`privopt.audit.run_audits`)."""
    rows = []
    for name, group in audits.groupby("audit", sort=False):
        correct = group[group["variant"] == "correct"].iloc[0]
        planted = group[group["variant"] == "planted"].iloc[0]
        rows.append({**{k: _fmt(v) for k, v in correct.items()},
                     "eps_lb_planted": _fmt(planted["eps_lb"]), "exact_eps_planted": _fmt(planted["exact_eps"]),
                     "result_planted": planted["result"], "ok": correct["result"] == "pass" and planted["result"] == "caught"})
    return rows


def render_report(template: str | Path, papers: Mapping[str, Mapping[str, Any]], settings: Mapping[str, Any],
                  provenance: Mapping[str, Any] | None, scale: str, output: str | Path,
                  audits: str | Path | None = None, audit_settings: Mapping[str, Any] | None = None) -> None:
    """Render ``template`` for ``papers`` (key → :meth:`privopt.experiments.protocol.Paper.metadata`) with
    their config sections ``settings``, the data ``provenance`` (None when no paper uses the pickups), the
    ``scale`` label and the privacy-audit table at ``audits``, and write it atomically to ``output``."""
    template = Path(template)
    context = [_paper_context(meta, settings[key]) for key, meta in papers.items()]
    audit_table = audit_rows(pd.read_csv(audits)) if audits else []
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(template.parent)), autoescape=True,
                             undefined=jinja2.StrictUndefined)
    software = {**environment(), "rendered": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    html = env.get_template(template.name).render(papers=context, provenance=provenance, scale=scale, software=software,
                                                  audits=audit_table, audit_settings=audit_settings or {})
    with atomic_path(output) as tmp:
        tmp.write_text(html, encoding="utf-8")
