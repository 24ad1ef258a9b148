"""How a tensor lies in memory: ``element_size``, ``nbytes``, ``stride``, ``storage_offset``.

A tensor's values are a numpy array, and a view (``x.t()``, ``x[1:]``, ``x.unfold(...)``)
is a numpy view of the same memory.  Strides say how far apart neighbours are along each
dim; PyTorch counts them in elements, numpy in bytes, so here they are numpy's divided by
the element size::

    x = nb.zeros(2, 3)      # x.stride() == (3, 1): the next row is 3 elements on
    x.t().stride()          # (1, 3): the same memory, read down the columns
"""
from __future__ import annotations

import math

from ..errors import DimError, message
from ..ops.shape import checked_dim
from ..unsupported import UnsupportedError


class Memory:
    """Tensor methods that describe the memory behind a tensor."""

    __slots__ = ()

    def element_size(self) -> int:
        """Bytes per element: 4 for float32, 8 for int64, 1 for bool."""
        return self._array.dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._array.dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes the elements take: numel() * element_size()."""
        return self.numel() * self._array.dtype.itemsize

    def stride(self, dim=None):
        """Elements to step over to move one place along each dim (or along ``dim``)."""
        strides = _strides(self._array)
        if dim is None:
            return strides
        if self.ndim == 0:
            _no_dims("stride")
        return strides[checked_dim(dim, self.ndim, "Tensor.stride")]

    def storage_offset(self) -> int:
        """Where this tensor's first element is, counted in elements from the start of the
        tensor it is a view of (0 for a tensor that is not a view)."""
        root = self
        while root._view is not None:
            root = root._view[0]
        start = self._array.__array_interface__["data"][0]
        return (start - root._array.__array_interface__["data"][0]) // self.element_size()

    # -- pinned memory: for copies to a GPU -----------------------------------------------
    def is_pinned(self, device=None) -> bool:
        return False  # no memory is pinned: there is no GPU to copy to

    def pin_memory(self, device=None):
        raise UnsupportedError(message(
            "pin_memory() pins memory for fast copies to a GPU; nnbook (as PyTorch without "
            "a GPU) has no accelerator to copy to.", where="Tensor.pin_memory",
            hint="leave it out, or guard it: if nb.cuda.is_available(): x = x.pin_memory()."))


def _strides(array) -> tuple:
    """PyTorch's strides, in elements: numpy's, divided by the element size.  For an empty
    array numpy gives zeros, PyTorch the row-major strides (as if each dim were at least 1),
    which make is_contiguous() and stride() agree; so does this."""
    if array.size == 0:
        return tuple(math.prod(max(n, 1) for n in array.shape[d + 1:])
                     for d in range(array.ndim))
    return tuple(s // array.itemsize for s in array.strides)


def _no_dims(name):
    raise DimError(message(f"{name}(dim) of a 0-d tensor: it has no dims.",
                             where=f"Tensor.{name}", hint=f"call {name}() without a dim."))
