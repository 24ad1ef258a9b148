#!/usr/bin/env python3
"""nnbook's one entry point. Needs only Python 3.10+; everything else goes into .venv/.

    python3 dev.py lab          # set up .venv, open JupyterLab on notebooks/00_welcome.ipynb
    python3 dev.py test [ARGS]  # set up .venv, run ruff, pytest on tests/, nbval on notebooks/
    python3 dev.py notebooks    # re-execute every notebook and normalise it (commit the result)
    python3 dev.py setup        # only create or refresh .venv

.venv is (re)installed with `pip install -e .[lab,test]` when it is missing, broken, made by
another Python version, or older than pyproject.toml (a stamp file in .venv holds its hash).
With CI=true, `test` also installs PyTorch (CPU), repo2docker, Chromium (apt, as root) and
Playwright, and makes the oracle tests, the Binder check and the browser suite compulsory.
`test` without arguments then runs the numeric tests and the notebooks again under two other
OpenBLAS kernels (see run_under_other_kernels); `test ARGS` runs pytest once, with ARGS.
`test` without arguments first runs `ruff check` (the rules are in pyproject.toml) and stops
if it finds anything.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / "nnbook-install.stamp"
EXTRAS = "lab,test"
NOTEBOOKS = ROOT / "notebooks"
WELCOME = "00_welcome.ipynb"
SANITIZE = NOTEBOOKS / "sanitize.cfg"
TORCH_REQUIREMENT = "torch==2.13.0"  # exactly this: a bare `torch` may pull a multi-GB CUDA build
REPO2DOCKER = "jupyter-repo2docker"  # CI only: checks the Binder configuration without Docker
# CI only, for tests/browser/: the browser comes from apt, Playwright only drives it
# (never `playwright install`: it downloads a browser of its own)
BROWSER_APT_PACKAGES = ["chromium", "fonts-dejavu-core"]
PLAYWRIGHT = "playwright==1.65.2"
# OpenBLAS picks a kernel for the CPU it runs on, and kernels add float numbers in different
# orders. OPENBLAS_CORETYPE forces another one: the numeric tests and the notebooks run again
# under OTHER_KERNELS of them, so that a digit or a tolerance that holds only on this CPU
# fails here rather than on a student's laptop. Prescott (SSE3) runs on every x86-64 CPU;
# then the first of the others that runs here and is not this machine's own kernel.
KERNELS = ["Prescott", "Haswell", "Sandybridge", "Nehalem"]
OTHER_KERNELS = 2
# Left out of those runs: tests that compute nothing with floats (the test machinery, the
# Binder check, shapes and geometry only), and the notebooks' figure check (text sizes do
# not hang on the kernel; strict nbval runs the notebooks again); the browser suite is left
# out by its marker too.
NOT_NUMERIC = ["tests/browser", "tests/test_binder.py", "tests/inspect/test_conv_geometry.py",
               "tests/test_import_light.py", "tests/test_notebooks_normalised.py",
               "tests/test_seeding.py", "tests/test_torch_required.py",
               "tests/test_planted_mistakes_exist.py",
               "tests/test_widgets_import.py", "tests/widgets/test_widgets_shapes.py",
               "tests/test_notebook_figures.py"]
# Prints the kernel numpy's OpenBLAS uses, after a small matmul (a kernel that needs
# instructions this CPU lacks dies here, not in a test). OpenBLAS names Prescott's "Katmai".
KERNEL_PROBE = ("import numpy, threadpoolctl; numpy.ones((7, 5)) @ numpy.ones((5, 3)); "
                "print(*[i['architecture'] for i in threadpoolctl.threadpool_info() "
                "if i['internal_api'] == 'openblas'])")

if sys.version_info < (3, 10):
    sys.exit(f"nnbook needs Python 3.10 or newer; this is {sys.version.split()[0]}.")


def say(text: str) -> None:
    print(f"[dev.py] {text}", flush=True)


def run(cmd: list, **kwargs) -> int:
    """Run a command, showing it first; return its exit code (Ctrl-C waits for it to stop)."""
    shown = " ".join(str(c) for c in cmd)
    say(f"$ {shown}" + (f"   (in {kwargs['cwd']})" if "cwd" in kwargs else ""))
    proc = subprocess.Popen([str(c) for c in cmd], **kwargs)
    if hasattr(signal, "SIGTERM") and threading.current_thread() is threading.main_thread():
        # `kill <dev.py>` stops the child too (a JupyterLab server must not be orphaned)
        signal.signal(signal.SIGTERM, lambda signum, frame: proc.terminate())
    while True:
        try:
            code = proc.wait()
            return code if code >= 0 else 128 - code  # killed by signal N: 128 + N, as shells say
        except KeyboardInterrupt:  # the child got the Ctrl-C too: let it shut down cleanly
            continue


def check(cmd: list, **kwargs) -> None:
    code = run(cmd, **kwargs)
    if code != 0:
        say(f"failed with exit code {code}: {' '.join(str(c) for c in cmd)}")
        sys.exit(code)


def is_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


# ---------------------------------------------------------------------------
# The virtual environment
# ---------------------------------------------------------------------------

def venv_python() -> Path:
    if os.name == "nt":
        return VENV / "Scripts" / "python.exe"
    return VENV / "bin" / "python"


def wanted_stamp() -> str:
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    return f"pyproject.toml sha256 {digest}; extras [{EXTRAS}]\n"


def venv_version() -> str | None:
    """The venv's Python as 'major.minor', or None if it is missing or broken."""
    python = venv_python()
    if not python.exists():
        return None
    try:
        out = subprocess.run(
            [str(python), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def ensure_venv() -> Path:
    """Create .venv if needed and install nnbook[lab,test] into it if pyproject.toml changed."""
    here = "%d.%d" % sys.version_info[:2]
    found = venv_version()
    if found is not None and found != here:
        say(f".venv was made with Python {found}, this is Python {here}: making a new one")
        shutil.rmtree(VENV)
        found = None
    elif found is None and VENV.exists():
        say(".venv exists but its Python does not run: making a new one")
        shutil.rmtree(VENV)
    if found is None:
        say(f"creating {VENV.relative_to(ROOT)} with Python {here}")
        check([sys.executable, "-m", "venv", VENV])
    python = venv_python()
    stamp = STAMP.read_text() if STAMP.exists() else ""
    if stamp != wanted_stamp():
        say("installing nnbook and its tools into .venv "
            + ("(first time)" if not stamp else "(pyproject.toml changed)"))
        STAMP.unlink(missing_ok=True)  # a failed install must not look finished
        check([python, "-m", "pip", "install", "-e", f".[{EXTRAS}]"], cwd=ROOT)
        STAMP.write_text(wanted_stamp())
    else:
        say(".venv is up to date with pyproject.toml")
    return python


# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------

def cmd_setup(args: list) -> int:
    ensure_venv()
    return 0


def wants_no_browser() -> bool:
    """Open a browser unless asked not to or there is nothing to show it on."""
    if os.environ.get("NNBOOK_NO_BROWSER", "").strip().lower() in ("1", "true", "yes"):
        return True
    if sys.platform.startswith("linux") or "bsd" in sys.platform:
        return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return False  # macOS and Windows always have a desktop


def cmd_lab(args: list) -> int:
    python = ensure_venv()
    cmd = [python, "-m", "jupyterlab", WELCOME]
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in args:
        cmd.append("--allow-root")  # Jupyter refuses to start as root without it
    if wants_no_browser() and "--no-browser" not in args:
        say("no display found (or NNBOOK_NO_BROWSER=1): open the URL printed below yourself")
        cmd.append("--no-browser")
    return run(cmd + args, cwd=NOTEBOOKS)


def nbval_args() -> list:
    args = ["--nbval", "--nbval-current-env"]
    if SANITIZE.exists():
        args += ["--nbval-sanitize-with", str(SANITIZE.relative_to(ROOT))]
    return args


def names_paths(args: list) -> bool:
    """True if the user gave pytest explicit test paths (then we don't add our own)."""
    return any(not a.startswith("-") and (ROOT / a.split("::")[0]).exists() for a in args)


def quiet_threads(env: dict) -> dict:
    """One BLAS thread per process: on a shared 2-core machine OpenBLAS threads fighting
    each other made notebook training 6x slower; results are identical either way."""
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        env.setdefault(name, "1")
    return env


def install_browser() -> None:
    """CI: Chromium and a font from apt (as root); a failure stops here, loudly."""
    packages = " ".join(BROWSER_APT_PACKAGES)
    if not (hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get")):
        say(f"not root or no apt-get: install {packages} yourself; the browser suite needs them")
        return
    status = subprocess.run(["dpkg-query", "-W", "-f=${Status}\n", *BROWSER_APT_PACKAGES],
                            capture_output=True, text=True).stdout.splitlines()
    if status.count("install ok installed") == len(BROWSER_APT_PACKAGES):
        say(f"CI=true: {packages} already installed")
        return
    say(f"CI=true: installing {packages} for the browser suite")
    apt_env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    check(["apt-get", "update"], env=apt_env)
    check(["apt-get", "install", "-y", *BROWSER_APT_PACKAGES], env=apt_env)


def lint(python: Path) -> int:
    """ruff with the rules in pyproject.toml ([tool.ruff]); its exit code."""
    code = run([python, "-m", "ruff", "check", "."], cwd=ROOT)
    if code != 0:
        say(f"ruff check failed (exit code {code}), so no tests ran: fix what it lists above "
            "(`ruff check --fix .` with .venv's ruff fixes the safe ones, such as imports)")
    return code


def cmd_test(args: list) -> int:
    python = ensure_venv()
    if not args:
        code = lint(python)
        if code != 0:
            return code
    env = quiet_threads(dict(os.environ))
    if is_ci():
        say(f"CI=true: installing PyTorch for the oracle tests ({TORCH_REQUIREMENT})")
        check([python, "-m", "pip", "install", TORCH_REQUIREMENT], cwd=ROOT)
        env["NNBOOK_REQUIRE_TORCH"] = "1"
        say("NNBOOK_REQUIRE_TORCH=1: oracle tests that cannot import torch fail instead of "
            "skipping")
        say(f"CI=true: installing {REPO2DOCKER} and checking the Binder environment")
        check([python, "-m", "pip", "install", REPO2DOCKER], cwd=ROOT)
        env["NNBOOK_CHECK_BINDER"] = "1"
        install_browser()
        say(f"CI=true: installing {PLAYWRIGHT} for the browser suite")
        check([python, "-m", "pip", "install", PLAYWRIGHT], cwd=ROOT)
        env["NNBOOK_CHECK_BROWSER"] = "1"
        say("NNBOOK_CHECK_BROWSER=1: the browser suite fails instead of skipping")
    paths = [] if names_paths(args) else ["tests", "notebooks"]
    code = run([python, "-m", "pytest", *nbval_args(), *paths, *args], cwd=ROOT, env=env)
    say(f"pytest exited with code {code}")
    if args:
        return code  # the run asked for, once
    if code != 0:
        say("not running the tests again under other OpenBLAS kernels: fix the failures first")
        return code
    return run_under_other_kernels(python, env)


def blas_kernel(python: Path, env: dict) -> str | None:
    """The OpenBLAS kernel numpy uses in `env`; None without OpenBLAS or if it cannot run."""
    try:
        out = subprocess.run([str(python), "-c", KERNEL_PROBE], env=env, capture_output=True,
                             text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None
    return (out.stdout.strip() or None) if out.returncode == 0 else None


def other_kernels(python: Path, env: dict, own: str) -> dict:
    """{OPENBLAS_CORETYPE: kernel} for up to OTHER_KERNELS kernels that run here, not `own`."""
    others = {}
    for coretype in KERNELS:
        kernel = blas_kernel(python, dict(env, OPENBLAS_CORETYPE=coretype))
        if kernel and kernel != own and kernel not in others.values():
            others[coretype] = kernel
        if len(others) == OTHER_KERNELS:
            break
    return others


def run_under_other_kernels(python: Path, env: dict) -> int:
    """The numeric tests and strict nbval again, under OTHER_KERNELS other OpenBLAS kernels."""
    own = blas_kernel(python, env)
    others = other_kernels(python, env, own) if own else {}
    if len(others) < OTHER_KERNELS:
        found = f"this numpy's BLAS: {own or 'not OpenBLAS'}; other kernels that run here: " \
                f"{', '.join(others) or 'none'}"
        if is_ci():
            say(f"CI=true needs {OTHER_KERNELS} OpenBLAS kernels besides this machine's ({found})")
            return 1
        say(f"not running the tests under other OpenBLAS kernels ({found})")
        return 0
    ignore = [f"--ignore={path}" for path in NOT_NUMERIC]
    for coretype, kernel in others.items():
        say(f"numeric tests and notebooks again with OPENBLAS_CORETYPE={coretype} "
            f"(kernel {kernel}; the first run had {own})")
        code = run([python, "-m", "pytest", "-q", "-m", "not browser", *nbval_args(), *ignore,
                    "tests", "notebooks"], cwd=ROOT, env=dict(env, OPENBLAS_CORETYPE=coretype))
        say(f"pytest with OPENBLAS_CORETYPE={coretype} exited with code {code}")
        if code != 0:
            return code
    say(f"passed under the OpenBLAS kernels {own} (the first run), {', '.join(others.values())}")
    return 0


def cmd_notebooks(args: list) -> int:
    python = ensure_venv()
    return run([python, "tools/normalize_notebooks.py", "--execute", *(args or ["notebooks"])],
               cwd=ROOT, env=quiet_threads(dict(os.environ)))


COMMANDS = {"lab": cmd_lab, "test": cmd_test, "notebooks": cmd_notebooks, "setup": cmd_setup}


def main(argv: list) -> int:
    if not argv or argv[0] in ("-h", "--help", "help") or argv[0] not in COMMANDS:
        print(__doc__.strip())
        return 0 if argv and argv[0] in ("-h", "--help", "help") else 2
    return COMMANDS[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
