"""The server and the browser never outlive the tests, and a busy port is not fatal."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
import tempfile
import time
from pathlib import Path

import pytest
from labdriver import Lab, need_tools

HERE = Path(__file__).resolve().parent


def processes_mentioning(text: str) -> list:
    """(pid, command line) of every process whose command line contains ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # gone meanwhile, or not ours to read
        if text in cmdline:
            found.append((int(entry.name), cmdline[:300]))
    return found


def wait_until_gone(text: str, timeout: float = 10.0) -> list:
    deadline = time.monotonic() + timeout
    while (left := processes_mentioning(text)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def test_a_busy_port_is_not_fatal(tmp_path):
    need_tools()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        lab = Lab(tmp_path / "lab", port=busy)
        try:
            lab.prepare()
            lab.start()
            assert lab.url.startswith("http://127.0.0.1:") and not lab.url.endswith(f":{busy}")
            assert "version" in lab.api("GET", "/api")  # it answers, on another port
            assert f"The port {busy} is already in use" in lab.log()
        finally:
            lab.stop()
    assert lab.proc.poll() is not None
    assert wait_until_gone(str(lab.home)) == []


FAILING_TEST = '''
import json
from pathlib import Path

from labdriver import open_notebook, wait_for_kernel_idle


def test_fails_with_a_kernel_running(page, lab):
    lab.add_notebook("one.ipynb", ["1 + 1"])
    open_notebook(page, lab, "one.ipynb", 1)
    wait_for_kernel_idle(page)
    kernels = lab.api("GET", "/api/kernels")
    Path("seen.json").write_text(json.dumps({"server": lab.proc.pid, "kernels": len(kernels)}))
    assert False, "failing on purpose"
'''


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs Linux's /proc")
def test_a_failing_test_leaves_no_server_kernel_or_browser_behind(pytester, monkeypatch, request):
    need_tools()
    for name in ("conftest.py", "labdriver.py"):
        (pytester.path / name).write_text((HERE / name).read_text())
    pytester.makepyfile(test_fails=FAILING_TEST)
    pytester.makeini("[pytest]\nmarkers =\n    browser: runs JupyterLab in headless Chromium\n")
    # everything the run starts has this folder in its command line: the server's root,
    # the kernel's connection file, Chromium's profile (Playwright makes it under TMPDIR).
    # A short path: Chromium's socket path in it must fit in 108 bytes.
    scratch = Path(tempfile.mkdtemp(prefix="nnbook-"))
    request.addfinalizer(lambda: shutil.rmtree(scratch, ignore_errors=True))
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setenv("NNBOOK_SCREENSHOTS", str(scratch / "screenshots"))
    monkeypatch.setenv("NNBOOK_CHECK_BROWSER", "1")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--basetemp",
                                           str(scratch / "basetemp"))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*failing on purpose*"])
    seen = json.loads((pytester.path / "seen.json").read_text())
    assert seen["kernels"] == 1, "the page had started a kernel before the test failed"
    assert wait_until_gone(str(scratch)) == []
    with pytest.raises(ProcessLookupError):
        os.kill(seen["server"], 0)


NEEDS_THE_BROWSER = '''
def test_needs_the_browser(page):
    pass
'''


@pytest.mark.parametrize("required", [False, True], ids=["on a laptop", "in CI"])
def test_without_chromium_the_suite_says_how_to_install_it(pytester, monkeypatch, required):
    for name in ("conftest.py", "labdriver.py"):
        (pytester.path / name).write_text((HERE / name).read_text())
    pytester.makepyfile(test_needs=NEEDS_THE_BROWSER)
    pytester.makeini("[pytest]\nmarkers =\n    browser: runs JupyterLab in headless Chromium\n")
    monkeypatch.setenv("PATH", str(pytester.path))  # no chromium on it
    monkeypatch.setenv("NNBOOK_CHECK_BROWSER", "1" if required else "0")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rs")
    how = "install it with `sudo apt-get install chromium fonts-dejavu-core` and " \
          "`pip install playwright` (never `playwright install`)"
    # Without playwright in this environment, that is what the message names first.
    missing = "no chromium on PATH" if importlib.util.find_spec("playwright") else \
        "playwright is not installed in *"
    if required:
        result.assert_outcomes(errors=1)
        result.stdout.fnmatch_lines([f"*NNBOOK_CHECK_BROWSER=1 but {missing}; {how}*"])
    else:
        result.assert_outcomes(skipped=1)
        result.stdout.fnmatch_lines([f"SKIPPED * browser tests skipped: {missing}; {how}"])
