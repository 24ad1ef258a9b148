"""nn.RNN, nn.LSTM, nn.GRU and nn.MultiheadAttention against PyTorch on fuzzed, seeded
configurations (layers, directions, batch_first, bias, proj_size, unbatched inputs,
initial states; extra keys, kdim/vdim, boolean and float masks, key padding, weights
averaged or not): every output, every input and parameter gradient, in float64, or an
error on both sides."""
import contextlib
import warnings

import numpy as np
import pytest

import nnbook as nb

torch = pytest.importorskip("torch")


def flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flat(o)]
    return [] if out is None else [out]


def run_both(their_layer, our_layer, make_inputs, call):
    """Outputs and gradients (a weighted sum of every output backpropagated) of both."""
    our_layer.load_state_dict({k: nb.tensor(v.detach().numpy())
                               for k, v in their_layer.state_dict().items()})
    results = []
    for lib, layer in ((torch, their_layer), (nb, our_layer)):
        inputs = make_inputs(lib)
        try:
            with warnings.catch_warnings() if lib is torch else contextlib.nullcontext():
                if lib is torch:  # e.g. its deprecation of masks of two different types
                    warnings.simplefilter("ignore", UserWarning)
                outs = flat(call(layer, *inputs))
        except (RuntimeError, AssertionError, nb.errors.NnbookError) as error:
            results.append(type(error).__name__)
            continue
        weights = [np.random.default_rng(9).standard_normal(tuple(o.shape)) for o in outs]
        sum((o * lib.tensor(w)).sum() for o, w in zip(outs, weights)).backward()
        results.append([o.detach().numpy() for o in outs]
                       + [t.grad.numpy() for t in flat(inputs) if t.requires_grad]
                       + [p.grad.numpy() for p in layer.parameters() if p.grad is not None])
    theirs, ours = results
    if isinstance(theirs, str) or isinstance(ours, str):
        assert isinstance(theirs, str) and isinstance(ours, str), (theirs, ours)
        return
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("seed", range(40))
def test_recurrent_layers(seed):
    rng = np.random.default_rng(seed)
    r = lambda low, high: int(rng.integers(low, high + 1))  # noqa: E731
    kind = ["RNN", "LSTM", "GRU"][seed % 3]
    c, h = r(1, 5), r(2, 6)
    kw = dict(num_layers=r(1, 3), bidirectional=bool(r(0, 1)), batch_first=bool(r(0, 1)),
              bias=bool(r(0, 1)))
    if kind == "RNN":
        kw["nonlinearity"] = ["tanh", "relu"][r(0, 1)]
    if kind == "LSTM" and r(0, 1):
        kw["proj_size"] = r(1, h - 1)
    t, b, unbatched = r(1, 6), r(1, 4), r(0, 3) == 0
    x = rng.standard_normal((t, c) if unbatched else (b, t, c) if kw["batch_first"] else
                            (t, b, c))
    lead = (kw["num_layers"] * (2 if kw["bidirectional"] else 1),) + (() if unbatched else (b,))
    h0 = rng.standard_normal(lead + (kw.get("proj_size", h),))
    c0 = rng.standard_normal(lead + (h,))
    with_state = bool(r(0, 1))

    def make_inputs(lib):
        x_in = lib.tensor(x, requires_grad=True)
        if not with_state:
            return [x_in]
        state = lib.tensor(h0, requires_grad=True)
        if kind == "LSTM":
            state = (state, lib.tensor(c0, requires_grad=True))
        return [x_in, state]

    run_both(getattr(torch.nn, kind)(c, h, dtype=torch.float64, **kw),
             getattr(nb.nn, kind)(c, h, dtype=nb.float64, **kw), make_inputs,
             lambda layer, *inputs: layer(*inputs))


@pytest.mark.parametrize("seed", range(40))
def test_multihead_attention(seed):
    rng = np.random.default_rng(100 + seed)
    r = lambda low, high: int(rng.integers(low, high + 1))  # noqa: E731
    heads = r(1, 3)
    e = heads * r(1, 3)
    kw = dict(batch_first=bool(r(0, 1)), bias=bool(r(0, 1)), add_bias_kv=r(0, 3) == 0,
              add_zero_attn=r(0, 3) == 0)
    if r(0, 1):
        kw.update(kdim=r(1, 5), vdim=r(1, 5))
    q_len, s_len, b, unbatched = r(1, 5), r(1, 5), r(1, 3), r(0, 4) == 0

    def shape(n, d):
        return (n, d) if unbatched else (b, n, d) if kw["batch_first"] else (n, b, d)
    q = rng.standard_normal(shape(q_len, e))
    k = rng.standard_normal(shape(s_len, kw.get("kdim", e)))
    v = rng.standard_normal(shape(s_len, kw.get("vdim", e)))
    mask = [None, rng.random((q_len, s_len)) < 0.3, rng.standard_normal((q_len, s_len)),
            None if unbatched else rng.random((b * heads, q_len, s_len)) < 0.3][r(0, 3)]
    padding = None if r(0, 2) else rng.random((s_len,) if unbatched else (b, s_len)) < 0.3
    options = dict(need_weights=bool(r(0, 1)), average_attn_weights=bool(r(0, 1)))

    def make_inputs(lib):
        return [lib.tensor(a, requires_grad=True) for a in (q, k, v)]

    def call(layer, q_in, k_in, v_in):
        lib = torch if isinstance(q_in, torch.Tensor) else nb
        return layer(q_in, k_in, v_in, **options,
                     attn_mask=None if mask is None else lib.tensor(mask),
                     key_padding_mask=None if padding is None else lib.tensor(padding))

    run_both(torch.nn.MultiheadAttention(e, heads, dtype=torch.float64, **kw),
             nb.nn.MultiheadAttention(e, heads, dtype=nb.float64, **kw), make_inputs, call)
