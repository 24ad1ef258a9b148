"""Shape methods: ``reshape``/``view``, ``permute``/``transpose``, ``squeeze``... Each
builds an op of ``nnbook/ops/shape.py``; none of them copies values it can view."""
from __future__ import annotations

import math

import numpy as np

from ..errors import ArgumentError, DimError, InputError, ShapeError, message
from ..ops import rearrange
from ..ops import shape as shape_ops
from .operands import numpy_dim


def _sizes(args):
    """f(2, 3), f((2, 3)) and f([2, 3]) all give (2, 3)."""
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else args


def _one_of(name, **given):
    """The one of these arguments that was given (PyTorch names them by what they hold)."""
    found = [value for value in given.values() if value is not None]
    if len(found) != 1:
        raise ArgumentError(message(
            f"{name} takes one of {', '.join(given)}, got {len(found)}.",
            where=f"Tensor.{name}", hint=f"e.g. x.{name}(3), x.{name}(sections=3) or "
            f"x.{name}(indices=[1, 4])."))
    return found[0]


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

    @numpy_dim
    def unsqueeze(self, dim):
        d = shape_ops.checked_dim(dim, self.ndim + 1, "Tensor.unsqueeze")
        return self.reshape(self.shape[:d] + (1,) + self.shape[d:])

    @numpy_dim
    def squeeze(self, dim=None):
        if dim is None:
            return self.reshape(tuple(n for n in self.shape if n != 1))
        dims = dim if isinstance(dim, (tuple, list)) else (dim,)
        drop = {self._dim(d, "squeeze") for d in dims}
        return self.reshape(tuple(n for i, n in enumerate(self.shape)
                                  if not (i in drop and n == 1)))

    # -- the same, in place: this tensor takes the new shape (a view of its own memory) --
    @numpy_dim
    def squeeze_(self, dim=None):
        return self._relayout(lambda x: x.squeeze(dim), "squeeze_")

    @numpy_dim
    def unsqueeze_(self, dim):
        return self._relayout(lambda x: x.unsqueeze(dim), "unsqueeze_")

    def t_(self):
        return self._relayout(lambda x: x.t(), "t_")

    def transpose_(self, dim0, dim1):
        return self._relayout(lambda x: x.transpose(dim0, dim1), "transpose_")

    swapaxes_ = swapdims_ = transpose_

    def expand(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return self._op(shape_ops.Expand(shape), self)

    def expand_as(self, other):
        return self.expand(other.shape)

    broadcast_to = expand

    @numpy_dim
    def unflatten(self, dim, sizes):
        """Split dim ``dim`` into ``sizes`` (one of which may be -1)."""
        d = self._dim(dim, "unflatten")
        return self.reshape(self.shape[:d] + tuple(sizes) + self.shape[d + 1:])

    def movedim(self, source, destination):
        sources = source if isinstance(source, (tuple, list)) else (source,)
        targets = destination if isinstance(destination, (tuple, list)) else (destination,)
        src = [self._dim(d, "movedim") for d in sources]
        dst = [self._dim(d, "movedim") for d in targets]
        if len(src) != len(dst) or len(set(src)) != len(src) or len(set(dst)) != len(dst):
            raise InputError(message(
                f"movedim needs as many distinct source dims as destination dims, got "
                f"{source!r} and {destination!r}.", where="Tensor.movedim",
                hint="e.g. x.movedim(0, -1) or x.movedim((0, 1), (2, 3))."))
        order = [d for d in range(self.ndim) if d not in src]
        for d, s in sorted(zip(dst, src)):
            order.insert(d, s)
        return self.permute(order)

    moveaxis = movedim
    swapdims = transpose

    def unfold(self, dimension, size, step):
        """Windows of ``size`` elements, ``step`` apart, along ``dimension`` (a view); the
        windows' elements make a new last dim: arange(5).unfold(0, 2, 2) is [[0, 1], [2, 3]]."""
        if self.ndim == 0:  # a number is one window of itself (or an empty one)
            return self.reshape(1).unfold(dimension, size, step).reshape(size)
        return self._op(shape_ops.Unfold(dimension, size, step), self)

    # -- pieces: views of parts of this tensor ---------------------------------------------
    def _piece_dim(self, dim, what) -> int:
        """``dim`` of a tensor cut into pieces: a 0-d tensor has none to cut along."""
        if self.ndim == 0:
            raise DimError(message(
                f"{what} needs a tensor with at least one dimension, got a 0-d tensor "
                "(a single number).", where=f"Tensor.{what}",
                hint="make it 1-d first: x.reshape(1)."))
        return self._dim(dim, what)

    @numpy_dim
    def narrow(self, dim, start, length):
        """The ``length`` elements from ``start`` along ``dim`` (a view)."""
        d = self._piece_dim(dim, "narrow")
        n = self.shape[d]
        begin = start + n if start < 0 else start
        if not (0 <= begin <= n and 0 <= length <= n - begin):
            raise InputError(message(
                f"narrow: start={start}, length={length} do not fit in dim {dim} of size {n}.",
                where="Tensor.narrow", hint=f"start + length must be at most {n}."))
        return self[(slice(None),) * d + (slice(begin, begin + length),)]

    @numpy_dim
    def select(self, dim, index):
        """The slice at ``index`` along ``dim``, without that dim (a view)."""
        return self[(slice(None),) * self._dim(dim, "select") + (index,)]

    @numpy_dim
    def split(self, split_size_or_sections, dim=0):
        """Pieces of ``split_size`` along ``dim`` (the last one may be smaller), or pieces
        of the sizes listed."""
        d = self._piece_dim(dim, "split")
        n, size = self.shape[d], split_size_or_sections
        if isinstance(size, (tuple, list)):
            if sum(size) != n or any(s < 0 for s in size):
                raise InputError(message(
                    f"split sizes {tuple(size)} add up to {sum(size)}, but dim {dim} has "
                    f"{n} elements.", where="Tensor.split",
                    hint="the sizes must add up to the dimension's size."))
            sizes = list(size)
        elif size <= 0 and n:
            raise InputError(message(f"split_size must be positive, got {size}.",
                                     where="Tensor.split", hint="e.g. x.split(2)."))
        else:
            sizes = [min(size, n - start) for start in range(0, n, size)] or [0]
        starts = np.cumsum([0] + sizes[:-1])
        return tuple(self.narrow(d, int(a), b) for a, b in zip(starts, sizes))

    @numpy_dim
    def chunk(self, chunks, dim=0):
        """At most ``chunks`` pieces of equal size (the last may be smaller) along ``dim``."""
        if chunks < 1:
            raise InputError(message(f"chunks must be at least 1, got {chunks}.",
                                     where="Tensor.chunk", hint="e.g. x.chunk(2)."))
        n = self.shape[self._piece_dim(dim, "chunk")]
        if n == 0:
            return tuple(self for _ in range(chunks))
        return self.split(math.ceil(n / chunks), dim)

    @numpy_dim
    def tensor_split(self, indices_or_sections=None, dim=0, *, sections=None, indices=None,
                     tensor_indices_or_sections=None):
        """``n`` pieces as equal as can be (the first ``size % n`` one longer), or the pieces
        between the positions listed: ``[2, 5]`` gives x[:2], x[2:5], x[5:] along ``dim``.
        (PyTorch's keywords: ``sections=n``, ``indices=[...]``, or a tensor of either.)"""
        d = self._piece_dim(dim, "tensor_split")
        cuts = _one_of("tensor_split", indices_or_sections=indices_or_sections,
                       sections=sections, indices=indices,
                       tensor_indices_or_sections=tensor_indices_or_sections)
        if self._is_tensor(cuts):
            if cuts._array.dtype.kind not in "iu" or cuts.ndim > 1:
                raise InputError(message(
                    f"tensor_split takes a 0-d or 1-d tensor of integers, got "
                    f"{cuts.dtype.name} of shape {tuple(cuts.shape)}.",
                    where="Tensor.tensor_split", hint="e.g. nb.tensor([2, 5]), or an int."))
            cuts = cuts.item() if cuts.ndim == 0 else cuts.tolist()
        if isinstance(cuts, (tuple, list)):
            if not all(isinstance(c, int) and not isinstance(c, bool) for c in cuts):
                raise ArgumentError(message(
                    f"tensor_split's indices must be ints, got {cuts!r}.",
                    where="Tensor.tensor_split", hint="e.g. x.tensor_split([2, 5])."))
            bounds = [None, *cuts, None]  # each piece is a Python slice: x[a:b]
        elif isinstance(cuts, int) and not isinstance(cuts, bool):
            if cuts < 1:
                raise InputError(message(
                    f"the number of sections must be at least 1, got {cuts}.",
                    where="Tensor.tensor_split", hint="e.g. x.tensor_split(3)."))
            n = self.shape[d]
            sizes = [n // cuts + (i < n % cuts) for i in range(cuts)]
            bounds = [0, *np.cumsum(sizes).tolist()]
        else:
            raise ArgumentError(message(
                f"tensor_split takes an int (sections) or a list of indices, got "
                f"{type(cuts).__name__}.", where="Tensor.tensor_split",
                hint="e.g. x.tensor_split(3) or x.tensor_split([2, 5])."))
        return tuple(self[(slice(None),) * d + (slice(a, b),)]
                     for a, b in zip(bounds[:-1], bounds[1:]))

    def hsplit(self, indices_or_sections=None, *, sections=None, indices=None):
        """tensor_split along dim 1 (dim 0 of a vector); sections must divide it evenly."""
        return self._split_evenly("hsplit", 1, 0 if self.ndim == 1 else 1, _one_of(
            "hsplit", indices_or_sections=indices_or_sections, sections=sections,
            indices=indices))

    def vsplit(self, indices_or_sections=None, *, sections=None, indices=None):
        """tensor_split along dim 0 of a tensor of at least 2 dims."""
        return self._split_evenly("vsplit", 2, 0, _one_of(
            "vsplit", indices_or_sections=indices_or_sections, sections=sections,
            indices=indices))

    def dsplit(self, indices_or_sections=None, *, sections=None, indices=None):
        """tensor_split along dim 2 of a tensor of at least 3 dims."""
        return self._split_evenly("dsplit", 3, 2, _one_of(
            "dsplit", indices_or_sections=indices_or_sections, sections=sections,
            indices=indices))

    def _split_evenly(self, name, min_dims, dim, indices_or_sections):
        if self.ndim < min_dims:
            raise DimError(message(
                f"{name} needs a tensor of at least {min_dims} dim(s), got {self.ndim}-d "
                f"with shape {tuple(self.shape)}.", where=f"Tensor.{name}",
                hint="use x.tensor_split(sections, dim) for a chosen dim."))
        sections = indices_or_sections
        if isinstance(sections, int) and not isinstance(sections, bool) and sections > 0 \
                and self.shape[dim] % sections:
            raise InputError(message(
                f"{name} splits dim {dim} of size {self.shape[dim]} into {sections} equal "
                "pieces, which it does not divide into.", where=f"Tensor.{name}",
                hint=f"use x.tensor_split({sections}, {dim}) for pieces that may differ by "
                "one, or list the indices to split at."))
        return self.tensor_split(sections, dim)

    @numpy_dim
    def unbind(self, dim=0):
        """The slices along ``dim``, each without that dim."""
        return tuple(self.select(dim, i) for i in range(self.shape[self._piece_dim(dim, "unbind")]))

    # -- copies in a new order ---------------------------------------------------------------
    def flip(self, *dims):
        return self._op(rearrange.Flip(_sizes(dims)), self)

    def fliplr(self):
        return self._needs_matrix("fliplr").flip(1)

    def flipud(self):
        return self.flip(0)

    def _needs_matrix(self, name):
        if self.ndim < 2:
            raise ShapeError(message(
                f"{name} needs at least 2 dimensions, got shape {tuple(self.shape)}.",
                where=f"Tensor.{name}", hint="reshape first, e.g. x.reshape(1, -1)."))
        return self

    def rot90(self, k=1, dims=(0, 1)):
        """Turn the plane of ``dims`` a quarter turn ``k`` times, from dims[0] toward dims[1]
        (a matrix's first row becomes its first column, read upward)."""
        if len(dims) != 2:
            raise ShapeError(message(f"rot90 turns in a plane of two dims, got dims={dims!r}.",
                                     where="Tensor.rot90", hint="e.g. dims=(0, 1)."))
        if self.ndim < 2:
            raise ShapeError(message(
                f"rot90 needs at least 2 dimensions, got shape {tuple(self.shape)}.",
                where="Tensor.rot90", hint="reshape first, e.g. x.reshape(1, -1)."))
        first, second = (self._dim(d, "rot90") for d in dims)
        if first == second:
            raise ShapeError(message(f"rot90 needs two different dims, got dims={dims!r}.",
                                     where="Tensor.rot90", hint="e.g. dims=(0, 1)."))
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
            raise ArgumentError(message(f"k must be an int, got {k!r}.", where="Tensor.rot90",
                                     hint="k counts quarter turns: 1, 2, 3 or negative."))
        k = int(k) % 4
        # one quarter turn = flip along dims[1], then swap the two dims
        if k == 1:
            return self.flip(second).transpose(first, second)
        if k == 2:
            return self.flip(first, second)
        if k == 3:
            return self.flip(first).transpose(first, second)
        return self.clone()

    def roll(self, shifts, dims=None):
        shifts = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
        if dims is not None and not isinstance(dims, (tuple, list)):
            dims = (dims,)
        return self._op(rearrange.Roll(shifts, dims), self)

    def repeat(self, *sizes):
        """Tile the tensor ``sizes[d]`` times along each dim (extra sizes add dims)."""
        return self._op(rearrange.Repeat(_sizes(sizes)), self)

    def tile(self, *dims):
        """``repeat``, with ones added in front when fewer sizes than dims are given."""
        dims = _sizes(dims)
        return self.repeat((1,) * (self.ndim - len(dims)) + tuple(dims))

    @numpy_dim
    def repeat_interleave(self, repeats, dim=None, *, output_size=None):
        """Each element ``repeats`` times in a row along ``dim`` (flattened without one)."""
        counts = repeats._array if self._is_tensor(repeats) else repeats
        return self._op(rearrange.RepeatInterleave(counts, dim), self)
