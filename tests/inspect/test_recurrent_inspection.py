"""Recurrent layers under inspection: data-free shapes (per step and of the states), the
summary's counts, and the gradient that reaches each time step."""
import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import InputError


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(5, 10, num_layers=2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(20, 3)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1])


def test_infer_shapes_shows_each_steps_shapes_and_the_states():
    trace = nb.infer_shapes(Classifier(), (3, 7, 5))
    assert trace.ok and trace.output_shape == (3, 3)
    step = next(s for s in trace if s.layer == "GRU")
    assert step.path == "rnn" and step.output_shape == (3, 7, 20)
    assert step.formula == (
        "input read as (B, T, C) = (3, 7, 5) (batch_first=True): 7 steps",
        "layer 0, each step and direction: x_t (3, 5) @ W_ih^T (5, 3·10) + h_{t-1} (3, 10) "
        "@ W_hh^T (10, 3·10) -> gates (3, 30)",
        "layer 1, each step and direction: x_t (3, 20) @ W_ih^T (20, 3·10) + h_{t-1} (3, 10) "
        "@ W_hh^T (10, 3·10) -> gates (3, 30)",
        "h_t = (1 - z)·n + z·h_{t-1} (3, 10)",
        "output (B, T, dirs·H) = (3, 7, 20)",
        "h_n (num_layers·dirs, B, H) = (4, 3, 10)",
    )


@pytest.mark.parametrize("shape,lines", [
    ((7, 5), ["input read as (T, C) = (7, 5) (one sequence, unbatched): 7 steps",
              "output (T, dirs·H) = (7, 4)", "h_n (num_layers·dirs, H) = (1, 4)",
              "c_n (num_layers·dirs, H) = (1, 4)"]),
    ((7, 3, 5), ["c_t = f·c_{t-1} + i·g (3, 4);  h_t = o·tanh(c_t) (3, 4)",
                 "output (T, B, dirs·H) = (7, 3, 4)", "c_n (num_layers·dirs, B, H) = (1, 3, 4)"]),
])
def test_lstm_states_unbatched_and_batched(shape, lines):
    step = nb.infer_shapes(nn.LSTM(5, 4), shape)[0]
    assert all(line in step.formula for line in lines), step.formula


def test_shapes_need_no_data_even_for_a_huge_input():
    # (T, B, C) = (100000, 512, 5) would take gigabytes; the shape pass allocates none
    trace = nb.infer_shapes(nn.LSTM(5, 64, num_layers=3), (100_000, 512, 5))
    assert trace.output_shape == (100_000, 512, 64)
    assert "h_n (num_layers·dirs, B, H) = (3, 512, 64)" in trace[0].formula


def test_a_mismatch_is_found_without_data_and_named():
    trace = nb.infer_shapes(Classifier(), (3, 7, 4))
    assert not trace.ok and trace[-1].path == "rnn"
    assert "expects input with 5 features in its last dimension, got 4" in str(trace.error)


def test_cells_show_one_step():
    step = nb.infer_shapes(nn.LSTMCell(5, 10), (3, 5))[0]
    assert step.formula == ("x (3, 5) @ W_ih^T (5, 4·10) + h (3, 10) @ W_hh^T (10, 4·10) -> "
                            "gates (3, 40)", "c' = f·c + i·g (3, 10);  h' = o·tanh(c') (3, 10)")


def test_the_summary_counts_both_matrix_products_of_every_step():
    s = nb.summary(nn.LSTM(5, 10, num_layers=2, bidirectional=True), (7, 3, 5))
    assert s.total_params == sum(p.numel() for p in
                                 nn.LSTM(5, 10, num_layers=2, bidirectional=True).parameters())
    # per step, sample and direction: 4H gates from the input (5, then 20 wide) and from h (10)
    assert s.total_mult_adds == 7 * 3 * 2 * 40 * ((5 + 10) + (20 + 10))


# ------------------------------------------------------------------ gradients over time

def sequence(seed, steps=25):
    rng = np.random.default_rng(seed)
    return nb.tensor(rng.standard_normal((steps, 3, 5)).astype(np.float32))


def test_a_tanh_rnn_with_small_weights_loses_its_gradient_going_back_in_time():
    nb.manual_seed(31)
    rnn = nn.RNN(5, 16)
    with nb.no_grad():
        for p in rnn.parameters():
            p.mul_(0.3)
    trace = nb.inspect.gradients_over_time(rnn, sequence(31))
    norms = np.array(trace.norms["layer 0"])
    assert len(norms) == 25
    assert np.all(np.diff(norms) > 0)          # shrinking at every step back
    assert trace.ratio() < 1e-8
    assert all(p.grad is None for p in rnn.parameters())   # .grad untouched


def test_an_lstm_keeps_its_gradient_larger_than_a_tanh_rnn():
    nb.manual_seed(32)
    x = sequence(32)
    rnn, lstm = nn.RNN(5, 16), nn.LSTM(5, 16)
    with nb.no_grad():
        for p in rnn.parameters():
            p.mul_(0.3)
        lstm.bias_hh_l0[16:32] = 3.0            # forget gates open: c carries the gradient
    rnn_ratio = nb.inspect.gradients_over_time(rnn, x).ratio()
    lstm_ratio = nb.inspect.gradients_over_time(lstm, x).ratio()
    assert lstm_ratio > 1e-2 and lstm_ratio > 1e4 * rnn_ratio


def test_every_layer_and_direction_inside_a_model_is_recorded():
    model = Classifier()
    x = nb.tensor(np.random.default_rng(33).standard_normal((3, 7, 5)).astype(np.float32))
    trace = nb.inspect.gradients_over_time(model, x, loss_fn=lambda out: out.sum())
    assert list(trace.norms) == ["rnn: layer 0", "rnn: layer 0 reverse", "rnn: layer 1",
                                 "rnn: layer 1 reverse"]
    # the head reads the last step only: in layer 1 the forward direction's gradient
    # enters at the last step, the reverse direction's at its first computed step (t = 6)
    assert all(len(v) == 7 and all(n >= 0 for n in v) for v in trace.norms.values())
    assert trace.norms["rnn: layer 1 reverse"][:6] == (0.0,) * 6
    assert trace.norms["rnn: layer 1"][0] > 0
    assert "rnn: layer 0" in str(trace)


def test_the_record_matches_retain_grad_on_the_step_loop():
    nb.manual_seed(34)
    cell, x = nn.RNNCell(5, 6), sequence(34, steps=6)
    layer = nn.RNN(5, 6)
    layer.load_state_dict({k + "_l0": v for k, v in cell.state_dict().items()})
    trace = nb.inspect.gradients_over_time(layer, x)
    h, hs = None, []
    for x_t in x.unbind(0):
        h = cell(x_t, h)
        h.retain_grad()
        hs.append(h)
    h.sum().backward()
    np.testing.assert_allclose(trace.norms["layer 0"],
                               [np.linalg.norm(s.grad.numpy()) for s in hs], rtol=1e-5)


def test_a_model_without_a_recurrent_layer_or_loss_is_refused():
    with pytest.raises(InputError, match=r"needs a loss_fn for a Linear"):
        nb.inspect.gradients_over_time(nn.Linear(5, 3), sequence(35))
    with pytest.raises(InputError, match=r"Linear ran no recurrent layer"):
        nb.inspect.gradients_over_time(nn.Linear(5, 3), sequence(35), lambda out: out.sum())
