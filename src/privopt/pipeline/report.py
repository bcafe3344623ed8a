"""The reproduction report: every paper's regenerated figures, original captions, settings and claims
in one self-contained HTML page (images embedded), rendered from ``paper/report.html.j2``.

What a reader sees first: one line per paper, its verdicts at the scale of its committed reference
results (``reference/<paper>/``, the largest run done) beside this run's, and whether the paper is
reproduced (experimental papers) or its theorems illustrated (theory papers); then a summary table (per
paper and figure, the counts of reproduced / not reproduced / inconclusive claim rows, each linking to
its section) and the *findings*, sentences
computed from the tables (each paper's :meth:`privopt.pipeline.protocol.Claims.find`, plus, for every
paper, the claims whose verdict differs between its rows: readings, or the sampled and exact
references).  Then a table of contents; per figure the regenerated image (embedded at most
:data:`EMBED_WIDTH` pixels wide, a link to the full-size PNG) beside its declared caption and the original
caption, with links relative to the report to its PNG, PDF, executed notebook and tables; the figure's claims under it, and the settings its experiments read as a table (raw YAML behind a
disclosure); the privacy audits; and the provenance (git commit, package versions, config digest,
date, scale, each data set read with its source, digests and record count as its declaration shows them, and each table's own provenance record).  Nothing here
names a paper: everything comes from the papers' declarations.
"""

from __future__ import annotations

import base64
import datetime
import io
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2
import markupsafe
import pandas as pd
import yaml

from privopt.pipeline.claims import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED
from privopt.pipeline.datasets import dataset
from privopt.pipeline.protocol import Finding
from privopt.io import atomic_path, read_table
from privopt.pipeline.provenance import config_digest, environment

__all__ = ["render_report", "compute_findings", "verdict_findings", "flatten_settings", "figure_settings",
           "summary_rows", "audit_rows", "glance_row", "attach_reference", "data_description", "embedded_png", "fill_caption"]

VERDICT_ORDER = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE)


def _plain(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain(v) for v in value) if value else "(none)"
    return str(value)


def flatten_settings(settings: Mapping[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """(dotted key, readable value) rows of a nested config mapping, in its order.

    >>> flatten_settings({"eps": 0.1, "fig1": {"ranks": [10, 16], "readings": {"paper": {"s": 500}}}})
    [('eps', '0.1'), ('fig1.ranks', '10, 16'), ('fig1.readings.paper.s', '500')]
    """
    rows: list[tuple[str, str]] = []
    for key, value in settings.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            rows += flatten_settings(value, f"{name}.")
        else:
            rows.append((name, _plain(value)))
    return rows


def figure_settings(section: Mapping[str, Any], experiments: Sequence[str]) -> dict[str, Any]:
    """The part of a paper's config section a figure's experiments read: the section's plain (non-mapping)
    keys and the subsection named after each experiment; the whole section when no subsection is."""
    own = {name: section[name] for name in experiments if isinstance(section.get(name), Mapping)}
    if not own:
        return dict(section)
    return {**{k: v for k, v in section.items() if not isinstance(v, Mapping)}, **own}


def _anchor(*parts: str) -> str:
    return "-".join(str(p).replace(" ", "-").replace(".", "-") for p in parts)


def summary_rows(meta: Mapping[str, Any], claims: pd.DataFrame) -> list[dict[str, Any]]:
    """Per figure of the paper (then its claims about no declared figure): the counts of each verdict among
    its claim rows and the anchor of its section."""
    rows = []
    declared = [f["id"] for f in meta["figures"]]
    titles = {f["id"]: f["title"] for f in meta["figures"]}
    others = sorted(set(claims["figure"]) - set(declared)) if len(claims) else []
    for fid in declared + (["other"] if others else []):
        mine = claims[claims["figure"].isin(others)] if fid == "other" else claims[claims["figure"] == fid]
        counts = mine["verdict"].value_counts()
        rows.append({"paper": meta["short"], "figure": titles.get(fid, "claims about no single figure"),
                     "anchor": _anchor(meta["key"], fid), "claims_anchor": _anchor(meta["key"], fid, "claims"),
                     "counts": {v: int(counts.get(v, 0)) for v in VERDICT_ORDER}, "n": int(len(mine))})
    return rows


def verdict_findings(claims: pd.DataFrame) -> list[Finding]:
    """For every claim whose rows disagree (reproduced under one reading or reference, not under another):
    one sentence giving each reading's verdict, and where a reading's own rows disagree, each row's threshold."""
    out = []
    decided = claims[claims["verdict"] != INCONCLUSIVE]
    for cid, rows in decided.groupby("claim", sort=False):
        if rows["verdict"].nunique() < 2:
            continue
        parts = []
        for reading, mine in rows.groupby("reading", sort=False):
            where = f"for reading {reading}" if reading else "for its rows"
            if mine["verdict"].nunique() == 1:
                parts.append(f"{mine['verdict'].iloc[0]} {where}")
            else:
                each = " and ".join(f"{r['verdict']} with threshold “{r['threshold']}”" for _, r in mine.iterrows())
                parts.append(f"{where}, {each}")
        out.append(Finding(f"Claim {cid} is " + "; ".join(parts) + ".", figure=str(rows["figure"].iloc[0])))
    return out


def compute_findings(papers: Mapping[str, Mapping[str, Any]], claims_settings: Mapping[str, Mapping[str, Any]]
                     ) -> dict[str, list[Finding]]:
    """Each registered paper's own findings (:meth:`Claims.find` on the tables its claims read, the claims
    table and the claims' settings); imports the registry and the papers' findings modules."""
    from privopt.pipeline.registry import paper

    found = {}
    for key, meta in papers.items():
        tables = {stem: read_table(path) for stem, path in meta["claims_tables"].items()}
        claims = pd.read_csv(meta["claims"], keep_default_na=False)
        found[key] = paper(key).claims.find(tables, claims, claims_settings.get(key, {}))
    return found


def _records(meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for experiment, path in meta.get("provenance", {}).items():
        if not Path(path).is_file():
            continue
        record = json.loads(Path(path).read_text())
        git = record.get("environment", {}).get("git", {})
        rows.append({"experiment": experiment, "file": path, "tables": record.get("tables", []),
                     "commit": git.get("commit"), "dirty": git.get("dirty"),
                     "code_runs": record.get("code_digest", {}).get("runs", ""),
                     "code_tables": record.get("code_digest", {}).get("tables", ""),
                     "settings_digest": record.get("settings_digest", "")})
    return rows


def _counts(claims: pd.DataFrame) -> dict[str, int]:
    counts = claims["verdict"].value_counts() if len(claims) else {}
    return {v: int(counts.get(v, 0)) for v in VERDICT_ORDER}


def attach_reference(claims: list[dict[str, Any]], reference: pd.DataFrame | None) -> list[dict[str, Any]]:
    """Each claim row of this run with the verdict (and measured value) of the same row on the reference
    tables: matched by claim, reading and order within them; '' where the reference has no such row."""
    seen: dict[tuple[str, str], int] = {}
    ref: dict[tuple[str, str, int], dict[str, Any]] = {}
    for row in ([] if reference is None else reference.to_dict("records")):
        key = (row["claim"], row["reading"])
        ref[(*key, seen.get(key, 0))] = row
        seen[key] = seen.get(key, 0) + 1
    seen.clear()
    out = []
    for c in claims:
        key = (c["claim"], c["reading"])
        match = ref.get((*key, seen.get(key, 0)), {})
        seen[key] = seen.get(key, 0) + 1
        out.append({"needs": "", **c, "reference_verdict": match.get("verdict", ""), "reference_measured": match.get("measured", ""),
                    "reference_needs": match.get("needs", "")})
    return out


def glance_row(meta: Mapping[str, Any], claims: pd.DataFrame, reference: pd.DataFrame | None,
               about: Mapping[str, Any] | None) -> dict[str, Any]:
    """The report's first-screen line of a paper: this run's verdict counts, the reference's, and what the
    reference says of the paper (reproduced / partly, or for a theory paper, its theorems illustrated)."""
    row = {"paper": meta["short"], "key": meta["key"], "anchor": _anchor(meta["key"]), "kind": meta.get("kind", "experimental"),
           "this": _counts(claims), "reference": None, "label": "", "core_hours": None, "changed": {}, "status": ""}
    decided = reference if reference is not None else claims
    scale = "at the reference scale" if reference is not None else "at this run's scale (no reference yet)"
    counts = _counts(decided)
    failed = list(dict.fromkeys(decided.loc[decided["verdict"] == NOT_REPRODUCED, "claim"])) if len(decided) else []
    n = int(len(decided))
    if row["kind"] == "theory":
        status = f"Theorems illustrated: {counts[REPRODUCED]} of {n} predictions hold {scale}"
    elif failed:
        status = f"Partly reproduced {scale}: {counts[REPRODUCED]} of {n} claim rows"
    elif counts[INCONCLUSIVE]:
        status = f"No claim contradicted {scale}: {counts[REPRODUCED]} of {n} claim rows reproduced"
    else:
        status = f"Reproduced {scale}: all {n} claim rows"
    status += f"; not reproduced: {', '.join(failed)}" if failed else ""
    status += f"; {counts[INCONCLUSIVE]} inconclusive" if counts[INCONCLUSIVE] else ""
    row["status"] = status + "."
    if reference is not None:
        row["reference"] = counts
    if about:
        changed = about.get("changed_modules", {})
        row.update(label=about.get("label", ""), core_hours=about.get("core_hours"),
                   changed=changed, changed_all=sorted(set().union(*changed.values())), written=about.get("written", ""),
                   ref_commit=(about.get("commit") or "")[:12], cpu=about.get("cpu", ""))
    return row


def data_description(data: Mapping[str, Mapping[str, Any]] | None) -> str:
    """What data the run read, in words: each data set as its declaration describes it (the Uber pickups: the
    canonical file or the subset, with its record count)."""
    if not data:
        return "no external data (simulated instances only)"
    parts = [dataset(name).summary(record) for name, record in data.items()]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def data_provenance_rows(data: Mapping[str, Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    """Per data set the run read, its rows of the provenance table (its declaration's ``provenance_rows``)."""
    return [{"name": name, "title": dataset(name).title,
             "rows": [(heading, markupsafe.Markup(cell)) for heading, cell in dataset(name).provenance_rows(record)]}
            for name, record in (data or {}).items()]


#: the widest image embedded in the report, in pixels: a figure wider than this is embedded scaled down (its full-size
#: PNG, PDF and notebook are a click away); the figure column of the report is about 1,000 CSS pixels wide.
EMBED_WIDTH = 1400


def embedded_png(path: str | Path, width: int = EMBED_WIDTH) -> tuple[str, tuple[int, int]]:
    """The PNG at ``path`` as base64 for a ``data:`` URI, at most ``width`` pixels wide (scaled down, never up,
    flattened on white and reduced to 256 colours: a plot has few) and its full size (width, height) in pixels."""
    from PIL import Image

    raw = Path(path).read_bytes()
    with Image.open(io.BytesIO(raw)) as im:
        size = im.size
        rgba = im.convert("RGBA")
    flat = Image.alpha_composite(Image.new("RGBA", rgba.size, "white"), rgba).convert("RGB")
    if flat.width > width:
        flat = flat.resize((width, max(1, round(flat.height * width / flat.width))), Image.LANCZOS)
    small = io.BytesIO()
    flat.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(small, "PNG", optimize=True)
    data = small.getvalue() if small.tell() < len(raw) else raw
    return base64.b64encode(data).decode("ascii"), size


def _link(path: str | Path, base: str | Path | None) -> str:
    """``path`` (relative to the working directory, as the workflow names files) as a link from the folder
    ``base`` of the report: results/quick/figures/p/fig1.pdf from results/quick/paper → ../figures/p/fig1.pdf."""
    if base is None:
        return Path(path).as_posix()
    return Path(os.path.relpath(Path(path).resolve(), Path(base).resolve())).as_posix()


def fill_caption(caption: str, config: Mapping[str, Any]) -> str:
    """A declared caption (:attr:`privopt.pipeline.protocol.Figure.caption`) with its config values
    (``{{ snakemake.config["<paper>"][…] }}``) filled in from ``config``, as ``snakemake --report`` does."""
    env = jinja2.Environment(autoescape=False, undefined=jinja2.ChainableUndefined)  # a value not given: empty
    return env.from_string(caption.strip()).render(snakemake={"config": config})


def _inline_rst(text: str) -> markupsafe.Markup:
    """A caption's reStructuredText inline markup as HTML (``**strong**``, ````literal````); the rest escaped."""
    html = str(markupsafe.escape(text))
    html = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", html)
    return markupsafe.Markup(re.sub(r"``(.+?)``", r"<code>\1</code>", html))


def _paper_context(meta: Mapping[str, Any], settings: Any, findings: Sequence[Finding],
                   reference: Mapping[str, Any] | None = None, base: str | Path | None = None,
                   scale: str = "") -> dict[str, Any]:
    claims_table = pd.read_csv(meta["claims"], keep_default_na=False)
    ref_claims = pd.read_csv(reference["claims"], keep_default_na=False) if reference else None
    about = json.loads(Path(reference["about"]).read_text()) if reference else None
    claims = attach_reference(claims_table.to_dict("records"), ref_claims)
    declared = {f["id"] for f in meta["figures"]}
    figures = []
    for fig in meta["figures"]:
        fig = dict(fig)
        fig["caption"] = _inline_rst(fill_caption(fig.get("caption", ""), {meta["key"]: settings, "scale": scale}))
        fig["image_b64"], fig["image_size"] = embedded_png(fig["image"])
        ref_png = (reference or {}).get("figures", {}).get(fig["id"])
        fig["reference_image"] = ref_png or ""
        fig["reference_b64"], fig["reference_size"] = embedded_png(ref_png) if ref_png else ("", (0, 0))
        ref_pdf = str(Path(ref_png).with_suffix(".pdf")) if ref_png else ""
        fig["links"] = {"png": _link(fig["image"], base), "pdf": _link(fig["pdf"], base),
                        "notebook": _link(fig["notebook"], base),
                        "tables": [(Path(t).name, _link(t, base)) for t in fig["tables"]],
                        "reference_png": _link(ref_png, base) if ref_png else "",
                        "reference_pdf": _link(ref_pdf, base) if ref_pdf and Path(ref_pdf).is_file() else ""}
        fig["table"] = fig["tables"][0] if fig["tables"] else ""
        fig["anchor"] = _anchor(meta["key"], fig["id"])
        fig["claims_anchor"] = _anchor(meta["key"], fig["id"], "claims")
        fig["claims"] = [c for c in claims if c["figure"] == fig["id"]]
        own = figure_settings(settings, fig.get("experiments", []))
        fig["settings_rows"] = flatten_settings(own)
        fig["settings_yaml"] = yaml.safe_dump(own, sort_keys=False, allow_unicode=True)
        figures.append(fig)
    verdict_counts = {
        reading: claims_table.loc[claims_table["reading"] == reading, "verdict"].value_counts().sort_index().to_dict()
        for reading in sorted(set(claims_table["reading"]))
    }
    anchors = {f["id"]: f["anchor"] for f in figures}
    found = [{"text": f.text, "anchor": anchors.get(f.figure, _anchor(meta["key"]))} for f in
             [*findings, *verdict_findings(claims_table)]]
    return {**meta, "figures": figures, "claims": claims, "verdict_counts": verdict_counts,
            "glance": glance_row(meta, claims_table, ref_claims, about), "reference": about,
            "other_claims": [c for c in claims if c["figure"] not in declared],
            "other_anchor": _anchor(meta["key"], "other"), "other_claims_anchor": _anchor(meta["key"], "other", "claims"),
            "summary": summary_rows(meta, claims_table), "findings": found, "records": _records(meta),
            "settings": yaml.safe_dump(settings, sort_keys=False, allow_unicode=True),
            "settings_digest": config_digest(settings), "anchor": _anchor(meta["key"])}


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
        subtle = group[group["variant"] == "subtle"]
        subtle = subtle.iloc[0] if len(subtle) else None
        tightness = correct.get("tightness", "")
        tightness = tightness if isinstance(tightness, str) else ""
        note = correct.get("tightness_note", "")
        # a tight audit must also catch its subtle bug; a loose or diluted one says why it cannot
        ok = correct["result"] == "pass" and planted["result"] == "caught" and (
            tightness != "tight" or subtle is None or subtle["result"] == "caught")
        rows.append({**{k: _fmt(v) for k, v in correct.items()},
                     "bug": planted["bug"],  # the correct row's bug is empty
                     "eps_lb_planted": _fmt(planted["eps_lb"]), "exact_eps_planted": _fmt(planted["exact_eps"]),
                     "result_planted": planted["result"],
                     "eps_lb_subtle": _fmt(subtle["eps_lb"]) if subtle is not None else "—",
                     "exact_eps_subtle": _fmt(subtle["exact_eps"]) if subtle is not None else "—",
                     "result_subtle": subtle["result"] if subtle is not None else "none planted",
                     "bug_subtle": subtle["bug"] if subtle is not None and isinstance(subtle["bug"], str) else "",
                     "tightness": tightness or "—", "tightness_note": note if isinstance(note, str) else "",
                     "ok": ok})
    return rows


def render_report(template: str | Path, papers: Mapping[str, Mapping[str, Any]], settings: Mapping[str, Any],
                  data: Mapping[str, Mapping[str, Any]] | None, scale: str, output: str | Path,
                  audits: str | Path | None = None, audit_settings: Mapping[str, Any] | None = None,
                  findings: Mapping[str, Sequence[Finding]] | None = None,
                  references: Mapping[str, Mapping[str, Any]] | None = None) -> None:
    """Render ``template`` for ``papers`` (key → :meth:`privopt.pipeline.protocol.Paper.metadata`) with
    their config sections ``settings``, the provenance record of each data set read (``data``: name → record of
    :mod:`privopt.pipeline.datasets`; empty or None when no paper reads one), the
    ``scale`` label, the privacy-audit table at ``audits`` and each paper's ``findings`` (see
    :func:`compute_findings`), each paper's reference results ``references`` (key → ``{"claims": csv,
    "about": json, "figures": {figure id: png}}``, for the papers that have one), and write it atomically to
    ``output``."""
    template = Path(template)
    findings = findings or {}
    references = references or {}
    base = Path(output).parent
    context = [_paper_context(meta, settings[key], findings.get(key, ()), references.get(key), base, scale)
               for key, meta in papers.items()]
    audit_table = audit_rows(pd.read_csv(audits)) if audits else []
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(template.parent)), autoescape=True,
                             undefined=jinja2.StrictUndefined)
    software = {**environment(), "rendered": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    shown = {"scale": scale, **{key: settings[key] for key in papers}}
    html = env.get_template(template.name).render(
        papers=context, datasets=data_provenance_rows(data), scale=scale, software=software, audits=audit_table,
        data=data_description(data),
        audit_settings=audit_settings or {}, verdicts=VERDICT_ORDER, config_digest=config_digest(shown))
    with atomic_path(output) as tmp:
        tmp.write_text(html, encoding="utf-8")
