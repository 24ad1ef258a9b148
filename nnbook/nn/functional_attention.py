"""scaled_dot_product_attention, as PyTorch's reference ("math") implementation:

    scores = query @ key^T * scale   (+ the mask: -inf where attention is not allowed)
    out    = dropout(softmax(scores, dim=-1)) @ value

A query that may attend to nothing (its row of the mask all False / -inf) gets zeros,
not NaN, as in PyTorch.  Shapes: query (..., L, E), key (..., S, E), value (..., S, Ev).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ShapeError, fmt_shape
from ..ops.dropout import Dropout
from ..ops.softmax import SafeSoftmax
from ..random import numpy_generator
from ..tensor import Tensor, _wrap, apply
from .arguments import _fail, _tensor

__all__ = ["scaled_dot_product_attention"]


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """softmax(query @ key^T * scale + mask) @ value; ``scale`` defaults to 1/sqrt(E).

    ``attn_mask``: bool (True = may attend) or float (added to the scores), broadcast to
    (..., L, S).  ``is_causal``: position i attends to positions <= i only.
    """
    fn = "scaled_dot_product_attention"
    q, k, v = (_tensor(fn, name, t) for name, t in
               (("query", query), ("key", key), ("value", value)))
    _check_shapes(fn, q, k, v, enable_gqa)
    if enable_gqa and q.ndim >= 3 and k.shape[-3] != q.shape[-3]:
        repeat = q.shape[-3] // k.shape[-3]  # each key/value head serves `repeat` query heads
        k, v = k.repeat_interleave(repeat, -3), v.repeat_interleave(repeat, -3)
    length, source = q.shape[-2], k.shape[-2]
    factor = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = q @ k.transpose(-2, -1) * factor
    if is_causal:
        if attn_mask is not None:
            _fail(fn, "attn_mask and is_causal=True were both given.",
                  hint="give one: is_causal=True builds the causal mask itself.")
        attn_mask = _wrap(np.tril(np.ones((length, source), dtype=bool)))
    if attn_mask is not None:
        scores = _masked(fn, scores, attn_mask)
    weights = apply(SafeSoftmax(-1), scores)
    if dropout_p > 0:
        weights = apply(Dropout(numpy_generator(), dropout_p), weights)
    return weights @ v


def _check_shapes(fn, q, k, v, enable_gqa):
    values = f"query {fmt_shape(q.shape)}   key {fmt_shape(k.shape)}   value {fmt_shape(v.shape)}"
    if min(q.ndim, k.ndim, v.ndim) < 2:
        _fail(fn, "query, key and value need at least 2 dimensions (..., L, E).",
              values=values, cls=ShapeError,
              hint="give a sequence of vectors: (L, E), or (N, L, E), or (N, heads, L, E).")
    if q.shape[-1] != k.shape[-1]:
        _fail(fn, f"query and key must have the same embedding size (last dimension), got "
              f"{q.shape[-1]} and {k.shape[-1]}.", values=values, cls=ShapeError,
              hint="each query is compared with each key by a dot product, so their last "
              "dimensions must match.")
    if k.shape[-2] != v.shape[-2]:
        _fail(fn, f"key and value must have the same sequence length, got {k.shape[-2]} and "
              f"{v.shape[-2]}.", values=values, cls=ShapeError,
              hint="every key position needs a value: key (..., S, E), value (..., S, Ev).")
    if enable_gqa and q.ndim >= 3 and q.shape[-3] % k.shape[-3]:
        _fail(fn, f"with enable_gqa the query heads ({q.shape[-3]}) must be a multiple of "
              f"the key/value heads ({k.shape[-3]}).", values=values, cls=ShapeError,
              hint="grouped-query attention shares each key/value head among a whole "
              "number of query heads.")


def _masked(fn, scores, attn_mask):
    """scores + mask: a bool mask puts -inf where it is False; a float mask is added."""
    mask = attn_mask if isinstance(attn_mask, Tensor) else _wrap(np.asarray(attn_mask))
    try:
        np.broadcast_shapes(mask.shape, scores.shape)
    except ValueError:
        _fail(fn, f"attn_mask of shape {fmt_shape(mask.shape)} does not broadcast to the "
              f"attention scores' shape {fmt_shape(scores.shape)} (..., L, S).",
              cls=ShapeError, hint="give the mask as (L, S), or with batch and head "
              "dimensions that broadcast.")
    if mask.dtype.kind == "b":
        return scores.masked_fill(mask.logical_not(), -math.inf)
    return scores + mask
