"""Records of real passes, gradient statistics, and errors that point at the user's code."""
import numpy as np
import pytest

import nnbook as nb
from nnbook import context, nn
from nnbook.autograd import engine


def small_graph():
    rng = np.random.default_rng(5)
    x = nb.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    w = nb.tensor(rng.standard_normal((5, 3)), requires_grad=True)
    return x, w


def test_trace_backward_runs_in_engine_order_with_autograd_gradients():
    x, w = small_graph()
    h = (x @ w).tanh()
    loss = (h * h).mean()
    trace = nb.inspect.trace_backward(loss)
    assert x.grad is None and w.grad is None  # nothing accumulated
    order = list(reversed(engine.topological_order([loss.grad_fn])))
    assert [s.op for s in trace.steps] == [op.name for op in order] == \
        ["mean", "mul", "tanh", "matmul"]
    # printed, the steps count from 1 (as the stepper and its picture count them)
    numbers = [line.split(".")[0].strip() for line in str(trace).splitlines()[1:]]
    assert numbers == ["1", "2", "3", "4"] and [s.order for s in trace.steps] == [0, 1, 2, 3]
    loss.backward(retain_graph=True)  # the graph is traced again below
    leaf = {name: g for name, _, g in trace.leaf_grads}
    assert len(trace.leaf_grads) == 2
    grads = [g for _, _, g in trace.leaf_grads]
    np.testing.assert_allclose(grads[0], x.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(grads[1], w.grad.numpy(), rtol=1e-12)
    assert set(leaf) == {"input 0", "input 1"}  # two tensors, two names
    # every step: the incoming dout and the gradients it sends, with norms
    mm = trace.steps[-1]
    assert mm.dout.shape == (7, 3) and [g.shape for g in mm.grads] == [(7, 5), (5, 3)]
    assert mm.grad_norms[0] == pytest.approx(np.linalg.norm(x.grad.numpy()))
    node = trace.node(mm.node)
    assert node.op == "matmul" and node.inputs == (("leaf", "input 0"), ("leaf", "input 1"))
    named = nb.inspect.trace_backward(loss, {"x": x, "w": w})
    assert named.node(named.steps[-1].node).inputs == (("leaf", "x"), ("leaf", "w"))
    assert trace.node(trace.steps[0].node).out.shape == ()
    assert "mean" in str(trace)


def test_record_lists_module_calls_graph_sites_and_gradient_stats():
    nb.manual_seed(2)
    model = nn.Sequential(nn.Linear(5, 4), nn.ReLU(), nn.Linear(4, 2))
    x = nb.randn(7, 5)
    y = nb.tensor([0, 1, 1, 0, 1, 0, 0])
    with nb.inspect.record(model) as rec:
        loss = nn.CrossEntropyLoss()(model(x), y)
        loss.backward()
    assert [(c.path, c.layer) for c in rec.calls] == [
        ("0", "Linear"),
        ("1", "ReLU"),
        ("2", "Linear"),
        ("", "Sequential"),
        ("", "CrossEntropyLoss"),
    ]
    assert rec.calls[0].input_shapes == ((7, 5),) and rec.calls[2].output_shape == (7, 2)
    ops = [n.op for n in rec.graph]
    assert ops == ["linear", "relu", "linear", "cross_entropy"]
    first = rec.graph[0]
    assert first.layer == "0 (Linear)" and first.inputs[1] == ("leaf", "0.weight")
    assert first.site is not None and "model(x)" in first.site
    assert [s.op for s in rec.backward] == ["cross_entropy", "linear", "relu", "linear"]
    stats = {s.path: s for s in rec.gradients}
    assert set(stats) == {"0.weight", "0.bias", "2.weight", "2.bias"}
    w = model[0].weight.grad.numpy()
    # the statistics are computed in float64, so the reference is too (a float32 norm is
    # summed by the BLAS kernel, in an order that depends on the CPU)
    assert stats["0.weight"].norm == pytest.approx(np.linalg.norm(w.astype(np.float64)), rel=1e-9)
    assert stats["0.weight"].zero_fraction == pytest.approx(float((w == 0).mean()))
    assert "0.weight" in str(rec)


def test_recording_is_off_by_default_and_leaves_no_hooks():
    with nb.inspect.record():
        pass
    assert context.observers == []
    y = nb.ones(2, requires_grad=True) * 2
    assert "site" not in y.grad_fn.__dict__  # no bookkeeping outside recordings


def test_gradient_history_collects_statistics_over_steps():
    nb.manual_seed(3)
    model = nn.Sequential(nn.Linear(3, 8), nn.Sigmoid(), nn.Linear(8, 1))
    opt = nb.optim.SGD(model.parameters(), lr=0.1)
    history = nb.inspect.GradientHistory(model)
    x, y = nb.randn(16, 3), nb.randn(16, 1)
    for _ in range(4):
        opt.zero_grad()
        nn.MSELoss()(model(x), y).backward()
        history.record()
        opt.step()
    assert len(history) == 4 and history.paths == ["0.weight", "0.bias", "2.weight", "2.bias"]
    norms = history.series("2.weight", "norm")
    assert norms.shape == (4,) and norms[-1] == pytest.approx(
        np.linalg.norm(model[2].weight.grad.numpy().astype(np.float64)), rel=1e-9)
    assert "2.weight" in str(history)


def test_parameter_without_gradient_is_reported():
    model = nn.Sequential(nn.Linear(3, 2), nn.Linear(3, 2))
    model[0](nb.randn(4, 3)).sum().backward()
    stats = {s.path: s for s in nb.inspect.gradient_stats(model)}
    assert stats["0.weight"].has_grad and not stats["1.weight"].has_grad


def test_detect_anomaly_names_the_op_and_the_line():
    x = nb.tensor([1.0, 0.0, 2.0], requires_grad=True)
    with pytest.raises(nb.AnomalyError) as info:
        with nb.detect_anomaly():
            (x * 1).log()  # log(0)
    text = str(info.value)
    assert "the forward of log produced -inf" in text
    assert "test_inspect_records.py" in text and "(x * 1).log()  # log(0)" in text
    assert "hint:" in text


def test_detect_anomaly_in_backward_names_the_layer():
    class Root(nn.Module):
        def forward(self, x):
            return x.sqrt()
    model = nn.Sequential(nn.Identity(), Root())
    x = nb.tensor([4.0, 0.0], requires_grad=True)
    with nb.detect_anomaly():
        out = model(x).sum()
        with pytest.raises(nb.AnomalyError) as info:
            out.backward()
    text = str(info.value)
    assert "the backward of sqrt in 1 (Root) produced inf" in text
    assert "return x.sqrt()" in text  # the user's line that created the node


def test_forward_error_names_layer_path_and_op():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(nb.randn(4, 3))

        def forward(self, x):
            return x @ self.w

    model = nn.Sequential(nn.Linear(2, 5), Net())
    with pytest.raises(nb.ShapeError) as info:
        model(nb.randn(6, 2))
    text = str(info.value)
    assert text.startswith("1 (Net), in matmul: inner dimensions differ")
    assert "return x @ self.w" in text  # the innermost user line


def test_a_layer_with_several_outputs_records_the_shape_of_each():
    class Recurrent(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm, self.gru = nn.LSTM(3, 5, num_layers=2), nn.GRU(5, 4)

        def forward(self, x):
            y, _ = self.lstm(x)
            return self.gru(y)[0]

    model = Recurrent()
    with nb.inspect.record(model) as rec:
        model(nb.randn(7, 2, 3))
    calls = {c.path: c for c in rec.calls}
    assert calls["lstm"].output_shape == ((7, 2, 5), ((2, 2, 5), (2, 2, 5)))
    assert calls["gru"].output_shape == ((7, 2, 4), (1, 2, 4))
    assert "lstm (LSTM): (7, 2, 3) -> ((7, 2, 5), ((2, 2, 5), (2, 2, 5)))" in str(rec)
