"""Tensor: a numpy array that remembers the op that made it, so gradients can flow back."""
from __future__ import annotations

import contextlib
import math
from collections import namedtuple

import numpy as np

from .autograd import engine
from .errors import BackwardError, DTypeError, InputError, ShapeError, fmt_shape, message
from .ops import elementwise as ew
from .ops import linalg, reduce, shape as shape_ops
from .ops.shape import transpose_dims

float32, float64 = np.dtype(np.float32), np.dtype(np.float64)
int32, int64, bool_ = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.bool_)
DEFAULT_FLOAT = float32

# ---------------------------------------------------------------------------
# Gradient mode
# ---------------------------------------------------------------------------
_grad_enabled = True


def is_grad_enabled() -> bool:
    return _grad_enabled


class no_grad(contextlib.ContextDecorator):
    """Inside ``with nb.no_grad():`` ops record no graph (for evaluation and updates)."""

    def __enter__(self):
        global _grad_enabled
        self.prev, _grad_enabled = _grad_enabled, False

    def __exit__(self, *exc):
        global _grad_enabled
        _grad_enabled = self.prev
        return False


class enable_grad(no_grad):
    def __enter__(self):
        global _grad_enabled
        self.prev, _grad_enabled = _grad_enabled, True


# ---------------------------------------------------------------------------
# Running an op
# ---------------------------------------------------------------------------

def apply(op, *inputs: "Tensor") -> "Tensor":
    """Check shapes with ``op.infer``, run ``op.forward`` and link the result into the graph."""
    if _observers:
        return _apply_observed(op, inputs)
    op.infer(*inputs)
    out = Tensor.__new__(Tensor)
    out.grad, out.requires_grad, out._op = None, False, None
    if _grad_enabled:
        needs = tuple([t.requires_grad for t in inputs])
        if True in needs:
            op.inputs, op.needs_input_grad = inputs, needs
            data = op.forward(*[t.data for t in inputs])
            if type(data) is not np.ndarray:  # numpy gives scalars for 0-d results
                data = np.asarray(data)
            out.data = data
            if data.dtype.kind == "f":
                out.requires_grad, out._op = True, op
            return out
    data = op.forward(*[t.data for t in inputs])
    out.data = data if type(data) is np.ndarray else np.asarray(data)
    return out


# ---------------------------------------------------------------------------
# Watching ops run: shape-only passes, recording, anomaly detection
# ---------------------------------------------------------------------------
# Each observer is a dict with any of: "meta" (run shape rules only, allocate
# nothing), "sites" (remember the user's source line of every op), "anomaly"
# (stop at the first NaN/inf) and "hook" (called as hook(op, inputs, out)).
# While the list is empty apply() pays for one truth test.
_observers: list[dict] = []


@contextlib.contextmanager
def observe(**observer):
    """Install an observer for the duration of a ``with`` block (used by nnbook.inspect)."""
    _observers.append(observer)
    try:
        yield observer
    finally:
        _observers.remove(observer)


def meta_tensor(shape, dtype=DEFAULT_FLOAT) -> "Tensor":
    """A tensor with a shape and a dtype but no memory: every element is one shared zero."""
    t = Tensor.__new__(Tensor)
    t.data = np.broadcast_to(np.zeros((), dtype=dtype), tuple(shape))
    t.grad, t.requires_grad, t._op = None, False, None
    return t


def is_meta() -> bool:
    return any(o.get("meta") for o in _observers)


def _apply_observed(op, inputs):
    from .errors import module_stack, user_line

    op.layer = module_stack[-1] if module_stack else None
    if any(o.get("sites") or o.get("anomaly") for o in _observers):
        op.site = user_line()
    if is_meta():
        out = meta_tensor(op.infer(*inputs), op.out_dtype(*inputs))
    else:
        saved, _observers[:] = _observers[:], []
        try:
            out = apply(op, *inputs)
        finally:
            _observers[:] = saved
        if any(o.get("anomaly") for o in _observers):
            engine.check_finite(op, out.data, "forward")
    for o in list(_observers):
        hook = o.get("hook")
        if hook is not None:
            hook(op, inputs, out)
    return out


def _lift(value, like: "Tensor") -> "Tensor":
    """Turn a Python number or array in an expression into a constant tensor."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float)) and not isinstance(value, np.generic):
        # A Python number adapts to the tensor (float32 stays float32), as in PyTorch.
        if like.dtype.kind == "f" or not isinstance(value, float):
            dtype = like.dtype
        else:
            dtype = DEFAULT_FLOAT
        return Tensor(np.asarray(value, dtype=dtype))
    return tensor(value)


def _binary(op, t: "Tensor", other, reverse=False) -> "Tensor":
    """Run a binary op on a tensor and a tensor/number, promoting dtypes as PyTorch does."""
    if not isinstance(other, Tensor):
        other = _lift(other, t)
    a, b = (other, t) if reverse else (t, other)
    if a.data.dtype is not b.data.dtype and a.data.dtype != b.data.dtype:
        # An integer operand takes the float operand's dtype (numpy would go to float64).
        if a.data.dtype.kind != "f" and b.data.dtype.kind == "f":
            a = Tensor(a.data.astype(b.data.dtype))
        elif b.data.dtype.kind != "f" and a.data.dtype.kind == "f":
            b = Tensor(b.data.astype(a.data.dtype))
    return apply(op, a, b)


MaxResult = namedtuple("max", ["values", "indices"])


# ---------------------------------------------------------------------------
# Tensor
# ---------------------------------------------------------------------------

class Tensor:
    """An n-dimensional array with optional gradient tracking (PyTorch's names).

    >>> x = nb.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4., 6.])
    """

    __slots__ = ("data", "grad", "requires_grad", "_op", "__weakref__", "__dict__")
    __array_ufunc__ = None  # ndarray + Tensor calls Tensor.__radd__, giving a Tensor

    def __init__(self, data, requires_grad: bool = False):
        self.data = data if isinstance(data, np.ndarray) else np.asarray(data)
        self.grad = None
        self._op = None
        self.requires_grad = False
        if requires_grad:
            self.requires_grad_(True)

    # -- basic attributes --------------------------------------------------
    @property
    def shape(self) -> tuple:
        return self.data.shape

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def ndim(self) -> int:
        return self.data.ndim

    def dim(self) -> int:
        return self.data.ndim

    def size(self, dim=None):
        return self.data.shape if dim is None else self.data.shape[dim]

    def numel(self) -> int:
        return int(self.data.size)

    @property
    def is_leaf(self) -> bool:
        return self._op is None

    @property
    def grad_fn(self):
        """The op that made this tensor (None for leaves)."""
        return self._op

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        if requires_grad and self.data.dtype.kind != "f":
            raise DTypeError(message(
                f"only floating point tensors can require gradients; this one is "
                f"{self.data.dtype}.",
                values=f"shape {fmt_shape(self.shape)}",
                hint="make it floating point first: nb.tensor(data, dtype=nb.float32) or "
                "x.float(). Integers have no small steps to differentiate along.",
            ))
        if not requires_grad and self._op is not None:
            raise BackwardError(message(
                "requires_grad can only be switched off on a leaf tensor.",
                hint="use x.detach() to get a tensor outside the graph.",
            ))
        self.requires_grad = bool(requires_grad)
        return self

    # -- conversion ----------------------------------------------------------
    def numpy(self) -> np.ndarray:
        return self.data

    def __array__(self, dtype=None, copy=None):
        return self.data if dtype is None else self.data.astype(dtype, copy=False)

    def item(self):
        if self.data.size != 1:
            raise InputError(message(
                f"item() needs a tensor with one element, this one has shape "
                f"{fmt_shape(self.shape)}.",
                hint="reduce it first (x.sum(), x.mean()) or index one element."))
        return self.data.item()

    def tolist(self):
        return self.data.tolist()

    def detach(self) -> "Tensor":
        return Tensor(self.data)

    def clone(self) -> "Tensor":
        return self * 1 if self.requires_grad else Tensor(self.data.copy())

    def to(self, dtype) -> "Tensor":
        dtype = np.dtype(dtype)
        if dtype == self.dtype:
            return self
        if self.requires_grad and dtype.kind == "f":
            return apply(_Cast(dtype), self)
        return Tensor(self.data.astype(dtype))

    def float(self) -> "Tensor":
        return self.to(float32)

    def double(self) -> "Tensor":
        return self.to(float64)

    def long(self) -> "Tensor":
        return self.to(int64)

    # -- autograd -------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None) -> None:
        """Accumulate d(self)/d(leaf) into ``leaf.grad`` for every leaf that requires it."""
        if not self.requires_grad:
            raise BackwardError(message(
                "backward() was called on a tensor that does not require grad and "
                "has no graph behind it.",
                values=f"tensor of shape {fmt_shape(self.shape)}",
                hint="create the inputs you want gradients for with requires_grad=True, "
                "and don't compute the loss inside nb.no_grad().",
            ))
        if gradient is None:
            if self.data.size != 1:
                raise BackwardError(message(
                    f"backward() without a gradient argument needs a tensor with one "
                    f"element (like a loss); this one has shape {fmt_shape(self.shape)}.",
                    hint="reduce it to a scalar first (y.sum().backward(), y.mean()...), "
                    "or pass the gradient of what comes after: "
                    "y.backward(nb.ones(y.shape)).",
                ))
            grad = np.ones(self.shape, dtype=self.dtype)
        else:
            grad = np.asarray(gradient.data if isinstance(gradient, Tensor) else gradient,
                              dtype=self.dtype)
            if grad.shape != self.shape:
                raise BackwardError(message(
                    f"the gradient passed to backward() has shape {fmt_shape(grad.shape)} "
                    f"but the tensor has shape {fmt_shape(self.shape)}.",
                    hint="the gradient argument must have the tensor's own shape.",
                ))
        if self._op is None:  # a leaf: d(self)/d(self) = 1
            self.grad = Tensor(grad.copy()) if self.grad is None else Tensor(self.grad.data + grad)
            return
        engine.run_backward(self, grad)

    # -- printing ---------------------------------------------------------------
    def __repr__(self):
        body = np.array2string(self.data, separator=", ", precision=4, prefix="tensor(")
        extras = []
        if self.dtype not in (float32, int64, bool_):
            extras.append(f"dtype=nb.{self.dtype.name}")
        if self._op is not None:
            extras.append(f"grad_fn=<{self._op.name}>")
        elif self.requires_grad:
            extras.append("requires_grad=True")
        return "tensor(" + body + "".join(", " + e for e in extras) + ")"

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.data.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __bool__(self):
        if self.data.size != 1:
            raise InputError(message(
                f"the truth value of a tensor with {self.data.size} elements is ambiguous.",
                hint="use (x > 0).all() or (x > 0).any() for a single answer."))
        return bool(self.data)

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.dtype.kind not in "iu" or self.data.size != 1:
            raise TypeError("only integer tensors of one element can be used as an index")
        return int(self.data)

    __hash__ = object.__hash__

    # -- arithmetic ---------------------------------------------------------------
    def __add__(self, other):
        return _binary(ew.Add(), self, other)

    def __radd__(self, other):
        return _binary(ew.Add(), self, other, reverse=True)

    def __sub__(self, other):
        return _binary(ew.Sub(), self, other)

    def __rsub__(self, other):
        return _binary(ew.Sub(), self, other, reverse=True)

    def __mul__(self, other):
        return _binary(ew.Mul(), self, other)

    def __rmul__(self, other):
        return _binary(ew.Mul(), self, other, reverse=True)

    def __truediv__(self, other):
        return _binary(ew.Div(), self, other)

    def __rtruediv__(self, other):
        return _binary(ew.Div(), self, other, reverse=True)

    def __pow__(self, other):
        return _binary(ew.Pow(), self, other)

    def __rpow__(self, other):
        return _binary(ew.Pow(), self, other, reverse=True)

    # In-place arithmetic changes .data and records nothing (PyTorch's w -= lr * w.grad).
    def _inplace(self, other, ufunc, symbol):
        if _grad_enabled and (self.requires_grad or self._op is not None):
            raise BackwardError(message(
                f"in-place {symbol} on a tensor that requires grad would be recorded in "
                "the graph, and could make gradients wrong.",
                values=f"tensor of shape {fmt_shape(self.shape)}, requires_grad=True",
                hint=f"update parameters inside nb.no_grad():  with nb.no_grad(): "
                f"w {symbol} lr * w.grad"))
        other = other.data if isinstance(other, Tensor) else other
        shape = np.broadcast_shapes(self.shape, np.shape(other))
        if shape != self.shape:
            raise ShapeError(message(
                f"in-place {symbol} cannot change the shape {fmt_shape(self.shape)} "
                f"to {fmt_shape(shape)}.",
                hint="the right-hand side must broadcast to the left-hand tensor's shape."))
        ufunc(self.data, other, out=self.data, casting="same_kind")
        return self

    def __iadd__(self, other):
        return self._inplace(other, np.add, "+=")

    def __isub__(self, other):
        return self._inplace(other, np.subtract, "-=")

    def __imul__(self, other):
        return self._inplace(other, np.multiply, "*=")

    def __itruediv__(self, other):
        return self._inplace(other, np.true_divide, "/=")

    def zero_(self):
        with no_grad():
            self.data[...] = 0
        return self

    def __neg__(self):
        return apply(ew.Neg(), self)

    def __matmul__(self, other):
        return apply(linalg.Matmul(), self, _lift(other, self))

    def __rmatmul__(self, other):
        return apply(linalg.Matmul(), _lift(other, self), self)

    # Comparisons give boolean tensors with no gradient.
    def _compare(self, other, fn):
        other = other.data if isinstance(other, Tensor) else other
        return Tensor(fn(self.data, other))

    def __eq__(self, other):
        return self._compare(other, np.equal)

    def __ne__(self, other):
        return self._compare(other, np.not_equal)

    def __lt__(self, other):
        return self._compare(other, np.less)

    def __le__(self, other):
        return self._compare(other, np.less_equal)

    def __gt__(self, other):
        return self._compare(other, np.greater)

    def __ge__(self, other):
        return self._compare(other, np.greater_equal)

    add, sub, mul, div, matmul, pow = __add__, __sub__, __mul__, __truediv__, __matmul__, __pow__

    # -- elementwise functions ---------------------------------------------------
    def exp(self):
        return apply(ew.Exp(), self)

    def log(self):
        return apply(ew.Log(), self)

    def sqrt(self):
        return apply(ew.Sqrt(), self)

    def abs(self):
        return apply(ew.Abs(), self)

    def tanh(self):
        return apply(ew.Tanh(), self)

    def sigmoid(self):
        return apply(ew.Sigmoid(), self)

    def relu(self):
        return apply(ew.Relu(), self)

    def clamp(self, min=None, max=None):
        return apply(ew.Clamp(min, max), self)

    # -- reductions -------------------------------------------------------------------
    def sum(self, dim=None, keepdim=False):
        return apply(reduce.Sum(dim, keepdim), self)

    def mean(self, dim=None, keepdim=False):
        return apply(reduce.Mean(dim, keepdim), self)

    def max(self, dim=None, keepdim=False):
        """max() over everything, or (values, indices) along ``dim`` as in PyTorch."""
        op = reduce.Max(dim, keepdim)
        values = apply(op, self)
        if dim is None:
            return values
        return MaxResult(values, Tensor(op.indices()))

    def argmax(self, dim=None, keepdim=False):
        if dim is None:
            return Tensor(np.asarray(np.argmax(self.data), dtype=np.int64))
        return Tensor(np.argmax(self.data, axis=dim, keepdims=keepdim).astype(np.int64))

    def all(self):
        return Tensor(np.asarray(self.data.all()))

    def any(self):
        return Tensor(np.asarray(self.data.any()))

    # -- shape ---------------------------------------------------------------------------
    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return apply(shape_ops.Reshape(shape), self)

    view = reshape

    def flatten(self, start_dim=0, end_dim=-1):
        if self.ndim == 0:
            return self.reshape(1)
        op = shape_ops.Reshape(())
        start = shape_ops.normalize_dim(op, start_dim, self.ndim, "start_dim")
        end = shape_ops.normalize_dim(op, end_dim, self.ndim, "end_dim")
        if start > end:
            raise InputError(message(f"flatten: start_dim ({start_dim}) comes after end_dim "
                               f"({end_dim}).", hint="use start_dim <= end_dim."))
        s = self.shape
        return self.reshape(s[:start] + (math.prod(s[start:end + 1]),) + s[end + 1:])

    def permute(self, *dims):
        dims = dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
        return apply(shape_ops.Permute(dims), self)

    def transpose(self, dim0, dim1):
        op = shape_ops.Permute(())
        return self.permute(transpose_dims(self.ndim, dim0, dim1, op))

    @property
    def T(self):
        return self.permute(tuple(reversed(range(self.ndim))))

    def unsqueeze(self, dim):
        op = shape_ops.Reshape(())
        d = shape_ops.normalize_dim(op, dim, self.ndim + 1)
        return self.reshape(self.shape[:d] + (1,) + self.shape[d:])

    def squeeze(self, dim=None):
        if dim is None:
            return self.reshape(tuple(s for s in self.shape if s != 1))
        d = shape_ops.normalize_dim(shape_ops.Reshape(()), dim, self.ndim)
        if self.ndim == 0 or self.shape[d] != 1:
            return self
        return self.reshape(self.shape[:d] + self.shape[d + 1:])

    def expand(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return apply(shape_ops.Expand(shape), self)

    def __getitem__(self, key):
        return apply(shape_ops.Index(_unwrap_key(key)), self)

    def __setitem__(self, key, value):
        if self.requires_grad and _grad_enabled:
            raise BackwardError(message(
                "in-place assignment into a tensor that requires grad would make its "
                "gradient wrong.",
                hint="build a new tensor instead, or assign inside nb.no_grad() "
                "(e.g. when initialising parameters).",
            ))
        self.data[_unwrap_key(key)] = value.data if isinstance(value, Tensor) else value


def _unwrap_key(key):
    if isinstance(key, tuple):
        return tuple(k.data if isinstance(k, Tensor) else k for k in key)
    return key.data if isinstance(key, Tensor) else key


class _Cast(ew.Unary):
    name = "to"

    def __init__(self, dtype):
        self.dtype = dtype

    def out_dtype(self, x):
        return self.dtype

    def forward(self, x):
        return x.astype(self.dtype)

    def backward(self, grad_out):  # a cast changes precision only: the gradient passes
        return (grad_out,)


# ---------------------------------------------------------------------------
# Creating tensors
# ---------------------------------------------------------------------------

def _resolve_dtype(dtype):
    return None if dtype is None else np.dtype(dtype)


def tensor(data, requires_grad: bool = False, dtype=None) -> Tensor:
    """A new leaf tensor holding a copy of ``data``.

    numpy arrays keep their dtype (as ``torch.tensor`` does); Python floats
    become float32 and Python ints int64.
    """
    dtype = _resolve_dtype(dtype)
    if isinstance(data, Tensor):
        data = data.data
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        arr = np.array(data, dtype=dtype)
    else:
        arr = np.array(data, dtype=dtype)
        if dtype is None:
            if arr.dtype.kind == "f":
                arr = arr.astype(DEFAULT_FLOAT)
            elif arr.dtype.kind in "iu":
                arr = arr.astype(np.int64)
            elif arr.dtype.kind not in "b":
                raise DTypeError(message(
                    f"cannot make a tensor from data of type {type(data).__name__} "
                    f"(numpy sees dtype {arr.dtype}).",
                    hint="pass numbers, nested lists of numbers, or a numeric numpy array; "
                    "ragged lists need equal lengths.",
                ))
    return Tensor(arr, requires_grad=requires_grad)


def _shape_args(shape):
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape


def zeros(*shape, dtype=None, requires_grad=False) -> Tensor:
    return Tensor(np.zeros(_shape_args(shape), dtype=dtype or DEFAULT_FLOAT), requires_grad)


def ones(*shape, dtype=None, requires_grad=False) -> Tensor:
    return Tensor(np.ones(_shape_args(shape), dtype=dtype or DEFAULT_FLOAT), requires_grad)


def full(shape, fill_value, dtype=None, requires_grad=False) -> Tensor:
    return Tensor(np.full(tuple(shape), fill_value, dtype=dtype or DEFAULT_FLOAT), requires_grad)


def zeros_like(t: Tensor, dtype=None) -> Tensor:
    return Tensor(np.zeros(t.shape, dtype=dtype or t.dtype))


def ones_like(t: Tensor, dtype=None) -> Tensor:
    return Tensor(np.ones(t.shape, dtype=dtype or t.dtype))


def arange(*args, dtype=None) -> Tensor:
    arr = np.arange(*args)
    if dtype is not None:
        arr = arr.astype(dtype)
    elif arr.dtype.kind == "f":
        arr = arr.astype(DEFAULT_FLOAT)
    else:
        arr = arr.astype(np.int64)
    return Tensor(arr)


# -- random numbers: one generator, seeded by manual_seed -----------------------
_rng = np.random.default_rng()


def manual_seed(seed: int) -> None:
    """Seed every random number nnbook draws (initialisation, dropout, randn...)."""
    global _rng
    _rng = np.random.default_rng(seed)


def generator() -> np.random.Generator:
    return _rng


def randn(*shape, dtype=None, requires_grad=False) -> Tensor:
    arr = _rng.standard_normal(_shape_args(shape)).astype(dtype or DEFAULT_FLOAT)
    return Tensor(arr, requires_grad)


def rand(*shape, dtype=None, requires_grad=False) -> Tensor:
    arr = _rng.random(_shape_args(shape)).astype(dtype or DEFAULT_FLOAT)
    return Tensor(arr, requires_grad)


def randint(low, high, size, dtype=None) -> Tensor:
    return Tensor(_rng.integers(low, high, size=tuple(size)).astype(dtype or np.int64))


# -- functions over several tensors ---------------------------------------------------
def cat(tensors, dim=0) -> Tensor:
    return apply(shape_ops.Cat(dim), *tensors)


def stack(tensors, dim=0) -> Tensor:
    tensors = list(tensors)
    return cat([t.unsqueeze(dim) for t in tensors], dim)
