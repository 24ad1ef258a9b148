"""``nb.exp(x)``, ``nb.sum(x, dim=1)``...: PyTorch's functions that are also tensor methods.

Each is the method of the same name (defined once, in ``nnbook/methods``), called on
its first argument, so ``nb.exp(x)`` and ``x.exp()`` can never disagree.  The few
functions that are not methods (``nb.where``, ``nb.einsum``, ``nb.meshgrid``...) are
below, and so are ``nb.add``, ``nb.sub``, ``nb.mul`` and ``nb.div``, whose first argument
may also be a Python number (``nb.sub(1, x)``).
"""
from __future__ import annotations

import builtins

import numpy as np

from . import dtypes
from .creation import no_out
from .errors import InputError, ShapeError, fmt_shape, message
from .methods.maths import quotient, scaled
from .ops import einsum as einsum_ops
from .ops import elementwise as ew
from .ops import ternary
from .tensor import Tensor, _as, _binary, _wrap, apply


def _method(name):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"nb.{name}(x, ...) is x.{name}(...)."
    return fn


METHODS = (
    "exp", "log", "sqrt", "tanh", "sigmoid", "relu", "softmax", "log_softmax", "abs", "clamp",
    "clip",
    "sum", "mean", "max", "argmax", "all", "any",
    "reshape", "flatten", "permute", "transpose", "matmul", "squeeze", "unsqueeze", "t",
    # elementwise maths (methods/maths.py)
    "exp2", "expm1", "log2", "log10", "log1p", "rsqrt", "square", "reciprocal", "erf",
    "logit", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "asinh",
    "acosh", "atanh", "arcsin", "arccos", "arctan", "arctan2", "arcsinh", "arccosh",
    "arctanh", "absolute", "neg", "negative", "sign", "floor", "ceil", "trunc", "fix",
    "round", "frac", "clamp_min", "clamp_max", "maximum", "minimum", "lerp",
    # reductions (methods/reductions.py)
    "prod", "cumsum", "cumprod", "var", "std", "logsumexp", "norm", "count_nonzero", "min",
    "amax", "amin", "argmin", "median", "kthvalue", "mode",
    # comparisons (methods/comparisons.py)
    "eq", "ne", "lt", "le", "gt", "ge", "not_equal", "less", "less_equal", "greater",
    "greater_equal", "isclose", "allclose", "equal", "isnan", "isinf", "isfinite",
    "isposinf", "isneginf", "signbit", "logical_not", "logical_and", "logical_or",
    "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
    # selection (methods/selection.py)
    "gather", "scatter", "scatter_add", "index_select", "index_fill", "take_along_dim",
    "masked_fill", "masked_select", "sort", "argsort", "topk", "nonzero", "argwhere",
    "unique", "scatter_reduce", "index_add", "index_copy", "index_put", "take", "put",
    "masked_scatter", "index_put_",
    # shapes (methods/shapes.py)
    "unflatten", "movedim", "moveaxis", "swapaxes", "swapdims", "narrow", "select", "split",
    "chunk", "unbind", "flip", "fliplr", "flipud", "roll", "repeat_interleave", "tile",
    "broadcast_to", "numel", "is_signed", "get_device", "tensor_split", "hsplit", "vsplit",
    "dsplit",
    # vectors and matrices (methods/linalg.py)
    "dot", "mm", "bmm", "mv", "outer", "ger", "diagonal", "diag", "trace", "tril", "triu",
)

globals().update({name: _method(name) for name in METHODS})


def add(input, other, *, alpha=1, out=None):
    """input + alpha * other."""
    _no_out("add", out)
    return _binary(ew.Add(), input, scaled(input, other, alpha, "nb.add"))


def sub(input, other, *, alpha=1, out=None):
    """input - alpha * other."""
    _no_out("sub", out)
    return _binary(ew.Sub(), input, scaled(input, other, alpha, "nb.sub"))


def mul(input, other, *, out=None):
    """input * other."""
    _no_out("mul", out)
    return _binary(ew.Mul(), input, other)


def div(input, other, *, rounding_mode=None, out=None):
    """input / other; ``rounding_mode='trunc'`` rounds the quotient toward zero, ``'floor'``
    down (as //)."""
    _no_out("div", out)
    return quotient(_binary, input, other, rounding_mode, "nb.div")


def true_divide(input, other, *, out=None):
    """input / other."""
    _no_out("true_divide", out)
    return _binary(ew.Div(), input, other)


subtract, multiply, divide = sub, mul, div


def matmul(input, other, *, out=None):
    """input @ other (x.matmul(other))."""
    _no_out("matmul", out)
    return input.matmul(other)


def _no_out(name, out):
    no_out(name, out, "a, b")


def pow(input, exponent):
    """input ** exponent; ``input`` may be a number when ``exponent`` is a tensor."""
    return input.pow(exponent) if isinstance(input, Tensor) else exponent.__rpow__(input)


def where(condition, input=None, other=None):
    """``input`` where ``condition`` holds, ``other`` elsewhere (tensors or numbers, which
    broadcast); ``where(condition)`` alone is ``condition.nonzero(as_tuple=True)``."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    if not isinstance(condition, Tensor):
        condition = _wrap(np.asarray(condition))
    dtype = dtypes.result_type(input, other)
    return apply(ternary.Where(), condition, _as(input, dtype), _as(other, dtype))


def einsum(equation, *operands):
    """Sums of products named by letters: ``nb.einsum('ij,jk->ik', a, b)`` is a @ b."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    dtype = dtypes.result_type(*operands)
    return apply(einsum_ops.Einsum(equation), *[_as(x, dtype) for x in operands])


def broadcast_shapes(*shapes) -> tuple:
    """The shape that tensors of these shapes broadcast to."""
    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ShapeError(message(
            f"shapes {', '.join(map(fmt_shape, shapes))} cannot be broadcast together.",
            where="nb.broadcast_shapes", hint="sizes, matched from the right, must be equal "
            "or 1.")) from None


def broadcast_tensors(*tensors) -> tuple:
    """The tensors expanded to their common shape (views, no copies)."""
    shape = broadcast_shapes(*[t.shape for t in tensors])
    return tuple(t.expand(shape) for t in tensors)


def meshgrid(*tensors, indexing="ij") -> tuple:
    """Coordinate grids: output i holds tensor i's values along dim i (with 'xy', the
    first two dims are swapped, as numpy's default)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise InputError(message(f"indexing must be 'ij' or 'xy', got {indexing!r}.",
                                 where="nb.meshgrid", hint="'ij' is matrix indexing."))
    if builtins.any(t.ndim > 1 for t in tensors):  # (any is nb.any in this module)
        raise ShapeError(message(
            "meshgrid takes vectors (or 0-d tensors), got shapes "
            f"{', '.join(fmt_shape(t.shape) for t in tensors)}.", where="nb.meshgrid",
            hint="flatten them first."))
    axes = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) > 1:
        axes[0], axes[1] = 1, 0
    sizes = [t.numel() for t in tensors]
    shape = [0] * len(tensors)
    for t_axis, n in zip(axes, sizes):
        shape[t_axis] = n
    return tuple(t.reshape([-1 if i == a else 1 for i in range(len(shape))]).expand(shape)
                 for t, a in zip(tensors, axes))


def cdist(x1, x2, p=2.0, compute_mode=None):
    """Distances between the rows of x1 (..., P, M) and the rows of x2 (..., R, M), as a
    (..., P, R) tensor: the p-norm of each difference."""
    if x1.ndim < 2 or x2.ndim < 2 or x1.shape[-1] != x2.shape[-1]:
        raise ShapeError(message(
            f"cdist needs two batches of rows with one length, got shapes "
            f"{fmt_shape(x1.shape)} and {fmt_shape(x2.shape)}.", where="nb.cdist",
            hint="x1 is (P, M) and x2 (R, M), or with the same leading batch dims."))
    return (x1.unsqueeze(-2) - x2.unsqueeze(-3)).norm(p, dim=-1)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) over ``dim``: the arguments of ``std``."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return (input.std(dim, unbiased, keepdim, correction=correction),
            input.mean(dim, keepdim))


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) over ``dim``: the arguments of ``var``."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return (input.var(dim, unbiased, keepdim, correction=correction),
            input.mean(dim, keepdim))


__all__ = list(METHODS) + ["add", "sub", "mul", "div", "true_divide", "subtract", "multiply",
                           "divide", "pow", "where", "einsum", "broadcast_shapes",
                           "broadcast_tensors", "meshgrid", "cdist", "std_mean", "var_mean"]
