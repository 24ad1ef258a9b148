"""Shared test setup: PyTorch oracle tests skip on a laptop but can never skip in CI.

Oracle tests compare nnbook with PyTorch. They are either marked `@pytest.mark.torch` or
live in a module that starts with `torch = pytest.importorskip("torch")`. Without torch they
are skipped, unless torch is *required*: NNBOOK_REQUIRE_TORCH=1, or CI=true (which
`python3 dev.py test` turns into NNBOOK_REQUIRE_TORCH=1 after installing torch). Then:

- the session stops at once with a clear message if `import torch` fails;
- any skip whose reason mentions torch, at collection (a module-level importorskip) or
  in a test, is reported as a failure, so a green run really ran the oracle tests.

NNBOOK_REQUIRE_TORCH=0 switches the requirement off even in CI.

Random numbers: each test draws from generators seeded for that test alone, from a hash of
its node id, so a `-k` selection or another order cannot change them. The `rng` fixture is a
numpy Generator seeded so; nnbook's own generator (nb.randn, layer initialisation, dropout)
is seeded the same way before every test (`pytest_runtest_setup` below).
"""
from __future__ import annotations

import hashlib
import os

import numpy as np
import pytest

TORCH_INSTALL = "pip install torch==2.13.0"  # the CPU build; a bare `torch` may be a CUDA one


def torch_required() -> bool:
    flag = os.environ.get("NNBOOK_REQUIRE_TORCH", "").strip().lower()
    if flag:
        return flag in ("1", "true", "yes")
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def _import_torch_error() -> str | None:
    try:
        import torch  # noqa: F401
    except Exception as error:  # ImportError, or a broken install raising anything else
        return f"{type(error).__name__}: {error}"
    return None


def _mentions_torch(report) -> bool:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return "torch" in reason.lower()


def _skip_to_failure(report, where: str) -> None:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    report.outcome = "failed"
    report.longrepr = (
        f"{where} was skipped for want of torch, but torch is required here "
        f"(NNBOOK_REQUIRE_TORCH=1 or CI=true).\n  skip reason: {reason}\n"
        f"  hint: {TORCH_INSTALL} into the test environment "
        f"(`python3 dev.py test` does it when CI=true)."
    )


def seed_for(nodeid: str) -> int:
    """A seed that depends only on the test's node id (not on Python's salted hash())."""
    return int.from_bytes(hashlib.sha256(nodeid.encode()).digest()[:8], "little")


@pytest.fixture
def rng(request) -> np.random.Generator:
    """This test's own numpy generator: the same numbers whichever tests run with it."""
    return np.random.default_rng(seed_for(request.node.nodeid))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Seed nnbook's global generator for this test, before its fixtures build anything.
    (A hook, not an autouse fixture: hypothesis forbids function-scoped fixtures.)"""
    import nnbook

    nnbook.manual_seed(seed_for(item.nodeid) ^ 0x5EED)  # not the `rng` fixture's stream


def pytest_report_header(config):
    return f"nnbook: torch {'REQUIRED' if torch_required() else 'optional'} for oracle tests"


def pytest_sessionstart(session):
    if not torch_required():
        return
    error = _import_torch_error()
    if error is not None:
        pytest.exit(
            f"torch is required (NNBOOK_REQUIRE_TORCH=1 or CI=true) but cannot be imported: "
            f"{error}\n  hint: {TORCH_INSTALL} into the test environment, or set "
            f"NNBOOK_REQUIRE_TORCH=0 to let the oracle tests skip.",
            returncode=pytest.ExitCode.USAGE_ERROR,
        )


def pytest_collection_modifyitems(config, items):
    """Without torch (and not required), skip the tests marked `torch` with a clear reason."""
    if torch_required() or _import_torch_error() is None:
        return
    skip = pytest.mark.skip(reason=f"oracle test needs torch ({TORCH_INSTALL})")
    for item in items:
        if item.get_closest_marker("torch") is not None:
            item.add_marker(skip)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    """A module-level `pytest.importorskip("torch")` skips at collection: fail it instead."""
    report = yield
    if report.skipped and torch_required() and _mentions_torch(report):
        _skip_to_failure(report, collector.nodeid or collector.name)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A skip inside a test (or a `torch` marked test) that mentions torch fails instead."""
    report = yield
    if report.skipped and torch_required() and not hasattr(report, "wasxfail") \
            and _mentions_torch(report):
        _skip_to_failure(report, item.nodeid)
    return report
