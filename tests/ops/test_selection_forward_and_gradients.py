"""Selecting elements (gather, scatter, masks, sorting): forward by hand and against
numpy, backward by gradcheck on odd non-square float64 shapes, and the errors."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import DimError, DTypeError, InputError, ShapeError


def _x(rng, *shape):
    return nb.tensor(rng.standard_normal(shape), requires_grad=True)


def test_gather_reads_index_along_dim_and_adds_gradients_of_repeats(rng):
    x = _x(rng, 7, 5)
    index = nb.tensor(rng.integers(0, 5, (7, 9)))  # more picks than columns: repeats
    out = x.gather(1, index)
    np.testing.assert_array_equal(out.detach().numpy(), np.take_along_axis(
        x.detach().numpy(), index.numpy(), 1))
    assert nb.gradcheck(lambda x: nb.gather(x, 1, index), (x,))
    small = nb.tensor([[2], [0]])  # smaller than x off dim: only its own rows are read
    np.testing.assert_array_equal(x.gather(1, small).detach().numpy(),
                                  x.detach().numpy()[[0, 1], [2, 0]][:, None])


def test_scatter_writes_src_where_index_points(rng):
    x = nb.zeros(3, 5)
    out = x.scatter(1, nb.tensor([[4, 0], [1, 2], [3, 3]]), nb.tensor([[1.0, 2.0, 9.0]] * 3))
    np.testing.assert_array_equal(out.numpy(), [[2, 0, 0, 0, 1], [0, 1, 2, 0, 0],
                                                [0, 0, 0, 2, 0]])  # a repeat: the last wins
    added = x.scatter_add(1, nb.tensor([[3, 3]]), nb.tensor([[1.0, 2.0]]))
    np.testing.assert_array_equal(added.numpy()[0], [0, 0, 0, 3, 0])


def test_scatter_gradients_check_with_a_src_larger_than_index(rng):
    x, src = _x(rng, 7, 5), _x(rng, 7, 4)
    index = nb.tensor(np.stack([rng.permutation(5)[:3] for _ in range(7)]))
    assert nb.gradcheck(lambda x, s: x.scatter(1, index, s), (x, src))
    assert nb.gradcheck(lambda x, s: nb.scatter_add(x, 1, index, s), (x, src))
    assert nb.gradcheck(lambda x: x.scatter(1, index, -1.0), (x,))


def test_masked_fill_and_masked_select(rng):
    x, mask = _x(rng, 3, 7, 5), nb.tensor(rng.random((7, 5)) < 0.4)
    filled = x.masked_fill(mask, 9.0)
    np.testing.assert_array_equal(filled.detach().numpy(),
                                  np.where(mask.numpy(), 9.0, x.detach().numpy()))
    value = nb.tensor(2.0, dtype=nb.float64, requires_grad=True)
    assert nb.gradcheck(lambda x, v: x.masked_fill(mask, v), (x, value))
    picked = nb.masked_select(x, mask)
    np.testing.assert_array_equal(picked.detach().numpy(),
                                  x.detach().numpy()[np.broadcast_to(mask.numpy(), x.shape)])
    assert nb.gradcheck(lambda x: x.masked_select(mask), (x,))


def test_index_select_and_take_along_dim(rng):
    x = _x(rng, 3, 7, 5)
    index = nb.tensor([6, 0, 6, 2])
    np.testing.assert_array_equal(x.index_select(1, index).detach().numpy(),
                                  x.detach().numpy()[:, [6, 0, 6, 2]])
    assert nb.gradcheck(lambda x: x.index_select(1, index), (x,))
    order = x.detach().argsort(dim=2)
    np.testing.assert_array_equal(nb.take_along_dim(x, order, 2).detach().numpy(),
                                  np.sort(x.detach().numpy(), 2))
    assert nb.gradcheck(lambda x: x.take_along_dim(order[:1, :, :2], 2), (x,))


def test_sort_topk_and_argsort_against_numpy(rng):
    x = _x(rng, 3, 7, 5)
    values, indices = x.sort(1, descending=True)
    np.testing.assert_array_equal(values.detach().numpy(), -np.sort(-x.detach().numpy(), 1))
    np.testing.assert_array_equal(indices.numpy(), x.argsort(1, descending=True).numpy())
    top = nb.topk(x, 2, dim=-1, largest=False)
    np.testing.assert_array_equal(top.values.detach().numpy(),
                                  np.sort(x.detach().numpy(), -1)[..., :2])
    assert nb.gradcheck(lambda x: x.sort(0).values, (x,))
    assert nb.gradcheck(lambda x: x.topk(3).values, (x,))
    assert indices.dtype == nb.int64 and not indices.requires_grad


def test_unique_and_nonzero_give_integers_without_gradients(rng):
    x = nb.tensor([[3.0, 1.0, 3.0], [0.0, 1.0, 5.0]], requires_grad=True)
    values, inverse, counts = x.unique(return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(values.numpy(), [0, 1, 3, 5])
    np.testing.assert_array_equal(inverse.numpy(), [[2, 1, 2], [0, 1, 3]])
    np.testing.assert_array_equal(counts.numpy(), [1, 2, 2, 1])
    assert not values.requires_grad and inverse.dtype == nb.int64
    np.testing.assert_array_equal(x.nonzero().numpy(), [[0, 0], [0, 1], [0, 2], [1, 1],
                                                         [1, 2]])
    rows, cols = nb.where(x > 2)
    np.testing.assert_array_equal(rows.numpy(), [0, 0, 1])
    np.testing.assert_array_equal(cols.numpy(), [0, 2, 2])


@pytest.mark.parametrize("call,error,match", [
    (lambda x: x.gather(1, nb.tensor([[0]], dtype=nb.int16)), DTypeError,
     r"index must be an int64 \(or int32\) tensor, got int16"),
    (lambda x: x.gather(1, nb.tensor([0, 1])), ShapeError, "index has 1 dimension"),
    (lambda x: x.gather(1, nb.zeros(8, 2, dtype=nb.int64)), ShapeError,
     r"index \(8, 2\) is larger than the input \(7, 5\)"),
    (lambda x: x.gather(1, nb.tensor([[5]])), DimError, "index 5 is out of bounds for dim 1"),
    (lambda x: x.gather(0, nb.tensor([[-1]])), DimError, "index -1 is out of bounds"),
    (lambda x: x.scatter(1, nb.tensor([[0]]), nb.tensor([[1]])), DTypeError,
     "src is int64 but this tensor is float32"),
    (lambda x: x.scatter(1, nb.tensor([[0, 1]]), nb.zeros(1, 1)), ShapeError,
     "larger than src"),
    (lambda x: x.scatter(1, nb.tensor([[0]]), 1.0, reduce="add"), InputError,
     "reduce='add'"),
    (lambda x: x.masked_fill(x, 0.0), DTypeError, "the mask must be a boolean tensor"),
    (lambda x: x.masked_fill(x > 0, nb.zeros(2)), ShapeError,
     "the value must be a number or a 0-d tensor"),
    (lambda x: x.masked_select(x), DTypeError, "the mask must be boolean"),
    (lambda x: x.index_select(0, nb.tensor([[0]])), DTypeError,
     "index must be a vector of integers"),
    (lambda x: x.topk(6), InputError, "k=6 is out of range"),
    (lambda x: x.take_along_dim(nb.tensor([0]), 1), ShapeError, "indices has 1 dims"),
    (lambda x: x.sort(2), DimError, "dim=2 is out of range"),
])
def test_bad_arguments_are_refused_with_a_hint(call, error, match):
    with pytest.raises(error, match=match) as err:
        call(nb.zeros(7, 5))
    where, _, rest = str(err.value).partition(": ")  # the op or method, what, at, hint
    assert where and "\n  at " in rest and "\n  hint: " in rest, str(err.value)
