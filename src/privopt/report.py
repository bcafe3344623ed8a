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


def render_report(template: str | Path, papers: Mapping[str, Mapping[str, Any]], settings: Mapping[str, Any],
                  provenance: Mapping[str, Any] | None, scale: str, output: str | Path) -> None:
    """Render ``template`` for ``papers`` (key → :meth:`privopt.experiments.protocol.Paper.metadata`) with
    their config sections ``settings``, the data ``provenance`` (None when no paper uses the pickups) and
    the ``scale`` label, and write it atomically to ``output``."""
    template = Path(template)
    context = [_paper_context(meta, settings[key]) for key, meta in papers.items()]
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(template.parent)), autoescape=True,
                             undefined=jinja2.StrictUndefined)
    software = {**environment(), "rendered": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    html = env.get_template(template.name).render(papers=context, provenance=provenance, scale=scale, software=software)
    with atomic_path(output) as tmp:
        tmp.write_text(html, encoding="utf-8")
