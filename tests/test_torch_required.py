"""The mechanism in conftest.py: oracle tests skip without torch, and fail when it is required."""
from pathlib import Path

import pytest

CONFTEST = (Path(__file__).parent / "conftest.py").read_text()
HIDE_TORCH = '\nimport sys\nsys.modules["torch"] = None  # `import torch` now raises ImportError\n'
MODULE_SKIP = (
    'import pytest\ntorch = pytest.importorskip("torch")\n\ndef test_oracle():\n    pass\n'
)
MARKED = ('import pytest\n\n@pytest.mark.torch\ndef test_marked():\n    pass\n\n'
          'def test_plain():\n    pass\n')


@pytest.fixture
def inner(pytester, monkeypatch):
    """A pytester run with our conftest and a clean environment (no CI, no requirement)."""
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("NNBOOK_REQUIRE_TORCH", raising=False)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # nbval etc. are slow to load
    pytester.makeini("[pytest]\nmarkers =\n    torch: oracle test\n")
    return pytester


def test_without_torch_oracle_tests_skip(inner):
    inner.makeconftest(CONFTEST + HIDE_TORCH)
    inner.makepyfile(test_module_skip=MODULE_SKIP, test_marked=MARKED)
    result = inner.runpytest_subprocess("-ra")
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(["*torch optional*", "*oracle test needs torch*"])


@pytest.mark.parametrize("env", [{"NNBOOK_REQUIRE_TORCH": "1"}, {"CI": "true"}])
def test_required_torch_missing_stops_the_session(inner, monkeypatch, env):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    inner.makeconftest(CONFTEST + HIDE_TORCH)
    inner.makepyfile(test_module_skip=MODULE_SKIP, test_marked=MARKED)
    result = inner.runpytest_subprocess()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert "torch is required" in output and "pip install torch==2.13.0" in output


def test_opting_out_in_ci(inner, monkeypatch):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("NNBOOK_REQUIRE_TORCH", "0")
    inner.makeconftest(CONFTEST + HIDE_TORCH)
    inner.makepyfile(test_module_skip=MODULE_SKIP, test_marked=MARKED)
    inner.runpytest_subprocess().assert_outcomes(passed=1, skipped=2)


def test_required_module_level_importorskip_fails(inner, monkeypatch):
    """torch imports (a stand-in here) but is too old: the collection-time skip must fail."""
    monkeypatch.setenv("NNBOOK_REQUIRE_TORCH", "1")
    inner.makeconftest(CONFTEST)
    inner.makepyfile(torch='__version__ = "0.1"\n')
    inner.makepyfile(test_old=('import pytest\ntorch = pytest.importorskip("torch", '
                               'minversion="99")\n\ndef test_oracle():\n    pass\n'))
    result = inner.runpytest_subprocess()
    assert result.ret != 0
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*skipped for want of torch, but torch is required*"])


def test_required_skip_inside_a_test_fails(inner, monkeypatch):
    monkeypatch.setenv("NNBOOK_REQUIRE_TORCH", "1")
    inner.makeconftest(CONFTEST)
    inner.makepyfile(torch='__version__ = "0.1"\n')
    inner.makepyfile(test_inside=('import pytest\n\ndef test_oracle():\n'
                                  '    pytest.skip("needs torch.compile")\n\n'
                                  'def test_other_skip():\n    pytest.skip("slow")\n'))
    result = inner.runpytest_subprocess()
    result.assert_outcomes(failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*test_oracle was skipped for want of torch*"])
