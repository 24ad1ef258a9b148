"""Tensor: a numpy array that remembers the op that made it, so gradients can flow back.

A tensor holds a numpy array, ``grad_fn`` (the op that made it, None for a leaf),
``requires_grad``, ``grad`` and a version counter.  Every computation goes
through :func:`apply`, which checks the inputs with the op's shape rule, runs the
op's forward and, when gradients are wanted, links the result into the graph
that ``backward()`` walks (see ``autograd/engine.py``).

In-place changes (``x.add_(y)``, ``x += y``, ``x[0] = v``, ``x.data.zero_()``)
all go through one method, :meth:`Tensor._write`, which adds one to the version
counter, so a backward can never read a value that changed after it was saved.
"""
from __future__ import annotations

import builtins
import functools
import weakref
from operator import attrgetter

import numpy as np

from . import context, dtypes
from .arrays import array_from, legacy_array
from .autograd import engine
from .errors import (
    ArgumentError,
    BackwardError,
    DTypeError,
    InputError,
    MissingNameError,
    ShapeError,
    fmt_shape,
    message,
    user_site,
)
from .methods import (
    Comparisons,
    Conversion,
    Factories,
    InPlace,
    Linalg,
    Maths,
    Memory,
    Reductions,
    Selection,
    Shapes,
    Statistics,
)
from .ops import elementwise as ew
from .ops import indexing, linalg
from .ops import shape as shape_ops
from .ops.base import quiet, silence, unsilence
from .printing import tensor_repr

# ---------------------------------------------------------------------------
# Running an op
# ---------------------------------------------------------------------------
_NO_GRAD = [(False,) * n for n in range(64)]  # needs_input_grad when nothing is recorded


def apply(op, *inputs: "Tensor") -> "Tensor":
    """Check shapes with ``op.infer``, run ``op.forward`` and link the result into the graph."""
    if context.observers:
        return _apply_watched(op, inputs)
    # Most ops take two inputs.  Naming them (a, b) spares this function, which runs for
    # every op, two comprehensions and two star-calls: about 6k machine instructions of
    # the 28k an addition cost in Python 3.11 (benchmarks/README.md, workload (e)).
    pair = len(inputs) == 2
    try:  # (free in Python 3.11 until something raises)
        if pair:
            a, b = inputs
            op.infer(a, b)
            needs = [a._requires_grad, b._requires_grad]
        else:
            op.infer(*inputs)
            needs = [t._requires_grad for t in inputs]
    except AttributeError:  # x.mm([[1, 2]]): a list has no .shape
        _refuse_non_tensors(op, inputs)
        raise
    record = context.grad_enabled and True in needs
    op.needs_input_grad = needs if record else _NO_GRAD[len(needs)]
    token = silence()  # inf and NaN are made silently, as in PyTorch (no numpy warnings)
    try:
        data = op.forward(a._array, b._array) if pair else op.forward(*map(_array, inputs))
    finally:
        unsilence(token)
    out = _new_tensor()
    out._array = data if type(data) is np.ndarray else np.asarray(data)
    out.grad = out.grad_fn = out._view = None
    out._requires_grad, out._counter = False, [0, 0]
    if op.is_view:  # a view shares its input's memory, so it shares its version counter
        out._counter, out._view = inputs[0]._counter, (inputs[0], op)
    if record and out._array.dtype.kind == "f":
        # Make ``out`` the output of node ``op``: the protocol autograd/engine.py reads.
        op.inputs = inputs
        op.parents = [a.grad_fn, b.grad_fn] if pair else [t.grad_fn for t in inputs]
        op.seq = _next_seq()  # numbered as made: engine.run_backward; autograd/saved.py
        op.layer = context.module_stack[-1] if context.module_stack else None
        if op.keeps_output:
            op.output_counter = out._counter
        out._requires_grad, out.grad_fn = True, op
    return out


_array = attrgetter("_array")
_next_seq = context.tick  # the clock of nodes and in-place writes


def _link(op, inputs, out) -> None:
    """Make ``out`` the output of node ``op`` whose values are already in it."""
    op.inputs, op.parents = inputs, tuple([t.grad_fn for t in inputs])
    op.seq = _next_seq()
    op.layer = context.module_stack[-1] if context.module_stack else None
    out._requires_grad, out.grad_fn = True, op


def _refuse_non_tensors(op, inputs) -> None:
    """An ArgumentError (a TypeError, as PyTorch's) for an input that is not a tensor."""
    for position, value in enumerate(inputs):
        if not isinstance(value, Tensor):
            raise ArgumentError(message(
                f"input {position} is a {type(value).__name__}, not a Tensor.",
                where=op.name, hint=f"make it a tensor first: nb.tensor({value!r:.40})."))


def _apply_watched(op, inputs):
    """apply() while observers watch: a shape-only pass, or a real one they are told about."""
    _refuse_non_tensors(op, inputs)
    if context.shape_only():
        out = meta_tensor(op.infer(*inputs), op.out_dtype(*inputs))
    else:
        watching, context.observers[:] = context.observers[:], []
        try:
            out = apply(op, *inputs)
        finally:
            context.observers[:] = watching
    if any(observer.wants_sites for observer in context.observers):
        op.site = user_site(2)  # the user's line that made this op (kept only while watched)
    for observer in list(context.observers):
        observer.op_ran(op, inputs, out)
    return out


def meta_tensor(shape, dtype=None) -> "Tensor":
    """A tensor with a shape and a dtype but no memory: every element is one shared zero."""
    dtype = dtypes.default_float() if dtype is None else np.dtype(dtype)
    return _wrap(np.broadcast_to(np.zeros((), dtype=dtype), tuple(shape)))


def _wrap(array: np.ndarray, requires_grad=False) -> "Tensor":
    """A new leaf Tensor around ``array`` (no copy): nnbook's own constructor."""
    t = _new_tensor()
    t._array, t.grad, t.grad_fn = array, None, None
    t._requires_grad, t._counter, t._view = requires_grad, [0, 0], None
    return t


class RemovableHandle:
    """What ``register_hook`` returns: ``handle.remove()`` takes the hook away."""

    def __init__(self, remove):
        self._remove = remove

    def remove(self) -> None:
        if self._remove is not None:
            self._remove()
            self._remove = None


# ---------------------------------------------------------------------------
# Tensor
# ---------------------------------------------------------------------------

class Tensor(Conversion, Maths, Reductions, Shapes, Comparisons, Selection, Linalg, InPlace,
             Factories, Memory, Statistics):
    """An n-dimensional array with optional gradient tracking (PyTorch's names).

    >>> x = nb.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4., 6.])

    ``nb.Tensor(...)`` itself is PyTorch's legacy constructor: ``nb.Tensor([1, 2])``
    copies data into a float tensor and ``nb.Tensor(2, 3)`` makes a (2, 3) one
    (of zeros).  Prefer ``nb.tensor(data)``.
    """

    __slots__ = ("_array", "grad", "grad_fn", "_requires_grad", "_counter", "_view",
                 "__weakref__", "__dict__")
    __array_priority__ = 1000  # ndarray + Tensor calls Tensor.__radd__, giving a Tensor

    def __getattr__(self, name):
        # Only reached when ordinary lookup fails: a typo (x.unsqeeze), or a PyTorch
        # method nnbook does not have.  Private names fail plainly and fast (Python and
        # numpy probe for them).
        if name.startswith("_"):
            raise AttributeError(name)
        raise MissingNameError("Tensor", name, lambda: dir(Tensor))

    def __init__(self, *args, **kwargs):
        array = legacy_array(type(self).__name__, args, kwargs)
        self._array, self.grad, self.grad_fn = array, None, None
        self._requires_grad, self._counter, self._view = False, [0, 0], None

    # -- what a tensor is ----------------------------------------------------
    # The size of each dimension.  (A property whose getter is C code, attrgetter: shape
    # rules read it on every op, and a Python getter would cost a call each time.)
    shape = property(attrgetter("_array.shape"), doc="The size of each dimension: x.shape.")

    @property
    def dtype(self) -> dtypes.dtype:
        return dtypes.of_numpy(self._array.dtype)

    ndim = property(attrgetter("_array.ndim"), doc="The number of dimensions: x.ndim.")

    def dim(self) -> int:
        return self._array.ndim

    ndimension = dim

    def size(self, dim=None):
        if dim is None:
            return self._array.shape
        return self._array.shape[self._dim(dim, "size")]

    def numel(self) -> int:
        return int(self._array.size)

    nelement = numel

    @property
    def device(self):
        from .device import CPU  # nnbook computes on the CPU only

        return CPU

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def _version(self) -> int:
        """How many in-place changes this tensor's memory has seen (shared with views)."""
        return self._counter[0]

    def is_floating_point(self) -> bool:
        return self._array.dtype.kind == "f"

    def _dim(self, dim, what="dim") -> int:
        return shape_ops.checked_dim(dim, self.ndim, where=f"Tensor.{what}")

    # -- what the method families (nnbook/methods) build on ---------------------------
    @staticmethod
    def _op(op, *inputs) -> "Tensor":
        return apply(op, *inputs)

    def _binary(self, op, other) -> "Tensor":
        return _binary(op, self, other)

    @staticmethod
    def _new(array) -> "Tensor":
        return _wrap(np.asarray(array))

    @staticmethod
    def _is_tensor(x) -> bool:
        return isinstance(x, Tensor)

    def _cast(self, np_dtype) -> "Tensor":
        return _as(self, np_dtype)

    def _floating(self) -> "Tensor":
        """Maths on integers or booleans (exp, log, ...) computes in the default float."""
        return self if self._array.dtype.kind in "fc" else _as(self, dtypes.default_float())

    # -- requires_grad, data, detach ------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value) -> None:
        self._set_requires_grad(value, "Tensor.requires_grad")

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        return self._set_requires_grad(requires_grad, "Tensor.requires_grad_")

    def _set_requires_grad(self, requires_grad, where) -> "Tensor":
        """requires_grad_ with ``where`` naming what the user called (nb.tensor, ...)."""
        if requires_grad and self._array.dtype.kind != "f":
            raise DTypeError(message(
                f"only floating point tensors can require gradients; this one is "
                f"{self.dtype.name}.", where=where,
                values=f"tensor of shape {fmt_shape(self.shape)}, dtype {self.dtype.name}",
                hint="make it floating point first: nb.tensor(data, dtype=nb.float32) or "
                "x.float(). Integers have no small steps to differentiate along."))
        if not requires_grad and self.grad_fn is not None:
            raise BackwardError(message(
                "requires_grad can only be switched off on a leaf tensor; this one was "
                f"made by {self.grad_fn.name}.", where=where,
                values=f"tensor of shape {fmt_shape(self.shape)}",
                hint="use x.detach() to get a tensor outside the graph."))
        self._requires_grad = builtins.bool(requires_grad)
        return self

    @property
    def data(self) -> "Tensor":
        """The same memory, outside the graph (as in PyTorch); ``.numpy()`` is the array.

        Changes made through it add to this tensor's version counter too, so a
        backward that needs the old values stops with an error instead of a wrong
        gradient.
        """
        t = _wrap(self._array)
        t._counter = self._counter
        return t

    @data.setter
    def data(self, value) -> None:
        self._array = value._array if isinstance(value, Tensor) else np.asarray(value)

    def detach(self) -> "Tensor":
        """The same memory, cut from the graph (``requires_grad=False``)."""
        return self.data

    def detach_(self) -> "Tensor":
        self.grad_fn = None
        self._requires_grad = False
        return self

    def clone(self) -> "Tensor":
        """A copy with its own memory; gradients flow back through it."""
        return apply(ew.Clone(), self)

    def contiguous(self, memory_format=None) -> "Tensor":
        return self if self._array.flags.c_contiguous else self.clone()

    def is_contiguous(self, memory_format=None) -> bool:
        return builtins.bool(self._array.flags.c_contiguous)

    # -- conversion ---------------------------------------------------------------
    def numpy(self, force: bool = False) -> np.ndarray:
        """The numpy array behind this tensor (the same memory, not a copy)."""
        if self._requires_grad and not force:
            raise InputError(message(
                "can't call numpy() on a tensor that requires grad: changes to the array "
                "would be invisible to autograd.", where="Tensor.numpy",
                hint="use x.detach().numpy() (as in PyTorch), or x.numpy(force=True)."))
        return self._array

    def __array__(self, dtype=None, copy=None):
        if dtype is None:
            return self._array if not copy else self._array.copy()
        return self._array.astype(dtype, copy=builtins.bool(copy))

    def item(self):
        if self._array.size != 1:
            raise InputError(message(
                f"item() needs a tensor with one element, this one has shape "
                f"{fmt_shape(self.shape)} ({self._array.size} elements).",
                where="Tensor.item",
                hint="reduce it first (x.sum(), x.mean()) or index one element: x[0]."))
        return self._array.item()

    def tolist(self):
        return self._array.tolist()

    def __format__(self, spec):
        if self._array.ndim == 0:
            return format(self._array.item(), spec)
        if spec:
            raise ArgumentError(message(
                f"format spec '{spec}' needs a tensor with one element, this one has shape "
                f"{fmt_shape(self.shape)}.", where="format",
                hint="format one element (f'{x[0]:.4f}') or a reduction (f'{x.mean():.4f}')."))
        return repr(self)

    def __float__(self):
        return builtins.float(self.item())

    def __int__(self):
        return builtins.int(self.item())

    def __bool__(self):
        if self._array.size != 1:
            raise InputError(message(
                f"the truth value of a tensor with {self._array.size} elements is ambiguous.",
                where="bool(tensor)",
                hint="use (x > 0).all() or (x > 0).any() for a single answer."))
        return builtins.bool(self._array)

    def __index__(self):
        if self._array.dtype.kind not in "iu" or self._array.size != 1:
            raise InputError(message(
                f"only an integer tensor with one element can be used as an index, got "
                f"{self.dtype.name} of shape {fmt_shape(self.shape)}.", where="index",
                hint="use x.long() for a float that holds a whole number, or x.item()."))
        return builtins.int(self._array)

    def __len__(self):
        if self._array.ndim == 0:
            raise InputError(message("len() of a 0-d tensor.", where="len",
                                     hint="a 0-d tensor holds one number: use x.item()."))
        return self._array.shape[0]

    def __iter__(self):
        if self._array.ndim == 0:
            raise InputError(message("iteration over a 0-d tensor.", where="iter",
                                     hint="a 0-d tensor holds one number: use x.item()."))
        return (self[i] for i in range(self._array.shape[0]))

    __hash__ = object.__hash__

    def __repr__(self):
        extras = []
        if self._array.dtype not in (dtypes.default_float(), np.int64, np.bool_):
            extras.append(f"dtype={self.dtype!r}")
        if self.grad_fn is not None:
            extras.append(f"grad_fn={self.grad_fn!r}")
        elif self._requires_grad:
            extras.append("requires_grad=True")
        return tensor_repr(self._array, extras)

    __str__ = __repr__

    # -- autograd ---------------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Add d(self)/d(leaf) to ``leaf.grad`` for every leaf that requires grad."""
        backward([self], [gradient], retain_graph=retain_graph, create_graph=create_graph,
                 inputs=inputs, where="Tensor.backward")

    def retain_grad(self) -> None:
        """Keep this non-leaf tensor's gradient in ``.grad`` after backward (leaves always do)."""
        if not self._requires_grad:
            raise BackwardError(message(
                "retain_grad() on a tensor that does not require grad.",
                where="Tensor.retain_grad", hint="only tensors in the graph get gradients."))
        if self.grad_fn is not None:
            self.grad_fn.retained = weakref.ref(self)

    @property
    def retains_grad(self) -> bool:
        return self.grad_fn is not None and self.grad_fn.retained is not None

    def register_hook(self, hook) -> RemovableHandle:
        """Call ``hook(grad)`` with this tensor's gradient during backward; a returned
        tensor replaces the gradient."""
        if not self._requires_grad:
            raise BackwardError(message(
                "register_hook on a tensor that does not require grad: it gets no gradient.",
                where="Tensor.register_hook", hint="call it on a tensor in the graph."))

        def on_array(grad):
            result = hook(_wrap(grad))
            return grad if result is None else np.asarray(result, dtype=grad.dtype)
        if self.grad_fn is None:
            hooks = self.__dict__.setdefault("_leaf_hooks", [])
            hooks.append(on_array)
            return RemovableHandle(lambda: hooks.remove(on_array))
        node = self.grad_fn
        node.hooks = tuple(node.hooks) + (on_array,)
        return RemovableHandle(lambda: setattr(node, "hooks", tuple(
            h for h in node.hooks if h is not on_array)))

    # -- in-place changes: one path for all of them --------------------------------------
    def _write(self, op, *others, name="in-place"):
        """Compute ``op(self, *others)`` and store it in this tensor's own memory.

        Recording (grad mode, and a tensor involved that requires grad): the result
        is computed out of place from a copy of the old ``self``, copied in, and
        ``self`` becomes the output of the new node.  Otherwise the value is simply
        written.  Either way the version counter goes up by one.
        """
        if isinstance(op, ew.Binary):
            op.check_operands(self._array.dtype, _operand(others[0]), self._array.dtype)
        others = [o if isinstance(o, Tensor) else _constant(o, self) for o in others]
        recording = context.grad_enabled and (
            self._requires_grad or True in [o._requires_grad for o in others])
        if not recording and getattr(op, "ufunc", None) is not None and not context.observers \
                and others[0]._array.dtype == self._array.dtype \
                and others[0].shape == self.shape and self._array.flags.writeable:
            op.ufunc(self._array, others[0]._array, out=self._array)  # the same, faster
            context.count_write(self._counter)
            return self
        if recording:
            self._check_writable(name)
            # The op may keep the old values for its backward (sin_ keeps x): it gets a copy
            # of its own, which the write below leaves as it was (PyTorch keeps one too).
            before = _wrap(self._array.copy(), self._requires_grad)
            before.grad_fn = self.grad_fn
            result = apply(op, before, *others)
        else:
            with context.no_grad():
                result = apply(op, self, *others)
        self._store(result, name, others)
        if recording and result.grad_fn is not None:
            self.grad_fn, self._requires_grad = result.grad_fn, True
            _rebase_views(self, before.grad_fn)
        return self

    def _relayout(self, view, name):
        """Make this tensor ``view(self)``: the same memory in another shape (squeeze_,
        unsqueeze_, t_, transpose_, PyTorch's in-place view ops).

        A stand-in takes over the tensor's old shape, history and place among views, and
        the view op is applied to it; this tensor then becomes the result.  No value
        changes, so the version's count goes up (as in PyTorch) but not the time of the
        last change that backward's checks compare against.  A tensor in the graph records
        the change also under no_grad: its history must keep describing its shape."""
        recording = self._requires_grad and (context.grad_enabled or self.grad_fn is not None)
        if recording:
            self._check_writable(name)
        before = _wrap(self._array, self._requires_grad)
        before.grad_fn, before._counter, before._view = self.grad_fn, self._counter, self._view
        with context.set_grad_enabled(recording):
            after = view(before)
        layouts = self.__dict__.setdefault("_layouts", [])  # for nodes made before: the
        layouts.append((context.tick(), self._array))       # engine's _as_the_node_saw_it
        self._array, self._view = after._array, after._view
        if recording:
            self.grad_fn = after.grad_fn
        self._counter[0] += 1
        return self

    def _check_writable(self, name):
        leaf = self
        while leaf._view is not None:
            base, view_op = leaf._view
            if "_layouts" in base.__dict__ and not _still_its_view(view_op, base, leaf):
                raise BackwardError(message(
                    f"in-place {name} on a view whose base changed its shape in place "
                    "(squeeze_, unsqueeze_, t_, transpose_) after the view was taken: "
                    "autograd cannot say which part of the base the view now is.",
                    where=name, values=f"view of shape {fmt_shape(leaf.shape)}, base of "
                    f"shape {fmt_shape(base.shape)}",
                    hint="take the view again after the shape change, or use the "
                    "out-of-place forms (x = x.unsqueeze(0))."))
            leaf = base
        if leaf.grad_fn is None and leaf._requires_grad:
            which = "a leaf tensor" if leaf is self else "a view of a leaf tensor"
            raise BackwardError(message(
                f"in-place {name} on {which} that requires grad: autograd cannot record a "
                "change to a value it has to differentiate with respect to.",
                where=name, values=f"tensor of shape {fmt_shape(leaf.shape)}, "
                f"requires_grad=True",
                hint="change parameters inside `with nb.no_grad():` (as an optimizer "
                "does), or work on a copy: x = x.clone()."))

    def _store(self, result, name, operands=()):
        value = result._array
        if value.shape != self.shape:
            raise ShapeError(message(
                f"{name} would change the shape {fmt_shape(self.shape)} to "
                f"{fmt_shape(value.shape)}; an in-place result must keep the tensor's shape.",
                where=name, hint="the other operand must broadcast to this tensor's shape; "
                "assign to a new name instead (y = x + z)."))
        if value.dtype != self._array.dtype and not np.can_cast(value.dtype, self._array.dtype,
                                                               casting="same_kind"):
            # name the dtype PyTorch's promotion gives (numpy may have widened it further)
            got = dtypes.result_type(self, *operands) if operands else value.dtype
            raise DTypeError(message(
                f"the result is {dtypes.of_numpy(got).name}, which cannot be "
                f"stored in this {self.dtype.name} tensor.", where=name,
                hint="convert first (x = x.float()), or use the out-of-place form (y = x + z)."))
        if not self._array.flags.writeable:
            raise InputError(message(
                f"{name} on a tensor whose memory is read-only (a broadcast view from "
                "expand(), windows from unfold(), or a shape-only pass).", where=name,
                hint="make a copy first: x = x.clone()."))
        np.copyto(self._array, value, casting="unsafe")
        context.count_write(self._counter)

    def __setitem__(self, key, value):
        key = _unwrap_key(key)
        if isinstance(value, (builtins.bool, builtins.int, builtins.float)):
            value = _wrap(_stored_number(value, self._array.dtype))
        if isinstance(value, Tensor) and value._view is not None and value._view[0] is self \
                and indexing.is_region(self._array, key, value._array):
            return  # x[key] += v: the += already wrote through the view x[key]
        self._write(indexing.IndexPut(key), value, name="x[...] = value")

    def add_(self, other, alpha=1):
        return self._write(ew.Add(), other * alpha if alpha != 1 else other, name="add_")

    def sub_(self, other, alpha=1):
        return self._write(ew.Sub(), other * alpha if alpha != 1 else other, name="sub_")

    def mul_(self, other):
        return self._write(ew.Mul(), other, name="mul_")

    def div_(self, other):
        return self._write(ew.Div(), other, name="div_")

    def zero_(self):
        return self._write(ew.Fill(0), name="zero_")

    def fill_(self, value):
        return self._write(ew.Fill(value), name="fill_")

    def copy_(self, src, non_blocking=False):
        return self._write(ew.CopyFrom(), src, name="copy_")

    def clamp_(self, min=None, max=None):
        return self._write(ew.Clamp(min, max), name="clamp_")

    clip_ = clamp_

    def __iadd__(self, other):
        return self._write(ew.Add(), other, name="+=")

    def __isub__(self, other):
        return self._write(ew.Sub(), other, name="-=")

    def __imul__(self, other):
        return self._write(ew.Mul(), other, name="*=")

    def __itruediv__(self, other):
        return self._write(ew.Div(), other, name="/=")

    def __ifloordiv__(self, other):
        return self._write(ew.FloorDiv(), other, name="//=")

    def __imod__(self, other):
        return self._write(ew.Remainder(), other, name="%=")

    # -- arithmetic ---------------------------------------------------------------------
    def __add__(self, other):
        return _binary(ew.Add(), self, other)

    def __radd__(self, other):
        return _binary(ew.Add(), other, self)

    def __sub__(self, other):
        return _binary(ew.Sub(), self, other)

    def __rsub__(self, other):
        return _binary(ew.Sub(), other, self)

    def __mul__(self, other):
        return _binary(ew.Mul(), self, other)

    def __rmul__(self, other):
        return _binary(ew.Mul(), other, self)

    def __truediv__(self, other):
        return _binary(ew.Div(), self, other)

    def __rtruediv__(self, other):
        return _binary(ew.Div(), other, self)

    def __floordiv__(self, other):
        return _binary(ew.FloorDiv(), self, other)

    def __rfloordiv__(self, other):
        return _binary(ew.FloorDiv(), other, self)

    def __mod__(self, other):
        return _binary(ew.Remainder(), self, other)

    def __rmod__(self, other):
        return _binary(ew.Remainder(), other, self)

    def __pow__(self, other):
        return _binary(ew.Pow(), self, other)

    def __rpow__(self, other):
        return _binary(ew.Pow(), other, self)

    def __neg__(self):
        return apply(ew.Neg(), self)

    def __matmul__(self, other):
        return apply(linalg.Matmul(), self, _constant(other, self))

    def __rmatmul__(self, other):
        return apply(linalg.Matmul(), _constant(other, self), self)

    def __eq__(self, other):
        return _binary(ew.Compare("eq"), self, other)

    def __ne__(self, other):
        return _binary(ew.Compare("ne"), self, other)

    def __lt__(self, other):
        return _binary(ew.Compare("lt"), self, other)

    def __le__(self, other):
        return _binary(ew.Compare("le"), self, other)

    def __gt__(self, other):
        return _binary(ew.Compare("gt"), self, other)

    def __ge__(self, other):
        return _binary(ew.Compare("ge"), self, other)

    matmul, pow = __matmul__, __pow__  # (add, sub, mul, div: methods/maths.py, with alpha=)
    floor_divide, remainder = __floordiv__, __mod__

    # -- indexing ----------------------------------------------------------------------------
    def __getitem__(self, key):
        return apply(indexing.Index(_unwrap_key(key)), self)


_new_tensor = functools.partial(object.__new__, Tensor)  # an empty Tensor: apply fills it


def _unwrap_key(key):
    """Tensors in an index become their arrays (the ops never see Tensors)."""
    if isinstance(key, tuple):
        return tuple(k._array if isinstance(k, Tensor) else k for k in key)
    return key._array if isinstance(key, Tensor) else key


def _still_its_view(view_op, base, view) -> bool:
    """Is ``view`` still the view ``view_op`` takes of ``base`` (the same memory, shape
    and strides), after the base's shape changed in place?"""
    view_of = getattr(view_op, "view_of", None)
    if view_of is None:  # (expand: read-only, its writes are refused anyway)
        return True
    try:
        part = view_of(base._array)
    except Exception:  # noqa: BLE001  (the old view's rule no longer fits the new shape)
        return False
    return part.shape == view.shape and part.strides == view._array.strides and \
        part.__array_interface__["data"][0] == view._array.__array_interface__["data"][0]


def _rebase_views(view, old_node) -> None:
    """``view`` was changed in place while recording, and so was every tensor it views
    (the same memory).  Each of those gets a node that says how (PyTorch's CopySlices):
    its old value with the view's part replaced by the view's new value."""
    node = old_node
    while node is not None and node.is_view and not node.released:
        node.accounted = context.tick()  # the changes so far are in the graph: not an error
        node = node.parents[0]
    while view._view is not None:
        base, view_op = view._view
        before = _wrap(base._array, base._requires_grad)
        before.grad_fn, before._counter = base.grad_fn, base._counter
        node = indexing.WriteThroughView(view_op)
        node.needs_input_grad = (before._requires_grad, True)
        _link(node, (before, view), base)
        view = base


# ---------------------------------------------------------------------------
# Operands and dtype promotion
# ---------------------------------------------------------------------------

def _constant(value, like: Tensor) -> Tensor:
    """A Python number, list or array in an expression, as a constant tensor."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (builtins.bool, builtins.int, builtins.float)):
        return _wrap(_number(value, dtypes.result_type(like, value)))
    return _wrap(array_from(value, None, "an operand", copy=False))


def _as(x, np_dtype) -> Tensor:
    """A Tensor or Python number as a tensor of ``np_dtype`` (differentiable for floats)."""
    if not isinstance(x, Tensor):
        return _wrap(_number(x, np_dtype))
    if x._array.dtype == np_dtype:
        return x
    if x._requires_grad and np_dtype.kind == "f":
        return apply(ew.Cast(np_dtype), x)
    return _wrap(_quiet_cast(x._array, np_dtype))


@quiet  # a float too large for the dtype becomes inf, as in PyTorch
def _number(value, np_dtype) -> np.ndarray:
    """A Python number as a 0-d array of ``np_dtype``, converted as PyTorch converts it."""
    try:
        return np.asarray(value, dtype=np_dtype)
    except OverflowError:  # an int beyond the dtype's range wraps around (uint8 - 2 is + 254)
        if not -2**63 <= value < 2**63:
            raise InputError(message(
                f"{value} is too large for any integer dtype.", where="a Python number",
                values="int64 holds -2**63 .. 2**63 - 1",
                hint="write it as a float (1e30), or keep it out of integer tensors.")) from None
        return np.asarray(value).astype(np_dtype)


def _stored_number(value, np_dtype) -> np.ndarray:
    """A Python number written into a tensor (x[i] = 2.5), as PyTorch writes it: straight
    into the tensor's dtype; an integer dtype must hold it (see dtypes.fits), a float dtype
    makes inf of what is too large."""
    if np_dtype.kind != "f" and not dtypes.fits(value, np_dtype):
        raise InputError(message(
            f"{value!r} cannot be stored in a tensor of {dtypes.of_numpy(np_dtype).name}: it "
            "is out of the dtype's range.", where="x[...] = value",
            hint="convert the tensor to a wider dtype first: x = x.long() or x.float()."))
    return _number(value, np_dtype)


@np.errstate(over="ignore", invalid="ignore")  # float64 -> float16: large values become inf
def _quiet_cast(array, np_dtype) -> np.ndarray:
    return array.astype(np_dtype)


def _operand(x):
    """What an op's ``check_operands`` reads: a tensor's numpy dtype, or the Python number."""
    return x._array.dtype if isinstance(x, Tensor) else x


def _not_a_sequence(op, value):
    """PyTorch refuses a list or a tuple beside a tensor in arithmetic, and so does nnbook:
    the tuple is most often what max(dim=...) returned, (values, indices)."""
    if not isinstance(value, (list, tuple)):
        return value
    fields = getattr(value, "_fields", None)
    hint = (f"take its values: x.max(dim=...).values (it holds {', '.join(fields)})" if fields
            else "make it a tensor first: nb.tensor([...])")
    raise ArgumentError(message(
        f"unsupported operand: a {type(value).__name__} beside a tensor (as in PyTorch).",
        where=op.name, hint=hint + "."))


_PLAIN_NUMBERS = (builtins.bool, builtins.int, builtins.float)


def _binary(op, a, b) -> Tensor:
    """Run a binary op on tensors and/or Python numbers, promoting dtypes as PyTorch does."""
    if isinstance(a, Tensor):
        if isinstance(b, Tensor):
            if a._array.dtype is b._array.dtype and a._array.dtype.kind == "f":
                return apply(op, a, b)  # the common case: floats of one dtype
        elif type(b) in _PLAIN_NUMBERS and a._array.dtype.kind == "f":
            # x * 2, x / n: a Python number never changes a float tensor's dtype
            op.check_operands(a._array.dtype, b, a._array.dtype)
            return apply(op, a, _wrap(_number(b, a._array.dtype)))
    elif type(a) in _PLAIN_NUMBERS and isinstance(b, Tensor) and b._array.dtype.kind == "f":
        op.check_operands(a, b._array.dtype, b._array.dtype)  # 1 - x
        return apply(op, _wrap(_number(a, b._array.dtype)), b)
    if not isinstance(a, (Tensor,) + _PLAIN_NUMBERS):
        a = _constant(_not_a_sequence(op, a), b)
    if not isinstance(b, (Tensor,) + _PLAIN_NUMBERS):
        b = _constant(_not_a_sequence(op, b), a)
    dtype = dtypes.result_type(a, b)
    if op.ints_to_float and dtype.kind != "f":
        dtype = dtypes.default_float()
    op.check_operands(_operand(a), _operand(b), dtype)
    return apply(op, _as(a, dtype), _as(b, dtype))


# ---------------------------------------------------------------------------
# backward: from Tensor.backward, nb.autograd.backward and nb.autograd.grad
# ---------------------------------------------------------------------------

@quiet  # adding to .grad: inf + -inf is NaN, silently
def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None,
             where="nb.autograd.backward"):
    """Add the gradients of ``tensors`` (times ``grad_tensors``) into the leaves' ``.grad``.

    ``where`` is what the user called, for messages about its arguments."""
    tensors = list(tensors)
    grad_tensors = list(grad_tensors) if grad_tensors is not None else [None] * len(tensors)
    found = gradients(tensors, grad_tensors, retain_graph=retain_graph,
                      create_graph=create_graph, capture=inputs, where=where)
    wanted = None if inputs is None else {id(t) for t in inputs}
    for key, (t, grad) in found.items():
        if grad is None or (wanted is not None and key not in wanted):
            continue
        for hook in t.__dict__.get("_leaf_hooks", ()):
            grad = hook(grad)
        if t.grad is None:
            t.grad = _wrap(np.array(grad))  # own it: one array may reach several leaves
        else:
            t.grad = _wrap(np.asarray(t.grad._array + grad))


def gradients(tensors, grad_tensors, retain_graph=None, create_graph=False, capture=None,
              where="nb.autograd.grad"):
    """{id: (tensor, gradient array)} for the leaves (and ``capture``) below ``tensors``."""
    if create_graph:
        raise BackwardError(message(
            "create_graph=True asks for a graph of the backward itself (for second "
            "derivatives); nnbook's backward rules compute with numpy and record no graph.",
            where=where, hint="compute second derivatives numerically, or with "
            "PyTorch; nnbook stops at first derivatives."))
    roots, found = [], {}
    for t, g in zip(tensors, grad_tensors):
        grad = _root_gradient(t, g, where)
        if t.grad_fn is None:  # a leaf: d(t)/d(t) = 1
            prev = found.get(id(t), (t, None))[1]
            found[id(t)] = (t, grad if prev is None else prev + grad)
        else:
            roots.append((t.grad_fn, grad))
    captured = [t for t in capture or () if t.grad_fn is not None]
    saved = [(t.grad_fn, t.grad_fn.retained) for t in captured]
    for t in captured:
        t.grad_fn.retained = weakref.ref(t)
    try:
        if roots:
            for key, value in engine.run_backward(roots, bool(retain_graph)).items():
                if key in found and value[1] is not None and found[key][1] is not None:
                    value = (value[0], value[1] + found[key][1])
                found[key] = value
    finally:
        for node, retained in saved:
            node.retained = retained
    return found


def _root_gradient(t, gradient, where) -> np.ndarray:
    if not isinstance(t, Tensor) or not t._requires_grad:
        raise BackwardError(message(
            "backward() was called on a tensor that does not require grad and has no graph "
            "behind it.", where=where,
            values=f"tensor of shape {fmt_shape(getattr(t, 'shape', ()))}",
            hint="create the inputs you want gradients for with requires_grad=True, and "
            "don't compute the loss inside nb.no_grad()."))
    if gradient is None:
        if t._array.size != 1:
            raise BackwardError(message(
                f"backward() without a gradient argument needs a tensor with one element "
                f"(like a loss); this one has shape {fmt_shape(t.shape)}.", where=where,
                hint="reduce it to a scalar first (y.sum().backward(), y.mean()...), or pass "
                "the gradient of what comes after: y.backward(nb.ones_like(y))."))
        return np.ones(t.shape, dtype=t._array.dtype)
    grad = np.asarray(gradient._array if isinstance(gradient, Tensor) else gradient,
                      dtype=t._array.dtype)
    if grad.shape != t.shape:
        raise BackwardError(message(
            f"the gradient passed to backward() has shape {fmt_shape(grad.shape)} but the "
            f"tensor has shape {fmt_shape(t.shape)}.", where=where,
            hint="the gradient argument must have the tensor's own shape."))
    return grad
