"""Counting and binning on their own (no PyTorch needed): bincount, histc, histogram,
isin, searchsorted and bucketize against numpy and against counting by hand, edges and
empty inputs, and the nnbook errors for what PyTorch refuses.
tests/ops/test_bins_match_torch.py compares them with PyTorch."""
import numpy as np
import pytest

import nnbook as nb


def test_bincount_counts_and_sums_weights_as_numpy(rng):
    labels = rng.integers(0, 9, 35)
    weights = rng.standard_normal(35)
    assert nb.bincount(nb.tensor(labels)).tolist() == np.bincount(labels).tolist()
    counted = nb.tensor(labels).bincount(nb.tensor(weights), minlength=12)
    np.testing.assert_allclose(counted.numpy(), np.bincount(labels, weights, 12))
    assert counted.dtype == nb.float64 and nb.bincount(nb.tensor(labels)).dtype == nb.int64
    assert nb.bincount(nb.tensor(labels), nb.tensor(weights).float()).dtype == nb.float32
    assert nb.bincount(nb.zeros(0, dtype=nb.int64), minlength=3).tolist() == [0, 0, 0]


def by_hand(values, low, high, bins):
    """Counts in equal bins over [low, high], the last closed, one value at a time."""
    counts = [0] * bins
    for v in values:
        if low <= v <= high:
            counts[min(int((v - low) * bins / (high - low)), bins - 1)] += 1
    return counts


def test_histc_counts_equal_bins_over_the_range_or_the_values_own(rng):
    a = rng.standard_normal(35)
    assert nb.histc(nb.tensor(a), 7).tolist() == by_hand(a, a.min(), a.max(), 7)
    assert nb.tensor(a).histc(5, min=-1, max=0.5).tolist() == by_hand(a, -1, 0.5, 5)
    edges = np.array([0.0, 0.75, 1.5, 2.25, 3.0, 3.0, np.nan, -0.1, 3.1])
    assert nb.histc(nb.tensor(edges), 4, 0, 3).tolist() == [1, 1, 1, 3]  # 3.0 in the last
    assert nb.histc(nb.tensor([2.0, 2.0]), 4).tolist() == [0, 0, 2, 0]  # over [1, 3]
    assert nb.histc(nb.tensor(a).float()).dtype == nb.float32


def test_histogram_matches_numpys_counts_edges_and_density(rng):
    a = rng.standard_normal((7, 5))
    for bins, kwargs in [(6, {}), (4, {"range": (-1.0, 0.5)}), (5, {"density": True})]:
        hist, edges = nb.histogram(nb.tensor(a), bins, **kwargs)
        np_hist, np_edges = np.histogram(a, bins, **kwargs)
        np.testing.assert_allclose(hist.numpy(), np_hist, rtol=1e-12)
        np.testing.assert_allclose(edges.numpy(), np_edges, rtol=1e-12)
    w = np.abs(rng.standard_normal((7, 5)))
    given = np.array([-2.0, -0.5, 0.0, 0.25, 1.0])
    hist, edges = nb.tensor(a).histogram(nb.tensor(given), weight=nb.tensor(w))
    np.testing.assert_allclose(hist.numpy(), np.histogram(a, given, weights=w)[0])
    assert edges.tolist() == given.tolist()
    single = nb.histogram(nb.tensor([2.5, 2.5]), 4)
    assert single.bin_edges.tolist() == [2.0, 2.25, 2.5, 2.75, 3.0]
    assert single.hist.tolist() == [0, 0, 2, 0]


def test_searchsorted_bucketize_and_isin_as_numpy(rng):
    seq = np.sort(rng.integers(-20, 20, 9))
    values = rng.integers(-25, 25, (7, 5))
    for side in ("left", "right"):
        found = nb.searchsorted(nb.tensor(seq), nb.tensor(values), side=side)
        assert found.tolist() == np.searchsorted(seq, values, side).tolist()
        assert found.dtype == nb.int64
    rows = np.sort(rng.integers(-20, 20, (3, 9)), -1)
    queries = rng.integers(-25, 25, (3, 4))
    found = nb.searchsorted(nb.tensor(rows), nb.tensor(queries), right=True).numpy()
    for r in range(3):
        assert found[r].tolist() == np.searchsorted(rows[r], queries[r], "right").tolist()
    shuffled = rng.permutation(seq)
    order = nb.tensor(shuffled).argsort()
    assert nb.searchsorted(nb.tensor(shuffled), nb.tensor(values), sorter=order).tolist() \
        == np.searchsorted(seq, values).tolist()
    buckets = nb.bucketize(nb.tensor(values), nb.tensor(seq), right=True, out_int32=True)
    assert buckets.dtype == nb.int32
    assert buckets.tolist() == np.searchsorted(seq, values, "right").tolist()
    test = rng.integers(0, 9, 4)
    small = rng.integers(0, 9, (7, 5))
    assert nb.isin(nb.tensor(small), nb.tensor(test)).tolist() == np.isin(small, test).tolist()
    assert nb.isin(nb.tensor(small), nb.tensor(test), invert=True).tolist() == \
        (~np.isin(small, test)).tolist()
    assert nb.isin(3, nb.tensor([1, 3])).item() is True
    # NaN sorts last (as sort places it): numbers before it, NaN after the numbers
    with_nan = nb.tensor([1.0, 2.0, np.nan, np.nan])
    assert nb.searchsorted(with_nan, nb.tensor([2.0, 5.0, np.nan])).tolist() == [1, 2, 2]
    assert nb.searchsorted(with_nan, nb.tensor([2.0, np.nan]), right=True).tolist() == [2, 4]


def test_histogram_is_pytorchs_named_tuple_and_nothing_requires_grad(rng):
    x = nb.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    result = nb.histogram(x, 4)
    assert type(result).__name__ == "histogram" and result._fields == ("hist", "bin_edges")
    assert not result.hist.requires_grad and not x.histc(3).requires_grad
    assert not nb.bincount(nb.tensor([0, 2, 2, 1, 0]), x[0]).requires_grad
    assert result.hist.sum().item() == 35


@pytest.mark.parametrize("call, error, match", [
    (lambda: nb.bincount(nb.tensor([1.0, 2.0])), nb.DTypeError, "counts integers, got float"),
    (lambda: nb.bincount(nb.tensor([True, False])), nb.DTypeError, "got bool"),
    (lambda: nb.bincount(nb.tensor([-1, 2])), nb.InputError, "non-negative .* the value -1"),
    (lambda: nb.bincount(nb.tensor([[1, 2]])), nb.ShapeError, "1-D .* got 2-D"),
    (lambda: nb.bincount(nb.tensor(2)), nb.ShapeError, "got 0-D"),
    (lambda: nb.bincount(nb.tensor([1, 2]), minlength=-1), nb.InputError, "minlength"),
    (lambda: nb.bincount(nb.tensor([1, 2]), nb.ones(3)), nb.ShapeError, "one weight per"),
    (lambda: nb.histc(nb.tensor([1, 2])), nb.DTypeError, "floating point values, got int64"),
    (lambda: nb.histc(nb.tensor([1.0, 2.0]), bins=0), nb.InputError, "bins must be an int"),
    (lambda: nb.histc(nb.tensor([1.0, 2.0]), 4, 3, 1), nb.InputError, "larger than its max"),
    (lambda: nb.histc(nb.tensor([1.0, np.inf]), 4), nb.InputError, "not finite"),
    (lambda: nb.histogram(nb.tensor([1.0, np.nan]), 2), nb.InputError, "not finite"),
    (lambda: nb.histogram(nb.tensor([1.0, 2.0]), 2, range=(3.0, 1.0)), nb.InputError,
     "larger than its max"),
    (lambda: nb.histogram(nb.tensor([1.0, 2.0]), nb.tensor([[0.0, 1.0]])), nb.ShapeError,
     "1-D"),
    (lambda: nb.histogram(nb.tensor([1.0], dtype=nb.float64), nb.tensor([0.0, 1.0])),
     nb.DTypeError, "input's dtype float64"),
    (lambda: nb.histogram(nb.tensor([1.0, 2.0]), 2, weight=nb.ones(3)), nb.ShapeError,
     "weight must have the input's shape"),
    (lambda: nb.histogram(nb.tensor([1.0, 2.0]), 2, weight=nb.ones(2, dtype=nb.float64)),
     nb.DTypeError, "weight"),
    (lambda: nb.searchsorted(nb.tensor([1, 3]), nb.tensor([2]), side="middle"),
     nb.InputError, "side must be"),
    (lambda: nb.searchsorted(nb.tensor([1, 3]), nb.tensor([2]), side="left", right=True),
     nb.InputError, "opposite sides"),
    (lambda: nb.searchsorted(nb.zeros(2, 5), nb.zeros(3)), nb.ShapeError, "leading dims"),
    (lambda: nb.searchsorted(nb.zeros(1, 5), nb.zeros(2, 1)), nb.ShapeError, "leading dims"),
    (lambda: nb.searchsorted(nb.zeros(5), nb.zeros(2), sorter=nb.zeros(4)), nb.InputError,
     "sorter must be"),
    (lambda: nb.bucketize(nb.tensor([3]), nb.zeros(1, 5)), nb.ShapeError,
     "boundaries must be 1-D"),
])
def test_wrong_inputs_get_nnbook_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()
