"""The programs students write with PyTorch run unchanged under nnbook, with the same results.

Each file in ``programs/`` is one small program in the idioms of tutorials and courses. Its
``run(torch, nn, F, optim, data)`` uses only those five names (and numpy for the data), so
the same source runs with ``torch, torch.nn, torch.nn.functional, torch.optim,
torch.utils.data`` and with nnbook's modules of the same names. This test runs it under both
and compares what ``run`` returns: the same structure, the same dtypes for tensors, and
values within the program's ``TOLERANCE`` (float32 training accumulates roundings that
differ between the libraries' summation orders), or its ``TOLERANCE_FOR[key]`` for one
entry of the result (a gradient that is a long sum cancelling to a small number).

A program whose weights come from a layer's random initialisation defines
``model(torch, nn)``: the test builds the model in both libraries, copies PyTorch's initial
``state_dict`` into nnbook's by key (which also checks that the keys are the same) and
passes each library its model (``run(..., model=...)``). Both libraries' global generators
are seeded for each test, so a run is the same every time. Draws from the libraries' random
generators differ; each program says how it keeps its comparison meaningful.
"""
from __future__ import annotations

import ast
import importlib.util
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import nnbook as nb
import nnbook.nn.functional  # noqa: F401
import nnbook.optim  # noqa: F401
import nnbook.utils.data  # noqa: F401

try:  # the checks of the sources below run without torch; the runs are marked `torch`
    import torch
    import torch.nn.utils.prune  # noqa: F401  (a student's `import torch.nn.utils.prune`)
except ImportError:
    torch = None

PROGRAMS = Path(__file__).parent / "programs"
NAMES = sorted(p.stem for p in PROGRAMS.glob("*.py") if not p.stem.startswith("_"))


def libraries():
    """The five names ``run`` takes, per library."""
    return {
        "torch": (torch, torch.nn, torch.nn.functional, torch.optim, torch.utils.data),
        "nnbook": (nb, nb.nn, nb.nn.functional, nb.optim, nb.utils.data),
    }


def load(name):
    spec = importlib.util.spec_from_file_location(f"compat_program_{name}",
                                                  PROGRAMS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def plain(value):
    """A result with every tensor of either library turned into a numpy array."""
    if isinstance(value, (torch.Tensor, nb.Tensor)):  # only called when torch is here
        return value.detach().numpy()
    if isinstance(value, dict):
        return {key: plain(v) for key, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


DECIMAL = re.compile(r"-?\d+\.(\d+)")


def compare_text(got, want, where, tolerance):
    """Printed text: the same words; each printed decimal may differ by one unit in its last
    digit (rounding can flip it) plus the tolerance."""
    assert DECIMAL.sub("#", got) == DECIMAL.sub("#", want), f"{where}: {got!r}, PyTorch {want!r}"
    for g, w in zip(DECIMAL.finditer(got), DECIMAL.finditer(want)):
        unit = 10.0 ** -len(w.group(1))
        assert abs(float(g.group()) - float(w.group())) <= unit * 1.001 + tolerance["atol"] \
            + tolerance["rtol"] * abs(float(w.group())), f"{where}: {got!r}, PyTorch {want!r}"


def compare(got, want, where, tolerance):
    """nnbook's result ``got`` against PyTorch's ``want``; ``where`` names the place."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), \
            f"{where}: keys {list(got) if isinstance(got, dict) else got!r}, PyTorch {list(want)}"
        for key in want:
            compare(got[key], want[key], f"{where}[{key!r}]", tolerance)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), \
            f"{where}: {got!r} is not a list of {len(want)} like PyTorch's"
        for i, (g, w) in enumerate(zip(got, want)):
            compare(g, w, f"{where}[{i}]", tolerance)
    elif isinstance(want, str):
        assert isinstance(got, str), f"{where}: {got!r}, PyTorch {want!r}"
        compare_text(got, want, where, tolerance)
    elif isinstance(want, (bool, type(None))):
        assert got == want, f"{where}: {got!r}, PyTorch {want!r}"
    elif isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), f"{where}: {got!r} is not a tensor like PyTorch's"
        assert got.dtype == want.dtype and got.shape == want.shape, \
            f"{where}: {got.dtype} {got.shape}, PyTorch {want.dtype} {want.shape}"
        np.testing.assert_allclose(got, want, err_msg=where, equal_nan=False, **tolerance)
    else:  # a Python number
        assert type(got) is type(want), f"{where}: {got!r} is no {type(want).__name__}"
        np.testing.assert_allclose(got, want, err_msg=where, equal_nan=False, **tolerance)


def run(program, library, model=None):
    """What ``program`` returns under ``library``. Warnings fail the test, except PyTorch's
    deprecation notes and the one warning a program names in ``NNBOOK_WARNS`` (a listed
    difference of nnbook's), which must then come."""
    kwargs = {} if model is None else {"model": model}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=DeprecationWarning, module="torch")
        warnings.filterwarnings("ignore", category=FutureWarning, module="torch")
        expected = getattr(program, "NNBOOK_WARNS", None) if library == "nnbook" else None
        if expected:
            warnings.filterwarnings("always", message=".*", category=UserWarning)
        result = plain(program.run(*libraries()[library], **kwargs))
    names = {type(w.message).__name__ for w in caught}
    assert names == ({expected} if expected else set()), \
        f"{library}: warned {sorted(names)}, expected {expected or 'nothing'}"
    return result


@pytest.fixture
def torch_on_one_thread():
    """PyTorch's small ops on two threads spend most of their time waiting for each other
    on a busy machine (a 1000-step fit took 40 s instead of 1.5 s); one thread gives the
    same results."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.torch
@pytest.mark.parametrize("name", NAMES)
def test_the_program_runs_alike(name, tmp_path, monkeypatch, rng, torch_on_one_thread):
    program = load(name)
    torch.manual_seed(int(rng.integers(2**62)))  # this test's own draws (nnbook's: conftest)
    models = {}
    if hasattr(program, "model"):
        models["torch"] = program.model(torch, torch.nn)
        models["nnbook"] = program.model(nb, nb.nn)
        state = models["torch"].state_dict()
        assert list(models["nnbook"].state_dict()) == list(state)
        models["nnbook"].load_state_dict({k: nb.tensor(v.numpy()) for k, v in state.items()})
    results = {}
    for library in libraries():
        folder = tmp_path / library  # a program that saves a file writes it in its own folder
        folder.mkdir()
        monkeypatch.chdir(folder)
        results[library] = run(program, library, models.get(library))
    got, want = results["nnbook"], results["torch"]
    assert isinstance(want, dict) and isinstance(got, dict) and list(got) == list(want)
    special = getattr(program, "TOLERANCE_FOR", {})
    assert set(special) <= set(want), f"{name}: TOLERANCE_FOR names no result"
    for key in want:
        compare(got[key], want[key], f"{name}[{key!r}]", special.get(key, program.TOLERANCE))


def test_there_are_programs_and_each_says_what_it_compares():
    assert len(NAMES) >= 25
    for name in NAMES:
        source = (PROGRAMS / f"{name}.py").read_text()
        doc = ast.get_docstring(ast.parse(source))
        assert doc and "Compared:" in doc, f"{name}: the docstring must say what is compared"


@pytest.mark.parametrize("name", NAMES)
def test_a_program_names_no_library(name):
    """Only numpy (and the standard library's maths) is imported: torch, nnbook and their
    parts come in as run()'s arguments, so one source runs under both."""
    tree = ast.parse((PROGRAMS / f"{name}.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            modules = [node.module]
        else:
            continue
        assert all(m.split(".")[0] in ("numpy", "math", "__future__") for m in modules), \
            f"{name} imports {modules}"
    run_fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "run")
    assert [a.arg for a in run_fn.args.args][:5] == ["torch", "nn", "F", "optim", "data"]
