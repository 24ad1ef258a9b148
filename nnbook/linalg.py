"""``nb.linalg``: PyTorch's ``torch.linalg``, on the last two dims, batched over the rest.

The ops, with their derivatives, are in ``nnbook/ops/decompositions.py``; the functions
here pick arguments and put the factors of a decomposition together.  Loaded on first use
(``nb.linalg``), so ``import nnbook`` stays light.

    A = nb.randn(5, 3, dtype=nb.float64)
    U, S, Vh = nb.linalg.svd(A, full_matrices=False)
    (U * S) @ Vh            # A again
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from .creation import no_out
from .errors import (
    ArgumentError,
    DTypeError,
    InputError,
    MissingNameError,
    ShapeError,
    fmt_shape,
    message,
)
from .functions import broadcast_tensors
from .methods.linalg import QRResult, SlogdetResult, qr_factors
from .ops import decompositions
from .ops import statistics as stat_ops
from .ops.base import is_real
from .tensor import Tensor, apply

# What PyTorch raises for a singular or not positive definite matrix; nnbook raises its
# InputError (a ValueError) there, so `except torch.linalg.LinAlgError` still catches it.
LinAlgError = InputError

EighResult = namedtuple("eigh", ["eigenvalues", "eigenvectors"])
SVDResult = namedtuple("svd", ["U", "S", "Vh"])
LstsqResult = namedtuple("lstsq", ["solution", "residuals", "rank", "singular_values"])
InvExResult = namedtuple("inv_ex", ["inverse", "info"])


def _tensors(where, **operands) -> None:
    for name, value in operands.items():
        if not isinstance(value, Tensor):
            raise ArgumentError(message(
                f"{name} must be a Tensor, got {type(value).__name__}.", where=where,
                hint=f"make it a tensor first: nb.tensor({value!r:.40})."))


# -- norms ------------------------------------------------------------------------------
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """(sum |x_i|**ord)**(1/ord) over ``dim`` (default: every element, as one vector);
    ord=inf is max |x_i|, -inf min |x_i|, 0 the count of non-zeros."""
    no_out("linalg.vector_norm", out, "x")
    where = "nb.linalg.vector_norm"
    _tensors(where, x=x)
    if not is_real(ord):
        raise InputError(message(f"ord must be a number, got {ord!r}.", where=where,
                                 hint="'fro' and 'nuc' are matrix norms: "
                                 "nb.linalg.matrix_norm."))
    x = x if dtype is None else x.to(dtype)
    if x.dtype.kind != "f":
        raise DTypeError(message(f"vector_norm needs a floating point input, got "
                                 f"{x.dtype.name}.", where=where,
                                 hint="pass dtype=nb.float32 or convert: x.float()."))
    if dim is not None and not isinstance(dim, (tuple, list)):
        dim = (dim,)
    if dim is not None and len(dim) == 0:
        dim = None
    return apply(stat_ops.Norm(ord, None if dim is None else tuple(dim), keepdim), x)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """A norm of each matrix in the dims ``dim``: 'fro' (sqrt of the sum of squares), 'nuc'
    (the sum of singular values), 2 / -2 (the largest / smallest singular value), 1 / -1
    (the largest / smallest column sum of |a_ij|), inf / -inf (the same over rows)."""
    no_out("linalg.matrix_norm", out, "A")
    where = "nb.linalg.matrix_norm"
    _tensors(where, A=A)
    A = A if dtype is None else A.to(dtype)
    if A.ndim < 2 or not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise ShapeError(message(
            f"matrix_norm needs a tensor of at least 2 dims and dim as two dims, got shape "
            f"{fmt_shape(A.shape)} and dim={dim!r}.", where=where,
            hint="dim=(-2, -1), the default, names the matrices' rows and columns."))
    rows, cols = (A._dim(d, "matrix_norm") for d in dim)
    if rows == cols:
        raise InputError(message(f"dim names one dim twice: {dim!r}.", where=where,
                                 hint="e.g. dim=(-2, -1)."))
    if A.dtype.kind != "f":
        raise DTypeError(message(f"matrix_norm needs a floating point input, got "
                                 f"{A.dtype.name}.", where=where, hint="convert: A.float()."))
    kept = tuple(1 if i in (rows, cols) else s for i, s in enumerate(A.shape))
    if A.numel() == 0 and ord not in (-2, -math.inf):  # no elements: 0 (as PyTorch)
        return A.abs().sum((rows, cols), keepdim=keepdim)
    if ord == "fro":
        return vector_norm(A, 2, (rows, cols), keepdim)
    if ord in ("nuc", 2, -2):
        s = svdvals(A.movedim((rows, cols), (-2, -1)))  # (..., k)
        y = s.sum(-1) if ord == "nuc" else s.amax(-1) if ord == 2 else s.amin(-1)
        return y.reshape(kept) if keepdim else y
    if ord in (1, -1, math.inf, -math.inf):
        # ord 1: sum over the rows (each column's sum), then the largest; inf: the other way
        summed, extreme = (rows, cols) if abs(ord) == 1 else (cols, rows)
        sums = A.abs().sum(summed, keepdim=True)
        y = sums.amax(extreme, keepdim=True) if ord > 0 else sums.amin(extreme, keepdim=True)
        return y if keepdim else y.reshape([s for i, s in enumerate(A.shape)
                                            if i not in (rows, cols)])
    raise InputError(message(f"ord={ord!r} is not a matrix norm.", where=where,
                             hint="use 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2."))


def norm(input, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """A vector norm (``dim`` an int, or a 1-D input) or a matrix norm (``dim`` two dims,
    or a 2-D input); with neither ord nor dim, the 2-norm of every element."""
    no_out("linalg.norm", out, "input")
    A = input
    where = "nb.linalg.norm"
    _tensors(where, A=A)
    if isinstance(dim, int) or (isinstance(dim, (tuple, list)) and len(dim) == 1):
        return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    if dim is None:
        if ord is None:
            return vector_norm(A, 2, None, keepdim, dtype=dtype)
        if A.ndim == 1:
            return vector_norm(A, ord, None, keepdim, dtype=dtype)
        if A.ndim != 2:
            raise ShapeError(message(
                f"with ord={ord!r} and no dim, norm needs a 1-D or 2-D input, got shape "
                f"{fmt_shape(A.shape)}.", where=where,
                hint="pass dim: an int for vector norms, two dims for matrix norms."))
        dim = (-2, -1)
    return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)


# -- one matrix in, one out --------------------------------------------------------------
def det(A, *, out=None):
    """det(A) of each (..., n, n) matrix."""
    no_out("linalg.det", out, "A")
    _tensors("nb.linalg.det", A=A)
    return A.det()


def slogdet(A, *, out=None):
    """(sign, logabsdet): det(A) = sign * exp(logabsdet)."""
    no_out("linalg.slogdet", out, "A")
    _tensors("nb.linalg.slogdet", A=A)
    return SlogdetResult(*A.slogdet())


def inv(A, *, out=None):
    """A^{-1} of each (..., n, n) matrix; a singular one is an error."""
    no_out("linalg.inv", out, "A")
    _tensors("nb.linalg.inv", A=A)
    return A.inverse()


def inv_ex(A, *, check_errors=False, out=None):
    """(inverse, info): info is 0 where the inverse exists.  nnbook raises for a singular
    matrix even with check_errors=False (PyTorch returns info > 0)."""
    no_out("linalg.inv_ex", out, "A")
    inverse = inv(A)
    return InvExResult(inverse, Tensor._new(np.zeros(A.shape[:-2], np.int32)))


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The pseudo-inverse A^+ (n, m) of each (..., m, n) matrix."""
    no_out("linalg.pinv", out, "A")
    _tensors("nb.linalg.pinv", A=A)
    return apply(decompositions.Pinv(atol, rtol), A)


def matrix_power(A, n, *, out=None):
    """A multiplied by itself n times (n < 0: the inverse's powers; n = 0: I)."""
    no_out("linalg.matrix_power", out, "A, n")
    _tensors("nb.linalg.matrix_power", A=A)
    return A.matrix_power(n)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """How many singular values exceed max(atol, rtol * the largest) (an int64 tensor)."""
    no_out("linalg.matrix_rank", out, "A")
    s = svdvals(A)._array
    return Tensor._new((s > decompositions.tolerance(s, A.shape, atol, rtol)).sum(-1))


def cholesky(A, *, upper=False, out=None):
    """L, lower triangular, with A = L L^T (upper=True: L^T)."""
    no_out("linalg.cholesky", out, "A")
    _tensors("nb.linalg.cholesky", A=A)
    return A._cholesky(upper)


def solve(A, B, *, left=True, out=None):
    """X with A X = B (left=False: X A = B); B may be a batch of vectors (..., n)."""
    no_out("linalg.solve", out, "A, B")
    _tensors("nb.linalg.solve", A=A, B=B)
    if not left and B.ndim < 2:
        raise ShapeError(message(
            f"with left=False (X A = B), B must be a matrix (..., k, n), got shape "
            f"{fmt_shape(B.shape)}.", where="nb.linalg.solve",
            hint="for one row vector b use B = b.unsqueeze(0)."))
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return apply(decompositions.Solve(), A.mT, B.mT).mT
    return apply(decompositions.Solve(), A, B)


def lstsq(A, B, rcond=None, *, driver=None):
    """The X that minimises ||A X - B|| (computed from the pseudo-inverse), and what
    PyTorch's LAPACK ``driver`` returns beside it: ``rank`` (not with 'gels'), the
    ``singular_values`` (only with 'gelsd' and 'gelss'), and the squared ``residuals``
    (not with 'gelsy', the default, and only when m > n and A has full rank); else empty."""
    where = "nb.linalg.lstsq"
    _tensors(where, A=A, B=B)
    driver = "gelsy" if driver is None else driver
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise InputError(message(f"driver must be 'gels', 'gelsy', 'gelsd' or 'gelss', got "
                                 f"{driver!r}.", where=where, hint="leave it out: 'gelsy'."))
    vector = B.ndim == A.ndim - 1
    b = B.unsqueeze(-1) if vector else B
    x = pinv(A, rtol=rcond) @ b
    rank = matrix_rank(A, rtol=rcond)
    m, n = A.shape[-2:]
    empty = Tensor._new(np.zeros((0,), A._array.dtype))
    residuals = empty
    if driver != "gelsy" and m > n and bool((rank._array == n).all()):
        residuals = ((A @ x - b) ** 2).sum(-2)
    return LstsqResult(x.squeeze(-1) if vector else x, residuals.squeeze(-1) if vector and
                       residuals.numel() else residuals,
                       Tensor._new(np.zeros((0,), np.int64)) if driver == "gels" else rank,
                       svdvals(A).detach() if driver in ("gelsd", "gelss") else empty)


# -- decompositions ----------------------------------------------------------------------
def eigh(A, UPLO="L", *, out=None):
    """(eigenvalues ascending, eigenvectors as columns) of symmetric matrices; only the
    triangle ``UPLO`` ('L' or 'U') is read."""
    no_out("linalg.eigh", out, "A")
    _tensors("nb.linalg.eigh", A=A)
    _uplo(UPLO, "nb.linalg.eigh")
    return EighResult(apply(decompositions.Eigvalsh(UPLO), A),
                      apply(decompositions.EighVectors(UPLO), A))


def eigvalsh(A, UPLO="L", *, out=None):
    """The eigenvalues of symmetric matrices, ascending."""
    no_out("linalg.eigvalsh", out, "A")
    _tensors("nb.linalg.eigvalsh", A=A)
    _uplo(UPLO, "nb.linalg.eigvalsh")
    return apply(decompositions.Eigvalsh(UPLO), A)


def _uplo(UPLO, where):  # noqa: N803  (PyTorch's name)
    if UPLO not in ("L", "U"):
        raise InputError(message(f"UPLO must be 'L' or 'U', got {UPLO!r}.", where=where,
                                 hint="'L' reads the lower triangle, 'U' the upper."))


def svd(A, full_matrices=True, *, driver=None, out=None):
    """(U, S, Vh) with A = U diag(S) Vh, S descending."""
    no_out("linalg.svd", out, "A")
    _tensors("nb.linalg.svd", A=A)
    return SVDResult(apply(decompositions.SvdU(full_matrices), A),
                     apply(decompositions.Svdvals(full_matrices), A),
                     apply(decompositions.SvdVh(full_matrices), A))


def svdvals(A, *, driver=None, out=None):
    """The singular values of each matrix, descending."""
    no_out("linalg.svdvals", out, "A")
    _tensors("nb.linalg.svdvals", A=A)
    return apply(decompositions.Svdvals(False), A)


def qr(A, mode="reduced", *, out=None):
    """(Q, R) with A = Q R; mode 'reduced', 'complete' or 'r' (R only, Q empty)."""
    no_out("linalg.qr", out, "A")
    _tensors("nb.linalg.qr", A=A)
    return QRResult(*qr_factors(A, mode))


# -- products ----------------------------------------------------------------------------
def multi_dot(tensors, *, out=None):
    """A @ B @ C ...; the first may be a vector (a row), the last a vector (a column)."""
    no_out("linalg.multi_dot", out, "tensors")
    where = "nb.linalg.multi_dot"
    if not isinstance(tensors, (list, tuple)) or len(tensors) < 2:
        raise InputError(message("multi_dot takes a list of at least two tensors.",
                                 where=where, hint="e.g. nb.linalg.multi_dot([A, B, C])."))
    _tensors(where, **{f"tensors[{i}]": t for i, t in enumerate(tensors)})
    for i, t in enumerate(tensors):
        allowed = (1, 2) if i in (0, len(tensors) - 1) else (2,)
        if t.ndim not in allowed:
            raise ShapeError(message(
                f"tensors[{i}] must be {' or '.join(f'{n}-D' for n in allowed)}, got shape "
                f"{fmt_shape(t.shape)}.", where=where,
                hint="only the first and the last may be vectors; the others are matrices."))
    result = tensors[0]
    for t in tensors[1:]:
        result = result @ t
    return result


def cross(input, other, *, dim=-1, out=None):
    """The cross product of 3-vectors along ``dim``; the other dims broadcast."""
    no_out("linalg.cross", out, "input, other")
    _tensors("nb.linalg.cross", input=input, other=other)
    if input.ndim != other.ndim:  # (PyTorch broadcasts only tensors of one number of dims)
        return input.cross(other, dim=dim)
    a, b = broadcast_tensors(input, other)
    return a.cross(b, dim=dim)


def vecdot(x, y, *, dim=-1, out=None):
    """sum_i x_i y_i along ``dim``; the other dims broadcast."""
    no_out("linalg.vecdot", out, "x, y")
    _tensors("nb.linalg.vecdot", x=x, y=y)
    if x.dtype.kind != "f" or y.dtype.kind != "f":
        raise DTypeError(message(f"vecdot needs floating point vectors, got {x.dtype.name} "
                                 f"and {y.dtype.name}.", where="nb.linalg.vecdot",
                                 hint="convert first: x.float(), or use (x * y).sum(-1)."))
    return (x * y).sum(dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The ``offset`` diagonal of each matrix, as the last dim."""
    _tensors("nb.linalg.diagonal", A=A)
    return A.diagonal(offset, dim1, dim2)


__all__ = ["LinAlgError", "vector_norm", "matrix_norm", "norm", "det", "slogdet", "inv",
           "inv_ex", "pinv", "matrix_power", "matrix_rank", "cholesky", "solve", "lstsq",
           "eigh", "eigvalsh", "svd", "svdvals", "qr", "multi_dot", "cross", "vecdot",
           "diagonal"]


def __getattr__(name):
    """Only reached for a name nb.linalg does not have: a typo, or a function of
    torch.linalg that nnbook leaves out (eig, lu, matrix_exp...)."""
    if name.startswith("__"):
        raise AttributeError(f"module 'nnbook.linalg' has no attribute '{name}'")
    raise MissingNameError("nb.linalg", name, lambda: __all__)
