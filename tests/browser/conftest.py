"""The browser suite: JupyterLab in headless Chromium. Every test here is marked `browser`.

    python3 dev.py test -m browser         # only these
    python3 dev.py test -m "not browser"   # everything else

Without Chromium or Playwright the tests skip with a one-line reason; with
NNBOOK_CHECK_BROWSER=1 (dev.py sets it in CI after installing both) they fail instead.
Screenshots go to test-artifacts/browser/ at the top of the repository (or to
NNBOOK_SCREENSHOTS), with an index.html that shows them all; see tests/README.md.
"""
from __future__ import annotations

import html
import os
import shutil
from pathlib import Path

import pytest
from labdriver import CHROMIUM_ARGS, NOTEBOOKS, ROOT, TIMEOUT_MS, Lab, find_chromium, need_tools

HERE = Path(__file__).resolve().parent
DEFAULT_SCREENSHOTS = ROOT / "test-artifacts" / "browser"


def pytest_collection_modifyitems(config, items):
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.browser)


# ---------------------------------------------------------------------------
# Screenshots, with an index page
# ---------------------------------------------------------------------------

class Screenshots:
    """A folder of pictures and an index.html listing them under headings."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.entries: list[tuple[str, str, str]] = []  # (heading, file name, caption)

    def path(self, name: str, heading: str, caption: str) -> Path:
        self.entries.append((heading, name, caption))
        self.write_index()  # after every picture: a failing test still leaves a readable index
        return self.folder / name

    def write_index(self) -> None:
        e = html.escape
        parts = ["<!doctype html><meta charset='utf-8'><title>nnbook in JupyterLab</title>",
                 "<h1>nnbook notebooks in JupyterLab (headless Chromium)</h1>"]
        heading = None
        for head, name, caption in self.entries:
            if head != heading:
                parts.append(f"<h2>{e(head)}</h2>")
                heading = head
            parts.append(f"<figure><a href='{e(name)}'><img src='{e(name)}' "
                         f"style='max-width:100%;border:1px solid #ccc'></a>"
                         f"<figcaption>{e(caption)}</figcaption></figure>")
        (self.folder / "index.html").write_text("\n".join(parts) + "\n")


SCREENSHOTS_KEY = pytest.StashKey[Screenshots]()


@pytest.fixture(scope="session")
def screenshots(request):
    folder = Path(os.environ.get("NNBOOK_SCREENSHOTS") or DEFAULT_SCREENSHOTS)
    if folder == DEFAULT_SCREENSHOTS and folder.exists():
        shutil.rmtree(folder)  # only this run's pictures
    folder.mkdir(parents=True, exist_ok=True)
    shots = Screenshots(folder)
    request.config.stash[SCREENSHOTS_KEY] = shots
    return shots


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    shots = config.stash.get(SCREENSHOTS_KEY, None)
    if shots is not None and shots.entries:
        terminalreporter.write_line(f"browser screenshots: {len(shots.entries)} pictures in "
                                    f"{shots.folder} (open index.html)")


# ---------------------------------------------------------------------------
# The server, the browser, a page
# ---------------------------------------------------------------------------

@pytest.fixture(scope="session")
def lab(tmp_path_factory, request):
    need_tools()
    server = Lab(tmp_path_factory.mktemp("lab"))
    request.addfinalizer(server.stop)  # before start(): a half-started server goes too
    server.prepare(notebooks=sorted(NOTEBOOKS.glob("*.ipynb")))
    try:
        server.start()
    except RuntimeError as error:
        pytest.fail(str(error), pytrace=False)
    return server


@pytest.fixture(scope="session")
def browser(lab, request):
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    request.addfinalizer(playwright.stop)
    try:
        # Playwright gives every launch a fresh temporary profile (--user-data-dir) itself
        chromium = playwright.chromium.launch(executable_path=find_chromium(), args=CHROMIUM_ARGS,
                                              timeout=TIMEOUT_MS)
    except Exception as error:
        pytest.fail(f"chromium ({find_chromium()}) did not start: {error}", pytrace=False)
    request.addfinalizer(chromium.close)  # finalizers run last-in first-out: before stop()
    return chromium


@pytest.fixture
def page(browser, lab, request):
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    request.addfinalizer(lab.shutdown_kernels)  # idle kernels would slow the next test down
    request.addfinalizer(context.close)  # runs first: no page left to restart a kernel
    context.set_default_timeout(TIMEOUT_MS)
    expect.set_options(timeout=TIMEOUT_MS)  # expect's own default is 5 s: short on a busy CI
    page = context.new_page()
    page.errors = []  # uncaught exceptions in the page's JavaScript, for tests to check
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    return page
