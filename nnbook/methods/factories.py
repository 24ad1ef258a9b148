"""``x.new_zeros(2, 3)`` and friends: new tensors with this tensor's dtype (and device).

PyTorch code uses them to make a tensor "like" another without naming its dtype.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..arrays import array_from, parse_size
from ..device import check_device


class Factories:
    """Tensor methods that make new tensors."""

    __slots__ = ()

    def _made(self, array, requires_grad):
        t = self._new(array)
        return t.requires_grad_(True) if requires_grad else t

    def _filled(self, where, args, size, value, dtype, device, requires_grad):
        check_device(device, where)
        shape = parse_size(args, size, where)
        np_dtype = self._array.dtype if dtype is None else dtypes.numpy_dtype(dtype)
        return self._made(np.full(shape, value, dtype=np_dtype), requires_grad)

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        """``probs.multinomial(1)``: indices drawn with this tensor's rows as weights, as
        ``nb.multinomial(probs, 1)``."""
        from ..creation import multinomial

        return multinomial(self, num_samples, replacement, generator=generator)

    def new_zeros(self, *args, size=None, dtype=None, device=None, requires_grad=False,
                  layout=None, pin_memory=False):
        return self._filled("Tensor.new_zeros", args, size, 0, dtype, device, requires_grad)

    def new_ones(self, *args, size=None, dtype=None, device=None, requires_grad=False,
                 layout=None, pin_memory=False):
        return self._filled("Tensor.new_ones", args, size, 1, dtype, device, requires_grad)

    def new_empty(self, *args, size=None, dtype=None, device=None, requires_grad=False,
                  layout=None, pin_memory=False):
        """Uninitialised in PyTorch; zeros here, as ``nb.empty``."""
        return self._filled("Tensor.new_empty", args, size, 0, dtype, device, requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
                 layout=None, pin_memory=False):
        return self._filled("Tensor.new_full", (size,), None, fill_value, dtype, device,
                            requires_grad)

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False, layout=None,
                   pin_memory=False):
        """A copy of ``data`` with this tensor's dtype (unless ``dtype`` is given)."""
        check_device(device, "Tensor.new_tensor")
        np_dtype = self._array.dtype if dtype is None else dtypes.numpy_dtype(dtype)
        return self._made(array_from(data, np_dtype, "Tensor.new_tensor", copy=True),
                          requires_grad)
