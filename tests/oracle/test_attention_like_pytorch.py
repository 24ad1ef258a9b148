"""Attention and transformer layers against PyTorch: PyTorch's weights loaded by state_dict
key, then outputs and every gradient (inputs and parameters) compared in float64, on odd
sizes (T=7, S=5, C=10, two heads, batch 3), with masks, causal masks and padding masks.
Dropout layers are compared in eval mode (PyTorch's random numbers are not ours)."""
import numpy as np
import pytest

import nnbook as nb

torch = pytest.importorskip("torch")

from like_pytorch import assert_same  # noqa: E402

T, S, C, HEADS, N = 7, 5, 10, 2, 3
TOL = 1e-10


def load_from_torch(model, torch_model):
    """Every tensor of PyTorch's state dict into ``model``, by key (strict)."""
    model.load_state_dict({k: nb.tensor(v.detach().numpy().copy())
                           for k, v in torch_model.state_dict().items()})


def pair(rng, *shape):
    """The same float64 values as an nnbook and a PyTorch leaf that need gradients."""
    data = rng.standard_normal(shape)
    return nb.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)


def compare_grads(model, torch_model, inputs, what):
    named = dict(torch_model.named_parameters())
    assert [n for n, _ in model.named_parameters()] == list(named), what
    for name, p in model.named_parameters():
        assert_same(p.grad, named[name].grad, f"{what}: grad of {name}", tol=TOL)
    for i, (a, b) in enumerate(inputs):
        assert_same(a.grad, b.grad, f"{what}: grad of input {i}", tol=TOL)


def as_both(mask):
    """A numpy mask as an nnbook tensor and a PyTorch tensor."""
    return (None, None) if mask is None else (nb.tensor(mask), torch.tensor(mask))


# ---------------------------------------------------------------- scaled_dot_product_attention

def sdpa_masks(rng):
    causal = np.tril(np.ones((T, S), bool))
    blocked = rng.random((N, 1, T, S)) < 0.4
    blocked[1, 0, 2] = True                      # one query that may attend to nothing
    floats = rng.standard_normal((T, S))
    floats[4] = -np.inf                          # an all -inf row
    return {"none": None, "bool (T, S)": causal, "bool (N, 1, T, S) with an empty row": ~blocked,
            "float (T, S) with an all -inf row": floats}


@pytest.mark.parametrize("mask_name", ["none", "bool (T, S)",
                                       "bool (N, 1, T, S) with an empty row",
                                       "float (T, S) with an all -inf row"])
@pytest.mark.parametrize("scale", [None, 0.3])
def test_sdpa_values_and_gradients(mask_name, scale, rng):
    (q, tq), (k, tk), (v, tv) = pair(rng, N, HEADS, T, 4), pair(rng, N, HEADS, S, 4), \
        pair(rng, N, HEADS, S, 3)
    mask, tmask = as_both(sdpa_masks(rng)[mask_name])
    out = nb.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
    want = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=tmask,
                                                            scale=scale)
    assert_same(out, want, f"sdpa {mask_name}", tol=TOL)
    g = rng.standard_normal(out.shape)
    out.backward(nb.tensor(g))
    want.backward(torch.tensor(g))
    for name, a, b in (("query", q, tq), ("key", k, tk), ("value", v, tv)):
        assert_same(a.grad, b.grad, f"sdpa {mask_name}: grad of {name}", tol=TOL)


def test_sdpa_causal_and_grouped_query_heads(rng):
    (q, tq), (k, tk), (v, tv) = pair(rng, N, 4, T, 6), pair(rng, N, 2, T, 6), \
        pair(rng, N, 2, T, 5)
    out = nb.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                        enable_gqa=True)
    want = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=True,
                                                            enable_gqa=True)
    assert_same(out, want, "sdpa causal gqa", tol=TOL)
    out.sum().backward()
    want.sum().backward()
    for name, a, b in (("query", q, tq), ("key", k, tk), ("value", v, tv)):
        assert_same(a.grad, b.grad, f"sdpa causal gqa: grad of {name}", tol=TOL)


# ---------------------------------------------------------------- MultiheadAttention

def mha_masks(rng, batch_first):
    padding = rng.random((N, S)) < 0.3
    padding[:, 0] = False                        # every sequence keeps one key
    heads_mask = rng.standard_normal((N * HEADS, T, S))
    return {"none": (None, None), "bool attn_mask": (rng.random((T, S)) < 0.3, None),
            "float attn_mask": (rng.standard_normal((T, S)), None),
            "3-d float attn_mask": (heads_mask, None), "key_padding_mask": (None, padding),
            "both": (rng.standard_normal((T, S)), padding * -1e3),
            "both bool": (rng.random((T, S)) < 0.2, padding)}


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("mask_name", ["none", "bool attn_mask", "float attn_mask",
                                       "3-d float attn_mask", "key_padding_mask", "both",
                                       "both bool"])
def test_multihead_attention_like_pytorch(batch_first, need_weights, average, mask_name,
                                          rng):
    torch.manual_seed(21)
    tm = torch.nn.MultiheadAttention(C, HEADS, batch_first=batch_first, dtype=torch.float64)
    torch.nn.init.normal_(tm.in_proj_bias)       # non-zero biases, so they are tested
    torch.nn.init.normal_(tm.out_proj.bias)
    m = nb.nn.MultiheadAttention(C, HEADS, batch_first=batch_first, dtype=nb.float64)
    load_from_torch(m, tm)
    shape_q, shape_k = ((N, T, C), (N, S, C)) if batch_first else ((T, N, C), (S, N, C))
    inputs = [pair(rng, *shape_q), pair(rng, *shape_k), pair(rng, *shape_k)]
    attn, padding = mha_masks(rng, batch_first)[mask_name]
    (am, tam), (kpm, tkpm) = as_both(attn), as_both(padding)
    out, w = m(*(a for a, _ in inputs), key_padding_mask=kpm, need_weights=need_weights,
               attn_mask=am, average_attn_weights=average)
    tout, tw = tm(*(b for _, b in inputs), key_padding_mask=tkpm, need_weights=need_weights,
                  attn_mask=tam, average_attn_weights=average)
    what = f"MHA {mask_name} batch_first={batch_first} need_weights={need_weights}"
    assert_same(out, tout, what, tol=TOL)
    if need_weights:
        assert_same(w, tw, what + ": weights", tol=TOL)
    else:
        assert w is None and tw is None
    g = rng.standard_normal(out.shape)
    loss = (out * nb.tensor(g)).sum() + (0 if w is None else (w * w).sum())
    tloss = (tout * torch.tensor(g)).sum() + (0 if tw is None else (tw * tw).sum())
    loss.backward()
    tloss.backward()
    compare_grads(m, tm, inputs, what)


def test_multihead_attention_kdim_vdim_unbatched_and_causal(rng):
    tm = torch.nn.MultiheadAttention(C, HEADS, kdim=3, vdim=4, bias=False, dtype=torch.float64)
    m = nb.nn.MultiheadAttention(C, HEADS, kdim=3, vdim=4, bias=False, dtype=nb.float64)
    assert list(m.state_dict()) == list(tm.state_dict())
    load_from_torch(m, tm)
    inputs = [pair(rng, T, C), pair(rng, T, 3), pair(rng, T, 4)]   # unbatched (L, E)
    causal = nb.nn.Transformer.generate_square_subsequent_mask(T, dtype=nb.float64)
    tcausal = torch.nn.Transformer.generate_square_subsequent_mask(T, dtype=torch.float64)
    assert_same(causal, tcausal, "causal mask")
    out, w = m(*(a for a, _ in inputs), attn_mask=causal, is_causal=True)
    tout, tw = tm(*(b for _, b in inputs), attn_mask=tcausal, is_causal=True)
    assert_same(out, tout, "MHA kdim/vdim", tol=TOL)
    assert_same(w, tw, "MHA kdim/vdim weights", tol=TOL)
    (out.sum() + w.sum()).backward()
    (tout.sum() + tw.sum()).backward()
    compare_grads(m, tm, inputs, "MHA kdim/vdim")


@pytest.mark.parametrize("bias_kv,zero_attn", [(True, False), (False, True), (True, True)])
@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention_extra_keys_like_pytorch(bias_kv, zero_attn, need_weights,
                                                     rng):
    tm = torch.nn.MultiheadAttention(C, HEADS, add_bias_kv=bias_kv, add_zero_attn=zero_attn,
                                     batch_first=True, dtype=torch.float64)
    m = nb.nn.MultiheadAttention(C, HEADS, add_bias_kv=bias_kv, add_zero_attn=zero_attn,
                                 batch_first=True, dtype=nb.float64)
    assert list(m.state_dict()) == list(tm.state_dict())
    load_from_torch(m, tm)
    inputs = [pair(rng, N, T, C), pair(rng, N, S, C), pair(rng, N, S, C)]
    padding = rng.random((N, S)) < 0.4
    padding[2] = True                            # only the added keys are left to attend to
    attn = rng.random((T, S)) < 0.3
    out, w = m(*(a for a, _ in inputs), key_padding_mask=nb.tensor(padding),
               attn_mask=nb.tensor(attn), need_weights=need_weights)
    tout, tw = tm(*(b for _, b in inputs), key_padding_mask=torch.tensor(padding),
                  attn_mask=torch.tensor(attn), need_weights=need_weights)
    what = f"MHA add_bias_kv={bias_kv} add_zero_attn={zero_attn}"
    assert_same(out, tout, what, tol=TOL)
    if need_weights:
        assert_same(w, tw, what + ": weights", tol=TOL)
    out.sum().backward()
    tout.sum().backward()
    compare_grads(m, tm, inputs, what)


def test_fully_masked_query_row_gives_what_pytorch_gives(rng):
    """need_weights=True: PyTorch's plain softmax makes the row NaN; need_weights=False goes
    through scaled_dot_product_attention, which gives zeros (then the output bias)."""
    tm = torch.nn.MultiheadAttention(C, HEADS, dtype=torch.float64)
    m = nb.nn.MultiheadAttention(C, HEADS, dtype=nb.float64)
    load_from_torch(m, tm)
    x = rng.standard_normal((T, N, C))
    mask = np.zeros((T, T), bool)
    mask[3] = True
    for need in (True, False):
        out, w = m(nb.tensor(x), nb.tensor(x), nb.tensor(x), attn_mask=nb.tensor(mask),
                   need_weights=need)
        tx = torch.tensor(x)
        tout, tw = tm(tx, tx, tx, attn_mask=torch.tensor(mask), need_weights=need)
        assert_same(out, tout, f"fully masked row, need_weights={need}", tol=TOL)


def test_multihead_attention_init_and_names_like_pytorch():
    m = nb.nn.MultiheadAttention(C, HEADS)
    tm = torch.nn.MultiheadAttention(C, HEADS)
    assert list(m.state_dict()) == list(tm.state_dict())
    assert repr(m) == repr(tm)
    bound = np.sqrt(6 / (C + 3 * C))             # xavier_uniform_ on (3C, C)
    w = m.in_proj_weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    assert not m.in_proj_bias.detach().numpy().any()
    assert not m.out_proj.bias.detach().numpy().any()


# ---------------------------------------------------------------- transformer layers

def build_pair(nb_cls, torch_cls, *args, **kwargs):
    torch.manual_seed(31)
    tm = torch_cls(*args, dtype=torch.float64, **kwargs).eval()
    m = nb_cls(*args, dtype=nb.float64, **kwargs).eval()
    for p in tm.parameters():                    # LayerNorm's ones and zeros: perturb them
        if p.ndim == 1:
            torch.nn.init.normal_(p, mean=0.5)
    load_from_torch(m, tm)
    assert repr(m) == repr(tm)
    return m, tm


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_like_pytorch(norm_first, activation, batch_first, rng):
    kwargs = dict(dim_feedforward=13, activation=activation, batch_first=batch_first,
                  norm_first=norm_first)
    torch.manual_seed(32)
    tlayer = torch.nn.TransformerEncoderLayer(C, HEADS, dtype=torch.float64, **kwargs)
    tm = torch.nn.TransformerEncoder(tlayer, 2, torch.nn.LayerNorm(C, dtype=torch.float64),
                                     enable_nested_tensor=False).eval()
    layer = nb.nn.TransformerEncoderLayer(C, HEADS, dtype=nb.float64, **kwargs)
    m = nb.nn.TransformerEncoder(layer, 2, nb.nn.LayerNorm(C, dtype=nb.float64),
                                 enable_nested_tensor=False).eval()
    assert repr(m) == repr(tm)
    load_from_torch(m, tm)
    x = pair(rng, *((N, T, C) if batch_first else (T, N, C)))
    padding = rng.random((N, T)) < 0.3
    padding[:, 0] = False
    causal = torch.nn.Transformer.generate_square_subsequent_mask(T, dtype=torch.float64)
    blocked = causal.isinf()                     # the same mask as bool: True = blocked
    for mask, kpm in ((None, None), (causal, None), (blocked, padding), (None, padding)):
        tout = tm(x[1], mask=mask, src_key_padding_mask=None if kpm is None else
                  torch.tensor(kpm))
        out = m(x[0], mask=None if mask is None else nb.tensor(mask.numpy()),
                src_key_padding_mask=None if kpm is None else nb.tensor(kpm))
        what = f"encoder mask={mask is not None} padding={kpm is not None}"
        assert_same(out, tout, what, tol=TOL)
        g = rng.standard_normal(out.shape)
        m.zero_grad()
        tm.zero_grad()
        x[0].grad = x[1].grad = None
        out.backward(nb.tensor(g))
        tout.backward(torch.tensor(g))
        compare_grads(m, tm, [x], what)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning")  # PyTorch's
@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_like_pytorch(norm_first, rng):
    m, tm = build_pair(nb.nn.Transformer, torch.nn.Transformer, d_model=C, nhead=HEADS,
                       num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=9,
                       norm_first=norm_first, batch_first=True, activation="gelu")
    src, tgt = pair(rng, N, S, C), pair(rng, N, T, C)
    causal = torch.nn.Transformer.generate_square_subsequent_mask(T, dtype=torch.float64)
    src_pad = rng.random((N, S)) < 0.3
    src_pad[:, 0] = False
    tout = tm(src[1], tgt[1], tgt_mask=causal, src_key_padding_mask=torch.tensor(src_pad),
              memory_key_padding_mask=torch.tensor(src_pad), tgt_is_causal=True)
    out = m(src[0], tgt[0], tgt_mask=nb.tensor(causal.numpy()),
            src_key_padding_mask=nb.tensor(src_pad), memory_key_padding_mask=nb.tensor(src_pad),
            tgt_is_causal=True)
    assert_same(out, tout, "transformer", tol=TOL)
    g = rng.standard_normal(out.shape)
    out.backward(nb.tensor(g))
    tout.backward(torch.tensor(g))
    compare_grads(m, tm, [src, tgt], "transformer")


def test_decoder_layer_with_callable_activation_like_pytorch(rng):
    torch.manual_seed(34)
    tm = torch.nn.TransformerDecoderLayer(C, HEADS, 11, activation=torch.nn.SiLU(),
                                          dtype=torch.float64).eval()
    m = nb.nn.TransformerDecoderLayer(C, HEADS, 11, activation=nb.nn.SiLU(),
                                      dtype=nb.float64).eval()
    assert repr(m) == repr(tm)
    load_from_torch(m, tm)
    tgt, memory = pair(rng, T, N, C), pair(rng, S, N, C)
    mask = rng.random((T, S)) < 0.3
    tout = tm(tgt[1], memory[1], memory_mask=torch.tensor(mask))
    out = m(tgt[0], memory[0], memory_mask=nb.tensor(mask))
    assert_same(out, tout, "decoder layer", tol=TOL)
    out.sum().backward()
    tout.sum().backward()
    compare_grads(m, tm, [tgt, memory], "decoder layer")
