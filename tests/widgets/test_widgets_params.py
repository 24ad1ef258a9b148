"""ParameterExplorer, GradientFlow and BackwardStepper, headless: build them on real models,
move every control, read what the view shows."""
import base64
import re

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

from shared import PNG_MAGIC, Cell, shown, split_floats, xception_block  # noqa: E402

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.widgets import BackwardStepper, GradientFlow, ParameterExplorer  # noqa: E402


def check_fallback(widget):
    bundle = widget._repr_mimebundle_()
    assert base64.b64decode(bundle["image/png"]).startswith(PNG_MAGIC)
    text = bundle["text/plain"]
    assert text == widget.describe() and len(text.splitlines()) <= 5
    assert all(len(line) < 160 for line in text.splitlines())
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert len(repr(widget)) < 160 and "base64" not in repr(widget)


# -- ParameterExplorer ---------------------------------------------------------------------

def test_parameter_explorer_makes_the_layer_built_in_forward_obvious():
    nb.manual_seed(0)
    x = nb.randn(2, 6, 5, 3)
    w, w2 = nn.Parameter(nb.randn(6, 6, 3, 3)), nn.Parameter(nb.randn(3, 6, 1, 1))
    model = Cell()
    optimizer = nb.optim.Adam([w, w2], lr=0.01)   # the seed's optimizer: the strays only
    explorer = ParameterExplorer(model, optimizer)

    page = explorer.caption.value
    assert "held by the optimizer only (not in Cell)" in page
    assert "optimizer param 0" in page and "optimizer param 1" in page
    assert page.count("✘ no") == 4                # conv1/conv2 weights and biases
    assert "⊘ in the model but not in the optimizer" in page
    assert "legend" in page
    assert explorer.describe().splitlines() == [
        "Cell: 4 parameter tensor(s), 351 values (351 trainable), 0 buffer(s); Adam holds 2",
        "  ✖ 2 held by the optimizer but not in the model: optimizer param 0 (6, 6, 3, 3), "
        "optimizer param 1 (3, 6, 1, 1)",
        "  ⊘ 4 in the model but not in the optimizer: conv1.weight, conv1.bias, "
        "conv2.weight, conv2.bias",
        "  (no gradients yet: run loss.backward() to check which parameters get one)"]
    assert explorer.problems() == {
        "not_in_model": ["optimizer param 0", "optimizer param 1"],
        "not_in_optimizer": ["conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias"]}
    text, png = shown(explorer)
    assert text == explorer.describe() and png.startswith(PNG_MAGIC)

    model(x).sum().backward()                      # the next backward, then refresh
    explorer.refresh_button.click()
    assert "∅ 2 got no gradient in the last backward: optimizer param 0, optimizer param 1" \
        in explorer.describe()
    page = explorer.caption.value
    assert page.count(">none</span>") == 2          # the strays' |grad| column
    assert shown(explorer)[0] == explorer.describe()
    assert w.grad is None and w2.grad is None
    check_fallback(explorer)


def test_parameter_explorer_shows_both_paths_of_a_shared_linear():
    lin = nn.Linear(4, 4)
    model = nn.Sequential(lin, nn.Tanh(), lin, nn.BatchNorm1d(4))
    explorer = ParameterExplorer(model, nb.optim.SGD(model.parameters(), lr=0.1))
    assert "⇄ 2 shared: 0.weight = 2.weight, 0.bias = 2.bias" in explorer.describe()
    page = explorer.caption.value
    assert "shared: 0.weight = 2.weight" in page
    assert "running_mean" in page and "(buffer)" in page
    model(nb.randn(3, 4)).sum().backward()
    explorer.refresh()
    assert explorer.describe().splitlines()[1:] == [
        "  ⇄ 2 shared: 0.weight = 2.weight, 0.bias = 2.bias",
        "  every parameter is in the optimizer and got a gradient"]
    assert explorer.report.ok


def test_parameter_explorer_show_menu_narrows_the_picture():
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(),
                          nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2)))
    explorer = ParameterExplorer(model, nb.optim.SGD(model[0].parameters(), lr=0.1))
    assert [v for _, v in explorer.show_dropdown.options] == ["all", "problems", "0", "2",
                                                              "2.0", "2.1"]
    whole_text, whole_png = shown(explorer)
    assert "showing" not in whole_text and len(explorer.rows) == 6

    explorer.show_dropdown.value = "problems"     # as the front end sets it
    text, png = shown(explorer)
    assert text.splitlines()[-1] == "  showing problems only: 4 of 6 parameter tensors"
    assert png.startswith(PNG_MAGIC) and png != whole_png
    assert [r.label for r in explorer.rows] == ["2.0.weight", "2.0.bias", "2.1.weight",
                                                "2.1.bias"]
    assert explorer.figure.get_size_inches()[1] < 0.42 * 6 + 1.5  # four rows: a shorter view

    explorer.show_dropdown.value = "2.1"
    assert shown(explorer)[0].splitlines()[-1] == \
        "  showing inside 2.1 (Linear): 2 of 6 parameter tensors"
    assert explorer.caption.value.count("✘ no") == 4  # the table above stays whole

    explorer.show_dropdown.value = "all"
    assert shown(explorer) == (whole_text, whole_png)


def test_parameter_explorer_with_no_problem_to_show_says_so():
    model = nn.Linear(3, 2)
    explorer = ParameterExplorer(model, nb.optim.SGD(model.parameters(), lr=0.1))
    model(nb.randn(4, 3)).sum().backward()
    explorer.show_dropdown.value = "problems"
    explorer.refresh()                              # keeps what is shown
    assert explorer.show_dropdown.value == "problems" and explorer.rows == ()
    assert explorer.describe().splitlines()[-1] == \
        "  showing problems only: 0 of 2 parameter tensors"
    assert shown(explorer)[1].startswith(PNG_MAGIC)


def test_parameter_explorer_without_an_optimizer():
    explorer = ParameterExplorer(nn.Linear(2, 3))
    assert explorer.describe().startswith("Linear: 2 parameter tensor(s), 9 values")
    assert "in optimizer" in explorer.caption.value and "—" in explorer.caption.value


# -- GradientFlow -------------------------------------------------------------------------

def sigmoid_mlp(depth=6, width=16):
    nb.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.Sigmoid()]
    return nn.Sequential(*layers, nn.Linear(width, 3))


def train(model, flow, steps):
    x, y = nb.randn(32, 16), nb.randint(0, 3, (32,))
    optimizer = nb.optim.SGD(model.parameters(), lr=0.1)
    sizes = []
    for _ in range(steps):
        optimizer.zero_grad()
        nn.CrossEntropyLoss()(model(x), y).backward()
        flow.record()
        sizes.append((flow.step_slider.max, flow.step_slider.value))
        optimizer.step()
    return sizes


def test_gradient_flow_fed_by_a_training_loop():
    model = sigmoid_mlp()
    flow = GradientFlow(model, thresholds=(1e-4, 1e2))
    assert flow.describe() == ("GradientFlow: nothing recorded yet (call record() after "
                               "loss.backward())")
    assert flow.step_slider.disabled and shown(flow)[1].startswith(PNG_MAGIC)

    sizes = train(model, flow, 4)
    assert sizes == [(0, 0), (1, 1), (2, 2), (3, 3)]        # the slider follows the newest
    assert not flow.step_slider.disabled and len(flow.history) == 4
    flow.flush()
    text = shown(flow)[0]
    assert text.splitlines()[0] == "GradientFlow: step 3 (4 of 4 recorded), norm, log scale"
    vanishing = text.splitlines()[1]
    assert vanishing.startswith("  vanishing (< 0.0001): 0.weight, 2.weight")
    assert "12.weight" not in vanishing                       # the last layer is healthy
    assert "▼ vanishing (&lt; 0.0001): 0.weight" in flow.caption.value
    ax = flow.figure.axes[0]
    assert ax.get_yscale() == "log" and ax.get_title(loc="left").startswith("step 3")
    assert [t.get_text() for t in ax.get_xticklabels()] == [f"{2 * i}.weight"
                                                            for i in range(7)]
    check_fallback(flow)


def test_gradient_flow_controls_change_the_view():
    model = sigmoid_mlp(depth=3)
    flow = GradientFlow(model, redraw_interval=0)
    train(model, flow, 3)
    before = shown(flow)[1]

    flow.stat_dropdown.value = "mean"
    assert "mean, log scale" in shown(flow)[0]
    assert flow.figure.axes[0].get_ylabel() == "|mean of grad|"
    flow.log_checkbox.value = False
    assert "mean, linear scale" in shown(flow)[0]
    assert flow.figure.axes[0].get_yscale() == "linear"
    flow.stat_dropdown.value = "max_abs"
    flow.bias_checkbox.value = True
    labels = [t.get_text() for t in flow.figure.axes[0].get_xticklabels()]
    assert labels[:2] == ["0.weight", "0.bias"] and len(labels) == 8
    flow.step_slider.value = 0
    assert shown(flow)[0].startswith("GradientFlow: step 0 (1 of 3 recorded), max_abs, "
                                     "linear scale")
    assert shown(flow)[1] != before
    assert flow.play.max == 2


def test_gradient_flow_from_an_existing_history():
    model = sigmoid_mlp(depth=2)
    history = nb.inspect.GradientHistory(model)
    x, y = nb.randn(8, 16), nb.randint(0, 3, (8,))
    for _ in range(2):
        model.zero_grad()
        nn.CrossEntropyLoss()(model(x), y).backward()
        history.record()
    flow = GradientFlow(history=history, thresholds=(1e-9, 1e-3))
    assert flow.model is model and flow.step_slider.max == 1
    assert "exploding (> 0.001): " in flow.describe()
    assert "▲ exploding" in flow.caption.value
    with pytest.raises(nb.InputError, match="needs a model"):
        GradientFlow()
    with pytest.raises(ValueError, match="0 < low < high"):
        GradientFlow(model, thresholds=(1e-2, 1e-3))


# -- BackwardStepper ------------------------------------------------------------------------


def test_backward_stepper_on_a_small_graph_with_the_buttons():
    nb.manual_seed(0)
    w = nb.randn(3, 2, requires_grad=True)
    x = nb.randn(4, 3)
    loss = (x @ w).tanh().sum()
    stepper = BackwardStepper(loss)
    assert stepper.step_slider.max == 3 and stepper.prev_button.disabled
    # steps count from 1 in the text, as beside the ops in the picture; the slider's value
    # is the 0-based index, its label counts from 1
    assert stepper.describe().splitlines()[0] == "BackwardStepper: 3 ops; step 1 of 3: sum"
    assert stepper.step_label.value == "1 of 3" and not stepper.step_slider.readout
    seen = []
    while not stepper.next_button.disabled:
        seen.append(stepper.describe().splitlines()[0])
        stepper.next_button.click()
    assert seen[1:] == ["BackwardStepper: 3 ops; step 2 of 3: tanh",
                        "BackwardStepper: 3 ops; step 3 of 3: matmul"]
    assert stepper.step_label.value == "finished"
    assert stepper.describe() == "BackwardStepper: 3 ops; backward finished: gradients for " \
                                 "1 leaves"
    assert "Backward finished" in stepper.caption.value
    assert "input" in stepper.details.value
    stepper.prev_button.click()
    caption = stepper.caption.value
    assert "matmul" in caption and "<b>dout</b>" in caption and "<b>grad b</b>" in caption
    assert "grad a None" in caption            # x is data: no gradient
    assert w.grad is None


def test_backward_stepper_on_the_xception_block():
    nb.manual_seed(2)
    model = xception_block()
    loss = nn.NLLLoss()(model(nb.randn(10, 3, 16, 8)), nb.randint(0, 3, (10,)))
    stepper = BackwardStepper(loss, model)
    total = len(stepper.trace.steps)
    assert total == 15 and stepper.step_slider.max == total
    ops = []
    for index in range(total + 1):                  # every step is reachable
        stepper.step_slider.value = index
        text, png = shown(stepper)
        assert png.startswith(PNG_MAGIC) and text == stepper.describe()
        if index < total:
            caption, details = stepper.caption.value, stepper.details.value
            assert f"Backward step {index + 1} of {total}" in caption
            assert "<b>dout</b>" in caption and "returns" in caption
            assert "③ dout" in details and "① forward input" in details and "② out" in details
            ops.append(text.splitlines()[0].split(": ", 2)[-1])
    assert ops[0] == "nll_loss" and ops[-1] == "conv2d (0)"
    assert "conv2d (3.1.1)" in ops and "batch_norm (3.1.2)" in ops

    stepper.go(ops.index("conv2d (3.1.1)"))
    text, (dout, grad_x, grad_w, grad_b) = split_floats(stepper.describe().splitlines()[1])
    assert text == "  dout (10, 512, 8, 4) norm # -> grad norms: x #, weight #, bias #"
    assert (dout, grad_x, grad_w) == pytest.approx((0.345, 0.197, 0.917), rel=5e-3)
    # A BatchNorm follows this conv: its bias gets no gradient; what shows is float32 rounding
    assert grad_b < 1e-6
    in_caption = re.search(r"<b>grad weight</b> \(norm (\S+)\) → 3\.1\.1\.weight",
                           stepper.caption.value)
    assert in_caption and float(in_caption.group(1)) == grad_w
    assert "bprop(self, x, weight, bias, out, dout)" in stepper.details.value
    assert all(p.grad is None for p in model.parameters())      # .grad untouched
    check_fallback(stepper)
    stepper.go(99)
    assert stepper.current == total and stepper.next_button.disabled


def test_backward_stepper_through_a_custom_bprop():
    class MulAdd(nn.Module):
        def forward(self, x, y):
            return 2 * x + y

        def bprop(self, x, y, out, dout):
            return 2 * dout, dout

    x = nb.tensor(np.array([1.0, 2.0]), requires_grad=True)
    y = nb.tensor(np.array([3.0, 4.0]), requires_grad=True)
    stepper = BackwardStepper(MulAdd()(x, y).sum())
    stepper.go(1)
    assert stepper.describe().splitlines()[0] == ("BackwardStepper: 2 ops; step 2 of 2: "
                                                  "MulAdd.bprop")
    assert "dout (2,) norm 1.41 -> grad norms: x 2.83, y 1.41" in stepper.describe()


def test_backward_stepper_needs_a_graph():
    with pytest.raises(ValueError, match="no graph to step through"):
        BackwardStepper(nb.ones(3).sum())


def test_backward_stepper_opens_at_a_chosen_step():
    x = nb.tensor([1.0, 2.0], requires_grad=True)
    stepper = BackwardStepper((x * x).sum().tanh(), step=1)
    assert stepper.current == 1 and "step 2 of 3" in stepper.describe()


def test_backward_stepper_shows_scalars_with_their_signs():
    a = nb.tensor(-0.4, requires_grad=True)
    b = nb.tensor(1.5, requires_grad=True)
    e = (a * b + 2 * a).tanh()
    stepper = BackwardStepper(e, {"a": a, "b": b})
    assert stepper.signed                        # every value is one number: on by itself
    t = float(np.tanh(-1.4))
    first = stepper.describe().splitlines()
    assert first[0] == "BackwardStepper: 4 ops; step 1 of 4: tanh"
    text, (out, grad) = split_floats(first[1])
    assert text == "  out #, dout 1 -> grad x #"           # backward starts from 1
    assert (out, grad) == pytest.approx((t, 1 - t * t), rel=1e-3)
    assert out < 0                               # the sign, not a norm
    # the constant 2 is titled "constant" and shows its value after "="
    labels = [n.label for n in stepper.parts[0]]
    assert "constant\n= 2" in labels and "a\n= -0.4" in labels and "tanh\n= -0.8854" in labels
    stepper.go(3)                                # the mul a * b: grad a = dout * b, signed
    text, (_, _, grad_a, grad_b) = split_floats(stepper.describe().splitlines()[1])
    assert grad_a == pytest.approx((1 - t * t) * 1.5, rel=1e-3)
    assert grad_b == pytest.approx((1 - t * t) * -0.4, rel=1e-3) and grad_b < 0
    assert "<b>-0.4</b>" in stepper.details.value and "‖g‖" not in stepper.details.value
    stepper.go(99)
    last = stepper.describe().splitlines()[1]
    assert last.startswith("  grad a ") and ", grad b -" in last
    e.backward()
    assert float(last.split()[2].rstrip(",")) == pytest.approx(a.grad.item(), rel=1e-3)
    check_fallback(stepper)


def test_backward_stepper_signed_mode_needs_scalars():
    x = nb.tensor([1.0, -2.0], requires_grad=True)
    assert not BackwardStepper((x * x).sum()).signed
    with pytest.raises(ValueError, match="signed=True") as info:
        BackwardStepper((x * x).sum(), signed=True)
    assert "hint:" in str(info.value)
    assert not BackwardStepper((x[0] * 3).tanh(), signed=False).signed


def test_a_widget_without_draw_or_describe_is_refused_when_defined():
    from nnbook.widgets._base import NnbookWidget

    with pytest.raises(TypeError, match=r"Half must define describe: draw\(fig\) draws"):
        class Half(NnbookWidget):
            def draw(self, fig):
                pass


def test_gradient_flow_colours_bars_by_layer_kind_and_explains_them():
    nb.manual_seed(5)
    model = nn.Sequential(nn.Linear(5, 7), nn.BatchNorm1d(7), nn.ReLU(), nn.Linear(7, 3))
    flow = GradientFlow(model, redraw_interval=0)
    nn.CrossEntropyLoss()(model(nb.randn(11, 5)), nb.randint(0, 3, (11,))).backward()
    flow.record()
    ax = flow.figure.axes[0]
    from matplotlib.colors import to_hex

    from nnbook.widgets.palette import LAYER_KIND_COLORS
    colours = [to_hex(p.get_facecolor()) for p in ax.patches[:3]]
    assert colours == [LAYER_KIND_COLORS[k] for k in ("Linear", "BatchNorm", "Linear")]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["Linear", "BatchNorm", "in a red zone"]     # only the kinds drawn
    width = int.from_bytes(flow.png()[16:20], "big")  # the PNG header's width
    assert width >= 1200


def test_gradient_flow_shows_dead_relus_saturation_and_update_ratios():
    nb.manual_seed(6)
    model = nn.Sequential(nn.Linear(5, 7), nn.ReLU(), nn.Linear(7, 4), nn.Sigmoid(),
                          nn.Linear(4, 3))
    with nb.no_grad():      # three of the seven ReLU units never fire; the sigmoid saturates
        model[0].bias[:3] = -100.0
        model[2].weight.mul_(0.0)
        model[2].bias.fill_(8.0)
    flow = GradientFlow(model, redraw_interval=0)
    optimizer = nb.optim.SGD(model.parameters(), lr=0.5)
    x, y = nb.randn(9, 5), nb.randint(0, 3, (9,))
    before = model[4].weight.detach().numpy().copy()
    for _ in range(2):
        optimizer.zero_grad()
        nn.CrossEntropyLoss()(model(x), y).backward()
        flow.record()
        if len(flow.history) == 1:
            first, first_lines = flow.describe(), flow.activity_lines()
        optimizer.step()
    # 3 of 7 ReLU units dead; every sigmoid output saturated
    assert "activations: dead ReLU by layer 1 43%; saturated Sigmoid by layer 3 100%" in first
    assert "update/data: from the second recorded step on" in first_lines
    assert len(first.splitlines()) == 5                     # the text view stays short
    activations, ratios = flow.activity()
    assert activations["1"].fraction == pytest.approx(3 / 7)
    after = model[4].weight.detach().numpy()
    # ratios of the step between the two records: compare with the weights themselves
    flow_ratio = ratios["4.weight"]
    assert flow_ratio > 0
    moved = np.linalg.norm(flow._before["4.weight"] - before) / np.linalg.norm(before)
    assert flow_ratio == pytest.approx(moved, rel=1e-6)
    assert not np.allclose(after, before)
    assert "update/data (last step): 0.weight" in flow.describe()
    assert "4.bias" not in flow.describe()                  # biases only when shown
