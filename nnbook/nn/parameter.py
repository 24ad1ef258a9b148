"""Parameter: a tensor a Module learns, and how a tensor or a layer finds its dotted name.

Names are made top-down, as in PyTorch: ``model.named_parameters()`` walks from the
model down and joins attribute names with :func:`join_path` (``block.conv2.weight``).
A message about one parameter (the optimizer's "got no gradient", a tensor changed
before backward) has no model in hand, so nnbook keeps a weak list of the modules
that are alive.  The *outermost models* are the live modules that no other live
module holds; ``param.path`` walks them top-down and names the parameter from there,
so the name is right for whatever model the user built around it, and a parameter
shared by two layers knows both of its names (``param.paths``).

When one tensor lives in several models, the most recently used model names it
first: the one most recently called as the outermost model, or else built.
"""
from __future__ import annotations

import itertools
import weakref

import numpy as np

from .. import dtypes
from ..arrays import array_from
from ..errors import fmt_shape
from ..tensor import Tensor
from . import guard


def join_path(prefix: str, name: str) -> str:
    """The one place dotted names are made: ('block', 'conv2') -> 'block.conv2'."""
    return f"{prefix}.{name}" if prefix else name


# ---------------------------------------------------------------------------
# The live modules, and the outermost ones among them
# ---------------------------------------------------------------------------
_live = weakref.WeakValueDictionary()   # id(module) -> every Module still alive
_clock = itertools.count()              # when each module was last built or called


def note_used(module) -> None:
    """Remember ``module`` as alive and as used just now (built, copied, or called as the
    outermost model); among several outermost models, the most recent names first."""
    _live[id(module)] = module
    module.__dict__["_last_used"] = next(_clock)


def locations(obj) -> list[tuple]:
    """(outermost model, dotted path) for every place ``obj`` is registered.

    ``obj`` is a Parameter or a Module.  Models come most recently used first; within
    one model the paths come in ``state_dict()`` order, so the first is the name
    ``named_parameters()`` gives.  An outermost model is at path '' of itself.
    """
    live = list(_live.values())
    held = {id(child) for module in live
            for child in module.__dict__.get("_modules", {}).values() if child is not None}
    roots = sorted((m for m in live if id(m) not in held),
                   key=lambda m: m.__dict__["_last_used"], reverse=True)
    found = []
    for root in roots:
        if root is obj:
            found.append((root, ""))
        elif isinstance(obj, Parameter):
            found += [(root, path) for path, p in root.named_parameters(remove_duplicate=False)
                      if p is obj]
        else:
            found += [(root, path) for path, m in root.named_modules(remove_duplicate=False)
                      if m is obj and path]
    return found


def paths_of(obj) -> list[str]:
    """Every full dotted path of a Module or Parameter, from each live outermost model."""
    return [path for _, path in locations(obj)]


def outermost_models(objs) -> list:
    """The live outermost modules holding any of ``objs`` (Parameters or Modules), once each."""
    seen, out = set(), []
    for obj in objs:
        for model, _ in locations(obj):
            if id(model) not in seen:
                seen.add(id(model))
                out.append(model)
    return out


# ---------------------------------------------------------------------------
# Parameter
# ---------------------------------------------------------------------------

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
        counter = [0, 0]
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
            self._set_requires_grad(True, "nb.nn.Parameter")

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
