"""The Binder configuration: what repo2docker reads, and a fresh environment built from it.

The static checks always run.  The two slow ones -- repo2docker's Dockerfile and a fresh
virtual environment built from binder/requirements.txt plus nnbook running every notebook
under strict nbval -- run when NNBOOK_CHECK_BINDER=1 (dev.py sets it in CI, where they must
pass) and are skipped otherwise.
"""
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"
REQUIRED = os.environ.get("NNBOOK_CHECK_BINDER") == "1"


def requirement_lines():
    return [line.strip() for line in (BINDER / "requirements.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def test_requirements_are_pinned_third_party_packages_only():
    lines = requirement_lines()
    assert lines, "binder/requirements.txt is empty"
    for line in lines:
        assert re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][0-9A-Za-z.+-]*", line), (
            f"binder/requirements.txt: {line!r} is not a pinned package (name==version); "
            "nnbook itself is installed by postBuild, so the pinned layer stays cached")
        assert not line.lower().startswith("nnbook")
    names = {line.split("==")[0].lower() for line in lines}
    assert {"numpy", "ipywidgets", "matplotlib"} <= names


def test_post_build_installs_nnbook_without_dependencies():
    post = BINDER / "postBuild"
    assert os.access(post, os.X_OK), "binder/postBuild must be executable"
    assert re.search(r"pip install --no-deps -e \.", post.read_text())


def test_runtime_names_a_python():
    assert re.fullmatch(r"python-3\.\d+\n?", (BINDER / "runtime.txt").read_text())


def test_readme_badge_opens_the_welcome_notebook_in_lab():
    readme = (ROOT / "README.md").read_text()
    assert re.search(r"mybinder\.org/v2/gh/[^)\s]+\?urlpath=lab/tree/notebooks/00_welcome\.ipynb",
                     readme)


def _require(what):
    if REQUIRED:
        pytest.fail(f"NNBOOK_CHECK_BINDER=1 but {what}")
    pytest.skip(f"binder check skipped ({what}; set NNBOOK_CHECK_BINDER=1 to run it)")


def test_repo2docker_reads_the_configuration():
    if not REQUIRED:
        _require("it is off")
    tool = shutil.which("repo2docker") or str(Path(sys.executable).with_name("repo2docker"))
    if not Path(tool).exists():
        _require("repo2docker is not installed (pip install jupyter-repo2docker)")
    out = subprocess.run([tool, "--no-build", "--debug", str(ROOT)], capture_output=True,
                         text=True, timeout=300)
    text = out.stdout + out.stderr
    assert out.returncode == 0, text[-3000:]
    assert "binder/requirements.txt" in text and "postBuild" in text, text[-3000:]
    assert "python=3.11" in text or "python3.11" in text or "3.11" in text


def test_fresh_binder_environment_runs_the_notebooks(tmp_path):
    if not REQUIRED:
        _require("it is off")
    env_dir = tmp_path / "binder-env"
    venv.create(env_dir, with_pip=True)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / "python"
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}")
    env.pop("PYTHONPATH", None)

    def sh(*cmd, timeout=900):
        out = subprocess.run([str(c) for c in cmd], cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=timeout)
        assert out.returncode == 0, (
            f"{' '.join(map(str, cmd))}\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
        )
        return out.stdout
    # what the Binder image gets (its base image already has JupyterLab), plus the test tools
    sh(python, "-m", "pip", "install", "-q", "-r", BINDER / "requirements.txt",
       "pytest", "nbval")
    sh("bash", BINDER / "postBuild")
    sh(python, "-c", "import nnbook, nnbook.widgets")
    sanitize = ROOT / "notebooks" / "sanitize.cfg"
    report = sh(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
                "--nbval-current-env", "--nbval-sanitize-with", sanitize,
                "-c", os.devnull, "--rootdir", ROOT, ROOT / "notebooks")
    assert re.search(r"\d+ passed", report) and "failed" not in report, report[-3000:]
