"""Weight initialisation, as PyTorch does it, drawn from nnbook's seeded generator.

Every function fills a tensor in place (hence the trailing underscore), outside the
graph (the tensor's version counter moves, as for any in-place change), and returns
it; ``nb.manual_seed(0)`` or ``generator=`` makes the numbers reproducible.

    fan_in  = inputs feeding one output  = in_features, or in_channels/groups * kh * kw
    fan_out = outputs fed by one input   = out_features, or out_channels * kh * kw
    xavier (Glorot, 2010):  std = gain * sqrt(2 / (fan_in + fan_out))
    kaiming (He, 2015):     std = gain / sqrt(fan)        (fan = fan_in or fan_out)
    uniform with that std:  U(-bound, bound), bound = std * sqrt(3)

Why ``kaiming_uniform_(w, a=sqrt(5))`` for Linear and Conv2d: with that gain the bound
works out to ``1 / sqrt(fan_in)``, so each output starts with about the spread of one
input whatever the layer's width (PyTorch's default).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..context import no_grad
from ..errors import ArgumentError, InputError, fmt_shape, message
from ..ops.base import is_real
from ..random import numpy_generator
from ..tensor import Tensor, _wrap

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "dirac_", "xavier_uniform_", "xavier_normal_",
           "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_"]


def _check_tensor(tensor, fn: str) -> None:
    if not isinstance(tensor, Tensor):
        raise ArgumentError(message(
            f"expects a Tensor to fill in place, got {type(tensor).__name__}.",
            where=f"nn.init.{fn}", hint="pass the parameter itself, e.g. "
            f"nn.init.{fn}(layer.weight); wrap a numpy array with nb.tensor(array) first."))


def _fill(tensor, values, fn: str):
    """Write ``values`` into ``tensor`` in place, outside the graph (as PyTorch's init)."""
    with no_grad():
        tensor.copy_(_wrap(np.asarray(values)))
    return tensor


def _draw(tensor, fn: str, generator, draw):
    """Fill ``tensor`` with ``draw(rng, shape)``; a tensor with no elements is left as is."""
    _check_tensor(tensor, fn)
    if tensor.numel() == 0:
        return tensor
    return _fill(tensor, draw(numpy_generator(generator), tuple(tensor.shape)), fn)


# ---------------------------------------------------------------------------
# Gains and fans
# ---------------------------------------------------------------------------

_UNIT_GAIN = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The factor that keeps activations' variance steady through a nonlinearity:
    1 (linear, conv, sigmoid), 5/3 (tanh), sqrt(2) (relu), sqrt(2 / (1 + slope**2))
    (leaky_relu), 3/4 (selu)."""
    if nonlinearity in _UNIT_GAIN:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif is_real(param):
            slope = float(param)
        else:
            raise InputError(message(
                f"negative_slope {param!r} is not a number.", where="nn.init.calculate_gain",
                hint="give the leaky relu's slope as a float, e.g. calculate_gain("
                "'leaky_relu', 0.2)."))
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise InputError(message(
        f"unknown nonlinearity {nonlinearity!r}.", where="nn.init.calculate_gain",
        hint="use one of 'linear', 'conv2d', 'sigmoid', 'tanh', 'relu', 'leaky_relu', "
        "'selu'."))


def _calculate_fan_in_and_fan_out(tensor) -> tuple[int, int]:
    """fan_in = inputs feeding one output; for a conv weight (out, in/groups, kh, kw)
    that is in/groups * kh * kw."""
    if tensor.ndim < 2:
        raise InputError(message(
            f"fan in and fan out need a tensor with at least 2 dimensions, got shape "
            f"{fmt_shape(tensor.shape)}.", where="nn.init",
            hint="use uniform_ or normal_ with explicit bounds for biases and vectors."))
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise InputError(message(f"mode must be 'fan_in' or 'fan_out', got {mode!r}.",
                                 where="nn.init", hint="use mode='fan_in' (the default) to "
                                 "keep the forward's variance, 'fan_out' for the backward's."))
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


# ---------------------------------------------------------------------------
# Fillers
# ---------------------------------------------------------------------------

def uniform_(tensor, a: float = 0.0, b: float = 1.0, generator=None):
    """U(a, b)."""
    return _draw(tensor, "uniform_", generator, lambda rng, shape: rng.uniform(a, b, shape))


def normal_(tensor, mean: float = 0.0, std: float = 1.0, generator=None):
    """N(mean, std**2)."""
    return _draw(tensor, "normal_", generator, lambda rng, shape: rng.normal(mean, std, shape))


def trunc_normal_(tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator=None):
    """N(mean, std**2) restricted to [a, b] (absolute bounds, not in units of std): values
    outside are drawn again until every one lies inside."""
    if not a < b:
        raise InputError(message(f"the bounds must satisfy a < b, got a={a}, b={b}.",
                                 where="nn.init.trunc_normal_",
                                 hint="a is the lower bound, b the upper one."))

    def draw(rng, shape):
        values = rng.normal(mean, std, shape)
        outside = (values < a) | (values > b)
        for _ in range(1000):  # each round keeps a fixed share; 1000 rounds is plenty
            if not outside.any():
                break
            values[outside] = rng.normal(mean, std, int(outside.sum()))
            outside = (values < a) | (values > b)
        return np.clip(values, a, b)  # (only if [a, b] holds almost no probability)
    return _draw(tensor, "trunc_normal_", generator, draw)


def constant_(tensor, val: float):
    _check_tensor(tensor, "constant_")
    return _fill(tensor, val, "constant_")


def zeros_(tensor):
    _check_tensor(tensor, "zeros_")
    return _fill(tensor, 0, "zeros_")


def ones_(tensor):
    _check_tensor(tensor, "ones_")
    return _fill(tensor, 1, "ones_")


def eye_(tensor):
    """The identity matrix (a 2-D tensor), so a Linear layer starts by passing its input on."""
    _check_tensor(tensor, "eye_")
    if tensor.ndim != 2:
        raise InputError(message(
            f"eye_ fills a 2-D tensor, got shape {fmt_shape(tensor.shape)}.",
            where="nn.init.eye_", hint="for a conv weight use dirac_, which keeps the input "
            "the same through a convolution."))
    return _fill(tensor, np.eye(*tensor.shape), "eye_")


def dirac_(tensor, groups: int = 1):
    """A convolution weight (out, in, k...) that passes each input channel to the output
    channel of the same number (a centred 1 per channel), per group."""
    _check_tensor(tensor, "dirac_")
    if tensor.ndim not in (3, 4, 5):
        raise InputError(message(
            f"dirac_ fills a 3-, 4- or 5-D convolution weight, got shape "
            f"{fmt_shape(tensor.shape)}.", where="nn.init.dirac_",
            hint="for a Linear weight use eye_."))
    if not isinstance(groups, numbers.Integral) or groups < 1 or tensor.shape[0] % groups:
        raise InputError(message(
            f"dim 0 ({tensor.shape[0]}) must be divisible by groups={groups!r}.",
            where="nn.init.dirac_", hint="give the conv's groups, which divide out_channels."))
    out_per_group = tensor.shape[0] // groups
    values = np.zeros(tensor.shape)
    centre = tuple(k // 2 for k in tensor.shape[2:])
    for g in range(groups):
        for d in range(min(out_per_group, tensor.shape[1])):
            values[(g * out_per_group + d, d) + centre] = 1
    return _fill(tensor, values, "dirac_")


def xavier_uniform_(tensor, gain: float = 1.0, generator=None):
    """U(-bound, bound), bound = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out)) if fan_in + fan_out else 0.0
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain: float = 1.0, generator=None):
    """N(0, std**2), std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / (fan_in + fan_out)) if fan_in + fan_out else 0.0
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator=None):
    """U(-bound, bound), bound = gain * sqrt(3 / fan)."""
    fan = _calculate_correct_fan(tensor, mode)
    if fan == 0:
        return tensor  # no elements: nothing to fill (PyTorch warns and does the same)
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / fan)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator=None):
    """N(0, std**2), std = gain / sqrt(fan)."""
    fan = _calculate_correct_fan(tensor, mode)
    if fan == 0:
        return tensor
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan), generator)


def orthogonal_(tensor, gain: float = 1, generator=None):
    """A (semi-)orthogonal matrix times gain (Saxe et al., 2013): the tensor is seen as
    (shape[0], rest) and its rows (or columns, if fewer) are orthonormal."""
    _check_tensor(tensor, "orthogonal_")
    if tensor.ndim < 2:
        raise InputError(message(
            f"orthogonal_ needs a tensor with at least 2 dimensions, got shape "
            f"{fmt_shape(tensor.shape)}.", where="nn.init.orthogonal_",
            hint="orthogonality is a property of a matrix: rows (out) by the rest (in)."))
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = numpy_generator(generator).normal(0.0, 1.0, (rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q *= np.sign(np.diag(r))  # the signs that make the decomposition unique (uniform q)
    if rows < cols:
        q = q.T
    return _fill(tensor, gain * q.reshape(tensor.shape), "orthogonal_")


def sparse_(tensor, sparsity: float, std: float = 0.01, generator=None):
    """A 2-D tensor drawn from N(0, std**2) with a share ``sparsity`` of each column's
    entries set to zero (Martens, 2010)."""
    _check_tensor(tensor, "sparse_")
    if tensor.ndim != 2:
        raise InputError(message(
            f"sparse_ fills a 2-D tensor, got shape {fmt_shape(tensor.shape)}.",
            where="nn.init.sparse_", hint="use it on a Linear weight."))
    if not is_real(sparsity) or not 0 <= sparsity <= 1:
        raise InputError(message(f"sparsity={sparsity!r} must be between 0 and 1.",
                                 where="nn.init.sparse_",
                                 hint="it is the share of each column set to zero, e.g. 0.1."))
    rows, cols = tensor.shape
    zeros = int(math.ceil(sparsity * rows))
    rng = numpy_generator(generator)
    values = rng.normal(0.0, std, (rows, cols))
    for col in range(cols):
        values[rng.permutation(rows)[:zeros], col] = 0
    return _fill(tensor, values, "sparse_")


def default_weight_and_bias_(weight, bias=None):
    """PyTorch's reset_parameters for Linear and Conv2d: kaiming_uniform_(a=sqrt(5)) for the
    weight, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for the bias."""
    kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = _calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        uniform_(bias, -bound, bound)
