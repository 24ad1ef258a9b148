"""Weight initialisation, as PyTorch does it, drawn from nnbook's seeded generator.

Every function fills a tensor in place (hence the trailing underscore) and
returns it; ``nb.manual_seed(0)`` makes the numbers reproducible.

Why ``kaiming_uniform_(w, a=sqrt(5))`` for Linear and Conv2d: with that gain
the bound works out to ``1 / sqrt(fan_in)``, so each output starts with about
the spread of one input whatever the layer's width (PyTorch's default).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import InputError, fmt_shape, message
from ..context import no_grad
from ..random import numpy_generator
from ..tensor import _wrap


def _fill(tensor, values):
    """Write ``values`` into ``tensor`` (outside the graph, as PyTorch's init does)."""
    with no_grad():
        tensor.copy_(_wrap(np.asarray(values)))
    return tensor


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The factor that keeps activations' variance steady through a nonlinearity."""
    if nonlinearity in ("linear", "conv1d", "conv2d", "conv3d", "sigmoid"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise InputError(message(
        f"unknown nonlinearity {nonlinearity!r}.", where="calculate_gain",
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


def uniform_(tensor, a: float = 0.0, b: float = 1.0):
    return _fill(tensor, numpy_generator().uniform(a, b, size=tensor.shape))


def normal_(tensor, mean: float = 0.0, std: float = 1.0):
    return _fill(tensor, numpy_generator().normal(mean, std, size=tensor.shape))


def constant_(tensor, val: float):
    return _fill(tensor, val)


def zeros_(tensor):
    return constant_(tensor, 0)


def ones_(tensor):
    return constant_(tensor, 1)


def _fan(tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise InputError(message(f"mode must be 'fan_in' or 'fan_out', got {mode!r}.",
                                 where="nn.init", hint="use mode='fan_in' (the default)."))
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def kaiming_uniform_(tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu"):
    """U(-bound, bound) with bound = gain * sqrt(3 / fan)  (He et al., 2015)."""
    fan = _fan(tensor, mode)
    if fan == 0:
        return tensor
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / fan)
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu"):
    """N(0, std**2) with std = gain / sqrt(fan)."""
    fan = _fan(tensor, mode)
    if fan == 0:
        return tensor
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan))


def xavier_uniform_(tensor, gain: float = 1.0):
    """U(-bound, bound) with bound = gain * sqrt(6 / (fan_in + fan_out))  (Glorot, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound)


def xavier_normal_(tensor, gain: float = 1.0):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)))


def default_weight_and_bias_(weight, bias=None):
    """PyTorch's reset_parameters for Linear and Conv2d: kaiming_uniform_(a=sqrt(5)) for the
    weight, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for the bias."""
    kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = _calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        uniform_(bias, -bound, bound)
