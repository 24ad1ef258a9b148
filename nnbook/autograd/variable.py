"""``Variable``: PyTorch's wrapper from before tensors could require grad, kept for old code.

Since PyTorch 0.4 a tensor does everything a Variable did, so ``Variable(t,
requires_grad=True)`` simply returns a tensor: ``t``'s memory, cut from any graph (as
``t.detach()``), with ``requires_grad`` set.  Every tensor counts as a Variable.
"""
from __future__ import annotations

import warnings

from ..errors import ArgumentError, message
from ..tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:  # isinstance(x, Variable): any tensor
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(t, requires_grad=False)``: a new leaf tensor sharing ``t``'s memory."""

    def __new__(cls, data, requires_grad=False, volatile=False):
        if not isinstance(data, Tensor):
            raise ArgumentError(message(
                f"Variable wraps a tensor, got {type(data).__name__}.",
                where="nb.autograd.Variable",
                hint="make the tensor directly: nb.tensor(data, requires_grad=True)."))
        if volatile:
            warnings.warn("volatile was removed and now has no effect (as in PyTorch); use "
                          "`with nb.no_grad():` instead.", UserWarning, stacklevel=2)
        return data.detach()._set_requires_grad(requires_grad, "nb.autograd.Variable")
