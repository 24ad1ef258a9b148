"""``nb.linalg`` and the matrix functions of ``nb`` and Tensor without PyTorch: values
against numpy's own linear algebra, every gradient by gradcheck on odd, non-square,
batched float64 matrices (decompositions through losses that do not depend on the signs
of their vectors), and the errors a user can cause.
(tests/ops/test_matrix_functions_match_torch.py compares them with PyTorch.)"""
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import BackwardError, DTypeError, InputError, ShapeError

ROOT = Path(__file__).resolve().parents[2]


def t(array, grad=False):
    return nb.tensor(np.asarray(array, dtype=np.float64), requires_grad=grad)


def square(rng, *shape):
    return rng.standard_normal(shape) + 3 * np.eye(shape[-1])


def spd(rng, *shape):
    a = rng.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def sym(x):
    """The symmetric part: gradchecks of eigh and cholesky perturb both triangles."""
    return (x + x.mT) / 2


def gram(vectors, c):
    """vectors diag(c) vectors^T: the same for either sign of each column."""
    return (vectors * t(c)) @ vectors.mT


# -- values ------------------------------------------------------------------------------
def test_det_inv_solve_and_slogdet_match_numpy(rng):
    a, b = square(rng, 2, 5, 5), rng.standard_normal((2, 5, 3))
    np.testing.assert_allclose(nb.linalg.det(t(a)).numpy(), np.linalg.det(a), rtol=1e-10)
    np.testing.assert_allclose(nb.linalg.inv(t(a)).numpy(), np.linalg.inv(a), atol=1e-12)
    np.testing.assert_allclose(nb.linalg.solve(t(a), t(b)).numpy(), np.linalg.solve(a, b),
                               atol=1e-12)
    vector = rng.standard_normal((2, 5))
    np.testing.assert_allclose(nb.linalg.solve(t(a), t(vector)).numpy(),
                               np.linalg.solve(a, vector[..., None])[..., 0], atol=1e-12)
    right = rng.standard_normal((3, 5))
    np.testing.assert_allclose(nb.linalg.solve(t(a[0]), t(right), left=False).numpy() @ a[0],
                               right, atol=1e-12)
    sign, logabs = nb.linalg.slogdet(t(-a))
    np.testing.assert_allclose(sign.numpy(), np.sign(np.linalg.det(-a)))
    np.testing.assert_allclose(logabs.numpy(), np.log(np.abs(np.linalg.det(a))), rtol=1e-10)
    assert np.isnan(nb.logdet(t(np.diag([-1.0, 2.0]))).item())
    assert nb.logdet(t(np.zeros((2, 2)))).item() == -math.inf


def test_pinv_matrix_rank_lstsq_and_products_match_numpy(rng):
    a = rng.standard_normal((7, 5))
    low_rank = rng.standard_normal((7, 2)) @ rng.standard_normal((2, 5))
    np.testing.assert_allclose(nb.linalg.pinv(t(a)).numpy(), np.linalg.pinv(a), atol=1e-12)
    np.testing.assert_allclose(nb.linalg.pinv(t(low_rank)).numpy(), np.linalg.pinv(low_rank),
                               atol=1e-10)
    assert nb.linalg.matrix_rank(t(low_rank)).item() == 2
    assert nb.linalg.matrix_rank(t(a)).dtype == nb.int64
    b = rng.standard_normal((7, 3))
    np.testing.assert_allclose(nb.linalg.lstsq(t(a), t(b)).solution.numpy(),
                               np.linalg.lstsq(a, b, rcond=None)[0], atol=1e-12)
    m = rng.standard_normal((2, 5, 5))
    for n in (0, 1, 2, 5, -2):
        np.testing.assert_allclose(nb.linalg.matrix_power(t(m), n).numpy(),
                                   np.linalg.matrix_power(m, n), rtol=1e-9, atol=1e-9)
    chain = [rng.standard_normal(s) for s in ((7,), (7, 5), (5, 3), (3,))]
    np.testing.assert_allclose(nb.linalg.multi_dot([t(x) for x in chain]).numpy(),
                               np.linalg.multi_dot(chain), rtol=1e-12)


def test_norms_match_numpy(rng):
    a = rng.standard_normal((3, 7, 5))
    for ord in ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf):
        np.testing.assert_allclose(nb.linalg.matrix_norm(t(a), ord).numpy(),
                                   np.linalg.norm(a, ord, axis=(-2, -1)), rtol=1e-12)
        np.testing.assert_allclose(
            nb.linalg.matrix_norm(t(a), ord, dim=(2, 0), keepdim=True).numpy(),
            np.linalg.norm(a, ord, axis=(2, 0), keepdims=True), rtol=1e-12)
    for ord in (1, 2, 3.5, math.inf, -math.inf, 0):
        np.testing.assert_allclose(nb.linalg.vector_norm(t(a), ord, dim=-2).numpy(),
                                   np.linalg.norm(a, ord, axis=-2), rtol=1e-12)
    np.testing.assert_allclose(nb.linalg.norm(t(a)).numpy(), np.linalg.norm(a.ravel()))
    np.testing.assert_allclose(nb.linalg.norm(t(a[0]), "nuc").numpy(),
                               np.linalg.norm(a[0], "nuc"))


def test_decompositions_rebuild_their_matrix(rng):
    a = rng.standard_normal((2, 7, 5))
    for full in (False, True):
        u, s, vh = nb.linalg.svd(t(a), full_matrices=full)
        np.testing.assert_allclose((u[..., :5] * s.unsqueeze(-2)) @ vh[..., :5, :], a,
                                   atol=1e-12)
        np.testing.assert_allclose(s.numpy(), np.linalg.svd(a, compute_uv=False), atol=1e-12)
    u, s, v = nb.svd(t(a))  # the old convention: V, not V^T, and reduced by default
    assert (u.shape, v.shape) == ((2, 7, 5), (2, 5, 5))
    np.testing.assert_allclose(((u * s.unsqueeze(-2)) @ v.mT).numpy(), a, atol=1e-12)
    for mode in ("reduced", "complete"):
        q, r = nb.linalg.qr(t(a), mode=mode)
        np.testing.assert_allclose((q @ r).numpy(), a, atol=1e-12)
        np.testing.assert_allclose((q.mT @ q).numpy(), np.eye(q.shape[-1]) + 0 * q.numpy()[
            ..., :q.shape[-1], :], atol=1e-12)
        np.testing.assert_array_equal(np.tril(r.numpy(), -1), 0)
    c = spd(rng, 2, 5, 5)
    lower = nb.linalg.cholesky(t(c))
    np.testing.assert_allclose((lower @ lower.mT).numpy(), c, atol=1e-12)
    np.testing.assert_array_equal(nb.linalg.cholesky(t(c), upper=True).numpy(),
                                  lower.mT.numpy())
    values, vectors = nb.linalg.eigh(t(c))
    np.testing.assert_allclose(values.numpy(), np.linalg.eigvalsh(c), atol=1e-12)
    np.testing.assert_allclose(gram(vectors, np.ones(5)).numpy(), np.broadcast_to(
        np.eye(5), (2, 5, 5)), atol=1e-12)
    np.testing.assert_allclose((vectors * values.unsqueeze(-2) @ vectors.mT).numpy(), c,
                               atol=1e-10)
    upper_only = np.triu(c)  # UPLO='U' reads the upper triangle alone
    np.testing.assert_allclose(nb.linalg.eigvalsh(t(upper_only), UPLO="U").numpy(),
                               np.linalg.eigvalsh(c), atol=1e-12)


def test_cov_and_corrcoef_match_numpy(rng):
    x = rng.standard_normal((3, 7))
    fw, aw = rng.integers(1, 4, 7), rng.uniform(0.1, 2, 7)
    np.testing.assert_allclose(nb.cov(t(x)).numpy(), np.cov(x), rtol=1e-12)
    np.testing.assert_allclose(t(x).cov(correction=0).numpy(), np.cov(x, ddof=0), rtol=1e-12)
    np.testing.assert_allclose(
        nb.cov(t(x), correction=2, fweights=nb.tensor(fw), aweights=t(aw)).numpy(),
        np.cov(x, ddof=2, fweights=fw, aweights=aw), rtol=1e-12)
    np.testing.assert_allclose(nb.cov(t(x[0])).numpy(), np.cov(x[0]), rtol=1e-12)
    np.testing.assert_allclose(nb.corrcoef(t(x)).numpy(), np.corrcoef(x), rtol=1e-12)


# -- gradients ---------------------------------------------------------------------------
C5, C3 = np.linspace(0.5, 2.0, 5), np.linspace(0.5, 2.0, 3)
GRADCHECKS = {
    "det": (lambda a: nb.linalg.det(a), lambda rng: [square(rng, 2, 5, 5)]),
    "det_singular": (lambda a: nb.linalg.det(a), lambda rng: [
        np.outer(rng.standard_normal(4), rng.standard_normal(4))]),
    "slogdet": (lambda a: nb.linalg.slogdet(a).logabsdet, lambda rng: [square(rng, 2, 5, 5)]),
    "logdet": (lambda a: nb.logdet(a), lambda rng: [spd(rng, 5, 5)]),
    "inv": (lambda a: nb.linalg.inv(a), lambda rng: [square(rng, 2, 5, 5)]),
    "solve": (lambda a, b: nb.linalg.solve(a, b), lambda rng: [
        square(rng, 3, 1, 5, 5), rng.standard_normal((2, 5, 2))]),
    "solve_vector": (lambda a, b: nb.linalg.solve(a, b), lambda rng: [
        square(rng, 5, 5), rng.standard_normal(5)]),
    "pinv_tall": (lambda a: nb.linalg.pinv(a), lambda rng: [rng.standard_normal((7, 5))]),
    "pinv_wide": (lambda a: nb.pinverse(a), lambda rng: [rng.standard_normal((2, 3, 5))]),
    "matrix_power": (lambda a: nb.linalg.matrix_power(a, -3), lambda rng: [
        square(rng, 5, 5)]),
    "matrix_norms": (lambda a: [nb.linalg.matrix_norm(a, o) for o in
                                ("fro", "nuc", 2, -2, 1, math.inf)],
                     lambda rng: [rng.standard_normal((2, 7, 5))]),
    "cholesky": (lambda a: nb.linalg.cholesky(sym(a)), lambda rng: [spd(rng, 2, 5, 5)]),
    "eigvalsh": (lambda a: nb.linalg.eigvalsh(sym(a)), lambda rng: [spd(rng, 2, 5, 5)]),
    "eigh_vectors": (lambda a: gram(nb.linalg.eigh(sym(a)).eigenvectors, C5),
                     lambda rng: [spd(rng, 2, 5, 5)]),
    "svdvals": (lambda a: nb.linalg.svdvals(a), lambda rng: [rng.standard_normal((2, 7, 5))]),
    "svd_u_tall": (lambda a: gram(nb.linalg.svd(a, full_matrices=False).U, C5),
                   lambda rng: [rng.standard_normal((7, 5))]),
    "svd_vh_wide": (lambda a: gram(nb.linalg.svd(a, full_matrices=False).Vh.mT, C3),
                    lambda rng: [rng.standard_normal((3, 5))]),
    "svd_u_wide_full": (lambda a: gram(nb.linalg.svd(a).U, C3),
                        lambda rng: [rng.standard_normal((2, 3, 5))]),
    "svd_vh_tall": (lambda a: gram(nb.svd(a).V, C5), lambda rng: [rng.standard_normal((7, 5))]),
    "qr_tall": (lambda a: (lambda q, r: [gram(q, C5), r.abs()])(*nb.linalg.qr(a)),
                lambda rng: [rng.standard_normal((2, 7, 5))]),
    "qr_wide": (lambda a: (lambda q, r: [gram(q, C3), r.abs()])(*nb.linalg.qr(a)),
                lambda rng: [rng.standard_normal((3, 5))]),
    "lstsq": (lambda a, b: nb.linalg.lstsq(a, b).solution, lambda rng: [
        rng.standard_normal((7, 5)), rng.standard_normal((7, 2))]),
    "cov_corrcoef": (lambda x, w: [nb.cov(x, aweights=w), nb.corrcoef(x)], lambda rng: [
        rng.standard_normal((3, 7)), rng.uniform(0.5, 2, 7)]),
}


def _as_sum(out):
    return sum((o * o).sum() for o in out) if isinstance(out, list) else out


@pytest.mark.parametrize("name", GRADCHECKS)
def test_gradients_pass_gradcheck(rng, name):
    fn, make = GRADCHECKS[name]
    inputs = [t(a, grad=True) for a in make(rng)]
    assert nb.autograd.gradcheck(lambda *x: _as_sum(fn(*x)), inputs)


def test_repeated_eigenvalues_give_a_non_finite_gradient():
    # any rotation of the identity's eigenvectors will do: they have no derivative
    a = t(np.eye(3), grad=True)
    nb.linalg.eigh(a).eigenvectors[:, 0].sum().backward()
    assert not np.isfinite(a.grad.numpy()).all()
    b = t(np.eye(3), grad=True)
    nb.linalg.eigvalsh(b).sum().backward()  # the eigenvalues' own gradient stays finite
    np.testing.assert_allclose(b.grad.numpy(), np.eye(3), atol=1e-12)


def test_qr_without_a_derivative_says_so(rng):
    a = t(rng.standard_normal((7, 5)), grad=True)
    q, r = nb.linalg.qr(a, mode="complete")
    with pytest.raises(BackwardError, match="mode='complete' of a 7 x 5 matrix has no "
                       "derivative"):
        q.sum().backward()


# -- errors ------------------------------------------------------------------------------
def test_singular_not_square_and_not_positive_definite_are_errors_with_hints(rng):
    singular = t(np.ones((3, 3)), grad=True)
    with pytest.raises(InputError, match=r"(?s)linalg_inv.*singular.*hint: .*lstsq"):
        nb.linalg.inv(singular)
    with pytest.raises(InputError, match="singular"):
        nb.linalg.solve(singular, t(np.ones((3, 2))))
    with pytest.raises(InputError, match="singular"):
        singular.inverse()
    with pytest.raises(ShapeError, match=r"(?s)square matrices.*\(7, 5\).*hint: .*pinv"):
        nb.linalg.det(t(rng.standard_normal((7, 5))))
    with pytest.raises(ShapeError, match="square"):
        nb.linalg.eigh(t(rng.standard_normal((2, 7, 5))))
    with pytest.raises(InputError, match=r"(?s)not positive definite.*hint: .*eigvalsh"):
        nb.linalg.cholesky(t(-np.eye(3)))
    with pytest.raises(DTypeError, match=r"floating point.*int64"):
        nb.linalg.inv(nb.tensor([[1, 2], [3, 4]]))
    with pytest.raises(ShapeError, match=r"at least 2 dimensions"):
        nb.linalg.svd(t([1.0, 2.0]))
    assert singular.grad is None and singular._version == 0
    with pytest.raises(nb.linalg.LinAlgError):  # as PyTorch code catches it
        nb.linalg.cholesky(t(np.zeros((2, 2))))


def test_wrong_arguments_are_errors(rng):
    a = t(rng.standard_normal((5, 5)))
    with pytest.raises(ShapeError, match="B needs 5 rows"):
        nb.linalg.solve(a, t(rng.standard_normal((4, 2))))
    with pytest.raises(ShapeError, match="with left=False"):
        nb.linalg.solve(a, t(np.ones(5)), left=False)
    with pytest.raises(DTypeError, match="vecdot needs floating point"):
        nb.linalg.vecdot(nb.arange(3), nb.arange(3))
    with pytest.raises(InputError, match="UPLO must be 'L' or 'U'"):
        nb.linalg.eigh(a, UPLO="lower")
    with pytest.raises(InputError, match="is not a matrix norm"):
        nb.linalg.matrix_norm(a, 3)
    with pytest.raises(InputError, match="ord must be a number"):
        nb.linalg.vector_norm(a, "fro")
    with pytest.raises(InputError, match="mode must be"):
        nb.linalg.qr(a, mode="economic")
    with pytest.raises(DTypeError, match="n must be an int"):
        a.matrix_power(2.0)
    with pytest.raises(ShapeError, match="tensors\\[1\\] must be 2-D"):
        nb.linalg.multi_dot([a, t(np.ones(5)), a])
    with pytest.raises(ShapeError, match="one weight per observation"):
        nb.cov(t(rng.standard_normal((3, 7))), aweights=t(np.ones(6)))
    with pytest.raises(InputError, match="must be >= 0"):
        nb.cov(t(rng.standard_normal((3, 7))), aweights=t(-np.ones(7)))
    with pytest.raises(ShapeError, match="matrices \\(2-D\\)"):
        nb.chain_matmul(a, t(np.ones(5)))


@pytest.mark.parametrize("call", [
    lambda a, out: nb.linalg.det(a, out=out), lambda a, out: nb.linalg.norm(a, out=out),
    lambda a, out: nb.linalg.svd(a, out=out), lambda a, out: nb.linalg.solve(a, a, out=out),
    lambda a, out: nb.linalg.multi_dot([a, a], out=out)])
def test_out_is_refused_and_out_none_is_accepted(call):
    a = t(np.eye(3) * 2)
    call(a, None)
    out = nb.zeros(3, 3)
    with pytest.raises(InputError, match=r"(?s)out= is not supported.*nb\.linalg\."):
        call(a, out)
    assert not out.numpy().any()


def test_a_name_nb_linalg_lacks_says_so():
    with pytest.raises(AttributeError, match=r"(?s)nb.linalg has no attribute 'eigvalshh'.*"
                       r"did you mean 'eigvalsh'"):
        getattr(nb.linalg, "eigvalshh")  # noqa: B009
    with pytest.raises(AttributeError, match="docs/pytorch.md"):
        getattr(nb.linalg, "matrix_exp")  # noqa: B009


def test_nb_linalg_loads_on_first_use():
    code = ("import sys, nnbook as nb; assert 'nnbook.linalg' not in sys.modules; "
            "print(nb.linalg.norm(nb.tensor([3.0, 4.0])).item())")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "5.0"
