"""ShapeStepper and ConvArithmetic, headless: move every control, read what the view shows."""
import base64
import struct

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

from matplotlib.collections import PatchCollection  # noqa: E402
from shared import PNG_MAGIC, shown, xception_block  # noqa: E402

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.inspect.conv_geometry import receptive_field  # noqa: E402
from nnbook.widgets import ConvArithmetic, ShapeStepper  # noqa: E402
from nnbook.widgets.draw.shapes import ERROR  # noqa: E402


def broken_xception_block():
    model = xception_block()
    model[3][1][1] = nn.Conv2d(32, 512, 1)  # expects 32 channels, the depthwise conv gives 64
    return model


def check_fallback(widget):
    bundle = widget._repr_mimebundle_()
    png = base64.b64decode(bundle["image/png"])
    assert png.startswith(PNG_MAGIC)
    text = bundle["text/plain"]
    assert text == widget.describe() and "\n" not in text and len(text) < 200
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert len(repr(widget)) < 220 and "base64" not in repr(widget)


# -- ShapeStepper -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def stepper():
    return ShapeStepper(xception_block(), (10, 3, 16, 8))


def test_stepper_starts_at_step_1_with_path_shapes_formula_and_parameters(stepper):
    assert (stepper.slider.min, stepper.slider.max, stepper.slider.value) == (0, 13, 0)
    text, png = shown(stepper)
    assert text == "ShapeStepper: step 1 of 14, 0 (Conv2d) (10, 3, 16, 8) -> (10, 64, 8, 4)"
    assert png.startswith(PNG_MAGIC)
    caption = stepper.caption.value
    for part in ("step 1 of 14", "<code>0</code> <b>Conv2d</b>", "input (10, 3, 16, 8)",
                 "(10, 64, 8, 4)", "H_out = floor((16 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 8",
                 "W_out = floor((8 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 4",
                 "<code>weight</code></td><td>(64, 3, 3, 3)</td>", "1,728", "1,792"):
        assert part in caption
    assert ERROR not in caption
    assert stepper.previous_button.disabled and not stepper.next_button.disabled
    check_fallback(stepper)


def test_stepper_buttons_and_slider_walk_every_step(stepper):
    seen = [shown(stepper)]
    while not stepper.next_button.disabled:
        stepper.next_button.click()
        seen.append(shown(stepper))
    assert stepper.slider.value == 13 and len(seen) == 14
    assert len({text for text, _ in seen}) == 14 and len({png for _, png in seen}) == 14
    assert seen[-1][0] == "ShapeStepper: step 14 of 14, 8 (LogSoftmax) (10, 3) -> (10, 3)"
    stepper.previous_button.click()
    assert stepper.slider.value == 12 and not stepper.next_button.disabled
    assert shown(stepper)[0] == "ShapeStepper: step 13 of 14, 7 (Linear) (10, 512) -> (10, 3)"
    stepper.slider.value = 4
    assert shown(stepper)[0] == ("ShapeStepper: step 5 of 14, 3.1.0 (DepthwiseConv2d) "
                                 "(10, 64, 8, 4) -> (10, 64, 8, 4)")
    caption = stepper.caption.value
    assert "(64, 1, 3, 3)" in caption and "576" in caption and "640" in caption
    assert "H_out = floor((8 + 2·1 − 1·(3 − 1) − 1) / 1) + 1 = 8" in caption
    stepper.slider.value = 8  # an op run by a container: no parameters of its own
    assert shown(stepper)[0] == ("ShapeStepper: step 9 of 14, 3 (Sum: add) (10, 512, 4, 2) "
                                 "(10, 512, 4, 2) -> (10, 512, 4, 2)")
    assert "(in Sum)" in stepper.caption.value and "<table" not in stepper.caption.value
    stepper.slider.value = 0
    assert stepper.previous_button.disabled


def test_a_broken_model_shows_the_failing_layer_instead_of_raising():
    widget = ShapeStepper(broken_xception_block(), (10, 3, 16, 8))
    assert widget.slider.max == 5 and widget.slider.value == 0
    assert shown(widget)[0] == (
        "ShapeStepper: step 1 of 6 (fails at step 6, 3.1.1 (Conv2d)), 0 (Conv2d) "
        "(10, 3, 16, 8) -> (10, 64, 8, 4)\n"
        "  the model fails at 3.1.1 (Conv2d): expects input with 32 channels, got 64.")
    widget.slider.value = 4  # the steps before the failure stay reachable
    assert "3.1.0 (DepthwiseConv2d)" in shown(widget)[0]
    widget.next_button.click()
    text, png = shown(widget)
    assert text == ("ShapeStepper: step 6 of 6, 3.1.1 (Conv2d) (10, 64, 8, 4) -> FAILED: "
                    "expects input with 32 channels, got 64.")
    assert png.startswith(PNG_MAGIC)
    caption = widget.caption.value
    assert f"color:{ERROR}" in caption and "<code>3.1.1</code>" in caption
    assert "ShapeError: 3.1.1 (Conv2d): expects input with 32 channels, got 64." in caption
    assert "input (10, 64, 8, 4)   weight (512, 32, 1, 1)   groups=1" in caption
    assert ("<b>hint:</b> 3.1.0 (DepthwiseConv2d) outputs 64 channels; use Conv2d(64, 512, 1) "
            "here") in caption
    assert "(512, 32, 1, 1)</td>" in caption  # the failing layer's parameters
    assert widget.next_button.disabled
    check_fallback(widget)


def test_step_argument_counts_from_the_end_too():
    widget = ShapeStepper(broken_xception_block(), (10, 3, 16, 8), step=-1)
    assert widget.slider.value == 5 and "FAILED" in widget.describe()
    assert ShapeStepper(xception_block(), (10, 3, 16, 8), step=99).slider.value == 13


def test_a_forward_that_raises_something_else_is_shown_too():
    class Buggy(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return {"fc": self.fc}["fc2"](x)  # a KeyError, from the user's own code

    widget = ShapeStepper(Buggy(), (3, 4))
    text = widget.describe()
    assert "FAILED" in text and "KeyError" in widget.caption.value
    assert widget.slider.disabled and widget.next_button.disabled


def test_a_model_that_fails_at_its_first_layer():
    widget = ShapeStepper(nn.Sequential(nn.Conv2d(4, 8, 3)), (2, 3, 9, 5))
    assert widget.slider.max == 0
    assert widget.describe() == ("ShapeStepper: step 1 of 1, 0 (Conv2d) (2, 3, 9, 5) -> FAILED: "
                                 "expects input with 4 channels, got 3.")


# -- ConvArithmetic -----------------------------------------------------------------------

def tap_corners(widget):
    """Input (row, col) of every highlighted tap cell, read back from the drawing."""
    taps = widget.drawn["taps"]
    assert isinstance(taps, PatchCollection)
    (top, _), (left, _) = widget.geometry.pads
    cells = []
    for path in taps.get_paths():
        x, y = path.vertices.min(axis=0)
        cells.append((int(round(-y - 1)) - top, int(round(x)) - left))
    return sorted(cells)


def test_conv_arithmetic_defaults_are_non_square_and_show_the_receptive_field():
    widget = ConvArithmetic()
    g = widget.geometry
    assert g.in_hw == (7, 5) and g.kernel_hw == (3, 2) and g.out_hw == (4, 3)
    assert (widget.out_row.max, widget.out_col.max) == (3, 2)
    text, png = shown(widget)
    assert text == ("ConvArithmetic: 4×7×5 -> 6×4×3, kernel 3×2, stride (2, 1), "
                    "padding (1, 0), dilation (1, 2), groups 2; output (0, 0) reads 6 inputs, "
                    "2 of them padding")
    assert png.startswith(PNG_MAGIC)
    caption = widget.caption.value
    for part in ("H_out = floor((7 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 4",
                 "W_out = floor((5 + 2·0 − 2·(2 − 1) − 1) / 1) + 1 = 3",
                 "row = 2·0 + 1·i − 1 = −1, 0, 1", "col = 1·0 + 2·j − 0 = 0, 2",
                 "(-1, 0)*, (-1, 2)*, (0, 0), (0, 2), (1, 0), (1, 2)",
                 "output channels 0–2 read input channels 0–1; 3–5 read 2–3"):
        assert part in caption
    assert tap_corners(widget) == [(-1, 0), (-1, 2), (0, 0), (0, 2), (1, 0), (1, 2)]
    check_fallback(widget)


def test_the_output_sliders_move_the_receptive_field_on_a_non_square_case():
    widget = ConvArithmetic(in_height=6, in_width=9, kernel_height=2, kernel_width=3,
                            stride=(1, 2), padding=(0, 2), dilation=(2, 1), in_channels=3,
                            out_channels=6, groups=3, out_pos=(2, 3))
    # H_out = (6 − 2·1 − 1) / 1 + 1 = 4;  W_out = floor((9 + 4 − 2 − 1) / 2) + 1 = 6
    assert widget.geometry.out_hw == (4, 6) and widget.out_pos == (2, 3)
    # rows 1·2 + 2·i = 2, 4; columns 2·3 + j − 2 = 4, 5, 6
    assert tap_corners(widget) == [(2, 4), (2, 5), (2, 6), (4, 4), (4, 5), (4, 6)]
    widget.out_col.value = 0  # columns −2, −1, 0: two of them padding
    assert tap_corners(widget) == [(2, -2), (2, -1), (2, 0), (4, -2), (4, -1), (4, 0)]
    assert widget.describe().endswith("output (2, 0) reads 6 inputs, 4 of them padding")
    widget.out_row.value = 3
    g = widget.geometry
    expected = receptive_field(g.in_hw, g.kernel_hw, g.stride, g.padding, g.dilation, (3, 0))
    assert tap_corners(widget) == sorted((t.row, t.col) for t in expected)
    assert "row = 1·3 + 2·i − 0 = 3, 5" in widget.caption.value


def test_every_setting_control_redraws():
    widget = ConvArithmetic()
    seen = [shown(widget)]
    moves = [("in_height", 9), ("in_width", 8), ("kernel_height", 2), ("kernel_width", 3),
             ("stride_h", 1), ("stride_w", 2), ("padding_h", 0), ("padding_w", 1),
             ("dilation_h", 2), ("dilation_w", 1), ("in_channels", 6), ("out_channels", 9),
             ("groups", 3)]
    for name, value in moves:
        widget.controls[name].value = value
        seen.append(shown(widget))
        assert seen[-1][0] != seen[-2][0] and seen[-1][1] != seen[-2][1], name
    g = widget.geometry
    assert (g.in_hw, g.kernel_hw, g.stride, g.padding, g.dilation) == \
        ((9, 8), (2, 3), (1, 2), (0, 1), (2, 1))
    assert (g.in_channels, g.out_channels, g.groups, g.out_hw) == (6, 9, 3, (7, 4))
    assert seen[-1][0].startswith("ConvArithmetic: 6×9×8 -> 9×7×4, kernel 2×3, stride (1, 2), "
                                  "padding (0, 1), dilation (2, 1), groups 3; output (0, 0)")


def test_a_shrinking_output_clamps_the_chosen_pixel():
    widget = ConvArithmetic(out_pos=(3, 2))
    assert widget.out_pos == (3, 2)
    widget.in_height.value = 4  # H_out = floor((4 + 2 − 2 − 1) / 2) + 1 = 2
    assert widget.out_row.max == 1 and widget.out_pos == (1, 2)
    assert "output (1, 2)" in widget.describe()


INVALID = [
    ({"groups": 3}, "groups=3 must divide in_channels (4)."),
    ({"in_height": 4, "kernel_height": 7},
     "the kernel spans 7 pixels in height but the padded input has only 6 (4 + 2 padding), "
     "so no output pixel fits."),
    ({"kernel_width": 3, "dilation_w": 4},
     "the kernel spans 9 pixels in width but the padded input has only 5 (5 + 0 padding), "
     "so no output pixel fits."),
]


def test_invalid_settings_show_the_ops_explanation_not_a_traceback():
    widget = ConvArithmetic()
    valid = shown(widget)
    for changes, message in INVALID:
        defaults = {name: widget.controls[name].value for name in changes}
        for name, value in changes.items():
            widget.controls[name].value = value
        assert not widget.geometry.ok
        text, png = shown(widget)
        assert text == f"ConvArithmetic: invalid settings: {message}"
        assert png.startswith(PNG_MAGIC)
        caption = widget.caption.value
        assert f"color:{ERROR}" in caption and f"ShapeError: conv2d: {message}" in caption
        assert "<b>hint:</b>" in caption and "Traceback" not in caption
        assert widget.out_row.disabled and widget.out_col.disabled
        check_fallback(widget)
        for name, value in defaults.items():  # back to a valid setting
            widget.controls[name].value = value
        assert widget.geometry.ok and not widget.out_row.disabled
        assert "ShapeError" not in widget.caption.value and shown(widget) == valid


def test_nnbook_widgets_exports_both():
    import nnbook.widgets
    assert {"ShapeStepper", "ConvArithmetic"} <= set(nnbook.widgets.__all__)
    assert nnbook.widgets.ShapeStepper is ShapeStepper
    assert nnbook.widgets.ConvArithmetic is ConvArithmetic


def test_layer_parameters_lists_a_layers_own_parameters_and_none_for_ops():
    from nnbook.widgets.shape_stepper import layer_parameters
    model = xception_block()
    model[0].bias.requires_grad = False
    steps = nb.infer_shapes(model, (10, 3, 16, 8)).steps
    assert layer_parameters(model, steps[0]) == [("weight", (64, 3, 3, 3), 1728, True),
                                                 ("bias", (64,), 64, False)]
    assert layer_parameters(model, steps[2]) == []   # ReLU
    assert layer_parameters(model, steps[8]) == []   # Sum's add: an op, not a layer
    assert [p[0] for p in layer_parameters(model, steps[6])] == ["weight", "bias"]  # BatchNorm


def test_conv_arithmetic_draws_an_invalid_setting_as_a_short_picture():
    widget = ConvArithmetic(in_height=9, in_width=5, kernel_height=3, kernel_width=3,
                            stride=1, padding=1, dilation=1, in_channels=4, out_channels=7,
                            groups=3)
    width, height = struct.unpack(">II", widget.png()[16:24])
    assert height < 0.5 * width                 # the message only, not a mostly blank panel
    widget.controls["groups"].value = 1         # a valid setting gets its full picture back
    width, full = struct.unpack(">II", widget.png()[16:24])
    assert full > 2 * height
