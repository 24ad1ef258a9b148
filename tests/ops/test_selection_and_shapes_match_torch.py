"""Selection, shape, comparison and matrix ops against PyTorch: values, dtypes, index
results and gradients (float64, odd non-square shapes)."""
import numpy as np
import pytest
from against_torch import bools, check, ints, normal, permutations, value

torch = pytest.importorskip("torch")

X, X3 = normal(7, 5), normal(3, 7, 5)
NAN_INF = value(np.array([[1.0, np.nan, np.inf], [-np.inf, 0.0, 1.0 + 1e-9]]))
COMPARISONS = {
    "eq": ([ints(0, 3, 7, 5), ints(0, 3, 5)], lambda m, a, b: m.eq(a, b)),
    "ne_number": ([X], lambda m, x: x.ne(0.5)),
    "lt": ([X, normal(5)], lambda m, a, b: m.lt(a, b)),
    "le_mixed_dtypes": ([ints(-2, 2, 7, 5), X], lambda m, a, b: a.le(b)),
    "gt": ([X, normal(7, 1)], lambda m, a, b: m.greater(a, b)),
    "ge": ([X], lambda m, x: m.ge(x, 0)),
    "isclose": ([X, normal(5)], lambda m, a, b: m.isclose(a, a + b * 1e-6)),
    "isclose_nan": ([NAN_INF], lambda m, x: m.isclose(x, x, equal_nan=True)),
    "isclose_tolerances": ([X], lambda m, x: x.isclose(x + 0.01, rtol=0, atol=0.02)),
    "allclose": ([X], lambda m, x: (m.allclose(x, x + 1e-9), m.allclose(x, x + 1e-3))),
    "equal": ([X], lambda m, x: (m.equal(x, x.clone()), x.equal(x + 1), x.equal(x[:3]))),
    "isnan": ([NAN_INF], lambda m, x: m.isnan(x)),
    "isinf": ([NAN_INF], lambda m, x: x.isinf()),
    "isfinite": ([NAN_INF], lambda m, x: m.isfinite(x)),
    "isposinf": ([NAN_INF], lambda m, x: m.isposinf(x)),
    "isneginf": ([NAN_INF], lambda m, x: x.isneginf()),
    "logical": ([bools(7, 5), ints(0, 2, 5)],
                lambda m, a, b: (m.logical_and(a, b), a.logical_or(b), m.logical_xor(a, b),
                                 m.logical_not(b))),
    "bitwise_masks": ([X, normal(5)],
                      lambda m, x, y: ((x > 0) & (y < 0.5), (x > 1) | (x < -1), (x > 0) ^ (y > 0),
                                       ~(x > 0), True & (x > 0), (y > 0) | False,
                                       m.bitwise_and(x > 0, y > 0), m.bitwise_not(y > 0))),
    "bitwise_ints": ([ints(-40, 40, 7, 5), ints(0, 40, 5), bools(5)],
                     lambda m, a, b, p: (a & b, a.int() | 6, m.bitwise_xor(a, b), ~a,
                                         m.bitwise_not(a.int()), a.int() ^ p, 3 & a)),
    "one_hot": ([ints(0, 6, 7, 3)],
                lambda m, y: (m.nn.functional.one_hot(y), m.nn.functional.one_hot(y, 9),
                              m.nn.functional.one_hot(y[0, 0], num_classes=6))),
}
SELECTION = {
    "gather": ([X, ints(0, 5, 7, 3)], lambda m, x, i: m.gather(x, 1, i)),
    "gather_repeats_dim0": ([X, ints(0, 7, 4, 5)], lambda m, x, i: x.gather(0, i)),
    "gather_smaller_index": ([X3, ints(0, 7, 2, 4, 3)], lambda m, x, i: x.gather(-2, i)),
    "scatter": ([X, permutations(5, 3, 7), normal(7, 3)],
                lambda m, x, i, s: m.scatter(x, 1, i, s)),
    "scatter_value": ([X, permutations(5, 2, 7)], lambda m, x, i: x.scatter(1, i, 2.5)),
    "scatter_add": ([X, ints(0, 7, 3, 5), normal(3, 5)],
                    lambda m, x, i, s: m.scatter_add(x, 0, i, s)),
    "index_select": ([X3, ints(0, 7, 4)], lambda m, x, i: m.index_select(x, 1, i)),
    "index_select_int32": ([X, lambda r: r.integers(0, 5, 6).astype(np.int32)],
                           lambda m, x, i: x.index_select(-1, i)),
    "take_along_dim": ([X3, ints(0, 5, 1, 7, 2)], lambda m, x, i: m.take_along_dim(x, i, 2)),
    "take_along_dim_flat": ([X, ints(0, 35, 4, 2)], lambda m, x, i: x.take_along_dim(i)),
    "take_along_dim_argsort": ([X3], lambda m, x: m.take_along_dim(x, x.argsort(1), 1)),
    "masked_fill": ([X, bools(5)], lambda m, x, mask: m.masked_fill(x, mask, -1.5)),
    "masked_fill_tensor_value": ([X, bools(7, 5), normal()],
                                 lambda m, x, mask, v: x.masked_fill(mask, v)),
    "masked_fill_broadcast_self": ([normal(5), bools(7, 5)],
                                   lambda m, x, mask: m.masked_fill(x, mask, 0.0)),
    "masked_select": ([X3, bools(7, 1)], lambda m, x, mask: m.masked_select(x, mask)),
    "masked_select_broadcast_self": ([normal(5), bools(7, 5)],
                                     lambda m, x, mask: x.masked_select(mask)),
    "sort": ([X3], lambda m, x: m.sort(x, 1)),
    "sort_descending": ([X3], lambda m, x: x.sort(dim=-1, descending=True)),
    "sort_stable_ties": ([ints(0, 3, 7, 9)],
                         lambda m, x: m.sort(x.double(), descending=True, stable=True)),
    "sort_nan": ([value(np.array([3.0, np.nan, -1.0, np.inf, 0.5]))],
                 lambda m, x: (m.sort(x), m.sort(x, descending=True))),
    "argsort": ([X3], lambda m, x: m.argsort(x, dim=0, descending=True)),
    "topk": ([X3], lambda m, x: m.topk(x, 3)),
    "topk_smallest_dim": ([X3], lambda m, x: x.topk(2, dim=1, largest=False)),
    "unique": ([ints(0, 6, 7, 5)], lambda m, x: m.unique(x, return_inverse=True,
                                                          return_counts=True)),
    # (PyTorch's unique of a tensor that requires grad has a grad_fn that cannot run)
    "unique_float": ([lambda r: r.integers(0, 4, (7, 5)) / 2],
                     lambda m, x: x.detach().unique()),
    "unique_dim": ([ints(0, 2, 7, 3)], lambda m, x: m.unique(x, dim=0, return_inverse=True)),
    "nonzero": ([ints(-1, 2, 3, 7, 5)], lambda m, x: (m.nonzero(x), x.nonzero(as_tuple=True))),
    "argwhere": ([bools(7, 5)], lambda m, x: m.argwhere(x)),
    "index_fill": ([X3, ints(0, 7, 3)], lambda m, x, i: m.index_fill(x, 1, i, -2.0)),
    "numpy_axis_names": ([X3, ints(0, 5, 3, 7, 2)],
                         lambda m, x, i: (x.sort(axis=1), m.argsort(x, axis=0), x.topk(2, axis=1),
                                          x.gather(axis=2, index=i), m.unsqueeze(x, axis=1),
                                          x.index_select(axis=2, index=i[0, 0]),
                                          x.unbind(axis=1)[3], x.chunk(2, axis=2),
                                          x.narrow(axis=0, start=1, length=2),
                                          x.select(axis=1, index=2),
                                          m.take_along_dim(x, i, axis=2),
                                          x.repeat_interleave(2, axis=0),
                                          x.scatter(axis=2, index=i, value=0.0),
                                          x.median(axis=2, keepdims=True),
                                          x.cumsum(axis=1), x.logsumexp(axis=0))),
}
SHAPES = {
    "view_as": ([normal(35), X], lambda m, a, b: a.view_as(b)),
    "reshape_as": ([normal(5, 7), X], lambda m, a, b: a.reshape_as(b)),
    "expand_as": ([normal(7, 1), X3], lambda m, a, b: a.expand_as(b)),
    "broadcast_to": ([normal(7, 1)], lambda m, x: m.broadcast_to(x, (3, 7, 5))),
    "broadcast_tensors": ([normal(7, 1), normal(3, 1, 5)],
                          lambda m, a, b: m.broadcast_tensors(a, b)),
    "squeeze_dims": ([normal(1, 7, 1, 5)], lambda m, x: m.squeeze(x, (0, 2))),
    "unflatten": ([normal(3, 35)], lambda m, x: m.unflatten(x, 1, (7, -1))),
    "movedim": ([X3], lambda m, x: m.movedim(x, 0, -1)),
    "movedim_many": ([normal(3, 7, 5, 2)], lambda m, x: x.movedim((0, 1), (3, 0))),
    "split_size": ([X3], lambda m, x: m.split(x, 3, dim=1)),
    "split_sections": ([X3], lambda m, x: x.split([2, 0, 5], 1)),
    "chunk": ([X3], lambda m, x: m.chunk(x, 3, 1)),
    "chunk_fewer": ([normal(5, 2)], lambda m, x: x.chunk(4)),
    "unbind": ([X3], lambda m, x: m.unbind(x, 2)),
    "narrow": ([X3], lambda m, x: m.narrow(x, 1, -4, 3)),
    "select": ([X3], lambda m, x: x.select(1, -2)),
    "cat_stack": ([X, normal(7, 5)], lambda m, a, b: (m.cat([a, b], 1), m.stack([a, b], 2))),
    "hstack_vstack": ([normal(7), normal(5), X, normal(7, 2), normal(3, 5)],
                      lambda m, a, b, x, c, r: (m.hstack([a, b]), m.hstack([x, c, x]),
                                                m.vstack([b, x[:2], r]), m.row_stack([b, b]),
                                                m.hstack([a[0], b]), m.vstack([a[0], a[1]]))),
    "flip": ([X3], lambda m, x: m.flip(x, (0, 2))),
    "flip_method_varargs": ([X3], lambda m, x: x.flip(1, 2)),
    "fliplr_flipud": ([X], lambda m, x: (m.fliplr(x), x.flipud())),
    "roll": ([X3], lambda m, x: m.roll(x, (2, -1), (1, 2))),
    "roll_flat": ([X], lambda m, x: x.roll(4)),
    "repeat": ([X], lambda m, x: x.repeat(2, 1, 3)),
    "tile": ([X3], lambda m, x: m.tile(x, (2, 1))),
    "repeat_interleave": ([X], lambda m, x: m.repeat_interleave(x, 2, dim=1)),
    "repeat_interleave_counts": ([X, ints(0, 4, 7)],
                                 lambda m, x, r: x.repeat_interleave(r, dim=0)),
    "repeat_interleave_flat": ([X], lambda m, x: x.repeat_interleave(3)),
}
MATRICES = {
    "dot": ([normal(7), normal(7)], lambda m, a, b: m.dot(a, b)),
    "mm": ([X, normal(5, 3)], lambda m, a, b: m.mm(a, b)),
    "bmm": ([X3, normal(3, 5, 2)], lambda m, a, b: a.bmm(b)),
    "mv": ([X, normal(5)], lambda m, a, b: m.mv(a, b)),
    "outer": ([normal(7), normal(5)], lambda m, a, b: m.outer(a, b)),
    "outer_ints_floats": ([ints(0, 5, 7), normal(5)], lambda m, a, b: a.outer(b)),
    "diag_of_vector": ([normal(5)], lambda m, v: (m.diag(v), v.diag(2), m.diag(v, -1))),
    "diag_of_matrix": ([X], lambda m, x: (m.diag(x), x.diag(1), x.diag(-3))),
    "diagonal": ([X3], lambda m, x: m.diagonal(x, 1, 1, 2)),
    "diagonal_dims": ([X3], lambda m, x: x.diagonal(-1, 0, -1)),
    "trace": ([X], lambda m, x: m.trace(x)),
    "tril": ([X3], lambda m, x: m.tril(x)),
    "tril_diagonal": ([X], lambda m, x: x.tril(-2)),
    "triu": ([X3], lambda m, x: m.triu(x, 1)),
    "einsum_matmul": ([X, normal(5, 3)], lambda m, a, b: m.einsum("ij,jk->ik", a, b)),
    "einsum_implicit": ([X, normal(5, 3)], lambda m, a, b: m.einsum("ij,jk", a, b)),
    "einsum_list": ([X, normal(5, 3)], lambda m, a, b: m.einsum("ij,jk->ki", [a, b])),
    "einsum_batch": ([X3, normal(3, 5, 2)], lambda m, a, b: m.einsum("bij,bjk->bik", a, b)),
    "einsum_trace": ([normal(5, 5)], lambda m, x: m.einsum("ii", x)),
    "einsum_diagonal": ([normal(3, 5, 5)], lambda m, x: m.einsum("bii->bi", x)),
    "einsum_sum_out": ([X3], lambda m, x: m.einsum("ijk->j", x)),
    "einsum_outer": ([normal(7), normal(5)], lambda m, a, b: m.einsum("i,j->ij", a, b)),
    "einsum_three": ([normal(7, 5), normal(5, 4), normal(4)],
                     lambda m, a, b, c: m.einsum("ij,jk,k->i", a, b, c)),
    "einsum_ellipsis": ([normal(2, 3, 7, 5), normal(5, 4)],
                        lambda m, a, b: m.einsum("...ij,jk->...ik", a, b)),
    "einsum_ellipsis_broadcast": ([normal(2, 1, 7, 5), normal(3, 5, 4)],
                                  lambda m, a, b: m.einsum("...ij,...jk->...ik", a, b)),
    "einsum_spaces_bilinear": ([normal(7, 5), normal(5, 3, 4), normal(7, 4)],
                               lambda m, a, w, b: m.einsum("bi, ijk, bk -> bj", a, w, b)),
    "meshgrid_ij": ([normal(7), normal(5), normal(3)],
                    lambda m, a, b, c: m.meshgrid(a, b, c, indexing="ij")),
    "meshgrid_xy": ([normal(7), normal(5)], lambda m, a, b: m.meshgrid([a, b], indexing="xy")),
    "cdist": ([X, normal(4, 5)], lambda m, a, b: m.cdist(a, b)),
    "cdist_batched_p1": ([X3, normal(3, 4, 5)], lambda m, a, b: m.cdist(a, b, p=1.0)),
    "cdist_p3": ([X, normal(4, 5)], lambda m, a, b: m.cdist(a, b, p=3)),
    "cdist_inf": ([X, normal(4, 5)], lambda m, a, b: m.cdist(a, b, p=float("inf"))),
    "cdist_with_itself": ([X], lambda m, a: m.cdist(a, a)),
}


@pytest.mark.parametrize("name", sorted(COMPARISONS))
def test_comparison_matches_torch(rng, name):
    check(*COMPARISONS[name][::-1], rng)


@pytest.mark.parametrize("name", sorted(SELECTION))
def test_selection_matches_torch(rng, name):
    check(*SELECTION[name][::-1], rng)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shape_op_matches_torch(rng, name):
    check(*SHAPES[name][::-1], rng)


@pytest.mark.parametrize("name", sorted(MATRICES))
def test_matrix_op_matches_torch(rng, name):
    check(*MATRICES[name][::-1], rng)
