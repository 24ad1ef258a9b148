"""The protocol every op follows: a shape rule, a forward and a backward, side by side.

An op is a small class.  One instance is made per call and becomes the node of
the graph, so whatever ``forward`` saves on ``self`` is there for ``backward``::

    class Tanh(Op):
        name = "tanh"
        def infer(self, x):             # shape rule: input specs -> output shape
            return x.shape
        def forward(self, x):           # arrays in, array out
            self.y = np.tanh(x)
            return self.y
        def backward(self, grad_out):   # y = tanh(x);  dy/dx = 1 - y**2
            return (grad_out * (1 - self.y * self.y),)

Ops know nothing about Tensors.  ``infer`` only reads ``.shape`` and ``.dtype``
of its inputs, so it runs on real tensors (to validate them before any numpy
call) and on :class:`Spec` objects (data-free shape inference).  It raises
:class:`~nnbook.errors.ShapeError` through :meth:`Op.fail` and returns the
output shape.  ``backward`` returns one gradient per input (``None`` where no
gradient is needed); the engine sums broadcast dimensions away.
"""
from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from ..errors import DimError, DTypeError, ShapeError, current_layer, fmt_shape, message


class Spec:
    """The shape and dtype of a tensor that does not exist (yet)."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype=np.float32):
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        return f"Spec{fmt_shape(self.shape)}"


class Op(ABC):
    """Base class of all ops; see the module docstring.

    ``infer``, ``forward`` and ``backward`` are abstract: a class that lacks one
    cannot be instantiated (Python's TypeError names the missing method).
    """

    __slots__ = ("inputs", "needs_input_grad", "__dict__")
    name = "op"

    @abstractmethod
    def infer(self, *inputs):
        """The shape rule: input specs -> output shape (raises through :meth:`fail`)."""

    def out_dtype(self, *inputs):
        """dtype of the result (for shape-only passes): the widest float input's."""
        floats = [x.dtype for x in inputs if x.dtype.kind == "f"]
        if floats:
            return max(floats, key=lambda d: d.itemsize)
        return inputs[0].dtype if inputs else np.dtype(np.float32)

    @abstractmethod
    def forward(self, *arrays):
        """Arrays in, array out; saves on ``self`` what backward needs."""

    @abstractmethod
    def backward(self, grad_out):
        """One gradient per input (None where none is needed)."""

    def fail(self, what, values=None, hint=None, cls=ShapeError):
        """Raise ``cls`` with the four-part message, naming this op and the layer."""
        layer = current_layer()
        where = f"{layer}, in {self.name}" if layer else self.name
        raise cls(message(what, where=where, values=values, hint=hint))

    def __repr__(self):
        return f"<{self.name} op>"


def broadcast_shape(op: Op, a, b) -> tuple:
    """Shape rule of every binary elementwise op: numpy/PyTorch broadcasting."""
    sa, sb = a.shape, b.shape
    if sa == sb:
        return sa
    try:
        return np.broadcast_shapes(sa, sb)
    except ValueError:
        pass
    # Name the first pair of axes (from the right) that disagree.
    n = max(len(sa), len(sb))
    pa, pb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
    axis = next(i for i in reversed(range(n)) if pa[i] != pb[i] and 1 not in (pa[i], pb[i]))
    op.fail(
        f"shapes {fmt_shape(sa)} and {fmt_shape(sb)} cannot be broadcast together: "
        f"dimension {axis - n} is {pa[axis]} in the first and {pb[axis]} in the second.",
        hint="two sizes broadcast when they are equal or one of them is 1 (axes are "
        "matched from the right); reshape or unsqueeze one operand so the sizes line up.",
    )


def check_ndim(op: Op, x, allowed, what="input", layout=None):
    """Fail unless ``x`` has one of the ``allowed`` numbers of dimensions."""
    if x.ndim in allowed:
        return
    want = " or ".join(f"{n}-D" for n in allowed)
    op.fail(
        f"expects a {want} {what}{f' {layout}' if layout else ''}, got {x.ndim}-D "
        f"with shape {fmt_shape(x.shape)}.",
        hint="check the layer before this one, or reshape the input "
        "(a single sample needs a batch dimension: x.reshape(1, *x.shape)).",
    )


def normalize_dim(op: Op, dim: int, ndim: int, name="dim") -> int:
    """A possibly negative axis, checked against ``ndim`` (0-d counts as 1-d)."""
    n = max(ndim, 1)
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        op.fail(f"{name} must be an int, got {dim!r}.", cls=DTypeError)
    if not -n <= dim < n:
        op.fail(
            f"{name}={dim} is out of range for a tensor with {ndim} dimension(s).",
            hint=f"use a {name} between {-n} and {n - 1}.",
            cls=DimError,
        )
    return dim % n
