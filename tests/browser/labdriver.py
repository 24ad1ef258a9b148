"""Driving JupyterLab in headless Chromium: the server, and what a student does on a page.

The server runs from the Python that runs pytest, on a temporary root holding copies of the
notebooks (copies: JupyterLab may mark an opened notebook as changed and save it). Python
Playwright drives the system's Chromium; `playwright install` is never run (it downloads a
browser of its own, and these machines have no internet).
"""
from __future__ import annotations

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
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"

INSTALL_HINT = ("install it with `sudo apt-get install chromium fonts-dejavu-core` and "
                "`pip install playwright` (never `playwright install`)")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
TIMEOUT_MS = 30_000          # one step on the page: a click, a redraw
RUN_ALL_TIMEOUT_MS = 240_000  # a whole notebook (06 trains a CNN)

STDERR = '.jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"]'
# A widget view a cell shows (a widget inside another one is part of its parent's view).
WIDGET_VIEW = (
    ".jp-Cell-outputArea > .jp-OutputArea-child > .jp-OutputArea-output > .jupyter-widgets"
)
WIDGET_ERROR = "Error displaying widget"
# The picture a widget draws into its Output.
PICTURE = ".widget-output .jp-RenderedImage img"


def missing_tools() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if importlib.util.find_spec("playwright") is None:
        return f"playwright is not installed in {sys.executable}"
    if find_chromium() is None:
        return "no chromium on PATH"
    for module in ("jupyterlab", "ipykernel", "ipywidgets", "nbformat"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed in {sys.executable}"
    return None


def need_tools() -> None:
    """Skip (fail, with NNBOOK_CHECK_BROWSER=1 as in CI) when the tools are missing."""
    why = missing_tools()
    if why is None:
        return
    if os.environ.get("NNBOOK_CHECK_BROWSER") == "1":
        pytest.fail(f"NNBOOK_CHECK_BROWSER=1 but {why}; {INSTALL_HINT}", pytrace=False)
    pytest.skip(f"browser tests skipped: {why}; {INSTALL_HINT}")


def find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


# ---------------------------------------------------------------------------
# The server
# ---------------------------------------------------------------------------

class Lab:
    """A JupyterLab server in its own process group, with everything it writes in `home`.

    ``port=0`` lets the system pick a free port; a port that is taken makes the server
    try others (``port_retries``), so a busy port is never fatal.
    """

    def __init__(self, home: Path, port: int = 0):
        self.home = home
        self.root = home / "root"  # what the server serves
        self.port = port
        self.token = secrets.token_hex(16)
        self.proc: subprocess.Popen | None = None
        self.log_path = home / "server.log"
        self.url = ""

    def prepare(self, notebooks=()) -> None:
        """Copy ``notebooks`` (paths) into the root; set up the kernel and fresh settings."""
        self.root.mkdir(parents=True, exist_ok=True)
        for path in notebooks:
            shutil.copyfile(path, self.root / Path(path).name)
        # the kernel is this very Python, whatever kernels the user has installed
        kernel = self.home / "data" / "kernels" / "python3"
        kernel.mkdir(parents=True, exist_ok=True)
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

    def add_notebook(self, name: str, cells: list) -> None:
        """Write a notebook of code cells (sources) into the root."""
        import nbformat

        notebook = nbformat.v4.new_notebook()
        notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
        notebook.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                           "display_name": "Python 3 (ipykernel)"}
        nbformat.write(notebook, self.root / name)

    def start(self, timeout: float = 60.0) -> None:
        env = dict(os.environ,
                   JUPYTER_CONFIG_DIR=str(self.home / "config"),
                   JUPYTER_DATA_DIR=str(self.home / "data"),
                   JUPYTER_RUNTIME_DIR=str(self.home / "runtime"),
                   IPYTHONDIR=str(self.home / "ipython"),
                   MPLCONFIGDIR=str(self.home / "matplotlib"))
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        env.setdefault("OMP_NUM_THREADS", "1")
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip", "127.0.0.1",
               "--port", str(self.port), "--ServerApp.port_retries=50",
               f"--IdentityProvider.token={self.token}",
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
        self.url = self._wait_for_url(timeout)

    def _wait_for_url(self, timeout: float) -> str:
        """The server writes runtime/jpserver-PID.json once it listens: read the port there."""
        info = self.home / "runtime" / f"jpserver-{self.proc.pid}.json"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with code {self.proc.returncode}:\n"
                                   f"{self.log()}")
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
        raise RuntimeError(f"JupyterLab did not answer within {timeout:.0f} s:\n{self.log()}")

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
        """Stop the kernels, then the server and anything left in its process group."""
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


# ---------------------------------------------------------------------------
# A notebook on the page
# ---------------------------------------------------------------------------

def open_notebook(page, lab: Lab, name: str, cells: int, sidebar: bool = True):
    """Open ``name`` and wait until all its ``cells`` are on the page; return the notebook.

    ``sidebar=False`` closes the file browser, leaving the page's width to the notebook.
    """
    page.goto(lab.notebook_url(name))
    notebook = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook")
    notebook.locator(".jp-Cell").nth(cells - 1).wait_for(state="attached")
    if not sidebar:
        # clicking the open tab of the left side bar closes it
        page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current").click()
        page.locator("#jp-left-stack").wait_for(state="hidden")
    return notebook


def wait_for_kernel_idle(page) -> None:
    """The status bar's '| Idle' (the toolbar's indicator says idle before the kernel connects)."""
    page.locator(".jp-StatusBar-Widget").get_by_text("| Idle").wait_for()


def run_all_cells(page, notebook, timeout_ms: int = RUN_ALL_TIMEOUT_MS) -> None:
    """Clear every output, then Run > Run All Cells, as a student would; wait until done.

    Clearing first matters: a committed notebook already shows `[1]:`, `[2]:`, ... A code
    cell has run when its prompt shows a number again; `[*]:` is running or queued, and
    `[ ]:` did not run (Run All stops at an error in a cell not tagged raises-exception).
    """
    wait_for_kernel_idle(page)
    menu(page, "Edit", "Clear Outputs of All Cells")
    page.wait_for_function(
        "(nb) => [...nb.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')]"
        ".every(p => p.textContent.trim() === '[ ]:')", arg=notebook.element_handle())
    menu(page, "Run", "Run All Cells")
    wait_until_run_all_ends(page, notebook, timeout_ms / 1000)


def wait_until_run_all_ends(page, notebook, timeout: float, settle: float = 3.0) -> None:
    """Until every code cell shows a number, or nothing changed for ``settle`` seconds with
    the kernel idle and no cell running (Run All stopped at an error).

    JupyterLab shows `[ ]:` again on the queued cells when a cell raises, also one tagged
    raises-exception whose followers the kernel still runs: so no `[*]:` alone means nothing.
    """
    deadline = time.monotonic() + timeout
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        shown = prompts(notebook)
        if all(re.fullmatch(r"\[\d+\]:", p) for p in shown):
            return
        idle = page.locator(".jp-StatusBar-Widget").get_by_text("| Idle").count() > 0
        if shown != last or not idle or "[*]:" in shown:
            last, since = shown, time.monotonic()
        elif time.monotonic() - since > settle:
            return  # stopped: the caller compares the prompts with what it expects
        time.sleep(0.25)
    raise TimeoutError(f"Run All Cells did not end within {timeout:.0f} s; prompts: {last}")


def menu(page, name: str, item: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{re.escape(name)}$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(item)}$")).click()


def prompts(notebook) -> list:
    return [p.strip() for p in
            notebook.locator(".jp-CodeCell .jp-InputArea-prompt").all_inner_texts()]


def stderr_texts(locator) -> list:
    return locator.locator(STDERR).all_inner_texts()


def screenshot_notebook(page, notebook, path: Path, max_height: int = 30_000) -> None:
    """The whole notebook in one picture: the window is made as tall as the notebook."""
    bottom = notebook.evaluate(
        """nb => { // the element that scrolls the cells: back to its top, and how tall
            const outer = nb.querySelector('.jp-WindowedPanel-outer') || nb;
            outer.scrollTop = 0;
            return outer.getBoundingClientRect().top + outer.scrollHeight; }""")
    width = page.viewport_size["width"]
    page.set_viewport_size({"width": width, "height": min(int(bottom) + 60, max_height)})
    page.wait_for_timeout(300)  # let the layout settle
    page.screenshot(path=str(path))


# ---------------------------------------------------------------------------
# Widgets on the page
# ---------------------------------------------------------------------------

def picture_src(view) -> str:
    return view.locator(PICTURE).first.get_attribute("src") or ""


def drive_one_control(view) -> str:
    """Move one control of a widget view as a student would, and say which.

    Tries, in order: a slider that can move (keyboard, towards the side it can go), a menu
    with another choice, a checkbox, a button that is enabled. Raises AssertionError when
    the view has no control to move.
    """
    for handle in view.locator(".widget-slider .noUi-handle").all():
        if handle.evaluate("h => h.closest('.noUi-target').hasAttribute('disabled')"):
            continue
        now, low, high = (float(handle.get_attribute(a)) for a in
                          ("aria-valuenow", "aria-valuemin", "aria-valuemax"))
        if now == low == high:
            continue
        key = "ArrowRight" if now < high else "ArrowLeft"
        label = _label_of(handle, ".widget-slider")
        handle.press(key)
        return f"slider {label!r}: {key} from {now:g}"
    for select in view.locator(".widget-dropdown select:not([disabled])").all():
        options = select.locator("option").all()
        if len(options) < 2:
            continue
        current = select.evaluate("s => s.selectedIndex")
        index = (current + 1) % len(options)
        choice = options[index].inner_text().replace("\xa0", " ")
        select.select_option(index=index)
        return f"menu {_label_of(select, '.widget-dropdown')!r}: chose {choice!r}"
    for box in view.locator(".widget-checkbox input[type=checkbox]:not([disabled])").all():
        box.click()
        return f"checkbox {_label_of(box, '.widget-checkbox')!r}: clicked"
    for button in view.locator("button.jupyter-button:not([disabled])").all():
        text = button.inner_text().strip()
        button.click()
        return f"button {text!r}: clicked"
    raise AssertionError("this widget view has no control a student could move")


def _label_of(element, container: str) -> str:
    return element.evaluate(
        "(el, sel) => { const c = el.closest(sel); const l = c && c.querySelector('label');"
        " return l ? l.textContent.trim() : ''; }", container)
