"""docs/reading.md, the path through the source a student reads, stays true and short.

Each step of the page names a file and what to read in it: the whole file, or definitions
(``Op``, ``Module.__call__``).  These tests find every one of them in the code, count the
lines they span, and hold the path to the size the page claims: a path a student can
read in an afternoon or two, not the whole package.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "reading.md"
BUDGET = 4500  # lines: the teaching path's size ARCHITECTURE.md aims at

STEP = re.compile(r"^\| (\d+) \| `([^`]+)` \| ([^|]+) \|", re.MULTILINE)


def steps():
    """(number, file, names) for each step; names is None for "whole file"."""
    found = []
    for number, path, read in STEP.findall(PAGE.read_text()):
        read = read.strip()
        names = None if read == "whole file" else re.findall(r"`([^`]+)`", read)
        found.append((int(number), path, names))
    return found


def definitions(tree: ast.Module) -> dict[str, ast.AST]:
    """Top-level functions and classes, and methods as ``Class.method``."""
    found = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found[node.name] = node
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, ast.FunctionDef):
                    found[f"{node.name}.{member.name}"] = member
    return found


def lines_to_read(path: str, names) -> set[int]:
    source = (ROOT / path).read_text()
    if names is None:
        return set(range(1, len(source.splitlines()) + 1))
    defs = definitions(ast.parse(source))
    missing = [name for name in names if name not in defs]
    assert not missing, f"docs/reading.md names {missing} in {path}, which has no such definition"
    lines = set()
    for name in names:
        node = defs[name]
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        lines.update(range(first, node.end_lineno + 1))
    return lines


def test_the_steps_are_numbered_in_order():
    numbers = [number for number, _, _ in steps()]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 20


@pytest.mark.parametrize("number, path, names", steps(), ids=lambda v: str(v))
def test_every_step_names_code_that_exists(number, path, names):
    assert (ROOT / path).is_file(), f"step {number}: {path} does not exist"
    assert lines_to_read(path, names), f"step {number} has nothing to read"


def test_the_path_is_short_enough_to_read_and_says_how_long_it_is():
    by_file: dict[str, set[int]] = {}
    for _, path, names in steps():
        by_file.setdefault(path, set()).update(lines_to_read(path, names))
    total = sum(len(lines) for lines in by_file.values())
    assert total <= BUDGET, f"the reading path has grown to {total} lines (at most {BUDGET})"
    claimed = int(re.search(r"about ([\d,]+) lines", PAGE.read_text()).group(1).replace(",", ""))
    assert abs(total - claimed) <= 0.1 * claimed, (
        f"docs/reading.md says about {claimed} lines; the steps add up to {total}")


def test_the_path_covers_the_three_bugs_nnbook_was_built_around():
    text = PAGE.read_text()
    for name in ("the backward rule without dout", "the swapped height and width",
                 "the layer built in forward"):
        assert name in text.lower()
