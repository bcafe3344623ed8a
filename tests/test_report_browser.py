"""The reproduction report as a person sees it: opened in headless Chromium.

The smoke pipeline's report (``results/paper/index.html`` of the shared ``--cores 2`` smoke run) must
load with every image decoded (natural width > 0), no console error, uncaught exception or failed
load, and every in-page link pointing at an element of the page; a full-page screenshot is saved
beside it (and copied to this checkout's ``results/paper/``) for a person to look at.  A page with one
planted defect of each kind shows that the checks can fail.

Chromium is Debian's ``chromium`` package, installed by :func:`headless_chromium.ensure_chromium`
where missing (root and apt-get; otherwise the tests are skipped with the reason).
"""

from __future__ import annotations

import shutil
from urllib.parse import unquote, urlparse
from pathlib import Path

import pytest

from headless_chromium import Chromium, ensure_chromium
from workflow_runs import REPO, registry_files

# Every image of the page, with whether it decoded; every in-page link whose target is missing;
# every link to a local file (relative href) with its resolved URL.
INSPECT = r"""(() => {
  const images = Array.from(document.images).map(img => ({
    src: img.currentSrc.slice(0, 60), complete: img.complete, width: img.naturalWidth, alt: img.alt}));
  const dangling = Array.from(document.querySelectorAll('a[href^="#"]'))
    .map(a => a.getAttribute('href').slice(1))
    .filter(id => id === '' || !document.getElementById(decodeURIComponent(id)));
  const files = Array.from(document.querySelectorAll('a[href]'))
    .filter(a => a.protocol === 'file:' && !a.getAttribute('href').startsWith('#'))
    .map(a => a.href.split('#')[0]);
  const anchors = document.querySelectorAll('a[href^="#"]').length;
  return {images, dangling, files, anchors, title: document.title,
          tables: document.querySelectorAll('table').length};
})()"""


@pytest.fixture(scope="module")
def chromium():
    try:
        return ensure_chromium()
    except RuntimeError as exc:
        pytest.skip(str(exc))


def inspect(browser: str, page: Path, screenshot: Path | None = None) -> dict:
    with Chromium(browser) as tab:
        tab.open(page)
        seen = tab.evaluate(INSPECT)
        seen["problems"] = tab.problems()
        if screenshot is not None:
            seen["screenshot_size"] = tab.screenshot(screenshot)
    seen["missing_files"] = [f for f in seen["files"] if not Path(unquote(urlparse(f).path)).exists()]
    return seen


def test_the_checks_catch_a_broken_image_a_dangling_link_and_a_console_error(chromium, tmp_path):
    page = tmp_path / "broken.html"
    page.write_text(
        "<!doctype html><html><head><title>broken</title></head><body>"
        '<h1 id="top">t</h1><a href="#top">ok</a> <a href="#nowhere">dangling</a> <a href="missing.csv">file</a>'
        '<img alt="fine" src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==">'
        '<img alt="broken" src="data:image/png;base64,AAAA">'
        "<script>console.error('planted error');</script></body></html>")
    seen = inspect(chromium, page)
    widths = {img["alt"]: img["width"] for img in seen["images"]}
    assert widths["fine"] == 1 and widths["broken"] == 0
    assert seen["dangling"] == ["nowhere"]
    assert any("planted error" in p for p in seen["problems"]), seen["problems"]
    assert [Path(f).name for f in seen["missing_files"]] == ["missing.csv"]
    # and a clean page reports nothing
    clean = tmp_path / "clean.html"
    clean.write_text('<!doctype html><html><body><h1 id="a">x</h1><a href="#a">a</a></body></html>')
    ok = inspect(chromium, clean)
    assert ok["problems"] == [] and ok["dangling"] == [] and ok["missing_files"] == []


@pytest.mark.slow
def test_the_smoke_report_loads_cleanly_in_a_browser(chromium, smoke_run_two_cores):
    work = smoke_run_two_cores
    report = work / "results" / "smoke" / "paper" / "index.html"
    shot = report.with_name("index.screenshot.png")
    seen = inspect(chromium, report, shot)

    assert seen["problems"] == [], seen["problems"]
    assert seen["dangling"] == [], f"in-page links without a target: {seen['dangling']}"
    assert seen["missing_files"] == [], seen["missing_files"]
    broken = [img for img in seen["images"] if not img["complete"] or img["width"] <= 0]
    assert broken == [], broken
    n_figures = sum(1 for files in registry_files(work).values() for f in files if f.endswith(".png"))
    assert len(seen["images"]) >= n_figures > 0, (len(seen["images"]), n_figures)
    assert seen["anchors"] > n_figures  # the summary table and the contents link every section
    width, height = seen["screenshot_size"]
    assert width > 0 and height > 2000 and shot.stat().st_size > 10_000
    keep = REPO / "results" / "paper" / "index.smoke-screenshot.png"
    keep.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shot, keep)
    print(f"full-page screenshot ({width}x{height} CSS px): {keep}")
