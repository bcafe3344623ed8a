"""The project's own record of how each paper was read (issue 40, step 6).

Every paper's page (``Paper.reading_page``, by default ``docs/papers/<key>.md``) has a section "Reading of the
paper" whose entries are numbered ``**R1 — …**``, ``**R2 — …**`` …; code cites them as ``<key> reading R2`` or
``docs/papers/<key>.md, reading R2`` (several: ``readings R2, R5`` or ``R10–R13``).  These tests keep the record
self-contained and the citations honest:

* nothing tracked under src/ or docs/ points outside the repository (``shared/specs``, ``../shared``): a user who
  clones the repository has neither; nor does anything else a user reads cite the specs (the schemas' descriptions,
  config files, profiles, scripts, benchmarks, README);
* every "reading Rn" in src/, the schemas and the config files names its page and resolves to an entry there, and
  every one in docs/ that names a page resolves too, so a renumbered or deleted entry cannot leave a dangling citation.
"""

import re
import subprocess

import pytest
from workflow_runs import REPO

from privopt.pipeline import registry

#: text that points outside the repository
OUTSIDE = ("shared/specs", "../shared")
SECTION = "Reading of the paper"
ENTRY = re.compile(r"^\*\*R(\d+) — ", re.M)
#: "reading R3", "readings R3, R5", "readings R10–R13", "readings R3 and R5"
CITATION = re.compile(r"\breadings? (R\d+(?:\s*(?:,|–|and)\s*R\d+)*)")
#: what must stand right before a citation in src/: the page, as a paper key or its path
PAGE = re.compile(r"(?:docs/papers/)?([a-z]+\d{4})(?:\.md)?,?\s*$")


def _tracked(*folders: str) -> list:
    """Tracked text files under ``folders`` (git's list; without git, every file but build leftovers)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", *folders], cwd=REPO, capture_output=True, check=True).stdout
        paths = [REPO / p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        paths = [p for f in folders for p in (REPO / f).rglob("*") if p.is_file()
                 and not any(part.endswith(".egg-info") or part == "__pycache__" for part in p.parts)]
    return [p for p in paths if p.is_file() and p.suffix in (".py", ".md", ".yaml", ".txt", ".html", ".j2", ".css")]


def _entries(page_text: str) -> set[int]:
    start = page_text.find(f"\n## {SECTION}\n")
    if start < 0:
        return set()
    end = page_text.find("\n## ", start + 1)
    return {int(n) for n in ENTRY.findall(page_text[start: end if end > 0 else None])}


def _numbers(cited: str) -> list[int]:
    out = []
    for a, dash, b in re.findall(r"R(\d+)(?:\s*(–)\s*R(\d+))?", cited):
        out.extend(range(int(a), int(b) + 1) if dash else [int(a)])
    return out


def _citations(text: str, require_page: bool):
    """(line, page key or None, numbers) of each reading citation in ``text``."""
    for m in CITATION.finditer(text):
        before = text[max(0, m.start() - 40): m.start()]
        page = PAGE.search(before)
        if page is None and not require_page:
            continue
        yield text.count("\n", 0, m.start()) + 1, page.group(1) if page else None, _numbers(m.group(1))


def _pages() -> dict[str, set[int]]:
    """Paper key → the entry numbers of its reading page."""
    return {key: _entries((REPO / paper.reading_page).read_text()) if (REPO / paper.reading_page).is_file() else set()
            for key, paper in registry.papers().items()}


def test_nothing_in_src_or_docs_points_outside_the_repository():
    files = _tracked("src", "docs")
    assert len(files) > 50, "no tracked files found: is the repository root right?"
    bad = [f"{p.relative_to(REPO)}:{n}: {line.strip()[:100]}" for p in files
           for n, line in enumerate(p.read_text(errors="replace").splitlines(), 1) if any(o in line for o in OUTSIDE)]
    assert not bad, "pointers outside the repository (say it in the project's own words):\n" + "\n".join(bad)


#: a citation of a spec section ("spec §5.2", "spec private-linear-bandits.md"): a file the repository does not have
SPEC_CITATION = re.compile(r"\bspec (§|A\d|[a-z-]+\.md)")


def test_no_citation_of_a_spec_section_is_left_in_src():
    bad = [f"{p.relative_to(REPO)}:{n}: {line.strip()[:100]}" for p in _tracked("src")
           for n, line in enumerate(p.read_text(errors="replace").splitlines(), 1) if SPEC_CITATION.search(line)]
    assert not bad, "cite the paper page's reading (\"<key> reading Rn\") instead:\n" + "\n".join(bad)


#: what a user reads besides src/ and docs/: the schemas' descriptions, the config files, the profiles, the report's
#: templates, the scripts, the benchmarks and the README (tests/ may name the specs: CI has them beside the checkout)
USER_FACING = ("workflow", "config", "profiles", "paper", "scripts", "benchmarks", "README.md")


def test_nothing_else_a_user_reads_cites_the_specs():
    files = _tracked(*USER_FACING)
    assert any(p.name.endswith(".schema.yaml") for p in files) and any(p.parent.name == "config" for p in files)
    bad = [f"{p.relative_to(REPO)}:{n}: {line.strip()[:100]}" for p in files
           for n, line in enumerate(p.read_text(errors="replace").splitlines(), 1)
           if "shared/specs" in line or SPEC_CITATION.search(line)
           or (p.name.endswith(".schema.yaml") and re.search(r"\bspec\b", line))]  # no code there: any "spec"
    assert not bad, "cite the paper page's reading (\"<key> reading Rn\") or say it in the project's words:\n" + \
        "\n".join(bad)


def test_every_paper_has_a_numbered_record_of_its_reading():
    for key, paper in registry.papers().items():
        page = REPO / paper.reading_page
        assert page.is_file(), f"paper {key}: its reading page {paper.reading_page} does not exist"
        numbers = sorted(_entries(page.read_text()))
        assert numbers, f"{paper.reading_page}: no section '## {SECTION}' with entries **R1 — …**"
        assert numbers == list(range(1, len(numbers) + 1)), f"{paper.reading_page}: entries not numbered R1…Rn: {numbers}"


@pytest.mark.parametrize("folder, require_page", [("src", True), ("docs", False), ("workflow/schemas", True),
                                                  ("config", True)])
def test_every_reading_citation_resolves_to_an_entry_of_its_page(folder, require_page):
    pages = _pages()
    bad = []
    for path in _tracked(folder):
        for line, key, numbers in _citations(path.read_text(errors="replace"), require_page):
            where = f"{path.relative_to(REPO)}:{line}"
            if key is None:
                bad.append(f"{where}: cites a reading without naming its page ('<key> reading Rn')")
            elif key not in pages:
                bad.append(f"{where}: {key!r} is no registered paper")
            elif set(numbers) - pages[key]:
                bad.append(f"{where}: {key} has no reading {sorted(set(numbers) - pages[key])}")
    assert not bad, "\n".join(bad)


def test_the_citation_check_catches_a_dangling_or_pageless_citation():
    """The check above can fail: a planted bad citation of each kind is found (and a good one is not)."""
    text = ("x (shariff2018 reading R3)\ny (docs/papers/smith2013.md, readings R2–R4)\n"
            "z (reading R7)\nw (chaturvedi2021 readings R1, R99)\n")
    found = list(_citations(text, require_page=True))
    assert found == [(1, "shariff2018", [3]), (2, "smith2013", [2, 3, 4]), (3, None, [7]),
                     (4, "chaturvedi2021", [1, 99])]
    assert 99 not in _pages()["chaturvedi2021"]
