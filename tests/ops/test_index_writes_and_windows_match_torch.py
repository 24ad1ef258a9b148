"""Writing by index (scatter_reduce, index_add, index_copy, index_put, put, masked_scatter),
reading by flat position (take), sliding windows (unfold) and splitting (tensor_split,
hsplit, vsplit, dsplit) against PyTorch: values, dtypes and gradients (float64, odd
non-square shapes, negative dims, repeated indices, 0-d and empty tensors)."""
import numpy as np
import pytest
from against_torch import bools, check, ints, normal, permutations, value

import nnbook as nb

torch = pytest.importorskip("torch")

X, X3 = normal(7, 5), normal(3, 7, 5)
ZEROS_SELF = value(np.array([[1.0, 0.0, 2.0], [3.0, 0.0, 4.0]]))
ZEROS_SRC = value(np.array([[2.0, 0.0, 0.0], [2.0, 3.0, 1.0]]))
TO_ROW_0 = value(np.zeros((2, 3), dtype=np.int64))

SCATTER_REDUCE = {
    "sum": ([X, ints(0, 7, 4, 5), normal(4, 5)],
            lambda m, x, i, s: x.scatter_reduce(0, i, s, "sum")),
    "sum_without_self": ([X, ints(0, 7, 4, 5), normal(4, 5)],
                         lambda m, x, i, s: m.scatter_reduce(x, 0, i, s, "sum",
                                                             include_self=False)),
    "prod": ([X, ints(0, 5, 7, 3), normal(7, 3)],
             lambda m, x, i, s: x.scatter_reduce(1, i, s, "prod")),
    "prod_without_self": ([X, ints(0, 5, 7, 3), normal(7, 3)],
                          lambda m, x, i, s: m.scatter_reduce(x, -1, i, s, "prod",
                                                              include_self=False)),
    "prod_with_zeros": ([ZEROS_SELF, TO_ROW_0, ZEROS_SRC],
                        lambda m, x, i, s: (x.scatter_reduce(0, i, s, "prod"),
                                            x.scatter_reduce(0, i, s, "prod",
                                                             include_self=False))),
    "mean": ([X, ints(0, 5, 7, 6), normal(7, 6)],
             lambda m, x, i, s: x.scatter_reduce(1, i, s, "mean")),
    "mean_without_self": ([X3, ints(0, 7, 3, 9, 5), normal(3, 9, 5)],
                          lambda m, x, i, s: x.scatter_reduce(-2, i, s, reduce="mean",
                                                              include_self=False)),
    "amax": ([X, ints(0, 5, 7, 6), normal(7, 6)],
             lambda m, x, i, s: x.scatter_reduce(1, i, s, "amax")),
    "amin_without_self": ([X, ints(0, 5, 7, 6), normal(7, 6)],
                          lambda m, x, i, s: x.scatter_reduce(1, i, s, "amin",
                                                              include_self=False)),
    "amax_ties_share_the_gradient": (
        [value(np.array([[1.0, 2.0, 2.0], [3.0, 3.0, 0.0]])), value(np.array([[0, 0, 1]])),
         value(np.array([[3.0, 2.0, 2.0]]))],
        lambda m, x, i, s: (x.scatter_reduce(0, i, s, "amax"),
                            x.scatter_reduce(0, i, s, "amin"))),
    "integers": ([ints(-9, 9, 7, 5), ints(0, 7, 4, 5), ints(-9, 9, 4, 5)],
                 lambda m, x, i, s: tuple(x.scatter_reduce(0, i, s, r, include_self=inc)
                                          for r in ("sum", "prod", "mean", "amax", "amin")
                                          for inc in (True, False))),
    "booleans": ([bools(7, 5), ints(0, 7, 4, 5), bools(4, 5)],
                 lambda m, x, i, s: tuple(x.scatter_reduce(0, i, s, r, include_self=inc)
                                          for r in ("sum", "prod", "amax", "amin")
                                          for inc in (True, False))),
    "zero_dim": ([normal(), value(np.array(0)), normal()],
                 lambda m, x, i, s: x.scatter_reduce(0, i, s, "prod")),
    # (PyTorch's backward fails when index is smaller than src: values only; the
    # gradients are gradchecked in test_index_writes_and_windows_forward_and_gradients.py)
    "smaller_index_than_src": ([X, ints(0, 7, 2, 3), normal(4, 5)],
                               lambda m, x, i, s: x.detach().scatter_reduce(
                                   0, i, s.detach(), "mean")),
}
INDEX_WRITES = {
    "index_add": ([X, ints(0, 5, 9), normal(7, 9)],
                  lambda m, x, i, s: (x.index_add(1, i, s), m.index_add(x, -1, i, s, alpha=-2.5))),
    "index_add_int32_index": ([X, lambda r: r.integers(0, 7, 3).astype(np.int32), normal(3, 5)],
                              lambda m, x, i, s: x.index_add(0, i, s)),
    "index_add_integers": ([ints(-5, 5, 7, 5), ints(0, 7, 4), ints(-5, 5, 4, 5)],
                           lambda m, x, i, s: x.index_add(0, i, s, alpha=3)),
    "index_add_zero_dim": ([normal(), value(np.array(0)), normal()],
                           lambda m, x, i, s: x.index_add(0, i, s)),
    "index_add_empty_index": ([X3, value(np.zeros(0, dtype=np.int64)), normal(3, 0, 5)],
                              lambda m, x, i, s: x.index_add(1, i, s)),
    "index_copy": ([X, permutations(7, 4), normal(4, 5)],
                   lambda m, x, i, s: (x.index_copy(0, i, s), m.index_copy(x, 0, i, s))),
    "index_copy_dim": ([X3, permutations(5, 3), normal(3, 7, 3)],
                       lambda m, x, i, s: x.index_copy(-1, i, s)),
    "index_put": ([X, ints(0, 7, 4), ints(0, 5, 4), normal(4)],
                  lambda m, x, i, j, v: (x.index_put((i, j), v),
                                         m.index_put(x, (i, j), v, accumulate=True))),
    "index_put_rows_repeated": ([X, ints(0, 7, 9), normal(5)],
                                lambda m, x, i, v: (x.index_put((i,), v, True),
                                                    x.index_put([i], v, accumulate=True))),
    "index_put_mask": ([X, bools(7, 5), normal()],
                       lambda m, x, mask, v: (x.index_put((mask,), v),
                                              x.index_put((mask,), v, accumulate=True))),
    "take": ([X, ints(-35, 35, 3, 4)], lambda m, x, i: (x.take(i), m.take(x, i))),
    "take_zero_dim_and_empty": ([normal(), value(np.array([0, -1, 0])), normal(0, 3),
                                 value(np.zeros((2, 0), dtype=np.int64))],
                                lambda m, x, i, e, j: (x.take(i), e.take(j))),
    "put": ([X, permutations(35, 6, 1), normal(2, 3)],
            lambda m, x, i, s: (x.put(i, s), m.put(x, i, s))),
    "put_accumulate": ([X3, ints(-105, 105, 3, 4), normal(12)],
                       lambda m, x, i, s: x.put(i, s, accumulate=True)),
    "masked_scatter": ([X, bools(5), normal(40)],
                       lambda m, x, mask, s: (x.masked_scatter(mask, s),
                                              m.masked_scatter(x, mask, s))),
    "masked_scatter_broadcast_self": ([normal(5), bools(7, 1), normal(7, 6)],
                                      lambda m, x, mask, s: x.masked_scatter(mask, s)),
}
WINDOWS_AND_SPLITS = {
    "unfold": ([X3], lambda m, x: (x.unfold(1, 3, 2), x.unfold(-1, 2, 1), x.unfold(0, 3, 5))),
    "unfold_whole_and_empty": ([X3, normal(3, 0)],
                               lambda m, x, e: (x.unfold(1, 7, 1), x.unfold(2, 0, 3),
                                                e.unfold(1, 0, 2))),
    "unfold_zero_dim": ([normal()], lambda m, x: (x.unfold(0, 1, 1), x.unfold(-1, 0, 2))),
    "tensor_split_sections": ([X3], lambda m, x: (x.tensor_split(3, 1), x.tensor_split(4),
                                                  m.tensor_split(x, 9, dim=-1))),
    "tensor_split_indices": ([X3], lambda m, x: (m.tensor_split(x, [1, -2, 9], dim=-1),
                                                 x.tensor_split((5, 2), 1))),
    "tensor_split_tensor": ([X3, value(np.array([2, 5])), value(np.array(3))],
                            lambda m, x, i, n: (x.tensor_split(i, 1), x.tensor_split(n, 2))),
    "splits_by_keyword": ([X3, value(np.array([2, 5]))],
                          lambda m, x, i: (x.tensor_split(sections=3, dim=1),
                                           m.tensor_split(x, indices=[1, 6], dim=1),
                                           x.tensor_split(tensor_indices_or_sections=i),
                                           x.hsplit(sections=7), m.vsplit(x, indices=[2]),
                                           x.dsplit(indices=[1, 3]),
                                           x.unfold(dimension=1, size=2, step=3))),
    "hsplit_vsplit_dsplit": ([normal(4, 6, 10)],
                             lambda m, x: (x.hsplit(2), m.vsplit(x, [1, 3]), x.dsplit(5),
                                           m.hsplit(x[0, 0], [3]), m.dsplit(x, [7]),
                                           x[0, 0].hsplit(5))),
}


@pytest.mark.parametrize("name", sorted(SCATTER_REDUCE))
def test_scatter_reduce_matches_torch(rng, name):
    check(*SCATTER_REDUCE[name][::-1], rng)


@pytest.mark.parametrize("name", sorted(INDEX_WRITES))
def test_index_write_matches_torch(rng, name):
    check(*INDEX_WRITES[name][::-1], rng)


@pytest.mark.parametrize("name", sorted(WINDOWS_AND_SPLITS))
def test_window_or_split_matches_torch(rng, name):
    check(*WINDOWS_AND_SPLITS[name][::-1], rng)


# (in-place call) applied to the same data in both libraries: the same values after it
IN_PLACE = {
    "index_add_": lambda m, x: x.index_add_(1, m.tensor([4, 0, 4]), m.ones(7, 3).double(),
                                            alpha=2),
    "index_copy_": lambda m, x: x.index_copy_(0, m.tensor([6, 1]), m.zeros(2, 5).double()),
    "index_put_": lambda m, x: x.index_put_((m.tensor([0, 0, 3]),), m.ones(5).double(),
                                            accumulate=True),
    "scatter_reduce_": lambda m, x: x.scatter_reduce_(1, m.tensor([[2, 2]] * 7),
                                                      -m.ones(7, 2).double(), "amin"),
    "put_": lambda m, x: x.put_(m.tensor([-1, 0, -1]), m.ones(3).double(), accumulate=True),
    "masked_scatter_": lambda m, x: x.masked_scatter_(x > 0, m.arange(35.0).double()),
    "fill_diagonal_": lambda m, x: x.fill_diagonal_(-3.0),
    "fill_diagonal_wrap": lambda m, x: x.fill_diagonal_(2.5, wrap=True),
}


@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_in_place_index_write_matches_torch(rng, name):
    data = rng.standard_normal((7, 5))
    mine, theirs = nb.tensor(data), torch.tensor(data)
    assert IN_PLACE[name](nb, mine) is mine
    IN_PLACE[name](torch, theirs)
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12)


@pytest.mark.parametrize("shape,wrap", [((7, 3), True), ((7, 3), False), ((3, 7), True),
                                        ((4, 4, 4), False)])
def test_fill_diagonal_matches_torch_on_tall_wide_and_cubic_tensors(shape, wrap):
    mine, theirs = nb.zeros(*shape, dtype=nb.int64), torch.zeros(*shape, dtype=torch.int64)
    mine.fill_diagonal_(1.5, wrap)  # an int tensor takes the whole part, as in PyTorch
    theirs.fill_diagonal_(1.5, wrap)
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


MEMORY = {
    "matrix": lambda m: m.zeros(7, 5),
    "transposed": lambda m: m.zeros(7, 5).t(),
    "row": lambda m: m.zeros(7, 5)[3],
    "columns": lambda m: m.zeros(3, 7, 5)[:, 2:, 1:4],
    "expanded": lambda m: m.zeros(7, 1).expand(7, 5),
    "unfolded": lambda m: m.zeros(3, 7, 5).unfold(1, 3, 2),
    "size_one_dims": lambda m: m.zeros(3, 1, 5, 1),
    "empty": lambda m: m.zeros(3, 0, 5),
    "zero_dim": lambda m: m.tensor(2.0, dtype=m.float64),
    "ints": lambda m: m.zeros(7, 5, dtype=m.int16)[1:, ::2],
    "bytes": lambda m: m.ones(7, 5, dtype=m.uint8).permute(1, 0)[2],
    "bools": lambda m: m.zeros(7, 5, dtype=m.bool).unsqueeze(1),
}


@pytest.mark.parametrize("name", sorted(MEMORY))
def test_memory_layout_matches_torch(name):
    mine, theirs = MEMORY[name](nb), MEMORY[name](torch)
    assert mine.stride() == theirs.stride()
    assert [mine.stride(d) for d in range(-mine.ndim, mine.ndim)] == \
        [theirs.stride(d) for d in range(-theirs.ndim, theirs.ndim)]
    assert mine.is_contiguous() == theirs.is_contiguous()
    assert mine.storage_offset() == theirs.storage_offset()
    assert (mine.element_size(), mine.itemsize, mine.nbytes) == \
        (theirs.element_size(), theirs.itemsize, theirs.nbytes)
    assert (mine.is_signed(), mine.is_complex(), mine.is_cpu, mine.get_device(),
            mine.is_pinned()) == (theirs.is_signed(), theirs.is_complex(), theirs.is_cpu,
                                  theirs.get_device(), theirs.is_pinned())
    assert nb.is_signed(mine) == torch.is_signed(theirs)
    assert nb.get_device(mine) == torch.get_device(theirs)


@pytest.mark.parametrize("name", ["byte", "char", "short"])
def test_small_integer_conversions_match_torch(rng, name):
    data = rng.uniform(-100, 100, (7, 5))
    mine, theirs = getattr(nb.tensor(data), name)(), getattr(torch.tensor(data), name)()
    assert mine.dtype.name == str(theirs.dtype).removeprefix("torch.")
    if name != "byte":  # (negative floats to uint8 are undefined in C, and in PyTorch)
        np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


def test_in_place_index_writes_on_a_zero_dim_tensor_match_torch(rng):
    for call in (lambda m, x: x.index_add_(0, m.tensor([0]), m.tensor(1.5).double(), alpha=2),
                 lambda m, x: x.index_copy_(0, m.tensor([0]), m.tensor(-4.0).double()),
                 lambda m, x: x.scatter_reduce_(0, m.tensor(0), m.tensor(3.0).double(),
                                                "prod"),
                 lambda m, x: x.put_(m.tensor([0, -1]), m.ones(2).double(), accumulate=True)):
        value = np.float64(rng.standard_normal())
        mine, theirs = nb.tensor(value), torch.tensor(value)
        assert call(nb, mine) is mine and mine._version == 1
        call(torch, theirs)
        assert mine.shape == () and mine.item() == pytest.approx(theirs.item(), rel=1e-12)
        leaf = nb.tensor(value, requires_grad=True)
        out = call(nb, leaf * 1.0)
        out.backward()
        reference = torch.tensor(value, requires_grad=True)
        call(torch, reference * 1.0).backward()
        assert leaf.grad.item() == pytest.approx(reference.grad.item(), rel=1e-12)
