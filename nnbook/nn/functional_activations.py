"""The activation functions of ``nn.functional`` beyond relu, sigmoid, tanh and softplus.

Each is one op of ``ops/activations.py`` (or a line of tensor maths where PyTorch's is
one too: tanhshrink, softmin).  ``inplace=True`` is accepted for PyTorch code, and a
new tensor is returned, as for ``F.relu``: use the returned value.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import context
from ..errors import DimError, DTypeError, ShapeError, fmt_shape
from ..ops import activations as act
from ..ops.base import is_real
from ..ops.softmax import Softmax
from ..random import numpy_generator
from ..tensor import _wrap, apply
from .arguments import _fail, _tensor

__all__ = ["leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish", "softsign",
           "hardtanh", "relu6", "hardsigmoid", "hardswish", "tanhshrink", "logsigmoid",
           "softmin", "threshold", "prelu", "gumbel_softmax", "hardshrink", "softshrink",
           "glu", "rrelu"]


def _unary(fn: str, op, input):
    return apply(op, _tensor(fn, "input", input))


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x where x > 0, negative_slope * x elsewhere."""
    return _unary("leaky_relu", act.LeakyRelu(negative_slope), input)


def elu(input, alpha=1.0, inplace=False):
    """x where x > 0, alpha * (exp(x) - 1) elsewhere."""
    return _unary("elu", act.Elu(alpha), input)


def selu(input, inplace=False):
    """scale * elu(x, alpha) with the constants that keep mean 0 and variance 1."""
    return _unary("selu", act.Elu(act.SELU_ALPHA, act.SELU_SCALE), input)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        _fail("celu", "alpha=0 divides by zero (celu computes exp(x / alpha)).",
              hint="give a non-zero alpha, such as the default 1.0.")
    return _unary("celu", act.Elu(alpha, 1.0, 1.0 / alpha, 1.0 / float(np.float32(alpha))),
                  input)


def gelu(input, approximate="none"):
    """x * Phi(x), Phi the normal distribution's CDF; approximate='tanh' for the tanh form."""
    return _unary("gelu", act.Gelu(approximate), input)


def silu(input, inplace=False):
    """x * sigmoid(x) (also called swish)."""
    return _unary("silu", act.Silu(), input)


def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    return _unary("mish", act.Mish(), input)


def softsign(input):
    """x / (1 + |x|)."""
    return _unary("softsign", act.Softsign(), input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """clamp(x, min_val, max_val)."""
    return _unary("hardtanh", act.Hardtanh(min_val, max_val), input)


def relu6(input, inplace=False):
    """min(max(x, 0), 6): hardtanh(x, 0, 6)."""
    return _unary("relu6", act.Hardtanh(0.0, 6.0), input)


def hardsigmoid(input, inplace=False):
    """0 below -3, 1 above 3, x / 6 + 1/2 between."""
    return _unary("hardsigmoid", act.Hardsigmoid(), input)


def hardswish(input, inplace=False):
    """x * hardsigmoid(x)."""
    return _unary("hardswish", act.Hardswish(), input)


def tanhshrink(input):
    """x - tanh(x)."""
    input = _tensor("tanhshrink", "input", input)
    return input - input.tanh()


def logsigmoid(input):
    """log(sigmoid(x)), computed without overflow."""
    return _unary("logsigmoid", act.LogSigmoid(), input)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along ``dim``: the smallest value gets the largest share."""
    input = _tensor("softmin", "input", input)
    if dim is None:
        _fail("softmin", "dim must be given: which dimension holds the classes?",
              hint="for scores of shape (N, C) use F.softmin(x, dim=1).")
    if dtype is not None:
        input = input.to(dtype)
    return apply(Softmax(dim), -input)


def threshold(input, threshold, value, inplace=False):
    """x where x > threshold, ``value`` elsewhere."""
    return _unary("threshold", act.Threshold(threshold, value), input)


def prelu(input, weight):
    """x where x > 0, weight * x elsewhere; one weight, or one per channel (dimension 1)."""
    return apply(act.Prelu(), _tensor("prelu", "input", input),
                 _tensor("prelu", "weight", weight))


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """A differentiable sample of a category: softmax((logits + g) / tau) along ``dim``,
    with Gumbel noise g = -log(e), e ~ Exponential(1), drawn from nnbook's generator.

    The largest of logits + g falls on category i with probability softmax(logits)_i, so
    the sample's one-hot (``hard=True``) is a draw from the categories; the softmax is its
    smooth stand-in, the sharper the smaller ``tau``.  ``hard=True`` returns the one-hot
    itself, with the soft sample's gradient (straight-through: y_hard - y_soft.detach()
    + y_soft).  ``eps`` is unused, as in PyTorch.
    """
    fn = "gumbel_softmax"
    logits = _tensor(fn, "logits", logits)
    if logits.dtype.kind != "f":
        _fail(fn, f"expects floating point logits, got {logits.dtype.name}.", cls=DTypeError,
              hint="convert them first: logits.float().")
    if not is_real(tau):
        _fail(fn, f"tau must be a number, got {tau!r}.",
              hint="tau=1 is the default; smaller values give samples closer to one-hot.")
    scores = logits
    if not context.shape_only():  # a shape-only pass draws nothing
        draws = numpy_generator().exponential(size=logits.shape)
        scores = logits + _wrap(-np.log(draws).astype(logits._array.dtype))
    y_soft = apply(Softmax(dim), scores / tau)
    if not hard or context.shape_only():
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = _wrap(np.zeros_like(y_soft._array)).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, 0 elsewhere."""
    return _unary("hardshrink", act.Hardshrink(lambd), input)


def softshrink(input, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, 0 between."""
    return _unary("softshrink", act.Softshrink(lambd), input)


def glu(input, dim=-1):
    """The gated linear unit: a * sigmoid(b), a and b the two halves of ``dim``."""
    fn = "glu"
    x = _tensor(fn, "input", input)
    if not isinstance(dim, numbers.Integral) or isinstance(dim, bool):
        _fail(fn, f"dim must be an int, got {dim!r}.", cls=DTypeError,
              hint="glu halves one dimension: dim=-1 (the default) halves the last.")
    if x.ndim == 0 or not -x.ndim <= dim < x.ndim:
        _fail(fn, f"dim={dim} is out of range for a tensor with {x.ndim} dimension(s).",
              hint="glu halves one dimension of a tensor with at least one.", cls=DimError)
    if x.shape[dim] % 2:
        _fail(fn, f"expects dimension {dim} to have an even size (it is halved into the "
              f"values and their gates), got {x.shape[dim]}.",
              values=f"input {fmt_shape(x.shape)}", cls=ShapeError,
              hint="the layer before must output twice the features wanted after glu.")
    a, b = x.chunk(2, dim)
    return a * b.sigmoid()


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomised leaky relu: x where x > 0, a x elsewhere.  While training, each element
    gets its own slope a drawn from Uniform(lower, upper) (from nnbook's generator);
    otherwise a is the mean slope (lower + upper) / 2 (note: ``training`` defaults to
    False here, as in PyTorch)."""
    x = _tensor("rrelu", "input", input)
    return apply(act.Rrelu(numpy_generator(), lower, upper, training), x)
