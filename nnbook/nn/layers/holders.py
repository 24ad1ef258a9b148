"""Containers that only hold things, so a model can see them: ModuleDict (layers by
name), ParameterList and ParameterDict (parameters by index or by name).

A plain Python list or dict hides what it holds from ``parameters()``, the optimizer and
``state_dict()``; these register every item under its index or key, which becomes part
of the dotted path (``heads.cls.weight``, ``scales.0``), as in PyTorch.
"""
from __future__ import annotations

from collections import OrderedDict

from ...errors import DimError, InputError, message
from ...tensor import Tensor
from ..module import Module, ModuleAttributeError
from ..parameter import Parameter


def _not_callable(container) -> None:
    cls = type(container).__name__
    raise ModuleAttributeError(message(
        f"a {cls} only holds things; it cannot be called.", where=cls,
        hint="pick an item (container['name'] or container[0]) and use it in your forward."))


def _pairs(cls: str, items):
    """(key, value) pairs from a mapping or from an iterable of pairs."""
    if hasattr(items, "items"):
        return list(items.items())
    pairs = []
    for item in items:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise InputError(message(
                f"{cls} takes a dict, or an iterable of (key, value) pairs; got an item "
                f"{item!r}.", where=cls, hint=f"e.g. {cls}({{'a': ..., 'b': ...}})."))
        pairs.append(tuple(item))
    return pairs


class ModuleDict(Module):
    """Layers by name, in insertion order: ``self.heads = nn.ModuleDict({'cls': ...})``."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        if key not in self._modules:
            raise KeyError(key)
        return self._modules[key]

    def __setitem__(self, key: str, module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        if key not in self._modules:
            raise KeyError(key)
        delattr(self, key)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key) -> bool:
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def pop(self, key: str) -> Module:
        module = self[key]
        del self[key]
        return module

    def clear(self) -> None:
        for key in list(self._modules):
            delattr(self, key)

    def update(self, modules) -> None:
        for key, module in _pairs("ModuleDict", modules):
            self.add_module(key, module)

    def forward(self, *args, **kwargs):
        _not_callable(self)


def _as_parameter(value):
    """A Tensor that is not a Parameter yet becomes one (sharing its memory), as in PyTorch."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _describe(value) -> str:
    """'Parameter containing: [nnbook.float32 of size 2x3]', PyTorch's layout."""
    if not isinstance(value, Tensor):
        return f"Object of type: {type(value).__name__}"
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    size = "x".join(str(s) for s in value.shape)
    return f"{kind} containing: [{value.dtype!r} of size {size}]"


class ParameterList(Module):
    """Parameters by index (``scales.0``, ``scales.1``); Tensors appended become Parameters."""

    def __init__(self, values=None):
        super().__init__()
        if values is not None:
            self.extend(values)

    def _key(self, index) -> str:
        n = len(self)
        if not isinstance(index, int) or isinstance(index, bool):
            raise InputError(message(f"ParameterList indices are ints or slices, got {index!r}.",
                                     where="ParameterList", hint="use params[0] or params[-1]."))
        if not -n <= index < n:
            raise DimError(message(
                f"index {index} is out of range for a ParameterList of {n} item(s).",
                where="ParameterList", hint=f"use an index from {-n} to {n - 1}." if n
                else "the list is empty; append a parameter first."))
        return str(index % n)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return ParameterList(list(self)[index])
        return getattr(self, self._key(index))

    def __setitem__(self, index, value) -> None:
        self._store(self._key(index), value)

    def _store(self, key: str, value) -> None:
        value = _as_parameter(value)
        if isinstance(value, Parameter) or value is None:
            self.register_parameter(key, value)
        else:
            setattr(self, key, value)

    def __len__(self):
        return self.__dict__.get("_size", 0)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def append(self, value) -> "ParameterList":
        n = len(self)
        self.__dict__["_size"] = n + 1
        self._store(str(n), value)
        return self

    def extend(self, values) -> "ParameterList":
        if isinstance(values, Tensor) or not hasattr(values, "__iter__"):
            raise InputError(message(
                f"ParameterList.extend() takes an iterable of parameters, got "
                f"{type(values).__name__}.", where="ParameterList",
                hint="use append(p) for one parameter, extend([p1, p2]) for several."))
        for value in values:
            self.append(value)
        return self

    def __iadd__(self, values):
        return self.extend(values)

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def extra_repr(self) -> str:
        return "\n".join(f"  ({i}): {_describe(p)}" for i, p in enumerate(self))

    def forward(self, *args, **kwargs):
        _not_callable(self)


class ParameterDict(Module):
    """Parameters by name, in insertion order; Tensors stored become Parameters."""

    def __init__(self, parameters=None):
        super().__init__()
        self.__dict__["_keys"] = OrderedDict()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str):
        if key not in self._keys:
            raise KeyError(key)
        return getattr(self, key)

    def __setitem__(self, key: str, value) -> None:
        value = _as_parameter(value)
        if isinstance(value, Parameter) or value is None:
            self.register_parameter(key, value)
        else:
            setattr(self, key, value)
        self._keys[key] = None

    def __delitem__(self, key: str) -> None:
        if key not in self._keys:
            raise KeyError(key)
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key) -> bool:
        return key in self._keys

    def keys(self):
        return list(self._keys)

    def items(self):
        return [(k, self[k]) for k in self._keys]

    def values(self):
        return [self[k] for k in self._keys]

    def get(self, key: str, default=None):
        return self[key] if key in self._keys else default

    def pop(self, key: str):
        value = self[key]
        del self[key]
        return value

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def update(self, parameters) -> None:
        for key, value in _pairs("ParameterDict", parameters):
            self[key] = value

    def extra_repr(self) -> str:
        lines = []
        for key, value in self.items():
            text = _describe(value)
            if isinstance(value, Tensor):  # ParameterDict names the type, as PyTorch does
                size = "x".join(str(s) for s in value.shape)
                kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
                text = f"{kind} containing: [{value.type()} of size {size}]"
            lines.append(f"  ({key}): {text}")
        return "\n".join(lines)

    def forward(self, *args, **kwargs):
        _not_callable(self)
