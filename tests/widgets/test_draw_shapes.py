"""The drawing functions behind ShapeStepper and ConvArithmetic, on plain matplotlib Axes."""
import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.collections import LineCollection, PatchCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import FancyArrowPatch, Polygon, Rectangle  # noqa: E402
from shared import xception_block  # noqa: E402

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.inspect.conv_geometry import (  # noqa: E402
    conv_geometry,
    group_connections,
    receptive_field,
    tap_formulas,
)
from nnbook.widgets.draw import (  # noqa: E402
    draw_conv_grid,
    draw_conv_text,
    draw_group_diagram,
    draw_step,
    draw_step_text,
    draw_tensor_box,
    split_error,
)
from nnbook.widgets.draw.shapes import ERROR, INPUT, LAYER, OUTPUT  # noqa: E402


def axes(figsize=(8, 3)):
    return Figure(figsize=figsize).add_subplot()


def texts(ax):
    return [t.get_text() for t in ax.texts]


def patches(ax, kind):
    return [p for p in ax.patches if type(p) is kind]


@pytest.fixture(scope="module")
def trace():
    return nb.infer_shapes(xception_block(), (10, 3, 16, 8))


@pytest.fixture(scope="module")
def broken_trace():
    model = xception_block()
    model[3][1][1] = nn.Conv2d(32, 512, 1)
    return nb.infer_shapes(model, (10, 3, 16, 8))


# -- one tensor ---------------------------------------------------------------------------

def test_a_4d_tensor_is_a_box_with_a_non_square_front_face_and_its_sizes_written_on():
    ax = axes()
    artists = draw_tensor_box(ax, (10, 3, 16, 8), 0.5, 0.5, unit=0.1)
    front = patches(ax, Rectangle)
    assert len(front) == 1 and len(patches(ax, Polygon)) == 2  # front, side and top faces
    assert (front[0].get_width(), front[0].get_height()) == pytest.approx((0.8, 1.6))
    assert texts(ax) == ["H=16", "W=8", "C=3", "(10, 3, 16, 8)", "input, batch 10"]
    assert len(artists) == 8
    assert front[0].get_edgecolor()[:3] == pytest.approx(_rgb(INPUT))


def test_a_feature_tensor_is_a_bar_and_the_batch_is_only_written():
    ax = axes()
    draw_tensor_box(ax, (10, 512), 0, 0, feature_unit=0.002, role="output")
    (bar,) = patches(ax, Rectangle)
    assert bar.get_height() == pytest.approx(1.024) and bar.get_width() < 0.2
    assert patches(ax, Polygon) == []
    assert texts(ax) == ["F=512", "(10, 512)", "output, batch 10"]
    assert bar.get_edgecolor()[:3] == pytest.approx(_rgb(OUTPUT))


def test_without_labels_only_the_sizes_on_the_box_remain():
    ax = axes()
    draw_tensor_box(ax, (2, 8, 4, 6), 0, 0, label=False)
    assert texts(ax) == ["H=4", "W=6", "C=8"]


# -- one step -----------------------------------------------------------------------------

def test_a_conv_step_draws_input_arrow_output_to_one_scale(trace):
    ax = axes()
    draw_step(ax, trace.steps[0], title="step 0", params_text="1,792 parameters")
    faces = patches(ax, Rectangle)
    assert len(faces) == 2 and len(patches(ax, Polygon)) == 4
    assert len(patches(ax, FancyArrowPatch)) == 1
    (x_in, x_out) = faces
    # (3, 16, 8) -> (64, 8, 4): the output face is half as high and half as wide
    assert x_in.get_height() / x_out.get_height() == pytest.approx(2.0)
    assert x_in.get_width() / x_out.get_width() == pytest.approx(2.0)
    assert x_in.get_height() / x_in.get_width() == pytest.approx(2.0)
    shown = texts(ax)
    for text in ("step 0", "Conv2d", "1,792 parameters", "(10, 3, 16, 8)", "(10, 64, 8, 4)",
                 "H=16", "W=4", "C=64"):
        assert text in shown
    assert x_in.get_edgecolor()[:3] == pytest.approx(_rgb(INPUT))
    assert x_out.get_edgecolor()[:3] == pytest.approx(_rgb(OUTPUT))


def test_a_sum_step_stacks_both_inputs_with_a_plus(trace):
    ax = axes()
    step = trace.steps[8]
    assert step.layer == "add"
    draw_step(ax, step)
    assert len(patches(ax, Rectangle)) == 3
    shown = texts(ax)
    assert shown.count("(10, 512, 4, 2)") == 3 and "+" in shown and "Sum: add" in shown
    assert shown.count("input, batch 10") == 1 and shown.count("output, batch 10") == 1


def test_reshape_and_linear_steps_draw_bars(trace):
    ax = axes()
    draw_step(ax, trace.steps[11])  # (10, 512, 1, 1) -> (10, 512)
    assert len(patches(ax, Polygon)) == 2 and "F=512" in texts(ax)
    ax = axes()
    draw_step(ax, trace.steps[12])  # Linear: (10, 512) -> (10, 3)
    bars = patches(ax, Rectangle)
    assert len(bars) == 2 and bars[0].get_height() > 20 * bars[1].get_height()  # 512 vs 3
    assert {"F=512", "F=3", "Linear"} <= set(texts(ax))


def test_a_failing_step_has_a_red_arrow_and_a_missing_output(broken_trace):
    step = broken_trace.steps[-1]
    assert step.failed
    ax = axes()
    draw_step(ax, step, title="step 5 of 6")
    (arrow,) = patches(ax, FancyArrowPatch)
    assert arrow.get_edgecolor()[:3] == pytest.approx(_rgb(ERROR))
    missing = [p for p in patches(ax, Rectangle) if p.get_linestyle() == "--"]
    assert len(missing) == 1 and missing[0].get_edgecolor()[:3] == pytest.approx(_rgb(ERROR))
    assert {"?", "no output", "(10, 64, 8, 4)"} <= set(texts(ax))
    title = next(t for t in ax.texts if t.get_text() == "step 5 of 6")
    assert title.get_color() == ERROR


def test_step_text_has_the_formula_and_parameters(trace):
    ax = axes()
    params = [("weight", (64, 3, 3, 3), 1728, True), ("bias", (64,), 64, True)]
    draw_step_text(ax, trace.steps[0], params)
    shown = "\n".join(texts(ax))
    assert "H_out = floor((16 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 8" in shown
    assert "W_out = floor((8 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 4" in shown
    assert "parameters: weight (64, 3, 3, 3)   bias (64,)" in shown


def test_step_text_of_a_failing_step_is_the_error_and_hint_in_red(broken_trace):
    ax = axes()
    draw_step_text(ax, broken_trace.steps[-1])
    first, values, hint = ax.texts
    assert first.get_text() == ("ShapeError: 3.1.1 (Conv2d): expects input with 32 channels, "
                                "got 64.")
    assert first.get_color() == ERROR and hint.get_color() == ERROR
    assert values.get_text() == "input (10, 64, 8, 4)   weight (512, 32, 1, 1)   groups=1"
    assert hint.get_text().startswith("hint: 3.1.0 (DepthwiseConv2d) outputs 64 channels;")
    assert " at " not in "\n".join(texts(ax))  # the source line names the caller: dropped


def test_split_error_keeps_what_values_and_hint(broken_trace):
    parts = split_error(broken_trace.error)
    assert parts["type"] == "ShapeError"
    assert parts["what"] == "3.1.1 (Conv2d): expects input with 32 channels, got 64."
    assert parts["values"] == ["input (10, 64, 8, 4)   weight (512, 32, 1, 1)   groups=1"]
    assert parts["hint"] == ("3.1.0 (DepthwiseConv2d) outputs 64 channels; use "
                             "Conv2d(64, 512, 1) here, or make 3.1.0 (DepthwiseConv2d) "
                             "output 32 channels.")


# -- convolution arithmetic ---------------------------------------------------------------

def _rgb(hex_colour):
    return tuple(int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5))


def corners(collection):
    """(x, y) of each unit square's lower-left corner in a PatchCollection."""
    return sorted(tuple(np.round(p.vertices.min(axis=0), 6)) for p in collection.get_paths())


def test_conv_grid_draws_padding_ring_taps_and_the_chosen_output():
    g = conv_geometry((7, 5), (3, 2), (2, 1), (1, 0), (1, 2), 4, 6, 2)
    taps = receptive_field(g.in_hw, g.kernel_hw, g.stride, g.padding, g.dilation, (1, 2))
    ax = axes((6, 4))
    drawn = draw_conv_grid(ax, g, taps, (1, 2))
    assert all(isinstance(drawn[k], PatchCollection)
               for k in ("input", "padding", "taps", "output", "chosen"))
    assert len(drawn["input"].get_paths()) == 7 * 5
    assert len(drawn["padding"].get_paths()) == 9 * 5 - 7 * 5  # a row above and below
    assert len(drawn["output"].get_paths()) == 4 * 3 - 1
    # taps: input rows 1, 2, 3 (padded rows 2..4) and columns 2, 4: row r is at y = −r − 1
    assert corners(drawn["taps"]) == sorted((c, -(r + 1) - 1) for r in (1, 2, 3)
                                            for c in (2, 4))
    x_out = 5 + 2.5  # the output grid starts GAP cells right of the padded input
    assert corners(drawn["chosen"]) == [(x_out + 2, -2)]
    assert isinstance(drawn["footprint"], Rectangle) and drawn["footprint"].get_linestyle() == "--"
    shown = texts(ax)
    assert {"input 7×5", "output 4×3", "padded with zeros to 9×5", "0,0", "2,1"} <= set(shown)
    assert drawn["taps"].get_edgecolor()[0][:3] == pytest.approx(_rgb(LAYER))


def test_conv_grid_marks_taps_in_the_padding_and_numbers_the_rows_they_read():
    g = conv_geometry((7, 5), (3, 2), (2, 1), (1, 0), (1, 2))
    taps = receptive_field(g.in_hw, g.kernel_hw, g.stride, g.padding, g.dilation, (0, 0))
    ax = axes((6, 4))
    drawn = draw_conv_grid(ax, g, taps, (0, 0))
    assert (0, -1) in corners(drawn["taps"])  # padded row 0 = input row −1
    numbers = [t.get_text() for t in drawn["text"]]
    assert "\u22121" in numbers  # row −1, written with a real minus


def test_large_grids_leave_the_cells_unlabelled():
    g = conv_geometry((16, 16), (3, 3), 1, 4, 1)
    taps = receptive_field(g.in_hw, g.kernel_hw, g.stride, g.padding, g.dilation, (5, 5))
    ax = axes((4, 2))
    drawn = draw_conv_grid(ax, g, taps, (5, 5))
    assert len(drawn["padding"].get_paths()) == 24 * 24 - 16 * 16
    assert "0,0" not in texts(ax)


def test_group_diagram_has_one_line_per_connection_coloured_by_group():
    ax = axes((3, 3))
    drawn = draw_group_diagram(ax, 4, 6, group_connections(4, 6, 2), groups=2)
    lines = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert len(lines) == 2  # one collection per group
    assert sum(len(c.get_segments()) for c in lines) == 6 * 2  # each output reads 2 inputs
    assert [len(d.get_offsets()) for d in drawn["dots"]] == [4, 6]
    assert {"in", "out", "groups=2"} <= set(texts(ax))
    # depthwise: one line per output channel
    ax = axes((3, 3))
    draw_group_diagram(ax, 3, 6, group_connections(3, 6, 3))
    lines = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert len(lines) == 3 and sum(len(c.get_segments()) for c in lines) == 6


def test_conv_text_shows_formulas_or_the_ops_explanation():
    g = conv_geometry((7, 5), (3, 2), (2, 1), (1, 0), (1, 2), 4, 6, 2)
    ax = axes()
    draw_conv_text(ax, g, tap_formulas(g, (0, 0)))
    shown = "\n".join(texts(ax))
    assert "H_out = floor((7 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 4" in shown
    assert "row = 2·0 + 1·i − 1 = −1, 0, 1  (i = 0..2)" in shown
    assert "weight (6, 2, 3, 2) + bias (6,) = 78 parameters" in shown
    bad = conv_geometry((7, 5), (3, 2), 1, 0, 1, 4, 6, 3)
    ax = axes()
    draw_conv_text(ax, bad)
    assert ax.texts[0].get_text() == "ShapeError: conv2d: groups=3 must divide in_channels (4)."
    assert ax.texts[0].get_color() == ERROR
    assert ax.texts[-1].get_text().startswith("hint: groups must divide both")
