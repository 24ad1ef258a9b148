"""Quantiles, aminmax, msort, ravel, dist, renorm, the trapezoidal rule and vander on their
own (no PyTorch needed): against numpy, gradients by gradcheck on odd float64 shapes, and
their errors.  test_statistics_and_integrals_match_torch.py compares them with PyTorch."""
import warnings

import numpy as np
import pytest

import nnbook as nb


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_is_numpys(rng, interpolation):
    a = rng.standard_normal((3, 7, 5))
    q = np.array([0.0, 0.2, 0.25, 0.5, 0.9, 1.0])
    for dim in (None, 0, 1, -1):
        got = nb.quantile(nb.tensor(a), nb.tensor(q), dim=dim, interpolation=interpolation)
        np.testing.assert_allclose(got.numpy(), np.quantile(a, q, axis=dim,
                                                            method=interpolation),
                                   rtol=1e-14, atol=1e-15)
    b = a.copy()
    b[rng.random(b.shape) < 0.3] = np.nan
    got = nb.nanquantile(nb.tensor(b), 0.3, dim=1, keepdim=True, interpolation=interpolation)
    with warnings.catch_warnings():  # (numpy warns of an all-NaN slice)
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = np.nanquantile(b, 0.3, axis=1, keepdims=True, method=interpolation)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-14, atol=1e-15)
    assert np.isnan(nb.quantile(nb.tensor(b), 0.5, dim=1).numpy()[np.isnan(b).any(1)]).all()


def test_quantile_gradient_splits_between_the_two_neighbours():
    x = nb.tensor([4.0, 1.0, 3.0, 2.0], requires_grad=True)
    nb.quantile(x, 0.4).backward()  # rank 0.4 * 3 = 1.2: between 2.0 (0.8) and 3.0 (0.2)
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0, 0.2, 0.8])
    y = nb.tensor([np.nan, 1.0, 3.0], requires_grad=True)
    nb.quantile(y, 0.5).backward()  # NaN: the gradient goes to the NaN
    assert y.grad.tolist() == [1.0, 0.0, 0.0]
    z = nb.tensor([np.nan, 1.0, 3.0], requires_grad=True)
    nb.nanquantile(z, 0.5).backward()  # 2.0, halfway between 1 and 3
    assert z.grad.tolist() == [0.0, 0.5, 0.5]


@pytest.mark.parametrize("fn", [
    lambda x: nb.quantile(x, 0.3, dim=0), lambda x: nb.quantile(x, nb.tensor([0.1, 0.8],
                                                                             dtype=nb.float64), 1),
    lambda x: nb.nanquantile(x, 0.6, -1, interpolation="midpoint"),
    lambda x: nb.aminmax(x, dim=0).max - nb.aminmax(x, dim=0).min, lambda x: nb.msort(x),
    lambda x: nb.dist(x, x.flip(0) * 2, 3), lambda x: x.renorm(2, 1, 1.0),
    lambda x: nb.trapezoid(x, dim=0), lambda x: nb.trapezoid(x, x.abs().cumsum(1)),
    lambda x: nb.cumulative_trapezoid(x, dx=0.3),
    lambda x: nb.vander(x[0], 4), lambda x: nb.vander(x[1] * 0, 3, increasing=True),
])
def test_gradients_pass_gradcheck(rng, fn):
    x = nb.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    assert nb.autograd.gradcheck(fn, (x,))


def test_nanmedian_skips_nan_and_picks_the_lower_middle(rng):
    a = rng.standard_normal((7, 6))
    a[rng.random(a.shape) < 0.3] = np.nan
    a[0] = np.nan
    values, indices = nb.nanmedian(nb.tensor(a), 1)
    for row, value, index in zip(a, values.numpy(), indices.numpy()):
        kept = np.sort(row[~np.isnan(row)])
        if len(kept) == 0:
            assert np.isnan(value) and np.isnan(row[index])
        else:
            assert value == kept[(len(kept) - 1) // 2] == row[index]
    x = nb.tensor([1.0, np.nan, 4.0, 3.0], requires_grad=True)
    nb.nanmedian(x).backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0, 1.0]
    assert np.isnan(nb.nanmedian(nb.ones(0)).item())


def test_unique_consecutive_keeps_each_run_once():
    x = nb.tensor([1, 1, 2, 2, 3, 1, 1, 2])
    values, inverse, counts = nb.unique_consecutive(x, return_inverse=True, return_counts=True)
    assert values.tolist() == [1, 2, 3, 1, 2] and counts.tolist() == [2, 2, 1, 2, 1]
    assert inverse.tolist() == [0, 0, 1, 1, 2, 3, 3, 4]
    rows = nb.tensor([[1, 2], [1, 2], [2, 2]])
    assert rows.unique_consecutive(dim=0).tolist() == [[1, 2], [2, 2]]
    assert rows.unique_consecutive(dim=1, return_counts=True)[1].tolist() == [1, 1]
    nans = nb.unique_consecutive(nb.tensor([np.nan, np.nan]))
    assert nans.shape == (2,)  # NaN is not equal to NaN: two runs


def test_the_others_against_numpy(rng):
    a = rng.standard_normal((7, 5))
    x = nb.tensor(a)
    low, high = nb.aminmax(x, dim=-1)
    assert low.tolist() == a.min(-1).tolist() and high.tolist() == a.max(-1).tolist()
    assert nb.aminmax(x).min.item() == a.min()
    np.testing.assert_array_equal(nb.msort(x).numpy(), np.sort(a, axis=0))
    np.testing.assert_array_equal(x.ravel().numpy(), a.ravel())
    assert nb.dist(x, x * 0).item() == pytest.approx(np.sqrt((a ** 2).sum()), rel=1e-14)
    renormed = x.renorm(2, 0, 1.0).numpy()
    norms = np.linalg.norm(a, axis=1)
    expected = np.where((norms > 1)[:, None], a / (norms[:, None] + 1e-7), a)
    np.testing.assert_allclose(renormed, expected, rtol=1e-14)
    t = np.cumsum(rng.uniform(0.1, 1, 5))
    np.testing.assert_allclose(nb.trapezoid(x, nb.tensor(t)).numpy(), np.trapezoid(a, t),
                               rtol=1e-14)
    np.testing.assert_allclose(nb.cumulative_trapezoid(x, dim=0).numpy()[-1],
                               np.trapezoid(a, axis=0), rtol=1e-13)
    np.testing.assert_array_equal(nb.vander(nb.tensor([2, 3, 5])).numpy(),
                                  np.vander([2, 3, 5]))
    np.testing.assert_allclose(nb.vander(nb.tensor(a[0]), 6, True).numpy(),
                               np.vander(a[0], 6, True), rtol=1e-15)


@pytest.mark.parametrize("act, error, match", [
    (lambda: nb.quantile(nb.ones(3), 1.5), nb.InputError, r"q must be in \[0, 1\]"),
    (lambda: nb.quantile(nb.ones(3), nb.tensor([0.5], dtype=nb.float64)), nb.DTypeError,
     "q must have the input's dtype"),
    (lambda: nb.quantile(nb.tensor([1, 2]), 0.5), nb.DTypeError, "floating point"),
    (lambda: nb.quantile(nb.ones(3), 0.5, interpolation="cubic"), nb.InputError,
     "interpolation must be one of"),
    (lambda: nb.quantile(nb.ones(0), 0.5), nb.ShapeError, "empty tensor"),
    (lambda: nb.quantile(nb.ones(3), nb.ones(2, 2) / 2), nb.ShapeError, "1-D tensor"),
    (lambda: nb.quantile(nb.ones(3), 0.5, dim=2), nb.DimError, "out of range"),
    (lambda: nb.aminmax(nb.ones(0)), nb.ShapeError, "empty tensor"),
    (lambda: nb.ones(3, 2).renorm(-1, 0, 1.0), nb.InputError, "p > 0"),
    (lambda: nb.trapezoid(nb.ones(5), nb.ones(4)), nb.ShapeError, "4 sample points"),
    (lambda: nb.trapezoid(nb.ones(5), nb.ones(5), dx=1.0), nb.InputError, "not both"),
    (lambda: nb.vander(nb.ones(2, 2)), nb.ShapeError, "takes a vector"),
    (lambda: nb.vander(nb.ones(2), N=-1), nb.InputError, "N must be a whole number"),
])
def test_wrong_inputs_get_nnbook_errors(act, error, match):
    with pytest.raises(error, match=match):
        act()
