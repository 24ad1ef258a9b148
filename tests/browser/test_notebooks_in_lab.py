"""Every notebook, run in JupyterLab in headless Chromium, as a student runs it.

For each notebook in notebooks/: clear the outputs, Run All Cells from the menu, then check
that

- every code cell ran, in order;
- errors show only in the cells that are meant to raise (tagged `raises-exception`), with
  the committed error's name, and nothing else writes to stderr;
- every widget the committed notebook shows (its outputs are marked
  `{"nnbook": {"live_widget": true}}` by tools/normalize_notebooks.py) renders live, with its
  picture, and no "Error displaying widget" anywhere;
- in every widget view, moving one control (a slider by keyboard, a menu, a checkbox or a
  button) makes the kernel send back a different picture.

A picture of the whole notebook after running, and one of each widget after it was moved,
go to the screenshots folder (see tests/README.md).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from labdriver import (
    NOTEBOOKS,
    PICTURE,
    STDERR,
    WIDGET_ERROR,
    WIDGET_VIEW,
    drive_one_control,
    open_notebook,
    picture_src,
    prompts,
    run_all_cells,
    screenshot_notebook,
)

NOTEBOOK_PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))
WIDGET_NAMES = ("ShapeStepper", "ParameterExplorer", "GradientFlow", "BackwardStepper",
                "ConvArithmetic", "OptimizerPlayground")


@dataclass
class CodeCell:
    """What the committed notebook says one code cell shows after running."""

    index: int                    # among all cells (markdown included), as on the page
    number: int | None            # its execution count; None for a cell that never runs
    errors: list = field(default_factory=list)  # names of the errors it shows on purpose
    stderr: int = 0               # stderr streams it shows
    widgets: list = field(default_factory=list)  # names of the live widgets it shows


def committed_cells(path: Path) -> list:
    cells = json.loads(path.read_text())["cells"]
    out = []
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        made = re.findall(rf"\b({'|'.join(WIDGET_NAMES)})\(", source)
        expected = CodeCell(index, cell.get("execution_count"))
        for output in cell.get("outputs", []):
            if output["output_type"] == "error":
                expected.errors.append(output["ename"])
            elif output["output_type"] == "stream" and output["name"] == "stderr":
                expected.stderr += 1
            elif output.get("metadata", {}).get("nnbook", {}).get("live_widget"):
                text = "".join(output["data"].get("text/plain", ""))
                first = text.split(":", 1)[0]
                name = made.pop(0) if made else first if first in WIDGET_NAMES else "widget"
                expected.widgets.append(name)
        out.append(expected)
    return out


def test_every_notebook_is_checked():
    assert [p.name for p in NOTEBOOK_PATHS][:1] == ["00_welcome.ipynb"]
    widgets = [w for p in NOTEBOOK_PATHS for c in committed_cells(p) for w in c.widgets]
    assert set(widgets) == set(WIDGET_NAMES), "every kind of widget is driven somewhere"


def eventually(check, *args) -> bool:
    """True when a Playwright expectation holds within its timeout (views render late)."""
    try:
        check(*args)
    except AssertionError:
        return False
    return True


def check_after_run_all(page, notebook, path: Path, expected: list) -> None:
    """Every cell ran; errors only where meant; every widget live, with its picture."""
    from playwright.sync_api import expect

    shown = prompts(notebook)
    wanted = [f"[{c.number}]:" if c.number is not None else "[ ]:" for c in expected]
    assert shown == wanted, f"{path.name}: not every cell ran (prompts {shown})"

    problems = []
    cells = notebook.locator(".jp-Cell")
    for cell in expected:
        where = f"{path.name}, cell {cell.index} ([{cell.number}])"
        dom = cells.nth(cell.index)
        texts = dom.locator(STDERR).all_inner_texts()
        if len(texts) != len(cell.errors) + cell.stderr:
            problems.append(f"{where}: {len(texts)} error/stderr output(s), expected "
                            f"{len(cell.errors) + cell.stderr}:\n" + "\n---\n".join(texts)[-2000:])
        for name in cell.errors:
            if not any(re.search(rf"\b{re.escape(name)}\b", t) for t in texts):
                problems.append(f"{where}: the {name} this cell shows on purpose is missing")
        views = dom.locator(WIDGET_VIEW)
        if not eventually(expect(views).to_have_count, len(cell.widgets)):
            problems.append(f"{where}: {views.count()} live widget view(s), expected "
                            f"{len(cell.widgets)} ({', '.join(cell.widgets)})")
            continue
        for view, name in zip(views.all(), cell.widgets):
            picture = view.locator(PICTURE)
            if not eventually(expect(picture).to_have_count, 1) or not picture.evaluate(
                    "img => img.decode().then(() => img.naturalWidth > 0, () => false)"):
                problems.append(f"{where}: the {name} view shows no picture")
    if page.get_by_text(WIDGET_ERROR).count():
        problems.append(f"{path.name}: the page says {WIDGET_ERROR!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", NOTEBOOK_PATHS, ids=lambda p: p.stem)
def test_notebook_runs_and_every_widget_answers(page, lab, screenshots, path):
    from playwright.sync_api import expect

    expected = committed_cells(path)
    total = len(json.loads(path.read_text())["cells"])
    notebook = open_notebook(page, lab, path.name, total, sidebar=False)
    expect(notebook.locator(".jp-Cell")).to_have_count(total)
    run_all_cells(page, notebook)
    try:
        check_after_run_all(page, notebook, path, expected)
    finally:  # also when a check fails: the picture shows what went wrong
        screenshot_notebook(page, notebook, screenshots.path(
            f"{path.stem}.png", path.name, f"{path.name} after Run All Cells"))

    # every widget answers a control with a new picture
    cells = notebook.locator(".jp-Cell")
    for cell in expected:
        for number, (view, name) in enumerate(zip(cells.nth(cell.index).locator(WIDGET_VIEW)
                                                  .all(), cell.widgets)):
            before = picture_src(view)
            control = drive_one_control(view)
            changed = eventually(expect(view.locator(PICTURE)).not_to_have_attribute, "src",
                                 before)
            suffix = f"-{number + 1}" if len(cell.widgets) > 1 else ""
            view.screenshot(path=screenshots.path(
                f"{path.stem}--cell{cell.index:02d}{suffix}-{name}.png", path.name,
                f"cell {cell.index}: {name} after {control}"))
            where = f"{path.name}, cell {cell.index}: {name}, {control}"
            assert changed, f"{where}: the picture did not change"
            assert picture_src(view).startswith("data:image/png;base64,"), where
    assert page.get_by_text(WIDGET_ERROR).count() == 0
    assert notebook.locator(STDERR).count() == sum(len(c.errors) + c.stderr for c in expected)
    assert page.errors == [], f"{path.name}: errors in the page's JavaScript: {page.errors}"
