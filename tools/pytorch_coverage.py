#!/usr/bin/env python3
"""Which of the PyTorch names students' code uses most does nnbook have?

    python tools/pytorch_coverage.py           # the figure, then the missing names by group
    python tools/pytorch_coverage.py --all     # every name with its status

Each name of tools/pytorch_names.txt is looked up in nnbook with ``torch`` read as
``nnbook`` (``torch.nn.functional.relu`` -> ``nnbook.nn.functional.relu``;
``torch.Tensor.view`` -> ``nnbook.Tensor.view``).  A name is

  present   when nnbook has it,
  refused   when it exists only to raise UnsupportedError naming what to do instead
            (``torch.jit.script``, ``torch.cuda.synchronize``...),
  missing   otherwise.

The figure ("N of M names present") is also written into docs/pytorch.md by
tools/pytorch_doc.py, and a test keeps the two in step.
"""
from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass, field
from pathlib import Path

NAMES = Path(__file__).with_name("pytorch_names.txt")


@dataclass
class Group:
    title: str
    names: list = field(default_factory=list)
    status: dict = field(default_factory=dict)  # name -> present / refused / missing

    def count(self, status: str) -> int:
        return sum(1 for s in self.status.values() if s == status)


def read_groups(path: Path = NAMES) -> list[Group]:
    groups: list[Group] = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("## "):
            groups.append(Group(line[3:]))
        elif line and not line.startswith("#"):
            groups[-1].names.append(line)
    return groups


def _instances() -> dict:
    """Objects to ask for attributes that live on instances (``model.training``)."""
    import nnbook as nb
    from nnbook.utils.data import DataLoader

    param = nb.nn.Parameter(nb.zeros(1))
    return {"nnbook.nn.Module": nb.nn.Linear(2, 2),
            "nnbook.optim.Optimizer": nb.optim.SGD([param], lr=0.1),
            "nnbook.utils.data.DataLoader": DataLoader(range(3))}


def resolve(torch_name: str, instances: dict) -> str:
    """'present', 'refused' or 'missing' for one qualified PyTorch name."""
    from nnbook.unsupported import Refused, StubModule

    parts = torch_name.split(".")
    path, obj = "nnbook", importlib.import_module("nnbook")
    for part in parts[1:]:
        if isinstance(obj, Refused) or (isinstance(obj, StubModule) and part not in vars(obj)):
            return "refused"  # (a stub module answers a few names as PyTorch on a CPU does)
        try:
            obj = getattr(obj, part)
        except AttributeError:
            try:
                obj = importlib.import_module(f"{path}.{part}")
            except ImportError:
                if path in instances and hasattr(instances[path], part):
                    obj = getattr(instances[path], part)
                else:
                    return "missing"
        path = f"{path}.{part}"
    return "refused" if isinstance(obj, (Refused, StubModule)) else "present"


def coverage(path: Path = NAMES) -> list[Group]:
    groups, instances = read_groups(path), _instances()
    for group in groups:
        group.status = {name: resolve(name, instances) for name in group.names}
    return groups


def figure(groups: list[Group]) -> str:
    total = sum(len(g.names) for g in groups)
    present = sum(g.count("present") for g in groups)
    refused = sum(g.count("refused") for g in groups)
    return (f"{present} of {total} names present ({100 * present / total:.0f}%), "
            f"{refused} refused with an error that names the alternative")


def main(argv: list[str]) -> int:
    groups = coverage()
    print(figure(groups))
    for g in groups:
        print(f"\n{g.title}: {g.count('present')} of {len(g.names)}")
        for name, status in g.status.items():
            if status != "present" or "--all" in argv:
                print(f"  {status:8s} {name}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.exit(main(sys.argv[1:]))
