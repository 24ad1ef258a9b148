"""Writing by index (scatter_reduce, index_add, index_copy, index_put, put, masked_scatter,
fill_diagonal_), take, unfold and the splits: values against numpy, gradients by gradcheck
on odd non-square float64 shapes, and wrong arguments refused with nnbook errors that
leave the tensor as it was."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import (
    ArgumentError,
    BackwardError,
    DimError,
    DTypeError,
    InputError,
    ShapeError,
)


def _x(rng, *shape):
    return nb.tensor(rng.standard_normal(shape), requires_grad=True)


def test_scatter_reduce_combines_every_value_sent_to_a_position(rng):
    x = nb.tensor([[1.0, 2.0, 0.0], [3.0, 5.0, 4.0]])
    index = nb.tensor([[0, 1, 1], [0, 1, 1]])  # both rows of src go to row 0 and 1
    src = nb.tensor([[2.0, 3.0, 1.0], [4.0, -1.0, 6.0]])
    by_hand = {"sum": [[7, 2, 0], [3, 7, 11]], "prod": [[8, 2, 0], [3, -15, 24]],
               "mean": [[7 / 3, 2, 0], [3, 7 / 3, 11 / 3]], "amax": [[4, 2, 0], [3, 5, 6]],
               "amin": [[1, 2, 0], [3, -1, 1]]}
    for reduce, expected in by_hand.items():
        got = x.scatter_reduce(0, index, src, reduce).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-12, err_msg=reduce)
    alone = x.scatter_reduce(0, index, src, "sum", include_self=False).numpy()
    np.testing.assert_array_equal(alone, [[6, 2, 0], [3, 2, 7]])  # x's values forgotten


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_gradients_check(rng, reduce, include_self):
    x, src = _x(rng, 7, 5), _x(rng, 4, 6)  # src larger than index: only its part counts
    index = nb.tensor(rng.integers(0, 7, (3, 5)))
    assert nb.gradcheck(lambda x, s: x.scatter_reduce(0, index, s, reduce,
                                                      include_self=include_self), (x, src))


def test_index_add_copy_and_put_gradients_check(rng):
    x, rows, cols = _x(rng, 7, 5), _x(rng, 4, 5), _x(rng, 7, 3)
    repeats, distinct = nb.tensor([6, 0, 6, 2]), nb.tensor([4, 0, 2])
    assert nb.gradcheck(lambda x, s: x.index_add(0, repeats, s, alpha=-1.5), (x, rows))
    assert nb.gradcheck(lambda x, s: x.index_copy(-1, distinct, s), (x, cols))
    values = _x(rng, 4)
    assert nb.gradcheck(lambda x, v: x.index_put((repeats, nb.tensor([1, 1, 1, 3])), v,
                                                 accumulate=True), (x, values))
    assert nb.gradcheck(lambda x, v: x.index_put((nb.tensor([6, 0, 5, 2]),
                                                  nb.tensor([1, 1, 1, 3])), v), (x, values))
    flat, source = nb.tensor([[34, -1], [0, 7]]), _x(rng, 4)
    assert nb.gradcheck(lambda x: x.take(flat), (x,))
    assert nb.gradcheck(lambda x, s: x.put(flat, s, accumulate=True), (x, source))
    assert nb.gradcheck(lambda x, s: x.put(nb.tensor([3, 9, 0, 1]), s), (x, source))


def test_masked_scatter_fills_in_order_and_its_gradients_check(rng):
    x = nb.zeros(2, 3)
    mask = nb.tensor([[True, False, True], [False, True, False]])
    out = x.masked_scatter(mask, nb.tensor([1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_array_equal(out.numpy(), [[1, 0, 2], [0, 3, 0]])  # 4.0 is not used
    x, source = _x(rng, 7, 5), _x(rng, 6, 7)
    mask = nb.tensor(rng.random((7, 1)) < 0.5)
    assert nb.gradcheck(lambda x, s: x.masked_scatter(mask, s), (x, source))


def test_unfold_gives_the_windows_and_overlapping_windows_add_their_gradients(rng):
    x = nb.arange(7.0)
    np.testing.assert_array_equal(x.unfold(0, 3, 2).numpy(), [[0, 1, 2], [2, 3, 4],
                                                              [4, 5, 6]])
    y = _x(rng, 3, 7, 5)
    for dimension, size, step in ((1, 3, 1), (1, 3, 2), (-1, 2, 3), (0, 3, 1)):
        assert nb.gradcheck(lambda y, a=(dimension, size, step): y.unfold(*a), (y,))
    ones = nb.ones(7, requires_grad=True)
    ones.unfold(0, 3, 2).sum().backward()
    np.testing.assert_array_equal(ones.grad.numpy(), [1, 1, 2, 1, 2, 1, 1])  # shared taps


def test_unfold_is_a_view_that_follows_its_base_and_refuses_writes():
    x = nb.arange(6.0)
    windows = x.unfold(0, 2, 1)
    x[3] = -1.0
    np.testing.assert_array_equal(windows.numpy()[:, 1], [1, 2, -1, 4, 5])
    with pytest.raises(InputError, match=r"read-only.*unfold"):
        windows.mul_(2.0)
    np.testing.assert_array_equal(x.numpy(), [0, 1, 2, -1, 4, 5])


def test_splits_give_views_whose_gradients_check(rng):
    x = _x(rng, 3, 7, 10)
    assert nb.gradcheck(lambda x: x.tensor_split(3, 1), (x,))
    assert nb.gradcheck(lambda x: nb.tensor_split(x, [2, -3], dim=-1), (x,))
    assert nb.gradcheck(lambda x: nb.dsplit(x, 5), (x,))
    assert nb.gradcheck(lambda x: x.vsplit([1]), (x,))
    base = nb.zeros(7, 10)
    base.hsplit(2)[1].fill_(1.0)  # a view: the write reaches the base
    assert base.numpy()[:, 5:].all() and not base.numpy()[:, :5].any()


WRONG = [
    (lambda x: x.scatter_reduce(0, nb.tensor([[0]]), x[:1], "max_"), InputError,
     r"reduce must be one of 'sum', 'prod', 'mean', 'amax', 'amin', got 'max_'"),
    (lambda x: x.scatter_reduce(0, nb.tensor([[7]]), x[:1, :1], "sum"), DimError,
     r"index 7 is out of bounds for dim 0 with size 7"),
    (lambda x: x.scatter_reduce(0, nb.tensor([[0]]), x[:1, :1].float(), "sum"), DTypeError,
     r"src is float32 but the input is float64"),
    (lambda x: (x > 0).scatter_reduce(0, nb.tensor([[0]]), x[:1] > 0, "mean"), DTypeError,
     r"the mean of booleans is not a boolean"),
    (lambda x: x.scatter_reduce(0, [[0]], x, "sum"), ArgumentError,
     r"index must be a tensor, got list"),
    (lambda x: x.index_add(0, nb.tensor([0, 7]), x[:2]), DimError,
     r"index 7 is out of range for dim 0 of size 7"),
    (lambda x: x.index_add(0, nb.tensor([-1]), x[:1]), DimError, r"index -1 is out of range"),
    (lambda x: x.index_add(1, nb.tensor([0, 1]), x[:, :3]), ShapeError,
     r"source has shape \(7, 3\), but needs \(7, 2\)"),
    (lambda x: x.index_add(0, nb.tensor([[0]]), x[:1]), ShapeError, r"index must be a vector"),
    (lambda x: x.index_copy(0, nb.tensor([0], dtype=nb.int32), x[:1]), DTypeError,
     r"index must be a vector of int64, got int32"),
    (lambda x: x.index_copy(0, nb.tensor([0]), x[:1].float()), DTypeError,
     r"source is float32 but the input is float64"),
    (lambda x: x.index_put((nb.tensor([9]),), nb.tensor(1.0, dtype=nb.float64)), DimError,
     r"cannot index a tensor of shape \(7, 5\)"),
    (lambda x: x.index_put((nb.tensor([1]),), nb.tensor(1.0)), DTypeError,
     r"values are float32 but this tensor is float64"),
    (lambda x: x.index_put(nb.tensor([1]), x[0]), ArgumentError,
     r"indices must be a tuple of tensors, got Tensor"),
    (lambda x: x.index_put((nb.tensor([1, 2]),), x[:3]), ShapeError,
     r"a value of shape \(3, 5\) cannot fill the indexed part of shape \(2, 5\)"),
    (lambda x: x.take(nb.tensor([35])), DimError,
     r"index 35 is out of range for a tensor of 35 elements"),
    (lambda x: x.take(nb.tensor([1], dtype=nb.int32)), DTypeError,
     r"index must be an int64 tensor, got int32"),
    (lambda x: x.put(nb.tensor([1]), x[0, :2]), ShapeError,
     r"index has 1 elements but source has 2"),
    (lambda x: x.put(nb.tensor([-36]), x[0, :1]), DimError, r"index -36 is out of range"),
    (lambda x: x.masked_scatter(x > 0, x[0]), InputError, r"the mask picks \d+ elements but "
     r"source has only 5"),
    (lambda x: x.masked_scatter((x > 0).long(), x), DTypeError, r"must be a boolean tensor"),
    (lambda x: x.masked_scatter(x > 0, x.float()), DTypeError, r"source is float32"),
    (lambda x: x.unfold(1, 6, 1), ShapeError, r"windows of size 6 do not fit in dim 1 of size 5"),
    (lambda x: x.unfold(0, 2, 0), InputError, r"step must be an int >= 1, got 0"),
    (lambda x: x.unfold(2, 2, 1), DimError, r"dimension=2 is out of range"),
    (lambda x: x.tensor_split(0), InputError, r"number of sections must be at least 1"),
    (lambda x: x[0, 0].tensor_split(2), DimError, r"tensor_split needs a tensor with at least"),
    (lambda x: x.tensor_split(1.5), ArgumentError, r"takes an int \(sections\) or a list"),
    (lambda x: x.tensor_split(nb.tensor([1.0])), InputError, r"a 0-d or 1-d tensor of integers"),
    (lambda x: x.hsplit(2), InputError, r"hsplit splits dim 1 of size 5 into 2 equal pieces"),
    (lambda x: x.tensor_split(2, sections=3), ArgumentError,
     r"tensor_split takes one of indices_or_sections, sections, indices, "
     r"tensor_indices_or_sections, got 2"),
    (lambda x: x.vsplit(), ArgumentError, r"vsplit takes one of .*got 0"),
    (lambda x: x[0].vsplit(1), DimError, r"vsplit needs a tensor of at least 2 dim"),
    (lambda x: x.dsplit([1]), DimError, r"dsplit needs a tensor of at least 3 dim"),
]


@pytest.mark.parametrize("case", range(len(WRONG)))
def test_wrong_arguments_get_nnbook_errors(rng, case):
    act, cls, match = WRONG[case]
    with pytest.raises(cls, match=match):
        act(nb.tensor(rng.standard_normal((7, 5))))


# in-place calls with a wrong argument: refused before anything is written
WRONG_IN_PLACE = [
    (lambda x: x.index_add_(0, nb.tensor([0, 7]), x[:2].clone()), DimError),
    (lambda x: x.index_copy_(1, nb.tensor([0, 1]), x[:, :3].clone()), ShapeError),
    (lambda x: x.index_put_((nb.tensor([0, 9]),), x[0].clone(), accumulate=True), DimError),
    (lambda x: x.scatter_reduce_(0, nb.tensor([[0, 9]]), x[:1].clone(), "sum"), DimError),
    (lambda x: x.put_(nb.tensor([1, 40]), x[0, :2].clone()), DimError),
    (lambda x: x.masked_scatter_(x > -10, x[0].clone()), InputError),
    (lambda x: x.masked_scatter_(nb.tensor([[True]] * 7 + [[False]]), x[0].clone()),
     ShapeError),
    (lambda x: x.fill_diagonal_(1.0) if x.ndim != 2 else x[0].fill_diagonal_(1.0),
     ShapeError),
    (lambda x: x.unsqueeze(0).expand(2, 7, 5).fill_diagonal_(1.0), ShapeError),
]


@pytest.mark.parametrize("case", range(len(WRONG_IN_PLACE)))
def test_wrong_in_place_arguments_leave_the_tensor_as_it_was(rng, case):
    act, cls = WRONG_IN_PLACE[case]
    data = rng.standard_normal((7, 5))
    x = nb.tensor(data)
    with pytest.raises(cls):
        act(x)
    np.testing.assert_array_equal(x.numpy(), data)
    assert x._version == 0


@pytest.mark.parametrize("act", [
    lambda w: w.index_add_(0, nb.tensor([1]), nb.ones(1, 5, dtype=nb.float64)),
    lambda w: w.index_put_((nb.tensor([1]),), nb.tensor(2.0, dtype=nb.float64)),
    lambda w: w.scatter_reduce_(0, nb.tensor([[1]]), nb.ones(1, 1, dtype=nb.float64), "amax"),
    lambda w: w.put_(nb.tensor([3]), nb.ones(1, dtype=nb.float64)),
    lambda w: w.masked_scatter_(w > 0, nb.ones(35, dtype=nb.float64)),
    lambda w: w.fill_diagonal_(0.0),
    lambda w: w.index_copy_(1, nb.tensor([2]), nb.ones(7, 1, dtype=nb.float64)),
])
def test_a_leaf_that_requires_grad_refuses_an_index_write(rng, act):
    data = rng.standard_normal((7, 5))
    w = nb.tensor(data, requires_grad=True)
    with pytest.raises(BackwardError, match="on a leaf tensor that requires grad"):
        act(w)
    np.testing.assert_array_equal(w.detach().numpy(), data)
    with nb.no_grad():
        act(w)  # as PyTorch: allowed without recording
    assert w._version == 1


def test_stride_and_storage_offset_describe_the_memory_of_a_view():
    x = nb.zeros(4, 6)
    assert x.stride() == (6, 1) and x.stride(0) == 6 and x.stride(-1) == 1
    part = x[1:, 2:]
    assert part.stride() == (6, 1) and part.storage_offset() == 8
    assert not part.is_contiguous() and x.t().stride() == (1, 6)
    assert x.nbytes == 4 * 6 * 4 and x.double().element_size() == 8
    with pytest.raises(DimError, match=r"stride\(dim\) of a 0-d tensor"):
        nb.tensor(1.0).stride(0)
    with pytest.raises(DimError, match=r"dim=2 is out of range"):
        x.stride(2)


def test_pin_memory_is_refused_as_pytorch_without_a_gpu_refuses_it():
    x = nb.zeros(3)
    assert not x.is_pinned()
    with pytest.raises(nb.UnsupportedError, match=r"pin_memory\(\) pins memory.*no accelerator"):
        x.pin_memory()
