"""The house stays standing: no import cycles, and no import from a higher floor.

Reads every import in the package -- including imports inside functions -- and checks
them against the floors of ARCHITECTURE.md. A package's ``__init__`` may gather names
from its own modules; anything else must import from its floor or the floors below.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "nnbook"

# Floors, lowest first: a module may import only modules on its floor or below.
FLOORS = [
    ["nnbook.context", "nnbook.errors", "nnbook.dtypes", "nnbook.device", "nnbook.arrays",
     "nnbook.notes", "nnbook.unsupported", "nnbook.dtype_info", "nnbook.cuda", "nnbook.backends",
     "nnbook.amp", "nnbook.accelerator", "nnbook.compat"],
    ["nnbook.ops"],
    ["nnbook.kernels"],
    ["nnbook.autograd.engine", "nnbook.autograd.saved", "nnbook.printing", "nnbook.tensor",
     "nnbook.random", "nnbook.creation", "nnbook.autograd.numerical", "nnbook.methods",
     "nnbook.functions", "nnbook.tensor_types", "nnbook.linalg", "nnbook.special"],
    ["nnbook.autograd"],
    ["nnbook.nn", "nnbook.optim", "nnbook.serialization", "nnbook.data", "nnbook.sequence_data",
     "nnbook.utils", "nnbook.distributions"],
    ["nnbook.inspect", "nnbook.exercises"],
    ["nnbook.widgets"],
]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def floor_of(name: str) -> int | None:
    """The floor of a module: its longest matching prefix in FLOORS."""
    best, found = -1, None
    for level, prefixes in enumerate(FLOORS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best:
                best, found = len(prefix), level
    return found


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every import of an nnbook module in ``path``."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("nnbook")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("nnbook"):
                continue
            for alias in node.names:  # `from . import x` imports the module x
                sub = f"{target}.{alias.name}"
                found.append((node.lineno, sub if (PACKAGE.parent / (sub.replace(".", "/") +
                                                                     ".py")).exists()
                              or (PACKAGE.parent / sub.replace(".", "/")).is_dir()
                              else target))
    return found


def all_imports() -> dict[str, list[tuple[int, str]]]:
    return {module_name(p): imports_of(p) for p in sorted(PACKAGE.rglob("*.py"))}


def test_every_module_has_a_floor():
    missing = [name for name in all_imports() if name != "nnbook" and floor_of(name) is None]
    assert not missing, f"add these modules to FLOORS (and ARCHITECTURE.md): {missing}"


def test_no_module_imports_a_higher_floor():
    upward = []
    for name, imports in all_imports().items():
        if name in ("nnbook", "nnbook.exercises._solutions"):
            continue  # the top package gathers the public names; the reference solutions
            #           are written as a student writes them, with `import nnbook as nb`
        for line, target in imports:
            mine, theirs = floor_of(name), floor_of(target)
            if target == "nnbook" or (theirs is not None and mine is not None and theirs > mine
                                      and not (name.endswith("__init__") or
                                               target.startswith(name + "."))):
                upward.append(f"{name} (floor {mine}), line {line}: imports {target} "
                              f"(floor {theirs})")
    assert not upward, "imports that go up a floor:\n" + "\n".join(upward)


def test_no_import_cycles():
    graph = {name: {t for _, t in imports if t != name} for name, imports in all_imports().items()}
    graph = {name: {t for t in targets if t in graph and not t.startswith(name + ".")}
             for name, targets in graph.items()}
    state, stack, cycles = {}, [], []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state and node != "nnbook":
            visit(node)
    cycles = [c for c in cycles if "nnbook" not in c]
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize("source, target, upward", [
    ("nnbook.ops.conv", "nnbook.tensor", True),
    ("nnbook.tensor", "nnbook.ops.conv", False),
    ("nnbook.inspect.records", "nnbook.widgets.draw", True),
    ("nnbook.kernels.conv", "nnbook.ops.conv", False),
])
def test_the_floors_are_ordered(source, target, upward):
    assert (floor_of(target) > floor_of(source)) is upward


def _sizes():
    """(where, kind, lines) of every function and every class of nnbook/ops."""
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            where = f"{module_name(path)}.{getattr(node, 'name', '')}"
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield where, "function", node.end_lineno - node.lineno + 1
            elif isinstance(node, ast.ClassDef) and module_name(path).startswith("nnbook.ops"):
                yield where, "op class", node.end_lineno - node.lineno + 1


def test_every_function_reads_on_one_screen():
    """Functions of at most 60 lines (decorators aside), op classes of at most 150."""
    limits = {"function": 60, "op class": 150}
    too_long = [(where, kind, lines) for where, kind, lines in _sizes() if lines > limits[kind]]
    assert too_long == []
