"""Operands of mixed kinds (tensors and Python numbers) as tensors of one dtype."""
from __future__ import annotations

import functools

import numpy as np

from .. import dtypes
from ..errors import ArgumentError, message


def promoted(x, *others) -> list:
    """``x`` and ``others`` (tensors, Python numbers, or None, which stays None) as
    tensors of the dtype PyTorch's promotion gives them together (gradients still flow)."""
    operands = (x, *others)
    dtype = dtypes.result_type(*[o for o in operands if o is not None])
    return [None if o is None else o._cast(dtype) if x._is_tensor(o)
            else x._new(np.asarray(o, dtype=dtype)) for o in operands]



def numpy_dim(method):
    """Let ``method`` take numpy's name axis= for dim=, as PyTorch's functions do."""
    @functools.wraps(method)
    def takes_axis(self, *args, **kwargs):
        if "axis" in kwargs:
            if "dim" in kwargs:
                raise ArgumentError(message(
                    "give dim= or axis=, not both (axis is numpy's name for dim).",
                    where=f"Tensor.{method.__name__}", hint="keep one of them."))
            kwargs["dim"] = kwargs.pop("axis")
        return method(self, *args, **kwargs)
    return takes_axis


def require_tensors(x, where, **operands) -> None:
    """Fail unless every one of ``operands`` is a tensor (PyTorch raises a TypeError too);
    ``x`` is any tensor, asked which values are tensors."""
    for name, value in operands.items():
        if not x._is_tensor(value):
            raise ArgumentError(message(
                f"{name} must be a tensor, got {type(value).__name__}.", where=where,
                hint="make it one first: nb.tensor(...)."))
