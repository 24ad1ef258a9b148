"""The ShapeStepper's steps of a recurrent layer that reads a packed batch: its steps have
no one shape (step t reads batch_sizes[t] rows), so it stays one step with its packed
formula instead of being expanded as if its packed data were one long sequence."""
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence  # noqa: E402
from nnbook.widgets.sequence_steps import expand_trace  # noqa: E402


class Tagger(nn.Module):
    def __init__(self, packed):
        super().__init__()
        self.packed = packed
        self.gru = nn.GRU(3, 6)

    def forward(self, x):
        if not self.packed:
            return self.gru(x)[0]
        out, _ = self.gru(pack_padded_sequence(x, [7, 5, 2]))
        return pad_packed_sequence(out)[0]


def test_a_packed_recurrent_layer_stays_one_step_with_its_packed_formula():
    packed, _ = expand_trace(Tagger(packed=True), (7, 3, 3))
    steps = [s for s in packed.steps if s.path == "gru"]
    assert len(steps) == 1
    assert steps[0].formula[0].startswith("input packed: 3 sequences of lengths [7, 5, 2]")
    padded, _ = expand_trace(Tagger(packed=False), (7, 3, 3))   # unpacked: expanded
    assert [s.layer for s in padded.steps if s.path == "gru"][0] == "time step t"
    assert nb.infer_shapes(Tagger(packed=True), (7, 3, 3)).ok
