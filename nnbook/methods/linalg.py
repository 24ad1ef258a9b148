"""Vectors and matrices as tensor methods: products with fixed shapes (``dot``, ``mm``,
``bmm``, ``mv``, ``outer``) and parts of matrices (``diag``, ``trace``, ``tril``...).

``a @ b`` (``matmul``) takes any number of dims and broadcasts; these products check
that their operands have exactly the dims they name, as PyTorch's do, then compute
with the same op.
"""
from __future__ import annotations

import warnings
from collections import namedtuple

import numpy as np

from ..errors import (
    DimError,
    DTypeError,
    InputError,
    ShapeError,
    fmt_shape,
    message,
    warn_from_user_code,
)
from ..ops import decompositions, linalg
from ..ops.base import is_int
from .operands import require_tensors

# What the decompositions return (PyTorch's torch.return_types): named tuples
SlogdetResult = namedtuple("slogdet", ["sign", "logabsdet"])
QRResult = namedtuple("qr", ["Q", "R"])
SVDResult = namedtuple("svd", ["U", "S", "V"])  # the old torch.svd: V, not V^T


class Linalg:
    """Tensor methods for vectors and matrices."""

    __slots__ = ()

    def _operands(self, other, dims, name, want):
        """Fail unless self and other have ``dims`` dimensions and one dtype."""
        require_tensors(self, f"Tensor.{name}", other=other)
        if (self.ndim, other.ndim) != dims:
            raise ShapeError(message(
                f"{name} expects {want}, got shapes {fmt_shape(self.shape)} and "
                f"{fmt_shape(other.shape)}.", where=f"Tensor.{name}",
                hint="a @ b (matmul) takes any number of dimensions and broadcasts."))
        if self._array.dtype != other._array.dtype:
            raise DTypeError(message(
                f"{name} needs both operands of one dtype, got {self.dtype.name} and "
                f"{other.dtype.name}.", where=f"Tensor.{name}",
                hint="convert one of them: b.to(a.dtype)."))

    def dot(self, other):
        """sum_i a_i b_i of two vectors of one length."""
        self._operands(other, (1, 1), "dot", "two vectors (1-D)")
        if self.shape != other.shape:
            raise ShapeError(message(
                f"dot needs vectors of one length, got {self.shape[0]} and {other.shape[0]}.",
                where="Tensor.dot", hint="both vectors need the same number of elements."))
        return self @ other

    def mm(self, mat2):
        """The matrix product of two matrices (2-D, no broadcasting)."""
        self._operands(mat2, (2, 2), "mm", "two matrices (2-D)")
        return self @ mat2

    def bmm(self, mat2):
        """Matrix products batch by batch: (b, n, m) and (b, m, p) give (b, n, p)."""
        self._operands(mat2, (3, 3), "bmm", "two batches of matrices (3-D)")
        if self.shape[0] != mat2.shape[0]:
            raise ShapeError(message(
                f"bmm needs one batch size, got {self.shape[0]} and {mat2.shape[0]}.",
                where="Tensor.bmm", hint="bmm does not broadcast; use a @ b to broadcast."))
        return self @ mat2

    def mv(self, vec):
        """Matrix times vector: (n, m) and (m,) give (n,)."""
        self._operands(vec, (2, 1), "mv", "a matrix (2-D) and a vector (1-D)")
        return self @ vec

    def outer(self, vec2):
        """y_ij = a_i b_j: every product of two vectors' elements."""
        require_tensors(self, "Tensor.outer", vec2=vec2)
        if (self.ndim, vec2.ndim) != (1, 1):
            raise ShapeError(message(
                f"outer expects two vectors (1-D), got shapes {fmt_shape(self.shape)} and "
                f"{fmt_shape(vec2.shape)}.", where="Tensor.outer",
                hint="flatten them first: a.flatten().outer(b.flatten())."))
        return self.reshape(-1, 1) * vec2.reshape(1, -1)

    ger = outer

    def diagonal(self, offset=0, dim1=0, dim2=1):
        """The ``offset`` diagonal of the matrices in (dim1, dim2), as the last dim."""
        return self._op(linalg.Diagonal(offset, dim1, dim2), self)

    def diag(self, diagonal=0):
        """A vector's diagonal matrix, or a matrix's diagonal as a vector."""
        if self.ndim == 1:
            return self._op(linalg.DiagMatrix(diagonal), self)
        if self.ndim == 2:
            return self.diagonal(diagonal)
        raise ShapeError(message(
            f"diag expects a vector or a matrix, got shape {fmt_shape(self.shape)}.",
            where="Tensor.diag", hint="for batches use x.diagonal(dim1=-2, dim2=-1)."))

    def trace(self):
        """The sum of a matrix's diagonal."""
        if self.ndim != 2:
            raise ShapeError(message(
                f"trace expects a matrix (2-D), got shape {fmt_shape(self.shape)}.",
                where="Tensor.trace", hint="for batches: x.diagonal(dim1=-2, dim2=-1).sum(-1)."))
        return self.diagonal().sum()

    def tril(self, diagonal=0):
        return self._op(linalg.Tril(diagonal), self)

    def triu(self, diagonal=0):
        return self._op(linalg.Triu(diagonal), self)

    # -- fused products: beta * self + alpha * product -----------------------------------
    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        """beta * self + alpha * (mat1 @ mat2); self broadcasts to (n, p)."""
        require_tensors(self, "Tensor.addmm", mat1=mat1, mat2=mat2)
        return self._op(linalg.Addmm(beta, alpha), self, mat1, mat2)

    def addmv(self, mat, vec, *, beta=1, alpha=1):
        """beta * self + alpha * (mat @ vec)."""
        require_tensors(self, "Tensor.addmv", mat=mat, vec=vec)
        return self._op(linalg.Addmv(beta, alpha), self, mat, vec)

    def addr(self, vec1, vec2, *, beta=1, alpha=1):
        """beta * self + alpha * outer(vec1, vec2)."""
        require_tensors(self, "Tensor.addr", vec1=vec1, vec2=vec2)
        return self._op(linalg.Addr(beta, alpha), self, vec1, vec2)

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        """beta * self + alpha * (batch1 @ batch2), batch by batch."""
        require_tensors(self, "Tensor.baddbmm", batch1=batch1, batch2=batch2)
        return self._op(linalg.Baddbmm(beta, alpha), self, batch1, batch2)

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        """beta * self + alpha * the sum over the batch of batch1[i] @ batch2[i]."""
        require_tensors(self, "Tensor.addbmm", batch1=batch1, batch2=batch2)
        return self._op(linalg.Addbmm(beta, alpha), self, batch1, batch2)

    # -- products that build bigger tensors ------------------------------------------------
    def kron(self, other):
        """The Kronecker product: every element of self times the whole of other, laid out
        block by block.  (m, n) and (p, q) give (m*p, n*q): block (i, j) is a_ij * b."""
        require_tensors(self, "Tensor.kron", other=other)
        n = max(self.ndim, other.ndim)
        a_shape = (1,) * (n - self.ndim) + tuple(self.shape)
        b_shape = (1,) * (n - other.ndim) + tuple(other.shape)
        # a as (a0, 1, a1, 1, ...), b as (1, b0, 1, b1, ...): their product holds every
        # a_i * b_j, with a's index before b's along each axis
        spread_a = [s for size in a_shape for s in (size, 1)]
        spread_b = [s for size in b_shape for s in (1, size)]
        products = self.reshape(spread_a) * other.reshape(spread_b)
        return products.reshape([p * q for p, q in zip(a_shape, b_shape)])

    def cross(self, other, dim=None):
        """The cross product of 3-vectors along ``dim`` (which must have size 3):
        (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0).  Without ``dim``, the first dim of
        size 3 (deprecated, as in PyTorch, which warns)."""
        where = "Tensor.cross"
        require_tensors(self, where, other=other)
        if self.ndim != other.ndim:
            raise ShapeError(message(
                f"cross needs inputs with the same number of dimensions, got shapes "
                f"{fmt_shape(self.shape)} and {fmt_shape(other.shape)}.", where=where,
                hint="unsqueeze the smaller one: b.unsqueeze(0), or b.expand_as(a)."))
        if self._array.dtype != other._array.dtype:
            raise DTypeError(message(
                f"cross needs both operands of one dtype, got {self.dtype.name} and "
                f"{other.dtype.name}.", where=where, hint="convert one of them: b.to(a.dtype)."))
        if dim is None:
            dim = next((d for d, size in enumerate(self.shape) if size == 3), None)
            if dim is None:
                raise ShapeError(message(
                    f"cross without dim looks for a dimension of size 3, and the input "
                    f"{fmt_shape(self.shape)} has none.", where=where,
                    hint="the vectors' dimension needs size 3: pass dim= to name it."))
            warn_from_user_code(UserWarning(
                "Using cross without dim is deprecated (as in PyTorch): pass dim (the dim of "
                "size 3)."))
        if self.ndim == 0:  # PyTorch: IndexError, a 0-d tensor has no dim -1 to take
            raise DimError(message(
                f"cross takes vectors along dim {dim}, and a 0-d tensor has no dimensions.",
                where=where, hint="make 3-vectors: nb.tensor([x, y, z])."))
        d = self._dim(dim, "cross")
        if self.shape[d] != 3 or other.shape[d] != 3:
            raise ShapeError(message(
                f"cross needs size 3 along dim {dim}, got shapes {fmt_shape(self.shape)} and "
                f"{fmt_shape(other.shape)}.", where=where,
                hint="the cross product is defined for 3-vectors; name their dim with dim=."))
        # roll by -1 gives (x1, x2, x0), by -2 (x2, x0, x1): component i is
        # a_(i+1) b_(i+2) - a_(i+2) b_(i+1)
        return self.roll(-1, d) * other.roll(-2, d) - self.roll(-2, d) * other.roll(-1, d)

    # -- functions of a whole matrix (ops/decompositions.py) -------------------------------
    def det(self):
        """The determinant of each (..., n, n) matrix."""
        return self._op(decompositions.Det(), self)

    def slogdet(self):
        """(sign, logabsdet): det = sign * exp(logabsdet), without overflow.  The sign has
        no gradient."""
        return SlogdetResult(self._op(decompositions.DetSign(), self),
                             self._op(decompositions.LogAbsDet(), self))

    def logdet(self):
        """log(det): NaN where the determinant is negative, -inf where it is 0."""
        sign, logabsdet = self.slogdet()
        nan = self._new(np.full((), np.nan, self._array.dtype))
        return nan.where(sign < 0, logabsdet)  # (no gradient where it is NaN, as PyTorch)

    def inverse(self):
        """A^{-1} of each (..., n, n) matrix."""
        return self._op(decompositions.Inv(), self)

    def pinverse(self, rcond=1e-15):
        """The pseudo-inverse; singular values below rcond * the largest count as zero."""
        return self._op(decompositions.Pinv(rtol=rcond), self)

    def matrix_power(self, n):
        """A @ A @ ... (n factors); n = 0 gives the identity, n < 0 powers of A^{-1}."""
        where = "Tensor.matrix_power"
        if not is_int(n):
            raise DTypeError(message(f"n must be an int, got {n!r}.", where=where,
                                     hint="e.g. A.matrix_power(3)."))
        if self.ndim < 2 or self.shape[-1] != self.shape[-2]:
            raise ShapeError(message(
                f"matrix_power needs square matrices (..., n, n), got shape "
                f"{fmt_shape(self.shape)}.", where=where,
                hint="only a square matrix can be multiplied by itself."))
        base = self.inverse() if n < 0 else self
        if n == 0:  # I, whose gradient is 0 (PyTorch's has one too)
            eye = np.broadcast_to(np.eye(self.shape[-1], dtype=self._array.dtype), self.shape)
            return self * 0 + self._new(eye.copy())
        result, n = None, abs(n)
        while n:  # square-and-multiply: A^13 = A^8 A^4 A^1
            if n & 1:
                result = base.clone() if result is None else result @ base
            n >>= 1
            if n:
                base = base @ base
        return result

    def cholesky(self, upper=False):
        """L, lower triangular, with A = L L^T (upper=True: U = L^T, A = U^T U).
        Deprecated, as in PyTorch (which warns): use nb.linalg.cholesky."""
        warnings.warn("nb.cholesky is deprecated (as torch.cholesky): use "
                      "nb.linalg.cholesky(A), or nb.linalg.cholesky(A).mT for upper=True.",
                      UserWarning, stacklevel=2)
        return self._cholesky(upper)

    def _cholesky(self, upper=False):
        lower = self._op(decompositions.Cholesky(), self)
        return lower.mT if upper else lower

    def qr(self, some=True):
        """(Q, R) with A = Q R, Q's columns orthonormal and R upper triangular;
        ``some=False`` gives the complete (m, m) Q.  Deprecated, as in PyTorch (which
        warns): use nb.linalg.qr."""
        warnings.warn("nb.qr is deprecated (as torch.qr): use nb.linalg.qr(A), with "
                      "mode='complete' for some=False.", UserWarning, stacklevel=2)
        return QRResult(*qr_factors(self, "reduced" if some else "complete"))

    def svd(self, some=True, compute_uv=True):
        """The old torch.svd: (U, S, V) with A = U diag(S) V^T -- V, not V^T (use
        nb.linalg.svd for Vh).  ``some=False`` gives the full U and V;
        ``compute_uv=False`` gives zeros for U and V."""
        s = self._op(decompositions.Svdvals(), self)
        if not compute_uv:
            m, n = self.shape[-2:]
            batch = tuple(self.shape[:-2])
            return SVDResult(self._new(np.zeros(batch + (m, m), self._array.dtype)), s,
                             self._new(np.zeros(batch + (n, n), self._array.dtype)))
        u = self._op(decompositions.SvdU(not some), self)
        vh = self._op(decompositions.SvdVh(not some), self)
        return SVDResult(u, s, vh.mT)

    # -- covariance ----------------------------------------------------------------------
    def cov(self, *, correction=1, fweights=None, aweights=None):
        """The covariance matrix of the rows (variables) over the columns (observations):
        C_ij = sum_k w_k (x_ik - m_i)(x_jk - m_j) / (sum w - correction'), with weights w =
        fweights * aweights and m the weighted means (correction' = correction *
        sum(w * aweights) / sum(w) with aweights)."""
        where = "Tensor.cov"
        if self.ndim > 2:
            raise ShapeError(message(
                f"cov takes a vector or a matrix (variables, observations), got shape "
                f"{fmt_shape(self.shape)}.", where=where,
                hint="one row per variable, one column per observation."))
        x = self.reshape(1, -1) if self.ndim < 2 else self
        if x.dtype.kind != "f":
            x = x.to(np.float32)  # PyTorch: integers give a float covariance
        observations = x.shape[1]
        weights = None
        for name, w in (("fweights", fweights), ("aweights", aweights)):
            if w is None:
                continue
            require_tensors(self, where, **{name: w})
            if w.ndim > 1 or w.numel() != observations:
                raise ShapeError(message(
                    f"{name} needs one weight per observation ({observations}), got shape "
                    f"{fmt_shape(w.shape)}.", where=where,
                    hint="a vector as long as the input's second dim."))
            if name == "fweights" and w.dtype.kind not in "iu":
                raise DTypeError(message(f"fweights must be integers (counts), got "
                                         f"{w.dtype.name}.", where=where,
                                         hint="use aweights for real-valued weights."))
            if (w._array < 0).any():
                raise InputError(message(f"{name} must be >= 0, got a negative weight.",
                                         where=where, hint="weights count observations."))
            w = w.reshape(-1).to(x.dtype)
            weights = w if weights is None else weights * w
        if weights is None:
            mean = x.mean(1, keepdim=True)
            weights, dof = 1, max(observations - correction, 0)
        else:
            total = weights.sum()
            mean = (x * weights).sum(1, keepdim=True) / total
            if aweights is not None:  # the correction scaled for reliability weights
                correction = correction * (weights * aweights.to(x.dtype)).sum() / total
            dof = (total - correction).clamp(min=0)
        centred = x - mean
        c = (centred * weights) @ centred.mT / dof  # dof <= 0 gives inf or NaN, as PyTorch
        return c.reshape(()) if self.ndim < 2 else c

    def corrcoef(self):
        """The Pearson correlation of the rows: cov(x)_ij / sqrt(cov_ii cov_jj), clipped to
        [-1, 1]."""
        c = self.cov()
        if c.ndim == 0:
            return c / c
        d = c.diagonal().sqrt()
        return (c / d.reshape(-1, 1) / d.reshape(1, -1)).clamp(-1, 1)


def qr_factors(a, mode):
    """(Q, R) of ``a`` as two ops; mode='r' gives an empty Q, as PyTorch."""
    if mode not in ("reduced", "complete", "r"):
        raise InputError(message(f"mode must be 'reduced', 'complete' or 'r', got {mode!r}.",
                                 where="qr", hint="'reduced' gives Q (m, k), R (k, n)."))
    r = a._op(decompositions.QrR(mode), a)
    if mode == "r":
        return a._new(np.zeros((0,), a._array.dtype)), r
    return a._op(decompositions.QrQ(mode), a), r
