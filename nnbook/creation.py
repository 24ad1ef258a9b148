"""Making tensors: from data, filled with a value, ranges, and random draws.

Signatures follow PyTorch: sizes as ``zeros(2, 3)``, ``zeros((2, 3))`` or
``zeros(size=(2, 3))``; ``dtype=``, ``device=`` (the CPU) and ``requires_grad=``
wherever PyTorch has them; ``generator=`` on random draws.  Python floats
become the default float dtype (float32), Python ints int64, as in PyTorch;
a numpy array keeps its dtype.
"""
from __future__ import annotations

import builtins

import numpy as np

from . import dtypes
from .arrays import allocate, array_from, check_fits, check_numeric, parse_size
from .device import check_device
from .errors import ArgumentError, DTypeError, InputError, ShapeError, fmt_shape, message
from .ops import shape as shape_ops
from .random import float_dtype, numpy_generator
from .tensor import Tensor, _wrap, apply


def no_out(name, out, args="..."):
    """``out=`` writes a result into an existing tensor in PyTorch.  Here every result is a
    new tensor, so ``out=`` is refused rather than ignored (the tensor given would silently
    keep its old values)."""
    if out is not None:
        raise InputError(message(
            f"out= is not supported: nnbook's {name} returns a new tensor.", where=f"nb.{name}",
            hint=f"assign the result instead: y = nb.{name}({args}), or write it into y with "
            f"y.copy_(nb.{name}({args}))."))


def _finish(array, requires_grad, where) -> Tensor:
    t = _wrap(array)
    if requires_grad:
        t._set_requires_grad(True, where)
    return t


def _as_numpy_dtype(dtype, where):
    return None if dtype is None else dtypes.numpy_dtype(dtype, where)


# ---------------------------------------------------------------------------
# From data
# ---------------------------------------------------------------------------

def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """A new leaf tensor holding a copy of ``data`` (numbers, nested lists, arrays, tensors)."""
    check_device(device, "nb.tensor")
    array = array_from(data, _as_numpy_dtype(dtype, "nb.tensor"), "nb.tensor", copy=True)
    return _finish(array, requires_grad, "nb.tensor")


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like ``nb.tensor`` but without a copy when ``data`` already fits (an array or tensor)."""
    check_device(device, "nb.as_tensor")
    if isinstance(data, Tensor) and (dtype is None or data.dtype == dtype):
        return data
    np_dtype = _as_numpy_dtype(dtype, "nb.as_tensor")
    return _wrap(array_from(data, np_dtype, "nb.as_tensor", copy=False))


def from_numpy(array) -> Tensor:
    """A tensor sharing ``array``'s memory: changes to one show in the other."""
    if not isinstance(array, np.ndarray):
        raise ArgumentError(message(
            f"from_numpy needs a numpy array, got {type(array).__name__}.",
            where="nb.from_numpy", hint="for lists and numbers use nb.tensor(data)."))
    check_numeric(array.dtype, "nb.from_numpy", type(array).__name__)
    return _wrap(array)


# ---------------------------------------------------------------------------
# Filled with a value
# ---------------------------------------------------------------------------

def _filled(where, args, size, value, dtype, device, requires_grad) -> Tensor:
    check_device(device, where)
    shape = parse_size(args, size, where)
    np_dtype = _as_numpy_dtype(dtype, where)
    if value is not None and not _is_number(value):
        raise ArgumentError(message(
            f"fill_value must be a number, got {type(value).__name__} {value!r:.40}.",
            where=where, hint=f"e.g. {where}((2, 3), 0.5); for data use nb.tensor(data)."))
    if np_dtype is None:
        np_dtype = dtypes.result_type(value) if value is not None else dtypes.default_float()
    if value is not None and not isinstance(value, Tensor):
        check_fits(value, np_dtype, where)
    array = allocate(lambda: np.full(shape, 0 if value is None else value, dtype=np_dtype),
                     shape, np_dtype, where)
    return _finish(array, requires_grad, where)


def _is_number(value) -> bool:
    """A Python or numpy number, or a one-element tensor (what np.full can repeat)."""
    if isinstance(value, Tensor):
        return value.numel() == 1
    return isinstance(value, (builtins.bool, builtins.int, builtins.float, builtins.complex,
                              np.number, np.bool_))


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          **kwargs) -> Tensor:
    no_out("zeros", out)
    return _filled("nb.zeros", size, kwargs.pop("size", None), None, dtype or
                   dtypes.default_float(), device, requires_grad)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         **kwargs) -> Tensor:
    no_out("ones", out)
    return _filled("nb.ones", size, kwargs.pop("size", None), 1, dtype or
                   dtypes.default_float(), device, requires_grad)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          **kwargs) -> Tensor:
    """Uninitialised in PyTorch; zeros here, so a forgotten fill shows as zeros, not noise."""
    no_out("empty", out)
    return _filled("nb.empty", size, kwargs.pop("size", None), None, dtype or
                   dtypes.default_float(), device, requires_grad)


def full(size, fill_value, out=None, dtype=None, layout=None, device=None,
         requires_grad=False) -> Tensor:
    no_out("full", out)
    if not isinstance(size, (tuple, list)):
        size = (size,)
    return _filled("nb.full", tuple(size), None, fill_value, dtype, device, requires_grad)


def _like(where, t, value, dtype, device, requires_grad) -> Tensor:
    if not isinstance(t, Tensor):
        raise ArgumentError(message(f"{where} needs a tensor, got {type(t).__name__}.",
                                    where=where, hint=f"{where}(x) copies x's shape and dtype."))
    return _filled(where, t.shape, None, value, dtype or t.dtype, device, requires_grad)


def zeros_like(input, dtype=None, device=None, requires_grad=False, **kwargs) -> Tensor:
    return _like("nb.zeros_like", input, None, dtype, device, requires_grad)


def ones_like(input, dtype=None, device=None, requires_grad=False, **kwargs) -> Tensor:
    return _like("nb.ones_like", input, 1, dtype, device, requires_grad)


def empty_like(input, dtype=None, device=None, requires_grad=False, **kwargs) -> Tensor:
    return _like("nb.empty_like", input, None, dtype, device, requires_grad)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False,
              **kwargs) -> Tensor:
    return _like("nb.full_like", input, fill_value, dtype, device, requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False, **kwargs) -> Tensor:
    check_device(device, "nb.eye")
    shape = parse_size((n, n if m is None else m), None, "nb.eye")
    np_dtype = _as_numpy_dtype(dtype, "nb.eye") or dtypes.default_float()
    return _finish(np.eye(*shape, dtype=np_dtype), requires_grad, "nb.eye")


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None) -> Tensor:
    """The (row, column) indices of a row x col matrix's lower triangle, as a (2, N) tensor
    in reading order; ``offset`` moves the edge as ``tril``'s ``diagonal`` does."""
    return _triangle_indices("tril_indices", np.tril_indices, row, col, offset, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None) -> Tensor:
    """The (row, column) indices of a row x col matrix's upper triangle, as a (2, N) tensor."""
    return _triangle_indices("triu_indices", np.triu_indices, row, col, offset, dtype, device)


def _triangle_indices(name, indices, row, col, offset, dtype, device) -> Tensor:
    where = f"nb.{name}"
    check_device(device, where)
    for what, value in (("row", row), ("col", col), ("offset", offset)):
        if not isinstance(value, (builtins.int, np.integer)) or isinstance(value, builtins.bool):
            raise ArgumentError(message(f"{what} must be an int, got {value!r}.", where=where,
                                        hint=f"e.g. nb.{name}(4, 3, offset=0)."))
    if row < 0 or col < 0:
        raise InputError(message(f"row and col must not be negative, got {row} and {col}.",
                                 where=where, hint="they are the matrix's sizes."))
    np_dtype = _as_numpy_dtype(dtype, where) or np.dtype(np.int64)
    if np_dtype not in (np.int64, np.int32):
        raise DTypeError(message(f"gives int64 or int32 indices, not {np_dtype.name} (as "
                                 "PyTorch).", where=where, hint="leave dtype out (int64)."))
    rows, cols = indices(row, offset, col)
    return _wrap(np.stack([rows, cols]).astype(np_dtype).reshape(2, -1))


# ---------------------------------------------------------------------------
# Ranges
# ---------------------------------------------------------------------------

def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False,
           **kwargs) -> Tensor:
    """[start, end) in steps of ``step``; integers give int64, any float the default float."""
    check_device(device, "nb.arange")
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if any(not isinstance(v, (builtins.int, builtins.float, np.number)) for v in values):
        raise ArgumentError(message(f"arange needs numbers, got {tuple(values)!r}.",
                                    where="nb.arange", hint="e.g. nb.arange(0, 10, 2)."))
    if values[2] == 0:
        raise InputError(message("arange's step must not be 0.", where="nb.arange",
                                 hint="e.g. step=1 (or a negative step to count down)."))
    floats = any(isinstance(v, (builtins.float, np.floating)) for v in values)
    np_dtype = _as_numpy_dtype(dtype, "nb.arange") or (dtypes.default_float() if floats
                                                       else np.int64)
    array = np.arange(*values, dtype=np.float64 if floats else np.int64).astype(np_dtype)
    return _finish(array, requires_grad, "nb.arange")


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False,
             **kwargs) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end``, both included."""
    check_device(device, "nb.linspace")
    steps = parse_size((steps,), None, "nb.linspace")[0]
    np_dtype = _as_numpy_dtype(dtype, "nb.linspace") or dtypes.default_float()
    start, end = (v.item() if isinstance(v, Tensor) else v for v in (start, end))
    return _finish(np.linspace(start, end, steps, dtype=np.float64).astype(np_dtype),
                   requires_grad, "nb.linspace")


def logspace(start, end, steps, base=10.0, dtype=None, device=None, requires_grad=False,
             **kwargs) -> Tensor:
    """``base ** linspace(start, end, steps)``."""
    check_device(device, "nb.logspace")
    steps = parse_size((steps,), None, "nb.logspace")[0]
    np_dtype = _as_numpy_dtype(dtype, "nb.logspace") or dtypes.default_float()
    values = np.float64(base) ** np.linspace(start, end, steps, dtype=np.float64)
    return _finish(values.astype(np_dtype), requires_grad, "nb.logspace")


# ---------------------------------------------------------------------------
# Random draws
# ---------------------------------------------------------------------------

def _random(where, args, size, draw, dtype, device, requires_grad, generator) -> Tensor:
    check_device(device, where)
    shape = parse_size(args, size, where)
    np_dtype = float_dtype(dtype, where)
    rng = numpy_generator(generator)
    array = allocate(lambda: draw(rng, shape).astype(np_dtype, copy=False), shape, np_dtype,
                     where)
    return _finish(array, requires_grad, where)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, **kwargs) -> Tensor:
    """Samples of the standard normal distribution N(0, 1)."""
    no_out("randn", out)
    return _random("nb.randn", size, kwargs.pop("size", None),
                   lambda rng, s: rng.standard_normal(s), dtype, device, requires_grad,
                   generator)


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, **kwargs) -> Tensor:
    """Samples of the uniform distribution on [0, 1)."""
    no_out("rand", out)
    return _random("nb.rand", size, kwargs.pop("size", None), lambda rng, s: rng.random(s),
                   dtype, device, requires_grad, generator)


def randn_like(input, dtype=None, device=None, requires_grad=False, generator=None,
               **kwargs) -> Tensor:
    return randn(*input.shape, dtype=dtype or input.dtype, device=device,
                 requires_grad=requires_grad, generator=generator)


def rand_like(input, dtype=None, device=None, requires_grad=False, generator=None,
              **kwargs) -> Tensor:
    return rand(*input.shape, dtype=dtype or input.dtype, device=device,
                requires_grad=requires_grad, generator=generator)


def randint_like(input, *args, low=None, high=None, generator=None, dtype=None, device=None,
                 requires_grad=False, **kwargs) -> Tensor:
    """Integers in [low, high) in ``input``'s shape (and dtype, unless ``dtype`` is given):
    ``randint_like(x, high)`` or ``randint_like(x, low, high)``."""
    bounds = list(args) + [v for v in (low, high) if v is not None]
    if len(bounds) == 1 and low is not None:
        bounds = [low, None]  # low= alone: the message below asks for high
    if len(bounds) not in (1, 2) or None in bounds:
        raise ArgumentError(message(
            f"randint_like needs high (and low, if not 0), got {tuple(args)!r} by position, "
            f"low={low!r}, high={high!r}.", where="nb.randint_like",
            hint="e.g. nb.randint_like(x, 10) or nb.randint_like(x, low=2, high=10)."))
    return randint(*bounds, input.shape, generator=generator,
                   dtype=input.dtype if dtype is None else dtype, device=device,
                   requires_grad=requires_grad)


def randint(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False,
            **kwargs) -> Tensor:
    """Integers in [low, high): ``randint(high, size)`` or ``randint(low, high, size)``."""
    where = "nb.randint"
    check_device(device, where)
    if size is None and args and isinstance(args[-1], (tuple, list)):
        args, size = args[:-1], args[-1]
    if len(args) == 1:
        low, high = 0, args[0]
    elif len(args) == 2:
        low, high = args
    else:
        raise ArgumentError(message(
            f"randint takes (high, size) or (low, high, size), got {len(args)} number(s).",
            where=where, hint="e.g. nb.randint(0, 10, (3, 4))."))
    if size is None:
        raise ArgumentError(message("randint needs a size.", where=where,
                                    hint="e.g. nb.randint(0, 10, (3, 4)) or size=(3, 4)."))
    shape = parse_size((), size, where)
    low, high = (builtins.int(v.item() if isinstance(v, Tensor) else v) for v in (low, high))
    if high <= low:
        raise InputError(message(f"randint needs low < high, got low={low}, high={high}.",
                                 where=where, hint="high is excluded: randint(0, 2) gives 0 or 1."))
    np_dtype = _as_numpy_dtype(dtype, where) or np.int64
    array = numpy_generator(generator).integers(low, high, size=shape).astype(np_dtype)
    return _finish(array, requires_grad, where)


def randperm(n, generator=None, dtype=None, device=None, requires_grad=False,
             **kwargs) -> Tensor:
    """A random ordering of 0 .. n-1."""
    check_device(device, "nb.randperm")
    n = parse_size((n,), None, "nb.randperm")[0]
    np_dtype = _as_numpy_dtype(dtype, "nb.randperm") or np.int64
    return _wrap(numpy_generator(generator).permutation(n).astype(np_dtype))


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False, **kwargs) -> Tensor:
    """Samples of N(mean, std**2): numbers with ``size``, or tensors of means / stds."""
    where = "nb.normal"
    check_device(device, where)
    means, stds = (v._array if isinstance(v, Tensor) else v for v in (mean, std))
    if size is None and np.ndim(means) == 0 and np.ndim(stds) == 0:
        raise ArgumentError(message("normal with two numbers needs a size.", where=where,
                                    hint="e.g. nb.normal(0.0, 1.0, size=(3, 4))."))
    if np.any(np.asarray(stds) < 0):
        raise InputError(message("std must be at least 0.", where=where,
                                 hint="std is a standard deviation, never negative."))
    shape = parse_size((), size, where) if size is not None else \
        np.broadcast_shapes(np.shape(means), np.shape(stds))
    like = next((v for v in (mean, std) if isinstance(v, Tensor)), None)
    np_dtype = _as_numpy_dtype(dtype, where) or (like._array.dtype if like is not None
                                          else dtypes.default_float())
    draws = numpy_generator(generator).normal(means, stds, size=shape)
    return _finish(np.asarray(draws).astype(np_dtype), requires_grad, where)


def bernoulli(input, p=None, *, generator=None, **kwargs) -> Tensor:
    """1 with probability ``input`` (each element a probability), else 0."""
    probs = input._array if p is None else np.full(input.shape, p)
    if np.any((probs < 0) | (probs > 1)):
        raise InputError(message("bernoulli needs probabilities between 0 and 1.",
                                 where="nb.bernoulli", hint="squash scores first: x.sigmoid()."))
    draws = numpy_generator(generator).random(probs.shape) < probs
    return _wrap(draws.astype(input._array.dtype))


def multinomial(input, num_samples, replacement=False, *, generator=None) -> Tensor:
    """Indices drawn with the weights in ``input`` (1-D, or one row of weights per draw)."""
    where = "nb.multinomial"
    weights = np.asarray(input._array if isinstance(input, Tensor) else input, dtype=np.float64)
    if weights.ndim not in (1, 2):
        raise ShapeError(message(f"multinomial needs 1-D or 2-D weights, got shape "
                                 f"{fmt_shape(weights.shape)}.", where=where,
                                 hint="one row of weights per distribution."))
    if np.any(weights < 0) or not np.all(np.isfinite(weights)):
        raise InputError(message("multinomial's weights must be finite and at least 0.",
                                 where=where, hint="use probabilities, e.g. softmax(logits)."))
    rows = weights.reshape(-1, weights.shape[-1])
    if np.any(rows.sum(axis=1) <= 0):
        raise InputError(message("every row of weights needs a positive sum.", where=where,
                                 hint="a row of zeros has nothing to draw from."))
    if not replacement and num_samples > rows.shape[1]:
        raise InputError(message(
            f"cannot draw {num_samples} samples without replacement from {rows.shape[1]} "
            "categories.", where=where, hint="pass replacement=True, or draw fewer."))
    rng = numpy_generator(generator)
    out = np.stack([rng.choice(len(r), size=num_samples, replace=replacement, p=r / r.sum())
                    for r in rows]).astype(np.int64)
    return _wrap(out.reshape(weights.shape[:-1] + (num_samples,)))


# ---------------------------------------------------------------------------
# Several tensors into one
# ---------------------------------------------------------------------------

def cat(tensors, dim=0, *, axis=None, out=None) -> Tensor:
    """Join tensors along an existing dimension (dtypes promote as in PyTorch)."""
    no_out("cat", out)
    dim = axis if axis is not None else dim
    tensors = [t if isinstance(t, Tensor) else tensor(t) for t in tensors]
    if not tensors:
        raise InputError(message("cat needs at least one tensor.", where="nb.cat",
                                 hint="pass a list of tensors: nb.cat([a, b], dim=0)."))
    from .tensor import _as

    np_dtype = dtypes.result_type(*[_AsDimensioned(t) for t in tensors])
    return apply(shape_ops.Cat(dim), *[_as(t, np_dtype) for t in tensors])


concat = concatenate = cat


class _AsDimensioned:
    """cat promotes every input as a tensor with dimensions (as PyTorch does)."""

    def __init__(self, t):
        self.dtype, self.ndim = t._array.dtype, 1


def stack(tensors, dim=0, *, out=None) -> Tensor:
    """Join tensors along a new dimension."""
    no_out("stack", out)
    tensors = [t if isinstance(t, Tensor) else tensor(t) for t in tensors]
    if not tensors:
        raise InputError(message("stack needs at least one tensor.", where="nb.stack",
                                 hint="pass a list of tensors: nb.stack([a, b], dim=0)."))
    shapes = {t.shape for t in tensors}
    if len(shapes) > 1:
        raise ShapeError(message(
            f"stack needs tensors of one shape, got {', '.join(map(fmt_shape, shapes))}.",
            where="nb.stack", hint="stack adds a dimension; to join along an existing one "
            "with different sizes use nb.cat."))
    d = shape_ops.checked_dim(dim, tensors[0].ndim + 1, "nb.stack")
    return cat([t.unsqueeze(d) for t in tensors], d)


def hstack(tensors, *, out=None) -> Tensor:
    """Join side by side: 1-d tensors end to end (dim 0), others along dim 1 (columns);
    a 0-d tensor counts as 1-d."""
    no_out("hstack", out)
    tensors = [t if isinstance(t, Tensor) else tensor(t) for t in tensors]
    tensors = [t.reshape(1) if t.ndim == 0 else t for t in tensors]
    return cat(tensors, 0 if tensors and tensors[0].ndim == 1 else 1)


def vstack(tensors, *, out=None) -> Tensor:
    """Join as rows (dim 0): a 1-d tensor of n values is one row (1, n), a 0-d one (1, 1)."""
    no_out("vstack", out)
    tensors = [t if isinstance(t, Tensor) else tensor(t) for t in tensors]
    return cat([t.reshape(1, -1) if t.ndim < 2 else t for t in tensors], 0)


row_stack = vstack
