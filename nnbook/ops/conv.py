"""2-D convolution (PyTorch's ``F.conv2d``): a shape rule, a forward and a backward.

With the input zero-padded to ``xp`` and the channels split into G groups, output
channel o of group g sees only the C/G input channels c of that group::

    y[n, g, o, h, w] = b[g, o] + sum_{c, i, j} W[g, o, c, i, j] · window[n, g, c, h, w, i, j]
    window[n, g, c, h, w, i, j] = xp[n, g, c, s_h·h + d_h·i, s_w·w + d_w·j]

so every output pixel is the dot product of a filter with one window of the input
(``ops/windows.py``), and the whole forward is one ``np.einsum`` over the windows.
Inputs are (N, C_in, H, W), or (C_in, H, W) for one unbatched sample as in PyTorch;
the weight is (C_out, C_in/groups, kh, kw) and the bias (C_out,).

This is the reference: the clearest numpy.  ``nnbook/kernels/conv.py`` computes the
same numbers faster (im2col GEMMs, depthwise and 1×1 paths, threads).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import DTypeError, InputError, fmt_shape, message
from .base import Op, check_ndim, fmt_pair, is_int, per_axis
from .windows import add_windows, crop_hw, out_length, pad_hw, span, windows

MINUS, DOT = "\u2212", "\u00b7"  # − and ·, for the formulas shown to students


def conv_padding(padding, stride, where: str, minimum=None):
    """``padding`` as a convolution keeps it: 'same', 'valid' or an (h, w) pair (a
    (d, h, w) triple for a volume: as many numbers as ``stride`` has).

    Used by the op, ``F.conv2d`` and the ``Conv2d`` layer alike (``minimum``: see
    :func:`~nnbook.ops.base.per_axis`), so all three accept and refuse the same things.
    """
    if not isinstance(padding, str):
        return per_axis(padding, len(stride), "padding", where, minimum)
    if padding not in ("same", "valid"):
        raise InputError(message(
            f"padding must be an int, a {'pair' if len(stride) == 2 else 'triple'}, 'same' "
            f"or 'valid', got {padding!r}.", where=where,
            hint=f"e.g. padding=1, padding={(1,) + (0,) * (len(stride) - 1)} or "
            "padding='same'."))
    if padding == "same" and set(stride) != {1}:
        raise InputError(message(
            "padding='same' needs stride 1: with a larger stride the output cannot be as "
            "large as the input.", where=where, values=fmt_pair("stride", tuple(stride)),
            hint="give the padding as a number instead, e.g. padding=kernel_size // 2."))
    return padding


def conv_pads(padding, kernel, dilation) -> tuple:
    """((top, bottom), (left, right)): the zeros added around the input (and
    (front, back) first for a volume).

    The one place 'same' and 'valid' become numbers.  'same' pads d·(k − 1) in
    all, the odd one at the end (as PyTorch), so the output is as large as the input.
    """
    if padding == "valid":
        return tuple((0, 0) for _ in kernel)
    if padding == "same":
        totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return tuple((t // 2, t - t // 2) for t in totals)
    return tuple((p, p) for p in padding)


class Conv2d(Op):
    """y = conv2d(x, W) + b, with stride, padding, dilation and groups as in PyTorch.

    ``padding`` is an int, an (h, w) pair, or "valid" (none) or "same" (output as
    large as the input, stride 1 only), as in ``torch.nn.functional.conv2d``.
    """

    name = "conv2d"
    suggested_layer = "Conv2d"  # the layer a hint suggests
    spatial = 2                 # (H, W); Conv3d in ops/threedim.py has 3, (D, H, W)
    layouts = ("(N, C_in, H, W)", "(C_out, C_in/groups, kh, kw)")  # input, weight

    def __init__(self, stride=1, padding=0, dilation=1, groups=1):
        self.stride = per_axis(stride, self.spatial, "stride", self.where)
        self.dilation = per_axis(dilation, self.spatial, "dilation", self.where)
        self.padding = conv_padding(padding, self.stride, self.where)
        if not is_int(groups):
            self.fail(f"groups must be an int, got {groups!r}.", cls=InputError,
                      hint="groups=1 is an ordinary convolution; groups=C_in is depthwise.")
        self.groups = int(groups)

    def pads(self, kernel) -> tuple:
        """((top, bottom), (left, right)) for a (kh, kw) kernel."""
        return conv_pads(self.padding, kernel, self.dilation)

    def infer(self, x, weight, bias=None):
        n = self.spatial
        check_ndim(self, x, (n + 1, n + 2), "input", self.layouts[0])
        check_ndim(self, weight, (n + 2,), "weight", self.layouts[1])
        _check_dtypes(self, x, weight, bias)
        _check_hyper(self, x, weight)
        _check_channels(self, x, weight)
        _check_bias(self, x, weight, bias)
        return tuple(x.shape[:-1 - n]) + (weight.shape[0],) + _out_size(self, x, weight)

    def formula(self, x, weight, bias=None) -> list:
        """['H_out = floor((16 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 8', 'W_out = ...']."""
        n = self.spatial
        out = self.infer(x, weight, bias)[-n:]
        lines = []
        for axis, name in enumerate("DHW"[-n:]):
            (p0, p1), k = self.pads(weight.shape[2:])[axis], weight.shape[2 + axis]
            pad = f"2{DOT}{p0}" if p0 == p1 else f"{p0} + {p1}"
            lines.append(
                f"{name}_out = floor(({x.shape[-n + axis]} + {pad} {MINUS} "
                f"{self.dilation[axis]}{DOT}({k} {MINUS} 1) {MINUS} 1) / {self.stride[axis]})"
                f" + 1 = {out[axis]}")
        return lines

    def forward(self, x, weight, bias=None):
        self.unbatched = x.ndim == 3
        x = x[None] if self.unbatched else x
        (n, c), g = x.shape[:2], self.groups
        xp = pad_hw(x, self.pads(weight.shape[2:]))
        win = windows(xp, weight.shape[2:], self.stride, self.dilation)
        win = win.reshape(n, g, c // g, *win.shape[2:])  # (N, G, C/G, H_out, W_out, kh, kw)
        w = weight.reshape(g, -1, *weight.shape[1:])      # (G, O/G, C/G, kh, kw)
        y = np.einsum("ngchwij,gocij->ngohw", win, w, optimize=True)
        y = y.reshape(n, weight.shape[0], *y.shape[-2:])
        if bias is not None:
            y += bias.reshape(-1, 1, 1)
        need_x, need_w = self.needs_input_grad[:2]
        self.win, self.w = (win if need_w else None), (w if need_x else None)
        self.padded_hw = xp.shape[2:]
        return y[0] if self.unbatched else y

    # With gy = dL/dy split into groups like y:
    #   dL/dW[g, o, c, i, j] = sum_{n, h, w} gy[n, g, o, h, w] · window[n, g, c, h, w, i, j]
    #   dL/dwindow[n, g, c, h, w, i, j] = sum_o gy[n, g, o, h, w] · W[g, o, c, i, j]
    #   dL/dx = each window's gradient added back onto the pixels it read, minus the padding
    #   dL/db[o] = sum over n, h, w of gy[n, o, h, w]
    def backward(self, grad_out):
        need = self.needs_input_grad
        gy = grad_out[None] if self.unbatched else grad_out
        (n, c_out), g = gy.shape[:2], self.groups
        gy_g = gy.reshape(n, g, c_out // g, *gy.shape[2:])         # (N, G, O/G, H_out, W_out)
        grads = [None] * len(need)
        if need[0]:
            grad_win = np.einsum("ngohw,gocij->ngchwij", gy_g, self.w, optimize=True)
            grad_xp = add_windows(grad_win.reshape(n, g * self.w.shape[2], *grad_win.shape[3:]),
                                  self.padded_hw, self.stride, self.dilation)
            grad_x = crop_hw(grad_xp, self.pads(self.w.shape[-2:]))
            grads[0] = grad_x[0] if self.unbatched else grad_x
        if need[1]:
            grad_w = np.einsum("ngohw,ngchwij->gocij", gy_g, self.win, optimize=True)
            grads[1] = grad_w.reshape(-1, *grad_w.shape[2:])
        if len(need) > 2 and need[2]:
            grads[2] = gy.sum(axis=(0, 2, 3))
        return tuple(grads)


# ---------------------------------------------------------------------------
# The shape rule's checks: each failure is a four-part message
# ---------------------------------------------------------------------------

def _values(op: Conv2d, x, weight) -> str:
    parts = [f"input {fmt_shape(x.shape)}", f"weight {fmt_shape(weight.shape)}"]
    if set(op.stride) != {1}:
        parts.append(fmt_pair("stride", op.stride))
    if isinstance(op.padding, str):
        parts.append(f"padding={op.padding!r}")
    elif set(op.padding) != {0}:
        parts.append(fmt_pair("padding", op.padding))
    if set(op.dilation) != {1}:
        parts.append(fmt_pair("dilation", op.dilation))
    parts.append(f"groups={op.groups}")
    return "   ".join(parts)


def _check_dtypes(op: Conv2d, x, weight, bias):
    if x.dtype.kind != "f":
        op.fail(f"needs a floating point input, got {x.dtype.name}.",
                values=f"input {fmt_shape(x.shape)} {x.dtype.name}", cls=DTypeError,
                hint="convert it first: x.float().")
    for what, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.dtype != x.dtype:
            op.fail(f"input and {what} must have the same dtype, got {x.dtype.name} and "
                    f"{t.dtype.name}.", values=_values(op, x, weight), cls=DTypeError,
                    hint="convert one of them: x.float() / x.double(), or "
                    "model.float() / model.double() for a model's parameters.")


def _check_hyper(op: Conv2d, x, weight):
    values = _values(op, x, weight)
    for name, value in (("stride", op.stride), ("dilation", op.dilation)):
        if min(value) < 1:
            op.fail(f"{name} must be at least 1, got {fmt_pair(name, value)}.",
                    values=values, hint=f"{name}=1 is the usual value.")
    if isinstance(op.padding, tuple) and min(op.padding) < 0:
        op.fail(f"padding must be at least 0, got {fmt_pair('padding', op.padding)}.",
                values=values, hint="padding adds that many zeros on each side; to "
                "shrink the input, crop it or use a larger kernel or a stride.")
    if op.groups < 1:
        op.fail(f"groups must be at least 1, got groups={op.groups}.", values=values,
                hint="groups=1 is an ordinary convolution; groups=C_in is depthwise.")
    check_weight_not_empty(op, weight, values)


def check_weight_not_empty(op, weight, values) -> None:
    """A convolution's (or transposed convolution's) weight with a 0 in its shape."""
    if min(weight.shape) < 1:
        op.fail(f"the weight has an empty dimension: {fmt_shape(weight.shape)}.",
                values=values, hint="check the channels and kernel_size given to "
                "the layer; each must be at least 1.")


def _check_channels(op: Conv2d, x, weight):
    c_in, (c_out, per_group), g = x.shape[-1 - op.spatial], weight.shape[:2], op.groups
    if c_out % g or c_in % g:
        bad, size = ("out_channels", c_out) if c_out % g else ("in_channels", c_in)
        common = [d for d in range(1, math.gcd(c_in, c_out) + 1)
                  if c_in % d == 0 and c_out % d == 0]
        op.fail(f"groups={g} must divide {bad} ({size}).", values=_values(op, x, weight),
                hint="groups must divide both in_channels and out_channels; here "
                f"groups can be {', '.join(map(str, common))}.")
    if c_in != per_group * g:
        per = f" ({per_group} per group × {g} groups)" if g > 1 else ""
        sizes = tuple(weight.shape[2:])
        kernel = sizes[0] if len(set(sizes)) == 1 else sizes[-1] \
            if op.suggested_layer == "Conv1d" else sizes
        extra = f", groups={g}" if g > 1 else ""
        op.fail(f"expects input with {per_group * g} channels{per}, got {c_in}.",
                values=_values(op, x, weight),
                hint=f"the layer before outputs {c_in} channels; use {op.suggested_layer}"
                f"({c_in}, {c_out}, {kernel}{extra}) or make the layer before output "
                f"{per_group * g} channels.")


def _check_bias(op: Conv2d, x, weight, bias):
    c_out = weight.shape[0]
    if bias is not None and tuple(bias.shape) != (c_out,):
        op.fail(f"expects a bias of shape ({c_out},), one value per output channel, "
                f"got {fmt_shape(bias.shape)}.",
                values=_values(op, x, weight) + f"   bias {fmt_shape(bias.shape)}",
                hint=f"make the bias a 1-D array of {c_out} values, or pass bias=None.")


def _out_size(op: Conv2d, x, weight) -> tuple:
    """(H_out, W_out) (or (D_out, H_out, W_out)), once the padded input is known to hold
    at least one window."""
    out, n = [], op.spatial
    for axis, name in enumerate(("depth", "height", "width")[-n:]):
        size, k = x.shape[-n + axis], weight.shape[2 + axis]
        pads, d = op.pads(weight.shape[2:])[axis], op.dilation[axis]
        if size + sum(pads) < span(k, d):
            op.fail(f"the kernel spans {span(k, d)} pixels in {name} but the padded input "
                    f"has only {size + sum(pads)} ({size} + {sum(pads)} padding), so no "
                    "output pixel fits.", values=_values(op, x, weight),
                    hint="the input is too small for this layer: remove a stride or pooling "
                    "before it, add padding, or use a smaller kernel or dilation.")
        out.append(out_length(size, k, op.stride[axis], d, pads))
    return tuple(out)
