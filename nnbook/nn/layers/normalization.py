"""InstanceNorm1d, InstanceNorm2d and InstanceNorm3d, RMSNorm and LocalResponseNorm.

InstanceNorm1d, 2d and 3d: each channel of each sample standardised over its positions
(a style's contrast taken out of each image, as style transfer does; a scan's brightness
taken out of each volume).

    y = (x - mean) / sqrt(var + eps) * weight + bias,  mean and var over L, H and W, or D,
                                                        H and W

Unlike batch norm, the defaults learn nothing and keep no running statistics
(``affine=False``, ``track_running_stats=False``), as in PyTorch; with
``track_running_stats=True`` the running statistics move towards the batch's average
instance statistics in training and normalise in evaluation.  A single sample without
its batch dimension, (C, L), (C, H, W) or (C, D, H, W), is taken too.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import default_float
from ...errors import InputError, ShapeError, fmt_shape, message
from ...ops.base import is_real
from .. import functional as F
from .. import init
from ..functional_norms import normalized_shape_of
from ..module import Module
from ..parameter import Parameter
from ._args import check_device, positive_int
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
                "for sequences (N, C, L) or (C, L), InstanceNorm3d for volumes "
                "(N, C, D, H, W) or (C, D, H, W); pick the one matching the input."))
        got = input.shape[ndim - n + 1]
        if got != self.num_features:
            hint = mismatch_hint(f"{cls}({got})", "channels", got, self.num_features)
            if ndim == n - 1:
                hint = (f"a {ndim}-D input is read as one sample {self._layout.split(' or ')[1]}"
                        f" without its batch dimension; {hint}")
            raise ShapeError(message(
                f"expects input with {self.num_features} channels, got {got}.",
                values=f"input {fmt_shape(input.shape)}   num_features={self.num_features}",
                hint=hint))


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of sequences (N, C, L), or one sequence (C, L)."""

    _batched, _layout = 3, "(N, C, L) or (C, L)"


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of images (N, C, H, W), or one image (C, H, W)."""

    _batched, _layout = 4, "(N, C, H, W) or (C, H, W)"


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of volumes (N, C, D, H, W), or one volume (C, D, H, W)."""

    _batched, _layout = 5, "(N, C, D, H, W) or (C, D, H, W)"


class RMSNorm(Module):
    """Divide each sample by its root mean square over the last dimensions, then scale:
    y = x / sqrt(mean(x²) + eps) · weight.  ``normalized_shape`` as LayerNorm's; the weight
    starts at 1 (``elementwise_affine=False``: none); ``eps=None`` is the machine epsilon
    of the input's dtype, as in PyTorch."""

    def __init__(self, normalized_shape, eps: float | None = None,
                 elementwise_affine: bool = True, device=None, dtype=None):
        super().__init__()
        check_device("RMSNorm", device)
        self.normalized_shape = normalized_shape_of(normalized_shape, "RMSNorm")
        if eps is not None and (not is_real(eps) or eps < 0):
            raise InputError(message(f"eps={eps!r} must be a number >= 0 or None.",
                                     where="RMSNorm", hint="eps=None (the default) takes "
                                     "the machine epsilon of the input's dtype."))
        self.eps, self.elementwise_affine = eps, elementwise_affine
        dtype = np.dtype(dtype or default_float())
        self.register_parameter("weight", Parameter(np.ones(self.normalized_shape, dtype))
                                if elementwise_affine else None)

    def reset_parameters(self) -> None:
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, input):
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LocalResponseNorm(Module):
    """Divide each value by (k + alpha · the mean of the squares of ``size`` neighbouring
    channels) ** beta, across the channels (dimension 1) of (N, C, *)."""

    preserves_channels = True  # for hints: the channel count passes through

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        self.size = positive_int("LocalResponseNorm", "size", size)
        self.alpha, self.beta, self.k = alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
