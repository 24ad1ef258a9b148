"""1-D convolution and pooling (PyTorch's ``F.conv1d``, ``F.conv_transpose1d``,
``F.max_pool1d``, ``F.avg_pool1d``, ``F.adaptive_avg_pool1d``, ``F.adaptive_max_pool1d``,
``F.max_unpool1d``).

A signal (N, C, L) is an image (N, C, 1, L) one pixel high: each 1-D op is its 2-D op
on that image, with a kernel one row high, stride and dilation 1 and no padding along
the height.  So the forward, the backward and their derivatives are the 2-D ones
(``ops/conv.py``, ``ops/pool.py``); here the signal only gains and loses that row.  With
kernels on, the 2-D kernels compute them (``kernels/conv.py``, ``kernels/pool.py``).
The input's number of dimensions is checked here, in 1-D words; the other checks are
the 2-D op's, whose messages show the signals with their row: (N, C, 1, L).
"""
from __future__ import annotations

from ..errors import InputError, message
from .adaptive_max import AdaptiveMaxPool2d
from .base import Spec, check_ndim, is_int
from .conv import DOT, MINUS, Conv2d
from .conv_transpose import ConvTranspose2d
from .pool import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d
from .unpool import MaxUnpool2d


def single(value, name: str, where: str, minimum: int | None = None) -> int:
    """An int, or a tuple of one, as PyTorch takes a 1-D kernel size, stride, ...

    As :func:`~nnbook.ops.base.pair`: ops check the type only; layers also give the
    smallest value allowed, so a typo fails when the layer is built.
    """
    if isinstance(value, (tuple, list)) and len(value) == 1:
        value = value[0]
    if is_int(value) and (minimum is None or value >= minimum):
        return int(value)
    wanted = "an int" if minimum is None else f"an int >= {minimum}"
    example = 3 if name == "kernel_size" else max(1, minimum or 0)
    raise InputError(message(f"{name} must be {wanted} or a tuple of one, got {value!r}.",
                             where=where, hint=f"e.g. {name}={example} or {name}=({example},)."))


def _row(shape) -> tuple:
    """(..., L) -> (..., 1, L)."""
    return tuple(shape[:-1]) + (1, shape[-1])


class Lifted1d:
    """Mixin: the 2-D op it precedes, on signals given a row of height 1.  The first
    ``lifted`` inputs gain the row (a convolution's bias does not)."""

    layout = "(N, C, L)"
    lifted = 1

    def _lift(self, tensors) -> list:
        return [Spec(_row(t.shape), t.dtype) if i < self.lifted and t is not None else t
                for i, t in enumerate(tensors)]

    def infer(self, x, *rest):
        if self.__dict__.get("in_2d"):  # the 2-D formula asking its own shape rule
            return super().infer(x, *rest)
        check_ndim(self, x, (2, 3), "input", self.layout)
        shape = super().infer(*self._lift((x,) + rest))
        return shape[:-2] + shape[-1:]

    def formula(self, x, *rest) -> list:
        """['L_out = floor((11 + 2·1 − 2·(3 − 1) − 1) / 2) + 1 = 5']: the 2-D formula's W line."""
        self.infer(x, *rest)  # the 1-D checks first
        self.in_2d = True
        try:
            lines = super().formula(*self._lift((x,) + rest))
        finally:
            del self.in_2d
        return [line.replace("W_out", "L_out") for line in lines[1:]]

    def forward(self, x):  # the pools' forward; Conv1d has its own
        return super().forward(x[..., None, :])[..., 0, :]

    def backward(self, grad_out):  # the 2-D op's gradients, their row taken off again
        grads = super().backward(grad_out[..., None, :])
        return tuple(g[..., 0, :] if g is not None and i < self.lifted else g
                     for i, g in enumerate(grads))


class Conv1d(Lifted1d, Conv2d):
    """y = conv1d(x, W) + b: x (N, C_in, L), W (C_out, C_in/groups, k), b (C_out,).

    L_out = floor((L + 2·padding − dilation·(k − 1) − 1) / stride) + 1;  padding may
    also be 'valid' or 'same' (stride 1), as in PyTorch.
    """

    name = "conv1d"
    suggested_layer = "Conv1d"
    layout = "(N, C_in, L)"
    lifted = 2  # the input and the weight gain a row; the bias does not

    def __init__(self, stride=1, padding=0, dilation=1, groups=1):
        where = self.where
        if not isinstance(padding, str):
            padding = (0, single(padding, "padding", where))
        super().__init__((1, single(stride, "stride", where)), padding,
                         (1, single(dilation, "dilation", where)), groups)

    def infer(self, x, weight, bias=None):
        if not self.__dict__.get("in_2d"):
            check_ndim(self, weight, (3,), "weight", "(C_out, C_in/groups, k)")
        return super().infer(x, weight, bias)

    def forward(self, x, weight, bias=None):
        # Conv2d's forward (or its kernel's), past Lifted1d's, which lifts the input only
        y = super(Lifted1d, self).forward(x[..., None, :], weight[..., None, :], bias)
        return y[..., 0, :]


class MaxPool1d(Lifted1d, MaxPool2d):
    """The maximum of each window of ``kernel_size`` values along L."""

    name = "max_pool1d"
    lifted = 1

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                 return_indices=False):
        where = self.where
        none = stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)
        super().__init__((1, single(kernel_size, "kernel_size", where)),
                         None if none else (1, single(stride, "stride", where)),
                         (0, single(padding, "padding", where)),
                         (1, single(dilation, "dilation", where)), ceil_mode, return_indices)


class AvgPool1d(Lifted1d, AvgPool2d):
    """The mean of each window of ``kernel_size`` values along L (PyTorch's divisors)."""

    name = "avg_pool1d"
    lifted = 1

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        where = self.where
        none = stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)
        super().__init__((1, single(kernel_size, "kernel_size", where)),
                         None if none else (1, single(stride, "stride", where)),
                         (0, single(padding, "padding", where)), ceil_mode, count_include_pad)


class ConvTranspose1d(Lifted1d, ConvTranspose2d):
    """y = conv_transpose1d(x, W) + b: x (N, C_in, L), W (C_in, C_out/groups, k), b (C_out,).

    L_out = (L − 1)·stride − 2·padding + dilation·(k − 1) + output_padding + 1.
    """

    name = "conv_transpose1d"
    layout = "(N, C_in, L)"
    lifted = 2  # the input and the weight gain a row; the bias does not

    def __init__(self, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
        where = self.where
        super().__init__((1, single(stride, "stride", where)),
                         (0, single(padding, "padding", where)),
                         (0, single(output_padding, "output_padding", where)), groups,
                         (1, single(dilation, "dilation", where)))

    def infer(self, x, weight, bias=None):
        if not self.__dict__.get("in_2d"):
            check_ndim(self, weight, (3,), "weight", "(C_in, C_out/groups, k)")
        return super().infer(x, weight, bias)

    def formula(self, x, weight, bias=None) -> list:
        """['L_out = (9 − 1)·2 − 2·1 + 1·(3 − 1) + 1 + 1 = 19']."""
        length = self.infer(x, weight, bias)[-1]
        s, p, o, d = (v[1] for v in (self.stride, self.padding, self.output_padding,
                                     self.dilation))
        return [f"L_out = ({x.shape[-1]} {MINUS} 1){DOT}{s} {MINUS} 2{DOT}{p} + "
                f"{d}{DOT}({weight.shape[-1]} {MINUS} 1) + {o} + 1 = {length}"]

    def forward(self, x, weight, bias=None):
        # ConvTranspose2d's forward, past Lifted1d's, which lifts the input only
        y = super(Lifted1d, self).forward(x[..., None, :], weight[..., None, :], bias)
        return y[..., 0, :]


class AdaptiveAvgPool1d(Lifted1d, AdaptiveAvgPool2d):
    """The mean of each of ``output_size`` windows along L, placed as PyTorch places them."""

    name = "adaptive_avg_pool1d"

    def __init__(self, output_size):
        super().__init__((1, single(output_size, "output_size", self.where)))


class AdaptiveMaxPool1d(Lifted1d, AdaptiveMaxPool2d):
    """The maximum of each of ``output_size`` windows along L; ``indices`` holds where each
    maximum was found (its position in L: in a plane one row high, row·L + column is the
    column), for ``return_indices=True``."""

    name = "adaptive_max_pool1d"

    def __init__(self, output_size):
        super().__init__((1, single(output_size, "output_size", self.where)))


class MaxUnpool1d(Lifted1d, MaxUnpool2d):
    """Each value of x put back at its place along L (``indices``), zeros elsewhere:
    L_out = (L − 1)·stride − 2·padding + kernel_size, or ``output_size``."""

    name = "max_unpool1d"
    lifted = 2  # the input and the indices gain a row (an index along L stays the same)

    def __init__(self, kernel_size, stride=None, padding=0, output_size=None):
        where = self.where
        none = stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)
        if output_size is not None:
            if not isinstance(output_size, (tuple, list)) or len(output_size) not in (1, 3):
                raise InputError(message(f"output_size must be (L_out,) or (N, C, L_out), got "
                                         f"{output_size!r}.", where=where,
                                         hint="give the length of the signal the pooling had."))
            output_size = (1, output_size[-1])
        super().__init__((1, single(kernel_size, "kernel_size", where)),
                         None if none else (1, single(stride, "stride", where)),
                         (0, single(padding, "padding", where)), output_size)

    def forward(self, x, indices):
        # MaxUnpool2d's forward, past Lifted1d's, which lifts the input only
        return super(Lifted1d, self).forward(x[..., None, :], indices[..., None, :])[..., 0, :]
