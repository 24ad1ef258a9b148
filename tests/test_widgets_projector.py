"""Every widget's picture is at least 1200 px wide, so it reads on a projector."""
import struct

import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("ipywidgets")

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.widgets import (  # noqa: E402
    BackwardStepper,
    ConvArithmetic,
    GradientFlow,
    OptimizerPlayground,
    ParameterExplorer,
    ShapeStepper,
)


def png_width(png: bytes) -> int:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">I", png[16:20])[0]  # the IHDR chunk: width, then height


def small_model():
    return nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 5 * 3, 2))


@pytest.mark.parametrize("make", [
    lambda: ShapeStepper(small_model(), (2, 3, 7, 5)),
    lambda: ConvArithmetic(),
    lambda: ParameterExplorer(small_model()),
    lambda: BackwardStepper((nb.tensor([1.0, -2.0], requires_grad=True) * 3).tanh().sum()),
    lambda: GradientFlow(small_model()),
    lambda: OptimizerPlayground(steps=5),
], ids=["ShapeStepper", "ConvArithmetic", "ParameterExplorer", "BackwardStepper",
        "GradientFlow", "OptimizerPlayground"])
def test_every_widget_draws_at_least_1200_pixels_wide(make):
    widget = make()
    assert png_width(widget._png) >= 1200
