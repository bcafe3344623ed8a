"""The reproduction report: three self-contained HTML pages rendered from ``paper/*.html.j2``.

``index.html`` (the report) opens on the *verdict*: one line per paper (what kind of reproduction it is,
its verdict counts at the scale of its committed reference results, ``reference/<paper>/``, and at this
run's scale, and whether the reference is at the paper's settings), then every claim that is not
reproduced or is inconclusive at the reference scale, with its statement, measured value and what would
decide it.  Then a summary table (per figure, the verdict counts at both scales), the *findings* (sentences
computed from the tables by each paper's :meth:`privopt.pipeline.protocol.Claims.find`, plus the claims
whose rows disagree) on the reference's tables first and on this run's, and per figure the figure (the
reference's, with this run's behind a disclosure, or once where the two are the same picture), its captions,
links to its PNG, PDF, rendered notebook and tables, its claims at both scales and its settings.

``provenance.html``: per paper the reference's description (run, core-hours, commit, modules changed since)
and this run's provenance (software, config digest, data sets, each table's record, every setting);
``audits.html``: the privacy audits.  Every number says which scale it is.  Nothing here names a paper:
everything comes from the papers' declarations and reference manifests.
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
from privopt.pipeline.figure_text import pdf_text_sizes, readable_width
from privopt.pipeline.protocol import Finding
from privopt.io import atomic_path, read_table
from privopt.pipeline.provenance import config_digest, environment

__all__ = ["render_report", "compute_findings", "reference_findings", "verdict_findings", "flatten_settings",
           "figure_settings", "summary_rows", "audit_rows", "glance_row", "pending_text", "open_claims", "paper_settings_flags",
           "settings_note", "figure_scale_label", "same_picture", "same_tables", "attach_reference", "data_description", "embedded_png",
           "embedded_pngs", "fill_caption", "paper_beside_us", "paper_numbers", "PAGES"]

#: the pages :func:`render_report` writes, from the templates of the same name (``.j2`` added) beside the
#: report's template: the report itself, then the pages its first screen links to
PAGES = ("index.html", "provenance.html", "audits.html")

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


def summary_rows(meta: Mapping[str, Any], claims: pd.DataFrame, reference: pd.DataFrame | None = None
                 ) -> list[dict[str, Any]]:
    """Per figure of the paper (then its claims about no declared figure): the counts of each verdict among
    its claim rows of this run (``counts``) and of the reference (``reference``: None without one), and the
    anchor of its section."""
    rows = []
    declared = [f["id"] for f in meta["figures"]]
    titles = {f["id"]: f["title"] for f in meta["figures"]}
    seen = set(claims["figure"]) | (set(reference["figure"]) if reference is not None and len(reference) else set())
    others = sorted(seen - set(declared))

    def mine(table: pd.DataFrame, fid: str) -> pd.DataFrame:
        if not len(table):
            return table
        return table[table["figure"].isin(others)] if fid == "other" else table[table["figure"] == fid]

    for fid in declared + (["other"] if others else []):
        here = mine(claims, fid)
        rows.append({"paper": meta["short"], "figure": titles.get(fid, "claims about no single figure"),
                     "anchor": _anchor(meta["key"], fid), "claims_anchor": _anchor(meta["key"], fid, "claims"),
                     "counts": _counts(here), "n": int(len(here)),
                     "reference": None if reference is None else _counts(mine(reference, fid))})
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


def reference_findings(papers: Mapping[str, Mapping[str, Any]], references: Mapping[str, Mapping[str, Any]]
                       ) -> dict[str, list[Finding]]:
    """Each paper's findings on its reference: :meth:`Claims.find` on the reference's tables (read and checked
    against its manifest by :func:`privopt.pipeline.reference_results.reference_tables`), today's claims on them
    (``references[key]["claims"]``) and the claims' settings of the reference's config.  A paper whose findings
    cannot be computed on the reference (a table it lacks) gets one sentence saying so and why."""
    from privopt.pipeline.reference_results import read_manifest, reference_tables
    from privopt.pipeline.registry import paper

    found: dict[str, list[Finding]] = {}
    for key in papers:
        ref = references.get(key)
        if not ref:
            continue
        the_paper = paper(key)
        folder = json.loads(Path(ref["about"]).read_text())["folder"]
        manifest = read_manifest(folder)
        tables = reference_tables(folder, the_paper, the_paper.claims.inputs)
        claims = pd.read_csv(ref["claims"], keep_default_na=False)
        try:
            found[key] = the_paper.claims.find(tables, claims, the_paper.claims.settings(manifest["config"]))
        except KeyError as exc:  # a table (or column) the reference does not hold
            found[key] = [Finding(f"No findings on the reference: it lacks {exc} (in {folder}).")]
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


#: what kind of reproduction a paper's figures are, by its declared kind
KINDS = {"experimental": "the paper's own figures", "theory": "new figures for its theorems (it has none)"}


def paper_settings_flags(manifest: Mapping[str, Any] | None) -> dict[str, bool] | None:
    """Per figure id, whether the reference holds that figure at the paper's own settings, as the reference's
    manifest records it: ``"paper_settings": {figure id: bool}`` or, per figure, ``"figures": {figure id:
    {"paper_settings": bool}}``; None when the manifest records neither."""
    if not manifest:
        return None
    flags = manifest.get("paper_settings")
    if isinstance(flags, Mapping):
        return {str(k): bool(v) for k, v in flags.items()}
    figures = manifest.get("figures")
    if isinstance(figures, Mapping):
        found = {str(k): bool(v["paper_settings"]) for k, v in figures.items()
                 if isinstance(v, Mapping) and "paper_settings" in v}
        return found or None
    return None


def _differs(manifest: Mapping[str, Any] | None, figure: str) -> list[str]:
    """How the reference's run of ``figure`` differs from the paper's settings, as its manifest says
    (``"figures": {figure id: {"differs": [sentences]}}``); [] where it says nothing."""
    entry = ((manifest or {}).get("figures") or {}).get(figure)
    return [str(d) for d in entry.get("differs", [])] if isinstance(entry, Mapping) else []


def settings_note(flags: Mapping[str, bool] | None, figures: Sequence[Mapping[str, Any]], scale: str = "") -> str:
    """Whether a reference is at the paper's settings, in words, from :func:`paper_settings_flags`: every
    figure, none, or which not (by its title up to the dash); 'not recorded' when the manifest does not say."""
    if flags is None:
        return f"not recorded (reference scale “{scale}”)" if scale else "not recorded"
    titles = {f["id"]: str(f["title"]).split(" — ")[0] for f in figures}
    known = [fid for fid in titles if fid in flags]
    off = [fid for fid in known if not flags[fid]]
    if not known:
        return "not recorded for its figures"
    if not off:
        return "yes, every figure" if len(known) == len(titles) else f"yes, {len(known)} of {len(titles)} figures recorded"
    if len(off) == len(known):
        return "no figure"
    return "yes, except " + ", ".join(titles[fid] for fid in off)


def glance_row(meta: Mapping[str, Any], claims: pd.DataFrame, reference: pd.DataFrame | None,
               about: Mapping[str, Any] | None, flags: Mapping[str, bool] | None = None) -> dict[str, Any]:
    """The report's first-screen line of a paper: what kind of reproduction it is, the reference's verdict
    counts and this run's, whether the reference is at the paper's settings, and a sentence of what the
    reference shows (reproduced / partly, or for a theory paper, its theorems illustrated)."""
    kind = meta.get("kind", "experimental")
    row = {"paper": meta["short"], "key": meta["key"], "anchor": _anchor(meta["key"]), "kind": kind,
           "kind_text": KINDS.get(kind, kind), "this": _counts(claims), "reference": None, "label": "",
           "core_hours": None, "changed": {}, "changed_all": [], "status": "", "pending": [],
           "settings": settings_note(flags, meta.get("figures", []), (about or {}).get("scale", "")) if about else "no reference yet"}
    decided = reference if reference is not None else claims
    scale = "at the reference scale" if reference is not None else "at this run's scale (no reference yet)"
    counts = _counts(decided)
    failed = list(dict.fromkeys(decided.loc[decided["verdict"] == NOT_REPRODUCED, "claim"])) if len(decided) else []
    n = int(len(decided))
    if kind == "theory":
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
        row.update(label=about.get("label", ""), core_hours=about.get("core_hours"), ref_scale=about.get("scale", ""),
                   changed=changed, changed_all=sorted(set().union(*changed.values())), written=about.get("written", ""),
                   ref_commit=(about.get("commit") or "")[:12], cpu=about.get("cpu", ""),
                   pending=[pending_text(q) for q in about.get("pending") or []])
    return row


def pending_text(part: Mapping[str, Any]) -> str:
    """A part in progress (privopt.pipeline.pending.pending_status, with its experiment's label) in words.

    >>> pending_text({"label": "Fig. 5", "experiment": "exp3", "done": 10, "total": 30, "core_hours": 2.5,
    ...               "folder": "reference/pending/shariff2018/exp3"})
    'in progress: Fig. 5 (exp3), 10 of 30 run jobs, in reference/pending/shariff2018/exp3'
    """
    return (f"in progress: {part.get('label') or part['experiment']} ({part['experiment']}), {part['done']} of "
            f"{part.get('total', '?')} run jobs, in {part['folder']}")


def open_claims(meta: Mapping[str, Any], claims: pd.DataFrame, scale: str) -> list[dict[str, Any]]:
    """The claim rows of ``claims`` that are not reproduced or inconclusive (the reference's, or this run's
    where the paper has no reference: ``scale`` says which), not reproduced first: paper, claim, its
    figure's title and anchor, statement, measured value and what would decide it (the row's *needs*, or
    for a decided row its threshold).  A claim checked under several readings (settings, panels) with the same
    verdict in several of them is one row: the number of readings, the first one's values as an example."""
    titles = {f["id"]: f["title"] for f in meta["figures"]}
    rows: list[dict[str, Any]] = []
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for verdict in (NOT_REPRODUCED, INCONCLUSIVE):
        for c in claims[claims["verdict"] == verdict].to_dict("records") if len(claims) else []:
            fid = c["figure"] if c["figure"] in titles else "other"
            needs = str(c.get("needs", "") or "")
            same = seen.get((c["claim"], verdict))
            if same is not None:  # the claim again, another reading with the same verdict
                same["readings"] += 1
                same["reading"] = f"{same['readings']} readings, e.g. {same['first_reading']}"
                continue
            rows.append({"paper": meta["short"], "key": meta["key"], "paper_anchor": _anchor(meta["key"]), "claim": c["claim"],
                         "reading": c.get("reading", ""), "figure": titles.get(fid, "claims about no single figure"),
                         "anchor": _anchor(meta["key"], fid, "claims"), "statement": c["statement"],
                         "measured": c["measured"], "verdict": verdict, "scale": scale,
                         "decide": needs if needs else (f"decided against its threshold: {c['threshold']}"
                                                        if verdict == NOT_REPRODUCED else ""),
                         "readings": 1, "first_reading": c.get("reading", "")})
            seen[(c["claim"], verdict)] = rows[-1]
    return rows


def figure_scale_label(label: str, heads: Sequence[str], title: str) -> str:
    """The parts of a reference's description (``label``: parts joined by '; ', each 'what: how much') that
    are about one figure: a part whose 'what' is one of ``heads`` (the labels of the figure's experiments),
    or names the figure by its number (the figure titled 'Figure 4 — …' in 'Fig. 4', 'Figs. 2–3' or
    'Figs. 4, 5'); '' when none is."""
    parts = [p.strip() for p in label.split("; ") if p.strip()]
    mine = [p for p in parts if p.split(": ", 1)[0] in heads]
    if mine:
        return "; ".join(mine)
    m = re.match(r"(?:Figure|Fig\.)\s*(\d+)(\w*)", title)
    if not m:
        return ""
    number, suffix = int(m[1]), m[2]
    for part in parts:
        head = part.split(": ", 1)[0]
        h = re.match(r"Figs?\.\s*([\d\w,–\- ]+)$", head)
        if not h:
            continue
        named = set()
        for token in re.split(r",\s*", h[1].strip()):
            r = re.fullmatch(r"(\d+)\s*[–-]\s*(\d+)", token)
            named |= {str(k) for k in range(int(r[1]), int(r[2]) + 1)} if r else {token.strip()}
        if f"{number}{suffix}" in named:
            mine.append(part)
    return "; ".join(mine)


def same_tables(tables: Sequence[str | Path], folder: str | Path) -> bool:
    """Whether each of a figure's tables (this run's) is, row for row, the table of the same name in the reference
    folder ``folder`` (``<folder>/tables/<name>``): then the two figures show the same data (their scale stamps
    differ).  False when there is no table, no folder or a table the reference lacks."""
    if not tables or not folder:
        return False
    for table in tables:
        theirs = Path(folder, "tables", Path(table).name)
        if not Path(table).is_file() or not theirs.is_file():
            return False
        a, b = read_table(table), read_table(theirs)
        if list(a.columns) != list(b.columns) or not a.reset_index(drop=True).equals(b.reset_index(drop=True)):
            return False
    return True


def same_picture(a: str | Path, b: str | Path) -> bool:
    """Whether two PNGs show the same picture: the same size and the same pixels (flattened on white)."""
    from PIL import Image, ImageChops

    if Path(a).read_bytes() == Path(b).read_bytes():
        return True
    with Image.open(a) as ia, Image.open(b) as ib:
        if ia.size != ib.size:
            return False
        flat = [Image.alpha_composite(Image.new("RGBA", im.size, "white"), im.convert("RGBA")).convert("RGB")
                for im in (ia, ib)]
    return ImageChops.difference(*flat).getbbox() is None


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


def embedded_pngs(paths: Sequence[str | Path], workers: int = 1) -> dict[str, tuple[str, tuple[int, int]]]:
    """:func:`embedded_png` of each of ``paths`` (path → result), on ``workers`` processes: the report job runs
    alone at the end of the pipeline, and resizing, quantising and compressing its sixty-odd figures was most of
    its 13 s on one core (the same bytes whatever ``workers``)."""
    unique = list(dict.fromkeys(str(p) for p in paths))
    if workers <= 1 or len(unique) <= 1:
        return {p: embedded_png(p) for p in unique}
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=min(workers, len(unique))) as pool:
        return dict(zip(unique, pool.map(embedded_png, unique, chunksize=max(1, len(unique) // (4 * workers)))))


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


def _text(pdf: str | Path) -> dict[str, Any]:
    """A figure's smallest text (pt) and width (pt) from its PDF, and the width to show it at so that its text
    reads at least :data:`privopt.pipeline.figure_text.MIN_PT` (``px``: 0 where there is no PDF to measure)."""
    if not pdf or not Path(pdf).is_file():
        return {"min_pt": "", "width_pt": "", "px": 0}
    try:
        size, width = pdf_text_sizes(pdf)
    except ValueError:  # not a page matplotlib wrote: shown as it is, unmeasured (the browser test names it)
        return {"min_pt": "", "width_pt": "", "px": 0}
    return {"min_pt": f"{size:.3g}", "width_pt": f"{width:.1f}", "px": readable_width(size, width)}


def _paper_context(meta: Mapping[str, Any], settings: Any, findings: Sequence[Finding],
                   reference: Mapping[str, Any] | None = None, base: str | Path | None = None,
                   scale: str = "", ref_found: Sequence[Finding] | None = None,
                   notebooks: Mapping[str, str] | None = None,
                   reported: Mapping[str, Sequence[Mapping[str, str]]] | None = None,
                   *, embedded: Mapping[str, tuple[str, tuple[int, int]]]) -> dict[str, Any]:
    """One paper's part of the report; ``embedded``: :func:`embedded_pngs` of its figures and their references'."""
    claims_table = pd.read_csv(meta["claims"], keep_default_na=False)
    ref_claims = pd.read_csv(reference["claims"], keep_default_na=False) if reference else None
    about = json.loads(Path(reference["about"]).read_text()) if reference else None
    if about is not None:  # what the page shows of it, each key there even where an older reference lacks it
        about = {"scale": "", "label": "", "core_hours": None, "cpu": "", "written": "", "folder": "", **about}
    manifest = None
    if about and about.get("folder") and Path(about["folder"], "manifest.json").is_file():
        manifest = json.loads(Path(about["folder"], "manifest.json").read_text())
    flags = paper_settings_flags(manifest)
    ref_labels = (reference or {}).get("figure_labels", {})
    claims = attach_reference(claims_table.to_dict("records"), ref_claims)
    declared = {f["id"] for f in meta["figures"]}
    notebooks = notebooks or {}
    figures = []
    for fig in meta["figures"]:
        fig = dict(fig)
        fig["caption"] = _inline_rst(fill_caption(fig.get("caption", ""), {meta["key"]: settings, "scale": scale}))
        ref_png = (reference or {}).get("figures", {}).get(fig["id"])
        fig["same"] = bool(ref_png) and (same_picture(ref_png, fig["image"])
                                         or same_tables(fig["tables"], (about or {}).get("folder", "")))
        fig["image_b64"], fig["image_size"] = embedded[str(fig["image"])]
        fig["text"] = _text(fig["pdf"])
        fig["reference_image"] = ref_png or ""
        fig["reference_b64"], fig["reference_size"] = embedded[str(ref_png)] if ref_png else ("", (0, 0))
        fig["reference_label"] = ref_labels.get(fig["id"], "") if ref_png else ""
        fig["paper_settings"] = None if flags is None or fig["id"] not in flags else flags[fig["id"]]
        fig["differs"] = _differs(manifest, fig["id"]) if fig["paper_settings"] is False else []
        ref_pdf = str(Path(ref_png).with_suffix(".pdf")) if ref_png else ""
        fig["reference_text"] = _text(ref_pdf) if ref_pdf else _text("")
        html_nb = notebooks.get(fig["id"], "")
        fig["links"] = {"png": _link(fig["image"], base), "pdf": _link(fig["pdf"], base),
                        "notebook": _link(html_nb, base) if html_nb else _link(fig["notebook"], base),
                        "tables": [(Path(t).name, _link(t, base)) for t in fig["tables"]],
                        "reference_png": _link(ref_png, base) if ref_png else "",
                        "reference_pdf": _link(ref_pdf, base) if ref_pdf and Path(ref_pdf).is_file() else ""}
        fig["table"] = fig["tables"][0] if fig["tables"] else ""
        fig["reported"] = list((reported or {}).get(fig["id"], ()))
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
    by_figure = {row["anchor"]: row for row in summary_rows(meta, claims_table, ref_claims)}
    still_open = ref_claims if ref_claims is not None else claims_table
    for fig in figures:
        fig["summary"] = by_figure[fig["anchor"]]
        mine = still_open[(still_open["figure"] == fig["id"]) & (still_open["verdict"] != REPRODUCED)] if len(still_open) else still_open
        fig["open"] = list(dict.fromkeys(mine["claim"])) if len(mine) else []

    def sentences(found: Sequence[Finding], table: pd.DataFrame | None) -> list[dict[str, str]]:
        extra = verdict_findings(table) if table is not None else []
        return [{"text": f.text, "anchor": anchors.get(f.figure, _anchor(meta["key"]))} for f in [*found, *extra]]

    open_scale = f"reference ({about.get('scale', '')})" if about else f"this run ({scale}); no reference yet"
    return {**meta, "figures": figures, "claims": claims, "verdict_counts": verdict_counts,
            "glance": glance_row(meta, claims_table, ref_claims, about, flags), "reference": about,
            "open": open_claims(meta, ref_claims if ref_claims is not None else claims_table, open_scale),
            "other_claims": [c for c in claims if c["figure"] not in declared],
            "other_anchor": _anchor(meta["key"], "other"), "other_claims_anchor": _anchor(meta["key"], "other", "claims"),
            "summary": summary_rows(meta, claims_table, ref_claims), "findings": sentences(findings, claims_table),
            "reference_findings": sentences(ref_found or (), ref_claims) if reference else [],
            "records": _records(meta), "settings": yaml.safe_dump(settings, sort_keys=False, allow_unicode=True),
            "settings_digest": config_digest(settings), "anchor": _anchor(meta["key"])}


def paper_beside_us(key: str, figure: str, tables: Sequence[str | Path], folder: str | Path | None
                    ) -> list[dict[str, str]]:
    """What the paper reports about ``figure`` (its :attr:`~privopt.pipeline.protocol.Paper.reported`), each
    beside the same quantity measured on the reference's tables (``folder``'s ``tables/``: '' without a reference
    or where it lacks one of the figure's tables) and on this run's (``tables``: the figure's table files, in the
    order of its inputs).  Imports the registry and the paper's declarations; a declaration naming a figure the
    paper does not declare, or a measure that fails, is an error naming the declaration."""
    from privopt.pipeline.protocol import resolve
    from privopt.pipeline.registry import paper

    the = paper(key)
    if not the.reported:
        return []
    declared = {f.id: f for f in the.figures}
    reported = list(resolve(the.reported))
    unknown = sorted({r.figure for r in reported} - set(declared))
    if unknown:
        raise ValueError(f"{the.reported}: figures {unknown} are not declared by paper {key} (it declares {sorted(declared)})")
    names = list(declared[figure].inputs)

    def measure(r, files: list[Path]) -> str:
        if not files or not all(f.is_file() for f in files):
            return ""
        frames = {name: read_table(f) for name, f in zip(names, files)}
        try:
            return str(r.measure(frames))
        except Exception as exc:  # a table without the column it reads: name the declaration and the files
            raise RuntimeError(f"{the.reported}: measuring “{r.quantity}” of figure {figure} on "
                               f"{[str(f) for f in files]} failed: {exc!r}") from exc

    ours = [Path(t) for t in tables]
    theirs = [Path(folder, "tables", t.name) for t in ours] if folder else []
    return [{"quantity": r.quantity, "paper": r.paper, "where": r.where, "reference": measure(r, theirs),
             "this_run": measure(r, ours)} for r in reported if r.figure == figure]


def paper_numbers(papers: Mapping[str, Mapping[str, Any]], references: Mapping[str, Mapping[str, Any]] | None = None
                  ) -> dict[str, dict[str, list[dict[str, str]]]]:
    """Per paper and figure, :func:`paper_beside_us` on this run's tables and on the paper's reference (the folder
    its ``about`` file names, as ``references[key]["about"]``); figures the paper reports nothing about left out."""
    out: dict[str, dict[str, list[dict[str, str]]]] = {}
    for key, meta in papers.items():
        ref = (references or {}).get(key)
        folder = json.loads(Path(ref["about"]).read_text()).get("folder", "") if ref else ""
        rows = {f["id"]: paper_beside_us(key, f["id"], f["tables"], folder) for f in meta["figures"]}
        out[key] = {fid: r for fid, r in rows.items() if r}
    return out


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
                  references: Mapping[str, Mapping[str, Any]] | None = None,
                  reference_found: Mapping[str, Sequence[Finding]] | None = None,
                  notebooks: Mapping[str, Mapping[str, str]] | None = None,
                  reported: Mapping[str, Mapping[str, Sequence[Mapping[str, str]]]] | None = None,
                  workers: int = 1) -> None:
    """Render ``template`` (the report) and the other :data:`PAGES` beside it for ``papers`` (key →
    :meth:`privopt.pipeline.protocol.Paper.metadata`) with their config sections ``settings``, the provenance
    record of each data set read (``data``: name → record of :mod:`privopt.pipeline.datasets`; empty or None
    when no paper reads one), the ``scale`` label, the privacy-audit table at ``audits``, each paper's
    ``findings`` on this run's tables (see :func:`compute_findings`) and on its reference's
    (``reference_found``: :func:`reference_findings`), each paper's reference results ``references`` (key →
    ``{"claims": csv, "about": json, "figures": {figure id: png}, "figure_labels": {figure id: words}}``, for
    the papers that have one), each figure's rendered notebook (``notebooks``: key → {figure id: html}) and what
    each paper reports beside our values (``reported``: key → {figure id: rows of :func:`paper_beside_us`}).
    The figures are embedded on ``workers`` processes (:func:`embedded_pngs`).
    Writes ``output`` (the report) and the other pages into its folder, each atomically."""
    template = Path(template)
    findings = findings or {}
    references = references or {}
    reference_found = reference_found or {}
    notebooks = notebooks or {}
    base = Path(output).parent
    embedded = embedded_pngs([png for key, meta in papers.items() for fig in meta["figures"]
                              for png in (fig["image"], references.get(key, {}).get("figures", {}).get(fig["id"]))
                              if png], workers)
    context = [_paper_context(meta, settings[key], findings.get(key, ()), references.get(key), base, scale,
                              reference_found.get(key), notebooks.get(key), (reported or {}).get(key),
                              embedded=embedded)
               for key, meta in papers.items()]
    audit_table = audit_rows(pd.read_csv(audits)) if audits else []
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(template.parent)), autoescape=True,
                             undefined=jinja2.StrictUndefined)
    software = {**environment(), "rendered": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    shown = {"scale": scale, **{key: settings[key] for key in papers}}
    pages = {"index": Path(output).name, "provenance": PAGES[1], "audits": PAGES[2]}
    values = dict(papers=context, datasets=data_provenance_rows(data), scale=scale, software=software,
                  audits=audit_table, data=data_description(data), audit_settings=audit_settings or {},
                  verdicts=VERDICT_ORDER, config_digest=config_digest(shown), pages=pages,
                  # open at the reference scale (the first screen) and, folded below them, this run's open claims
                  # of the papers that have no reference yet (a quick run can leave dozens open)
                  open_claims=[row for paper in context if paper["reference"] for row in paper["open"]],
                  open_unreferenced=[row for paper in context if not paper["reference"] for row in paper["open"]])
    for name, target in ((template.name, Path(output)), (PAGES[1] + ".j2", base / PAGES[1]),
                         (PAGES[2] + ".j2", base / PAGES[2])):
        html = env.get_template(name).render(**values)
        with atomic_path(target) as tmp:
            tmp.write_text(html, encoding="utf-8")
