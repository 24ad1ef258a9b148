"""layer_norm, group_norm, instance_norm and rms_norm (``ops/norm.py``),
local_response_norm, and the lookups embedding and embedding_bag (``ops/embedding.py``,
``ops/embedding_bag.py``), with PyTorch's arguments.  F.one_hot lives in functional.py."""
from __future__ import annotations

import numbers

import numpy as np

from .. import context
from ..context import no_grad
from ..errors import InputError, ShapeError, fmt_shape, message
from ..ops.embedding import Embedding
from ..ops.embedding_bag import EmbeddingBag
from ..ops.norm import BatchNorm, GroupNorm, InstanceNorm, LayerNorm, RMSNorm
from ..ops.shape import Pad
from ..tensor import Tensor, _wrap, apply
from .arguments import _array, _fail, _tensor, _where

__all__ = ["layer_norm", "group_norm", "instance_norm", "rms_norm", "local_response_norm",
           "embedding", "embedding_bag"]


def normalized_shape_of(normalized_shape, where: str) -> tuple:
    """An int or a sequence of ints -> a tuple of positive ints (LayerNorm's argument)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, numbers.Integral) \
        else tuple(normalized_shape) if isinstance(normalized_shape, (tuple, list)) else None
    if shape is None or not shape or not all(
            isinstance(s, numbers.Integral) and not isinstance(s, bool) and s > 0 for s in shape):
        raise InputError(message(
            f"normalized_shape must be a positive int or a list of them, got "
            f"{normalized_shape!r}.", where=where,
            hint="give the size of the last dimension(s) to normalise over: 64 for "
            "features (N, 64), [C, H, W] for whole images."))
    return tuple(int(s) for s in shape)


def _optional(fn, tensors, weight, bias, like):
    """(x,), (x, weight) or (x, weight, bias); a bias without weight gets weight 1."""
    if weight is not None or bias is not None:
        tensors.append(_tensor(fn, "weight", weight) if weight is not None
                       else like.new_ones(bias.shape))
    if bias is not None:
        tensors.append(_tensor(fn, "bias", bias))
    return tensors


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Standardise each sample over its last dimensions, then scale by weight, add bias."""
    fn = "layer_norm"
    input = _tensor(fn, "input", input)
    op = LayerNorm(normalized_shape_of(normalized_shape, _where(fn)), eps)
    return apply(op, *_optional(fn, [input], weight, bias, input))


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Standardise each group of channels of each sample, then a weight and bias per channel."""
    fn = "group_norm"
    input = _tensor(fn, "input", input)
    if not isinstance(num_groups, numbers.Integral) or num_groups < 1:
        _fail(fn, f"num_groups must be an int >= 1, got {num_groups!r}.",
              hint="GroupNorm(32, C) is common; num_groups=1 is LayerNorm over (C, H, W).")
    return apply(GroupNorm(int(num_groups), eps), *_optional(fn, [input], weight, bias, input))


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Standardise each channel of each sample (N, C, *) over its positions, then a
    weight and a bias per channel.

    With ``use_input_stats`` (the default) each instance's own statistics are used, and
    running statistics, if given, move towards their average over the batch (in place);
    without, the running statistics normalise, as batch norm does in evaluation.
    """
    fn = "instance_norm"
    input = _tensor(fn, "input", input)
    mean, var = _array(fn, "running_mean", running_mean), _array(fn, "running_var", running_var)
    if not use_input_stats:
        op = BatchNorm(False, momentum, eps, mean, var)
    else:
        op = InstanceNorm(eps, momentum, mean, var)
    out = apply(op, *_optional(fn, [input], weight, bias, input))
    if op.running_update is not None:  # a forward with input statistics ran (not shape-only)
        for buffer, value in zip((running_mean, running_var), op.running_update):
            if isinstance(buffer, Tensor):  # through _store: the version counter moves
                buffer._store(_wrap(np.asarray(value, buffer._array.dtype)), fn)
            else:
                buffer[...] = value
    return out


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Divide each sample by its root mean square over its last dimensions, then scale by
    weight; ``eps=None`` is the machine epsilon of the input's dtype."""
    fn = "rms_norm"
    input = _tensor(fn, "input", input)
    op = RMSNorm(normalized_shape_of(normalized_shape, _where(fn)), eps)
    return apply(op, input) if weight is None else apply(op, input, _tensor(fn, "weight", weight))


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Divide each value by (k + alpha · the mean of the squares of ``size`` neighbouring
    channels) ** beta (AlexNet's normalisation across channels, dimension 1)."""
    fn = "local_response_norm"
    x = _tensor(fn, "input", input)
    if not isinstance(size, numbers.Integral) or isinstance(size, bool) or size < 1:
        _fail(fn, f"size must be an int >= 1, got {size!r}.",
              hint="size counts the neighbouring channels averaged over, e.g. size=5.")
    if x.ndim < 3:
        _fail(fn, f"expects an input (N, C, *) of 3 or more dimensions, got {x.ndim}-D with "
              f"shape {fmt_shape(x.shape)}.", cls=ShapeError,
              hint="a batch of sequences (N, C, L) or of images (N, C, H, W).")
    channels = x.shape[1]
    # the squares, zero-padded along the channels: size // 2 before, (size - 1) // 2 after
    squares = apply(Pad((0, 0) * (x.ndim - 2) + (size // 2, (size - 1) // 2)), x * x)
    window_mean = sum(squares[:, i:i + channels] for i in range(size)) / size
    return x / (window_mean * alpha + k) ** beta


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Row ``input[...]`` of ``weight`` for every index: (*) -> (*, embedding_dim).

    ``max_norm``: rows looked up whose ``norm_type``-norm exceeds it are scaled down to
    it, in ``weight`` itself (as in PyTorch).  Rows at ``padding_idx`` get no gradient.
    """
    fn = "embedding"
    indices, weight = _tensor(fn, "input", input), _tensor(fn, "weight", weight)
    padding_idx = _lookup_arguments(fn, weight, sparse, padding_idx)
    if max_norm is not None and not context.shape_only():
        _renorm_rows(indices, weight, max_norm, norm_type)
    return apply(Embedding(padding_idx, scale_grad_by_freq), indices, weight)


def _lookup_arguments(fn, weight, sparse, padding_idx):
    """Refuse sparse=True; padding_idx checked against the table and made non-negative."""
    if sparse:
        _fail(fn, "sparse=True asks for sparse gradients, which nnbook does not have.",
              hint="use sparse=False (the default): the gradient is a dense table.")
    rows = weight.shape[0] if weight.ndim == 2 else 0
    if padding_idx is None:
        return None
    if not -rows <= padding_idx < rows:
        _fail(fn, f"padding_idx={padding_idx} must be within num_embeddings ({rows}).",
              hint=f"give an index from 0 to {rows - 1} (or a negative one counting "
              "from the end).")
    return padding_idx % rows


def _renorm_rows(indices, weight, max_norm, norm_type):
    """Scale the looked-up rows of ``weight`` whose norm exceeds max_norm down to it."""
    if indices.dtype.kind not in "iu" or weight.ndim != 2:
        return  # the op refuses them, with its message
    rows = np.unique(np.asarray(indices).reshape(-1))
    rows = rows[(rows >= 0) & (rows < weight.shape[0])]
    table = np.asarray(weight)[rows]
    norms = np.linalg.norm(table, ord=norm_type, axis=1)
    big = norms > max_norm
    if big.any():
        with no_grad():
            scale = (max_norm / (norms[big] + 1e-7)).astype(table.dtype)[:, None]
            weight[rows[big]] = table[big] * scale



def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """The rows of a bag of indices pooled into one vector: (B, L) -> (B, embedding_dim)
    with each row of ``input`` a bag, or a 1-D ``input`` cut into bags at ``offsets``.

    ``mode`` is 'sum', 'mean' (the default) or 'max'; ``per_sample_weights`` (the input's
    shape, 'sum' only) weigh each index; entries equal to ``padding_idx`` are left out of
    their bag (an empty bag gives zeros).  ``max_norm`` rescales rows in ``weight`` itself,
    as F.embedding does.
    """
    fn = "embedding_bag"
    indices, weight = _tensor(fn, "input", input), _tensor(fn, "weight", weight)
    padding_idx = _lookup_arguments(fn, weight, sparse, padding_idx)
    op = EmbeddingBag(_array(fn, "offsets", offsets), mode, padding_idx, scale_grad_by_freq,
                      include_last_offset)
    tensors = [indices, weight]
    if per_sample_weights is not None:
        tensors.append(_tensor(fn, "per_sample_weights", per_sample_weights))
    if max_norm is not None and not context.shape_only():
        _renorm_rows(indices, weight, max_norm, norm_type)
    return apply(op, *tensors)
