"""Shape ops (split, flip, roll, repeat...) and matrix ops (einsum, mm, diag, tril, cdist):
forward against numpy, backward by gradcheck on odd non-square float64 shapes, errors."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import DimError, DTypeError, InputError, ShapeError


def _x(rng, *shape):
    return nb.tensor(rng.standard_normal(shape), requires_grad=True)


# (name, nnbook function, numpy reference) on a (3, 7, 5) float64 input
MOVES = [
    ("flip", lambda x: x.flip(0, 2), lambda v: v[::-1, :, ::-1]),
    ("roll", lambda x: nb.roll(x, (2, -1), (1, 2)), lambda v: np.roll(v, (2, -1), (1, 2))),
    ("roll_flat", lambda x: x.roll(4), lambda v: np.roll(v, 4)),
    ("repeat", lambda x: x.repeat(2, 1, 1, 3), lambda v: np.tile(v, (2, 1, 1, 3))),
    ("tile", lambda x: nb.tile(x, (2, 1)), lambda v: np.tile(v, (2, 1))),
    ("repeat_interleave", lambda x: x.repeat_interleave(2, dim=1),
     lambda v: np.repeat(v, 2, 1)),
    ("repeat_interleave_counts", lambda x: x.repeat_interleave(nb.tensor([0, 2, 1]), dim=0),
     lambda v: np.repeat(v, [0, 2, 1], 0)),
    ("movedim", lambda x: x.movedim(0, -1), lambda v: np.moveaxis(v, 0, -1)),
    ("unflatten", lambda x: x.flatten(1).unflatten(1, (5, 7)), lambda v: v.reshape(3, 5, 7)),
    ("narrow", lambda x: x.narrow(1, 2, 4), lambda v: v[:, 2:6]),
    ("tril", lambda x: x.tril(1), lambda v: np.tril(v, 1)),
    ("triu", lambda x: nb.triu(x, -2), lambda v: np.triu(v, -2)),
    ("diagonal", lambda x: x.diagonal(1, 1, 2), lambda v: np.diagonal(v, 1, 1, 2)),
    ("einsum_batch_trace", lambda x: nb.einsum("bii->b", x[:, :5]),
     lambda v: np.einsum("bii->b", v[:, :5])),
    ("einsum_permute_sum", lambda x: nb.einsum("ijk->kj", x), lambda v: v.sum(0).T),
]


@pytest.mark.parametrize("name,fn,ref", MOVES, ids=[m[0] for m in MOVES])
def test_forward_matches_numpy_and_gradients_check(rng, name, fn, ref):
    x = _x(rng, 3, 7, 5)
    np.testing.assert_allclose(fn(x).detach().numpy(), ref(x.detach().numpy()), rtol=1e-12)
    assert nb.gradcheck(fn, (x,))


def test_split_chunk_and_unbind_are_views_that_cover_the_tensor(rng):
    x = _x(rng, 3, 7, 5)
    for pieces in (x.split(3, 1), nb.split(x, [2, 0, 5], 1), x.chunk(3, 1)):
        assert [p.shape[1] for p in pieces] in ([3, 3, 1], [2, 0, 5])
        np.testing.assert_array_equal(nb.cat(pieces, 1).detach().numpy(), x.detach().numpy())
    assert len(x.unbind(2)) == 5 and x.unbind(2)[3].shape == (3, 7)
    assert nb.gradcheck(lambda x: x.split([2, 5], 1)[1] * 2, (x,))
    assert nb.gradcheck(lambda x: nb.unbind(x, 0)[1], (x,))


# (name, nnbook function of two tensors, numpy reference, shapes)
PRODUCTS = [
    ("dot", lambda a, b: nb.dot(a, b), np.dot, ((7,), (7,))),
    ("mm", lambda a, b: a.mm(b), np.matmul, ((7, 5), (5, 3))),
    ("bmm", lambda a, b: nb.bmm(a, b), np.matmul, ((3, 7, 5), (3, 5, 2))),
    ("mv", lambda a, b: a.mv(b), np.matmul, ((7, 5), (5,))),
    ("outer", lambda a, b: nb.outer(a, b), np.outer, ((7,), (5,))),
    ("einsum", lambda a, b: nb.einsum("bij,jk->bki", a, b),
     lambda a, b: np.einsum("bij,jk->bki", a, b), ((3, 7, 5), (5, 2))),
    ("einsum_ellipsis", lambda a, b: nb.einsum("...j,kj", a, b),
     lambda a, b: np.einsum("...j,kj", a, b), ((3, 7, 5), (2, 5))),
    ("cdist", lambda a, b: nb.cdist(a, b),
     lambda a, b: np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)), ((7, 5), (4, 5))),
]


@pytest.mark.parametrize("name,fn,ref,shapes", PRODUCTS, ids=[p[0] for p in PRODUCTS])
def test_products_match_numpy_and_gradients_check(rng, name, fn, ref, shapes):
    a, b = (_x(rng, *s) for s in shapes)
    np.testing.assert_allclose(fn(a, b).detach().numpy(),
                               ref(a.detach().numpy(), b.detach().numpy()), rtol=1e-12)
    assert nb.gradcheck(fn, (a, b))


def test_diag_trace_and_meshgrid(rng):
    v, m = _x(rng, 5), _x(rng, 7, 5)
    np.testing.assert_array_equal(v.diag(1).detach().numpy(), np.diag(v.detach().numpy(), 1))
    np.testing.assert_array_equal(nb.diag(m, -2).detach().numpy(),
                                  np.diag(m.detach().numpy(), -2))
    assert nb.trace(m).item() == pytest.approx(np.trace(m.detach().numpy()))
    assert nb.gradcheck(lambda v: v.diag(-1), (v,))
    assert nb.gradcheck(lambda m: m.diag(1), (m,))
    assert nb.gradcheck(lambda m: m.trace(), (m,))
    rows, cols = nb.meshgrid(nb.arange(3), nb.arange(4), indexing="ij")
    np.testing.assert_array_equal(rows.numpy(), np.meshgrid(range(3), range(4),
                                                            indexing="ij")[0])
    xs, ys = nb.meshgrid(nb.arange(3), nb.arange(4), indexing="xy")
    np.testing.assert_array_equal(xs.numpy(), np.meshgrid(range(3), range(4))[0])


def test_cdist_gradient_is_zero_at_zero_distance(rng):
    a = _x(rng, 4, 3)
    nb.cdist(a, a).sum().backward()
    assert np.isfinite(a.grad.numpy()).all()


@pytest.mark.parametrize("call,error,match", [
    (lambda x: x.repeat(2), InputError, "repeat needs a count >= 0 for each of the 2"),
    (lambda x: x.roll((1, 2), 0), InputError, "have different lengths"),
    (lambda x: x.roll((1, 2)), InputError, "without dims, shifts must be a single number"),
    (lambda x: x.flip(0, -2), InputError, "name a dimension twice"),
    (lambda x: x.split([2, 2]), InputError, r"split sizes \(2, 2\) add up to 4"),
    (lambda x: x.narrow(1, 3, 3), InputError, "do not fit in dim 1 of size 5"),
    (lambda x: x.repeat_interleave(nb.tensor([1, 2])), InputError, "holds 2 counts for 35"),
    (lambda x: x.repeat_interleave(1.5), DTypeError, "repeats must be whole numbers"),
    (lambda x: x.movedim((0, 1), 0), InputError, "as many distinct source dims"),
    (lambda x: x.mm(x), ShapeError, r"inner dimensions differ"),
    (lambda x: x.mm(x[0]), ShapeError, "mm expects two matrices"),
    (lambda x: x[0].dot(x[1, :4]), ShapeError, "dot needs vectors of one length"),
    (lambda x: x[0].dot(x[1].double()), DTypeError, "dot needs both operands of one dtype"),
    (lambda x: x.reshape(1, 7, 5).bmm(x.reshape(1, 5, 7).expand(2, 5, 7)), ShapeError,
     "bmm needs one batch size"),
    (lambda x: x.outer(x), ShapeError, "outer expects two vectors"),
    (lambda x: x[0].tril(), ShapeError, "at least 2 dimensions"),
    (lambda x: x.reshape(7, 5, 1).diag(), ShapeError, "diag expects a vector or a matrix"),
    (lambda x: x.reshape(35).trace(), ShapeError, "trace expects a matrix"),
    (lambda x: x.diagonal(0, 1, -1), ShapeError, "needs two different dims"),
    (lambda x: nb.einsum("ij,jk", x), InputError, "names 2 operand"),
    (lambda x: nb.einsum("ij,ij", x, x.t()), ShapeError, "letter 'i' stands for sizes 7 and 5"),
    (lambda x: nb.einsum("ijk", x), InputError, "which the subscripts 'ijk' do not describe"),
    (lambda x: nb.einsum("ij->ii", x), InputError, "must name each letter once"),
    (lambda x: nb.cdist(x, x[:, :3]), ShapeError, "cdist needs two batches of rows"),
    (lambda x: nb.meshgrid(x[0], indexing="yx"), InputError, "indexing must be 'ij' or 'xy'"),
    (lambda x: nb.meshgrid(x), ShapeError, "meshgrid takes vectors"),
    (lambda x: x.unbind(2), DimError, "dim=2 is out of range"),
])
def test_bad_arguments_are_refused_with_a_hint(call, error, match):
    with pytest.raises(error, match=match) as err:
        call(nb.zeros(7, 5))
    where, _, rest = str(err.value).partition(": ")  # the op or method, what, at, hint
    assert where and "\n  at " in rest and "\n  hint: " in rest, str(err.value)
