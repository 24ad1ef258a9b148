"""``nb.exp(x)``, ``nb.sum(x, dim=1)``...: PyTorch's functions that are also tensor methods.

Each is the method of the same name (defined once, in ``nnbook/methods``), called on
its first argument, so ``nb.exp(x)`` and ``x.exp()`` can never disagree.  The few
functions that are not methods (``nb.where``, ``nb.einsum``, ``nb.meshgrid``...) are
below, and so are ``nb.add``, ``nb.sub``, ``nb.mul`` and ``nb.div``, whose first argument
may also be a Python number (``nb.sub(1, x)``).
"""
from __future__ import annotations

import builtins
import itertools
import math
import warnings

import numpy as np

from . import dtypes
from .creation import cat, no_out, stack
from .errors import ArgumentError, DTypeError, InputError, ShapeError, fmt_shape, message
from .methods.maths import quotient, scaled
from .methods.statistics import cumulative_trapezoid, trapezoid, trapz, vander
from .ops import bins, explog, floats, ternary
from .ops import einsum as einsum_ops
from .ops import elementwise as ew
from .ops import shape as shape_ops
from .ops.base import is_real
from .tensor import Tensor, _as, _binary, _wrap, apply


def _method(name):
    def fn(input, *args, out=None, **kwargs):
        no_out(name, out)
        if not isinstance(input, Tensor):  # nb.exp([1.0]): PyTorch's functions take tensors
            raise ArgumentError(message(
                f"the input is a {type(input).__name__}, not a Tensor.", where=f"nb.{name}",
                hint=f"make it a tensor first: nb.{name}(nb.tensor({input!r:.40}))."))
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
    "round", "frac", "clamp_min", "clamp_max", "maximum", "minimum", "lerp", "erfc", "erfinv",
    "logaddexp", "logaddexp2", "hypot", "fmod", "nan_to_num", "erfc_", "xlogy_",
    "nan_to_num_",
    # special functions and the parts of numbers (methods/maths.py)
    "lgamma", "digamma", "mvlgamma", "i0", "sinc", "deg2rad", "rad2deg", "frexp", "copysign",
    "heaviside", "nextafter", "gcd", "lcm", "logit_", "i0_", "sinc_", "ldexp_", "gcd_",
    "lcm_",
    # reductions (methods/reductions.py)
    "prod", "cumsum", "cumprod", "var", "std", "logsumexp", "norm", "count_nonzero", "min",
    "amax", "amin", "argmin", "median", "kthvalue", "mode", "nansum", "nanmean", "diff",
    "cummax", "cummin", "logcumsumexp", "bincount", "histc", "histogram",
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
    "addmm", "addmv", "addr", "baddbmm", "addbmm", "kron", "cross", "rot90",
    # fused elementwise (methods/maths.py)
    "addcmul", "addcdiv",
    # functions of whole matrices (methods/linalg.py)
    "det", "slogdet", "logdet", "inverse", "pinverse", "matrix_power", "cholesky", "qr", "svd",
    "cov", "corrcoef",
    # quantiles, extremes, norms of slices (methods/statistics.py)
    "quantile", "nanquantile", "aminmax", "msort", "ravel", "dist", "renorm", "nanmedian",
    "unique_consecutive",
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
    _tensor_or_number(input, "nb.matmul", "input", numbers=False)
    return input.matmul(other)


def _no_out(name, out):
    no_out(name, out, "a, b")


def pow(input, exponent):
    """input ** exponent; ``input`` may be a number when ``exponent`` is a tensor."""
    return input.pow(exponent) if isinstance(input, Tensor) else exponent.__rpow__(input)


def remainder(input, other):
    """input % other: the remainder with the sign of ``other`` (Python's %); ``input``
    may be a number."""
    return _binary(ew.Remainder(), input, other)


def floor_divide(input, other):
    """input // other: the quotient rounded down; ``input`` may be a number."""
    return _binary(ew.FloorDiv(), input, other)


def xlogy(input, other):
    """input * log(other), 0 where input is 0; either may be a number."""
    return _binary(explog.Xlogy(), input, other)


def polygamma(n, input):
    """The n-th derivative of digamma at ``input`` (note the order: n first)."""
    if isinstance(n, Tensor) and not isinstance(input, Tensor):
        raise ArgumentError(message(
            f"polygamma takes n first, then the tensor; got a tensor for n and "
            f"{input!r:.20} for input.", where="nb.polygamma",
            hint=f"swap them: nb.polygamma({input!r:.20}, x)."))
    _tensors("nb.polygamma", input=input)
    return input.polygamma(n)


def float_power(input, exponent):
    """input ** exponent in float64; either may be a number."""
    if isinstance(input, Tensor):
        return input.float_power(exponent)
    _tensors("nb.float_power", exponent=exponent)
    return exponent.double().__rpow__(input)


def ldexp(input, other):
    """input * 2**other."""
    return _binary(floats.Ldexp(), input, other)


def bitwise_left_shift(input, other):
    """input << other, on integers; either may be a number."""
    return _binary(floats.WholeNumbers("bitwise_left_shift"), input, other)


def bitwise_right_shift(input, other):
    """input >> other, on integers; either may be a number."""
    return _binary(floats.WholeNumbers("bitwise_right_shift"), input, other)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """For each of ``elements``, whether it is one of ``test_elements`` (either may be a
    number); ``invert=True`` asks whether it is not.  ``assume_unique`` changes nothing."""
    found = bins.isin(_values(elements), _values(test_elements), invert)
    return _wrap(np.asarray(found))


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Where each of ``values`` would go in ``sorted_sequence`` (along its last dim) to
    keep it sorted: before equal elements, or after them with ``right=True`` or
    ``side='right'``; ``sorter`` gives the order of an unsorted sequence."""
    found = bins.searchsorted(_values(sorted_sequence), _values(values), right, side,
                              None if sorter is None else _values(sorter), out_int32,
                              "nb.searchsorted")
    return _wrap(np.asarray(found))


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each value among sorted ``boundaries`` (1-D): i where
    boundaries[i-1] < x <= boundaries[i] (with ``right=True``: <= x <)."""
    edges = _values(boundaries)
    if edges.ndim != 1:
        raise ShapeError(message(
            f"boundaries must be 1-D, got {edges.ndim}-D {fmt_shape(edges.shape)}.",
            where="nb.bucketize", hint="for one row of boundaries per row of values use "
            "nb.searchsorted."))
    return _wrap(np.asarray(bins.searchsorted(edges, _values(input), right, None, None,
                                              out_int32, "nb.bucketize")))


def _values(x) -> np.ndarray:
    """A tensor's array, or a Python number as a 0-d array."""
    return x._array if isinstance(x, Tensor) else np.asarray(x)


def where(condition, input=None, other=None):
    """``input`` where ``condition`` holds, ``other`` elsewhere (tensors or numbers, which
    broadcast); ``where(condition)`` alone is ``condition.nonzero(as_tuple=True)``."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    if not isinstance(condition, Tensor):
        condition = _wrap(np.asarray(condition))
    for name, value in (("input", input), ("other", other)):
        _tensor_or_number(value, "nb.where", name)
    dtype = dtypes.result_type(input, other)
    return apply(ternary.Where(), condition, _as(input, dtype), _as(other, dtype))


def _tensor_or_number(value, where, name, numbers=True) -> None:
    """Fail unless ``value`` is a tensor (or, if ``numbers``, a Python number or None)."""
    if isinstance(value, Tensor) or numbers and (
            value is None or isinstance(value, (bool, int, float))):
        return
    kinds = "a Tensor or a number" if numbers else "a Tensor"
    raise ArgumentError(message(
        f"{name} is a {type(value).__name__}, not {kinds}.", where=where,
        hint=f"make it a tensor first: nb.tensor({value!r:.40})."))


def einsum(equation, *operands):
    """Sums of products named by letters: ``nb.einsum('ij,jk->ik', a, b)`` is a @ b."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for index, value in enumerate(operands):
        _tensor_or_number(value, "nb.einsum", f"operand {index}", numbers=False)
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


def pdist(input, p=2):
    """The p-norm distance between every pair of rows of input (N, M), pairs (i, j) with
    i < j in the order (0, 1), (0, 2), ..., (N - 2, N - 1): a vector of N (N - 1) / 2.
    cdist(x, x) holds the same numbers above its diagonal."""
    _tensors("nb.pdist", input=input)
    if input.ndim != 2:
        raise ShapeError(message(
            f"pdist takes a matrix (N, M), one point per row, got {input.ndim}-D with shape "
            f"{fmt_shape(input.shape)}.", where="nb.pdist",
            hint="for a batch of point sets use nb.cdist(x, x), which is (..., N, N)."))
    if input.dtype.kind != "f":
        raise DTypeError(message(
            f"pdist needs floating point rows, got {input.dtype.name}.", where="nb.pdist",
            hint="convert them first: x.float()."))
    if not is_real(p):
        raise ArgumentError(message(f"p must be a number, got {p!r}.", where="nb.pdist",
                                    hint="p=2 (the default) is the Euclidean distance."))
    if not p >= 0:  # (NaN is refused too)
        raise InputError(message(
            f"p must be >= 0 (or inf), got {p!r}.", where="nb.pdist",
            hint="p=2 (the default) is the Euclidean distance, p=1 the city-block one."))
    first, second = np.triu_indices(input.shape[0], k=1)
    return (input[_wrap(first)] - input[_wrap(second)]).norm(p, dim=1)


def tensordot(a, b, dims=2, out=None):
    """Sums of products over pairs of dims: ``dims=n`` pairs a's last n dims with b's first
    n, ``dims=([1, 2], [0, 1])`` names the pairs.  The result has a's other dims, then b's.

    The contracted dims are moved to the end of a and the front of b and flattened, so the
    sum is one matrix product: (free_a, k) @ (k, free_b)."""
    _no_out("tensordot", out)
    _tensors("nb.tensordot", a=a, b=b)
    dims_a, dims_b = _contracted_dims(a, b, dims)
    if a._array.dtype != b._array.dtype:
        raise DTypeError(message(
            f"tensordot needs both operands of one dtype, got {a.dtype.name} and "
            f"{b.dtype.name}.", where="nb.tensordot", hint="convert one: b.to(a.dtype)."))
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise ShapeError(message(
                f"tensordot sums a's dim {da} against b's dim {db}, which have sizes "
                f"{a.shape[da]} and {b.shape[db]}: shapes {fmt_shape(a.shape)} and "
                f"{fmt_shape(b.shape)}.", where="nb.tensordot",
                hint="the paired dims must have equal sizes; check the order of dims."))
    free_a = [d for d in range(a.ndim) if d not in dims_a]
    free_b = [d for d in range(b.ndim) if d not in dims_b]
    k = math.prod(a.shape[d] for d in dims_a)
    rows = math.prod(a.shape[d] for d in free_a)
    cols = math.prod(b.shape[d] for d in free_b)
    left = a.permute(free_a + dims_a).reshape(rows, k)    # (free_a, k)
    right = b.permute(dims_b + free_b).reshape(k, cols)   # (k, free_b)
    return (left @ right).reshape([a.shape[d] for d in free_a] + [b.shape[d] for d in free_b])


def _contracted_dims(a, b, dims) -> tuple:
    """tensordot's ``dims`` as two lists of dims (of a, of b), checked."""
    where = "nb.tensordot"
    if isinstance(dims, Tensor):
        dims = dims.item() if dims.numel() == 1 else dims.tolist()  # (as PyTorch)
    if isinstance(dims, (builtins.int, np.integer)) and not isinstance(dims, builtins.bool):
        if not 0 <= dims <= builtins.min(a.ndim, b.ndim):
            raise InputError(message(
                f"dims={dims} must be between 0 and the smaller number of dimensions "
                f"({builtins.min(a.ndim, b.ndim)}) of shapes {fmt_shape(a.shape)} and "
                f"{fmt_shape(b.shape)}.", where=where,
                hint="dims=n sums over a's last n dims and b's first n."))
        return list(range(a.ndim - dims, a.ndim)), list(range(dims))
    if not (isinstance(dims, (list, tuple)) and len(dims) == 2
            and builtins.all(isinstance(d, (list, tuple)) for d in dims)):
        raise ArgumentError(message(
            f"dims must be an int or a pair of lists of dims, got {dims!r}.", where=where,
            hint="e.g. dims=2, or dims=([1], [0]) to sum a's dim 1 against b's dim 0."))
    if len(dims[0]) != len(dims[1]):
        raise InputError(message(
            f"dims pairs dims of a with dims of b, so both lists need one length; got "
            f"{list(dims[0])} and {list(dims[1])}.", where=where,
            hint="e.g. dims=([1, 2], [0, 1])."))
    pairs = ([shape_ops.checked_dim(d, a.ndim, where) for d in dims[0]],
             [shape_ops.checked_dim(d, b.ndim, where) for d in dims[1]])
    for which, listed in zip("ab", pairs):
        if len(set(listed)) != len(listed):
            raise InputError(message(f"dims names a dim of {which} twice: {listed}.",
                                     where=where, hint="each dim can be summed over once."))
    return pairs


def block_diag(*tensors):
    """The tensors as blocks on the diagonal of one matrix, zeros elsewhere: (2, 3) and
    (1, 4) give (3, 7).  A vector is a one-row block, a 0-d tensor a 1x1 block."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise ArgumentError(message(f"block {i} is a {type(t).__name__}, not a tensor.",
                                        where="nb.block_diag",
                                        hint="pass tensors: nb.block_diag(a, b, c)."))
        if t.ndim > 2:
            raise ShapeError(message(
                f"blocks have at most 2 dimensions; block {i} has shape {fmt_shape(t.shape)}.",
                where="nb.block_diag", hint="reshape it into a matrix first."))
    blocks = [t if t.ndim == 2 else t.reshape(1, -1) for t in tensors]
    if not blocks:  # no blocks: an empty row, as PyTorch
        return _wrap(np.zeros((1, 0), dtypes.default_float()))
    dtype = dtypes.result_type(*blocks)
    width = builtins.sum(t.shape[1] for t in blocks)
    rows, left = [], 0
    for t in blocks:
        height, cols = t.shape
        right = width - left - cols
        rows.append(cat([_wrap(np.zeros((height, left), dtype)), _as(t, dtype),
                         _wrap(np.zeros((height, right), dtype))], dim=1))
        left += cols
    return cat(rows, dim=0)


def cartesian_prod(*tensors):
    """Every way to pick one element of each vector, as rows: (n,) and (m,) give
    (n*m, 2), the first vector's element changing slowest (as itertools.product)."""
    if not tensors:
        raise InputError(message("cartesian_prod needs at least one vector.",
                                 where="nb.cartesian_prod", hint="e.g. nb.cartesian_prod(a, b)."))
    _tensors("nb.cartesian_prod", **{f"input {i}": t for i, t in enumerate(tensors)})
    for i, t in enumerate(tensors):
        if t.ndim != 1:
            raise ShapeError(message(
                f"cartesian_prod takes vectors (1-D); input {i} has shape "
                f"{fmt_shape(t.shape)}.", where="nb.cartesian_prod",
                hint="flatten it first: t.flatten()."))
    if len({t._array.dtype for t in tensors}) > 1:
        raise DTypeError(message(
            f"cartesian_prod needs vectors of one dtype, got "
            f"{', '.join(t.dtype.name for t in tensors)}.", where="nb.cartesian_prod",
            hint="convert them: t.to(first.dtype)."))
    if len(tensors) == 1:
        return tensors[0]  # (as PyTorch: the vector itself)
    grids = meshgrid(*tensors, indexing="ij")
    return stack([grid.reshape(-1) for grid in grids], dim=1)


def combinations(input, r=2, with_replacement=False):
    """Every choice of ``r`` elements of a vector, in order of position, as rows: (n,) gives
    (n choose r, r); ``with_replacement=True`` lets an element be chosen again."""
    _tensors("nb.combinations", input=input)
    if input.ndim != 1:
        raise ShapeError(message(f"combinations takes a vector (1-D), got shape "
                                 f"{fmt_shape(input.shape)}.", where="nb.combinations",
                                 hint="flatten it first: x.flatten()."))
    if not isinstance(r, (builtins.int, np.integer)) or isinstance(r, builtins.bool) or r < 0:
        raise InputError(message(f"r must be a whole number >= 0, got {r!r}.",
                                 where="nb.combinations", hint="r is how many to choose."))
    choose = (itertools.combinations_with_replacement if with_replacement
              else itertools.combinations)
    positions = np.array(list(choose(range(input.shape[0]), r)), dtype=np.int64)
    if r == 0:  # choosing nothing gives nothing (PyTorch: an empty vector)
        positions = np.zeros(0, dtype=np.int64)
    return input[_wrap(positions.reshape(-1, r) if r else positions)]


def _tensors(where, **operands) -> None:
    """Fail unless every one of ``operands`` is a tensor (PyTorch raises a TypeError too)."""
    for name, value in operands.items():
        if not isinstance(value, Tensor):
            raise ArgumentError(message(
                f"{name} must be a tensor, got {type(value).__name__}.", where=where,
                hint="make it one first: nb.tensor(...)."))


def chain_matmul(*matrices, out=None):
    """matrices[0] @ matrices[1] @ ...: matrices only (2-D).  Deprecated, as in PyTorch
    (which warns): use nb.linalg.multi_dot."""
    _no_out("chain_matmul", out)
    _tensors("nb.chain_matmul", **{f"matrix {i}": m for i, m in enumerate(matrices)})
    if not matrices or builtins.any(m.ndim != 2 for m in matrices):
        raise ShapeError(message(
            f"chain_matmul takes one or more matrices (2-D), got shapes "
            f"{', '.join(fmt_shape(m.shape) for m in matrices) or 'none'}.",
            where="nb.chain_matmul", hint="nb.linalg.multi_dot also takes vectors at the ends."))
    warnings.warn("nb.chain_matmul is deprecated (as torch.chain_matmul): use "
                  "nb.linalg.multi_dot.", UserWarning, stacklevel=2)
    result = matrices[0]
    for m in matrices[1:]:
        result = result @ m
    return result if len(matrices) > 1 else result.clone()


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
                           "broadcast_tensors", "meshgrid", "cdist", "pdist", "std_mean",
                           "var_mean", "remainder", "floor_divide", "xlogy", "isin",
                           "searchsorted", "bucketize", "tensordot", "block_diag", "cartesian_prod",
                           "combinations", "chain_matmul", "polygamma", "float_power", "ldexp",
                           "bitwise_left_shift", "bitwise_right_shift", "trapezoid", "trapz",
                           "cumulative_trapezoid", "vander"]
