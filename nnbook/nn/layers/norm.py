"""Normalisation layers: BatchNorm1d, BatchNorm2d and BatchNorm3d (each channel over the batch),
LayerNorm (each sample over its last dimensions), GroupNorm (groups of channels).

BatchNorm:

Training: y = (x - batch mean) / sqrt(batch var + eps) * weight + bias, and the
running estimates move towards the batch statistics:
    running = (1 - momentum) * running + momentum * batch statistic
(the running variance uses the unbiased batch variance, as PyTorch does).
Evaluation (``model.eval()``): the running estimates replace the batch statistics.
``momentum=None`` averages all batches seen equally (momentum = 1 / batches so far).
``affine=False`` learns no weight and bias; ``bias=False`` (keyword) learns only the weight.
"""
from __future__ import annotations

import numpy as np

from ...context import no_grad
from ...dtypes import default_float
from ...errors import InputError, ShapeError, fmt_shape, message
from ...ops.base import channels_hint
from ...tensor import _wrap
from .. import functional as F
from .. import init
from ..functional_norms import normalized_shape_of
from ..module import Module
from ..parameter import Parameter
from ._args import check_device, positive_int
from .containers import mismatch_hint


class _BatchNorm(Module):
    preserves_channels = True  # for hints: the channel count passes through
    _ndims: tuple = ()
    _layout: str = ""
    _optional_buffers = ("num_batches_tracked",)  # a checkpoint may lack it (nn/loading.py)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device=None,
                 dtype=None, *, bias: bool = True):
        super().__init__()
        cls = type(self).__name__
        check_device(cls, device)
        self.num_features = positive_int(cls, "num_features", num_features)
        self.eps, self.momentum = eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        dtype = np.dtype(dtype or default_float())
        c = self.num_features
        if affine:
            self.weight = Parameter(np.ones((c,), dtype))
            if bias:
                self.bias = Parameter(np.zeros((c,), dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _wrap(np.zeros((c,), dtype)))
            self.register_buffer("running_var", _wrap(np.ones((c,), dtype)))
            self.register_buffer("num_batches_tracked", _wrap(np.array(0, dtype=np.int64)))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def reset_parameters(self) -> None:
        """Back to the start: running statistics 0 and 1, weight 1, bias 0."""
        self.reset_running_stats()
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.data[...] = 0
            self.running_var.data[...] = 1
            with no_grad():
                self.num_batches_tracked.zero_()

    def forward(self, input):
        self._check_input(input)
        # Batch statistics while training, or whenever there are no running ones.
        use_batch = self.training or self.running_mean is None
        keep = not self.training or self.track_running_stats
        # The op updates the running statistics and counts the batch, so a shape-only
        # pass (nb.infer_shapes) leaves the layer untouched.
        count = self.num_batches_tracked if self.training and self.track_running_stats \
            else None
        return F.batch_norm_counted(input, self.running_mean if keep else None,
                                    self.running_var if keep else None, self.weight,
                                    self.bias, use_batch, self.momentum, self.eps, count)

    def _check_input(self, input):
        ndim = getattr(input, "ndim", None)
        if ndim is None:
            return  # F reports what it is
        cls = type(self).__name__
        if ndim not in self._ndims:
            want = " or ".join(f"{n}-D" for n in self._ndims)
            raise ShapeError(message(
                f"expects a {want} input {self._layout}, got {ndim}-D with shape "
                f"{fmt_shape(input.shape)}.",
                hint="BatchNorm2d is for images (N, C, H, W), BatchNorm1d for features "
                "(N, C) or sequences (N, C, L), BatchNorm3d for volumes (N, C, D, H, W); "
                "pick the one matching the input."))
        got = input.shape[1]
        if got != self.num_features:
            spatial = ndim - 2 if ndim in (4, 5) else None  # images or volumes
            raise ShapeError(message(
                f"expects input with {self.num_features} channels, got {got}.",
                values=f"input {fmt_shape(input.shape)}   num_features={self.num_features}",
                hint=(channels_hint(input.shape, self.num_features, cls, spatial)
                      if spatial else None)
                or mismatch_hint(f"{cls}({got})", "channels", got, self.num_features)))

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) features or (N, C, L) sequences, per channel C."""

    _ndims, _layout = (2, 3), "(N, C) or (N, C, L)"


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) images, per channel C."""

    _ndims, _layout = (4,), "(N, C, H, W)"


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of (N, C, D, H, W) volumes, per channel C."""

    _ndims, _layout = (5,), "(N, C, D, H, W)"


class LayerNorm(Module):
    """Standardise each sample over its last dimensions, then scale and shift.

    ``normalized_shape`` is the size of the trailing dimension(s): ``LayerNorm(64)`` for
    (N, 64) or (N, L, 64), ``LayerNorm([C, H, W])`` for whole images.  Weight starts at 1,
    bias at 0 (``elementwise_affine=False``: neither; ``bias=False``: no bias).
    """

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device=None, dtype=None):
        super().__init__()
        check_device("LayerNorm", device)
        self.normalized_shape = normalized_shape_of(normalized_shape, "LayerNorm")
        self.eps, self.elementwise_affine = eps, elementwise_affine
        dtype = np.dtype(dtype or default_float())
        if elementwise_affine:
            self.weight = Parameter(np.ones(self.normalized_shape, dtype))
            if bias:
                self.bias = Parameter(np.zeros(self.normalized_shape, dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Split the channels into ``num_groups`` groups and standardise each group of each
    sample; then a weight (starting at 1) and a bias (at 0) per channel."""

    preserves_channels = True

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device=None, dtype=None, *, bias: bool = True):
        super().__init__()
        check_device("GroupNorm", device)
        self.num_groups = positive_int("GroupNorm", "num_groups", num_groups)
        self.num_channels = positive_int("GroupNorm", "num_channels", num_channels)
        if self.num_channels % self.num_groups:
            raise InputError(message(
                f"num_channels={num_channels} must be divisible by num_groups={num_groups}.",
                where="GroupNorm", hint=f"choose num_groups dividing {num_channels}, e.g. "
                f"{_largest_divisor(self.num_channels, self.num_groups)}."))
        self.eps, self.affine = eps, affine
        dtype = np.dtype(dtype or default_float())
        c = self.num_channels
        self.register_parameter("weight", Parameter(np.ones((c,), dtype)) if affine else None)
        self.register_parameter("bias", Parameter(np.zeros((c,), dtype))
                                if affine and bias else None)

    def reset_parameters(self) -> None:
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        ndim = getattr(input, "ndim", None)
        if ndim is not None and ndim >= 2 and input.shape[1] != self.num_channels:
            got = input.shape[1]
            raise ShapeError(message(
                f"expects input with {self.num_channels} channels, got {got}.",
                values=f"input {fmt_shape(input.shape)}   num_channels={self.num_channels}",
                hint=mismatch_hint(f"GroupNorm({self.num_groups}, {got})", "channels", got,
                                   self.num_channels)))
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


def _largest_divisor(n: int, at_most: int) -> int:
    return max(d for d in range(1, min(n, at_most) + 1) if n % d == 0)
