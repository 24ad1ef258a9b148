"""nn.RNN, nn.LSTM, nn.GRU and their cells against PyTorch's, weights loaded across by
state_dict: outputs, final states and every gradient in float64 on odd sizes (T=7, input 5,
hidden 10, batch 3, two layers, both directions), by the fast ops and by the step loop."""
import contextlib

import numpy as np
import pytest

import nnbook as nb
from nnbook import nn

torch = pytest.importorskip("torch")

T, B, C, H = 7, 3, 5, 10

LAYERS = [  # (nnbook class, torch class, extra arguments)
    (nn.RNN, torch.nn.RNN, {}),
    (nn.RNN, torch.nn.RNN, {"nonlinearity": "relu"}),
    (nn.LSTM, torch.nn.LSTM, {}),
    (nn.GRU, torch.nn.GRU, {}),
]
IDS = ["rnn_tanh", "rnn_relu", "lstm", "gru"]


def twins(ours, theirs, *args, **kwargs):
    """An nnbook module in float64 and a PyTorch one holding the same weights."""
    model = ours(*args, dtype=nb.float64, **kwargs)
    other = theirs(*args, dtype=torch.float64, **kwargs)
    other.load_state_dict({k: torch.tensor(v.numpy()) for k, v in model.state_dict().items()})
    return model, other


def as_pair(value, lib):
    """(nnbook tensors or arrays) -> the same in torch, for h0 or (h0, c0)."""
    if isinstance(value, tuple):
        return tuple(as_pair(v, lib) for v in value)
    return nb.tensor(value, requires_grad=True) if lib == "nb" else \
        torch.tensor(value, requires_grad=True)


def flat(out):
    """output, h_n or (output, (h_n, c_n)) -> a flat list of tensors."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flat(o)]
    return [out]


def compare(model, other, x, state=None, rng=None):
    """Forward both, backward a random weighting of every output, compare everything."""
    xs = nb.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    states = (None, None) if state is None else (as_pair(state, "nb"), as_pair(state, "torch"))
    ours = flat(model(xs[0]) if state is None else model(xs[0], states[0]))
    theirs = flat(other(xs[1]) if state is None else other(xs[1], states[1]))
    assert [tuple(t.shape) for t in ours] == [tuple(t.shape) for t in theirs]
    weights = [rng.standard_normal(tuple(t.shape)) for t in theirs]
    sum(map(lambda t, w: (t * nb.tensor(w)).sum(), ours, weights)).backward()
    sum(map(lambda t, w: (t * torch.tensor(w)).sum(), theirs, weights)).backward()
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)
    leaves = [(xs[0], xs[1])] + ([] if state is None else list(zip(flat(states[0]),
                                                                   flat(states[1]))))
    for (_name, p), q in zip(model.named_parameters(), other.parameters()):
        leaves.append((p, q))
    for a, b in leaves:
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("reference", [False, True], ids=["sequence_ops", "step_loop"])
@pytest.mark.parametrize("ours,theirs,kw", LAYERS, ids=IDS)
def test_two_layers_both_directions_match_pytorch(ours, theirs, kw, reference):
    rng = np.random.default_rng(11)
    model, other = twins(ours, theirs, C, H, num_layers=2, bidirectional=True, **kw)
    with nb.reference_ops() if reference else contextlib.nullcontext():
        compare(model, other, rng.standard_normal((T, B, C)), rng=rng)


@pytest.mark.parametrize("ours,theirs,kw", LAYERS, ids=IDS)
def test_batch_first_with_initial_states_matches_pytorch(ours, theirs, kw):
    rng = np.random.default_rng(12)
    model, other = twins(ours, theirs, C, H, num_layers=2, batch_first=True, **kw)
    h0 = rng.standard_normal((2, B, H))
    state = (h0, rng.standard_normal((2, B, H))) if ours is nn.LSTM else h0
    compare(model, other, rng.standard_normal((B, T, C)), state, rng=rng)


@pytest.mark.parametrize("ours,theirs,kw", LAYERS, ids=IDS)
def test_one_unbatched_sequence_without_bias_matches_pytorch(ours, theirs, kw):
    rng = np.random.default_rng(13)
    model, other = twins(ours, theirs, C, H, bias=False, bidirectional=True, **kw)
    h0 = rng.standard_normal((2, H))
    state = (h0, rng.standard_normal((2, H))) if ours is nn.LSTM else h0
    compare(model, other, rng.standard_normal((T, C)), state, rng=rng)
    compare(model, other, rng.standard_normal((T, C)), rng=rng)


def test_lstm_with_a_projection_matches_pytorch():
    rng = np.random.default_rng(14)
    model, other = twins(nn.LSTM, torch.nn.LSTM, C, H, num_layers=2, proj_size=4,
                         bidirectional=True)
    state = (rng.standard_normal((4, B, 4)), rng.standard_normal((4, B, H)))
    compare(model, other, rng.standard_normal((T, B, C)), state, rng=rng)


CELLS = [
    (nn.RNNCell, torch.nn.RNNCell, {}),
    (nn.RNNCell, torch.nn.RNNCell, {"nonlinearity": "relu"}),
    (nn.LSTMCell, torch.nn.LSTMCell, {}),
    (nn.GRUCell, torch.nn.GRUCell, {}),
]


@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("ours,theirs,kw", CELLS, ids=IDS)
def test_cells_match_pytorch(ours, theirs, kw, batched):
    rng = np.random.default_rng(15)
    model, other = twins(ours, theirs, C, H, **kw)
    lead = (B,) if batched else ()
    h = rng.standard_normal(lead + (H,))
    state = (h, rng.standard_normal(lead + (H,))) if ours is nn.LSTMCell else h
    compare(model, other, rng.standard_normal(lead + (C,)), state, rng=rng)
    compare(model, other, rng.standard_normal(lead + (C,)), rng=rng)


@pytest.mark.parametrize("ours,theirs,kw", LAYERS + CELLS, ids=IDS + [i + "_cell" for i in IDS])
def test_names_shapes_and_printing_are_pytorchs(ours, theirs, kw):
    args = (C, H) if "Cell" in ours.__name__ else (C, H, 3)
    more = {} if "Cell" in ours.__name__ else {"bidirectional": True, "batch_first": True,
                                                "dropout": 0.25}
    model, other = ours(*args, **kw, **more), theirs(*args, **kw, **more)
    assert [(k, tuple(v.shape)) for k, v in model.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in other.state_dict().items()]
    assert repr(model) == repr(other)
    assert repr(ours(*args, bias=False)) == repr(theirs(*args, bias=False))


@pytest.mark.parametrize("ours,theirs,kw", LAYERS, ids=IDS)
def test_dropout_acts_between_layers_while_training_only(ours, theirs, kw):
    rng = np.random.default_rng(16)
    x = rng.standard_normal((T, B, C))
    model, other = twins(ours, theirs, C, H, num_layers=2, dropout=0.5, **kw)
    model.eval(), other.eval()
    compare(model, other, x, rng=rng)                    # eval: no dropout, as PyTorch
    model.train()
    plain = ours(C, H, num_layers=2, dtype=nb.float64, **kw)
    plain.load_state_dict(model.state_dict())
    with nb.no_grad():
        out, final = model(nb.tensor(x))
        ref, ref_final = plain(nb.tensor(x))
    first = (lambda s: s[0]) if ours is nn.LSTM else (lambda s: s)
    # layer 0 reads the input undropped, so its final states agree; layer 1 reads a
    # dropped-out layer 0, so its outputs differ
    np.testing.assert_allclose(first(final)[0].numpy(), first(ref_final)[0].numpy(), rtol=1e-12)
    assert not np.allclose(out.numpy(), ref.numpy())


@pytest.mark.parametrize("ours,theirs,kw", LAYERS, ids=IDS)
def test_default_init_is_uniform_within_one_over_sqrt_hidden(ours, theirs, kw):
    nb.manual_seed(17)
    model = ours(C, 40, num_layers=2, **kw)
    bound = 1 / np.sqrt(40)
    values = np.concatenate([p.detach().numpy().ravel() for p in model.parameters()])
    assert np.abs(values).max() <= bound
    assert np.abs(values).max() > 0.95 * bound            # spread over the whole range
    assert abs(values.mean()) < 0.05 * bound and abs(values.std() - bound / np.sqrt(3)) < \
        0.05 * bound


@pytest.mark.parametrize("ours,theirs,kw", LAYERS, ids=IDS)
def test_an_output_changed_in_place_still_gets_pytorchs_gradients(ours, theirs, kw):
    """The sequence ops keep what their backward reads, so the output may be changed in
    place (as PyTorch allows: its float32 LSTM alone refuses, see docs/pytorch.md)."""
    rng = np.random.default_rng(16)
    model, other = twins(ours, theirs, C, H, bidirectional=True, **kw)
    x = rng.standard_normal((T, B, C))
    outs = flat(model(nb.tensor(x))), flat(other(torch.tensor(x)))
    for ours_out, theirs_out in zip(*outs):
        ours_out.mul_(2)
        theirs_out.mul_(2)
    sum(t.sum() for t in outs[0]).backward()
    sum(t.sum() for t in outs[1]).backward()
    for p, q in zip(model.parameters(), other.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_a_float32_lstm_output_changed_in_place_refused_by_pytorch_is_allowed_here():
    """The difference docs/pytorch.md lists: PyTorch's float32 LSTM refuses; nnbook's gives
    the gradients PyTorch's float64 LSTM gives."""
    rng = np.random.default_rng(17)
    model, other = twins(nn.LSTM, torch.nn.LSTM, C, H)
    x = rng.standard_normal((T, B, C))
    out32 = other.float()(torch.tensor(x, dtype=torch.float32))[0]
    out32.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out32.sum().backward()
    other.double().zero_grad()
    ours, theirs = model.float()(nb.tensor(x).float())[0], other(torch.tensor(x))[0]
    ours.mul_(2)
    theirs.mul_(2)
    ours.sum().backward()
    theirs.sum().backward()
    for p, q in zip(model.parameters(), other.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-5)
