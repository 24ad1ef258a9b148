"""Shape methods: ``reshape``/``view``, ``permute``/``transpose``, ``squeeze``... Each
builds an op of ``nnbook/ops/shape.py``; none of them copies values it can view."""
from __future__ import annotations

from ..errors import InputError, ShapeError, message
from ..ops import shape as shape_ops


class Shapes:
    """Tensor methods that change a tensor's shape."""

    __slots__ = ()

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return self._op(shape_ops.Reshape(shape), self)

    view = reshape

    def view_as(self, other):
        return self.reshape(other.shape)

    reshape_as = view_as

    def flatten(self, start_dim=0, end_dim=-1):
        if self.ndim == 0:
            return self.reshape(1)
        start = self._dim(start_dim, "flatten")
        end = self._dim(end_dim, "flatten")
        if start > end:
            raise InputError(message(
                f"flatten: start_dim ({start_dim}) comes after end_dim ({end_dim}).",
                where="Tensor.flatten", hint="use start_dim <= end_dim."))
        s = self.shape
        size = 1
        for n in s[start:end + 1]:
            size *= n
        return self.reshape(s[:start] + (size,) + s[end + 1:])

    def permute(self, *dims):
        dims = dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
        return self._op(shape_ops.Permute(dims), self)

    def transpose(self, dim0, dim1):
        dims = list(range(self.ndim))
        a, b = self._dim(dim0, "transpose"), self._dim(dim1, "transpose")
        if self.ndim:
            dims[a], dims[b] = dims[b], dims[a]
        return self.permute(dims)

    swapaxes = transpose

    def t(self):
        if self.ndim > 2:
            raise ShapeError(message(
                f"t() transposes tensors of at most 2 dimensions, this one has {self.ndim}.",
                where="Tensor.t", hint="use x.transpose(dim0, dim1) or x.mT."))
        return self if self.ndim < 2 else self.transpose(0, 1)

    @property
    def T(self):
        return self.permute(tuple(reversed(range(self.ndim))))

    @property
    def mT(self):
        return self.transpose(-2, -1)

    def unsqueeze(self, dim):
        d = shape_ops.checked_dim(dim, self.ndim + 1, "Tensor.unsqueeze")
        return self.reshape(self.shape[:d] + (1,) + self.shape[d:])

    def squeeze(self, dim=None):
        if dim is None:
            return self.reshape(tuple(n for n in self.shape if n != 1))
        dims = dim if isinstance(dim, (tuple, list)) else (dim,)
        drop = {self._dim(d, "squeeze") for d in dims}
        return self.reshape(tuple(n for i, n in enumerate(self.shape)
                                  if not (i in drop and n == 1)))

    def expand(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return self._op(shape_ops.Expand(shape), self)

    def expand_as(self, other):
        return self.expand(other.shape)
