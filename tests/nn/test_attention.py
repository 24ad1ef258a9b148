"""Attention without PyTorch: gradients by gradcheck, the four-part errors, the shape steps
and the attention-weights record.  (tests/oracle/test_attention_like_pytorch.py compares
values and gradients with PyTorch.)"""
import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import InputError, ShapeError

F = nb.nn.functional
T, S, C, HEADS, N = 7, 5, 10, 2, 3


def leaf(rng, *shape):
    return nb.tensor(rng.standard_normal(shape), requires_grad=True)


# ---------------------------------------------------------------- gradcheck of the ops

@pytest.mark.parametrize("case", ["plain", "bool mask", "float mask", "causal", "scale",
                                  "empty row"])
def test_sdpa_gradcheck(case, rng):
    q, k, v = leaf(rng, 2, HEADS, T, 3), leaf(rng, 2, HEADS, S, 3), leaf(rng, 2, HEADS, S, 4)
    mask = {"bool mask": nb.tensor(rng.random((2, 1, T, S)) < 0.7),
            "float mask": nb.tensor(rng.standard_normal((T, S))),
            "empty row": nb.tensor(np.arange(T)[:, None] != 2)}.get(case)
    kwargs = {"attn_mask": mask, "is_causal": case == "causal",
              "scale": 0.37 if case == "scale" else None}
    assert nb.gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, **kwargs),
                        (q, k, v))


def test_sdpa_empty_row_gives_zeros_and_no_gradient(rng):
    q, k, v = leaf(rng, T, 3), leaf(rng, S, 3), leaf(rng, S, 4)
    mask = np.ones((T, S), bool)
    mask[4] = False
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=nb.tensor(mask))
    assert not out.detach().numpy()[4].any()
    out.sum().backward()
    assert not q.grad.numpy()[4].any()
    assert np.isfinite(k.grad.numpy()).all() and np.isfinite(v.grad.numpy()).all()


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("batch_first", [True, False])
def test_multihead_attention_gradcheck(need_weights, batch_first, rng):
    m = nb.nn.MultiheadAttention(C, HEADS, kdim=4, vdim=6, batch_first=batch_first,
                                 dtype=nb.float64)
    shapes = [(N, T, C), (N, S, 4), (N, S, 6)] if batch_first else \
        [(T, N, C), (S, N, 4), (S, N, 6)]
    q, k, v = (leaf(rng, *shape) for shape in shapes)
    padding = nb.tensor(np.arange(S)[None, :] >= np.array([[5], [3], [4]]))

    def attend(a, b, c):
        out, w = m(a, b, c, key_padding_mask=padding, need_weights=need_weights)
        return out if w is None else out.sum() + (w * w).sum()
    assert nb.gradcheck(attend, (q, k, v))


# ---------------------------------------------------------------- errors

class Net(nb.nn.Module):
    def __init__(self, **kwargs):
        super().__init__()
        self.attn = nb.nn.MultiheadAttention(C, HEADS, **kwargs)

    def forward(self, q, kv, **kwargs):
        return self.attn(q, kv, kv, **kwargs)[0]


def test_heads_must_divide_embed_dim():
    with pytest.raises(InputError, match=r"MultiheadAttention: embed_dim must be divisible "
                       r"by num_heads(.|\n)*embed_dim=10   num_heads=3(.|\n)*hint: choose "
                       r"num_heads among the divisors of 10: 1, 2, 5, 10"):
        nb.nn.MultiheadAttention(10, 3)


def test_kdim_mismatch_names_the_layer_and_the_argument():
    net = Net(kdim=4)
    with pytest.raises(ShapeError, match=r"attn \(MultiheadAttention\): expects key with 4 "
                       r"features \(kdim\)(.|\n)*key \(5, 3, 10\)(.|\n)*hint: build the layer "
                       r"with kdim=10"):
        net(nb.randn(T, N, C), nb.randn(S, N, C))


@pytest.mark.parametrize("batch_first,q_shape,kv_shape,hint", [
    (False, (N, T, C), (N, S, C), "all three agree if read as .N, L, E. with batch_first=True: "
     "pass batch_first=True"),
    (True, (T, N, C), (S, N, C), "all three agree if read as .L, N, E., time first: pass "
     "batch_first=False"),
    (True, (N, T, C), (S, N, C), "key and value look like .L, N, E., time first while query"),
    (False, (T, N, C), (N, S, C), "key and value look like .N, L, E. with batch_first=True"),
    (False, (N, T, C), (S, N, C), "query looks like .N, L, E. with batch_first=True"),
])
def test_time_first_and_batch_first_mix_up(batch_first, q_shape, kv_shape, hint):
    net = Net(batch_first=batch_first)
    with pytest.raises(ShapeError, match=r"attn \(MultiheadAttention\): query, key and value "
                       r"disagree(.|\n)*hint: " + hint):
        net(nb.randn(*q_shape), nb.randn(*kv_shape))


def test_mask_shapes():
    net = Net()
    q, kv = nb.randn(T, N, C), nb.randn(S, N, C)
    with pytest.raises(ShapeError, match=r"attn \(MultiheadAttention\): attn_mask must have "
                       r"shape \(L, S\) or \(N\*num_heads, L, S\) = \(7, 5\) or \(6, 7, 5\), "
                       r"got \(5, 7\)(.|\n)*hint: L is the query length"):
        net(q, kv, attn_mask=nb.zeros(S, T))
    with pytest.raises(ShapeError, match=r"key_padding_mask must have shape \(N, S\) = "
                       r"\(3, 5\), got \(5, 3\)(.|\n)*hint: it is \(S, N\)"):
        net(q, kv, key_padding_mask=nb.zeros(S, N).bool())
    with pytest.raises(InputError, match=r"is_causal=True is only a hint(.|\n)*hint: pass "
                       r"attn_mask=nn.Transformer.generate_square_subsequent_mask\(7\)"):
        net(q, kv, is_causal=True)
    with pytest.raises(ShapeError, match=r"scaled_dot_product_attention(.|\n)*attn_mask of "
                       r"shape \(4, 5\) does not broadcast"):
        F.scaled_dot_product_attention(nb.randn(T, 3), nb.randn(S, 3), nb.randn(S, 3),
                                       attn_mask=nb.zeros(4, 5))


def test_transformer_argument_and_shape_errors():
    with pytest.raises(InputError, match=r"TransformerEncoderLayer: activation should be "
                       r"'relu', 'gelu' or a callable, got 'tanh'(.|\n)*hint:"):
        nb.nn.TransformerEncoderLayer(C, HEADS, activation="tanh")
    model = nb.nn.Transformer(C, HEADS, 1, 1, 16)
    with pytest.raises(ShapeError, match=r"src and tgt must have the same batch size "
                       r"\(dimension 1\)(.|\n)*hint: pass batch_first=True"):
        model(nb.randn(N, S, C), nb.randn(N, T, C))


# ---------------------------------------------------------------- shapes and records

@pytest.mark.parametrize("batch_first", [False, True])
def test_attention_shapes_agree_with_a_real_forward(batch_first):
    m = nb.nn.MultiheadAttention(C, HEADS, kdim=4, batch_first=batch_first)
    q_shape, k_shape = ((N, T, C), (N, S, 4)) if batch_first else ((T, N, C), (S, N, 4))
    steps = nb.inspect.attention_shapes(m, q_shape, k_shape, (k_shape[:2] + (C,)),
                                        mask="key_padding_mask", average_attn_weights=False)
    by_name = {s.name: s for s in steps}
    padding = nb.zeros(N, S).bool()
    with nb.inspect.record_attention() as rec:
        out, w = m(nb.randn(*q_shape), nb.randn(*k_shape), nb.randn(*k_shape[:2], C),
                   key_padding_mask=padding, average_attn_weights=False)
    assert by_name["softmax"].shape == rec.maps[0].shape == (N, HEADS, T, S)
    assert by_name["split heads (key)"].shape == (N, HEADS, S, C // HEADS)
    assert by_name["key projection"].numbers == f"({N}, {S}, 4) @ ({C}, 4)^T + ({C},) -> " \
                                                f"({N}, {S}, {C})"
    assert steps[-1].name == "weights returned" and steps[-1].shape == tuple(w.shape)
    assert steps[-2].shape == tuple(out.shape)
    assert ("time first" in by_name) == (not batch_first)
    assert [d["name"] for d in steps.as_list()] == [s.name for s in steps]


def test_attention_shapes_raise_the_layers_error():
    m = nb.nn.MultiheadAttention(C, HEADS)
    with pytest.raises(ShapeError, match="expects key with 10 features"):
        nb.inspect.attention_shapes(m, (T, N, C), (S, N, 4))


def test_record_attention_keeps_every_layers_weights(rng):
    layer = nb.nn.TransformerDecoderLayer(C, HEADS, 12, batch_first=True, dtype=nb.float64)
    model = nb.nn.TransformerDecoder(layer, 2).eval()
    tgt, memory = nb.tensor(rng.standard_normal((N, T, C))), \
        nb.tensor(rng.standard_normal((N, S, C)))
    padding = nb.tensor(np.arange(S)[None, :] >= np.array([[5], [2], [4]]))
    plain = model(tgt, memory, memory_key_padding_mask=padding)
    with nb.inspect.record_attention(model) as rec:
        out = model(tgt, memory, memory_key_padding_mask=padding)
    np.testing.assert_array_equal(out.detach().numpy(), plain.detach().numpy())
    assert rec.paths == ["layers.0.self_attn", "layers.0.multihead_attn",
                         "layers.1.self_attn", "layers.1.multihead_attn"]
    cross = rec.by_path("layers.1.multihead_attn")[0].weights
    assert cross.shape == (N, HEADS, T, S)
    np.testing.assert_allclose(cross.sum(-1), 1, rtol=1e-12)
    assert not cross[1, :, :, 2:].any()            # sequence 1 has two keys, the rest padding
    mha = model.layers[0].self_attn                # the same weights as need_weights=True
    _, w = mha(tgt, tgt, tgt, average_attn_weights=False)
    np.testing.assert_allclose(rec.maps[0].weights, w.detach().numpy(), rtol=1e-12)


def test_generate_square_subsequent_mask():
    mask = nb.nn.Transformer.generate_square_subsequent_mask(4).numpy()
    assert mask.dtype == np.float32
    assert np.array_equal(np.isinf(mask), np.triu(np.ones((4, 4), bool), 1))
    assert not mask[np.tril_indices(4)].any()
