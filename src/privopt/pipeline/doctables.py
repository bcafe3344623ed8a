"""The tables of the README and docs/ that the papers' declarations determine, generated rather than copied.

A generated block is the text between ``<!-- BEGIN GENERATED name -->`` and ``<!-- END GENERATED name -->`` in a
markdown file; ``python scripts/docs_tables.py`` rewrites every block from the registry (paper rows, figure rows,
the paper-scale cost table of each paper and in all), ``--check`` lists the blocks that differ and changes nothing
(``tests/test_docs.py`` runs it).  Adding a paper therefore adds its rows everywhere by running the script; a
cost model or figure that changes shows in the docs the same way, and a hand edit inside a block is caught.

Blocks: README.md ``papers``, ``figures`` and ``paper-scale`` (the paper scale's cost); docs/performance.md ``cost``; each docs/papers/<key>.md
``cost-<key>``.  A block a file lacks is an error naming the file and the block, so a page cannot silently stop
being generated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from privopt.pipeline import cost_table
from privopt.pipeline.protocol import Paper

BEGIN = "<!-- BEGIN GENERATED {name} (python scripts/docs_tables.py; do not edit by hand) -->"
END = "<!-- END GENERATED {name} -->"
#: the scale whose output paths the README's figure table names
README_SCALE = "quick"
#: the papers' cost table is priced at this configuration (config/config.yaml, then these files)
COST_CONFIGS = ("config/config.yaml", "config/paper.yaml")


class DocsError(ValueError):
    """A generated block is missing or malformed in a file (its message names both)."""


def in_order(papers: Mapping[str, Paper]) -> list[tuple[str, Paper]]:
    """The papers as the docs list them: those with experiments of their own first, then the theory papers
    whose figures are ours; by key within each."""
    return sorted(papers.items(), key=lambda kv: (kv[1].kind != "experimental", kv[0]))


def paper_page(root: Path, key: str) -> str | None:
    page = f"docs/papers/{key}.md"
    return page if (root / page).exists() else None


def papers_table(papers: Mapping[str, Paper], root: Path) -> str:
    """The README's paper table: key, citation, what its figures are (``Paper.summary``), its page."""
    lines = ["| key | paper | figures | details |", "| --- | --- | --- | --- |"]
    for key, p in in_order(papers):
        page = paper_page(root, key)
        lines.append(f"| `{key}` | {p.short} — {p.title}, {p.venue} | {p.summary or '—'} | "
                     f"{f'[{page}]({page})' if page else '—'} |")
    return "\n".join(lines)


def _data_namespace(root: str, datasets) -> str:
    """A data namespace (:func:`privopt.pipeline.protocol.data_namespace`) with ``<check>`` for each check, which
    depends on the data configured: ``results/quick/uber~<check>``."""
    names = sorted(set(datasets))
    return f"{root}/" + "+".join(f"{name}~<check>" for name in names) if names else root


def figures_table(papers: Mapping[str, Paper], scale: str = README_SCALE) -> str:
    """The README's figure table: per figure its target rule, executed notebook (rendered) and output files; per
    paper the target that makes every figure and the claims; then the rules every paper shares.  The results of
    a paper reading data sets lie under their checks, ``<data set>~<check>/``, named so."""
    root = f"results/{scale}"
    lines = ["| figure | target rule | executed notebook | output |", "| --- | --- | --- | --- |"]
    for key, p in in_order(papers):
        mine = _data_namespace(root, p.datasets)
        for f in p.figures:
            out = p.figure_files(f.id, mine)["png"].removesuffix(".png")
            lines.append(f"| {p.short}: {f.title} | `{key}_{f.id}` | `{p.notebook_page(f.id, mine)}` | `{out}.{{pdf,png}}` |")
        audits = " and its privacy audits" if p.audits else ""
        lines.append(f"| {p.short}: every figure, the claims{audits} | `{key}` | — | `{p.claims_file_at(mine)}` |")
    lines.append(f"| privacy audits of every mechanism (ε lower bounds on neighbouring inputs, each with a planted bug; "
                 f"white-box noise-law tests) and claimed vs exact (ε, δ) | `privacy_audit` | — | "
                 f"`{root}/audit/audits.csv`, `accounting.csv` |")
    report = _data_namespace(root, [d for p in papers.values() for d in p.datasets])
    lines.append(f"| reproduction report | `report_html` | `paper/report.html.j2` | `{report}/paper/index.html` |")
    return "\n".join(lines)


def paper_scale_line(rows: list[dict]) -> str:
    """The README's definition of the paper scale, with what it costs by the cost models."""
    jobs, hours = sum(r["jobs"] for r in rows), sum(r["core_hours"] for r in rows)
    return (f"- **paper** (`--configfile config/paper.yaml`): the papers' settings, {jobs:,} run jobs, {hours:.1f} "
            f"core-hours by the cost models (`benchmarks/paper_cost.py`).")


def blocks(papers: Mapping[str, Paper], root: Path, config: Mapping[str, Any]) -> dict[str, dict[str, Callable[[], str]]]:
    """{file relative to the root: {block name: a function returning its text}}."""
    rows = cost_table.figure_rows(config)
    out: dict[str, dict[str, Callable[[], str]]] = {
        "README.md": {"papers": lambda: papers_table(papers, root), "figures": lambda: figures_table(papers),
                      "paper-scale": lambda: paper_scale_line(rows)},
        "docs/performance.md": {"cost": lambda: cost_table.markdown(rows, "all run jobs")},
    }
    for key, p in papers.items():
        page = paper_page(root, key)
        if page:
            mine = [r for r in rows if r["paper"] == key]
            out[page] = {f"cost-{key}": (lambda mine=mine, p=p: cost_table.markdown(mine, f"{p.short}, all run jobs"))}
    return out


def _span(text: str, name: str, file: str) -> tuple[int, int]:
    """The character range of block ``name``'s body in ``text`` (between its two marker lines)."""
    begin, end = BEGIN.format(name=name), END.format(name=name)
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < 0 or j < i or text.count(begin) != 1 or text.count(end) != 1:
        raise DocsError(f"{file}: needs exactly one generated block {name!r}: the line {begin!r}, the table, "
                        f"and the line {end!r}")
    return i + len(begin) + 1, j


def rewrite(text: str, generated: Mapping[str, str], file: str) -> str:
    for name, body in generated.items():
        a, b = _span(text, name, file)
        text = text[:a] + body.rstrip("\n") + "\n" + text[b:]
    return text


def update(root: Path, papers: Mapping[str, Paper], config: Mapping[str, Any], check: bool = False) -> list[str]:
    """Rewrite every generated block under ``root`` (``check``: change nothing); returns "file: block" for each
    block whose text differed."""
    stale = []
    for file, named in blocks(papers, root, config).items():
        path = root / file
        text = path.read_text()
        new = rewrite(text, {name: make() for name, make in named.items()}, file)
        if new != text:
            old_bodies = {n: text[slice(*_span(text, n, file))] for n in named}
            new_bodies = {n: new[slice(*_span(new, n, file))] for n in named}
            stale += [f"{file}: {n}" for n in named if old_bodies[n] != new_bodies[n]]
            if not check:
                tmp = path.with_name(f".{path.name}.tmp")
                tmp.write_text(new)
                tmp.replace(path)
    return stale
