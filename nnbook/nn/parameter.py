"""Parameter: a tensor a Module learns, which knows where it is registered.

A Parameter is a leaf Tensor with ``requires_grad=True`` by default.  When it
is assigned as a Module attribute the module records itself as a parent (a
weak reference and the attribute name), and every module records its parents
the same way.  ``param.paths`` follows those links up to the outermost models
that are still alive and names the parameter from there, so the name is right
for whatever model the user built around it (``block.conv2.weight``), and a
parameter shared by two layers knows both of its names.
"""
from __future__ import annotations

import numpy as np

from ..errors import fmt_shape
from .. import dtypes
from ..arrays import array_from
from ..tensor import Tensor
from . import guard


def join_path(prefix: str, name: str) -> str:
    """The one place dotted names are made: ('block', 'conv2') -> 'block.conv2'."""
    return f"{prefix}.{name}" if prefix else name


def paths_of(obj) -> list[str]:
    """Every full dotted path of a Module or Parameter, from each live outermost model.

    The order is the order of ``state_dict()``, so the first path is the name
    ``named_parameters()`` gives.  A module nobody holds is its own outermost
    model (path ''); a parameter in no module has no path at all.
    """
    ancestors, roots = _ancestors(obj)
    if not ancestors:
        return [] if isinstance(obj, Parameter) else [""]
    out = []
    for root in roots:
        _walk(root, "", obj, ancestors, out, set())
    return out


def outermost_models(objs) -> list:
    """The live outermost modules holding any of ``objs`` (Parameters or Modules), once each."""
    seen, out = set(), []
    for obj in objs:
        for root in _ancestors(obj)[1]:
            if id(root) not in seen:
                seen.add(id(root))
                out.append(root)
    return out


def _ancestors(obj):
    """(ids of every module holding ``obj`` directly or not, the outermost ones in order)."""
    ancestors, roots = {}, []
    stack = [obj]
    while stack:
        item = stack.pop()
        live = False
        for ref, name in item.__dict__.get("_parents", ()):
            parent = ref()
            if parent is None or not _still_holds(parent, name, item):
                continue
            live = True
            if id(parent) not in ancestors:
                ancestors[id(parent)] = parent
                stack.append(parent)
        if not live and item is not obj:
            roots.append(item)
    return ancestors, roots


def _walk(module, prefix, target, ancestors, out, visiting):
    """Collect the paths of ``target`` below ``module``, descending only into its ancestors."""
    if id(module) in visiting:  # a module that contains itself: stop
        return
    visiting.add(id(module))
    for name, param in module.__dict__["_parameters"].items():
        if param is target:
            out.append(join_path(prefix, name))
    for name, child in module.__dict__["_modules"].items():
        if child is target:
            out.append(join_path(prefix, name))
        elif child is not None and id(child) in ancestors:
            _walk(child, join_path(prefix, name), target, ancestors, out, visiting)
    visiting.discard(id(module))


def _still_holds(module, name: str, obj) -> bool:
    registry = module.__dict__
    for kind in ("_parameters", "_modules"):
        if registry.get(kind, {}).get(name) is obj:
            return True
    return False


class Parameter(Tensor):
    """A tensor that is a learnable part of a Module (PyTorch's ``nn.Parameter``).

    >>> w = nb.nn.Parameter(nb.randn(3, 2))
    >>> w.requires_grad
    True

    Given a Tensor it shares that tensor's array, as PyTorch does.
    """

    def __init__(self, data=None, requires_grad: bool = True):
        if guard.building_forbidden():
            shape = "()" if data is None else fmt_shape(np.shape(data))
            guard.check_build(f"a Parameter of shape {shape}",
                              "self.weight = nb.nn.Parameter(...)", noun="parameter")
        counter = [0]
        if data is None:
            array = np.empty((0,), dtype=dtypes.default_float())
        elif isinstance(data, Tensor):  # the same memory and version counter, as PyTorch
            array, counter = data._array, data._counter
        elif isinstance(data, np.ndarray):
            array = data
        else:
            array = array_from(data, None, "nb.nn.Parameter", copy=True)
        self._array, self.grad, self.grad_fn = array, None, None
        self._requires_grad, self._counter, self._view = False, counter, None
        if requires_grad:
            self.requires_grad_(True)
        self._parents = []  # [(weakref to a Module, attribute name)]

    @property
    def paths(self) -> list[str]:
        """All dotted names of this parameter (several when it is shared)."""
        return paths_of(self)

    @property
    def path(self) -> str | None:
        """The first dotted name of this parameter, or None if no module holds it."""
        paths = paths_of(self)
        return paths[0] if paths else None

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        # copy.deepcopy: rebuild from a copy of the array; the new one belongs to no module
        # until the copied module registers it.
        return (_rebuild_parameter, (self._array, self.requires_grad, self.grad))


def _rebuild_parameter(data, requires_grad, grad):
    with guard.allow_build_in_forward():
        param = Parameter(np.array(data, copy=True), requires_grad)
    param.grad = grad
    return param
