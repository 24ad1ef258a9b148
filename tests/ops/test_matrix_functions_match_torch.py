"""``nb.linalg`` and the matrix functions of ``nb`` and Tensor (det, inverse, solve, pinv,
norms, cholesky, qr, eigh, svd, lstsq, cov...) against PyTorch: values, dtypes, shapes and
gradients on odd, non-square, batched float64 matrices.

A decomposition is unique only up to the signs of its vectors (and a column of Q or U may
come out negated on another machine's LAPACK), so factors are compared through what does
not depend on the signs: the reconstruction, products such as Q diag(c) Q^T, |Q|, and the
gradients of losses built from those.
(tests/ops/test_matrix_functions_forward_and_gradients.py checks them without PyTorch.)"""
import math

import numpy as np
import pytest
from against_torch import check, normal

import nnbook as nb

torch = pytest.importorskip("torch")

TOL = 1e-9  # LAPACK's decompositions differ in the last bits between machines


def square(*shape, shift=3.0):
    """Well-conditioned square matrices: random plus shift * I."""
    return lambda rng: rng.standard_normal(shape) + shift * np.eye(shape[-1])


def spd(*shape):
    """Symmetric positive definite matrices with well-separated eigenvalues."""
    def make(rng):
        n = shape[-1]
        q, _ = np.linalg.qr(rng.standard_normal(shape))
        values = np.arange(1, n + 1) * 1.5 + rng.uniform(0, 0.5, shape[:-1])
        return (q * values[..., None, :]) @ np.swapaxes(q, -1, -2)
    return make


def symmetric(*shape):
    def make(rng):
        a = rng.standard_normal(shape)
        return a + np.swapaxes(a, -1, -2)
    return make


def weights(n):
    return np.linspace(0.5, 2.0, n)


def gram(m, vectors, c):
    """vectors diag(c) vectors^T: the same for either sign of each vector (column)."""
    return (vectors * m.tensor(c, dtype=vectors.dtype)) @ vectors.transpose(-1, -2)


LINALG = {
    # one matrix in, one out
    "det": ([square(2, 5, 5)], lambda m, a: m.linalg.det(a)),
    "det_2d_method_and_function": ([square(5, 5)], lambda m, a: (a.det(), m.det(a))),
    "det_singular_gradient_is_the_cofactors": (
        [lambda rng: np.outer(rng.standard_normal(4), rng.standard_normal(4))],
        lambda m, a: m.linalg.det(a)),
    "det_empty": ([normal(3, 0, 0)], lambda m, a: m.linalg.det(a)),
    "slogdet": ([normal(3, 4, 4)], lambda m, a: tuple(m.linalg.slogdet(a))),
    "slogdet_top_level_and_method": ([normal(5, 5)],
                                     lambda m, a: (tuple(m.slogdet(a)), tuple(a.slogdet()))),
    "logdet": ([spd(2, 5, 5)], lambda m, a: (m.logdet(a), a.logdet())),
    "logdet_negative_det_is_nan": ([lambda rng: np.diag([-1.0, 2.0, 3.0])],
                                   lambda m, a: m.logdet(a)),
    "inv": ([square(2, 5, 5)], lambda m, a: m.linalg.inv(a)),
    "inverse": ([square(5, 5)], lambda m, a: (m.inverse(a), a.inverse())),
    "inv_ex": ([square(5, 5)], lambda m, a: tuple(m.linalg.inv_ex(a))),
    "inv_empty": ([normal(0, 0)], lambda m, a: m.linalg.inv(a)),
    "solve_matrix": ([square(5, 5), normal(5, 3)], lambda m, a, b: m.linalg.solve(a, b)),
    "solve_batched_broadcast": ([square(3, 1, 5, 5), normal(4, 5, 2)],
                                lambda m, a, b: m.linalg.solve(a, b)),
    "solve_vector": ([square(5, 5), normal(5)], lambda m, a, b: m.linalg.solve(a, b)),
    "solve_batch_of_vectors": ([square(3, 5, 5), normal(3, 5)],
                               lambda m, a, b: m.linalg.solve(a, b)),
    "solve_right": ([square(5, 5), normal(3, 5)],
                    lambda m, a, b: m.linalg.solve(a, b, left=False)),
    "pinv_tall": ([normal(7, 5)], lambda m, a: m.linalg.pinv(a)),
    "pinv_wide_batched": ([normal(2, 3, 5)], lambda m, a: m.linalg.pinv(a)),
    "pinverse": ([normal(5, 7)], lambda m, a: (m.pinverse(a), a.pinverse())),
    "pinv_rank_deficient_value": (
        [lambda rng: rng.standard_normal((6, 2)) @ rng.standard_normal((2, 4))],
        lambda m, a: m.linalg.pinv(a.detach())),
    "matrix_rank": ([lambda rng: rng.standard_normal((3, 7, 2)) @ rng.standard_normal(
        (3, 2, 5))], lambda m, a: (m.linalg.matrix_rank(a), m.linalg.matrix_rank(a, atol=1.0),
                                   m.linalg.matrix_rank(a, rtol=0.5))),
    "matrix_power": ([normal(2, 5, 5)], lambda m, a: (
        m.linalg.matrix_power(a, 0), m.linalg.matrix_power(a, 1),
        m.linalg.matrix_power(a, 6), a.matrix_power(3), m.matrix_power(a, 2))),
    "matrix_power_negative": ([square(5, 5)], lambda m, a: m.linalg.matrix_power(a, -3)),
    "multi_dot": ([normal(7), normal(7, 5), normal(5, 3), normal(3)],
                  lambda m, a, b, c, d: m.linalg.multi_dot([a, b, c, d])),
    "multi_dot_matrices": ([normal(7, 5), normal(5, 3), normal(3, 2)],
                           lambda m, a, b, c: m.linalg.multi_dot([a, b, c])),
    "cross_broadcasts": ([normal(4, 1, 3), normal(1, 5, 3)],
                         lambda m, a, b: m.linalg.cross(a, b)),
    "cross_dim": ([normal(3, 5), normal(3, 5)], lambda m, a, b: m.linalg.cross(a, b, dim=0)),
    "vecdot": ([normal(4, 1, 5), normal(3, 5)], lambda m, a, b: m.linalg.vecdot(a, b)),
    "vecdot_dim": ([normal(5, 3), normal(5, 3)],
                   lambda m, a, b: m.linalg.vecdot(a, b, dim=-2)),
    "diagonal": ([normal(2, 7, 5)], lambda m, a: (
        m.linalg.diagonal(a), m.linalg.diagonal(a, offset=1),
        m.linalg.diagonal(a, offset=-2, dim1=0, dim2=-1))),
    # norms
    "vector_norm": ([normal(3, 7, 5)], lambda m, a: (
        m.linalg.vector_norm(a), m.linalg.vector_norm(a, 3, dim=-1),
        m.linalg.vector_norm(a, 1, dim=(0, 2), keepdim=True),
        m.linalg.vector_norm(a, math.inf, dim=1), m.linalg.vector_norm(a, -math.inf, dim=0),
        m.linalg.vector_norm(a, 0.5, dim=-2), m.linalg.vector_norm(a, 0))),
    "vector_norm_dtype": ([lambda rng: rng.standard_normal((7, 5)).astype(np.float32)],
                          lambda m, a: m.linalg.vector_norm(a, dtype=m.float64), 1e-6),
    "matrix_norm": ([normal(3, 7, 5)], lambda m, a: tuple(
        m.linalg.matrix_norm(a, ord) for ord in
        ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf))),
    "matrix_norm_dims_keepdim": ([normal(7, 3, 5)], lambda m, a: tuple(
        m.linalg.matrix_norm(a, ord, dim=(2, 0), keepdim=True) for ord in
        ("fro", "nuc", 2, 1, -math.inf))),
    "matrix_norm_empty": ([normal(2, 0, 3), normal(3, 0)], lambda m, a, b: tuple(
        m.linalg.matrix_norm(a, ord) for ord in ("fro", "nuc", 2, 1, -1, math.inf)) + (
        m.linalg.matrix_norm(b, -math.inf),)),
    "norm_0d": ([normal()], lambda m, a: (m.linalg.norm(a), m.linalg.vector_norm(a, 3))),
    "norm": ([normal(7, 5), normal(5), normal(3, 7, 5)], lambda m, a, v, b: (
        m.linalg.norm(a), m.linalg.norm(a, "nuc"), m.linalg.norm(a, 1),
        m.linalg.norm(v, 3), m.linalg.norm(v, -math.inf), m.linalg.norm(b),
        m.linalg.norm(b, dim=1), m.linalg.norm(b, 2, dim=(-1, 0)),
        m.linalg.norm(b, 1, dim=-1, keepdim=True))),
    "tensor_norm_nuc": ([normal(7, 5), normal(3, 7, 5)], lambda m, a, b: (
        a.norm("nuc"), m.norm(a, p="nuc"), b.norm("nuc", dim=(2, 0), keepdim=True),
        b.norm(p="nuc", dim=(-1, -2)))),
    # decompositions: factors through what does not depend on their signs
    "cholesky": ([spd(2, 5, 5)], lambda m, a: (m.linalg.cholesky(a),
                                               m.linalg.cholesky(a, upper=True))),
    "eigvalsh": ([symmetric(2, 5, 5)], lambda m, a: (m.linalg.eigvalsh(a),
                                                     m.linalg.eigvalsh(a, UPLO="U"))),
    "eigh_reads_one_triangle": ([normal(2, 5, 5)], lambda m, a: (
        m.linalg.eigvalsh(a), m.linalg.eigvalsh(a, "U"),
        gram(m, m.linalg.eigh(a)[1], weights(5)),
        gram(m, m.linalg.eigh(a, UPLO="U").eigenvectors, weights(5)))),
    "eigh_values_and_vectors_together": ([symmetric(5, 5)], lambda m, a: (
        lambda r: (r.eigenvalues, r[1].abs(), gram(m, r[1], weights(5))))(m.linalg.eigh(a))),
    "svdvals": ([normal(2, 7, 5)], lambda m, a: m.linalg.svdvals(a)),
    "svd_tall_reduced": ([normal(7, 5)], lambda m, a: (lambda u, s, vh: (
        s, (u * s) @ vh, gram(m, u, weights(5)), gram(m, vh.mT, weights(5)), u.abs()))(
        *m.linalg.svd(a, full_matrices=False))),
    "svd_wide_full_batched": ([normal(2, 3, 5)], lambda m, a: (lambda u, s, vh: (
        s, u.shape, vh.shape, (u * s.unsqueeze(-2)) @ vh[..., :3, :], gram(m, u, weights(3)),
        gram(m, vh[..., :3, :].mT, weights(3))))(*m.linalg.svd(a))),
    "svd_old_convention": ([normal(7, 5)], lambda m, a: (lambda u, s, v: (
        s, (u * s) @ v.mT, gram(m, u, weights(5)), gram(m, v, weights(5))))(*m.svd(a))),
    "svd_old_convention_some_false_method": ([normal(5, 7)], lambda m, a: (
        lambda u, s, v: (s, u.shape, v.shape, (u * s) @ v[:, :5].mT,
                         gram(m, v[:, :5], weights(5))))(*a.svd(some=False))),
    "svd_compute_uv_false": ([normal(7, 5)], lambda m, a: (
        lambda u, s, v: (s, u.shape, v.shape, u.abs().sum().detach()))(
        *m.svd(a, compute_uv=False))),
    "qr_tall": ([normal(2, 7, 5)], lambda m, a: (lambda q, r: (
        q @ r, r.abs(), q.abs(), gram(m, q, weights(5))))(*m.linalg.qr(a))),
    "qr_wide": ([normal(5, 7)], lambda m, a: (lambda q, r: (
        q @ r, r.abs(), q.abs()))(*m.linalg.qr(a))),
    "qr_square_complete_and_r": ([normal(5, 5)], lambda m, a: (
        (lambda q, r: (q @ r, r.abs()))(*m.linalg.qr(a, mode="complete")),
        m.linalg.qr(a.detach(), mode="r")[1].abs(), m.linalg.qr(a, mode="r")[0].shape)),
    "lstsq": ([normal(7, 5), normal(7, 3)], lambda m, a, b: (lambda r: (
        r.solution, r.rank, r.residuals.shape, r.singular_values.shape))(
        m.linalg.lstsq(a, b))),
    "lstsq_drivers": ([normal(7, 5), normal(7, 3)], lambda m, a, b: tuple(
        (r.solution, r.residuals, r.rank, r.singular_values.detach()) for r in
        (m.linalg.lstsq(a, b, driver=d) for d in ("gels", "gelsd", "gelss")))),
    "lstsq_batched_wide": ([normal(2, 3, 5), normal(2, 3, 2)],
                           lambda m, a, b: m.linalg.lstsq(a, b).solution),
    # covariance
    "cov": ([normal(3, 7)], lambda m, a: (m.cov(a), a.cov(correction=0),
                                          m.cov(a[0]), m.corrcoef(a), a.corrcoef())),
    "cov_weights": ([normal(3, 7), lambda rng: rng.integers(0, 4, 7),
                     lambda rng: rng.uniform(0.1, 2, 7)],
                    lambda m, a, fw, aw: (m.cov(a, fweights=fw), m.cov(a, aweights=aw),
                                          m.cov(a, correction=2, fweights=fw, aweights=aw))),
}


# PyTorch's deprecated spellings: they warn, in both libraries
DEPRECATED = {
    "chain_matmul": ([normal(7, 5), normal(5, 3), normal(3, 2)],
                     lambda m, a, b, c: m.chain_matmul(a, b, c)),
    "cholesky_top_level_and_method": ([spd(5, 5)],
                                      lambda m, a: (m.cholesky(a), a.cholesky(upper=True))),
    "qr_old_convention": ([normal(7, 5)], lambda m, a: (lambda q, r: (
        q @ r, r.abs(), q.shape))(*m.qr(a))),
    "qr_complete_values": ([normal(7, 5)], lambda m, a: (lambda q, r: (
        (q @ r).detach(), q.shape, r.abs().detach()))(*a.qr(some=False))),
}


@pytest.mark.parametrize("name", LINALG)
def test_matches_torch(rng, name):
    makers, fn, *tol = LINALG[name]
    check(fn, makers, rng, tol=tol[0] if tol else TOL)


@pytest.mark.parametrize("name", DEPRECATED)
def test_deprecated_spellings_warn_and_match_torch(rng, name):
    makers, fn = DEPRECATED[name]
    with pytest.warns(UserWarning, match="deprecated") as caught:
        check(fn, makers, rng, tol=TOL)
    assert any("nb." in str(w.message) for w in caught)  # nnbook's own warning came too


@pytest.mark.parametrize("fn", [
    lambda m, a: m.linalg.eigh(a)[1],
    lambda m, a: m.linalg.svd(a, full_matrices=False)[0],
    lambda m, a: m.linalg.svd(a, full_matrices=False)[2],
], ids=["eigh", "svd_U", "svd_Vh"])
def test_repeated_values_give_a_non_finite_gradient_as_torch(fn):
    # the identity's eigenvectors (singular vectors) are not unique: any rotation will do,
    # so a loss that depends on them has no derivative; both libraries give inf or NaN
    grads = []
    for m in (nb, torch):
        a = m.tensor(np.eye(4), requires_grad=True)
        fn(m, a)[..., 0].sum().backward()
        grads.append(np.asarray(a.grad))
    assert not np.isfinite(grads[0]).all() and not np.isfinite(grads[1]).all()


def f32(make):
    return lambda rng: make(rng).astype(np.float32)


FLOAT32 = {
    "det_inv_slogdet": ([f32(square(2, 5, 5))], lambda m, a: (
        m.linalg.det(a), m.linalg.inv(a), m.linalg.slogdet(a).logabsdet)),
    "solve_pinv": ([f32(square(5, 5)), f32(normal(5, 3))], lambda m, a, b: (
        m.linalg.solve(a, b), m.linalg.pinv(b))),
    "cholesky_eigh": ([f32(spd(5, 5))], lambda m, a: (
        m.linalg.cholesky(a), m.linalg.eigvalsh(a), gram(m, m.linalg.eigh(a)[1], weights(5)))),
    "svd_qr_norms": ([f32(normal(7, 5))], lambda m, a: (
        m.linalg.svdvals(a), gram(m, m.linalg.svd(a, full_matrices=False)[0], weights(5)),
        m.linalg.qr(a)[1].abs(), m.linalg.matrix_norm(a, "nuc"), m.cov(a))),
}


@pytest.mark.parametrize("name", FLOAT32)
def test_float32_stays_float32_and_matches_torch(rng, name):
    makers, fn = FLOAT32[name]
    check(fn, makers, rng, tol=2e-4)
