"""End to end in a real browser: JupyterLab, headless Chromium, the widgets alive.

A JupyterLab server runs from the Python that runs pytest, on a temporary root holding a
small generated notebook (a ShapeStepper and a ConvArithmetic) and copies of committed
notebooks (copies, because JupyterLab may mark an opened notebook as changed and save it).
Python Playwright drives the system's Chromium (never `playwright install`: it downloads a
browser). The tests check that

- a committed notebook opened without running shows its committed outputs, PNG fallbacks
  of the widgets included;
- after Run All Cells the widgets are live, the ShapeStepper's slider answers ArrowRight
  with the next step (caption and picture change), and no cell wrote to stderr.

On a user's machine they skip when Chromium, Playwright or JupyterLab is missing; with
NNBOOK_CHECK_BROWSER=1 (dev.py sets it in CI after installing them) they fail instead.
NNBOOK_BROWSER_SCREENSHOT=/tmp/lab_widget.png saves a picture of the live widgets to look at.
"""
from __future__ import annotations

import base64
import importlib.util
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
REQUIRED = os.environ.get("NNBOOK_CHECK_BROWSER") == "1"
INSTALL_HINT = ("apt-get install -y chromium fonts-dejavu-core, and pip install playwright into "
                "the test environment (never `playwright install`)")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
TIMEOUT_MS = 30_000
STDERR = '.jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"]'

# Committed notebooks opened without running: every PNG output in the file must show as an img.
COMMITTED = ["00_welcome.ipynb", "04_shapes_and_convolution.ipynb"]

# The generated notebook: one widget per cell, then a marker that every cell ran.
LIVE = "browser_check.ipynb"
LIVE_CELLS = [
    "import nnbook as nb\n"
    "from nnbook import nn\n"
    "from nnbook.widgets import ConvArithmetic, ShapeStepper\n"
    "nb.manual_seed(0)",
    "model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(84, 10))\n"
    "ShapeStepper(model, (2, 3, 9, 5))",
    "ConvArithmetic()",
    "print('every cell ran')",
]
STEPPER_CELL, CONV_CELL, LAST_CELL = 1, 2, 3
# What the ShapeStepper's caption says at step 0 and, after one ArrowRight, at step 1.
STEP_0 = ("step 0 of 4", "Conv2d")
STEP_1 = ("step 1 of 4", "ReLU")


def _require(what: str):
    if REQUIRED:
        pytest.fail(f"NNBOOK_CHECK_BROWSER=1 but {what}; hint: {INSTALL_HINT}", pytrace=False)
    pytest.skip(f"browser test skipped ({what}; set NNBOOK_CHECK_BROWSER=1 to require it)")


def find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def check_tools() -> None:
    if importlib.util.find_spec("playwright") is None:
        _require(f"playwright is not installed in {sys.executable}")
    if find_chromium() is None:
        _require("no chromium on PATH")
    for module in ("jupyterlab", "ipykernel", "ipywidgets", "nbformat"):
        if importlib.util.find_spec(module) is None:
            _require(f"{module} is not installed in {sys.executable}")


# ---------------------------------------------------------------------------
# The server
# ---------------------------------------------------------------------------

class Lab:
    """A JupyterLab server in its own process group, with everything it writes in `home`."""

    def __init__(self, home: Path):
        self.home = home
        self.root = home / "root"  # what the server serves
        self.token = secrets.token_hex(16)
        self.proc: subprocess.Popen | None = None
        self.log_path = home / "server.log"
        self.url = ""

    def prepare(self) -> None:
        import nbformat

        self.root.mkdir()
        for name in COMMITTED:
            shutil.copyfile(NOTEBOOKS / name, self.root / name)
        notebook = nbformat.v4.new_notebook()
        notebook.cells = [nbformat.v4.new_code_cell(source) for source in LIVE_CELLS]
        notebook.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                           "display_name": "Python 3 (ipykernel)"}
        nbformat.write(notebook, self.root / LIVE)
        # the kernel is this very Python, whatever kernels the user has installed
        kernel = self.home / "data" / "kernels" / "python3"
        kernel.mkdir(parents=True)
        (kernel / "kernel.json").write_text(json.dumps({
            "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Python 3 (ipykernel)", "language": "python"}))
        # fresh settings: render every cell (no windowing), no news pop-up, no autosave
        settings = self.home / "settings" / "@jupyterlab"
        for plugin, values in {
            "notebook-extension/tracker": {"windowingMode": "none"},
            "apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
            "docmanager-extension/plugin": {"autosave": False},
        }.items():
            path = settings / f"{plugin}.jupyterlab-settings"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))

    def start(self) -> None:
        env = dict(os.environ,
                   JUPYTER_CONFIG_DIR=str(self.home / "config"),
                   JUPYTER_DATA_DIR=str(self.home / "data"),
                   JUPYTER_RUNTIME_DIR=str(self.home / "runtime"),
                   IPYTHONDIR=str(self.home / "ipython"))
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        env.setdefault("OMP_NUM_THREADS", "1")
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip", "127.0.0.1",
               "--port", "0", f"--IdentityProvider.token={self.token}",
               f"--ServerApp.root_dir={self.root}",
               "--LabApp.extension_manager=readonly",
               f"--LabApp.user_settings_dir={self.home / 'settings'}",
               f"--LabApp.workspaces_dir={self.home / 'workspaces'}",
               # if this test process dies without cleaning up, the server still goes away
               "--MappingKernelManager.cull_idle_timeout=300",
               "--MappingKernelManager.cull_interval=60",
               "--ServerApp.shutdown_no_activity_timeout=600"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-root")  # Jupyter refuses to start as root without it
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(cmd, cwd=self.home, env=env, stdout=log,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         start_new_session=True)
        self.url = self._wait_for_url()

    def _wait_for_url(self, timeout: float = 60.0) -> str:
        """The server writes runtime/jpserver-PID.json once it listens: read the port there."""
        info = self.home / "runtime" / f"jpserver-{self.proc.pid}.json"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"JupyterLab exited with code {self.proc.returncode}:\n{self.log()}")
            if info.exists():
                try:
                    url = f"http://127.0.0.1:{json.loads(info.read_text())['port']}"
                    with urllib.request.urlopen(f"{url}/api/status?token={self.token}",
                                                timeout=5) as reply:
                        if reply.status == 200:
                            return url
                except (ValueError, KeyError, OSError):
                    pass  # half-written file, or not answering yet
            time.sleep(0.2)
        pytest.fail(f"JupyterLab did not answer within {timeout:.0f} s:\n{self.log()}")

    def api(self, method: str, path: str):
        request = urllib.request.Request(f"{self.url}{path}", method=method,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=10) as reply:
            body = reply.read()
        return json.loads(body) if body else None

    def shutdown_kernels(self) -> None:
        try:
            for kernel in self.api("GET", "/api/kernels"):
                self.api("DELETE", f"/api/kernels/{kernel['id']}")
        except (OSError, ValueError):
            pass  # the server is gone already; its own shutdown stops its kernels

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        if self.url:
            self.shutdown_kernels()  # kernels run in sessions of their own
        self._signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self._signal(signal.SIGKILL if hasattr(signal, "SIGKILL") else signal.SIGTERM)
            self.proc.wait(timeout=15)

    def _signal(self, sig) -> None:
        try:
            if hasattr(os, "killpg"):
                os.killpg(self.proc.pid, sig)  # the server and anything it started in its group
            else:
                self.proc.send_signal(sig)
        except ProcessLookupError:
            pass

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:] if self.log_path.exists() else ""

    def notebook_url(self, name: str) -> str:
        # ?reset: start from an empty workspace, so only this notebook is open
        return f"{self.url}/lab/tree/{name}?reset&token={self.token}"


@pytest.fixture(scope="module")
def lab(tmp_path_factory, request):
    check_tools()
    server = Lab(tmp_path_factory.mktemp("lab"))
    request.addfinalizer(server.stop)
    server.prepare()
    server.start()
    return server


@pytest.fixture(scope="module")
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
    return context.new_page()


def open_notebook(page, lab: Lab, name: str, cells: int):
    page.goto(lab.notebook_url(name))
    notebook = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook")
    notebook.locator(".jp-Cell").nth(cells - 1).wait_for(state="attached")
    return notebook


def wait_for_kernel_idle(page) -> None:
    """The status bar's '| Idle' (the toolbar's indicator says idle before the kernel connects)."""
    page.locator(".jp-StatusBar-Widget").get_by_text("| Idle").wait_for()


def shown_outputs(outputs: list) -> list:
    """A cell's outputs as JupyterLab shows them: consecutive streams of one name merged."""
    shown = []
    for output in outputs:
        if (shown and output["output_type"] == "stream" == shown[-1]["output_type"]
                and output["name"] == shown[-1]["name"]):
            continue
        shown.append(output)
    return shown


def stderr_texts(notebook) -> list:
    return notebook.locator(STDERR).all_inner_texts()


# ---------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", COMMITTED)
def test_committed_notebook_shows_its_outputs_before_running(page, lab, name):
    from playwright.sync_api import expect

    cells = json.loads((NOTEBOOKS / name).read_text())["cells"]
    outputs = [o for c in cells for o in shown_outputs(c.get("outputs", []))]
    pngs = sum("image/png" in o.get("data", {}) for o in outputs)
    # errors shown on purpose (cells tagged raises-exception) render as stderr text too
    errors = sum(o["output_type"] == "error" or o.get("name") == "stderr" for o in outputs)
    notebook = open_notebook(page, lab, name, len(cells))
    expect(notebook.locator(".jp-Cell")).to_have_count(len(cells))
    rendered = notebook.locator(".jp-OutputArea-child > .jp-OutputArea-output")
    expect(rendered).to_have_count(len(outputs))
    expect(notebook.locator(".jp-OutputArea-output img")).to_have_count(pngs)
    for img in notebook.locator(".jp-OutputArea-output img").all():
        assert (img.get_attribute("src") or "").startswith("data:image/png;base64,")
        assert img.evaluate("el => el.complete && el.naturalWidth") > 0, "a PNG did not decode"
    expect(notebook.locator(STDERR)).to_have_count(errors)


def test_widgets_run_live_and_the_slider_steps(page, lab):
    from playwright.sync_api import expect

    notebook = open_notebook(page, lab, LIVE, len(LIVE_CELLS))
    wait_for_kernel_idle(page)
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()

    cells = notebook.locator(".jp-CodeCell")
    # the last cell's print, or the first error (Run All stops there): whichever comes first
    done = cells.nth(LAST_CELL).locator(".jp-OutputArea-output", has_text="every cell ran")
    done.or_(notebook.locator(STDERR)).first.wait_for(timeout=60_000)
    errors = stderr_texts(notebook)
    assert errors == [], "a cell wrote to stderr:\n" + "\n---\n".join(errors)[-3000:]
    prompts = cells.locator(".jp-InputArea-prompt").all_inner_texts()
    assert all(re.fullmatch(r"\[\d+\]:", p.strip()) for p in prompts), prompts

    # ShapeStepper: the live view (slider, caption, picture), not the PNG fallback
    stepper = cells.nth(STEPPER_CELL)
    handle = stepper.locator(".widget-slider .noUi-handle")
    expect(handle).to_have_count(1)
    expect(handle).to_be_visible()
    caption = stepper.locator(".widget-html-content").first
    for text in STEP_0:
        expect(caption).to_contain_text(text)
    picture = stepper.locator(".jupyter-widgets .jp-RenderedImage img")
    expect(picture).to_have_count(1)
    before = picture.get_attribute("src")
    assert before.startswith("data:image/png;base64,")
    assert base64.b64decode(before.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"

    handle.press("ArrowRight")  # the front end sets the value, the kernel redraws
    expect(handle).to_have_attribute("aria-valuenow", re.compile(r"^1(\.0)?$"))
    for text in STEP_1:
        expect(caption).to_contain_text(text)
    expect(picture).not_to_have_attribute("src", before)
    assert picture.get_attribute("src").startswith("data:image/png;base64,")

    # ConvArithmetic: a slider per setting and its picture
    conv = cells.nth(CONV_CELL)
    assert conv.locator(".widget-slider .noUi-handle").count() >= 13
    expect(conv.locator(".jupyter-widgets .jp-RenderedImage img")).to_have_count(1)

    if os.environ.get("NNBOOK_BROWSER_SCREENSHOT"):  # e.g. /tmp/lab_widget.png, to look at
        stepper.scroll_into_view_if_needed()
        page.screenshot(path=os.environ["NNBOOK_BROWSER_SCREENSHOT"])
    assert stderr_texts(notebook) == []
