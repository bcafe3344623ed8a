"""The README and docs/: the README stays short and its test command in step with .ci/run, every registered
paper and figure has its row in the README's tables, and every relative link of README.md and docs/ resolves
(to a file, and to a heading of it when it names one); a paper page's copies of the shared cost and reference
rows stay as their sources have them, and the cost table totals what benchmarks/paper_cost.py prints."""

import re
import shlex

from workflow_runs import REPO

README = REPO / "README.md"
DOCS = [README, *sorted((REPO / "docs").rglob("*.md"))]


def _section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start: end if end > 0 else None]


def _installs(words: list[str]) -> tuple:
    """What a pip command line installs (its arguments after ``install``, but --quiet)."""
    return tuple(w for w in words[words.index("install") + 1:] if w != "--quiet")


def test_the_readme_is_short():
    assert len(README.read_text().splitlines()) <= 160, "README.md grew: move the details to docs/"


def test_the_readme_test_command_is_what_ci_runs():
    """.ci/run says "The README's test command (keep the two in step)"."""
    block = re.search(r"```bash\n(.*?)```", _section(README.read_text(), "Tests"), re.S).group(1).strip()
    readme_steps = [shlex.split(s) for s in block.split("&&")]
    readme_install = next(s for s in readme_steps if "install" in s)
    assert readme_steps[-1] == ["pytest"], block
    ci = (REPO / ".ci" / "run").read_text()
    after = ci[ci.index("keep the two in step"):].splitlines()[1:]
    ci_install = shlex.split(next(line for line in after if " install " in line))
    ci_test = shlex.split(next(line for line in after if "pytest" in line))
    assert _installs(readme_install) == _installs(ci_install), (block, ci_install)
    assert ci_test[-1] == "pytest" and ci_test[:2] in (["python", "-m"], ["pytest"]), ci_test


def test_every_registered_paper_and_figure_has_a_row_in_the_readme():
    """docs/adding-a-paper.md: a paper brings 'a row in README's paper and figure tables'."""
    from privopt.pipeline.registry import papers

    text = README.read_text()
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    for key, paper in papers().items():
        assert any(line.startswith(f"| `{key}` |") for line in rows), f"no row for paper {key}"
        for fig in paper.figures:
            assert any(f"| `{key}_{fig.id}` |" in line for line in rows), f"no row for figure {key}_{fig.id}"


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def test_relative_links_resolve():
    broken, seen = [], 0
    for md in DOCS:
        text = re.sub(r"```.*?```", "", md.read_text(), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            seen += 1
            path, _, anchor = target.partition("#")
            dest = (md.parent / path).resolve() if path else md
            if not dest.exists():
                broken.append(f"{md.relative_to(REPO)}: {target} (no such file)")
            elif anchor and dest.suffix == ".md":
                headings = {_slug(h) for h in re.findall(r"^#+ (.*)$", dest.read_text(), re.M)}
                if anchor not in headings:
                    broken.append(f"{md.relative_to(REPO)}: {target} (no heading #{anchor})")
    assert seen and not broken, broken


def _table_rows(section: str) -> list[str]:
    """The body rows of the markdown tables in ``section`` (not their header or separator rows)."""
    lines = section.splitlines()
    return [line for i, line in enumerate(lines)
            if line.startswith("| ") and i >= 2 and lines[i - 1].startswith("|") and lines[i - 2].startswith("|")]


def test_each_paper_page_repeats_the_cost_and_reference_rows_of_the_shared_tables_as_they_are():
    """A paper's page copies its rows of the paper-scale cost table (docs/performance.md) and of the reference
    table (docs/usage.md) so that they can be read in place; a copy that drifts from its source is stale."""
    perf = _section((REPO / "docs" / "performance.md").read_text(), "Paper-scale cost per figure")
    usage = _section((REPO / "docs" / "usage.md").read_text(), "Reference results")
    for page in sorted((REPO / "docs" / "papers").glob("*.md")):
        text = page.read_text()
        cost, ref = _table_rows(_section(text, "Paper-scale cost")), _table_rows(_section(text, "Reference results"))
        assert cost and ref, f"{page.name}: no rows under 'Paper-scale cost' or 'Reference results'"
        for row in cost:
            assert row in perf.splitlines(), f"{page.name}: cost row not in docs/performance.md: {row[:90]}"
        for row in ref:
            assert row in usage.splitlines(), f"{page.name}: reference row not in docs/usage.md: {row[:90]}"


def test_the_paper_scale_cost_table_totals_what_paper_cost_prints():
    """docs/performance.md's cost table is benchmarks/paper_cost.py's output grouped per paper by hand: its
    total row must be the script's (a figure left out of the table, or a remeasured constant, shows here)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("paper_cost", REPO / "benchmarks" / "paper_cost.py")
    paper_cost = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(paper_cost)
    config = paper_cost.load_config([REPO / "config" / "config.yaml", REPO / "config" / "paper.yaml"])
    rows = paper_cost.figure_rows(config)
    total = f"| all run jobs | {sum(r['jobs'] for r in rows)} | | | {sum(r['core_hours'] for r in rows):.1f} |"
    perf = _section((REPO / "docs" / "performance.md").read_text(), "Paper-scale cost per figure")
    assert total in perf.splitlines(), f"docs/performance.md's cost table does not end with {total}"
