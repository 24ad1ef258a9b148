"""Mistakes with shape inference and the inspection tools (nb.infer_shapes, nb.summary,
nb.inspect.*).

See catalogue.py for what every entry is checked for.  A shape inference that finds a
mismatch keeps it in ``trace.error``; ``raise_error()`` raises it with the user's line.
"""
import pytest
from catalogue import check, mistake

import nnbook as nb
from nnbook import nn
from nnbook.errors import ArgumentError, BackwardError, DTypeError, InputError, ShapeError
from nnbook.optim import SGD


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)


def cnn():
    """conv (3 -> 4 channels, 3x3) on 8x8 images, flattened into a Linear with a wrong size."""
    return nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(100, 10))


def grey_cnn():
    return nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(36, 10))


MISTAKES = [
    mistake("a Linear that does not fit the flattened size", cnn,
            lambda m: nb.infer_shapes(m, (2, 3, 8, 8)).raise_error(),
            ShapeError, "3 (Linear)", r"100 features.*got 144",
            r"2 \(Flatten\) outputs 144 features; use Linear\(144, 10\)"),
    mistake("a batch shape without the channel dimension", grey_cnn,
            lambda m: nb.infer_shapes(m, (16, 14, 14)).raise_error(),
            ShapeError, "0 (Conv2d)", r"1 channels, got 16", r"x\.unsqueeze\(1\)"),
    mistake("a channels-last input shape", cnn,
            lambda m: nb.summary(m, (2, 8, 8, 3)).trace.raise_error(),
            ShapeError, "0 (Conv2d)", r"3 channels, got 8", r"permute\(0, 3, 1, 2\)"),
    mistake("an input shape with the wrong number of features", lambda: Net(),
            lambda m: nb.infer_shapes(m, (3, 5)).raise_error(),
            ShapeError, "fc (Linear)", r"4 features.*got 5", r"Linear\(5, 3\)",
            also=Net.forward),
    mistake("an input shape as text", cnn, lambda m: nb.infer_shapes(m, "2x3x8x8"),
            InputError, "nb.infer_shapes", r"tuple of sizes.*got '2x3x8x8'",
            r"full input shape including the batch dimension"),
    mistake("a negative size", cnn, lambda m: nb.infer_shapes(m, (2, -3, 8, 8)),
            InputError, "nb.infer_shapes", r"got \(2, -3, 8, 8\)", r"batch dimension"),
    mistake("a float size in summary", cnn, lambda m: nb.summary(m, (2.5, 3, 8, 8)),
            InputError, "nb.summary", r"got \(2\.5, 3, 8, 8\)", r"batch dimension"),
    mistake("the model's class instead of the model", None,
            lambda: nb.infer_shapes(Net, (2, 4)),
            ArgumentError, "nb.infer_shapes", r"got the class Net, not a model built from it",
            r"nb\.infer_shapes\(Net\(\), \.\.\.\)"),
    mistake("the class into summary", None, lambda: nb.summary(Net, (2, 4)),
            ArgumentError, "nb.summary", r"the class Net", r"nb\.summary\(Net\(\), \.\.\.\)"),
    mistake("a function instead of a model", None,
            lambda: nb.infer_shapes(lambda x: x * 2, (2, 4)),
            ArgumentError, "nb.infer_shapes", r"needs a model \(an nn\.Module\), got function",
            r"wrap a function in a module"),
    mistake("a dtype name that does not exist", cnn,
            lambda m: nb.infer_shapes(m, (2, 3, 8, 8), dtype="float33"),
            DTypeError, "nb.infer_shapes", r"'float33' is not a dtype", r"nb\.float32"),
    mistake("integer inputs in the shape pass", lambda: Net(),
            lambda m: nb.infer_shapes(m, (2, 4), dtype=nb.int64).raise_error(),
            DTypeError, "fc (Linear), in linear", r"float32 input.*got int64", r"x\.float\(\)",
            also=Net.forward),
    mistake("two input shapes for a one-input model", lambda: Net(),
            lambda m: nb.infer_shapes(m, [(2, 4), (2, 4)]).raise_error(),
            ArgumentError, "Net", r"called with 2 inputs.*takes 1 input",
            r"target goes to the loss"),
    mistake("trace_backward of a non-scalar",
            lambda: nb.randn(3, requires_grad=True), lambda w: nb.inspect.trace_backward(w * 2),
            BackwardError, "nb.inspect.trace_backward", r"one element.*\(3,\)",
            r"y\.sum\(\)\.backward\(\)"),
    mistake("trace_backward of a loss without a graph", lambda: nb.randn(3),
            lambda x: nb.inspect.trace_backward((x * 2).sum()),
            BackwardError, "nb.inspect.trace_backward", r"does not require grad",
            r"requires_grad=True"),
    mistake("parameter_report of the class", None,
            lambda: nb.inspect.parameter_report(Net),
            ArgumentError, "nb.inspect.parameter_report", r"the class Net", r"Net\(\)"),
    mistake("parameter_report with a model as the optimizer", lambda: (Net(), Net()),
            lambda mm: nb.inspect.parameter_report(mm[0], mm[1]),
            ArgumentError, "nb.inspect.parameter_report", r"optimizer must be an nb\.optim "
            r"optimizer \(or None\), got Net", r"parameter_report\(model, opt\)"),
    mistake("parameter_report with its arguments swapped",
            lambda: (lambda m: (m, SGD(m.parameters(), lr=0.1)))(Net()),
            lambda mo: nb.inspect.parameter_report(mo[1], mo[0]),
            ArgumentError, "nb.inspect.parameter_report", r"got an optimizer \(SGD\) as the "
            r"model", r"these look swapped: parameter_report\(model, optimizer\)"),
    mistake("gradient statistics of the class", None,
            lambda: nb.inspect.gradient_stats(Net),
            ArgumentError, "nb.inspect.gradient_stats", r"the class Net", r"Net\(\)"),
    mistake("a gradient history of the class", None,
            lambda: nb.inspect.GradientHistory(Net),
            ArgumentError, "nb.inspect.GradientHistory", r"the class Net", r"Net\(\)"),
    mistake("group_connections with groups that do not divide", None,
            lambda: nb.inspect.group_connections(3, 8, 2),
            ShapeError, "conv2d", r"groups=2 must divide in_channels \(3\)",
            r"groups must divide both"),
]


@pytest.mark.parametrize("m", MISTAKES)
def test_mistake(m, tmp_path):
    check(m, tmp_path)
