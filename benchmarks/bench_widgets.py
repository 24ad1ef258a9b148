"""How long a widget takes to redraw after a control change, on the model of the swapped
height and width (an Xception block).

    python benchmarks/bench_widgets.py

Needs the widgets extra.  Prints the median and the 90th percentile of wall time per
control change (target: under 150 ms on the project's 2-core machine).  Not a test:
nothing here asserts a time.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

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
)

TARGET_MS = 150


def seed002():
    return nn.Sequential(
        nn.Conv2d(3, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Sum(nn.Conv2d(64, 512, 1, stride=2),
               nn.Sequential(nn.DepthwiseConv2d(64, 3, padding=1), nn.Conv2d(64, 512, 1),
                             nn.BatchNorm2d(512), nn.MaxPool2d(3, 2, 1))),
        nn.ReLU(), nn.GlobalAvgPool2d(), nn.Reshape(512), nn.Linear(512, 3),
        nn.LogSoftmax(dim=1))


def timed(label, actions):
    wall = []
    for action in actions:
        start = time.perf_counter()
        action()
        wall.append((time.perf_counter() - start) * 1000)
    median = statistics.median(wall)
    p90 = sorted(wall)[int(0.9 * (len(wall) - 1))]
    verdict = "ok" if median < TARGET_MS else "OVER"
    print(f"{label:<40} median {median:6.0f} ms   p90 {p90:6.0f} ms   n={len(wall):<3} {verdict}")


def setter(control, value):
    return lambda: setattr(control, "value", value)


def main():
    nb.manual_seed(0)
    model = seed002()
    x, y = nb.randn(10, 3, 16, 8), nb.randint(0, 3, (10,))
    optimizer = nb.optim.SGD(model.parameters(), lr=0.01)
    print(f"control change -> redraw, the model of the swapped height and width "
          f"(target < {TARGET_MS} ms)\n")

    stepper = ShapeStepper(model, (10, 3, 16, 8))
    steps = list(range(1, stepper.slider.max + 1)) + list(range(stepper.slider.max - 1, -1, -1))
    timed("ShapeStepper: step slider", [setter(stepper.slider, s) for s in steps * 2])

    conv = ConvArithmetic()
    moves = [("out_col", [1, 2, 0]), ("out_row", [1, 2, 3, 0]), ("in_height", [9, 12, 7]),
             ("in_width", [8, 5]), ("kernel_height", [5, 3]), ("groups", [1, 2])]
    timed("ConvArithmetic: settings and position",
          [setter(conv.controls[name], v) for name, values in moves for v in values] * 2)

    flow = GradientFlow(model)
    for _ in range(5):
        optimizer.zero_grad()
        nn.NLLLoss()(model(x), y).backward()
        flow.record()
        optimizer.step()
    timed("GradientFlow: statistic / log / step",
          [setter(flow.stat_dropdown, s) for s in ("mean", "max_abs", "norm")] * 3
          + [setter(flow.log_checkbox, v) for v in (False, True)] * 3
          + [setter(flow.step_slider, s) for s in range(5)] * 2)

    explorer = ParameterExplorer(model, optimizer)
    timed("ParameterExplorer: refresh", [explorer.refresh_button.click] * 8)

    loss = nn.NLLLoss()(model(x), y)
    backward = BackwardStepper(loss, model)
    timed("BackwardStepper: step slider",
          [setter(backward.step_slider, s) for s in range(1, backward.step_slider.max + 1)] * 2)

    playground = OptimizerPlayground()
    timed("OptimizerPlayground: lr, optimizer, surface",
          [setter(playground.lr_slider, v) for v in (0.02, 0.05, 0.07)] * 2
          + [setter(playground.optimizer_dropdown, v) for v in ("Adam", "SGD (Nesterov)", "SGD")]
          + [setter(playground.surface_dropdown, v) for v in ("rosenbrock", "bowl")])

    sequences()


def sequences():
    """The sequence widgets, on a small encoder and a two-layer RNN."""
    print(f"\ncontrol change -> redraw, sequence models (target < {TARGET_MS} ms)\n")
    nb.manual_seed(0)
    block = nn.TransformerEncoderLayer(16, 4, dim_feedforward=24, batch_first=True)
    encoder = nn.TransformerEncoder(block, num_layers=2, enable_nested_tensor=False)
    tokens = "the quick brown fox jumps over the lazy dog".split()
    viewer = AttentionViewer(encoder, tokens, nb.randn(1, len(tokens), 16))
    timed("AttentionViewer: query / head / layer",
          [setter(viewer.query_slider, q) for q in range(1, len(tokens))]
          + [setter(viewer.head_dropdown, h) for h in (0, 1, 2, 3, "all")]
          + [setter(viewer.layer_dropdown, v) for v in (1, 0)])

    stepper = ShapeStepper(block, (2, len(tokens), 16))
    timed("ShapeStepper: attention steps",
          [setter(stepper.slider, s) for s in range(1, 11)])

    rnn = nn.RNN(8, 16, num_layers=2)
    x = nb.randn(30, 4, 8)
    flow = TimeGradientFlow(rnn, x, clip=1.0, redraw_interval=0.0)
    optimizer = nb.optim.SGD(rnn.parameters(), lr=0.05)
    for _ in range(5):
        optimizer.zero_grad()
        rnn(x)[0][-1].sum().backward()
        flow.record(total_norm=nn.utils.clip_grad_norm_(rnn.parameters(), 1.0))
        optimizer.step()
    timed("TimeGradientFlow: step / clipping",
          [setter(flow.step_slider, s) for s in range(5)] * 2
          + [setter(flow.clip_checkbox, v) for v in (False, True)] * 2)


if __name__ == "__main__":
    main()
