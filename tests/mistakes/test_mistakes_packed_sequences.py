"""Mistakes with padded and packed sequences (nn.utils.rnn) and the recurrent layers that
read them.

See catalogue.py for what every entry is checked for (the error class and its builtin, the
four parts of the message, the user's line, and parameters, buffers and flags unchanged).
"""
import pytest
from catalogue import check, mistake

import nnbook as nb
from nnbook import nn
from nnbook.errors import ArgumentError, DTypeError, InputError, ShapeError
from nnbook.nn.utils.rnn import (
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpad_sequence,
)


def padded():
    return nb.randn(7, 4, 3)   # (T, B, C): four sequences of up to 7 steps


def packed():
    return pack_padded_sequence(nb.randn(7, 4, 3), [7, 5, 5, 2])


class Tagger(nn.Module):
    """A model with the LSTM inside, so messages carry its path."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.LSTM(3, 10, num_layers=2)

    def forward(self, x, state=None):
        return self.encoder(x, state)


PACKING = [
    mistake("lengths not sorted with enforce_sorted=True", padded,
            lambda x: pack_padded_sequence(x, [5, 7, 5, 2]),
            InputError, "nn.utils.rnn.pack_padded_sequence",
            r"sorted longest first, got \[5, 7, 5, 2\]", r"enforce_sorted=False"),
    mistake("a sequence of length 0", padded,
            lambda x: pack_padded_sequence(x, [7, 5, 5, 0]),
            InputError, "nn.utils.rnn.pack_padded_sequence",
            r"at least 1, got \[7, 5, 5, 0\]", r"leave empty ones out"),
    mistake("a length longer than the padded sequences", padded,
            lambda x: pack_padded_sequence(x, [8, 5, 5, 2]),
            InputError, "nn.utils.rnn.pack_padded_sequence",
            r"longer than the padded sequences \(7 steps\), got \[8, 5, 5, 2\]",
            r"batch_first=True the steps are dim 1"),
    mistake("batch-first data packed as time-major", lambda: nb.randn(4, 7, 3),
            lambda x: pack_padded_sequence(x, [7, 5, 5, 2]),
            ShapeError, "nn.utils.rnn.pack_padded_sequence",
            r"the batch has 7, got 4 lengths", r"batch_first=True the batch is dim 0"),
    mistake("the lengths as a string", padded,
            lambda x: pack_padded_sequence(x, "7552"),
            DTypeError, "nn.utils.rnn.pack_padded_sequence",
            r"list of ints or a 1-D tensor, got '7552'", r"\[len\(s\) for s in sequences\]"),
    mistake("fractional lengths", padded,
            lambda x: pack_padded_sequence(x, [7, 5.5, 5, 2]),
            DTypeError, "nn.utils.rnn.pack_padded_sequence",
            r"whole numbers of steps, got \[7\.0, 5\.5, 5\.0, 2\.0\]", r"list of ints"),
    mistake("the lengths as a 2-D tensor", padded,
            lambda x: pack_padded_sequence(x, nb.tensor([[7, 5, 5, 2]])),
            ShapeError, "nn.utils.rnn.pack_padded_sequence",
            r"1-D, one per sequence, got shape \(1, 4\)", r"1-D int64 tensor"),
    mistake("one sequence without its batch dimension", lambda: nb.randn(7),
            lambda x: pack_padded_sequence(x, [7]),
            ShapeError, "nn.utils.rnn.pack_padded_sequence",
            r"padded batch \(T, B, \*\).*got 1-D", r"pad_sequence"),
    mistake("the list of sequences packed without padding it", lambda: [nb.randn(3, 2)],
            lambda seqs: pack_padded_sequence(seqs, [3]),
            ArgumentError, "nn.utils.rnn.pack_padded_sequence",
            r"padded batch .* as a tensor, got a list", r"pad_sequence"),
    mistake("pad_packed_sequence with a total_length too short", packed,
            lambda p: pad_packed_sequence(p, total_length=5),
            InputError, "nn.utils.rnn.pad_packed_sequence",
            r"at least the longest sequence's length, 7; got 5", r"total_length=7"),
    mistake("pad_packed_sequence given the padded tensor", padded,
            lambda x: pad_packed_sequence(x),
            ArgumentError, "nn.utils.rnn.pad_packed_sequence",
            r"takes a PackedSequence, got Tensor", r"returns one"),
    mistake("unpad_sequence with one length too few", padded,
            lambda x: unpad_sequence(x, [7, 5, 5]),
            ShapeError, "nn.utils.rnn.unpad_sequence",
            r"the batch has 4, got 3 lengths", r"batch is dim"),
]

PADDING = [
    mistake("sequences with different feature sizes", lambda: [nb.randn(3, 2), nb.randn(4, 3)],
            lambda seqs: pad_sequence(seqs),
            ShapeError, "nn.utils.rnn.pad_sequence",
            r"differ only in their length.*\(3, 2\), \(4, 3\)", r"same shape"),
    mistake("pad_sequence of single numbers", None,
            lambda: pad_sequence([nb.tensor(1.0), nb.tensor(2.0)]),
            ShapeError, "nn.utils.rnn.pad_sequence", r"\(L, \*\), got a single number",
            r"1-D"),
    mistake("pad_sequence of nothing", None, lambda: pad_sequence([]),
            InputError, "nn.utils.rnn.pad_sequence", r"empty list", r"at least one"),
    mistake("pad_sequence with padding_side='both'", lambda: [nb.randn(2)],
            lambda seqs: pad_sequence(seqs, padding_side="both"),
            InputError, "nn.utils.rnn.pad_sequence", r"'left' or 'right', got 'both'",
            r"'right'"),
    mistake("pack_sequence with a list in it", lambda: [nb.randn(2, 3), [1.0, 2.0, 3.0]],
            lambda seqs: pack_sequence(seqs),
            ArgumentError, "nn.utils.rnn.pack_sequence", r"list of tensors, got a list",
            r"nb\.tensor"),
]

LAYERS = [
    mistake("packed data with the wrong number of features",
            lambda: (Tagger(), pack_padded_sequence(nb.randn(7, 4, 5), [7, 5, 5, 2])),
            lambda mx: mx[0](mx[1]),
            ShapeError, "encoder (LSTM)", r"data is \(N, C\) with C = input_size = 3, "
            r"got data of shape \(19, 5\)", r"pack_padded_sequence", also=Tagger.forward),
    mistake("an initial state for another batch size", lambda: (Tagger(), packed()),
            lambda mx: mx[0](mx[1], (nb.zeros(2, 5, 10), nb.zeros(2, 5, 10))),
            ShapeError, "encoder (LSTM)", r"h_0 must have shape .* = \(2, 4, 10\), got "
            r"\(2, 5, 10\).*packed: 4 sequences of up to 7 steps", r"batch is 4",
            also=Tagger.forward),
    mistake("integer data packed into an LSTM",
            lambda: (Tagger(), pack_padded_sequence(nb.zeros(7, 4, 3, dtype=nb.int64),
                                                    [7, 5, 5, 2])),
            lambda mx: mx[0](mx[1]),
            DTypeError, "encoder (LSTM)", r"floating point input.*got int64",
            r"nn\.Embedding", also=Tagger.forward),
    mistake("an LSTM's packed output passed on to Linear",
            lambda: (nn.Linear(10, 2), Tagger()(packed())[0]), lambda mx: mx[0](mx[1]),
            DTypeError, "Linear, in F.linear", r"must be an nnbook Tensor, got a PackedSequence",
            r"pad_packed_sequence\(packed\).*h_n"),
    mistake("DataParallel of something that is not a model", None,
            lambda: nn.DataParallel("model"),
            ArgumentError, "nn.DataParallel", r"wraps a model \(an nn.Module\), got a str",
            r"nn\.DataParallel\(Net\(\)\)"),
]


@pytest.mark.parametrize("m", PACKING + PADDING + LAYERS)
def test_mistake(m, tmp_path):
    check(m, tmp_path)
