"""Batch normalisation: y = w * (x - mean) / sqrt(var + eps) + b, per channel (dimension 1)."""
from __future__ import annotations

import math

import numpy as np

from ..errors import InputError, fmt_shape
from .base import Op, check_float, is_real


def check_per_channel(op, x, layer: str, **arrays) -> None:
    """Each of ``arrays`` (None, or one value per channel of x's dimension 1) has (C,)."""
    channels = x.shape[1]
    for what, arr in arrays.items():
        if arr is not None and tuple(arr.shape) != (channels,):
            op.fail(f"{what} must hold one value per channel: shape ({channels},), "
                    f"got {fmt_shape(arr.shape)}.",
                    values=f"input {fmt_shape(x.shape)} ({channels} channels in dimension 1)",
                    hint=f"make the layer {layer} for {channels} channels, or check "
                    "that the layer before outputs the channels you expect.")


class BatchNorm(Op):
    """Normalise each channel with the batch's statistics (training) or the running ones.

    Training: mean and (biased) var of this batch.  The op changes nothing it was
    given: it leaves the new running estimates in ``running_update``,
    ``(1 - m) r + m * stat`` for mean and the unbiased variance, and the caller
    writes them into its buffers (``F.batch_norm`` does, through the tensors, so
    their version counters move).  ``momentum=None`` means a cumulative average,
    m = 1 / batches seen, counting this one: it reads ``num_batches_tracked``
    (a 0-d int array), which the caller increments.
    Evaluation: the running estimates replace the batch's.
    Inputs: ``(x,)``, ``(x, weight)`` or ``(x, weight, bias)``.
    """

    name = "batch_norm"

    def __init__(self, training, momentum=0.1, eps=1e-5, running_mean=None, running_var=None,
                 num_batches_tracked=None):
        self.training, self.momentum, self.eps = bool(training), momentum, eps
        self.running_mean, self.running_var = running_mean, running_var
        self.num_batches_tracked = num_batches_tracked
        self._check_settings()
        self.running_update = None  # (new mean, new var), once a training forward ran

    def _check_settings(self):
        if (self.running_mean is None) != (self.running_var is None):
            self.fail("running_mean and running_var must be given together (or both None).",
                      cls=InputError, hint="pass both running statistics, or neither.")
        if not self.training and self.running_mean is None:
            self.fail("evaluation mode needs running_mean and running_var, got None.",
                      cls=InputError, hint="normalise with batch statistics "
                      "(training=True), or keep running statistics (track_running_stats=True).")
        if not is_real(self.eps) or self.eps < 0:
            self.fail(f"eps={self.eps!r} must be a number >= 0.", cls=InputError,
                      hint="the default 1e-5 keeps the division away from zero.")
        if self.momentum is None:
            if self.training and self.running_mean is not None and self.num_batches_tracked is None:
                self.fail("momentum=None (a cumulative average) needs the count of batches "
                          "seen, and none was given.", cls=InputError,
                          hint="give a float momentum such as 0.1, or use the BatchNorm "
                          "module, which keeps num_batches_tracked.")
        elif not is_real(self.momentum):
            self.fail(f"momentum={self.momentum!r} must be a float or None.", cls=InputError,
                      hint="the default is 0.1: running = 0.9 running + 0.1 batch.")

    def infer(self, x, weight=None, bias=None):
        check_float(self, x)
        if x.ndim < 2:
            self.fail(f"expects input (N, C), (N, C, L), (N, C, H, W) or (N, C, D, H, W), got "
                      f"shape {fmt_shape(x.shape)}.",
                      hint="batch norm normalises each channel (dimension 1) over a batch; "
                      "add the batch dimension: x.reshape(1, -1).")
        check_per_channel(self, x, "BatchNorm", weight=weight, bias=bias,
                          running_mean=self.running_mean, running_var=self.running_var)
        if self.training and x.shape[0] * math.prod(x.shape[2:]) <= 1:
            self.fail(f"expected more than 1 value per channel when training, got input of "
                      f"shape {fmt_shape(x.shape)}.",
                      hint="a batch statistic needs at least 2 values per channel: use a "
                      "batch of 2 or more, or call model.eval() to normalise a single "
                      "sample with the running statistics.")
        return x.shape

    def forward(self, x, weight=None, bias=None):
        self.axes = (0,) + tuple(range(2, x.ndim))  # every axis except channels
        self.bshape = (1, -1) + (1,) * (x.ndim - 2)  # per-channel values broadcast like this
        self.count = x.size // x.shape[1]
        if self.training:
            mean = x.mean(axis=self.axes)
            centred = x - mean.reshape(self.bshape)
            var = (centred * centred).mean(axis=self.axes)  # biased: divides by n
            if self.running_mean is not None:
                self.running_update = self.updated_running_stats(mean, var)
        else:
            mean = self.running_mean.astype(x.dtype, copy=False)
            var = self.running_var.astype(x.dtype, copy=False)
            centred = x - mean.reshape(self.bshape)
        self.inv_std = (1 / np.sqrt(var + self.eps)).astype(x.dtype)  # (C,)
        # in place where an array is new and ours: fewer fresh arrays, the same arithmetic
        centred *= self.inv_std.reshape(self.bshape)
        self.x_hat, self.weight = centred, weight
        out = centred.copy() if weight is None else centred * weight.reshape(self.bshape)
        if bias is not None:
            out += bias.reshape(self.bshape)
        return out

    def updated_running_stats(self, mean, var) -> tuple:
        """r_new = (1 - m) r + m * stat; the variance's stat is unbiased (n / (n - 1)), as
        in PyTorch."""
        if self.momentum is None:  # a cumulative average over the batches, this one included
            m = 1.0 / (float(self.num_batches_tracked) + 1)
        else:
            m = float(self.momentum)
        unbiased = var * (self.count / (self.count - 1))
        return ((1 - m) * self.running_mean + m * mean,
                (1 - m) * self.running_var + m * unbiased)

    def backward(self, grad_out):
        # dw = sum(g x_hat), db = sum(g).  Training, where mean and var depend on x:
        #   dx = w inv_std (g - mean(g) - x_hat mean(g x_hat))
        # Evaluation (constants):  dx = w inv_std g
        need = self.needs_input_grad
        g, b = grad_out, self.bshape
        sum_g = g.sum(axis=self.axes)
        g_xhat = g * self.x_hat
        sum_g_xhat = g_xhat.sum(axis=self.axes)
        grad_x = None
        if need[0]:
            scale = self.inv_std if self.weight is None else self.weight * self.inv_std
            if self.training:  # in place on new arrays of ours: fewer fresh arrays
                n = self.count
                grad_x = g - (sum_g / n).reshape(b)
                grad_x -= np.multiply(self.x_hat, (sum_g_xhat / n).reshape(b), out=g_xhat)
                grad_x *= scale.reshape(b)
            else:
                grad_x = g * scale.reshape(b)
        grads = (grad_x, sum_g_xhat, sum_g)
        return tuple(gr if want else None for gr, want in zip(grads, need))


class _Normalize(Op):
    """Shared by layer_norm and group_norm: y = x_hat * weight + bias, where x_hat is x
    standardised (biased variance) over a set of axes of its reshaped ``groups`` view.

    backward, with g_hat = dL/dx_hat = g * weight and means over the same axes:
        dx = inv_std (g_hat - mean(g_hat) - x_hat mean(g_hat x_hat))
    """

    def normalize(self, grouped, axes, eps):
        self.axes = axes
        if grouped.size == 0:  # nothing to normalise (and numpy would warn of empty means)
            self.inv_std = np.ones((1,) * grouped.ndim, grouped.dtype)
            return grouped.copy()
        mean = grouped.mean(axis=axes, keepdims=True)
        centred = grouped - mean
        var = (centred * centred).mean(axis=axes, keepdims=True)
        self.inv_std = (1 / np.sqrt(var + eps)).astype(grouped.dtype)
        return centred * self.inv_std

    def input_grad(self, g_hat_grouped):
        x_hat, axes = self.x_hat, self.axes
        if g_hat_grouped.size == 0:
            return g_hat_grouped.copy()
        mean_g = g_hat_grouped.mean(axis=axes, keepdims=True)
        mean_gx = (g_hat_grouped * x_hat).mean(axis=axes, keepdims=True)
        return self.inv_std * (g_hat_grouped - mean_g - x_hat * mean_gx)

    def check_eps(self, eps):
        if not is_real(eps) or eps < 0:
            self.fail(f"eps={eps!r} must be a number >= 0.", cls=InputError,
                      hint="the default 1e-5 keeps the division away from zero.")
        return float(eps)


class LayerNorm(_Normalize):
    """Standardise each sample over its last dimensions (``normalized_shape``)."""

    name = "layer_norm"
    suggested_layer = "LayerNorm"  # the layer a hint suggests

    def __init__(self, normalized_shape, eps=1e-5):
        self.normalized_shape = tuple(normalized_shape)
        self.eps = self.check_eps(eps)

    def infer(self, x, weight=None, bias=None):
        check_float(self, x)
        shape, k = self.normalized_shape, len(self.normalized_shape)
        layer = self.suggested_layer
        if x.ndim < k or tuple(x.shape[x.ndim - k:]) != shape:
            self.fail(f"normalized_shape={shape} must match the last {k} dimension(s) of the "
                      f"input, got input of shape {fmt_shape(x.shape)}.",
                      values=f"input {fmt_shape(x.shape)}   normalized_shape {fmt_shape(shape)}",
                      hint=f"{layer} normalises the trailing dimensions: for this input use "
                      f"{layer}({x.shape[-1] if x.ndim else 1}) (the features), or "
                      f"{layer}({list(x.shape[1:])}) for everything but the batch.")
        for what, arr in (("weight", weight), ("bias", bias)):
            if arr is not None and tuple(arr.shape) != shape:
                self.fail(f"{what} must have the normalized_shape {fmt_shape(shape)}, got "
                          f"{fmt_shape(arr.shape)}.", hint="build weight and bias with "
                          f"nn.{layer}, which makes them the right shape.")
        return x.shape

    def forward(self, x, weight=None, bias=None):
        axes = tuple(range(x.ndim - len(self.normalized_shape), x.ndim))
        self.x_hat = self.normalize(x, axes, self.eps)
        self.weight = weight
        out = self.x_hat.copy() if weight is None else self.x_hat * weight  # x_hat stays ours
        if bias is not None:
            out += bias
        return out

    def backward(self, grad_out):  # dw = sum(g x_hat), db = sum(g) over the leading axes
        need = self.needs_input_grad
        lead = tuple(range(grad_out.ndim - len(self.normalized_shape)))
        g_hat = grad_out if self.weight is None else grad_out * self.weight
        grads = (self.input_grad(g_hat) if need[0] else None,
                 (grad_out * self.x_hat).sum(axis=lead) if len(need) > 1 and need[1] else None,
                 grad_out.sum(axis=lead) if len(need) > 2 and need[2] else None)
        return grads[:len(need)]


class RMSNorm(LayerNorm):
    """Scale each sample by one over its root mean square over the last dimensions
    (``normalized_shape``), then by a weight: no centring, no bias, as LayerNorm has.

        y = x · r · weight,   r = 1 / sqrt(mean(x²) + eps)

    ``eps=None`` takes the machine epsilon of the input's dtype, as PyTorch.
    """

    name = "rms_norm"
    suggested_layer = "RMSNorm"

    def __init__(self, normalized_shape, eps=None):
        self.normalized_shape = tuple(normalized_shape)
        self.eps = None if eps is None else self.check_eps(eps)

    def forward(self, x, weight=None):
        self.axes = tuple(range(x.ndim - len(self.normalized_shape), x.ndim))
        eps = np.finfo(x.dtype).eps if self.eps is None else self.eps
        mean_square = (x * x).mean(axis=self.axes, keepdims=True) if x.size else x.sum(
            axis=self.axes, keepdims=True)  # (an empty input has nothing to average)
        self.r = (1 / np.sqrt(mean_square + eps)).astype(x.dtype)
        self.x_hat, self.weight = x * self.r, weight
        return self.x_hat.copy() if weight is None else self.x_hat * weight

    # With g_hat = dL/dx_hat = g · weight and n values averaged over,
    #   dr/dx_j = −r³ x_j / n,  so  dL/dx = r (g_hat − x_hat · mean(g_hat · x_hat))
    #   dL/dweight = sum over the leading dimensions of g · x_hat
    def backward(self, grad_out):
        need = self.needs_input_grad
        g_hat = grad_out if self.weight is None else grad_out * self.weight
        grad_x = grad_w = None
        if need[0]:
            mean_gx = ((g_hat * self.x_hat).mean(axis=self.axes, keepdims=True)
                       if g_hat.size else 0)
            grad_x = self.r * (g_hat - self.x_hat * mean_gx)
        if len(need) > 1 and need[1]:
            lead = tuple(range(grad_out.ndim - len(self.normalized_shape)))
            grad_w = (grad_out * self.x_hat).sum(axis=lead)
        return (grad_x, grad_w)[:len(need)]


class GroupNorm(_Normalize):
    """Split the channels (dimension 1) into ``num_groups`` groups and standardise each
    group of each sample; then a weight and a bias per channel."""

    name = "group_norm"

    def __init__(self, num_groups, eps=1e-5):
        self.num_groups = num_groups
        self.eps = self.check_eps(eps)

    def infer(self, x, weight=None, bias=None):
        check_float(self, x)
        if x.ndim < 2:
            self.fail(f"expects input (N, C, ...), got shape {fmt_shape(x.shape)}.",
                      hint="group norm splits the channels of dimension 1 into groups; add "
                      "the batch dimension: x.unsqueeze(0).")
        channels, groups = x.shape[1], self.num_groups
        if channels % groups:
            divisor = max(d for d in range(1, min(groups, channels) + 1) if channels % d == 0)
            self.fail(f"expects the {channels} channels to split evenly into num_groups="
                      f"{groups} groups.", values=f"input {fmt_shape(x.shape)}",
                      hint=f"choose num_groups dividing {channels} (e.g. {divisor}).")
        for what, arr in (("weight", weight), ("bias", bias)):
            if arr is not None and tuple(arr.shape) != (channels,):
                self.fail(f"{what} must hold one value per channel: shape ({channels},), "
                          f"got {fmt_shape(arr.shape)}.",
                          hint=f"make the layer GroupNorm({groups}, {channels}).")
        return x.shape

    def forward(self, x, weight=None, bias=None):
        n, groups = x.shape[0], self.num_groups
        grouped = x.reshape(n, groups, math.prod(x.shape[1:]) // groups)  # (N, G, C/G·spatial)
        self.x_hat = self.normalize(grouped, (2,), self.eps)
        self.bshape = (1, -1) + (1,) * (x.ndim - 2)
        self.weight = weight
        x_hat = self.x_hat.reshape(x.shape)
        out = x_hat.copy() if weight is None else x_hat * weight.reshape(self.bshape)
        if bias is not None:
            out += bias.reshape(self.bshape)
        return out

    def backward(self, grad_out):  # dw = sum(g x_hat), db = sum(g) over all but the channels
        need, shape = self.needs_input_grad, grad_out.shape
        axes = (0,) + tuple(range(2, grad_out.ndim))
        g_hat = grad_out if self.weight is None else grad_out * self.weight.reshape(self.bshape)
        grad_x = None
        if need[0]:
            grad_x = self.input_grad(g_hat.reshape(self.x_hat.shape)).reshape(shape)
        x_hat = self.x_hat.reshape(shape)
        grads = (grad_x,
                 (grad_out * x_hat).sum(axis=axes) if len(need) > 1 and need[1] else None,
                 grad_out.sum(axis=axes) if len(need) > 2 and need[2] else None)
        return grads[:len(need)]


class InstanceNorm(GroupNorm):
    """Standardise each channel of each sample over its positions (L; H and W; or D, H
    and W), then a weight and a bias per channel: group norm with a group for every
    channel, so the forward and the backward are GroupNorm's.  Inputs (N, C, *positions); ``(x,)``,
    ``(x, weight)`` or ``(x, weight, bias)``.

    With running statistics given, the op leaves their new values in ``running_update``,
    as BatchNorm does: ``(1 - m) r + m * stat``, the stat averaged over the samples (the
    variance unbiased, over the positions).  Evaluating with running statistics is
    BatchNorm's evaluation (``F.instance_norm`` with ``use_input_stats=False``).
    """

    name = "instance_norm"

    def __init__(self, eps=1e-5, momentum=0.1, running_mean=None, running_var=None):
        self.eps = self.check_eps(eps)
        self.running_mean, self.running_var = running_mean, running_var
        if (running_mean is None) != (running_var is None):
            self.fail("running_mean and running_var must be given together (or both None).",
                      cls=InputError, hint="pass both running statistics, or neither.")
        if running_mean is not None and not is_real(momentum):
            self.fail(f"momentum={momentum!r} must be a float when running statistics are "
                      "updated.", cls=InputError,
                      hint="the default is 0.1: running = 0.9 running + 0.1 batch.")
        self.momentum = momentum
        self.running_update = None  # (new mean, new var), once a forward ran

    def infer(self, x, weight=None, bias=None):
        check_float(self, x)
        if x.ndim < 3:
            self.fail(f"expects input (N, C, L), (N, C, H, W) or (N, C, D, H, W), got shape "
                      f"{fmt_shape(x.shape)}.",
                      hint="instance norm standardises each channel over its positions; a "
                      "single sample (C, L) needs its batch dimension: x.unsqueeze(0).")
        positions = math.prod(x.shape[2:])
        if positions <= 1:
            self.fail(f"expected more than 1 position per channel, got input of shape "
                      f"{fmt_shape(x.shape)}.",
                      hint="the statistics of one value are meaningless: instance norm "
                      "needs signals or images of 2 values or more.")
        if self.running_mean is not None and x.shape[0] == 0:
            self.fail("an empty batch has no statistics to move the running ones towards.",
                      values=f"input {fmt_shape(x.shape)}",
                      hint="skip empty batches, or call model.eval() to normalise with the "
                      "running statistics.")
        check_per_channel(self, x, "InstanceNorm", weight=weight, bias=bias,
                          running_mean=self.running_mean, running_var=self.running_var)
        return x.shape

    def forward(self, x, weight=None, bias=None):
        if self.running_mean is not None:
            grouped = x.reshape(*x.shape[:2], math.prod(x.shape[2:]))  # (N, C, positions)
            count, m = grouped.shape[2], float(self.momentum)
            mean = grouped.mean(axis=2)
            var = grouped.var(axis=2) * (count / (count - 1))     # unbiased, per instance
            self.running_update = ((1 - m) * self.running_mean + m * mean.mean(axis=0),
                                   (1 - m) * self.running_var + m * var.mean(axis=0))
        self.num_groups = x.shape[1]  # each channel of each sample is a group of its own
        return super().forward(x, weight, bias)
