"""``nnbook.nn.functional`` (import it as ``F``): PyTorch's functional API over nnbook's ops.

Every function is a thin wrapper: check the arguments a Python call can get wrong,
then ``apply`` one op.  Names, argument orders and defaults are PyTorch's, so
``F.cross_entropy(logits, labels)`` reads the same in both libraries.

Inputs that may need a gradient must be nnbook Tensors.  Data that never does
(targets, class weights, running statistics) may also be numpy arrays.
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from ..errors import ArgumentError, InputError, MissingNameError, ShapeError, fmt_shape
from ..functions import einsum, pdist
from ..ops.base import channels_hint, is_real, pair, per_axis
from ..ops.class_targets import OneHot
from ..ops.dropout import Dropout
from ..ops.explog import Softplus
from ..ops.linalg import Linear
from ..ops.losses import CrossEntropy, MseLoss, NllLoss
from ..ops.norm import BatchNorm
from ..ops.shape import Pad
from ..ops.softmax import LogSoftmax, Softmax
from ..random import numpy_generator
from ..tensor import Tensor, _wrap, apply

# The families in files of their own, each listing its names in its __all__:
from . import (
    functional_activations,
    functional_attention,
    functional_distance,
    functional_dropout,
    functional_losses,
    functional_norms,
    functional_vision,
    functional_volumes,
)
from .arguments import (
    LegacyReductionWarning,  # part of this module's names
    _array,
    _check_layout,
    _data,
    _fail,
    _tensor,
    _where,
    _with_indices,
    legacy_reduction,
)
from .functional_activations import (
    celu,
    elu,
    gelu,
    glu,
    gumbel_softmax,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    leaky_relu,
    logsigmoid,
    mish,
    prelu,
    relu6,
    rrelu,
    selu,
    silu,
    softmin,
    softshrink,
    softsign,
    tanhshrink,
    threshold,
)
from .functional_attention import scaled_dot_product_attention
from .functional_distance import cosine_similarity, normalize, pairwise_distance
from .functional_dropout import (
    alpha_dropout,
    dropout1d,
    dropout2d,
    dropout3d,
    feature_alpha_dropout,
)
from .functional_losses import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cosine_embedding_loss,
    ctc_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    l1_loss,
    margin_ranking_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    poisson_nll_loss,
    smooth_l1_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from .functional_norms import (  # one_hot is defined below
    embedding,
    embedding_bag,
    group_norm,
    instance_norm,
    layer_norm,
    local_response_norm,
    rms_norm,
)
from .functional_vision import (
    affine_grid,
    channel_shuffle,
    fold,
    grid_sample,
    pixel_shuffle,
    pixel_unshuffle,
    unfold,
)
from .functional_volumes import (
    adaptive_avg_pool3d,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    avg_pool3d,
    conv3d,
    conv_transpose3d,
    max_pool3d,
    max_pool3d_with_indices,
)

__all__ = [
    "linear", "bilinear", "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d",
    "max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d",
    "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "batch_norm",
    "max_pool1d_with_indices", "max_pool2d_with_indices", "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices", "max_unpool1d", "max_unpool2d",
    "upsample_nearest", "upsample_bilinear",
    "interpolate", "upsample",
    "relu", "sigmoid", "tanh", "softmax", "log_softmax", "nll_loss", "cross_entropy",
    "mse_loss", "dropout", "pad", "softplus", "one_hot", "pdist", "lp_pool1d", "lp_pool2d",
    "lp_pool3d",
]
for _family in (functional_activations, functional_attention, functional_distance,
                functional_dropout, functional_losses, functional_norms, functional_vision,
                functional_volumes):
    __all__ += _family.__all__
del _family


# ---------------------------------------------------------------------------
# Layers
# ---------------------------------------------------------------------------

def linear(input, weight, bias=None):
    """y = input @ weight.T + bias, with weight of shape (out_features, in_features)."""
    tensors = [_tensor("linear", "input", input), _tensor("linear", "weight", weight)]
    if bias is not None:
        tensors.append(_tensor("linear", "bias", bias))
    return apply(Linear(), *tensors)


def bilinear(input1, input2, weight, bias=None):
    """y_o = sum_ij input1_i weight_oij input2_j + bias_o; weight (out, in1, in2)."""
    fn = "bilinear"
    x1, x2, w = (_tensor(fn, name, t) for name, t in
                 (("input1", input1), ("input2", input2), ("weight", weight)))
    if w.ndim != 3 or x1.shape[-1:] != w.shape[1:2] or x2.shape[-1:] != w.shape[2:] or \
            x1.shape[:-1] != x2.shape[:-1]:
        _fail(fn, "expects input1 (..., in1_features) and input2 (..., in2_features) with the "
              "same leading dimensions, and weight (out_features, in1_features, "
              "in2_features).", cls=ShapeError,
              values=f"input1 {fmt_shape(x1.shape)}   input2 {fmt_shape(x2.shape)}   "
              f"weight {fmt_shape(w.shape)}",
              hint="each sample pairs one vector of each input: check their sizes against "
              "Bilinear(in1_features, in2_features, out_features).")
    out = einsum("...i,oij,...j->...o", x1, w, x2)
    return out if bias is None else out + _tensor(fn, "bias", bias)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution; ``padding`` may also be 'valid' or 'same' (stride 1), as in PyTorch."""
    from ..ops.conv import Conv2d

    tensors = [_tensor("conv2d", "input", input), _tensor("conv2d", "weight", weight)]
    if bias is not None:
        tensors.append(_tensor("conv2d", "bias", bias))
    _check_layout("conv2d", tensors[0], tensors[1], groups, spatial=2)
    return apply(Conv2d(stride, padding, dilation, groups), *tensors)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution over (N, C_in, L): conv2d on (N, C_in, 1, L) (see ops/onedim.py)."""
    from ..ops.onedim import Conv1d

    tensors = [_tensor("conv1d", "input", input), _tensor("conv1d", "weight", weight)]
    if bias is not None:
        tensors.append(_tensor("conv1d", "bias", bias))
    return apply(Conv1d(stride, padding, dilation, groups), *tensors)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """Transposed 2-D convolution (conv2d's gradient with respect to its input, as a layer);
    weight (C_in, C_out / groups, kh, kw)."""
    from ..ops.conv_transpose import ConvTranspose2d

    tensors = [_tensor("conv_transpose2d", "input", input),
               _tensor("conv_transpose2d", "weight", weight)]
    if bias is not None:
        tensors.append(_tensor("conv_transpose2d", "bias", bias))
    return apply(ConvTranspose2d(stride, padding, output_padding, groups, dilation), *tensors)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """Transposed 1-D convolution over (N, C_in, L): conv_transpose2d on (N, C_in, 1, L)
    (see ops/onedim.py); weight (C_in, C_out / groups, k)."""
    from ..ops.onedim import ConvTranspose1d

    tensors = [_tensor("conv_transpose1d", "input", input),
               _tensor("conv_transpose1d", "weight", weight)]
    if bias is not None:
        tensors.append(_tensor("conv_transpose1d", "bias", bias))
    return apply(ConvTranspose1d(stride, padding, output_padding, groups, dilation), *tensors)


def adaptive_avg_pool1d(input, output_size):
    """Average pooling of a signal (N, C, L) to a fixed length ``output_size``."""
    from ..ops.onedim import AdaptiveAvgPool1d

    input = _tensor("adaptive_avg_pool1d", "input", input)
    return apply(AdaptiveAvgPool1d(output_size), input)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling of a signal (N, C, L) to a fixed length ``output_size``, with
    adaptive_avg_pool1d's windows; ``return_indices=True`` also returns where each maximum
    was (int64 positions along L)."""
    from ..ops.onedim import AdaptiveMaxPool1d

    input = _tensor("adaptive_max_pool1d", "input", input)
    op = AdaptiveMaxPool1d(output_size)
    out = apply(op, input)
    return _with_indices(op, out) if return_indices else out


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool1d that always returns (output, indices)."""
    return adaptive_max_pool1d(input, output_size, return_indices=True)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over each window of a signal (N, C, L); ``stride`` defaults to ``kernel_size``.
    ``return_indices=True`` also returns where each maximum is (int64 positions along L),
    what ``F.max_unpool1d`` needs."""
    from ..ops.onedim import MaxPool1d

    input = _tensor("max_pool1d", "input", input)
    op = MaxPool1d(kernel_size, stride, padding, dilation, ceil_mode, return_indices)
    out = apply(op, input)
    return _with_indices(op, out) if return_indices else out


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool1d that always returns (output, indices)."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Mean of each window of a signal (N, C, L), with avg_pool2d's divisor rules."""
    from ..ops.onedim import AvgPool1d

    input = _tensor("avg_pool1d", "input", input)
    return apply(AvgPool1d(kernel_size, stride, padding, ceil_mode, count_include_pad), input)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over each window; ``stride`` defaults to ``kernel_size``.  ``return_indices=True``
    also returns where each maximum is in its (H, W) plane (int64, row·W + column), what
    ``F.max_unpool2d`` needs."""
    from ..ops.pool import MaxPool2d

    input = _tensor("max_pool2d", "input", input)
    op = MaxPool2d(kernel_size, stride, padding, dilation, ceil_mode, return_indices)
    out = apply(op, input)
    return _with_indices(op, out) if return_indices else out


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool2d that always returns (output, indices)."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Put each value of ``input`` back at its place in a plane of zeros: the inverse of
    ``max_pool2d(..., return_indices=True)`` (ops/unpool.py).  ``output_size`` (H, W) or
    (N, C, H, W) picks the size when the pooling left rows or columns out."""
    from ..ops.unpool import MaxUnpool2d

    input = _tensor("max_unpool2d", "input", input)
    indices = _data("max_unpool2d", "indices", indices)
    return apply(MaxUnpool2d(kernel_size, stride, padding, output_size), input, indices)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_unpool2d for signals (N, C, L): each value back at its place along L."""
    from ..ops.onedim import MaxUnpool1d

    input = _tensor("max_unpool1d", "input", input)
    indices = _data("max_unpool1d", "indices", indices)
    return apply(MaxUnpool1d(kernel_size, stride, padding, output_size), input, indices)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Average over each window; ``stride`` defaults to ``kernel_size``."""
    from ..ops.pool import AvgPool2d

    input = _tensor("avg_pool2d", "input", input)
    return apply(AvgPool2d(kernel_size, stride, padding, ceil_mode, count_include_pad,
                           divisor_override), input)


def _norm_type(fn: str, norm_type) -> float:
    if not is_real(norm_type):
        _fail(fn, f"norm_type must be a number, got {norm_type!r}.", cls=ArgumentError,
              hint="norm_type=2 pools each window to its Euclidean norm.")
    if norm_type == 0:  # (PyTorch: a ZeroDivisionError, from 1 / norm_type)
        _fail(fn, "norm_type=0 has no norm: the result is the 1 / norm_type power.",
              hint="norm_type=1 sums each window, 2 takes its Euclidean norm, "
              "float('inf') its largest magnitude.")
    return norm_type


def _lp_pool(x, p, window: int, mean_pool, max_pool):
    """(Σ_window x^p)^(1/p), computed as PyTorch does: the window's mean of x^p, times the
    window's size, to the power 1/p."""
    if p == math.inf:  # the limit: the largest |x| of the window
        return max_pool(x.abs())
    if p == -math.inf:  # and the smallest
        return -max_pool(-x.abs())
    mean = mean_pool(x.pow(p))
    # sign(mean)·relu(|mean|) is mean itself, with slope 0 where mean = 0 (where the
    # 1/p power's slope is infinite): a window of zeros passes no gradient back
    return (mean.sign() * mean.abs().relu()).mul(window).pow(1.0 / p)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The p-norm of each window of a signal (N, C, L), p = norm_type: no padding, and
    ``stride`` defaults to ``kernel_size`` (an int here, as in PyTorch)."""
    fn = "lp_pool1d"
    x, p = _tensor(fn, "input", input), _norm_type(fn, norm_type)
    if not isinstance(kernel_size, numbers.Integral) or isinstance(kernel_size, bool):
        _fail(fn, f"kernel_size must be an int, got {kernel_size!r}.", cls=ArgumentError,
              hint="e.g. kernel_size=3.")
    return _lp_pool(x, p, kernel_size,
                    lambda t: avg_pool1d(t, kernel_size, stride, 0, ceil_mode),
                    lambda t: max_pool1d(t, kernel_size, stride, 0, 1, ceil_mode))


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The p-norm of each window of an image (N, C, H, W), p = norm_type: no padding, and
    ``stride`` defaults to ``kernel_size``."""
    fn = "lp_pool2d"
    x, p = _tensor(fn, "input", input), _norm_type(fn, norm_type)
    kh, kw = pair(kernel_size, "kernel_size", _where(fn))
    return _lp_pool(x, p, kh * kw,
                    lambda t: avg_pool2d(t, kernel_size, stride, 0, ceil_mode),
                    lambda t: max_pool2d(t, kernel_size, stride, 0, 1, ceil_mode))


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The p-norm of each window of a volume (N, C, D, H, W), p = norm_type: no padding,
    and ``stride`` defaults to ``kernel_size``."""
    fn = "lp_pool3d"
    x, p = _tensor(fn, "input", input), _norm_type(fn, norm_type)
    kd, kh, kw = per_axis(kernel_size, 3, "kernel_size", _where(fn))
    return _lp_pool(x, p, kd * kh * kw,
                    lambda t: avg_pool3d(t, kernel_size, stride, 0, ceil_mode),
                    lambda t: max_pool3d(t, kernel_size, stride, 0, 1, ceil_mode))


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed (H_out, W_out); None in ``output_size`` keeps that size."""
    from ..ops.pool import AdaptiveAvgPool2d

    input = _tensor("adaptive_avg_pool2d", "input", input)
    if isinstance(output_size, (tuple, list)) and None in output_size and input.ndim >= 2:
        output_size = tuple(input.shape[-2 + i] if s is None else s
                            for i, s in enumerate(output_size))
    return apply(AdaptiveAvgPool2d(output_size), input)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling to a fixed (H_out, W_out), with adaptive_avg_pool2d's windows;
    ``return_indices=True`` also returns where each maximum is in its plane (as max_pool2d)."""
    from ..ops.adaptive_max import AdaptiveMaxPool2d

    input = _tensor("adaptive_max_pool2d", "input", input)
    op = AdaptiveMaxPool2d(output_size)
    out = apply(op, input)
    return _with_indices(op, out) if return_indices else out


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool2d that always returns (output, indices)."""
    return adaptive_max_pool2d(input, output_size, return_indices=True)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize a signal or an image: modes 'nearest', 'nearest-exact', 'area', 'linear',
    'bilinear' and 'bicubic' (the weights of each are in ops/interpolate.py)."""
    from ..ops.interpolate import Interpolate

    input = _tensor("interpolate", "input", input)
    if antialias:
        _fail("interpolate", "antialias=True is not supported by nnbook.",
              hint="leave antialias out; to shrink an image smoothly, use mode='area' (the "
              "mean of each window) or blur it first (F.avg_pool2d).")
    return apply(Interpolate(size, scale_factor, mode, align_corners, recompute_scale_factor),
                 input)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """The old name of interpolate; it warns, as PyTorch's, that the name is deprecated."""
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """The old name of interpolate(..., mode='nearest'); it warns, as PyTorch's."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """The old name of interpolate(..., mode='bilinear', align_corners=True): the corner
    pixels stay where they are.  It warns, as PyTorch's."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def _deprecated(name: str) -> None:
    warnings.warn(f"nn.functional.{name} is deprecated (in PyTorch too); use "
                  "nn.functional.interpolate instead.", UserWarning, stacklevel=3)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise each channel; in training the running statistics are updated in place."""
    if momentum is None:
        _fail("batch_norm", "momentum=None (a cumulative average) needs the number of "
              "batches seen, which F.batch_norm does not keep.",
              hint="give a float momentum (default 0.1), or use nn.BatchNorm2d(C, "
              "momentum=None), whose num_batches_tracked counts the batches.")
    return batch_norm_counted(input, running_mean, running_var, weight, bias, training,
                              momentum, eps)


def batch_norm_counted(input, running_mean, running_var, weight=None, bias=None,
                       training=False, momentum=0.1, eps=1e-5, num_batches_tracked=None):
    """batch_norm that also counts training batches in ``num_batches_tracked`` (a 0-d
    int tensor), as BatchNorm layers need (momentum=None uses the count)."""
    fn = "batch_norm"
    input = _tensor(fn, "input", input)
    op = BatchNorm(training, momentum, eps, _array(fn, "running_mean", running_mean),
                   _array(fn, "running_var", running_var),
                   _array(fn, "num_batches_tracked", num_batches_tracked))
    tensors = [input]
    if weight is not None or bias is not None:
        # bias without weight: a constant weight of ones (no gradient) takes its place
        tensors.append(_tensor(fn, "weight", weight) if weight is not None
                       else _wrap(np.ones(input.shape[1:2], dtype=input._array.dtype)))
    if bias is not None:
        tensors.append(_tensor(fn, "bias", bias))
    out = apply(op, *tensors)
    if op.running_update is not None:  # a training forward ran (not a shape-only pass)
        new_mean, new_var = op.running_update
        _write_statistic(running_mean, new_mean)
        _write_statistic(running_var, new_var)
        if num_batches_tracked is not None:
            _write_statistic(num_batches_tracked, np.asarray(num_batches_tracked) + 1)
    return out


def _write_statistic(buffer, value) -> None:
    """Store a running statistic in place, after the op succeeded.

    A Tensor's value goes in through ``Tensor._store``, the last step of every
    in-place write: its version counter moves (a graph that saved the buffer notices),
    and a recording does not list the bookkeeping as ops of the model.
    """
    if isinstance(buffer, Tensor):
        buffer._store(_wrap(np.asarray(value)), "batch_norm")
    else:
        buffer[...] = value


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero elements with probability p and scale the rest by 1/(1-p) (training only).

    ``inplace=True`` is accepted for PyTorch code but computes a new tensor: use the
    returned value.
    """
    input = _tensor("dropout", "input", input)
    return apply(Dropout(numpy_generator(), p, training), input)


# ---------------------------------------------------------------------------
# Activations
# ---------------------------------------------------------------------------

def relu(input, inplace=False):
    """max(input, 0).  ``inplace=True`` is accepted but computes a new tensor."""
    return _tensor("relu", "input", input).relu()


def sigmoid(input):
    return _tensor("sigmoid", "input", input).sigmoid()


def tanh(input):
    return _tensor("tanh", "input", input).tanh()


def softplus(input, beta=1.0, threshold=20.0):  # noqa: F811 (PyTorch's argument name)
    """log(1 + exp(beta x)) / beta, a smooth relu; x itself where beta x > threshold."""
    return apply(Softplus(beta, threshold), _tensor("softplus", "input", input)._floating())


def _softmax_like(fn, op_class, input, dim, dtype):
    input = _tensor(fn, "input", input)
    if dim is None:
        _fail(fn, "dim must be given: which dimension holds the classes?",
              values=f"input {fmt_shape(input.shape)}",
              hint=f"for scores of shape (N, C) use F.{fn}(x, dim=1) (or dim=-1); "
              "PyTorch's implicit choice of dim is deprecated.")
    if dtype is not None:
        input = input.to(dtype)
    return apply(op_class(dim), input)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along ``dim`` (``_stacklevel`` only lines arguments up with PyTorch)."""
    return _softmax_like("softmax", Softmax, input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """x - logsumexp(x) along ``dim``: log-probabilities, computed stably."""
    return _softmax_like("log_softmax", LogSoftmax, input, dim, dtype)


# ---------------------------------------------------------------------------
# Losses
# ---------------------------------------------------------------------------

def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """-input[i, target[i]] (times the class weight), averaged over the target weights.

    ``input`` holds log-probabilities (N, C) or (N, C, d1, ...); ``target`` class indices.
    """
    fn = "nll_loss"
    op = NllLoss(_array(fn, "weight", weight), ignore_index,
                 legacy_reduction(f"F.{fn}", size_average, reduce, reduction))
    return apply(op, _tensor(fn, "input", input), _data(fn, "target", target))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """nll_loss(log_softmax(input, 1), target) in one step; ``input`` holds raw scores.

    ``target`` holds class indices, or class probabilities with the input's shape.
    """
    fn = "cross_entropy"
    op = CrossEntropy(_array(fn, "weight", weight), ignore_index,
                      legacy_reduction(f"F.{fn}", size_average, reduce, reduction),
                      label_smoothing)
    return apply(op, _tensor(fn, "input", input), _data(fn, "target", target))


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """mean((input - target)**2); shapes must match (nnbook refuses to broadcast)."""
    fn = "mse_loss"
    op = MseLoss(legacy_reduction(f"F.{fn}", size_average, reduce, reduction))
    tensors = [_tensor(fn, "input", input), _data(fn, "target", target)]
    if weight is not None:
        tensors.append(_data(fn, "weight", weight))
    return apply(op, *tensors)


# ---------------------------------------------------------------------------
# Padding
# ---------------------------------------------------------------------------

def pad(input, pad, mode="constant", value=None):
    """Pad the last len(pad) // 2 dimensions; ``pad`` = (left, right, top, bottom, ...).

    ``mode``: 'constant' (with ``value``, default 0), 'reflect', 'replicate' or 'circular'.
    """
    input = _tensor("pad", "input", input)
    if not isinstance(pad, (tuple, list)) or not all(
            isinstance(p, numbers.Integral) and not isinstance(p, bool) for p in pad):
        _fail("pad", f"pad must be a tuple of ints, got {pad!r}.",
              hint="pad=(1, 1) pads the last dimension by one on each side; "
              "(1, 1, 2, 2) also pads the one before by two.")
    if mode == "constant":
        return apply(Pad(pad, 0.0 if value is None else value), input)
    if mode not in ("reflect", "replicate", "circular"):
        _fail("pad", f"mode={mode!r} is not one of 'constant', 'reflect', 'replicate', "
              "'circular'.", hint="mode='constant' pads with value (default 0).")
    if value not in (None, 0, 0.0):
        _fail("pad", f"value={value!r} only applies to mode='constant', not {mode!r}.",
              hint="drop value, or use mode='constant'.")
    return _index_pad(input, tuple(int(p) for p in pad), mode)


def _index_pad(input, pad, mode):
    """reflect/replicate/circular as a gather along each padded dimension."""
    n = len(pad) // 2
    if len(pad) % 2 or not 1 <= n <= 3 or input.ndim not in (n + 1, n + 2):
        _fail("pad", f"mode={mode!r} pads the last 1, 2 or 3 dimensions of a batch: "
              f"pad={pad} needs a {n + 1}-D or {n + 2}-D input, got {input.ndim}-D "
              f"{fmt_shape(input.shape)}.",
              hint="give (left, right) for (C, L) or (N, C, L); (left, right, top, bottom) "
              "for (N, C, H, W).", cls=InputError)
    # PyTorch's rule: no padded size below 0, and (but for circular) not all of them 0
    sizes = [input.shape[-1 - i] + pad[2 * i] + pad[2 * i + 1] for i in range(n)]
    if min(sizes) < 0 or (mode != "circular" and max(sizes) < 1):
        _fail("pad", f"mode={mode!r} with pad={pad} leaves nothing of the input "
              f"{fmt_shape(input.shape)}.", hint="crop less: negative padding removes "
              "values, and the result must keep some.")
    out = input
    for i in range(n):
        dim = input.ndim - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        size = input.shape[dim]
        pos = np.arange(-before, size + after)
        out = out[(slice(None),) * dim + (_border_positions(pos, size, mode, before, after),)]
    return out


def _border_positions(pos, size, mode, before, after):
    """Map positions outside 0..size-1 back inside, the way ``mode`` reads the border."""
    if mode == "replicate":
        if size == 0:
            _fail("pad", "mode='replicate' cannot pad an empty dimension.")
        return np.clip(pos, 0, size - 1)
    if mode == "reflect":
        if max(before, after) >= size:
            _fail("pad", f"mode='reflect' needs padding smaller than the dimension: got "
                  f"({before}, {after}) for a dimension of size {size}.",
                  hint="reflection mirrors interior values; use mode='replicate' or "
                  "'constant' for wider padding.")
        pos = np.abs(pos)  # -k mirrors onto k
        return np.where(pos >= size, 2 * (size - 1) - pos, pos)
    # a negative padding crops first (as PyTorch); the padding then wraps round what is left
    first, end = max(-before, 0), size - max(-after, 0)
    if end < first:
        _fail("pad", f"mode='circular' with padding ({before}, {after}) crops more than the "
              f"dimension of size {size} has.", hint="crop less, or use mode='constant'.")
    if pos.size == 0:  # cropped to nothing, and nothing to wrap
        return pos
    if end == first:
        _fail("pad", f"mode='circular' with padding ({before}, {after}) crops away the whole "
              f"dimension of size {size}.", hint="crop less, or use mode='constant'.")
    if max(before, after) > end - first:
        cropped = f" ({end - first} after cropping)" if end - first < size else ""
        _fail("pad", f"mode='circular' needs padding no larger than the dimension: got "
              f"({before}, {after}) for a dimension of size {size}{cropped}.",
              hint="circular padding wraps around once at most.")
    return first + (pos - first) % (end - first)


# ---------------------------------------------------------------------------
# Class labels
# ---------------------------------------------------------------------------

def one_hot(tensor, num_classes=-1):
    """Class indices (int64) as rows of zeros with a 1 at each index: shape
    ``(*tensor.shape, num_classes)``, int64.  ``num_classes=-1`` counts the classes from
    the largest label."""
    labels = _data("one_hot", "tensor", tensor)
    if num_classes == -1 and labels._array.dtype == np.int64:
        if labels.numel() == 0:
            _fail("one_hot", "cannot count the classes of an empty tensor of labels.",
                  hint="give num_classes: F.one_hot(y, num_classes=10).")
        num_classes = max(int(labels._array.max()) + 1, 0)  # a negative label fails in the op
    return apply(OneHot(num_classes), labels)


def __getattr__(name):
    """Only reached for a name nn.functional does not have: a typo, or a function nnbook
    leaves out."""
    if name.startswith("__"):
        raise AttributeError(f"module 'nnbook.nn.functional' has no attribute '{name}'")
    raise MissingNameError("nn.functional", name, lambda: __all__)
