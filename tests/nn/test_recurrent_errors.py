"""The mistakes people make with recurrent layers, and the four-part messages they get:
the layer's path, what was expected, what came (the values), and a hint that fixes it."""
import re

import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import ArgumentError, DTypeError, ShapeError


class Tagger(nn.Module):
    """A model with the recurrent layer inside, so messages carry its path."""

    def __init__(self, batch_first=False):
        super().__init__()
        self.encoder = nn.LSTM(5, 10, num_layers=2, batch_first=batch_first)

    def forward(self, x, state=None):
        return self.encoder(x, state)


def data(*shape, seed=0):
    return nb.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def four_parts(error, where, expected, got, hint):
    """The message names the layer, says what it expected and what came, and has a hint."""
    text = str(error)
    assert text.startswith(where + ":"), text
    for part in (expected, got):
        assert re.search(part, text), f"{part!r} not in:\n{text}"
    assert re.search(r"\n  at .*test_recurrent_errors\.py, line \d+", text), text
    hint_line = text.split("\n  hint: ")[1]
    assert re.search(hint, hint_line), f"{hint!r} not in the hint:\n{text}"


def test_wrong_input_size_names_the_layer_the_layout_and_the_fix():
    with pytest.raises(ShapeError) as caught:
        Tagger()(data(7, 3, 4))
    four_parts(caught.value, "encoder (LSTM)", r"expects input with 5 features",
               r"got 4\.\n  input read as \(T, B, C\) = \(7, 3, 4\)", r"LSTM\(4, 10\)")


def test_features_in_dim_1_as_conv1d_keeps_them_get_the_transpose():
    with pytest.raises(ShapeError) as caught:
        Tagger(batch_first=True)(data(3, 5, 7))
    four_parts(caught.value, "encoder (LSTM)", r"expects input with 5 features", r"got 7",
               r"x\.transpose\(1, 2\)")


def test_initial_state_of_the_wrong_layer_count():
    state = (data(3, 3, 10), data(3, 3, 10, seed=1))
    with pytest.raises(ShapeError) as caught:
        Tagger()(data(7, 3, 5), state)
    four_parts(caught.value, "encoder (LSTM)",
               r"h_0 must have shape \(num_layers·num_directions, B, H\) = \(2, 3, 10\)",
               r"got \(3, 3, 10\)", r"num_layers 2 x directions 1 = 2")


def test_a_batch_first_input_to_a_time_major_layer_points_at_batch_first():
    # (B, T, C) = (7, 3, 5) given to a time-major layer: it reads T=7, B=3, so a state
    # built for a batch of 7 does not fit, and the batch's size sits in the input's dim 0
    state = (nb.zeros(2, 7, 10), nb.zeros(2, 7, 10))
    with pytest.raises(ShapeError) as caught:
        Tagger()(data(7, 3, 5), state)
    four_parts(caught.value, "encoder (LSTM)", r"h_0 must have shape .* = \(2, 3, 10\)",
               r"got \(2, 7, 10\)", r"batch_first=True.*x\.transpose\(0, 1\)")


def test_a_batch_first_state_is_refused_with_the_transpose():
    with pytest.raises(ShapeError) as caught:
        nn.GRU(5, 10, batch_first=True)(data(3, 7, 5), nb.zeros(3, 1, 10))
    four_parts(caught.value, "GRU", r"h_0 must have shape .* = \(1, 3, 10\)",
               r"got \(3, 1, 10\)", r"even with batch_first=True: pass h_0\.transpose\(0, 1\)")


def test_a_cell_given_2d_input_of_the_wrong_size():
    with pytest.raises(ShapeError) as caught:
        nn.GRUCell(5, 10)(data(3, 6))
    four_parts(caught.value, "GRUCell", r"expects input with 5 features", r"got 6\.\n  "
               r"input \(3, 6\)   weight_ih \(30, 5\)", r"GRUCell\(6, 10\)")


def test_a_cell_given_a_whole_sequence_is_told_to_loop_or_use_the_layer():
    with pytest.raises(ShapeError) as caught:
        nn.RNNCell(5, 10)(data(7, 3, 5))
    four_parts(caught.value, "RNNCell", r"expects a 2-D input \(B, C\)",
               r"got 3-D with shape \(7, 3, 5\)", r"loop over the sequence.*nn\.RNN")


def test_a_cell_state_for_another_batch():
    with pytest.raises(ShapeError) as caught:
        nn.LSTMCell(5, 10)(data(3, 5), (nb.zeros(4, 10), nb.zeros(3, 10)))
    four_parts(caught.value, "LSTMCell", r"h must have shape \(3, 10\)", r"got \(4, 10\)",
               r"the input's batch is 3")


def test_an_lstm_given_one_state_tensor_asks_for_the_pair():
    with pytest.raises(ArgumentError, match=r"pair \(h_0, c_0\), got one Tensor of shape "
                       r"\(2, 3, 10\)(.|\n)*hint: pass lstm\(x, \(h_0, c_0\)\)"):
        Tagger()(data(7, 3, 5), nb.zeros(2, 3, 10))


def test_token_indices_are_sent_to_an_embedding():
    with pytest.raises(DTypeError, match=r"(?s)floating point input .* got int64 .*"
                       r"hint: token indices go through an embedding first"):
        nn.RNN(5, 10)(nb.randint(0, 9, (7, 3)))


def test_an_error_leaves_the_layer_as_it_was():
    layer = nn.GRU(5, 10)
    before = {k: v.numpy().copy() for k, v in layer.state_dict().items()}
    with pytest.raises(ShapeError):
        layer(data(7, 3, 5), nb.zeros(2, 3, 10))
    assert all(np.array_equal(before[k], v.numpy()) for k, v in layer.state_dict().items())
