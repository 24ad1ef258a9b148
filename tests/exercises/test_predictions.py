"""The graded predictions: each entry accepts the right answer (worked out here by other
means than the entry's own computation), rejects a wrong one with the right value and why,
and answers a placeholder None with "write your prediction first", never an error."""
import json
import math
from pathlib import Path

import numpy as np
import pytest

import nnbook as nb
import nnbook.nn.functional as F
from nnbook import nn
from nnbook.data import digits
from nnbook.exercises import FAIL, PASS, PREDICTIONS, UNFINISHED, check

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def assert_right(result):
    assert result.status == "passed" and result.lines[0].mark == PASS, str(result)
    assert str(result).splitlines()[0].endswith(": right")


def assert_wrong(result, *phrases):
    text = str(result)
    assert result.status == "failed" and result.lines[0].mark == FAIL, text
    assert text.splitlines()[0].endswith(": not quite")
    for phrase in phrases:
        assert phrase in text, f"{phrase!r} not in\n{text}"


# -- what the notebooks hand over ---------------------------------------------------------

class Neuron(nn.Module):                      # 04's own layer: names its parameters w and b
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(nb.randn(n))
        self.b = nn.Parameter(nb.zeros(1))

    def forward(self, x):
        return x @ self.w + self.b


def quiz():
    return nn.Sequential(nn.Linear(2, 4), nn.Sequential(nn.ReLU(), nn.Linear(4, 4)), Neuron(4))


def xception_model():
    return nn.Sequential(
        nn.Conv2d(3, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Sum(nn.Conv2d(64, 512, 1, stride=2),
               nn.Sequential(nn.DepthwiseConv2d(64, 3, padding=1), nn.Conv2d(64, 512, 1),
                             nn.BatchNorm2d(512), nn.MaxPool2d(3, 2, 1))),
        nn.ReLU(), nn.GlobalAvgPool2d(), nn.Reshape(512), nn.Linear(512, 3),
        nn.LogSoftmax(dim=1))


def make_mlp(activation, depth=8, width=32):
    layers, features = [], 64
    for _ in range(depth):
        layers += [nn.Linear(features, width), activation()]
        features = width
    return nn.Sequential(*layers, nn.Linear(width, 10)).double()


def digits_data():
    images, labels = digits(512, seed=0)
    pixels = images.reshape(512, 64).astype(np.float64)
    return nb.tensor((pixels - pixels.mean(axis=0)) / pixels.std(axis=0)), nb.tensor(labels)


def make_mlp_with_init(activation, init=None, depth=8, width=32):
    """08's builder, with its init argument (None: PyTorch's default initialisation)."""
    model = make_mlp(activation, depth, width)
    if init is not None:
        for layer in model:
            if isinstance(layer, nn.Linear):
                init(layer.weight)
                nn.init.zeros_(layer.bias)
    return model


def train(model, watch, steps=100, lr=0.02):
    """08's training loop: SGD with momentum on the digits, recording every step."""
    x, y = digits_data()
    optimizer = nb.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    curve = []
    for _ in range(steps):
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        watch.record()
        optimizer.step()
        curve.append(loss.item())
    return curve


def make_cnn():
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(64, 10)).double()


GIVEN = {"sigmoid-neuron": (), "broadcast-rows": (), "too-large-step": (),
         "module-names": (quiz(),), "swapped-gradients": (),
         "pool-fits": (xception_model,), "keep-the-size": (),
         "deeper-and-shallower": (make_mlp, *digits_data()),
         "tanh": (make_mlp_with_init, train),
         "one-round": (make_cnn,), "bigger-canvas": (make_cnn,)}


# -- every entry: None, a right answer, a wrong one -----------------------------------------

def sigmoid(z):
    return 1 / (1 + math.exp(-z))


Y = sigmoid(0.5 * 1 + 0.25 * 2 - 0.5)
RIGHT = {
    # by the chain rule on paper: 2 (y - t) * y (1 - y) * 1
    "sigmoid-neuron": 2 * (Y - 1) * Y * (1 - Y),
    # G summed along each row, kept as a column
    "broadcast-rows": [[3.0], [3.0], [4.0], [2.0]],
    # a step multiplies the distance to 2 by 1 - lr * 2/3 * sum(x^2) = 1 - 9.33 lr
    "too-large-step": {lr: abs(1 - lr * 2 / 3 * 14) < 1 for lr in (0.15, 0.25)},
    "module-names": ["0.weight", "0.bias", "1.1.weight", "1.1.bias", "2.w", "2.b"],
    # dout where 2 dout belongs, 2 dout where dout belongs
    "swapped-gradients": {"x": 0.5, "y": 2.0},
    # the skip path rounds up (ceil), MaxPool2d(2, 2) down: 8x4 agrees, 9x5 does not
    "pool-fits": {"16x8": True, "18x10": False},
    # 2p = d (k - 1)
    "keep-the-size": (2 * (3 - 1) // 2, 2 * (3 - 1) // 2),
    # about 0.15 per layer after the first, as 08 reasons
    "deeper-and-shallower": {4: 0.15 ** 3, 12: 0.15 ** 11},
    # tanh's slope near 0 is 1: no vanishing; the default weights' scale (about 0.58 a
    # layer) still makes the loss crawl (2.31 -> 2.26 in the notebook)
    "tanh": {"vanishes": False, "learns": False},
    # 8 maps of 8/2 x 8/2
    "one-round": 8 * 4 * 4,
    # Flatten gives 16 * 3 * 3 = 144, not 64: the Linear, item 7
    "bigger-canvas": "7",
}
WRONG = {
    "sigmoid-neuron": (2 * (Y - 1), "that is dL/dy = 2 (y - t)"),
    "broadcast-rows": ([2.0, 2.0, 8.0], "that is the sum over the rows"),
    "too-large-step": ({0.15: True, 0.25: True}, "not for lr = 0.25"),
    "module-names": (["0.weight", "0.bias", "1.weight", "1.bias", "2.w", "2.b"],
                     "the Linear inside the inner Sequential is item 1 of item 1: 1.1"),
    "swapped-gradients": ({"x": 2.0, "y": 0.5}, "not the other way round"),
    "pool-fits": ({"16x8": True, "18x10": True}, "18x10: does not fit: 3 (Sum)"),
    "keep-the-size": ((1, 1), "padding (1, 1) gives 7×3, not 9×5"),
    "deeper-and-shallower": ({4: 0.15 ** 3, 12: 0.15 ** 3},
                             "more than a factor of 10 away for depth 12"),
    "tanh": ({"vanishes": True, "learns": False}, "not quite: vanishes"),
    "one-round": (64, "the Flatten now gives 128 numbers, not 64"),
    "bigger-canvas": ("3", "the first layer that no longer fits is 7"),
}


def test_every_prediction_is_covered_here():
    assert set(PREDICTIONS) == set(RIGHT) == set(WRONG) == set(GIVEN)


@pytest.mark.parametrize("exercise", list(PREDICTIONS))
def test_a_placeholder_says_write_your_prediction_first(exercise):
    result = check(exercise, None, *GIVEN[exercise])
    text = str(result)
    assert result.status == "todo" and not result.passed, text
    assert text.splitlines()[0].endswith(": write your prediction first")
    assert result.lines[0].mark == UNFINISHED
    assert result.next_step.startswith("write your prediction first: ")
    assert "in place of None" in result.next_step


@pytest.mark.parametrize("exercise", list(PREDICTIONS))
def test_the_right_answer_is_accepted(exercise):
    assert_right(check(exercise, RIGHT[exercise], *GIVEN[exercise]))


@pytest.mark.parametrize("exercise", list(PREDICTIONS))
def test_a_wrong_answer_is_rejected_with_why(exercise):
    answer, why = WRONG[exercise]
    assert_wrong(check(exercise, answer, *GIVEN[exercise]), why)


# -- the details of some entries ---------------------------------------------------------

def test_sigmoid_neuron_names_the_usual_slips():
    right = RIGHT["sigmoid-neuron"]
    assert_wrong(check("sigmoid-neuron", 2 * (Y - 1) * (1 - Y * Y)), "tanh's local derivative")
    assert_wrong(check("sigmoid-neuron", -right), "the sign is the wrong way round")
    assert_wrong(check("sigmoid-neuron", (Y - 1) * Y * (1 - Y)), "the 2 of the square")
    assert_right(check("sigmoid-neuron", round(right, 4)))           # as printed: -0.1774
    assert_right(check("sigmoid-neuron", nb.tensor(right)))         # a tensor reads too


def test_broadcast_rows_right_numbers_in_the_wrong_shape():
    assert_wrong(check("broadcast-rows", [3.0, 3.0, 4.0, 2.0]), "the shape (4,) is not")
    assert_right(check("broadcast-rows", nb.tensor(RIGHT["broadcast-rows"])))


def test_names_in_another_order_are_told_apart():
    names = RIGHT["module-names"]
    assert_wrong(check("module-names", names[::-1], quiz()), "the right names in another order")


def test_ratios_are_graded_to_the_order_of_magnitude():
    right = RIGHT["deeper-and-shallower"]
    given = GIVEN["deeper-and-shallower"]
    assert_right(check("deeper-and-shallower", {k: 2 * v for k, v in right.items()}, *given))
    assert_wrong(check("deeper-and-shallower", {4: right[4], 12: 30 * right[12]}, *given),
                 "for depth 12")


def test_the_ratio_matches_what_08_prints_for_depth_8():
    # 08's cell prints the ratio for depth 8; its committed output is the notebook's number
    x, y = digits_data()
    nb.manual_seed(0)
    model = make_mlp(nn.Sigmoid, depth=8)
    F.cross_entropy(model(x), y).backward()
    norms = [np.linalg.norm(p.grad.numpy()) for p in model.parameters() if len(p.shape) == 2]
    cells = json.loads((NOTEBOOKS / "08_gradient_flow.ipynb").read_text())["cells"]
    printed = [o for c in cells if c["cell_type"] == "code" and
               "make_mlp(nn.Sigmoid, depth=8)" in "".join(c["source"]) for o in c["outputs"]]
    ratio = float("".join(printed[0]["text"]).split("ratio ")[1].split()[0])
    assert norms[0] / norms[-1] == pytest.approx(ratio, rel=0.06)


def test_unreadable_answers_are_a_failed_line_not_an_error():
    for exercise, answer in [("sigmoid-neuron", "-0.17"), ("keep-the-size", 1.5),
                             ("too-large-step", {0.15: "yes", 0.25: False}),
                             ("swapped-gradients", {"x": 0.5}), ("module-names", "0.weight")]:
        result = check(exercise, answer, *GIVEN[exercise])
        assert result.status == "failed" and "cannot read" in str(result), str(result)


def test_a_prediction_without_what_the_notebook_hands_over():
    with pytest.raises(nb.InputError, match=r"(?s)takes answer, quiz.*check\('module-names', "
                                            r"answer, quiz\)"):
        check("module-names", RIGHT["module-names"])
    with pytest.raises(nb.InputError, match="takes your answer alone"):
        check("swish", None, quiz())


def test_grading_leaves_nnbooks_generator_alone():
    nb.manual_seed(5)
    before = nb.default_generator.numpy.bit_generator.state
    check("deeper-and-shallower", RIGHT["deeper-and-shallower"],
          *GIVEN["deeper-and-shallower"])
    assert nb.default_generator.numpy.bit_generator.state == before


def test_results_are_deterministic_text_and_html():
    first = check("pool-fits", WRONG["pool-fits"][0], xception_model)
    second = check("pool-fits", WRONG["pool-fits"][0], xception_model)
    assert str(first) == str(second) and first._repr_html_() == second._repr_html_()


# -- the notebooks hold graded predictions, committed as None ------------------------------

CELLS = {"03_autograd": ["sigmoid-neuron", "broadcast-rows", "too-large-step"],
         "04_modules_and_names": ["module-names"], "05_custom_backward": ["swapped-gradients"],
         "07_shapes_and_convolution": ["pool-fits", "keep-the-size"],
         "08_gradient_flow": ["deeper-and-shallower", "tanh"],
         "09_training_a_cnn": ["one-round", "bigger-canvas"]}


@pytest.mark.parametrize("notebook", list(CELLS))
def test_each_notebook_grades_its_predictions_and_commits_placeholders(notebook):
    cells = json.loads((NOTEBOOKS / f"{notebook}.ipynb").read_text())["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    checks = [s for s in sources if s.startswith("check(")]
    assert [s.split('"')[1] for s in checks] == CELLS[notebook]
    for source in checks:
        variable = source.split(", ")[1].rstrip(")")
        assert any(f"{variable} = None" in s for s in sources), variable
    outputs = ["".join(o.get("data", {}).get("text/plain", "")) for c in cells
               if c["cell_type"] == "code" and "".join(c["source"]).startswith("check(")
               for o in c["outputs"]]
    assert len(outputs) == len(checks)
    assert all(o.splitlines()[0].endswith("write your prediction first") for o in outputs)
