"""Packed sequences without PyTorch: a recurrent layer on a packed batch computes, for every
sequence, what it computes on that sequence alone (so padding never reaches the state, and
the backward direction starts at each sequence's own last step); packing, unpacking and
padding pass gradients (gradcheck); PackedSequence behaves as a named tuple; DataParallel
runs the module it wraps."""
import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.autograd import gradcheck
from nnbook.nn.utils.rnn import (
    PackedSequence,
    invert_permutation,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)

LENGTHS = [5, 2, 7, 5]   # unsorted, with a tie


def sequences(rng, features=3, lengths=LENGTHS, requires_grad=False):
    return [nb.tensor(rng.standard_normal((n, features)), requires_grad=requires_grad)
            for n in lengths]


@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_each_packed_sequence_is_computed_as_if_it_ran_alone(mode, bidirectional,
                                                             batch_first, rng):
    layer = getattr(nn, mode)(3, 10, num_layers=2, bidirectional=bidirectional,
                              batch_first=batch_first, dtype=nb.float64)
    seqs = sequences(rng)
    padded = pad_sequence(seqs, batch_first=batch_first, padding_value=9.0)
    output, final = layer(pack_padded_sequence(padded, LENGTHS, batch_first,
                                               enforce_sorted=False))
    out, lengths = pad_packed_sequence(output, batch_first)
    assert lengths.tolist() == LENGTHS
    h_n = final[0] if mode == "LSTM" else final
    for i, seq in enumerate(seqs):
        alone, alone_final = layer(seq)            # unbatched (L, C): no padding at all
        mine = out[i] if batch_first else out[:, i]
        np.testing.assert_allclose(mine[:LENGTHS[i]].numpy(force=True),
                                   alone.numpy(force=True), rtol=1e-12, atol=1e-12)
        assert (mine[LENGTHS[i]:].numpy(force=True) == 0).all()   # padded with zeros
        alone_h = alone_final[0] if mode == "LSTM" else alone_final
        np.testing.assert_allclose(h_n[:, i].numpy(force=True), alone_h.numpy(force=True),
                                   rtol=1e-12, atol=1e-12)


def test_the_gradient_of_a_sequence_does_not_depend_on_the_others(rng):
    layer = nn.LSTM(3, 4, bidirectional=True, dtype=nb.float64)
    seqs = sequences(rng, requires_grad=True)
    _, (h_n, _) = layer(pack_sequence(seqs, enforce_sorted=False))
    h_n[:, 1].sum().backward()
    assert all((s.grad.numpy() == 0).all() for k, s in enumerate(seqs) if k != 1)
    alone = seqs[1].detach().requires_grad_()
    layer(alone)[1][0].sum().backward()
    np.testing.assert_allclose(seqs[1].grad.numpy(), alone.grad.numpy(), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("mode", ["RNN", "GRU"])
def test_initial_states_are_given_in_the_callers_order(mode, rng):
    layer = getattr(nn, mode)(3, 4, dtype=nb.float64)
    seqs = sequences(rng)
    h0 = nb.tensor(rng.standard_normal((1, 4, 4)))
    _, h_n = layer(pack_sequence(seqs, enforce_sorted=False), h0)
    for i, seq in enumerate(seqs):
        alone = layer(seq, h0[:, i])[1][0]
        np.testing.assert_allclose(h_n[0, i].numpy(force=True), alone.numpy(force=True),
                                   rtol=1e-12, atol=1e-12)


def test_packing_a_sorted_batch_keeps_its_order_and_counts_the_running_sequences(rng):
    x = nb.tensor(rng.standard_normal((7, 4, 2)))
    packed = pack_padded_sequence(x, [7, 5, 5, 2])
    assert packed.batch_sizes.tolist() == [4, 4, 3, 3, 3, 1, 1]
    assert packed.sorted_indices is None and packed.unsorted_indices is None
    np.testing.assert_array_equal(packed.data[:4].numpy(), x[0].numpy())   # step 0 of all
    np.testing.assert_array_equal(packed.data[8:11].numpy(), x[2, :3].numpy())
    np.testing.assert_array_equal(packed.data[-1].numpy(), x[6, 0].numpy())


def test_packing_sorts_longest_first_and_keeps_ties_in_order(rng):
    packed = pack_sequence(sequences(rng), enforce_sorted=False)
    assert packed.sorted_indices.tolist() == [2, 0, 3, 1]
    assert packed.unsorted_indices.tolist() == [1, 3, 0, 2]
    assert invert_permutation(nb.tensor([2, 0, 3, 1])).tolist() == [1, 3, 0, 2]
    assert invert_permutation(None) is None


def test_unpacking_and_unpadding_give_the_sequences_back(rng):
    seqs = sequences(rng)
    for back in (unpack_sequence(pack_sequence(seqs, enforce_sorted=False)),
                 unpad_sequence(pad_sequence(seqs), LENGTHS),
                 unpad_sequence(pad_sequence(seqs, batch_first=True), nb.tensor(LENGTHS),
                                batch_first=True)):
        for s, b in zip(seqs, back):
            np.testing.assert_array_equal(s.numpy(), b.numpy())


def test_padding_on_the_left_puts_each_sequence_at_the_end(rng):
    seqs = sequences(rng)
    padded = pad_sequence(seqs, batch_first=True, padding_value=-1.0, padding_side="left")
    assert padded.shape == (4, 7, 3)
    np.testing.assert_array_equal(padded[1, -2:].numpy(), seqs[1].numpy())
    assert (padded[1, :-2].numpy() == -1).all()
    assert pad_sequence(nb.zeros(3, 4, 2)).shape == (4, 3, 2)   # a tensor: its rows


def test_packing_padding_and_unpacking_pass_gradients(rng):
    seqs = sequences(rng, lengths=[3, 1, 2], features=2, requires_grad=True)

    def round_trip(*seqs):
        padded = pad_sequence(list(seqs), batch_first=True, padding_side="left")
        packed = pack_padded_sequence(padded, [3, 1, 2], True, enforce_sorted=False)
        out, _ = pad_packed_sequence(packed, total_length=4, padding_value=0.5)
        return out * out

    assert gradcheck(round_trip, seqs)


def test_a_packed_sequence_is_a_named_tuple_that_converts_its_data(rng):
    packed = pack_sequence(sequences(rng), enforce_sorted=False)
    data, batch_sizes, sorted_indices, unsorted_indices = packed
    assert packed._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    assert PackedSequence(tuple(packed)).data is data
    assert PackedSequence(data, batch_sizes, sorted_indices).unsorted_indices.tolist() == \
        unsorted_indices.tolist()
    single = packed.float()
    assert single.data.dtype == nb.float32 and single.batch_sizes is batch_sizes
    assert packed.double() is packed and packed.to("cpu") is packed
    assert not packed.is_cuda and not packed.is_pinned() and packed.pin_memory() is packed
    with pytest.raises(nb.ArgumentError, match="pack_padded_sequence"):
        PackedSequence([1.0, 2.0], [1, 1])


def test_the_sequence_ops_and_the_packed_loop_agree_on_full_lengths(rng):
    """All lengths equal: packing changes nothing but the path the layer takes."""
    layer = nn.LSTM(3, 5, num_layers=2, bidirectional=True, dtype=nb.float64)
    x = nb.tensor(rng.standard_normal((6, 3, 3)))
    out, (h, c) = layer(x)
    packed_out, (ph, pc) = layer(pack_padded_sequence(x, [6, 6, 6]))
    padded, _ = pad_packed_sequence(packed_out)
    for a, b in ((out, padded), (h, ph), (c, pc)):
        np.testing.assert_allclose(a.numpy(force=True), b.numpy(force=True), rtol=1e-10,
                                   atol=1e-12)


# ---------------------------------------------------------------------------
# DataParallel
# ---------------------------------------------------------------------------

class TwoInputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x, scale=1.0):
        return self.fc(x) * scale


def test_data_parallel_passes_calls_through_and_prefixes_the_state_dict(rng):
    inner = TwoInputs()
    model = nn.DataParallel(inner)
    assert model.module is inner and model.device_ids == []
    assert list(model.state_dict()) == ["module.fc.weight", "module.fc.bias"]
    x = nb.tensor(rng.standard_normal((3, 4)).astype(np.float32))
    np.testing.assert_array_equal(model(x, scale=2.0).numpy(force=True),
                                  (inner(x) * 2).numpy(force=True))
    model.eval()
    assert not inner.training
    assert [p is q for p, q in zip(model.parameters(), inner.parameters())] == [True, True]
