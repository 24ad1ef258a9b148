"""MultiheadAttention, as PyTorch's: project, split into heads, attend, merge, project.

    q, k, v = query W_q^T + b_q,  key W_k^T + b_k,  value W_v^T + b_v     (N, L|S, E)
    q -> (N, heads, L, E/heads), and k, v likewise with S
    weights = softmax(q k^T / sqrt(E/heads) + mask)                       (N, heads, L, S)
    out     = merge(weights @ v) W_o^T + b_o                              (N, L, E)

Masks follow PyTorch's convention for this layer: in a bool ``attn_mask`` or
``key_padding_mask`` True means "may NOT attend" (the opposite of
``F.scaled_dot_product_attention``); a float mask is added to the scores.
"""
from __future__ import annotations

import math

import numpy as np

from ...creation import cat as nb_cat
from ...dtypes import default_float
from ...errors import InputError, ShapeError, fmt_shape, message
from ...tensor import Tensor, _wrap
from .. import functional as F
from .. import init
from ..module import Module
from ..parameter import Parameter
from ._args import check_device, positive_int
from .linear import Linear


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear; PyTorch names MultiheadAttention's output projection so (kept for repr)."""


class MultiheadAttention(Module):
    """Attention with ``num_heads`` heads of size embed_dim // num_heads (PyTorch's layer).

    Inputs are (L, N, E) -- time first -- unless ``batch_first=True``: (N, L, E).
    ``forward`` returns ``(output, weights)``; weights (N, L, S) averaged over the heads,
    (N, heads, L, S) with ``average_attn_weights=False``, None with ``need_weights=False``.
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        super().__init__()
        check_device("MultiheadAttention", device)
        self.embed_dim = positive_int("MultiheadAttention", "embed_dim", embed_dim)
        self.num_heads = positive_int("MultiheadAttention", "num_heads", num_heads)
        _check_heads(self.embed_dim, self.num_heads)
        self.kdim = embed_dim if kdim is None else positive_int("MultiheadAttention", "kdim", kdim)
        self.vdim = embed_dim if vdim is None else positive_int("MultiheadAttention", "vdim", vdim)
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.dropout, self.batch_first = float(dropout), bool(batch_first)
        self.head_dim = embed_dim // num_heads
        self.add_zero_attn = bool(add_zero_attn)
        dtype = np.dtype(dtype or default_float())
        self._make_parameters(bias, add_bias_kv, dtype)
        self._reset_parameters()

    def _make_parameters(self, bias, add_bias_kv, dtype):
        """PyTorch's names and order: in_proj_weight (or q/k/v_proj_weight), in_proj_bias,
        out_proj.weight, out_proj.bias."""
        e = self.embed_dim
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(np.empty((3 * e, e), dtype))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(np.empty((e, e), dtype))
            self.k_proj_weight = Parameter(np.empty((e, self.kdim), dtype))
            self.v_proj_weight = Parameter(np.empty((e, self.vdim), dtype))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(np.empty((3 * e,), dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(e, e, bias=bias, dtype=dtype)
        if add_bias_kv:  # one more key and value, learned, that every query may attend to
            self.bias_k = Parameter(np.empty((1, 1, e), dtype))
            self.bias_v = Parameter(np.empty((1, 1, e), dtype))
        else:
            self.bias_k = self.bias_v = None

    def _reset_parameters(self):
        """xavier_uniform_ on the input projections, zeros on the biases (as PyTorch)."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.zeros_(self.in_proj_bias)
            init.zeros_(self.out_proj.bias)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def projection_weights(self):
        """(W_q, W_k, W_v) and (b_q, b_k, b_v): slices of the packed parameters if packed."""
        e = self.embed_dim
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            weights = (w[:e], w[e:2 * e], w[2 * e:])
        else:
            weights = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
        b = self.in_proj_bias
        biases = (None,) * 3 if b is None else (b[:e], b[e:2 * e], b[2 * e:])
        return weights, biases

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        batched = _check_inputs(self, query, key, value)
        q, k, v = (_batch_first(t, batched, self.batch_first) for t in (query, key, value))
        n, length, source = q.shape[0], q.shape[1], k.shape[1]
        if is_causal and attn_mask is None:
            raise InputError(message(
                "is_causal=True is only a hint here and needs the causal attn_mask too.",
                values="attn_mask=None   is_causal=True",
                hint=f"pass attn_mask=nn.Transformer.generate_square_subsequent_mask({length}) "
                "as well (as in PyTorch)."))
        mask = _merged_mask(self, attn_mask, key_padding_mask, batched, n, length, source,
                            q.dtype)
        (wq, wk, wv), (bq, bk, bv) = self.projection_weights()
        q = _split_heads(F.linear(q, wq, bq), self.num_heads)   # (N, heads, L, E/heads)
        k, v, mask = self._extra_keys(F.linear(k, wk, bk), F.linear(v, wv, bv), mask)
        k = _split_heads(k, self.num_heads)                     # (N, heads, S, E/heads)
        v = _split_heads(v, self.num_heads)
        p = self.dropout if self.training else 0.0
        if need_weights:  # PyTorch's explicit path: a plain softmax (a fully masked row: NaN)
            scores = (q * (1 / math.sqrt(self.head_dim))) @ k.transpose(-2, -1)
            weights = F.softmax(scores if mask is None else scores + mask, dim=-1)
            out = F.dropout(weights, p) if p > 0 else weights
            out = out @ v
        else:
            weights = None
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)
        out = self.out_proj(out.transpose(1, 2).reshape(n, length, self.embed_dim))
        if not self.batch_first and batched:
            out = out.transpose(0, 1)
        if weights is not None:
            weights = weights.mean(dim=1) if average_attn_weights else weights
            weights = weights if batched else weights.squeeze(0)
        return (out if batched else out.squeeze(0)), weights

    def _extra_keys(self, k, v, mask):
        """add_bias_kv: the learned key bias_k and value bias_v join the end of every
        sequence; add_zero_attn: then a zero key and value.  The mask lets queries attend
        to them.  k, v: (N, S, E) -> (N, S + extra, E)."""
        n, extra = k.shape[0], 0
        if self.bias_k is not None:
            k = nb_cat([k, self.bias_k.expand(n, 1, self.embed_dim)], dim=1)
            v = nb_cat([v, self.bias_v.expand(n, 1, self.embed_dim)], dim=1)
            extra += 1
        if self.add_zero_attn:
            zeros = _wrap(np.zeros((n, 1, self.embed_dim), k.dtype))
            k, v = nb_cat([k, zeros], dim=1), nb_cat([v, zeros], dim=1)
            extra += 1
        if extra and mask is not None:
            mask = F.pad(mask, (0, extra))
        return k, v, mask


def _check_heads(embed_dim, num_heads):
    if embed_dim % num_heads:
        near = [h for h in range(1, embed_dim + 1) if embed_dim % h == 0]
        raise InputError(message(
            "embed_dim must be divisible by num_heads: each head gets embed_dim // num_heads "
            "features.", where="MultiheadAttention",
            values=f"embed_dim={embed_dim}   num_heads={num_heads}   "
            f"embed_dim % num_heads = {embed_dim % num_heads}",
            hint=f"choose num_heads among the divisors of {embed_dim}: "
            f"{', '.join(map(str, near))}; or make embed_dim a multiple of {num_heads}."))


def _batch_first(t: Tensor, batched: bool, batch_first: bool) -> Tensor:
    """(L, N, E) or (N, L, E) or unbatched (L, E) -> (N, L, E)."""
    if not batched:
        return t.unsqueeze(0)
    return t if batch_first else t.transpose(0, 1)


def _split_heads(x: Tensor, heads: int) -> Tensor:
    """(N, T, E) -> (N, heads, T, E/heads): head h holds features h*E/heads ... ."""
    n, t, e = x.shape
    return x.reshape(n, t, heads, e // heads).transpose(1, 2)


def _layout(batch_first: bool) -> str:
    return "(N, L, E) with batch_first=True" if batch_first else "(L, N, E), time first"


def _check_inputs(mha, query, key, value) -> bool:
    """Dimensions, feature sizes and batch sizes; returns whether the inputs are batched."""
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise InputError(message(f"{name} must be an nnbook Tensor, got "
                                     f"{type(t).__name__}.", hint=f"wrap it: nb.tensor({name})."))
    shapes = (f"query {fmt_shape(query.shape)}   key {fmt_shape(key.shape)}   "
              f"value {fmt_shape(value.shape)}")
    if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
        raise ShapeError(message(
            f"expects query, key and value all 3-d {_layout(mha.batch_first)}, or all 2-d "
            "(L, E) unbatched.", values=shapes,
            hint="give the three the same number of dimensions; a single sequence is (L, E)."))
    for name, t, size, arg in (("query", query, mha.embed_dim, "embed_dim"),
                               ("key", key, mha.kdim, "kdim"), ("value", value, mha.vdim, "vdim")):
        if t.shape[-1] != size:
            raise ShapeError(message(
                f"expects {name} with {size} features ({arg}) in its last dimension, got "
                f"{t.shape[-1]}.", values=shapes,
                hint=f"build the layer with {arg}={t.shape[-1]}" +
                ("" if name == "query" else f" (MultiheadAttention(embed_dim, num_heads, "
                 f"{arg}={t.shape[-1]}))") + f", or project {name} to {size} features."))
    batched = query.ndim == 3
    if batched:
        _check_batches(mha, query, key, value, shapes)
    elif key.shape[0] != value.shape[0]:
        raise ShapeError(message("key and value must have the same length S.", values=shapes,
                                 hint="every key position needs a value."))
    return batched


def _check_batches(mha, query, key, value, shapes):
    """Key and value: same batch and length; query: the same batch.  A disagreement that
    reading some inputs with their first two dimensions swapped would fix is the
    time-first / batch_first mix-up, and the hint says which inputs."""
    b, s = (0, 1) if mha.batch_first else (1, 0)
    q, k, v = query.shape, key.shape, value.shape
    if k[b] == q[b] == v[b] and k[s] == v[s]:
        return
    other = _layout(not mha.batch_first)
    if k[s] == q[s] == v[s] and k[b] == v[b]:
        hint = (f"all three agree if read as {other}: pass batch_first={not mha.batch_first} "
                "to MultiheadAttention, or transpose(0, 1) the inputs.")
    elif k[s] == q[b] == v[s] and k[b] == v[b]:
        hint = (f"key and value look like {other} while query is {_layout(mha.batch_first)}: "
                "transpose(0, 1) key and value, or build them the same way as query.")
    elif q[s] == k[b] == v[b] and k[s] == v[s]:
        hint = (f"query looks like {other} while key and value are "
                f"{_layout(mha.batch_first)}: transpose(0, 1) the query.")
    else:
        hint = ("query, key and value must share the batch size N, and key and value the "
                "source length S.")
    raise ShapeError(message(
        f"query, key and value disagree on the batch size, or key and value on the length; "
        f"the layer reads them as {_layout(mha.batch_first)}.", values=shapes, hint=hint))


def _additive(mask, dtype, name) -> Tensor:
    """A bool mask (True = may not attend) -> 0 / -inf; a float mask as it is."""
    mask = mask if isinstance(mask, Tensor) else _wrap(np.asarray(mask))
    if mask.dtype.kind == "b":
        return _wrap(np.where(mask.numpy(), -np.inf, 0.0).astype(dtype))
    if mask.dtype.kind != "f":
        raise InputError(message(
            f"{name} must be a bool or float tensor, got dtype {mask.dtype}.",
            hint=f"use a bool mask (True = may not attend) or a float mask added to the "
            f"scores: {name}.bool()."))
    return mask


def _merged_mask(mha, attn_mask, key_padding_mask, batched, n, length, source, dtype):
    """attn_mask (L, S) or (N*heads, L, S) plus key_padding_mask (N, S), as one additive
    mask that broadcasts to the scores (N, heads, L, S)."""
    heads, merged = mha.num_heads, None
    if attn_mask is not None:
        merged = _additive(attn_mask, dtype, "attn_mask")
        allowed = [(length, source), (n * heads, length, source)]
        if tuple(merged.shape) not in allowed:
            _mask_error(mha, "attn_mask", merged.shape, allowed, batched, n, length, source)
        if merged.ndim == 3:
            merged = merged.reshape(n, heads, length, source)
    if key_padding_mask is not None:
        pad = _additive(key_padding_mask, dtype, "key_padding_mask")
        want = (n, source) if batched else (source,)
        if tuple(pad.shape) != want:
            _mask_error(mha, "key_padding_mask", pad.shape, [want], batched, n, length, source)
        pad = pad.reshape(n, 1, 1, source)
        merged = pad if merged is None else merged + pad
    return merged


def _mask_error(mha, name, shape, allowed, batched, n, length, source):
    words = {"attn_mask": "(L, S) or (N*num_heads, L, S)", "key_padding_mask": "(N, S)"}
    swapped = name == "key_padding_mask" and batched and tuple(shape) == allowed[0][::-1]
    hint = ("it is (S, N): give key_padding_mask as (N, S), one row per sequence, True at "
            "the padded positions." if swapped else
            f"L is the query length and S the key length; with batch_first={mha.batch_first} "
            f"the inputs read as {_layout(mha.batch_first)}.")
    raise ShapeError(message(
        f"{name} must have shape {words[name]} = "
        f"{' or '.join(fmt_shape(a) for a in allowed)}, got {fmt_shape(shape)}.",
        values=f"{name} {fmt_shape(shape)}   N={n}   L={length}   S={source}   "
        f"num_heads={mha.num_heads}",
        hint=hint))
