"""The drawing functions of ParameterExplorer, GradientFlow and BackwardStepper, on plain
matplotlib Axes: which artists they add."""
import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.collections import LineCollection, PatchCollection  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.inspect.params import parameter_report  # noqa: E402
from nnbook.widgets.draw.gradients import ZONE_COLORS, draw_gradient_bars  # noqa: E402
from nnbook.widgets.draw.graph import GRADIENT_COLOR, PastedImage, draw_graph, render_node_labels  # noqa: E402
from nnbook.widgets.draw.graph_layout import graph_layout, graph_parts, layered_layout, node_layer  # noqa: E402
from nnbook.widgets.draw.graph_step import draw_step_panel, step_view  # noqa: E402
from nnbook.widgets.draw.params import (  # noqa: E402
    draw_gradient_norms,
    draw_parameter_counts,
    draw_parameters,
    row_label,
)
from nnbook.widgets.palette import PROBLEM_COLOR  # noqa: E402


def axes(size=(8, 5)):
    return Figure(figsize=size).add_subplot()


def texts(container):
    return [t.get_text() for t in container.texts]


def built_in_forward_report(backward):
    nb.manual_seed(0)
    w, w2 = nn.Parameter(nb.randn(6, 6, 3, 3)), nn.Parameter(nb.randn(3, 6, 1, 1))
    model = nn.Sequential(nn.Conv2d(6, 6, 3, padding=1), nn.Conv2d(6, 3, 1))
    if backward:
        model(nb.randn(2, 6, 4, 3)).sum().backward()
    return parameter_report(model, nb.optim.Adam([w, w2], lr=0.01))


# -- parameters ---------------------------------------------------------------------------

def test_counts_one_bar_per_parameter_problems_in_red():
    report = built_in_forward_report(backward=False)
    ax = axes()
    bars = draw_parameter_counts(ax, report)
    assert len(bars) == 6 and ax.get_xscale() == "log"
    names = ax.texts[:6]                              # one name per row, left of the axes
    assert names[0].get_text() == "⊘ 0.weight" and names[4].get_text() == "✖ optimizer param 0"
    assert all(to_hex(t.get_color()) == PROBLEM_COLOR for t in names)
    assert "324" in texts(ax)
    assert [line.get_linestyle() for line in ax.lines] == ["--"]   # strays under a red line


def test_gradient_norms_before_and_after_a_backward():
    ax = axes()
    draw_gradient_norms(ax, built_in_forward_report(backward=False))
    assert any(t.startswith("no gradients yet") for t in texts(ax))

    ax = axes()
    report = built_in_forward_report(backward=True)
    bars = draw_gradient_norms(ax, report)
    heights = [b.get_width() for b in bars]
    assert all(h > 0 for h in heights[:4]) and heights[4:] == [0, 0]
    assert "✖ not in the model,  ∅ no gradient" in texts(ax)
    assert texts(ax).count("⊘ not in the optimizer") == 4


def test_the_whole_parameter_view_has_two_panels_and_a_legend():
    report = built_in_forward_report(backward=True)
    fig = Figure(figsize=(12, 4))
    ax_count, ax_grad = draw_parameters(fig, report)
    assert fig.axes == [ax_count, ax_grad]
    assert "✖ not in the model" in [t.get_text() for t in fig.texts]


def test_row_label_names_every_path_of_a_shared_parameter():
    lin = nn.Linear(2, 2)
    model = nn.Sequential(lin, nn.ReLU(), lin)
    row = parameter_report(model).rows[0]
    assert row_label(row) == "0.weight ⇄ 2.weight"


# -- gradient bars -------------------------------------------------------------------------

def sigmoid_stats():
    nb.manual_seed(0)
    layers = []
    for _ in range(5):
        layers += [nn.Linear(8, 8), nn.Sigmoid()]
    model = nn.Sequential(*layers, nn.Linear(8, 2))
    nn.CrossEntropyLoss()(model(nb.randn(16, 8)), nb.randint(0, 2, (16,))).backward()
    return nb.inspect.gradient_stats(model)


def test_gradient_bars_coloured_by_zone_with_threshold_lines():
    stats = sigmoid_stats()
    ax = axes()
    bars = draw_gradient_bars(ax, stats, "norm", log=True, thresholds=(1e-3, 1e1))
    assert len(bars) == 6 and ax.get_yscale() == "log"
    colours = [to_hex(b.get_facecolor()) for b in bars]
    assert colours[0] == ZONE_COLORS["vanishing"] and colours[-1] == ZONE_COLORS["healthy"]
    assert sorted(line.get_ydata()[0] for line in ax.lines) == [1e-3, 1e1]
    assert "vanishing\n< 0.001" in texts(ax) and "exploding\n> 10" in texts(ax)
    assert [t.get_text() for t in ax.get_xticklabels()][0] == "0.weight"
    bottom, top = ax.get_ylim()
    assert bottom < 1e-3 and top > 1e1


def test_linear_scale_hides_a_threshold_that_would_sit_on_zero():
    ax = axes()
    draw_gradient_bars(ax, sigmoid_stats(), "mean", log=False, thresholds=(1e-9, 1e3))
    assert ax.get_yscale() == "linear"
    assert [line.get_ydata()[0] for line in ax.lines] == [0]     # only the zero line
    bottom, top = ax.get_ylim()
    assert bottom == -top                                        # a mean has a sign


def test_missing_gradients_are_labelled():
    ax = axes()
    bars = draw_gradient_bars(ax, nb.inspect.gradient_stats(nn.Linear(2, 2)), biases=True,
                              limits=(1e-3, 1.0))
    assert len(bars) == 2 and texts(ax).count("no\ngrad") == 2


# -- graph layout -------------------------------------------------------------------------

def test_layers_leaves_sit_just_above_their_reader():
    edges = [("a", "f"), ("f", "g"), ("g", "h"), ("w", "h"), ("a", "h")]
    layout = layered_layout(["a", "w", "f", "g", "h"], edges)
    assert layout.layers == {"a": 0, "f": 1, "g": 2, "w": 2, "h": 3}
    assert layout.depth == 4
    assert layout.positions["h"][1] == -3.0
    long_edge = layout.routes[("a", "h", 4)]
    assert len(long_edge) == 4                     # bends through a point on each layer
    assert [y for _, y in long_edge] == [0.0, -1.0, -2.0, -3.0]


def test_ordering_removes_avoidable_crossings():
    # a1->b2 and a2->b1 cross in the given order; the barycentre sweeps undo it
    layout = layered_layout(["a1", "a2", "b1", "b2"], [("a1", "b2"), ("a2", "b1")])
    x = {k: p[0] for k, p in layout.positions.items()}
    assert (x["a1"] < x["a2"]) == (x["b2"] < x["b1"])


def test_boxes_keep_their_distance():
    widths = {"a": 3.0, "b": 1.0, "c": 1.0}
    layout = layered_layout(["a", "b", "c", "d"], [("a", "d"), ("b", "d"), ("c", "d")], widths)
    xs = sorted((layout.positions[k][0], k) for k in "abc")
    for (x0, k0), (x1, k1) in zip(xs, xs[1:]):
        assert x1 - x0 >= (widths[k0] + widths[k1]) / 2 + 0.2
    assert layout.width >= 5.0


def test_a_cycle_is_refused():
    with pytest.raises(ValueError, match="without cycles"):
        layered_layout(["a", "b"], [("a", "b"), ("b", "a")])


# -- the graph of a trace ---------------------------------------------------------------

def small_trace():
    nb.manual_seed(1)
    model = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 2))
    model.shared = shared = nn.Parameter(nb.randn(2))
    loss = ((model(nb.randn(4, 3)) * shared) + shared).sum()
    return nb.inspect.trace_backward(loss, model=model), model


def test_graph_parts_one_node_per_leaf_and_per_constant():
    trace, _ = small_trace()
    nodes, edges = graph_parts(trace)
    leaves = [n.title for n in nodes if n.kind == "leaf"]
    assert leaves.count("shared") == 1                        # read twice, drawn once
    assert sum(1 for u, _, _ in edges if u == ("leaf", "shared")) == 2
    assert [n.title for n in nodes if n.kind == "const"] == ["input"]
    ops = [n for n in nodes if n.kind == "op"]
    assert len(ops) == len(trace.graph)
    assert ops[0].title == "linear (0)" and ops[0].label == "linear (0)\n4×2"


def test_argument_names_and_layers_come_with_the_records():
    trace, _ = small_trace()
    assert trace.graph[0].input_names == ("x", "weight", "bias")
    assert node_layer(trace.graph[0]) == "0 (Linear)"
    assert node_layer(trace.graph[1]) == "1 (Tanh)"
    x = nb.randn(2, 3, 5, 4, requires_grad=True)
    w = nb.randn(4, 3, 3, 2, requires_grad=True)
    conv = nb.inspect.trace_backward(nb.nn.functional.conv2d(x, w).sum())
    assert conv.graph[0].input_names == ("x", "weight")
    loss = nb.nn.functional.nll_loss(nb.randn(4, 3, requires_grad=True), nb.tensor([0, 2, 1, 1]))
    assert nb.inspect.trace_backward(loss).graph[0].input_names == ("x", "target")


def test_draw_graph_highlights_the_current_step():
    trace, _ = small_trace()
    parts = graph_layout(trace)
    ax = axes((8, 6))
    artists = draw_graph(ax, trace, current=0, parts=parts)
    assert isinstance(artists["nodes"], PatchCollection)
    assert len(artists["nodes"].get_paths()) == len(parts[0])
    assert isinstance(artists["gradient_edges"], LineCollection)
    step = trace.steps[0]
    assert len(artists["gradients"]) == len(trace.node(step.node).inputs)
    assert all(to_hex(t.get_color()) == GRADIENT_COLOR for t in artists["gradients"])
    assert len(artists["labels"]) == len(parts[0]) + len(trace.steps)  # + order numbers

    ax = axes((8, 6))
    finished = draw_graph(ax, trace, current=len(trace.steps), parts=parts, labels=False)
    assert "gradient_edges" not in finished and finished["gradients"] == []
    assert "labels" not in finished and len(ax.texts) == 0


def test_node_labels_render_once_and_paste_back():
    trace, _ = small_trace()
    parts = graph_layout(trace)
    image, x, y = render_node_labels(parts, (6, 5), [0.05, 0.05, 0.9, 0.9], dpi=50)
    assert image.dtype == np.uint8 and image.shape[2] == 4 and image[:, :, 3].max() == 255
    assert 0 <= x < 300 and 0 <= y < 250
    fig = Figure(figsize=(6, 5), dpi=50)
    canvas = FigureCanvasAgg(fig)
    fig.add_artist(PastedImage(image, x, y))
    canvas.draw()
    pixels = np.asarray(canvas.buffer_rgba())
    assert (pixels[:, :, :3] < 128).any()          # the text is there


def test_step_panel_names_the_three_kinds_of_argument():
    trace, _ = small_trace()
    index = next(i for i, s in enumerate(trace.steps) if trace.node(s.node).op == "linear")
    fig = Figure(figsize=(6, 6))
    lines = "\n".join(t.get_text() for t in draw_step_panel(fig, trace, index))
    for part in ("1. forward inputs", "2. out", "3. dout = ∂loss/∂out", "grad weight",
                 "def bprop(self, x, weight, bias, out, dout):"):
        assert part in lines
    view = step_view(trace, index)
    assert [a.name for a in view.arguments] == ["x", "weight", "bias"]
    assert view.signature == "bprop(x, weight, bias, out, dout)"
    assert "purple: backward done" in lines                     # the colour legend
    done = draw_step_panel(Figure(figsize=(6, 6)), trace, len(trace.steps), legend=False)
    assert done[0].get_text().startswith("backward finished")


def test_the_legend_lists_only_the_markers_that_are_drawn():
    nb.manual_seed(3)
    model = nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3))
    optimizer = nb.optim.SGD(list(model[0].parameters()), lr=0.1)   # leaves out layer 2
    model(nb.randn(9, 5)).sum().backward()
    fig = Figure(figsize=(12, 4))
    draw_parameters(fig, parameter_report(model, optimizer))
    texts = [t.get_text() for t in fig.texts]
    assert any("not in the optimizer" in t for t in texts)
    assert not any("not in the model" in t or "no gradient" in t or "shared" in t
                   for t in texts)
    healthy = Figure(figsize=(12, 4))
    draw_parameters(healthy, parameter_report(model, nb.optim.SGD(model.parameters(), lr=0.1)))
    assert any(t.get_text().startswith("no markers") for t in healthy.texts)
