"""BatchNorm1d and BatchNorm2d: normalise each channel over the batch.

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

from ...errors import ShapeError, fmt_shape, message
from ...ops.base import channels_hint
from ...context import no_grad
from ...tensor import _wrap
from .. import functional as F
from ..module import Module
from ..parameter import Parameter
from ._args import check_device, positive_int
from .containers import mismatch_hint


class _BatchNorm(Module):
    preserves_channels = True  # for hints: the channel count passes through
    _ndims: tuple = ()
    _layout: str = ""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device=None,
                 dtype=None, *, bias: bool = True):
        super().__init__()
        cls = type(self).__name__
        check_device(cls, device)
        self.num_features = positive_int(cls, "num_features", num_features)
        self.eps, self.momentum = eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        dtype = np.dtype(dtype or np.float32)
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
                "(N, C) or sequences (N, C, L); pick the one matching the input."))
        got = input.shape[1]
        if got != self.num_features:
            raise ShapeError(message(
                f"expects input with {self.num_features} channels, got {got}.",
                values=f"input {fmt_shape(input.shape)}   num_features={self.num_features}",
                hint=(channels_hint(input.shape, self.num_features, cls) if ndim == 4 else None)
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
