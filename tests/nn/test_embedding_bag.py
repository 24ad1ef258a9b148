"""F.embedding_bag and nn.EmbeddingBag: bags pooled against plain numpy loops in every
mode, gradients by gradcheck (to the table and to per_sample_weights), the padding row,
shape inference, and the errors of wrong offsets, modes and sample weights."""
import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import DimError, DTypeError, InputError, ShapeError
from nnbook.nn import functional as F

OFFSETS = np.array([0, 3, 3, 8, 12])  # 5 bags of 13 indices, one of them empty


def bags_of(flat, offsets):
    ends = list(offsets[1:]) + [len(flat)]
    return [flat[s:e] for s, e in zip(offsets, ends)]


def pooled(table, bags, mode, padding_idx=None, weights=None):
    """What each bag gives, one at a time."""
    out = np.zeros((len(bags), table.shape[1]))
    for b, bag in enumerate(bags):
        kept = [i for i in range(len(bag)) if bag[i] != padding_idx]
        if not kept:
            continue
        vectors = table[[bag[i] for i in kept]]
        if weights is not None:
            vectors = vectors * np.array([weights[b][i] for i in kept])[:, None]
        out[b] = {"sum": vectors.sum(0), "mean": vectors.mean(0), "max": vectors.max(0)}[mode]
    return out


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_each_bag_is_pooled_leaving_the_padding_out(rng, mode):
    table, flat = rng.standard_normal((10, 5)), rng.integers(0, 10, 13)
    flat[8:12] = 4  # a bag of padding only
    got = F.embedding_bag(nb.tensor(flat), nb.tensor(table), nb.tensor(OFFSETS), mode=mode,
                          padding_idx=4)
    np.testing.assert_allclose(got.numpy(), pooled(table, bags_of(flat, OFFSETS), mode, 4),
                               rtol=1e-12)
    rows = rng.integers(0, 10, (7, 3))
    got = F.embedding_bag(nb.tensor(rows), nb.tensor(table), mode=mode)
    np.testing.assert_allclose(got.numpy(), pooled(table, list(rows), mode), rtol=1e-12)


def test_the_last_offset_may_close_the_last_bag(rng):
    table, flat = rng.standard_normal((10, 5)), rng.integers(0, 10, 13)
    with_end = F.embedding_bag(nb.tensor(flat), nb.tensor(table), nb.tensor(
        np.append(OFFSETS, 13)), include_last_offset=True)
    np.testing.assert_allclose(with_end.numpy(), F.embedding_bag(
        nb.tensor(flat), nb.tensor(table), nb.tensor(OFFSETS)).numpy())


def test_per_sample_weights_weigh_each_index(rng):
    table, flat, psw = rng.standard_normal((10, 5)), rng.integers(0, 10, 13), \
        rng.standard_normal(13)
    got = F.embedding_bag(nb.tensor(flat), nb.tensor(table), nb.tensor(OFFSETS), mode="sum",
                          per_sample_weights=nb.tensor(psw))
    np.testing.assert_allclose(got.numpy(), pooled(table, bags_of(flat, OFFSETS), "sum",
                                                   weights=bags_of(psw, OFFSETS)), rtol=1e-12)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_gradcheck_to_the_table(rng, mode):
    flat = nb.tensor(np.array([1, 4, 1, 6, 0, 2, 4, 4, 9, 3, 2, 1, 0]))
    table = nb.tensor(rng.standard_normal((10, 5)), requires_grad=True)
    assert nb.gradcheck(lambda w: F.embedding_bag(flat, w, nb.tensor(OFFSETS), mode=mode,
                                                  padding_idx=2), (table,))


def test_gradcheck_to_the_sample_weights(rng):
    rows = nb.tensor(rng.integers(0, 10, (7, 3)))
    table = nb.tensor(rng.standard_normal((10, 5)), requires_grad=True)
    psw = nb.tensor(rng.standard_normal((7, 3)), requires_grad=True)
    assert nb.gradcheck(lambda w, p: F.embedding_bag(rows, w, mode="sum",
                                                     per_sample_weights=p), (table, psw))


def test_max_passes_each_gradient_to_the_row_that_won(rng):
    table = nb.tensor(np.array([[0.0, 5.0], [3.0, 1.0], [2.0, 2.0]]), requires_grad=True)
    F.embedding_bag(nb.tensor([[0, 1, 2]]), table, mode="max").backward(nb.tensor([[7.0, 9.0]]))
    np.testing.assert_array_equal(table.grad.numpy(), [[0, 9], [7, 0], [0, 0]])


def test_scale_grad_by_freq_divides_each_rows_gradient_by_its_count(rng):
    table = nb.tensor(rng.standard_normal((10, 5)), requires_grad=True)
    rows = np.array([[1, 1, 2], [1, 3, 2]])
    F.embedding_bag(nb.tensor(rows), table, mode="sum", scale_grad_by_freq=True).sum().backward()
    expected = np.zeros(10)
    expected[[1, 2, 3]] = 1  # each row's gradients summed, then divided by its count
    np.testing.assert_allclose(table.grad.numpy(), np.repeat(expected[:, None], 5, 1))


def test_the_padding_row_never_learns_and_starts_at_zero(rng):
    bag = nn.EmbeddingBag(10, 4, mode="sum", padding_idx=-2, dtype=nb.float64)
    assert bag.padding_idx == 8 and not bag.weight.detach().numpy()[8].any()
    bag(nb.tensor([[8, 1, 8], [2, 8, 3]])).sum().backward()
    assert not bag.weight.grad.numpy()[8].any() and bag.weight.grad.numpy()[1].all()


def test_the_layer_keeps_its_table_as_weight_and_infers_shapes():
    bag = nn.EmbeddingBag(20, 6, mode="max")
    assert list(bag.state_dict()) == ["weight"] and bag.weight.shape == (20, 6)
    assert repr(bag) == "EmbeddingBag(20, 6, mode='max')"
    trace = nb.infer_shapes(nn.Sequential(bag, nn.Linear(6, 3)), (7, 5))
    assert trace.ok and trace.output_shape == (7, 3) and trace.input_dtype == "int64"


def test_from_pretrained_shares_the_table_frozen_by_default(rng):
    table = nb.tensor(rng.standard_normal((10, 5)))
    bag = nn.EmbeddingBag.from_pretrained(table, mode="sum")
    assert not bag.weight.requires_grad and bag.mode == "sum"
    assert nn.EmbeddingBag.from_pretrained(table, freeze=False).weight.requires_grad


def test_max_norm_rescales_only_the_rows_looked_up(rng):
    table = nb.tensor(rng.standard_normal((10, 5)) * 3)
    before = table.numpy().copy()
    F.embedding_bag(nb.tensor([[1, 2], [2, 3]]), table, max_norm=1.0)
    norms = np.linalg.norm(table.numpy(), axis=1)
    assert (norms[[1, 2, 3]] <= 1.0 + 1e-6).all()
    np.testing.assert_array_equal(table.numpy()[4:], before[4:])


IDX, TABLE = nb.tensor([1, 2, 3, 4]), nb.randn(10, 3, dtype=nb.float64)


@pytest.mark.parametrize("call,error,match", [
    (lambda: F.embedding_bag(IDX, TABLE), InputError, r"a 1-D input needs offsets"),
    (lambda: F.embedding_bag(IDX, TABLE, nb.tensor([1, 3])), InputError,
     r"offsets\[0\] must be 0"),
    (lambda: F.embedding_bag(IDX, TABLE, nb.tensor([0, 3, 2])), InputError,
     r"offsets must not decrease"),
    (lambda: F.embedding_bag(IDX, TABLE, nb.tensor([0, 5])), InputError,
     r"nor pass the input's length"),
    (lambda: F.embedding_bag(IDX, TABLE, nb.tensor([0, 2]), include_last_offset=True),
     InputError, r"must be the input's length 4, got 2"),
    (lambda: F.embedding_bag(IDX.reshape(2, 2), TABLE, nb.tensor([0, 1])), InputError,
     r"offsets must be None for a 2-D input"),
    (lambda: F.embedding_bag(IDX.reshape(2, 2), TABLE, mode="avg"), InputError,
     r"mode='avg' is not one of"),
    (lambda: nn.EmbeddingBag(10, 3, mode="avg"), InputError, r"mode='avg' is not one of"),
    (lambda: F.embedding_bag(IDX.reshape(2, 2), TABLE, mode="mean",
                             per_sample_weights=nb.ones(2, 2, dtype=nb.float64)), InputError,
     r"only supported for mode='sum'"),
    (lambda: F.embedding_bag(IDX.reshape(2, 2), TABLE, mode="sum",
                             per_sample_weights=nb.ones(4, dtype=nb.float64)), ShapeError,
     r"per_sample_weights must have the input's shape \(2, 2\), got \(4,\)"),
    (lambda: F.embedding_bag(IDX.reshape(2, 2), TABLE, mode="sum",
                             per_sample_weights=nb.ones(2, 2)), DTypeError,
     r"weight's dtype float64, got float32"),
    (lambda: F.embedding_bag(IDX.reshape(2, 2), TABLE, mode="max", scale_grad_by_freq=True),
     InputError, r"max mode does not support scaling"),
    (lambda: F.embedding_bag(nb.tensor([[1, 12]]), TABLE), DimError,
     r"index 12 at position \(0, 1\) is out of range for an embedding of 10 rows"),
    (lambda: F.embedding_bag(nb.tensor([[1.0, 2.0]]), TABLE), DTypeError,
     r"integer indices.*input\.long\(\)|integer indices"),
    (lambda: F.embedding_bag(nb.tensor(1), TABLE), ShapeError, r"1-D \(with offsets\) or 2-D"),
    (lambda: F.embedding_bag(IDX.reshape(2, 2), TABLE[0]), ShapeError, r"weight must be 2-D"),
    (lambda: F.embedding_bag(IDX.reshape(2, 2), TABLE, padding_idx=10), InputError,
     r"padding_idx=10 must be within num_embeddings \(10\)"),
    (lambda: F.embedding_bag(IDX.reshape(2, 2), TABLE, sparse=True), InputError,
     r"sparse=True"),
])
def test_wrong_inputs_get_nnbook_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_a_nan_in_a_max_bag_wins_and_takes_the_gradient():
    table = nb.tensor(np.array([[1.0, 1.0], [np.nan, 3.0]]), requires_grad=True)
    out = F.embedding_bag(nb.tensor([[0, 1]]), table, mode="max")
    assert np.isnan(out.detach().numpy()[0, 0])
    out.sum().backward()
    np.testing.assert_array_equal(table.grad.numpy(), [[0, 0], [1, 1]])
