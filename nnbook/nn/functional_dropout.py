"""Dropout of whole channels (dropout1d, 2d, 3d) and alpha dropout, for SELU networks.

Like ``F.dropout`` they draw from nnbook's generator (``nb.manual_seed`` makes them
repeatable) and pass the input through when ``training`` is False.
"""
from __future__ import annotations

from ..errors import fmt_shape
from ..ops.dropout import AlphaDropout, FeatureDropout, check_probability
from ..random import numpy_generator
from ..tensor import apply
from .arguments import _fail, _tensor

__all__ = ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]


def _channel_dropout(fn, input, p, training, spatial):
    """Zero whole channels: ``spatial`` trailing dimensions per channel, with or without a
    batch dimension in front ((N, C, *spatial) or (C, *spatial))."""
    input = _tensor(fn, "input", input)
    p = check_probability(p, f"F.{fn}")
    batched = spatial + 2
    allowed = (batched, batched - 1)
    if fn == "dropout2d" and input.ndim == 3:
        batched = 3  # PyTorch reads a 3-D input to dropout2d as (N, C, L)
    elif input.ndim not in allowed:
        layout = {1: "L", 2: "H, W", 3: "D, H, W"}[spatial]
        _fail(fn, f"expects a {allowed[1]}-D input (C, {layout}) or a {allowed[0]}-D input "
              f"(N, C, {layout}), got {input.ndim}-D with shape {fmt_shape(input.shape)}.",
              hint=f"{fn} drops whole channels of inputs with {spatial} spatial "
              "dimension(s); for single values use F.dropout.")
    return apply(FeatureDropout(numpy_generator(), p, training, input.ndim == batched), input)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) or (C, L) with probability p, scale the rest."""
    return _channel_dropout("dropout1d", input, p, training, 1)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, H, W) or (C, H, W)... with probability p; a 3-D input
    is read as (N, C, L), as PyTorch does."""
    return _channel_dropout("dropout2d", input, p, training, 2)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) with probability p."""
    return _channel_dropout("dropout3d", input, p, training, 3)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps SELU's mean 0 and variance 1 (note: ``training`` defaults to
    False here, as in PyTorch)."""
    input = _tensor("alpha_dropout", "input", input)
    p = check_probability(p, "F.alpha_dropout")
    return apply(AlphaDropout(numpy_generator(), p, training), input)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout of whole channels (dimension 1)."""
    input = _tensor("feature_alpha_dropout", "input", input)
    p = check_probability(p, "F.feature_alpha_dropout")
    return apply(AlphaDropout(numpy_generator(), p, training, feature=True), input)
