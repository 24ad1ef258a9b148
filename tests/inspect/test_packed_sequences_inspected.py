"""A recurrent layer that reads a packed batch, under inspection: data-free shapes and the
summary (the packed data's shapes, the batch sizes each step reads, the states), a clear
error when the lengths are an input without values, and the gradient that reaches each
step (the default loss reads each sequence at its own last step)."""
import numpy as np

import nnbook as nb
from nnbook import nn
from nnbook.errors import InputError
from nnbook.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class Tagger(nn.Module):
    """Packs with fixed lengths inside forward, so shape inference can follow it."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 10, num_layers=2, bidirectional=True)
        self.head = nn.Linear(20, 2)

    def forward(self, x):
        out, (h_n, c_n) = self.lstm(pack_padded_sequence(x, [5, 7, 2, 5],
                                                         enforce_sorted=False))
        out, _ = pad_packed_sequence(out)
        return self.head(out)


class LengthsAsInput(Tagger):
    def forward(self, x, lengths):
        _, (h_n, _) = self.lstm(pack_padded_sequence(x, lengths, enforce_sorted=False))
        return self.head(nb.cat([h_n[-2], h_n[-1]], dim=1))


def test_infer_shapes_shows_the_packed_data_and_what_each_step_reads():
    trace = nb.infer_shapes(Tagger(), (7, 4, 3))
    assert trace.ok and trace.output_shape == (7, 4, 2)
    step = next(s for s in trace if s.layer == "LSTM")
    assert step.input_shapes == ((19, 3),) and step.output_shape == (19, 20)
    assert step.formula == (
        "input packed: 4 sequences of lengths [7, 5, 5, 2] (longest first), "
        "data (N, C) = (19, 3)",
        "step t reads the first batch_sizes[t] rows, batch_sizes = [4, 4, 3, 3, 3, 1, 1]",
        "layer 0, each step and direction: x_t (b_t, 3) @ W_ih^T (3, 4·10) + h_{t-1} "
        "(b_t, 10) @ W_hh^T (10, 4·10) -> (b_t, 40)",
        "layer 1, each step and direction: x_t (b_t, 20) @ W_ih^T (20, 4·10) + h_{t-1} "
        "(b_t, 10) @ W_hh^T (10, 4·10) -> (b_t, 40)",
        "output packed: data (N, dirs·H) = (19, 20)",
        "h_n (num_layers·dirs, B, H) = (4, 4, 10), each sequence's state after its own "
        "last step",
        "c_n (num_layers·dirs, B, H) = (4, 4, 10)",
    )


def test_the_summary_counts_a_packed_layer_like_any_other():
    model = Tagger()
    summary = nb.summary(model, (7, 4, 3))
    row = next(r for r in summary.rows if r.path == "lstm")
    assert row.params == sum(p.numel() for p in model.lstm.parameters())
    assert summary.total_params == sum(p.numel() for p in model.parameters())
    # every step reads only its running sequences: 19 rows in all, not 7 x 4, in each
    # direction, through both layers' W_ih and W_hh
    per_row = 4 * 10 * (3 + 10) + 4 * 10 * (20 + 10)
    assert row.mult_adds == 2 * 19 * per_row


def test_lengths_given_as_an_input_are_refused_with_a_hint_in_a_shape_only_pass():
    trace = nb.infer_shapes(LengthsAsInput(), [(7, 4, 3), (4,)])
    assert not trace.ok and isinstance(trace.error, InputError)
    text = str(trace.error)
    assert text.startswith("nn.utils.rnn.pack_padded_sequence: every length must be at least")
    assert "hint: nb.infer_shapes runs on tensors without values" in text
    model = LengthsAsInput()       # with values the same model runs
    assert model(nb.randn(7, 4, 3), nb.tensor([5, 7, 2, 5])).shape == (4, 2)


def test_the_gradient_over_time_of_a_packed_batch_starts_at_each_sequences_last_step(rng):
    layer = nn.GRU(3, 4, bidirectional=True)
    x = nb.tensor(rng.standard_normal((7, 4, 3)).astype(np.float32))
    record = nb.inspect.gradients_over_time(layer, pack_padded_sequence(x, [7, 5, 5, 2]))
    forward, backward = record.norms["layer 0"], record.norms["layer 0 reverse"]
    assert len(forward) == len(backward) == 7 and all(v > 0 for v in forward)
    # going backward, step t is the first step of a sequence ending at t: only the steps
    # where a sequence ends (1, 4, 6) are read by the loss, and nothing reaches the others
    assert [t for t, v in enumerate(backward) if v > 0] == [1, 4, 6]
