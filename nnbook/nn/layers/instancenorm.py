"""InstanceNorm1d and InstanceNorm2d: each channel of each sample standardised over its
positions (a style's contrast taken out of each image, as style transfer does).

    y = (x - mean) / sqrt(var + eps) * weight + bias,  mean and var over L, or H and W

Unlike batch norm, the defaults learn nothing and keep no running statistics
(``affine=False``, ``track_running_stats=False``), as in PyTorch; with
``track_running_stats=True`` the running statistics move towards the batch's average
instance statistics in training and normalise in evaluation.  A single sample without
its batch dimension, (C, L) or (C, H, W), is taken too.
"""
from __future__ import annotations

from ...errors import ShapeError, fmt_shape, message
from .. import functional as F
from .containers import mismatch_hint
from .norm import _BatchNorm


class _InstanceNorm(_BatchNorm):
    _batched: int = 3  # dimensions of a batch; one fewer is a single sample

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device=None,
                 dtype=None, *, bias: bool = True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def forward(self, input):
        self._check_input(input)
        unbatched = input.ndim == self._batched - 1
        if unbatched:
            input = input.unsqueeze(0)
        out = F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                              self.bias, self.training or not self.track_running_stats,
                              0.0 if self.momentum is None else self.momentum, self.eps)
        return out.squeeze(0) if unbatched else out

    def _check_input(self, input):
        ndim = getattr(input, "ndim", None)
        if ndim is None:
            return  # F reports what it is
        cls, n = type(self).__name__, self._batched
        if ndim not in (n - 1, n):
            raise ShapeError(message(
                f"expects a {n - 1}-D or {n}-D input {self._layout}, got {ndim}-D with shape "
                f"{fmt_shape(input.shape)}.",
                hint="InstanceNorm2d is for images (N, C, H, W) or (C, H, W), InstanceNorm1d "
                "for sequences (N, C, L) or (C, L); pick the one matching the input."))
        got = input.shape[ndim - n + 1]
        if got != self.num_features:
            raise ShapeError(message(
                f"expects input with {self.num_features} channels, got {got}.",
                values=f"input {fmt_shape(input.shape)}   num_features={self.num_features}",
                hint=mismatch_hint(f"{cls}({got})", "channels", got, self.num_features)))


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of sequences (N, C, L), or one sequence (C, L)."""

    _batched, _layout = 3, "(N, C, L) or (C, L)"


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of images (N, C, H, W), or one image (C, H, W)."""

    _batched, _layout = 4, "(N, C, H, W) or (C, H, W)"
