"""Lazy layers: sizes learned from the first input, as PyTorch's ``LazyLinear`` does.

``nn.LazyLinear(10)`` does not know its ``in_features`` yet: its weight is an
:class:`UninitializedParameter`, a Parameter with no shape.  The first call -- a real
one, or ``nb.infer_shapes(model, input_shape)``, which needs no data -- reads the size
of the input's last dimension, gives the parameter its shape, initialises it as
``Linear`` would, and the layer becomes a plain ``Linear``.  Loading a state dict into
a lazy layer takes the shapes from the state dict instead.

Using the parameter before then (its shape, its values, ``nb.summary``) raises an error
that says how to give it a shape.
"""
from __future__ import annotations

import numpy as np

from .. import context
from ..errors import NnbookError, message
from . import guard
from .parameter import Parameter, paths_of


class LazyModuleError(NnbookError, RuntimeError):
    """A lazy layer's parameter was used before the layer saw its first input."""


class UninitializedParameter(Parameter):
    """A Parameter whose shape is not known yet (see the module docstring)."""

    def __init__(self, requires_grad: bool = True, device=None, dtype=None):
        super().__init__(np.empty((0,), np.dtype(dtype or np.float32)), requires_grad)

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give the parameter its shape (values are set by the layer's initialisation);
        from now on it is an ordinary Parameter."""
        self._array = np.empty(tuple(shape), np.dtype(dtype or self._array.dtype))
        context.count_write(self._counter)
        self.__class__ = Parameter

    def _refuse(self, what: str):
        paths = paths_of(self)
        raise LazyModuleError(message(
            f"{what} of a lazy layer's parameter that has no shape yet: the layer learns "
            "its input size from its first input.",
            where=paths[0] if paths else "UninitializedParameter",
            hint="run the model once on a batch (model(x)), or on shapes alone with "
            "nb.infer_shapes(model, input_shape), before using its parameters (nb.summary, "
            "printing or saving them)."))

    @property
    def shape(self):
        self._refuse("asked for the shape")

    def size(self, dim=None):
        self._refuse("asked for the size")

    def numel(self):
        self._refuse("counted the elements")

    def numpy(self, force=False):
        self._refuse("asked for the values")

    def __array__(self, dtype=None, copy=None):
        self._refuse("asked for the values")

    def __repr__(self):
        return "<UninitializedParameter>"

    def __reduce_ex__(self, protocol):  # copy.deepcopy: still uninitialised
        return (_rebuild_uninitialized, (self._array.dtype, self.requires_grad))


def _rebuild_uninitialized(dtype, requires_grad):
    with guard.allow_build_in_forward():
        return UninitializedParameter(requires_grad, dtype=dtype)


def is_uninitialized(param) -> bool:
    return isinstance(param, UninitializedParameter)


class LazyModuleMixin:
    """For a lazy layer: ``initialize_parameters(*inputs)`` gives the parameters their
    shapes from the first inputs; then the module becomes ``cls_to_become``.

    A lazy layer defines two methods, checked when the class is defined:
    ``initialize_parameters(*inputs)`` and ``_shapes_from_state_dict(state_dict, prefix)``
    (materialise from a checkpoint's shapes; return an undo function, or None if the
    state dict says nothing about this layer).
    """

    cls_to_become = None
    REQUIRED = ("initialize_parameters", "_shapes_from_state_dict")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        missing = [name for name in cls.REQUIRED if not callable(getattr(cls, name, None))]
        if missing:
            raise TypeError(f"{cls.__name__} is a lazy layer and must define "
                            f"{' and '.join(missing)} (see nnbook/nn/lazy.py).")

    def has_uninitialized_params(self) -> bool:
        return any(map(is_uninitialized, self._parameters.values()))

    def _first_call(self, *inputs) -> None:
        if self.has_uninitialized_params():
            self.initialize_parameters(*inputs)
        if self.cls_to_become is not None:
            self.__class__ = self.cls_to_become


def materialize_for_loading(model, state_dict):
    """Give every lazy layer of ``model`` the shapes ``state_dict`` holds for it (before
    load_state_dict checks and copies); returns a function that undoes it all."""
    undo = []
    for path, module in model.named_modules():
        if isinstance(module, LazyModuleMixin) and module.has_uninitialized_params():
            revert = module._shapes_from_state_dict(state_dict, f"{path}." if path else "")
            if revert is not None:
                undo.append(revert)

    def undo_all():
        for revert in reversed(undo):
            revert()
    return undo_all
