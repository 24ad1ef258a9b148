"""docs/pytorch.md is generated from the code and cannot drift; the names list is PyTorch's."""
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tools"


def tool(name):
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(TOOLS))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(TOOLS))
    return module


def test_the_committed_page_is_what_the_code_renders():
    text = tool("pytorch_doc").render()
    assert (ROOT / "docs" / "pytorch.md").read_text() == text, \
        "docs/pytorch.md is out of date: run python tools/pytorch_doc.py and commit it"


def test_the_coverage_script_prints_the_figure_the_page_shows():
    out = subprocess.run([sys.executable, str(TOOLS / "pytorch_coverage.py")],
                         capture_output=True, text=True, check=True, cwd=ROOT).stdout
    figure = out.splitlines()[0]
    assert re.fullmatch(r"\d+ of \d+ names present \(\d+%\), \d+ refused with an error that "
                        r"names the alternative", figure)
    assert f"**{figure}**" in (ROOT / "docs" / "pytorch.md").read_text()
    present, total = map(int, re.match(r"(\d+) of (\d+)", figure).groups())
    assert total >= 400 and 0 < present < total


def test_the_readme_links_the_page():
    assert "(docs/pytorch.md)" in (ROOT / "README.md").read_text().split("\n## ")[0]


def test_the_names_are_resolved_by_what_nnbook_really_has():
    coverage = tool("pytorch_coverage")
    instances = coverage._instances()
    assert coverage.resolve("torch.nn.functional.relu", instances) == "present"
    assert coverage.resolve("torch.Tensor.view", instances) == "present"
    assert coverage.resolve("torch.nn.Module.training", instances) == "present"  # an instance's
    assert coverage.resolve("torch.jit.script", instances) == "refused"
    assert coverage.resolve("torch.cuda.synchronize", instances) == "refused"
    # a stub module's answers are present: is_available() says False, as on a CPU build
    assert coverage.resolve("torch.distributed.is_available", instances) == "present"
    assert coverage.resolve("torch.no_such_function", instances) == "missing"
    assert coverage.resolve("torch.nn.NoSuchLayer", instances) == "missing"


def test_every_difference_is_filled_in():
    from nnbook.compat import DIFFERENCES

    areas = [d.area for d in DIFFERENCES]
    assert areas == sorted(areas, key=areas.index)  # each area in one block
    for d in DIFFERENCES:
        assert d.pytorch and d.nnbook and d.why and not d.why.endswith(".")


@pytest.mark.torch
def test_every_listed_name_exists_in_pytorch():
    import torch

    coverage = tool("pytorch_coverage")
    examples = {"torch.nn.Module": torch.nn.Linear(2, 2),
                "torch.optim.Optimizer": torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))],
                                                         lr=0.1),
                "torch.utils.data.DataLoader": torch.utils.data.DataLoader(range(3))}
    names = [n for g in coverage.read_groups() for n in g.names]
    assert len(names) == len(set(names))
    unknown = []
    for name in names:
        obj, path = torch, "torch"
        for part in name.split(".")[1:]:
            try:
                obj = getattr(obj, part)
            except AttributeError:
                try:
                    obj = importlib.import_module(f"{path}.{part}")
                except ImportError:
                    obj = getattr(examples.get(path), part, None)
                    if obj is None:
                        unknown.append(name)
                        break
            path = f"{path}.{part}"
    assert not unknown
