"""parameter_report, gradient_flow and value_summary: the analysis behind ParameterExplorer,
GradientFlow and BackwardStepper, as plain records."""
import numpy as np
import pytest
from shared import Cell

import nnbook as nb
from nnbook import nn
from nnbook.inspect.flow import FlowBar, flow_range, gradient_flow, zone_of
from nnbook.inspect.params import parameter_report, show_choices
from nnbook.inspect.values import value_summary


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.again = self.lin          # the same layer under a second name
        self.norm = nn.BatchNorm1d(4)

    def forward(self, x):
        return self.norm(self.again(self.lin(x)))


def built_in_forward_case():
    nb.manual_seed(0)
    w = nn.Parameter(nb.randn(6, 6, 3, 3))
    w2 = nn.Parameter(nb.randn(3, 6, 1, 1))
    model = Cell()
    return model, nb.optim.Adam([w, w2], lr=0.01), nb.randn(2, 6, 5, 3)


def labels(report, flag):
    return [r.label for r in report.flagged(flag)]


def test_built_in_forward_the_optimizer_holds_strays_and_not_the_model():
    model, opt, x = built_in_forward_case()
    report = parameter_report(model, opt)
    assert labels(report, "not_in_model") == ["optimizer param 0", "optimizer param 1"]
    assert labels(report, "not_in_optimizer") == ["conv1.weight", "conv1.bias", "conv2.weight",
                                                  "conv2.bias"]
    assert report.flagged("no_gradient") == ()       # no backward yet: nothing to say
    assert not report.backward_seen and not report.ok
    strays = [r for r in report.rows if not r.in_model]
    assert [r.shape for r in strays] == [(6, 6, 3, 3), (3, 6, 1, 1)]
    assert all(r.in_optimizer and r.group == 0 and r.path == "" for r in strays)
    assert report.total == 6 * 6 * 9 + 6 + 18 + 3    # the strays are not the model's

    model(x).sum().backward()
    report = parameter_report(model, opt)
    assert labels(report, "no_gradient") == ["optimizer param 0", "optimizer param 1"]
    conv = report.rows[0]
    assert conv.path == "conv1.weight" and conv.grad_norm > 0
    assert conv.flags == ("not_in_optimizer",)
    text = str(report)
    assert text.splitlines()[0] == ("Cell: 4 parameter tensor(s), 351 values (351 trainable), "
                                    "0 buffer(s); Adam holds 2")
    assert ("✖ 2 held by the optimizer but not in the model: optimizer param 0 (6, 6, 3, 3), "
            "optimizer param 1 (3, 6, 1, 1)") in text
    assert "⊘ 4 in the model but not in the optimizer: conv1.weight, conv1.bias, " in text
    assert "∅ 2 got no gradient in the last backward: optimizer param 0, " in text
    assert repr(report) == "<ParameterReport: Cell, 6 parameters, 6 with problems>"


def test_built_in_forward_with_w_stored_in_the_model_they_get_no_gradient():
    nb.manual_seed(0)
    model = Cell(keep_w=True)
    opt = nb.optim.Adam([model.w, model.w2], lr=0.01)
    model(nb.randn(2, 6, 5, 3)).sum().backward()
    report = parameter_report(model, opt)
    assert report.flagged("not_in_model") == ()
    assert labels(report, "no_gradient") == ["w", "w2"]
    assert labels(report, "not_in_optimizer") == ["conv1.weight", "conv1.bias", "conv2.weight",
                                                  "conv2.bias"]
    assert [r.module for r in report.rows] == ["", "", "conv1", "conv1", "conv2", "conv2"]
    assert [r.depth for r in report.rows] == [0, 0, 1, 1, 1, 1]


def test_a_fixed_setup_has_no_problems():
    nb.manual_seed(0)
    model = Cell()
    opt = nb.optim.SGD(model.parameters(), lr=0.1)
    model(nb.randn(2, 6, 5, 3)).sum().backward()
    report = parameter_report(model, opt)
    assert report.ok and report.backward_seen
    assert report.findings() == []
    assert all(r.in_optimizer for r in report.rows)


def test_a_shared_layer_lists_all_its_paths_and_counts_once():
    model = Tied()
    report = parameter_report(model, nb.optim.SGD(model.parameters(), lr=0.1))
    shared = report.flagged("shared")
    assert [r.paths for r in shared] == [("lin.weight", "again.weight"),
                                         ("lin.bias", "again.bias")]
    assert report.total == 16 + 4 + 4 + 4
    assert "⇄ 2 shared: lin.weight = again.weight, lin.bias = again.bias" in str(report)
    assert report.ok  # sharing is information, not a problem


def test_buffers_are_rows_without_optimizer_or_gradient_flags():
    model = Tied()
    report = parameter_report(model, nb.optim.SGD(model.parameters(), lr=0.1))
    buffers = report.buffers
    assert [r.path for r in buffers] == ["norm.running_mean", "norm.running_var",
                                         "norm.num_batches_tracked"]
    assert all(r.flags == () and not r.trainable for r in buffers)
    line = next(x for x in str(report).splitlines() if "norm.running_mean" in x)
    assert " -- " in line and "NO" not in line
    assert [m for m, _ in report.modules] == ["", "lin", "norm"]


def test_nested_modules_are_all_in_the_tree():
    model = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Sequential(
        nn.Linear(3, 1))))
    report = parameter_report(model)
    assert [m for m, _ in report.modules] == ["", "0", "1", "1.1", "1.1.0"]
    assert report.rows[-1].depth == 3
    assert all(r.in_optimizer is None and r.flags == () for r in report.rows)


def test_a_view_selects_everything_the_problems_or_one_subtree():
    model = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Sequential(
        nn.Linear(3, 1))), nn.BatchNorm1d(1))
    stray = nn.Parameter(nb.zeros(2))
    report = parameter_report(model, nb.optim.SGD([*model[0].parameters(), stray], lr=0.1))
    assert show_choices(report) == [
        ("every parameter", "all"), ("problems only", "problems"), ("0 (Linear)", "0"),
        ("1 (Sequential)", "1"), ("1.1 (Sequential)", "1.1"), ("1.1.0 (Linear)", "1.1.0"),
        ("2 (BatchNorm1d)", "2")]

    def selected(show):
        return [r.label for r in report.selected(show)]

    assert selected("all") == ["0.weight", "0.bias", "1.1.0.weight", "1.1.0.bias", "2.weight",
                               "2.bias", "optimizer param 2"]
    assert selected("problems") == ["1.1.0.weight", "1.1.0.bias", "2.weight", "2.bias",
                                    "optimizer param 2"]
    assert selected("1") == selected("1.1") == selected("1.1.0") == ["1.1.0.weight",
                                                                      "1.1.0.bias"]
    assert selected("2") == ["2.weight", "2.bias"]  # parameters only: no running_mean
    with pytest.raises(ValueError, match=r"nothing called '1\.2' to show(.|\n)*"
                                         r"hint: choose one of 'all', 'problems', '0', '1'"):
        report.selected("1.2")


def test_strays_from_another_model_and_other_groups_are_named():
    old, new = Cell(), Cell()
    opt = nb.optim.SGD([{"params": new.parameters()},
                        {"params": [old.conv1.weight], "lr": 0.01},
                        {"params": [nn.Parameter(nb.zeros(2))]}], lr=0.1)
    report = parameter_report(new, opt)
    assert labels(report, "not_in_model") == ["conv1.weight of another Cell",
                                              "optimizer group 2 param 0"]
    assert report.flagged("not_in_optimizer") == ()


def test_frozen_parameters_left_out_of_the_optimizer_are_not_flagged():
    model = Cell()
    model.conv1.requires_grad_(False)
    opt = nb.optim.SGD(model.conv2.parameters(), lr=0.1)
    model(nb.randn(1, 6, 4, 4)).sum().backward()
    report = parameter_report(model, opt)
    assert report.ok
    assert [r.trainable for r in report.rows] == [False, False, True, True]
    assert report.trainable == 18 + 3


def test_an_all_zero_gradient_is_flagged():
    lin = nn.Linear(3, 2)
    (lin(nb.zeros(4, 3)) * 0).sum().backward()
    report = parameter_report(lin)
    assert labels(report, "zero_gradient") == ["weight", "bias"]


def test_flagged_names_unknown_flags():
    with pytest.raises(ValueError, match="unknown flag 'nope'"):
        parameter_report(Cell()).flagged("nope")


# -- gradient flow ------------------------------------------------------------------------

def deep_sigmoid_stats():
    nb.manual_seed(0)
    layers = []
    for _ in range(6):
        layers += [nn.Linear(16, 16), nn.Sigmoid()]
    model = nn.Sequential(*layers, nn.Linear(16, 3))
    nn.CrossEntropyLoss()(model(nb.randn(32, 16)), nb.randint(0, 3, (32,))).backward()
    return nb.inspect.gradient_stats(model)


def test_zones_by_magnitude():
    assert zone_of(None) == "none"
    assert zone_of(1e-6) == "vanishing" and zone_of(-1e-6) == "vanishing"
    assert zone_of(0.5) == "healthy" and zone_of(1e3) == "exploding"
    assert zone_of(0.5, (1.0, 2.0)) == "vanishing"


def test_gradient_flow_shrinks_towards_the_first_layers():
    stats = deep_sigmoid_stats()
    bars = gradient_flow(stats, "norm", thresholds=(1e-4, 1e2))
    assert [b.path for b in bars] == [f"{2 * i}.weight" for i in range(7)]
    values = [b.value for b in bars]
    assert values == sorted(values)                    # each layer further back: smaller
    assert bars[0].zone == "vanishing" and bars[-1].zone == "healthy"
    with_biases = gradient_flow(stats, "max_abs", biases=True)
    assert len(with_biases) == 14 and with_biases[1].path == "0.bias"
    means = gradient_flow(stats, "mean")
    assert any(b.value < 0 for b in means) or any(b.value > 0 for b in means)
    with pytest.raises(ValueError, match="unknown statistic 'std'"):
        gradient_flow(stats, "std")


def test_a_parameter_without_gradient_has_no_value():
    lin = nn.Linear(2, 2)
    stats = nb.inspect.gradient_stats(lin)
    assert gradient_flow(stats, biases=True) == (FlowBar("weight", None, "none"),
                                                 FlowBar("bias", None, "none"))
    assert flow_range([stats]) is None


def test_flow_range_spans_all_steps():
    stats = deep_sigmoid_stats()
    values = [b.value for b in gradient_flow(stats)]
    low, high = flow_range([stats, stats])
    assert low == pytest.approx(min(values)) and high == pytest.approx(max(values))


def test_value_summary():
    s = value_summary(np.array([[3.0, -4.0], [0.0, 1.0]], dtype=np.float32), head=3)
    assert s.shape == (2, 2) and s.norm == pytest.approx(np.sqrt(26))
    assert (s.mean, s.min, s.max) == (0.0, -4.0, 3.0)
    assert s.head == (3.0, -4.0, 0.0)
    assert s.head_text(size=4) == "[3, -4, 0, …]"
    assert s.text() == "mean 0, std 2.55, min -4, max 3"
    scalar = value_summary(np.float32(0.97162))
    assert scalar.shape == () and scalar.text() == "0.972"
    assert value_summary(np.zeros((0, 3))).head == ()


def test_a_nan_gradient_is_flagged_and_drawn_without_crashing():
    from matplotlib.figure import Figure

    from nnbook.widgets import ParameterExplorer

    model = nb.nn.Linear(2, 2)
    model.weight.grad = nb.full((2, 2), float("inf"))
    model.bias.grad = nb.zeros(2)
    report = nb.inspect.parameter_report(model)
    weight = next(r for r in report.rows if r.path == "weight")
    assert "nonfinite_gradient" in weight.problems
    explorer = ParameterExplorer(model)  # draws without raising
    assert explorer.png()
    assert Figure  # the drawing used a plain Figure
