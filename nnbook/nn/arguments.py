"""Checking the arguments of ``nn.functional``: what a Python call can get wrong before
any op runs (a numpy array where a Tensor must carry a gradient, the old loss flags).

Every function of ``nn.functional`` and its family files uses these, so a mistake reads
the same whichever function met it: ``features.2 (Conv2d), in F.conv2d: ...``.
"""
from __future__ import annotations

import numpy as np

from ..errors import (
    DTypeError,
    InputError,
    ShapeError,
    current_layer,
    fmt_shape,
    message,
    warn_from_user_code,
)
from ..ops.base import channels_hint
from ..tensor import Tensor, _wrap, meta_tensor
from .utils.rnn import PackedSequence


def _where(fn: str) -> str:
    """'features.2 (Conv2d), in F.conv2d' inside a layer, 'F.conv2d' outside."""
    layer = current_layer()
    return f"{layer}, in F.{fn}" if layer else f"F.{fn}"


def _fail(fn: str, what: str, values=None, hint=None, cls=InputError):
    raise cls(message(what, where=_where(fn), values=values, hint=hint))


def _describe(value) -> str:
    if isinstance(value, np.ndarray):
        return f"a numpy array of shape {fmt_shape(value.shape)}"
    return f"a {type(value).__name__}"


def _tensor(fn: str, name: str, value) -> Tensor:
    """An argument that may carry a gradient: only a Tensor will do."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, PackedSequence):  # a recurrent layer's packed output, passed on
        hint = ("unpack it first: out, lengths = nn.utils.rnn.pad_packed_sequence(packed) "
                "gives a padded (T, B, *) tensor; or use the recurrent layer's h_n.")
    else:
        hint = f"wrap it: nb.tensor({name}) (with requires_grad=True if it should learn)."
    _fail(fn, f"{name} must be an nnbook Tensor, got {_describe(value)}.", cls=DTypeError,
          hint=hint)


def _data(fn: str, name: str, value) -> Tensor:
    """An argument that never needs a gradient: a Tensor or a numpy array."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, np.ndarray):
        return _wrap(value)
    _fail(fn, f"{name} must be an nnbook Tensor or a numpy array, got {_describe(value)}.",
          cls=DTypeError, hint=f"wrap it: nb.tensor({name}).")


def _array(fn: str, name: str, value):
    """A constant handed to an op's constructor (class weights, running statistics)."""
    if value is None or isinstance(value, np.ndarray):
        return value
    return _data(fn, name, value)._array


def _check_layout(fn: str, input, weight, groups, spatial: int):
    """Images (or volumes) in another layout than (N, C, H, W) (or (N, C, D, H, W)):
    channels last, say, get a hint that says how to reorder them, before the
    convolution's own check of the channels."""
    if input.ndim not in (spatial + 1, spatial + 2) or weight.ndim != spatial + 2 \
            or not isinstance(groups, int):
        return
    channels = weight.shape[1] * groups
    hint = channels_hint(input.shape, channels, fn, spatial)
    if hint is not None:
        _fail(fn, f"expects input with {channels} channels in dimension "
              f"{input.ndim - 1 - spatial}, got {input.shape[-1 - spatial]}.",
              values=f"input {fmt_shape(input.shape)}   weight {fmt_shape(weight.shape)}   "
              f"groups={groups}", hint=hint, cls=ShapeError)


def _with_indices(op, out):
    """(out, where each maximum is in its plane): int64, shaped as ``out``, no gradient;
    for the max pools with ``return_indices=True``."""
    if "indices" not in vars(op):  # a shape-only pass: the indices' shape and dtype only
        return out, meta_tensor(out.shape, np.int64)
    return out, _wrap(op.indices.reshape(out.shape))


class LegacyReductionWarning(UserWarning):
    """size_average / reduce were given (deprecated in PyTorch too)."""


def legacy_reduction(where: str, size_average, reduce, reduction: str) -> str:
    """``reduction``, or what PyTorch's deprecated size_average/reduce flags mean, with a
    warning (the one place they are read, for the loss functions and the loss layers)."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    new = "none" if not reduce else ("mean" if size_average else "sum")
    warn_from_user_code(LegacyReductionWarning(message(
        "size_average and reduce are deprecated (in PyTorch too).", where=where,
        hint=f"use reduction={new!r}.", line=False)))
    return new
