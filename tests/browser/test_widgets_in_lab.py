"""A committed notebook as GitHub would show it, and one widget stepped with care.

- A committed notebook opened without running shows its committed outputs, the PNG
  fallbacks of its widgets included, and no live widget yet.
- In a small generated notebook, the ShapeStepper's slider answers ArrowRight with exactly
  the next step: the caption names the next layer, and the picture changes.
- The OptimizerPlayground answers a new optimizer chosen in its menu with a new path.
- The sequence widgets (AttentionViewer, TimeGradientFlow, ShapeStepper on a transformer
  block) answer their controls: the query slider names the next token, the clipping
  checkbox and the step slider redraw, the attention steps follow each other.
"""
from __future__ import annotations

import base64
import json
import re

import pytest
from labdriver import NOTEBOOKS, PICTURE, STDERR, WIDGET_VIEW, open_notebook, run_all_cells

# Committed notebooks opened without running: every PNG output in the file must show as an img.
COMMITTED = ["00_welcome.ipynb", "07_shapes_and_convolution.ipynb"]

STEPPER = "stepper_check.ipynb"
STEPPER_CELLS = [
    "import nnbook as nb\n"
    "from nnbook import nn\n"
    "from nnbook.widgets import ShapeStepper\n"
    "nb.manual_seed(0)",
    "model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(84, 10))\n"
    "ShapeStepper(model, (2, 3, 9, 5))",
]
# What the ShapeStepper's caption says at step 1 and, after one ArrowRight, at step 2
# (steps count from 1 when shown).
STEP_0 = ("step 1 of 4", "Conv2d", "(2, 3, 9, 5)", "(2, 4, 7, 3)")
STEP_1 = ("step 2 of 4", "ReLU")

PLAYGROUND = "playground_check.ipynb"
PLAYGROUND_CELLS = [
    "from nnbook.widgets import OptimizerPlayground\n"
    "OptimizerPlayground(steps=20)",
]

SEQUENCES = "sequences_check.ipynb"
SEQUENCES_CELLS = [
    "import nnbook as nb\n"
    "from nnbook import nn\n"
    "from nnbook.widgets import AttentionViewer, ShapeStepper, TimeGradientFlow\n"
    "nb.manual_seed(0)\n"
    "block = nn.TransformerEncoderLayer(12, 3, dim_feedforward=10, batch_first=True)\n"
    "tokens = 'the cat sat on a mat'.split()",
    "AttentionViewer(block, tokens, nb.randn(1, 6, 12))",
    "rnn = nn.RNN(4, 6, num_layers=2)\n"
    "x = nb.randn(12, 2, 4)\n"
    "flow = TimeGradientFlow(rnn, x, clip=0.5, redraw_interval=0.0)\n"
    "rnn(x)[0][-1].sum().backward()\n"
    "_ = flow.record()\n"
    "flow",
    "ShapeStepper(block, (2, 6, 12))",
]


def shown_outputs(outputs: list) -> list:
    """A cell's outputs as JupyterLab shows them: consecutive streams of one name merged."""
    shown = []
    for output in outputs:
        if (shown and output["output_type"] == "stream" == shown[-1]["output_type"]
                and output["name"] == shown[-1]["name"]):
            continue
        shown.append(output)
    return shown


@pytest.mark.parametrize("name", COMMITTED)
def test_committed_notebook_shows_its_outputs_before_running(page, lab, name):
    from playwright.sync_api import expect

    cells = json.loads((NOTEBOOKS / name).read_text())["cells"]
    outputs = [o for c in cells for o in shown_outputs(c.get("outputs", []))]
    pngs = sum("image/png" in o.get("data", {}) for o in outputs)
    # errors shown on purpose (cells tagged raises-exception) render as stderr text too
    errors = sum(o["output_type"] == "error" or o.get("name") == "stderr" for o in outputs)
    notebook = open_notebook(page, lab, name, len(cells))
    expect(notebook.locator(".jp-Cell")).to_have_count(len(cells))
    rendered = notebook.locator(".jp-OutputArea-child > .jp-OutputArea-output")
    expect(rendered).to_have_count(len(outputs))
    expect(notebook.locator(".jp-OutputArea-output img")).to_have_count(pngs)
    for img in notebook.locator(".jp-OutputArea-output img").all():
        assert (img.get_attribute("src") or "").startswith("data:image/png;base64,")
        assert img.evaluate("el => el.complete && el.naturalWidth") > 0, "a PNG did not decode"
    expect(notebook.locator(STDERR)).to_have_count(errors)
    expect(notebook.locator(WIDGET_VIEW)).to_have_count(0)  # not live until run


def test_shape_stepper_arrow_right_shows_the_next_layer(page, lab, screenshots):
    from playwright.sync_api import expect

    lab.add_notebook(STEPPER, STEPPER_CELLS)
    notebook = open_notebook(page, lab, STEPPER, len(STEPPER_CELLS))
    run_all_cells(page, notebook)
    assert notebook.locator(STDERR).all_inner_texts() == []

    stepper = notebook.locator(".jp-Cell").nth(1).locator(WIDGET_VIEW)
    handle = stepper.locator(".widget-slider .noUi-handle")
    expect(handle).to_have_count(1)
    expect(handle).to_be_visible()
    caption = stepper.locator(".widget-html-content").first
    for text in STEP_0:
        expect(caption).to_contain_text(text)
    picture = stepper.locator(PICTURE)
    before = picture.get_attribute("src")
    assert base64.b64decode(before.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"

    handle.press("ArrowRight")  # the front end sets the value, the kernel redraws
    expect(handle).to_have_attribute("aria-valuenow", re.compile(r"^1(\.0)?$"))
    for text in STEP_1:
        expect(caption).to_contain_text(text)
    expect(picture).not_to_have_attribute("src", before)
    next_button = stepper.get_by_role("button", name=re.compile("next"))
    next_button.click()  # and the button goes on to the third step
    expect(handle).to_have_attribute("aria-valuenow", re.compile(r"^2(\.0)?$"))
    expect(caption).to_contain_text("step 3 of 4")
    stepper.screenshot(path=screenshots.path("generated--ShapeStepper.png", "a generated notebook",
                                             "ShapeStepper after ArrowRight, then next"))
    assert notebook.locator(STDERR).all_inner_texts() == []


def test_optimizer_playground_redraws_for_another_optimizer(page, lab, screenshots):
    from playwright.sync_api import expect

    lab.add_notebook(PLAYGROUND, PLAYGROUND_CELLS)
    notebook = open_notebook(page, lab, PLAYGROUND, len(PLAYGROUND_CELLS))
    run_all_cells(page, notebook)
    assert notebook.locator(STDERR).all_inner_texts() == []

    playground = notebook.locator(".jp-Cell").nth(0).locator(WIDGET_VIEW)
    menus = playground.locator(".widget-dropdown select")
    expect(menus).to_have_count(2)                      # surface, optimizer
    picture = playground.locator(PICTURE)
    expect(picture).to_have_count(1)
    before = picture.get_attribute("src")
    assert base64.b64decode(before.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"

    menus.nth(1).select_option("Adam")                  # the kernel recomputes the path
    expect(picture).not_to_have_attribute("src", before)
    playground.screenshot(path=screenshots.path("generated--OptimizerPlayground.png",
                                                "a generated notebook",
                                                "OptimizerPlayground after choosing Adam"))
    assert notebook.locator(STDERR).all_inner_texts() == []


def test_sequence_widgets_answer_their_controls(page, lab, screenshots):
    from playwright.sync_api import expect

    lab.add_notebook(SEQUENCES, SEQUENCES_CELLS)
    notebook = open_notebook(page, lab, SEQUENCES, len(SEQUENCES_CELLS))
    run_all_cells(page, notebook)
    assert notebook.locator(STDERR).all_inner_texts() == []
    cells = notebook.locator(".jp-Cell")

    viewer = cells.nth(1).locator(WIDGET_VIEW)
    caption = viewer.locator(".widget-html-content").first
    expect(caption).to_contain_text("query 0 the")
    picture = viewer.locator(PICTURE)
    before = picture.get_attribute("src")
    query = viewer.locator(".widget-slider").filter(has_text="query").locator(".noUi-handle")
    query.press("ArrowRight")                            # the next token
    expect(caption).to_contain_text("query 1 cat")
    expect(picture).not_to_have_attribute("src", before)
    viewer.locator(".widget-dropdown select").nth(1).select_option(label="head 2")
    expect(caption).to_contain_text("head 2:")
    expect(caption).not_to_contain_text("head 0:")
    viewer.screenshot(path=screenshots.path("generated--AttentionViewer.png",
                                            "a generated notebook",
                                            "AttentionViewer: query 1, head 2"))

    flow = cells.nth(2).locator(WIDGET_VIEW)
    caption = flow.locator(".widget-html-content").first
    expect(caption).to_contain_text("after clipping to 0.5")
    picture = flow.locator(PICTURE)
    before = picture.get_attribute("src")
    flow.locator(".widget-checkbox input[type=checkbox]").click()   # clipping off
    expect(caption).not_to_contain_text("after clipping")
    expect(picture).not_to_have_attribute("src", before)
    flow.screenshot(path=screenshots.path("generated--TimeGradientFlow.png",
                                          "a generated notebook",
                                          "TimeGradientFlow with clipping switched off"))

    stepper = cells.nth(3).locator(WIDGET_VIEW)
    caption = stepper.locator(".widget-html-content").first
    expect(caption).to_contain_text("query projection")
    stepper.get_by_role("button", name=re.compile("next")).click()
    expect(caption).to_contain_text("key projection")
    for _ in range(5):
        stepper.get_by_role("button", name=re.compile("next")).click()
    expect(caption).to_contain_text("scores")
    expect(caption).to_contain_text("(2, 3, 6, 6)")
    stepper.screenshot(path=screenshots.path("generated--ShapeStepper-attention.png",
                                             "a generated notebook",
                                             "ShapeStepper at the attention scores"))
    assert notebook.locator(STDERR).all_inner_texts() == []
