"""The README and docs/: the README stays short and its test command in step with .ci/run, every registered
paper and figure has its row in the README's tables, and every relative link of README.md and docs/ resolves
(to a file, and to a heading of it when it names one); the tables generated from the declarations (paper and
figure rows, the paper-scale cost) are what the generator gives, so a sixth paper appears by adding its files;
a paper page's copies of the reference rows stay as their source has them."""

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


def test_each_paper_page_repeats_the_reference_rows_of_the_shared_table_as_they_are():
    """A paper's page copies its rows of the reference table (docs/usage.md) so that they can be read in place; a
    copy that drifts from its source is stale.  (Its cost rows are generated: the test below.)"""
    usage = _section((REPO / "docs" / "usage.md").read_text(), "Reference results")
    for page in sorted((REPO / "docs" / "papers").glob("*.md")):
        ref = _table_rows(_section(page.read_text(), "Reference results"))
        assert ref, f"{page.name}: no rows under 'Reference results'"
        for row in ref:
            assert row in usage.splitlines(), f"{page.name}: reference row not in docs/usage.md: {row[:90]}"


def _docs_tables(root, *args):
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    return subprocess.run([sys.executable, str(root / "scripts" / "docs_tables.py"), "--root", str(root), *args],
                          capture_output=True, text=True, env=env)


def _docs_copy(dest, toy: bool = False):
    """A copy of the workflow with the README, docs/ and benchmarks/ (what the docs generator reads and writes)."""
    import shutil

    from workflow_runs import copy_workflow

    work = copy_workflow(dest, toy=toy)
    shutil.copy2(README, work / "README.md")
    shutil.copytree(REPO / "docs", work / "docs")
    return work


def test_the_generated_tables_of_the_readme_and_docs_are_what_the_declarations_give():
    """README's paper and figure tables, docs/performance.md's cost table and each paper page's cost rows are
    generated from the registry (privopt.pipeline.doctables): the committed text must be the generator's."""
    from privopt.pipeline.config import load_config
    from privopt.pipeline.doctables import COST_CONFIGS, update
    from privopt.pipeline.registry import papers

    base, *files = (REPO / c for c in COST_CONFIGS)
    stale = update(REPO, papers(), load_config(files, base=base), check=True)
    assert not stale, f"run `python scripts/docs_tables.py`: these generated blocks differ: {stale}"


def test_a_hand_edit_inside_a_generated_block_is_caught_and_regenerated(tmp_path):
    work = _docs_copy(tmp_path / "w")
    perf = work / "docs" / "performance.md"
    text = perf.read_text()
    row = next(line for line in text.splitlines() if line.startswith("| Shariff & Sheffet Fig. 5"))
    perf.write_text(text.replace(row, row.replace(" | 300 | ", " | 299 | ")))
    check = _docs_tables(work, "--check")
    assert check.returncode == 1 and "docs/performance.md: cost" in check.stdout, check.stdout + check.stderr
    assert _docs_tables(work).returncode == 0
    assert perf.read_text() == text and _docs_tables(work, "--check").returncode == 0


def test_a_sixth_paper_appears_in_the_readme_and_docs_by_adding_its_files_only(tmp_path):
    """docs/adding-a-paper.md: a paper adds files; the README's rows and the cost table follow from its
    declaration when the generator runs (no hand-copied row to write)."""
    work = _docs_copy(tmp_path / "w", toy=True)
    before = {p: (work / p).read_text() for p in ("README.md", "docs/performance.md")}
    assert _docs_tables(work, "--check").returncode == 1  # the toy's rows are missing until generated
    done = _docs_tables(work)
    assert done.returncode == 0, done.stderr
    readme, perf = (work / "README.md").read_text(), (work / "docs/performance.md").read_text()
    assert "| `toy` | Toy paper — " in readme and "| `toy_fig1` |" in readme and "| `toy` |" not in before["README.md"]
    assert "`toy_runs_laplace`" in perf and "`toy_runs_laplace`" not in before["docs/performance.md"]
    # priced at the paper scale its own part sets (config/toy/paper.yaml: 400 runs, 100 a job; quick: 40, 20)
    assert "| `toy_runs_laplace` | 12 |" in perf, [line for line in perf.splitlines() if "toy_runs" in line]
    # the rest of each file is untouched: only the generated blocks grew
    for p, old in before.items():
        new = (work / p).read_text()
        # the sums grew, and the report lies under the checks of every data set read (the toy's too)
        totals = {line for line in old.splitlines() if line.startswith(("| **all", "- **paper**", "| reproduction report"))}
        assert set(old.splitlines()) - set(new.splitlines()) <= totals
