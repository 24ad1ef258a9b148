"""``nb.exp(x)``, ``nb.sum(x, dim=1)``...: PyTorch's functions that are also tensor methods.

Each is the method of the same name (defined once, in ``nnbook/methods``), called on
its first argument, so ``nb.exp(x)`` and ``x.exp()`` can never disagree.
"""
from __future__ import annotations


def _method(name):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"nb.{name}(x, ...) is x.{name}(...)."
    return fn


METHODS = (
    "exp", "log", "sqrt", "tanh", "sigmoid", "relu", "abs", "clamp", "clip",
    "sum", "mean", "max", "argmax", "all", "any",
    "reshape", "flatten", "permute", "transpose", "matmul", "squeeze", "unsqueeze", "t",
)

globals().update({name: _method(name) for name in METHODS})
__all__ = list(METHODS)
