"""Every widget's picture reads on a projector: at least 1200 px wide, every text at least
12 pt when the picture is shown 1200 px wide, none cut at the edge (the rule, and why it is
12.5 / width_in, is in tests/projector.py). Each widget is checked in several of its views."""
import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("ipywidgets")

from matplotlib.figure import Figure  # noqa: E402
from projector import drawn_texts, png_size, problems  # noqa: E402
from shared import xception_block  # noqa: E402

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.widgets import (  # noqa: E402
    AttentionViewer,
    BackwardStepper,
    ConvArithmetic,
    GradientFlow,
    OptimizerPlayground,
    ParameterExplorer,
    ShapeStepper,
    TimeGradientFlow,
    figure_png,
)

TOKENS = "the cat sat on a warm mat".split()


def small_model():
    return nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 5 * 3, 2))


def deep_mlp(depth=7):
    layers = [m for _ in range(depth) for m in (nn.Linear(16, 16), nn.Sigmoid())]
    return nn.Sequential(*layers, nn.Linear(16, 3))


def at(widget, control, value):
    """The widget after a control is moved, as the front end moves it."""
    getattr(widget, control).value = value
    return widget


def shape_stepper_failing():
    model = xception_block()
    model[3][1][1] = nn.Conv2d(32, 512, 1)   # the depthwise conv gives 64 channels, not 32
    return ShapeStepper(model, (10, 3, 16, 8), step=-1)


def encoder():
    layer = nn.TransformerEncoderLayer(12, 3, dim_feedforward=10, dropout=0.0, batch_first=True)
    return nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)


def parameter_explorer_with_problems():
    model = deep_mlp(3)
    stray = nn.Parameter(nb.randn(5, 3))
    model[2].weight.requires_grad_(False)
    explorer = ParameterExplorer(model, nb.optim.SGD([*model[0].parameters(), stray], lr=0.1))
    model(nb.randn(9, 16)).sum().backward()
    explorer.refresh()
    return explorer


def trained(flow, model, steps=3):
    """A GradientFlow after a few training steps."""
    x, y = nb.randn(32, 16), nb.randint(0, 3, (32,))
    optimizer = nb.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        optimizer.zero_grad()
        nn.CrossEntropyLoss()(model(x), y).backward()
        flow.record()
        optimizer.step()
    flow.flush()
    return flow


def time_flow_while_clipping():
    rnn, x = nn.RNN(4, 6, num_layers=2), nb.randn(13, 3, 4)
    flow = TimeGradientFlow(rnn, x, clip=0.5, redraw_interval=0.0)
    optimizer = nb.optim.SGD(rnn.parameters(), lr=0.05)
    for _ in range(3):
        optimizer.zero_grad()
        out, _ = rnn(x)
        out[-1].sum().backward()
        flow.record(total_norm=float(nn.utils.clip_grad_norm_(rnn.parameters(), 0.5)))
        optimizer.step()
    flow.flush()
    return flow


def backward_graph():
    w, x = nb.randn(3, 2, requires_grad=True), nb.randn(4, 3)
    return BackwardStepper((x @ w).tanh().sum())


VIEWS = {
    "ShapeStepper conv": lambda: ShapeStepper(xception_block(), (10, 3, 16, 8)),
    "ShapeStepper add": lambda: at(ShapeStepper(xception_block(), (10, 3, 16, 8)), "slider", 8),
    "ShapeStepper failing": shape_stepper_failing,
    "ShapeStepper before the failure": lambda: at(shape_stepper_failing(), "slider", 4),
    "ShapeStepper attention": lambda: at(ShapeStepper(encoder().layers[0], (2, 7, 12)),
                                         "slider", 6),
    "ShapeStepper LSTM": lambda: at(ShapeStepper(nn.LSTM(5, 7, num_layers=2), (3, 9, 5)),
                                    "slider", 3),
    "ShapeStepper embedding": lambda: ShapeStepper(
        nn.Sequential(nn.Embedding(27, 10), nn.Flatten(), nn.Linear(30, 27)), (5, 3)),
    "ConvArithmetic": ConvArithmetic,
    "ConvArithmetic depthwise": lambda: ConvArithmetic(in_channels=6, out_channels=12,
                                                       groups=6),
    "ConvArithmetic invalid": lambda: ConvArithmetic(in_channels=4, out_channels=8, groups=3),
    "ParameterExplorer": lambda: ParameterExplorer(small_model()),
    "ParameterExplorer problems": parameter_explorer_with_problems,
    "BackwardStepper": lambda: BackwardStepper(
        (nb.tensor([1.0, -2.0], requires_grad=True) * 3).tanh().sum()),
    "BackwardStepper matmul": lambda: at(backward_graph(), "step_slider", 2),
    "BackwardStepper finished": lambda: at(backward_graph(), "step_slider", 3),
    "GradientFlow empty": lambda: GradientFlow(small_model()),
    "GradientFlow trained": lambda: trained(GradientFlow(m := deep_mlp(), redraw_interval=0,
                                                         thresholds=(1e-4, 1e2)), m),
    "OptimizerPlayground": lambda: OptimizerPlayground(steps=5),
    "OptimizerPlayground rosenbrock": lambda: OptimizerPlayground("rosenbrock", "Adam",
                                                                  lr=0.05, steps=60),
    "AttentionViewer": lambda: AttentionViewer(encoder(), TOKENS, nb.randn(2, 7, 12)),
    "AttentionViewer one head": lambda: AttentionViewer(encoder(), TOKENS, nb.randn(1, 7, 12),
                                                        head=1),
    "TimeGradientFlow": lambda: TimeGradientFlow(nn.RNN(4, 6, num_layers=2),
                                                 nb.randn(13, 3, 4)),
    "TimeGradientFlow clipping": time_flow_while_clipping,
}


@pytest.mark.parametrize("make", VIEWS.values(), ids=VIEWS.keys())
def test_every_widget_view_reads_on_a_projector(make):
    with drawn_texts() as drawn:   # from the start: some texts are drawn once and kept
        widget = make()
        widget.redraw()
    found = problems(drawn, widget.png())
    assert not found, "\n".join(found)


def test_the_rule_judges_text_by_its_size_once_the_picture_is_1200_px_wide():
    def picture(width_in, size, dpi):
        fig = Figure(figsize=(width_in, 2))
        fig.text(0.5, 0.5, "label", fontsize=size, ha="center")
        with drawn_texts() as drawn:
            png = figure_png(fig, dpi)
        return drawn, png

    assert problems(*picture(12.5, 12, 96)) == []          # 1200 px, 12 pt: just right
    assert problems(*picture(12.5, 12, 200)) == []         # the dpi does not change it
    assert problems(*picture(8, 7.7, 150)) == []           # a narrower figure: smaller pt
    (small,) = problems(*picture(15, 12, 80))               # 15 in wide: 12 pt shows as 10
    assert "'label': 12 pt at 80 dpi shows as 10.0 pt" in small
    (narrow,) = problems(*picture(12.5, 20, 80))            # 1000 px
    assert "1000 px wide" in narrow
    fig = Figure(figsize=(12.5, 2))
    fig.text(0.97, 0.5, "cut off at the right", fontsize=14)
    with drawn_texts() as drawn:
        png = figure_png(fig, 96)
    assert png_size(png) == (1200, 192)
    assert [p for p in problems(drawn, png) if "cut at the edge" in p]
