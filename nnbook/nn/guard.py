"""Which modules are running, and the guard against building layers inside ``forward``.

The layer built in forward: a ``Conv2d`` built inside ``construct()`` got new
weights with no distinct name on every call; the optimizer never saw them, and the
framework even handed the second conv the first one's cached weight.  In nnbook, building
a Module or a Parameter while any module's forward runs stops at once with an
error that says where, why, and how to fix it (build in ``__init__``).

The running forwards are ``nnbook.context.module_stack``: (path, module) pairs,
outermost first, pushed and popped by ``Module.__call__``.
"""
from __future__ import annotations

import contextlib

import numpy as np

from .. import context
from ..context import layer_name
from ..errors import NnbookError, fmt_shape, message
from ..tensor import Tensor

_allowed = 0        # depth of allow_build_in_forward() blocks


class BuildInForwardError(NnbookError, RuntimeError):
    """A Module or Parameter was created while a module's forward was running."""


class allow_build_in_forward(contextlib.ContextDecorator):
    """Let layers be built inside ``forward`` -- only if you really mean it.

    A layer built in ``forward`` is new on every call: fresh untrained weights
    that the optimizer and ``state_dict()`` never see.  Occasionally that is
    what you want (a throw-away probe, a demonstration of this very bug)::

        def forward(self, x):
            with nb.nn.allow_build_in_forward():
                probe = nb.nn.Linear(x.shape[1], 1)
            return probe(x)
    """

    def __enter__(self):
        global _allowed
        _allowed += 1
        return self

    def __exit__(self, *exc):
        global _allowed
        _allowed -= 1
        return False


def building_forbidden() -> bool:
    return bool(context.module_stack) and not _allowed


def check_build(what: str, example: str, noun: str = "layer") -> None:
    """Raise BuildInForwardError if a forward is running; ``what`` is the thing being built,
    a "layer" or a "parameter"."""
    if not context.module_stack or _allowed:
        return
    path, module = context.module_stack[-1]
    owner = layer_name(path, module)
    raise BuildInForwardError(message(
        f"{what} was built while {type(module).__name__}.forward() was running.",
        where=owner,
        values=(
            f"building: {what}\n"
            f"inside:   {owner}.forward()\n"
            f"why: a {noun} built inside forward() is new on every call: its weights start "
            "untrained each time, and neither the optimizer nor state_dict() ever sees "
            "them, so nothing is learned or saved (in some frameworks it even picks up "
            "another layer's cached weights)."),
        hint=(
            f"build it once in __init__ ({example}) and only call it in forward(). "
            "If a fresh layer on every call is really what you want, build it inside "
            "`with nb.nn.allow_build_in_forward():`."),
    ))


# -- describing the layer being built ---------------------------------------------

def _short(value) -> str:
    if isinstance(value, Tensor):
        return f"{type(value).__name__} of shape {fmt_shape(value.shape)}"
    if isinstance(value, np.ndarray):
        return f"array of shape {fmt_shape(value.shape)}"
    if hasattr(value, "forward") and hasattr(value, "named_parameters"):
        return f"{type(value).__name__}(...)"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def describe_call(cls, args, kwargs) -> str:
    """'Conv2d(in_channels=512, out_channels=3, kernel_size=1)': the arguments as given."""
    import inspect  # only on the error path

    try:
        signature = inspect.signature(cls.__init__)
        items = list(signature.bind(None, *args, **kwargs).arguments.items())[1:]  # no self
    except (TypeError, ValueError):
        signature, items = None, [(None, a) for a in args] + list(kwargs.items())
    parts = []
    for name, value in items:
        kind = signature.parameters[name].kind if name is not None else None
        if kind == inspect.Parameter.VAR_POSITIONAL:
            parts.extend(_short(v) for v in value)
        elif kind == inspect.Parameter.VAR_KEYWORD:
            parts.extend(f"{k}={_short(v)}" for k, v in value.items())
        elif name is None:
            parts.append(_short(value))
        else:
            parts.append(f"{name}={_short(value)}")
    return f"{cls.__name__}({', '.join(parts)})"
