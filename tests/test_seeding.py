"""The seeding in conftest.py: each test draws its own numbers, whatever else runs with it."""
import re
from pathlib import Path

import pytest

CONFTEST = (Path(__file__).parent / "conftest.py").read_text()
# Each test prints what it draws from the `rng` fixture and from nnbook's generator.
DRAWS = '''
import nnbook as nb

def show(name, rng):
    print(f"DRAW {name} {rng.random():.17g} {nb.randn(1).item():.9g}")

def test_first(rng):
    show("first", rng)

def test_second(rng):
    nb.randn(5)         # drawing more here must not move the next test's numbers
    show("second", rng)

def test_third(rng):
    show("third", rng)
'''


@pytest.fixture
def inner(pytester, monkeypatch):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # nbval etc. are slow to load
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_draws=DRAWS)
    return pytester


def draws(result) -> dict:
    assert result.ret == 0, result.stdout.str()
    return dict(re.findall(r"DRAW (\w+) (\S+ \S+)", result.stdout.str()))


def test_a_selection_or_another_order_draws_the_same_numbers(inner):
    everything = draws(inner.runpytest_subprocess("-s"))
    assert set(everything) == {"first", "second", "third"}
    assert len(set(everything.values())) == 3          # each test has its own numbers
    # every run below is a new process: the seeds do not hang on Python's salted hash()
    alone = draws(inner.runpytest_subprocess("-s", "-k", "third"))
    assert alone == {"third": everything["third"]}
    reordered = draws(inner.runpytest_subprocess(
        "-s", "test_draws.py::test_third", "test_draws.py::test_first"))
    assert reordered == {"third": everything["third"], "first": everything["first"]}

