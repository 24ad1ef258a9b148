"""Containers: Sequential, ModuleList, and the two ways branches meet, Sum and Concat.

``Sum(a, b)`` is Lua torch's ``ConcatTable`` followed by ``CAddTable``: every
branch gets the same input and the outputs are added (a residual block is
``Sum(Identity(), body)``).  ``Concat(a, b, dim=1)`` stacks the outputs along
``dim`` instead (Inception's way).
"""
from __future__ import annotations

from collections import OrderedDict

from ... import context
from ...context import layer_name
from ...creation import cat
from ...errors import DimError, InputError, ShapeError, fmt_shape, message
from ..module import Module, ModuleAttributeError
from ..parameter import join_path


class _Indexed(Module):
    """Layers kept in order and named by index: indexing, len, iteration, append."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, _check_module(self, name, module))
        else:
            for index, module in enumerate(args):
                self.add_module(str(index), _check_module(self, index, module))

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(OrderedDict(list(self._modules.items())[index]))
        return self._modules[self._key(index)]

    def __setitem__(self, index, module):
        self.add_module(self._key(index), _check_module(self, index, module))

    def __delitem__(self, index):
        keys = list(self._modules)[index] if isinstance(index, slice) else [self._key(index)]
        for key in keys:
            delattr(self, key)
        self._renumber(list(self._modules.values()))  # as PyTorch: 0, 1, 2 ... again

    def pop(self, index):
        module = self[index]
        del self[index]
        return module

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), _check_module(self, len(self), module))
        return self

    def extend(self, modules):
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module):
        if not all(name.isdigit() for name in self._modules):
            raise InputError(message(
                f"insert() numbers the layers, but this {type(self).__name__} has named "
                f"layers ({', '.join(list(self._modules)[:3])}).", where=type(self).__name__,
                hint="add the layer under a name: container.add_module('name', layer), or "
                "build a new container from an OrderedDict in the order you want."))
        items = list(self._modules.values())
        items.insert(index, _check_module(self, index, module))
        self._renumber(items)
        return self

    def __add__(self, other):
        if not isinstance(other, type(self)):
            return NotImplemented
        joined = type(self)()
        return joined.extend(list(self) + list(other))

    def __iadd__(self, other):
        return self.extend(other)

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def _key(self, index) -> str:
        keys = list(self._modules)
        if not isinstance(index, int) or isinstance(index, bool):
            raise InputError(message(
                f"{type(self).__name__} indices are ints or slices, got {index!r}.",
                where=type(self).__name__, hint="use model[0], model[-1] or model[1:3]."))
        if not -len(keys) <= index < len(keys):
            raise DimError(message(
                f"index {index} is out of range for a {type(self).__name__} of "
                f"{len(keys)} layer(s).", where=type(self).__name__,
                hint=f"use an index from {-len(keys)} to {len(keys) - 1}."
                if keys else "the container is empty; append a layer first."))
        return keys[index]

    def _renumber(self, modules) -> None:
        """Hold ``modules`` as items 0, 1, 2 ... (after a deletion or an insertion)."""
        for name in list(self._modules):
            delattr(self, name)
        for index, module in enumerate(modules):
            self.add_module(str(index), module)


class Sequential(_Indexed):
    """Run layers one after another; item i is named by its index (``features.0.weight``).

    >>> model = nb.nn.Sequential(nb.nn.Linear(4, 8), nb.nn.ReLU(), nb.nn.Linear(8, 2))
    >>> model[0], len(model)
    (Linear(in_features=4, out_features=8, bias=True), 3)

    An ``OrderedDict`` of name -> layer gives the layers names instead of numbers.
    """

    _input_flows = "chain"  # for messages: each layer gets the previous layer's output

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


class ModuleList(_Indexed):
    """A list of layers the model can see (a plain Python list would hide them).

    It has no forward: loop over it in yours::

        for layer in self.layers:
            x = layer(x)
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return ModuleList(list(self._modules.values())[index])
        return super().__getitem__(index)

    def extend(self, modules):
        if isinstance(modules, Module) and not isinstance(modules, _Indexed) or \
                not hasattr(modules, "__iter__"):
            raise InputError(message(
                f"ModuleList.extend() takes an iterable of layers, got "
                f"{type(modules).__name__}.", where="ModuleList",
                hint="use append(layer) for one layer, extend([layer1, layer2]) for several."))
        return super().extend(modules)

    def __repr__(self):
        """As PyTorch prints it: a run of identical layers shows once, '(0-2): 3 x ...'."""
        reprs = [repr(module) for module in self]
        if not reprs:
            return f"{type(self).__name__}()"
        lines, start = [], 0
        for i in range(1, len(reprs) + 1):
            if i < len(reprs) and reprs[i] == reprs[start]:
                continue
            label = f"({start})" if i - 1 == start else f"({start}-{i - 1}): {i - start} x"
            text = f"{label}: {reprs[start]}" if i - 1 == start else f"{label} {reprs[start]}"
            lines.append(text.replace("\n", "\n  "))
            start = i
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"

    def forward(self, *args, **kwargs):
        raise ModuleAttributeError(message(
            "a ModuleList only holds layers; it cannot be called.",
            where=layer_name(_own_path(self), self),
            hint="loop over it in your forward (for layer in self.layers: x = layer(x)), "
            "or use nb.nn.Sequential to run the layers in order."))


class _Branches(Module):
    """Shared by Sum and Concat: every branch gets the same input."""

    _input_flows = "branches"

    def __init__(self, *branches):
        super().__init__()
        if not branches:
            raise InputError(message(
                f"{type(self).__name__} needs at least one branch.",
                where=type(self).__name__,
                hint=f"{type(self).__name__}(nb.nn.Identity(), nb.nn.Conv2d(64, 64, 3, "
                "padding=1)) feeds the same input to both."))
        for index, module in enumerate(branches):
            self.add_module(str(index), _check_module(self, index, module))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, index):
        return list(self._modules.values())[index]

    def __setitem__(self, index, module):
        name = list(self._modules)[index]
        self.add_module(name, _check_module(self, index, module))

    def _run_branches(self, input, fits, rule: str, hint: str) -> list:
        """Every branch's output; the first one that does not ``fits(out, first)`` is an
        error naming both branches by path."""
        outputs = [branch(input) for branch in self._modules.values()]
        first = outputs[0]
        for index, out in enumerate(outputs[1:], start=1):
            if not fits(out, first):
                own = _own_path(self)
                names = list(self._modules)
                a, b = (layer_name(join_path(own, names[i]), self[i])
                        for i in (0, index))
                raise ShapeError(message(
                    f"the branches of {type(self).__name__} give different shapes: {a} gives "
                    f"{fmt_shape(first.shape)}, {b} gives {fmt_shape(out.shape)}.",
                    values=f"{rule}.", hint=hint(first.shape, out.shape) if callable(hint)
                    else hint))
        return outputs


class Sum(_Branches):
    """Feed the input to every branch and add the outputs (Lua's ConcatTable + CAddTable).

    The outputs must have exactly the same shape; nothing is broadcast.
    """

    def forward(self, input):
        outputs = self._run_branches(
            input, lambda out, first: out.shape == first.shape,
            "the outputs are added, so their shapes must be equal", _sum_hint)
        total = outputs[0]
        for out in outputs[1:]:
            total = total + out
        return total


class Concat(_Branches):
    """Feed the input to every branch and join the outputs along ``dim`` (default 1: channels)."""

    def __init__(self, *branches, dim: int = 1):
        super().__init__(*branches)
        self.dim = dim

    def forward(self, input):
        def fits(out, first):  # equal in every dimension but dim
            if out.ndim != first.ndim:
                return False
            dim = self.dim % first.ndim if first.ndim else 0
            return all(a == b for i, (a, b) in enumerate(zip(out.shape, first.shape))
                       if i != dim)

        outputs = self._run_branches(
            input, fits, f"the outputs are joined along dim {self.dim}, so every other "
            "dimension must be equal",
            "check the strides and padding of the branches so their spatial sizes agree.")
        return cat(outputs, dim=self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


def _sum_hint(a: tuple, b: tuple) -> str:
    """What to change when two branches of a Sum disagree. Sizes that differ by one are a
    rounding mismatch: both branches shrink by the same stride s, but a 1x1 conv with stride
    s gives ceil(H / s) and, say, MaxPool2d(2, 2) gives floor(H / 2) -- equal only when s
    divides H. Otherwise the branches shrink by different strides."""
    if len(a) == len(b) > 2 and a[:2] == b[:2]:
        gaps = [abs(x - y) for x, y in zip(a[2:], b[2:])]
        if max(gaps) == 1:
            return ("the spatial sizes differ by one: both branches shrink by the same stride, "
                    "but one rounds up and the other down (a 1x1 conv with stride 2 gives "
                    "ceil(H / 2), MaxPool2d(2, 2) gives floor(H / 2)); pool with a window that "
                    "rounds up too, such as MaxPool2d(3, 2, 1), or pass ceil_mode=True, or use "
                    "sizes that the stride divides.")
    return ("check the strides and padding of both branches: for a shortcut, give the 1x1 "
            "conv the stride the other branch has in total (its convs and pools).")


def _own_path(module) -> str:
    """The path of ``module`` if it is the one running now (else '')."""
    stack = context.module_stack
    if stack and stack[-1][1] is module:
        return stack[-1][0]
    return ""


def _check_module(container, index, module):
    if not isinstance(module, Module):
        cls = type(container).__name__
        extra = ""
        hint = f"give {cls} layers such as nb.nn.ReLU() or nb.nn.Linear(4, 2)."
        if isinstance(module, type) and issubclass(module, Module):
            extra = f"; did you forget the parentheses: {module.__name__}(...)?"
            hint = f"build the layer: {module.__name__}() (with its arguments), not the class."
        elif isinstance(module, (list, tuple)) and cls != "ModuleList":
            hint = (f"give the layers one by one, not in a {type(module).__name__}: "
                    f"{cls}(*layers), or {cls}(layer1, layer2, ...).")
        raise InputError(message(
            f"item {index} of {cls} is a {type(module).__name__}, not a layer{extra}.",
            where=cls, hint=hint))
    return module


# -- what fed the running layer? ------------------------------------------------------

def previous_layer():
    """Where the running layer's input came from, as far as containers tell.

    Returns ``('input', None, None)`` when it is the model's own input,
    ``(path, module, source)`` for the layer that ran just before it in a
    Sequential (``source``: 'features.0 (Conv2d)', the nearest earlier layer
    there that sets a size -- ``out_channels`` or ``out_features`` -- with only
    layers that keep the channel count in between, or None), or None if a
    user-written forward sits in between and the answer is unknown.
    """
    running = context.module_stack
    for i in range(len(running) - 1, 0, -1):
        child = running[i][1]
        parent_path, parent = running[i - 1]
        flows = getattr(type(parent), "_input_flows", None)
        if flows == "branches":
            continue  # a branch gets its container's input
        if flows != "chain":
            return None
        names = list(parent._modules)
        name = parent._name_of(child)
        if name not in names:
            return None
        index = names.index(name)
        if index == 0:
            continue
        prev_name = names[index - 1]
        source = None
        for earlier in reversed(names[:index]):
            module = parent._modules[earlier]
            if hasattr(module, "out_channels") or hasattr(module, "out_features"):
                source = layer_name(join_path(parent_path, earlier), module)
                break
            if not getattr(module, "preserves_channels", False):
                break  # a Flatten or a custom layer: the count is made there
        return join_path(parent_path, prev_name), parent._modules[prev_name], source
    return ("input", None, None)


def mismatch_hint(replacement: str, unit: str, got: int, expected: int) -> str:
    """The hint of a size mismatch: what the previous layer outputs and two ways to fix it."""
    prev = previous_layer()
    if prev is None:
        return (f"the layer before it outputs {got} {unit}; use {replacement} here, or "
                f"change that layer to output {expected}.")
    path, module, source = prev
    if module is None:
        return (f"the model's input has {got} {unit}; use {replacement} here, or feed "
                f"data with {expected} {unit}.")
    who = layer_name(path, module)
    change = source or who
    return (f"{who} outputs {got} {unit}; use {replacement} here, or make {change} "
            f"output {expected} {unit}.")
