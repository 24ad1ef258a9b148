"""Functions of whole matrices: the inverse, the determinant, solving A X = B, the
pseudo-inverse, and the Cholesky, symmetric eigen-, singular value and QR decompositions.

Every op works on the last two dims and batches over the others, as PyTorch's
``torch.linalg``.  A decomposition with several factors is one op per factor (the
eigenvalues, the eigenvectors...): each backward is one line of the table of derivatives,
and when a loss uses several factors the engine adds their gradients, which is the whole
rule, because the derivative of a decomposition is linear in the factors' gradients.

Notation in the comments: A^T is the transpose of the last two dims, ``*`` is the
elementwise product, dY the gradient flowing in (of the output Y) and dA the gradient
going out.  Where a decomposition is not unique (the eigenvectors of a repeated
eigenvalue, the singular vectors of a repeated singular value) the formulas divide by
zero and the gradient is inf or NaN, as PyTorch's; losses that do not depend on the
vectors' signs (U diag(c) U^T, |U|, the reconstruction) have well-defined gradients.
"""
from __future__ import annotations

import numpy as np

from ..errors import BackwardError, DTypeError, InputError, fmt_shape
from .base import Op


def mT(a):
    """The transpose of the last two dims (A^T)."""
    return np.swapaxes(a, -1, -2)


def check_matrices(op: Op, a, square=True, name="A"):
    """Fail unless ``a`` is a float tensor of (square, if ``square``) matrices."""
    if a.dtype.kind != "f":
        op.fail(f"expects floating point matrices, got {np.dtype(a.dtype).name}.",
                cls=DTypeError, hint="convert first: A.double() or A.float().")
    if a.ndim < 2:
        op.fail(f"expects {name} with at least 2 dimensions (..., rows, cols), got shape "
                f"{fmt_shape(a.shape)}.", hint="make a vector a matrix: A.reshape(1, -1).")
    if square and a.shape[-1] != a.shape[-2]:
        op.fail(f"expects square matrices (..., n, n), got {name} of shape "
                f"{fmt_shape(a.shape)}.",
                hint="only square matrices have an inverse, a determinant and eigenvalues; "
                "for a rectangular A use nb.linalg.pinv or nb.linalg.lstsq.")


def singular(op: Op):
    op.fail("the matrix is singular (a pivot is zero): it has no inverse.", cls=InputError,
            hint="check that the rows are independent; for a least-squares answer use "
            "nb.linalg.lstsq or nb.linalg.pinv.")


class Inv(Op):
    """Y = A^{-1}."""

    name = "linalg_inv"
    keeps_output = True  # the backward reads Y

    def infer(self, a):
        check_matrices(self, a)
        return a.shape

    def forward(self, a):
        try:
            self.y = np.linalg.inv(a)
        except np.linalg.LinAlgError:
            singular(self)
        return self.y

    def backward(self, grad_out):  # Y = A^{-1};  dA = -Y^T dY Y^T  (= -A^{-T} dY A^{-T})
        y_t = mT(self.y)
        return (-(y_t @ grad_out @ y_t),)


def cofactors(a):
    """det(A) A^{-T}, computed from the SVD so that it exists for singular A too:
    A = U S V^T gives det(A) A^{-T} = det(U) det(V) U diag(prod_{j != i} s_j) V^T."""
    u, s, vh = np.linalg.svd(a)
    n = s.shape[-1]
    others = np.where(np.eye(n, dtype=bool), 1, s[..., None, :])  # row i: s with s_i = 1
    products = others.prod(-1)                                     # prod_{j != i} s_j
    sign = np.linalg.det(u) * np.linalg.det(vh)                    # each is +1 or -1
    return sign[..., None, None] * (u * products[..., None, :]) @ vh


class Det(Op):
    """y = det(A)."""

    name = "linalg_det"

    def infer(self, a):
        check_matrices(self, a)
        return a.shape[:-2]

    def forward(self, a):
        self.a = a
        return np.asarray(np.linalg.det(a))

    def backward(self, grad_out):  # y = det(A);  dA = dy det(A) A^{-T}  (the cofactors)
        return (grad_out[..., None, None] * cofactors(self.a),)


class LogAbsDet(Op):
    """y = log |det(A)|: the second half of ``slogdet`` (the sign has no gradient)."""

    name = "linalg_slogdet"

    def infer(self, a):
        check_matrices(self, a)
        return a.shape[:-2]

    def forward(self, a):
        self.a = a
        return np.asarray(np.linalg.slogdet(a)[1])

    def backward(self, grad_out):  # y = log|det A|;  dA = dy A^{-T}
        u, s, vh = np.linalg.svd(self.a)  # A^{-T} = U diag(1/s) V^T: inf for a singular A
        return (grad_out[..., None, None] * (u / s[..., None, :]) @ vh,)


class DetSign(Op):
    """sign(det(A)): the first half of ``slogdet``, a step, so its gradient is 0."""

    name = "linalg_slogdet"

    def infer(self, a):
        check_matrices(self, a)
        return a.shape[:-2]

    def forward(self, a):
        self.shape = a.shape
        return np.asarray(np.linalg.slogdet(a)[0])

    def backward(self, grad_out):  # y = sign(det A): constant where defined, dA = 0
        return (np.zeros(self.shape, grad_out.dtype),)


def is_vector_rhs(a, b) -> bool:
    """PyTorch's rule: B is a (batch of) vector(s) if it is 1-D, or has one dim less than A
    and A's shape without its last dim."""
    return b.ndim == 1 or (b.ndim == a.ndim - 1 and tuple(b.shape) == tuple(a.shape[:-1]))


class Solve(Op):
    """X = A^{-1} B, without forming the inverse; B is a matrix or (see ``is_vector_rhs``)
    a vector, and the batch dims of A and B broadcast."""

    keeps_output = True  # the backward reads X

    name = "linalg_solve"

    def infer(self, a, b):
        check_matrices(self, a)
        if b.dtype != a.dtype:
            self.fail(f"needs A and B of one dtype, got {np.dtype(a.dtype).name} and "
                      f"{np.dtype(b.dtype).name}.", cls=DTypeError,
                      hint="convert one: B.to(A.dtype).")
        vector = is_vector_rhs(a, b)
        rows = b.shape[-1] if vector else (b.shape[-2] if b.ndim >= 2 else None)
        if b.ndim == 0 or rows != a.shape[-1]:
            self.fail(f"A {fmt_shape(a.shape)} has {a.shape[-1]} rows, so B needs "
                      f"{a.shape[-1]} rows, got B of shape {fmt_shape(b.shape)}.",
                      hint="A X = B: B is (..., n, k) or a vector (..., n) for A (..., n, n).")
        b_batch = b.shape[:-1] if vector else b.shape[:-2]
        try:
            batch = np.broadcast_shapes(a.shape[:-2], b_batch)
        except ValueError:
            self.fail(f"the batch dims of A {fmt_shape(a.shape)} and B {fmt_shape(b.shape)} "
                      "do not broadcast.", hint="batch sizes must be equal or 1.")
        return batch + ((a.shape[-1],) if vector else b.shape[-2:])

    def forward(self, a, b):
        self.vector = is_vector_rhs(a, b)
        b = b[..., None] if self.vector else b
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        self.a = np.broadcast_to(a, batch + a.shape[-2:])
        try:
            self.x = np.linalg.solve(self.a, np.broadcast_to(b, batch + b.shape[-2:]))
        except np.linalg.LinAlgError:
            singular(self)
        return self.x[..., 0] if self.vector else self.x

    def backward(self, grad_out):  # X = A^{-1} B;  dB = A^{-T} dX,  dA = -dB X^T
        g = grad_out[..., None] if self.vector else grad_out
        grad_b = np.linalg.solve(mT(self.a), g)
        grad_a = -grad_b @ mT(self.x) if self.needs_input_grad[0] else None
        return grad_a, (grad_b[..., 0] if self.vector else grad_b)


class Pinv(Op):
    """X = A^+, the Moore-Penrose pseudo-inverse: V diag(1/s) U^T over the singular values
    s > max(atol, rtol * s_max); the smaller ones count as zero."""

    name = "linalg_pinv"
    keeps_output = True  # the backward reads X

    def __init__(self, atol=None, rtol=None):
        self.atol, self.rtol = atol, rtol

    def infer(self, a):
        check_matrices(self, a, square=False)
        return a.shape[:-2] + (a.shape[-1], a.shape[-2])

    def forward(self, a):
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        cutoff = tolerance(s, a.shape, self.atol, self.rtol)
        inverted = np.divide(1, s, out=np.zeros_like(s), where=s > cutoff)
        self.a, self.x = a, (mT(vh) * inverted[..., None, :]) @ mT(u)
        return self.x

    def backward(self, grad_out):
        # X = A^+ (rank fixed):  dX = -X dA X + X X^T dA^T (I - A X) + (I - X A) dA^T X^T X,
        # so  gA = -X^T dX X^T + (I - A X) dX^T X X^T + X^T X dX^T (I - X A)
        a, x, g = self.a, self.x, grad_out
        x_t, g_t = mT(x), mT(g)
        eye_m, eye_n = np.eye(a.shape[-2], dtype=a.dtype), np.eye(a.shape[-1], dtype=a.dtype)
        return (-(x_t @ g @ x_t) + (eye_m - a @ x) @ g_t @ x @ x_t
                + x_t @ x @ g_t @ (eye_n - x @ a),)


def tolerance(s, shape, atol=None, rtol=None):
    """PyTorch's cutoff for singular values that count as zero: max(atol, rtol * s_max),
    rtol = eps * max(m, n) when neither is given (0 when only atol is)."""
    if rtol is None:
        rtol = np.finfo(s.dtype).eps * max(shape[-2:]) if not atol else 0.0
    largest = s.max(-1, initial=0)
    return np.maximum(atol or 0.0, rtol * largest)[..., None]


class Cholesky(Op):
    """L, lower triangular with a positive diagonal, such that A = L L^T (A symmetric and
    positive definite; only A's lower triangle is read)."""

    name = "linalg_cholesky"
    keeps_output = True  # the backward reads L

    def infer(self, a):
        check_matrices(self, a)
        return a.shape

    def forward(self, a):
        try:
            self.lower = np.linalg.cholesky(a)
        except np.linalg.LinAlgError:
            self.fail("the matrix is not positive definite, so it has no Cholesky factor.",
                      cls=InputError, hint="A must be symmetric with positive eigenvalues, "
                      "e.g. B @ B.mT + eps * I; check nb.linalg.eigvalsh(A).")
        return self.lower

    def backward(self, grad_out):
        # A = L L^T;  with phi(M) = the lower triangle of M with its diagonal halved,
        # dA = L^{-T} phi(L^T dL) L^{-1}, made symmetric (A is): (dA + dA^T) / 2
        lower = self.lower
        inner = np.tril(mT(lower) @ np.tril(grad_out))
        inner = inner - 0.5 * np.eye(lower.shape[-1], dtype=lower.dtype) * inner  # phi
        l_inv = np.linalg.inv(lower)
        grad = mT(l_inv) @ inner @ l_inv
        return (0.5 * (grad + mT(grad)),)


class Eigvalsh(Op):
    """The eigenvalues of a symmetric matrix, in ascending order (only the triangle
    ``UPLO`` names is read)."""

    name = "linalg_eigh"

    def __init__(self, UPLO="L"):  # noqa: N803  (PyTorch's name)
        self.UPLO = UPLO

    def infer(self, a):
        check_matrices(self, a)
        return a.shape[:-1]

    def forward(self, a):
        self.values, self.vectors = np.linalg.eigh(a, UPLO=self.UPLO)
        return self.values

    def backward(self, grad_out):  # A = Q diag(L) Q^T;  dL_i = q_i^T dA q_i,  so
        q = self.vectors              # dA = Q diag(dL) Q^T
        return ((q * grad_out[..., None, :]) @ mT(q),)


class EighVectors(Eigvalsh):
    """The eigenvectors Q of a symmetric matrix, as columns (each up to its sign)."""

    keeps_output = True  # the backward reads Q

    def infer(self, a):
        check_matrices(self, a)
        return a.shape

    def forward(self, a):
        super().forward(a)
        return self.vectors

    def backward(self, grad_out):
        # dQ = Q (F * (Q^T dA Q)) with F_ij = 1 / (L_j - L_i) off the diagonal, 0 on it, so
        # dA = Q (F * (Q^T dQ)) Q^T.  Repeated eigenvalues make F infinite: the vectors are
        # not unique there and the gradient is inf or NaN (as PyTorch's).  A is symmetric,
        # so, as PyTorch, the gradient is made symmetric too: (dA + dA^T) / 2.
        q, values = self.vectors, self.values
        gaps = values[..., None, :] - values[..., :, None]     # L_j - L_i
        n = values.shape[-1]
        f = np.where(np.eye(n, dtype=bool), 0, 1 / np.where(np.eye(n, dtype=bool), 1, gaps))
        grad = q @ (f * (mT(q) @ grad_out)) @ mT(q)
        return (0.5 * (grad + mT(grad)),)


class Svdvals(Op):
    """The singular values of A (..., m, n), k = min(m, n) of them, in descending order."""

    name = "linalg_svd"

    def __init__(self, full_matrices=True):
        self.full_matrices = bool(full_matrices)

    def infer(self, a):
        check_matrices(self, a, square=False)
        return a.shape[:-2] + (min(a.shape[-2:]),)

    def forward(self, a):
        self.shape = a.shape
        self.u, self.s, self.vh = np.linalg.svd(a, full_matrices=self.full_matrices)
        return self.s

    def backward(self, grad_out):  # A = U diag(S) V^T;  dS_i = u_i^T dA v_i,  so
        u, vh = self.reduced()         # dA = U diag(dS) V^T
        return ((u * grad_out[..., None, :]) @ vh,)

    def reduced(self):
        """U (m, k) and V^T (k, n): the columns that belong to a singular value (with
        full_matrices the others are any basis of the rest: they get no gradient)."""
        k = self.s.shape[-1]
        return self.u[..., :, :k], self.vh[..., :k, :]

    def gauge_parts(self):
        """F_ij = 1 / (s_j^2 - s_i^2) off the diagonal (0 on it): repeated singular values
        make it infinite, as the vectors are not unique there (PyTorch gives inf or NaN)."""
        s2 = self.s ** 2
        k = s2.shape[-1]
        off = ~np.eye(k, dtype=bool)
        gaps = s2[..., None, :] - s2[..., :, None]
        return np.where(off, 1 / np.where(off, gaps, 1), 0)


class SvdU(Svdvals):
    """U of A = U diag(S) V^T: (m, k), or (m, m) with full_matrices."""

    keeps_output = True  # the backward reads U

    def infer(self, a):
        check_matrices(self, a, square=False)
        m, n = a.shape[-2:]
        return a.shape[:-2] + (m, m if self.full_matrices else min(m, n))

    def forward(self, a):
        super().forward(a)
        return self.u

    def backward(self, grad_out):
        # dA = U [(F * (U^T dU - dU^T U)) S] V^T + (I - U U^T) dU S^{-1} V^T
        u, vh = self.reduced()
        g = grad_out[..., :, :u.shape[-1]]
        ut_g = mT(u) @ g
        inner = (self.gauge_parts() * (ut_g - mT(ut_g))) * self.s[..., None, :]
        outside = g - u @ ut_g          # (I - U U^T) dU: the part outside U's columns
        return (u @ inner @ vh + (outside / self.s[..., None, :]) @ vh,)


class SvdVh(Svdvals):
    """V^T of A = U diag(S) V^T: (k, n), or (n, n) with full_matrices."""

    keeps_output = True  # the backward reads V^T

    def infer(self, a):
        check_matrices(self, a, square=False)
        m, n = a.shape[-2:]
        return a.shape[:-2] + (n if self.full_matrices else min(m, n), n)

    def forward(self, a):
        super().forward(a)
        return self.vh

    def backward(self, grad_out):
        # with V = (V^T)^T and dV = dVh^T:
        # dA = U [S (F * (V^T dV - dV^T V))] V^T + U S^{-1} dV^T (I - V V^T)
        u, vh = self.reduced()
        g_v = mT(grad_out[..., :vh.shape[-2], :])       # dV (n, k)
        vt_g = vh @ g_v
        inner = self.s[..., :, None] * (self.gauge_parts() * (vt_g - mT(vt_g)))
        outside = mT(g_v) - (mT(g_v) @ mT(vh)) @ vh     # dV^T (I - V V^T)
        return (u @ inner @ vh + (u / self.s[..., None, :]) @ outside,)


class QrR(Op):
    """R of A = Q R: upper triangular, (k, n) with k = min(m, n), or (m, n) with
    mode='complete'."""

    keeps_output = True  # the backward reads Q and R

    name = "linalg_qr"

    def __init__(self, mode="reduced"):
        self.mode = mode

    def infer(self, a):
        check_matrices(self, a, square=False)
        m, n = a.shape[-2:]
        return a.shape[:-2] + ((m if self.mode == "complete" else min(m, n)), n)

    def forward(self, a):
        self.q, self.r = np.linalg.qr(a, mode="complete" if self.mode == "complete"
                                      else "reduced")
        return self.r

    def gradient(self, grad_q, grad_r):
        # A = Q R with m >= n (Q is m x n):  with M = R dR^T - dQ^T Q and copyltu(M) the
        # lower triangle of M mirrored onto the upper one,  dA = (dQ + Q copyltu(M)) R^{-T}.
        # With m < n, A = Q (X | Y) with X square: dY = Q dR_Y, and X follows the rule
        # above with dQ + Y dR_Y^T in place of dQ.
        q, r = self.q, self.r
        m, n = q.shape[-2], r.shape[-1]
        if self.mode == "r" or (self.mode == "complete" and m > n):
            self.fail(f"QR with mode={self.mode!r} of a {m} x {n} matrix has no derivative: "
                      "the extra columns of Q are not determined by A.", cls=BackwardError,
                      hint="use mode='reduced' (the default) for a QR you differentiate.")
        k = min(m, n)
        grad_q = np.zeros_like(q) if grad_q is None else grad_q
        grad_r = np.zeros_like(r) if grad_r is None else grad_r
        if m < n:
            y, grad_ry = q @ r[..., :, k:], grad_r[..., :, k:]  # Y = A's last columns
            return np.concatenate([self._square_or_tall(q, r[..., :, :k], grad_q + y @ mT(
                grad_ry), grad_r[..., :, :k]), q @ grad_ry], axis=-1)
        return self._square_or_tall(q, r, grad_q, grad_r)

    @staticmethod
    def _square_or_tall(q, r, grad_q, grad_r):
        m = r @ mT(grad_r) - mT(grad_q) @ q
        copyltu = np.tril(m) + mT(np.tril(m, -1))
        rhs = grad_q + q @ copyltu  # (dQ + Q copyltu(M)) R^{-T}: solve with R, not invert it
        return mT(np.linalg.solve(r, mT(rhs)))

    def backward(self, grad_out):
        return (self.gradient(None, grad_out),)


class QrQ(QrR):
    """Q of A = Q R: orthonormal columns, (m, k), or (m, m) with mode='complete'."""

    def infer(self, a):
        check_matrices(self, a, square=False)
        m, n = a.shape[-2:]
        return a.shape[:-2] + (m, m if self.mode == "complete" else min(m, n))

    def forward(self, a):
        super().forward(a)
        return self.q

    def backward(self, grad_out):
        return (self.gradient(grad_out, None),)
