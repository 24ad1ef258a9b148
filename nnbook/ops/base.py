"""The protocol every op follows: a shape rule, a forward and a backward, side by side.

An op is a small class.  One instance is made per call and becomes a node of
the graph, so whatever ``forward`` keeps on ``self`` is there for ``backward``::

    class Tanh(Op):
        def infer(self, x):             # shape rule: input specs -> output shape
            return x.shape
        def forward(self, x):           # arrays in, array out
            self.y = np.tanh(x)
            return self.y
        def backward(self, grad_out):   # y = tanh(x);  dy/dx = 1 - y**2
            return (grad_out * (1 - self.y * self.y),)

The rules of the protocol (ARCHITECTURE.md has the whole picture):

* ``__init__`` takes the op's non-tensor arguments and normalises them once
  (an int kernel size becomes a pair); errors in them are raised there.
* ``infer`` reads only ``.shape``, ``.dtype`` and ``.ndim`` of its inputs, so it
  runs on real tensors (to check them before any numpy call) and on
  :class:`Spec` objects (data-free shape inference).  It returns the output
  shape, raises through :meth:`Op.fail`, and stores nothing.
* ``forward`` gets numpy arrays and returns one.  Before it runs, ``apply`` sets
  ``self.needs_input_grad`` (a bool per input) so forward keeps only what
  backward will need.  It runs without numpy's warnings about inf and NaN
  (PyTorch makes them silently), and so does ``backward``.
* ``backward(grad_out)`` returns one gradient per input (``None`` where none is
  needed); the engine sums broadcast axes away.

Ops know nothing about Tensors.  A faster implementation of an op lives in
``nnbook/kernels`` as a subclass registered with :func:`register_kernel`;
building the op then builds the kernel instead, unless ``nb.reference_ops()``
is on.
"""
from __future__ import annotations

import functools
import importlib
import inspect
import numbers
import sys
from abc import ABC, abstractmethod

import numpy as np

from .. import context
from ..errors import DimError, DTypeError, InputError, ShapeError, fmt_shape, message


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


# reference op class -> the kernel class that computes it faster (see nnbook/kernels)
_kernels: dict = {}
# module of reference ops -> module of their kernels, imported when the first op of that
# module is built (so `import nnbook` loads no kernel code); and the ops waiting for it
_kernel_modules: dict = {}
_waiting: dict = {}


def load_kernels_with(family: str, kernel_module: str) -> None:
    """For nnbook/kernels: import ``kernel_module`` (which registers its kernels) when
    the first op of the module ``family`` is built; at once if its ops exist already."""
    if family in sys.modules:
        importlib.import_module(kernel_module)
    else:
        _kernel_modules[family] = kernel_module


def _load_kernels_then_build(cls, *args, **kwargs):
    """``__new__`` of the ops of a family whose kernels are not loaded yet: load them
    (registering sets each reference's ``__new__`` to build its kernel), then build.
    ``cls`` may be a subclass defined elsewhere (Conv1d, in ops/onedim.py, of Conv2d):
    the family is that of the class it inherits this from."""
    family = next(c.__module__ for c in cls.__mro__ if c.__module__ in _kernel_modules)
    for op in _waiting.pop(family, ()):
        if op not in _kernels:  # (a kernel module imported directly registered it already)
            op.__new__ = _build
    importlib.import_module(_kernel_modules.pop(family))
    return cls.__new__(cls, *args, **kwargs)


def _build(cls, *args, **kwargs):
    """``object.__new__``, taking (and leaving to ``__init__``) the op's arguments."""
    return object.__new__(cls)


def register_kernel(reference):
    """Class decorator for nnbook/kernels: the decorated subclass of ``reference``
    computes the same op faster, and is built in its place while kernels are on."""
    def register(kernel):
        if not issubclass(kernel, reference):
            raise TypeError(f"{kernel.__name__} must subclass {reference.__name__}")
        _kernels[reference] = kernel

        def build(cls, *args, **kwargs):  # Op(...) gives the kernel unless reference_ops()
            if cls is reference and context.kernels_enabled:
                cls = kernel
            return object.__new__(cls)
        reference.__new__ = build
        return kernel
    return register


class Op(ABC):
    """Base class of all ops; see the module docstring.

    ``infer``, ``forward`` and ``backward`` are abstract: a class that lacks one
    cannot be instantiated (Python's TypeError names the missing method).
    """

    keeps_output = False  # backward reads forward's output: in-place changes to it are refused
    is_view = False       # the output may share memory with input 0 (reshape, slicing)

    # Set by apply() when the op runs as a node of the graph (see autograd/engine.py):
    __slots__ = ("inputs", "parents", "needs_input_grad", "versions", "layer", "seq",
                 "__dict__")
    hooks = ()            # Tensor.register_hook on the output: grad_out -> grad_out
    retained = None       # a weak reference to the output, if it called retain_grad()
    released = False      # backward ran and freed what forward saved

    def release(self) -> None:
        """Forget what forward saved (after backward, unless the graph is retained)."""
        self.__dict__.clear()
        self.released = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__module__ in _kernel_modules:  # its family's kernels load on first use
            cls.__new__ = _load_kernels_then_build
            _waiting.setdefault(cls.__module__, []).append(cls)

    @property
    def name(self) -> str:
        """The op's name in messages and pictures: 'conv2d', 'mul'."""
        return _reference_of(type(self)).__name__.lower()

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

    @property
    def where(self) -> str:
        """Where messages about this op happen: 'features.2 (Conv2d), in conv2d'."""
        layer = context.current_layer()
        return f"{layer}, in {self.name}" if layer else self.name

    def fail(self, what, values=None, hint=None, cls=ShapeError):
        """Raise ``cls`` with the four-part message, naming this op and the layer."""
        raise cls(message(what, where=self.where, values=values, hint=hint))

    @classmethod
    def input_names(cls, count: int) -> list[str]:
        """Names of the forward's inputs ('x', 'weight', 'bias'), for pictures."""
        names = _forward_names(cls)
        if len(names) < count:  # an op with *inputs
            return ["x"] if count == 1 else [f"input{i}" for i in range(count)]
        return list(names[:count])

    def __repr__(self):
        return f"<{_reference_of(type(self)).__name__}Backward0>"


def _reference_of(cls):
    """The reference op a kernel class stands for (the class itself otherwise)."""
    for base in cls.__mro__:
        if _kernels.get(base) is cls:
            return base
    return cls


@functools.lru_cache(maxsize=None)
def _forward_names(cls) -> tuple:

    params = list(inspect.signature(cls.forward).parameters.values())[1:]
    return tuple(p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                      p.POSITIONAL_OR_KEYWORD))


# ---------------------------------------------------------------------------
# Arguments: checked once, here
# ---------------------------------------------------------------------------

def is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def quiet(method):
    """Run ``method`` without numpy's warnings about inf and NaN (exp(1000), 0 * inf, 1 / 0).

    PyTorch makes those values silently.  ``apply`` runs every forward this way, and
    the engine every backward; this is for the functions around them.
    """
    @functools.wraps(method)
    def silently(*args, **kwargs):
        token = silence()
        try:
            return method(*args, **kwargs)
        finally:
            unsilence(token)
    return silently


# silence() switches numpy's warnings about inf and NaN off and returns what unsilence()
# needs to switch them back.  ``np.errstate(all="ignore")`` would do, but it builds its
# settings again each time: 1.3 µs, more than adding two small arrays.  numpy >= 2 keeps
# its settings in a context variable, so they are built once here and only switched in
# and out (0.3 µs).
try:
    from numpy._core._ufunc_config import _extobj_contextvar as _errstate_var
    from numpy._core._ufunc_config import _make_extobj
    silence = functools.partial(_errstate_var.set, _make_extobj(all="ignore"))
    unsilence = _errstate_var.reset
except ImportError:  # numpy 1.x
    silence = functools.partial(np.seterr, all="ignore")  # returns the old settings

    def unsilence(old) -> None:
        np.seterr(**old)


def is_real(v) -> bool:
    """A real number (int or float of any kind), but not a bool."""
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def per_axis(value, count: int, name: str, where: str, minimum: int | None = None) -> tuple:
    """An int, or one int per spatial axis, as a tuple of ``count`` ints; anything else is
    refused.  :func:`pair` (images) and :func:`triple` (volumes) are this with 2 and 3.

    The one place a kernel size, stride, padding or dilation becomes a tuple.
    Ops check only the type here (``minimum=None``): their shape rules check the
    values beside the input's shape.  Layers, which have no input yet, also give
    the smallest value allowed, so a typo fails when the layer is built.
    """
    if is_int(value):
        result = (int(value),) * count
    elif isinstance(value, (tuple, list)) and len(value) == count and all(map(is_int, value)):
        result = tuple(int(v) for v in value)
    else:
        result = None
    if result is not None and (minimum is None or min(result) >= minimum):
        return result
    several, axes = {2: ("pair", "(h, w)"), 3: ("triple", "(d, h, w)")}[count]
    wanted = (f"an int or a {several} of ints {axes}" if minimum is None
              else f"an int >= {minimum} or a {several} {axes} of them")
    example = 3 if name == "kernel_size" else 2
    raise InputError(message(f"{name} must be {wanted}, got {value!r}.", where=where,
                             hint=f"e.g. {name}={example} or {name}="
                             f"{(example,) + (1,) * (count - 1)}."))


def pair(value, name: str, where: str, minimum: int | None = None) -> tuple:
    """An int or an (h, w) pair of ints as a pair (see :func:`per_axis`)."""
    return per_axis(value, 2, name, where, minimum)


def triple(value, name: str, where: str, minimum: int | None = None) -> tuple:
    """An int or a (d, h, w) triple of ints as a triple, for volumes (see :func:`per_axis`)."""
    return per_axis(value, 3, name, where, minimum)


def fmt_pair(name: str, value) -> str:
    """'stride=2' when every axis has the same value, else 'stride=(2, 1)' (or (2, 1, 1))."""
    return f"{name}={value[0]}" if len(set(value)) == 1 else f"{name}={tuple(value)}"


def broadcast_shape(op: Op, a, b) -> tuple:
    """Shape rule of every binary elementwise op: numpy/PyTorch broadcasting."""
    sa, sb = a.shape, b.shape
    if sa == sb or not sb:  # (a 0-d operand, as a Python number becomes, takes any shape)
        return sa
    if not sa:
        return sb
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


def channels_hint(shape, channels: int, layer: str = "Conv2d", spatial: int = 2) -> str | None:
    """A hint for images (or, with ``spatial=3``, volumes) in another layout than
    (N, C, H, W) (or (N, C, D, H, W)), or None.

    Called where a layer that counts ``channels`` got the wrong count in the channel
    dimension (-3 of an image, -4 of a volume): a channels-last batch (N, H, W, C) or
    sample (H, W, C), a batch of one-channel samples without their channel dimension
    (N, H, W), or a batch with one spatial axis too few (signals into a 2-D layer, images
    into a 3-D one), which reads as one sample.
    """
    if tuple(shape[-1 - spatial:len(shape) - spatial]) == (channels,):
        return None
    things, axes = ("images", "H, W") if spatial == 2 else ("volumes", "D, H, W")
    last = f"(N, {axes}, C)"
    wanted = f"{layer} takes (N, C, {axes})"
    if len(shape) == spatial + 2 and shape[-1] == channels:
        order = ", ".join(map(str, (0, spatial + 1, *range(1, spatial + 1))))
        source = "as images load from files" if spatial == 2 else "as volumes often load"
        return (f"the input {fmt_shape(shape)} looks channels-last {last}, {source}; "
                f"{wanted}: x = x.permute({order}).")
    if len(shape) == spatial + 1 and shape[-1] == channels:
        order = ", ".join(map(str, (spatial, *range(spatial))))
        one = "image" if spatial == 2 else "volume"
        return (f"the input {fmt_shape(shape)} looks like one channels-last {one} "
                f"({axes}, C); {wanted}: x = x.permute({order}).unsqueeze(0).")
    if len(shape) == spatial + 1 and channels == 1:
        return (f"the input {fmt_shape(shape)} looks like a batch of one-channel {things} "
                f"without their channel dimension; {wanted}: x = x.unsqueeze(1).")
    if len(shape) == spatial + 1 and shape[1] == channels:  # a batch with one axis too few
        fewer, smaller, axis = (("signals (N, C, L)", "1d", "height") if spatial == 2 else
                                ("images (N, C, H, W)", "2d", "depth"))
        other = layer[:-2].replace("Depthwise", "") + smaller  # Conv3d -> Conv2d, ...
        return (f"the input {fmt_shape(shape)} looks like a batch of {fewer}, which {layer} "
                f"reads as one sample (C, {axes}) without its batch dimension; use {other} "
                f"for those, or x.unsqueeze(2) to give each a {axis} of 1.")
    return None


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


def check_float(op: Op, x, what="input"):
    """Fail unless ``x`` holds floating point numbers (a loss or a norm of integers is a bug)."""
    if x.dtype.kind != "f":
        op.fail(f"expects a floating point {what}, got {x.dtype.name}.",
                values=f"{what} {fmt_shape(x.shape)} {x.dtype.name}",
                hint=f"convert it first: {what}.float().", cls=DTypeError)
