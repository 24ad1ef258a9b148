"""Padded and packed sequences against PyTorch: nn.utils.rnn's functions (values, batch
sizes, indices, gradients), nn.RNN/LSTM/GRU on a PackedSequence (the packed output, h_n
and c_n at each sequence's own last step, every gradient) in float64 with weights loaded
across by state_dict, the mistakes PyTorch refuses, and nn.DataParallel without a GPU."""
import inspect
import itertools
import warnings

import numpy as np
import pytest

import nnbook as nb
from nnbook.nn.utils import rnn

torch = pytest.importorskip("torch")
from like_pytorch import outcome, same_failure  # noqa: E402  (needs torch)
from torch.nn.utils import rnn as torch_rnn  # noqa: E402

T, C, H = 7, 3, 10
SORTED, UNSORTED = [7, 5, 5, 2], [5, 2, 7, 5]   # two sequences of one length (a tie)


def leaves(arrays):
    """The same arrays as nnbook and as PyTorch leaves that take gradients."""
    return ([nb.tensor(a, requires_grad=True) for a in arrays],
            [torch.tensor(a, requires_grad=True) for a in arrays])


def values(t):
    return t.detach().numpy()


def backward_both(ours, theirs, rng):
    """Backward a random weighting of every output in both libraries."""
    weights = [rng.standard_normal(tuple(t.shape)) for t in theirs]
    sum((t * nb.tensor(w)).sum() for t, w in zip(ours, weights)).backward()
    sum((t * torch.tensor(w)).sum() for t, w in zip(theirs, weights)).backward()


def assert_close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------------------
# nn.utils.rnn
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["pad_sequence", "pack_padded_sequence",
                                  "pad_packed_sequence", "pack_sequence", "unpack_sequence",
                                  "unpad_sequence", "invert_permutation", "PackedSequence"])
def test_the_functions_take_pytorchs_arguments(name):
    ours, theirs = inspect.signature(getattr(rnn, name)), \
        inspect.signature(getattr(torch_rnn, name))
    assert [(p.name, p.default) for p in ours.parameters.values()] == \
        [(p.name, p.default) for p in theirs.parameters.values()]


def test_data_parallel_takes_pytorchs_arguments():
    ours = inspect.signature(nb.nn.DataParallel.__init__).parameters.values()
    theirs = inspect.signature(torch.nn.DataParallel.__init__).parameters.values()
    assert [(p.name, p.default) for p in ours] == [(p.name, p.default) for p in theirs]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence_values_and_gradients_match_pytorch(batch_first, padding_side, rng):
    ours, theirs = leaves([rng.standard_normal((n, 2, C)) for n in UNSORTED])
    a = rnn.pad_sequence(ours, batch_first, -1.5, padding_side)
    b = torch_rnn.pad_sequence(theirs, batch_first, -1.5, padding_side)
    assert a.shape == tuple(b.shape)
    assert_close(values(a), values(b))
    backward_both([a], [b], rng)
    for x, y in zip(ours, theirs):
        assert_close(x.grad.numpy(), y.grad.numpy())


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths", [SORTED, UNSORTED], ids=["sorted", "unsorted"])
def test_packing_and_unpacking_match_pytorch(batch_first, lengths, rng):
    enforce_sorted = lengths == SORTED
    shape = (len(lengths), T, C) if batch_first else (T, len(lengths), C)
    (x,), (y,) = leaves([rng.standard_normal(shape)])
    ours = rnn.pack_padded_sequence(x, lengths, batch_first, enforce_sorted)
    theirs = torch_rnn.pack_padded_sequence(y, torch.tensor(lengths), batch_first,
                                            enforce_sorted)
    assert_close(values(ours.data), values(theirs.data))
    for mine, its in zip(ours[1:], theirs[1:]):
        assert (mine is None) == (its is None)
        if its is not None:
            np.testing.assert_array_equal(mine.numpy(), its.numpy())
            assert mine.dtype == nb.int64
    a, a_lengths = rnn.pad_packed_sequence(ours, batch_first, 0.25, total_length=T + 2)
    b, b_lengths = torch_rnn.pad_packed_sequence(theirs, batch_first, 0.25, total_length=T + 2)
    assert_close(values(a), values(b))
    np.testing.assert_array_equal(a_lengths.numpy(), b_lengths.numpy())
    backward_both([a], [b], rng)
    assert_close(x.grad.numpy(), y.grad.numpy())   # zero where x is padding


def test_pack_sequence_unpack_and_unpad_match_pytorch(rng):
    ours, theirs = leaves([rng.standard_normal((n, C)) for n in UNSORTED])
    a = rnn.pack_sequence(ours, enforce_sorted=False)
    b = torch_rnn.pack_sequence(theirs, enforce_sorted=False)
    assert_close(values(a.data), values(b.data))
    unpacked = rnn.unpack_sequence(a)
    assert [tuple(s.shape) for s in unpacked] == [tuple(s.shape) for s in
                                                  torch_rnn.unpack_sequence(b)]
    padded = rnn.pad_sequence(ours, batch_first=True)
    torch_padded = torch_rnn.pad_sequence(theirs, batch_first=True)
    pieces = rnn.unpad_sequence(padded, nb.tensor(UNSORTED), batch_first=True)
    torch_pieces = torch_rnn.unpad_sequence(torch_padded, torch.tensor(UNSORTED),
                                            batch_first=True)
    for s, u, p, q in zip(ours, unpacked, pieces, torch_pieces):
        assert_close(values(u), values(s))
        assert_close(values(p), values(q))
    backward_both(unpacked, torch_rnn.unpack_sequence(b), rng)
    for x, y in zip(ours, theirs):
        assert_close(x.grad.numpy(), y.grad.numpy())


def test_a_packed_sequence_converts_and_reads_like_pytorchs(rng):
    x = rng.standard_normal((T, 4, C)).astype(np.float32)
    ours = rnn.pack_padded_sequence(nb.tensor(x), UNSORTED, enforce_sorted=False)
    theirs = torch_rnn.pack_padded_sequence(torch.tensor(x), UNSORTED, enforce_sorted=False)
    assert ours._fields == theirs._fields
    for convert in ("double", "float", "half", "long", "int", "cpu"):
        a, b = getattr(ours, convert)(), getattr(theirs, convert)()
        assert str(a.data.dtype) == str(b.data.dtype).replace("torch.", "")
        np.testing.assert_array_equal(a.batch_sizes.numpy(), b.batch_sizes.numpy())
    assert ours.to(nb.float64).data.dtype == nb.float64
    assert ours.to("cpu") is ours and ours.is_cuda is theirs.is_cuda is False
    rebuilt = rnn.PackedSequence(ours.data, ours.batch_sizes, ours.sorted_indices)
    np.testing.assert_array_equal(rebuilt.unsorted_indices.numpy(),
                                  theirs.unsorted_indices.numpy())


# ---------------------------------------------------------------------------
# The recurrent layers on packed input
# ---------------------------------------------------------------------------

LAYERS = {"rnn": ("RNN", {}), "rnn_relu": ("RNN", {"nonlinearity": "relu"}),
          "lstm": ("LSTM", {}), "gru": ("GRU", {}), "lstm_proj": ("LSTM", {"proj_size": 4})}
CASES = [(name, bidirectional, batch_first, lengths, initial)
         for name, bidirectional, batch_first, lengths, initial in itertools.product(
             LAYERS, [False, True], [False, True], ["sorted", "unsorted"], [False, True])
         if not (name in ("rnn_relu", "lstm_proj") and batch_first)]


def twins(name, bidirectional, batch_first):
    """An nnbook layer in float64 and a PyTorch one holding the same weights."""
    cls, extra = LAYERS[name]
    args = dict(num_layers=2, bidirectional=bidirectional, batch_first=batch_first, **extra)
    ours = getattr(nb.nn, cls)(C, H, dtype=nb.float64, **args)
    theirs = getattr(torch.nn, cls)(C, H, dtype=torch.float64, **args)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    return ours, theirs


def flat(out):
    return [t for o in out for t in flat(o)] if isinstance(out, tuple) else [out]


def compare_on_packed(ours, theirs, lengths, enforce_sorted, steps, initial, rng):
    """Pack the same padded batch for both layers (initial states too, if ``initial``),
    compare the packed and padded outputs and the final states, then every gradient."""
    batch, features = len(lengths), ours.input_size
    stack = ours.num_layers * (2 if ours.bidirectional else 1)
    shape = (batch, steps, features) if ours.batch_first else (steps, batch, features)
    (x,), (y,) = leaves([rng.standard_normal(shape)])
    sizes = [(stack, batch, ours.proj_size or ours.hidden_size)] + \
        [(stack, batch, ours.hidden_size)] * (ours.mode == "LSTM")
    my_state, its_state = leaves([rng.standard_normal(s) for s in sizes]) if initial else ([], [])

    def call(layer, module, x, state):
        packed = module.pack_padded_sequence(x, lengths, layer.batch_first, enforce_sorted)
        state = (tuple(state) if len(state) == 2 else state[0]) if state else None
        output, final = layer(packed) if state is None else layer(packed, state)
        assert isinstance(output, module.PackedSequence)
        padded, _ = module.pad_packed_sequence(output, layer.batch_first)
        return [padded, output.data] + flat(final)

    a, b = call(ours, rnn, x, my_state), call(theirs, torch_rnn, y, its_state)
    assert [t.shape for t in a] == [tuple(t.shape) for t in b]
    for mine, its in zip(a, b):
        assert_close(values(mine), values(its))
    backward_both(a[:1] + a[2:], b[:1] + b[2:], rng)
    pairs = [(x, y), *zip(my_state, its_state),
             *((p, theirs.get_parameter(n)) for n, p in ours.named_parameters())]
    for mine, its in pairs:
        np.testing.assert_allclose(mine.grad.numpy(), its.grad.numpy(), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("name,bidirectional,batch_first,lengths,initial", CASES)
def test_a_recurrent_layer_on_packed_input_matches_pytorch(
        name, bidirectional, batch_first, lengths, initial, rng):
    ours, theirs = twins(name, bidirectional, batch_first)
    lengths = SORTED if lengths == "sorted" else UNSORTED
    compare_on_packed(ours, theirs, lengths, lengths == SORTED, T, initial, rng)


@pytest.mark.parametrize("seed", range(20))
def test_fuzzed_packed_configurations_match_pytorch(seed):
    """Layers 1-3, sizes, bias, proj_size, batches of 1-6 with any lengths (ties, ones, at
    times none as long as the padding), sorted or not, with or without initial states."""
    rng = np.random.default_rng(seed + 4100)
    cls = str(rng.choice(["RNN", "LSTM", "GRU"]))
    args = dict(input_size=int(rng.integers(1, 6)), hidden_size=int(rng.integers(2, 9)),
                num_layers=int(rng.integers(1, 4)), bias=bool(rng.integers(2)),
                batch_first=bool(rng.integers(2)), bidirectional=bool(rng.integers(2)))
    if cls == "RNN":
        args["nonlinearity"] = str(rng.choice(["tanh", "relu"]))
    if cls == "LSTM" and rng.random() < 0.4:
        args["proj_size"] = int(rng.integers(1, args["hidden_size"]))
    ours = getattr(nb.nn, cls)(dtype=nb.float64, **args)
    theirs = getattr(torch.nn, cls)(dtype=torch.float64, **args)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    steps = int(rng.integers(1, 9))
    lengths = [int(n) for n in rng.integers(1, steps + 1, int(rng.integers(1, 7)))]
    enforce_sorted = bool(rng.integers(2))
    if enforce_sorted:
        lengths.sort(reverse=True)
    compare_on_packed(ours, theirs, lengths, enforce_sorted, steps, bool(rng.integers(2)), rng)


def test_dropout_between_layers_runs_on_packed_data_only_while_training(rng):
    ours, theirs = twins("lstm", True, False)
    ours.dropout = theirs.dropout = 0.5
    x = rng.standard_normal((T, 4, C))
    packed = rnn.pack_padded_sequence(nb.tensor(x), SORTED)
    training = ours(packed)[0].data
    assert not np.allclose(values(training), values(ours(packed)[0].data))  # new draws
    ours.eval(), theirs.eval()
    torch_out = theirs(torch_rnn.pack_padded_sequence(torch.tensor(x), SORTED))[0]
    assert_close(values(ours(packed)[0].data), values(torch_out.data))


# ---------------------------------------------------------------------------
# Mistakes: refused where PyTorch refuses them
# ---------------------------------------------------------------------------

BAD_LENGTHS = {
    "not sorted": [5, 7, 5, 2],
    "a zero": [7, 5, 5, 0],
    "negative": [7, 5, 5, -1],
    "too few": [7, 5, 5],
    "a string": "abc",
    "one number": 7,
    "2-D": [[7, 5, 5, 2]],
}


@pytest.mark.parametrize("lengths", list(BAD_LENGTHS.values()), ids=list(BAD_LENGTHS))
def test_lengths_pytorch_refuses_are_refused(lengths, rng):
    x = rng.standard_normal((T, 4, C))
    as_tensor = lengths if isinstance(lengths, (str, int)) else None

    def ours():
        given = as_tensor if as_tensor is not None or not isinstance(lengths[0], list) \
            else nb.tensor(lengths)
        return rnn.pack_padded_sequence(nb.tensor(x), given)

    def theirs():
        given = as_tensor if as_tensor is not None or not isinstance(lengths[0], list) \
            else torch.tensor(lengths)
        return torch_rnn.pack_padded_sequence(torch.tensor(x), given)

    (_, mine), (_, its) = outcome(ours), outcome(theirs)
    assert same_failure(mine, its, f"lengths {lengths!r}")


@pytest.mark.parametrize("shape,lengths", [((T, 0, C), []), ((0, 2, C), [1, 1])],
                         ids=["no sequences", "no steps"])
def test_an_empty_batch_is_refused_as_pytorch_refuses_it(shape, lengths):
    (_, mine) = outcome(lambda: rnn.pack_padded_sequence(nb.zeros(*shape), lengths))
    (_, its) = outcome(lambda: torch_rnn.pack_padded_sequence(torch.zeros(*shape), lengths))
    assert same_failure(mine, its, f"packing a batch of shape {shape}")


def test_lengths_pytorch_takes_but_nnbook_refuses_are_a_listed_difference(rng):
    """docs/pytorch.md: a length past the padded end, fractional or boolean lengths."""
    x = rng.standard_normal((T, 4, C))
    for lengths, error in (([8, 5, 5, 2], nb.InputError), ([7, 5.5, 5, 2], nb.DTypeError),
                           ([True] * 4, nb.DTypeError)):
        torch_rnn.pack_padded_sequence(torch.tensor(x)[:1 if lengths[0] is True else T],
                                       lengths)
        with pytest.raises(error):
            rnn.pack_padded_sequence(nb.tensor(x), lengths)


@pytest.mark.parametrize("shapes", [[], [(3, 2), (4, 3)], [(), ()]],
                         ids=["none", "different features", "single numbers"])
def test_a_pad_sequence_pytorch_refuses_is_refused(shapes):
    sequences = [np.zeros(shape) for shape in shapes]
    (_, mine) = outcome(lambda: rnn.pad_sequence([nb.tensor(s) for s in sequences]))
    (_, its) = outcome(lambda: torch_rnn.pad_sequence([torch.tensor(s) for s in sequences]))
    assert same_failure(mine, its, f"pad_sequence of shapes {shapes}")


# ---------------------------------------------------------------------------
# nn.DataParallel without a GPU
# ---------------------------------------------------------------------------

def test_data_parallel_runs_the_module_as_pytorch_without_a_gpu(rng):
    x = rng.standard_normal((5, 4)).astype(np.float32)
    results = {}
    for lib, nn in ((nb, nb.nn), (torch, torch.nn)):
        lib.manual_seed(0)
        inner = nn.Sequential(nn.Linear(4, 3), nn.ReLU())
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            model = nn.DataParallel(inner, device_ids=[0, 1], output_device=0, dim=1)
        results[lib.__name__] = (model, inner, list(model.state_dict()), model.device_ids,
                                 repr(model), hasattr(model, "dim"))
    (ours, inner, *rest), (theirs, torch_inner, *torch_rest) = results.values()
    assert ours.module is inner and theirs.module is torch_inner
    assert rest == torch_rest   # keys 'module.0.weight'..., device_ids [], the repr, no dim
    ours.load_state_dict({k: nb.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    with warnings.catch_warnings():   # CPU-only PyTorch runs the module without a word
        warnings.simplefilter("error")
        mine, its = ours(nb.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(values(mine), values(its), rtol=1e-6, atol=1e-7)
    assert isinstance(torch.nn.parallel.DataParallel(torch_inner), torch.nn.DataParallel)
    assert isinstance(nb.nn.parallel.DataParallel(inner), nb.nn.DataParallel)
