"""The multivariate normal distribution N(loc, Sigma), and the two matrix ops it needs.

Everything is computed from the lower-triangular Cholesky factor L of the covariance
(Sigma = L L^T): a draw is ``loc + L eps`` with eps ~ N(0, I), and

    log p(x) = -1/2 |L^-1 (x - loc)|^2 - sum(log diag L) - d/2 log(2 pi).

``Cholesky`` and ``SolveTriangular`` below are ops with their backward rules, so
gradients reach ``loc`` and whichever matrix was given.
"""
from __future__ import annotations

import math

import numpy as np

from ..creation import eye
from ..errors import InputError, ShapeError, fmt_shape, message
from ..ops.base import Op
from ..tensor import Tensor, apply
from . import constraints
from .distribution import Distribution


class Cholesky(Op):
    """L with A = L L^T, for symmetric positive-definite matrices A (the last two dims)."""

    name = "cholesky"

    def infer(self, a):
        if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
            self.fail(f"expects square matrices, got shape {fmt_shape(a.shape)}.",
                      hint="a covariance matrix is d x d.")
        return a.shape

    def forward(self, a):
        try:
            self.L = np.linalg.cholesky(a)
        except np.linalg.LinAlgError:
            self.fail("the matrix is not positive-definite.",
                      hint="add a small multiple of the identity: A + 1e-3 * nb.eye(d).",
                      cls=InputError)
        return self.L

    def backward(self, grad_out):
        # dA = L^-T Phi(L^T dL) L^-1, made symmetric, where Phi keeps the lower triangle
        # and halves the diagonal (from dL = L Phi(L^-1 dA L^-T)).
        L = self.L
        phi = np.tril(np.swapaxes(L, -1, -2) @ grad_out)
        phi[..., np.arange(L.shape[-1]), np.arange(L.shape[-1])] *= 0.5
        lt = np.swapaxes(L, -1, -2)
        right = np.swapaxes(np.linalg.solve(lt, np.swapaxes(phi, -1, -2)), -1, -2)  # Phi L^-1
        s = np.linalg.solve(lt, right)                                     # L^-T Phi L^-1
        return (0.5 * (s + np.swapaxes(s, -1, -2)),)


class SolveTriangular(Op):
    """X with L X = B, for lower-triangular L (..., d, d) and B (..., d, k) of the same
    leading shape."""

    name = "solve_triangular"

    def __init__(self, whole_matrix_gradient=False):
        # False: L's gradient is its lower triangle (the only part the solve reads).
        # True: the gradient of inv(L) @ B for the whole matrix L, upper zeros included
        # (as PyTorch's precision_matrix, computed with cholesky_inverse, gives).
        self.whole = whole_matrix_gradient

    def infer(self, L, b):
        if L.ndim < 2 or b.ndim != L.ndim or L.shape[:-1] != b.shape[:-1] \
                or L.shape[-1] != L.shape[-2]:
            self.fail(f"expects L (..., d, d) and B (..., d, k), got {fmt_shape(L.shape)} "
                      f"and {fmt_shape(b.shape)}.", hint="expand L to B's leading shape.")
        return b.shape

    def forward(self, L, b):
        self.L, self.x = L, np.linalg.solve(L, b)
        return self.x

    def backward(self, grad_out):
        # X = L^-1 B:  dB = L^-T G,  dL = -dB X^T (only its lower triangle: L is triangular)
        grad_b = np.linalg.solve(np.swapaxes(self.L, -1, -2), grad_out)
        grad_l = -grad_b @ np.swapaxes(self.x, -1, -2)
        return (grad_l if self.whole else np.tril(grad_l)), grad_b


def solve_triangular(L: Tensor, b: Tensor, whole_matrix_gradient=False) -> Tensor:
    return apply(SolveTriangular(whole_matrix_gradient), L, b)


class MultivariateNormal(Distribution):
    """N(loc, Sigma) over vectors of length d (the event shape (d,)); Sigma is given as
    ``covariance_matrix``, ``precision_matrix`` (its inverse) or ``scale_tril`` (its
    Cholesky factor L, Sigma = L L^T) -- exactly one."""

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        where = "distributions.MultivariateNormal"
        given = [(n, m) for n, m in (("covariance_matrix", covariance_matrix),
                                     ("precision_matrix", precision_matrix),
                                     ("scale_tril", scale_tril)) if m is not None]
        if len(given) != 1:
            raise InputError(message(
                f"takes exactly one of covariance_matrix, precision_matrix and scale_tril; "
                f"got {len(given)}.", where=where,
                hint="e.g. MultivariateNormal(loc, covariance_matrix=S)."))
        (name, matrix), = given
        if not isinstance(loc, Tensor) or not isinstance(matrix, Tensor) or loc.ndim < 1 \
                or matrix.ndim < 2 or matrix.shape[-1] != matrix.shape[-2] \
                or matrix.shape[-1] != loc.shape[-1]:
            shapes = [fmt_shape(v.shape) if isinstance(v, Tensor) else type(v).__name__
                      for v in (loc, matrix)]
            raise ShapeError(message(
                f"expects loc (..., d) and {name} (..., d, d) as tensors, got {shapes[0]} and "
                f"{shapes[1]}.", where=where, hint="a d-dimensional normal has a d-vector "
                "loc and a d x d matrix."))
        batch = tuple(np.broadcast_shapes(loc.shape[:-1], matrix.shape[:-2]))
        d = loc.shape[-1]
        self.__dict__["loc"] = loc.expand(batch + (d,))
        self.__dict__[name] = matrix.expand(batch + (d, d))
        self._given = name
        super().__init__(batch, (d,), validate_args=validate_args)

    _expandable = ("loc",)

    @property
    def scale_tril(self):
        if "scale_tril" not in self.__dict__:
            if self._given == "covariance_matrix":
                factor = apply(Cholesky(), self.covariance_matrix)
            else:  # Sigma = P^-1 = L_P^-T L_P^-1
                inv = solve_triangular(apply(Cholesky(), self.precision_matrix),
                                       self._identity())
                factor = apply(Cholesky(), inv.mT @ inv)
            self.__dict__["scale_tril"] = factor
        return self.__dict__["scale_tril"]

    def _identity(self):
        d = self.event_shape[0]
        return eye(d, dtype=self.loc.dtype).expand(self.batch_shape + (d, d))

    @property
    def covariance_matrix(self):
        if "covariance_matrix" not in self.__dict__:
            self.__dict__["covariance_matrix"] = self.scale_tril @ self.scale_tril.mT
        return self.__dict__["covariance_matrix"]

    @property
    def precision_matrix(self):
        if "precision_matrix" not in self.__dict__:
            inv = solve_triangular(self.scale_tril, self._identity(), True)  # L^-1
            self.__dict__["precision_matrix"] = inv.mT @ inv
        return self.__dict__["precision_matrix"]

    @property
    def _dtype(self):
        return self.loc._array.dtype

    def expand(self, batch_shape, _instance=None):
        new = self._new_like()
        batch_shape, d = tuple(batch_shape), self.event_shape[0]
        new.__dict__ = {k: v for k, v in new.__dict__.items()
                        if k not in ("covariance_matrix", "precision_matrix", "scale_tril")}
        new.__dict__["loc"] = self.loc.expand(batch_shape + (d,))
        new.__dict__[self._given] = getattr(self, self._given).expand(batch_shape + (d, d))
        new._batch_shape = batch_shape
        return new

    mean = mode = property(lambda self: self.loc)

    @property
    def variance(self):  # Sigma_ii = sum_j L_ij^2
        return self.scale_tril.pow(2).sum(-1)

    def rsample(self, sample_shape=()):
        eps = self._noise(lambda g, shape: g.standard_normal(shape), sample_shape)
        return self.loc + (self.scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self):  # log |Sigma|^(1/2) = sum log L_ii
        return self.scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        value = self._validate_sample(value)
        diff = value - self.loc
        L = self.scale_tril.expand(diff.shape + (diff.shape[-1],))
        z = solve_triangular(L, diff.unsqueeze(-1)).squeeze(-1)  # L^-1 (x - loc)
        d = self.event_shape[0]
        return -0.5 * (d * math.log(2 * math.pi) + z.pow(2).sum(-1)) - self._half_log_det()

    def entropy(self):  # H = d/2 (1 + log 2 pi) + 1/2 log |Sigma|
        d = self.event_shape[0]
        return 0.5 * d * (1.0 + math.log(2 * math.pi)) + self._half_log_det()

    def __repr__(self):
        return f"MultivariateNormal(loc: size {fmt_shape(self.loc.shape)}, " \
               f"{self._given}: size {fmt_shape(getattr(self, self._given).shape)})"
