"""The NaN-skipping reductions, running max/min/log-sum-exp, diff, remainders and special
functions on their own (no PyTorch needed): forwards against numpy and Python's math,
backwards by gradcheck on odd float64 shapes, ties and NaN by PyTorch's rules, their
in-place forms and their errors.  tests/ops/*_match_torch.py compares them with PyTorch."""
import math

import numpy as np
import pytest

import nnbook as nb


def test_nansum_and_nanmean_skip_nan_and_their_gradients_skip_it_too(rng):
    a = rng.standard_normal((3, 7, 5))
    a[rng.random(a.shape) < 0.3] = np.nan
    a[0, :, 0] = np.nan  # a slice with nothing but NaN
    x = nb.tensor(a, requires_grad=True)
    np.testing.assert_allclose(nb.nansum(x, (0, 2)).detach().numpy(), np.nansum(a, (0, 2)))
    np.testing.assert_allclose(x.nansum().item(), np.nansum(a))
    mean = nb.nanmean(x, 1, keepdim=True)
    with np.errstate(invalid="ignore"):
        counts = (~np.isnan(a)).sum(1, keepdims=True)
        np.testing.assert_allclose(mean.detach().numpy(), np.nansum(a, 1, keepdims=True)
                                   / counts)
    mean.nan_to_num().sum().backward()
    with np.errstate(divide="ignore"):
        expected = np.where(np.isnan(a), 0.0, 1.0 / counts)
    np.testing.assert_allclose(x.grad.numpy()[:, :, 1:], expected[:, :, 1:])
    assert np.isnan(x.grad.numpy()[0, :, 0]).all()  # 1/0 of an all-NaN slice, as PyTorch
    assert nb.nansum(nb.tensor([[1, 2], [3, 4]]), 0).tolist() == [4, 6]
    assert nb.nansum(nb.ones(2, 3), dim=()).item() == 6  # () is every dim
    assert math.isnan(nb.nanmean(nb.zeros(0)).item()) and nb.nansum(nb.zeros(0)).item() == 0


def running(a, better):
    """cummax/cummin by the definition: a later element takes over when it is at least as
    good (ties go to the later one), and a NaN, once met, stays (each new NaN taking over)."""
    values, indices = np.empty_like(a), np.empty(a.shape, np.int64)
    for i, v in enumerate(a):
        if i == 0 or math.isnan(v) or (not math.isnan(values[i - 1])
                                       and (v == values[i - 1] or better(v, values[i - 1]))):
            values[i], indices[i] = v, i
        else:
            values[i], indices[i] = values[i - 1], indices[i - 1]
    return values, indices


@pytest.mark.parametrize("name, better", [("cummax", lambda a, b: a > b),
                                          ("cummin", lambda a, b: a < b)])
def test_cummax_and_cummin_take_the_later_of_ties_and_keep_nan(rng, name, better):
    a = rng.integers(-3, 4, (7, 5)).astype(np.float64)
    a[rng.random(a.shape) < 0.1] = np.nan
    for dim in (0, -1):
        values, indices = getattr(nb, name)(nb.tensor(a), dim)
        rows = np.moveaxis(a, dim, 0).T
        for r, row in enumerate(rows):
            v, i = running(row, better)
            np.testing.assert_array_equal(np.moveaxis(values.numpy(), dim, 0).T[r], v)
            np.testing.assert_array_equal(np.moveaxis(indices.numpy(), dim, 0).T[r], i)
    x = nb.tensor([1.0, 3.0, 3.0, 2.0, 5.0, 5.0], requires_grad=True)
    x.cummax(0).values.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 2.0, 0.0, 1.0, 1.0]  # each value's gradient to its index


def test_logcumsumexp_is_log_of_cumsum_of_exp_without_overflow(rng):
    a = rng.standard_normal((7, 5))
    np.testing.assert_allclose(nb.logcumsumexp(nb.tensor(a), 0).numpy(),
                               np.log(np.cumsum(np.exp(a), 0)), rtol=1e-13)
    # the gradient of sum_j w_j y_j is sum_{j>=i} w_j exp(x_i - y_j): by the definition
    x = nb.tensor(a, requires_grad=True)
    w = rng.standard_normal((7, 5))  # of both signs
    y = nb.logcumsumexp(x, 0)
    (y * nb.tensor(w)).sum().backward()
    yy = y.detach().numpy()
    expected = [[sum(w[j, c] * np.exp(a[i, c] - yy[j, c]) for j in range(i, 7))
                 for c in range(5)] for i in range(7)]
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)
    big = nb.logcumsumexp(nb.tensor(a * 1000 + 5000), -1).numpy()
    assert np.isfinite(big).all()
    np.testing.assert_allclose(big[:, -1], np.logaddexp.reduce(a * 1000 + 5000, axis=-1))


def test_diff_subtracts_neighbours_n_times_along_dim(rng):
    a = rng.standard_normal((7, 5))
    x = nb.tensor(a)
    np.testing.assert_allclose(nb.diff(x, n=2, dim=0).numpy(), np.diff(a, 2, axis=0))
    before, after = rng.standard_normal((7, 2)), rng.standard_normal((7, 1))
    np.testing.assert_allclose(x.diff(prepend=nb.tensor(before), append=nb.tensor(after))
                               .numpy(), np.diff(a, prepend=before, append=after))
    assert nb.diff(nb.tensor([True, False, False, True])).tolist() == [True, False, True]
    assert nb.diff(nb.arange(4), n=7).shape == (0,)


def test_fmod_keeps_the_sign_of_the_dividend_and_remainder_that_of_the_divisor(rng):
    a, b = rng.standard_normal((7, 5)) * 5, rng.standard_normal(5) + 3
    np.testing.assert_allclose(nb.fmod(nb.tensor(a), nb.tensor(-b)).numpy(), np.fmod(a, -b))
    np.testing.assert_allclose(nb.remainder(nb.tensor(a), -1.5).numpy(), np.remainder(a, -1.5))
    assert nb.fmod(nb.tensor([-7, 7]), 3).tolist() == [-1, 1]
    assert nb.remainder(7, nb.tensor([-3, 3])).tolist() == [-2, 1]
    assert nb.floor_divide(-7, nb.tensor([2])).tolist() == [-4]
    assert math.isnan(nb.fmod(nb.tensor([1.0]), 0.0).item())


def test_special_functions_against_numpy_and_math(rng):
    a, b = rng.standard_normal((7, 5)), np.abs(rng.standard_normal(5)) + 0.1
    x, y = nb.tensor(a), nb.tensor(b)
    np.testing.assert_allclose(nb.xlogy(x, y).numpy(), a * np.log(b), rtol=1e-14)
    zero_times = nb.xlogy(nb.tensor([0.0, 0.0]), nb.tensor([0.0, np.nan])).numpy()
    assert zero_times[0] == 0.0 and np.isnan(zero_times[1])  # 0 log 0 = 0, 0 log NaN = NaN
    np.testing.assert_allclose(nb.logaddexp(x, y).numpy(), np.logaddexp(a, b), rtol=1e-14)
    np.testing.assert_allclose(x.logaddexp2(y).numpy(), np.logaddexp2(a, b), rtol=1e-14)
    np.testing.assert_allclose(nb.hypot(x, y).numpy(), np.hypot(a, b), rtol=1e-14)
    np.testing.assert_allclose(nb.erfc(x).numpy(), [[math.erfc(v) for v in row] for row in a],
                               rtol=1e-15)
    assert nb.erfc(nb.tensor([10.0], dtype=nb.float64)).item() == math.erfc(10.0)  # 2e-45
    assert nb.nan_to_num(nb.tensor([np.nan, np.inf, -np.inf]), 1.0).tolist() == \
        [1.0, float(np.finfo(np.float32).max), float(np.finfo(np.float32).min)]


def test_erfinv_inverts_erf_to_the_last_digit_and_handles_the_ends(rng):
    u = np.concatenate([rng.uniform(-1, 1, 5000), 1 - np.logspace(-15, -1, 200)])
    y = nb.erfinv(nb.tensor(u)).numpy()
    back = np.array([math.erf(v) for v in y])
    np.testing.assert_allclose(back, u, rtol=5e-16, atol=1e-300)  # one rounding of erf
    # near 1, erf loses the digits: check 1 - x through erfc instead
    tail = 1 - np.logspace(-15, -1, 200)
    np.testing.assert_allclose([math.erfc(v) for v in nb.erfinv(nb.tensor(tail)).numpy()],
                               1 - tail, rtol=1e-14)
    ends = nb.erfinv(nb.tensor([1.0, -1.0, 1.5, np.nan, -0.0])).numpy()
    assert ends[0] == np.inf and ends[1] == -np.inf and np.isnan(ends[2:4]).all()
    assert np.signbit(ends[4])
    assert nb.erfinv(nb.tensor([0, 1])).dtype == nb.float32  # integers compute in float


def test_cummax_and_cummin_are_pytorchs_named_tuples(rng):
    x = nb.tensor(rng.standard_normal((7, 5)))
    result = x.cummax(dim=-1)
    assert type(result).__name__ == "cummax" and result._fields == ("values", "indices")
    assert type(nb.cummin(x, 0)).__name__ == "cummin"
    values, indices = result
    assert indices.dtype == nb.int64 and values.shape == indices.shape == (7, 5)


@pytest.mark.parametrize("name", ["xlogy", "logaddexp", "logaddexp2", "hypot", "fmod",
                                  "remainder"])
def test_binary_ops_pass_gradcheck(rng, name):
    a = nb.tensor(rng.standard_normal((7, 5)) * 3, requires_grad=True)  # of both signs
    b = nb.tensor(np.abs(rng.standard_normal(5)) + 0.7, requires_grad=True)
    assert nb.autograd.gradcheck(lambda a, b: getattr(nb, name)(a, b), (a, b))
    if name != "xlogy":  # (log of a negative number is NaN)
        assert nb.autograd.gradcheck(lambda a, b: getattr(nb, name)(a, -b), (a, b))


@pytest.mark.parametrize("fn", [
    lambda x: nb.nansum(x, 1), lambda x: nb.nanmean(x, -1, keepdim=True),
    lambda x: nb.diff(x, n=2, dim=0), lambda x: nb.cummax(x, 1).values,
    lambda x: nb.cummin(x, 0).values, lambda x: nb.logcumsumexp(x * 20, -1),
    lambda x: nb.erfc(x), lambda x: nb.erfinv(x.tanh() * 0.9),
    lambda x: nb.nan_to_num(x)])
def test_unary_ops_pass_gradcheck(rng, fn):
    x = nb.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    assert nb.autograd.gradcheck(fn, (x,))


def test_integer_division_by_zero_is_an_nnbook_error():
    for call in (lambda: nb.fmod(nb.tensor([3, 4]), 0), lambda: nb.tensor([3]).fmod_(0),
                 lambda: nb.remainder(nb.tensor([3]), nb.tensor([0])),
                 lambda: nb.floor_divide(7, nb.tensor([1, 0]))):
        with pytest.raises(nb.InputError, match="integer division by zero"):
            call()


@pytest.mark.parametrize("call, error, match", [
    (lambda: nb.fmod(nb.tensor([True]), True), nb.DTypeError, "fmod of two bools"),
    (lambda: nb.logaddexp(nb.tensor([1, 2]), nb.tensor([3, 4])), nb.DTypeError,
     "logaddexp needs floating point operands, got int64"),
    (lambda: nb.hypot(nb.tensor([3]), nb.tensor([4])), nb.DTypeError,
     "hypot needs floating point"),
    (lambda: nb.logcumsumexp(nb.tensor([1, 2]), 0), nb.DTypeError, "floating point input"),
    (lambda: nb.nanmean(nb.tensor([1, 2])), nb.DTypeError, "nanmean needs a floating point"),
    (lambda: nb.nanmean(nb.tensor([1, 2]), dtype=nb.float64), nb.DTypeError, "nanmean"),
    (lambda: nb.cummax(nb.zeros(2, 3), 2), nb.DimError, "dim=2 is out of range"),
    (lambda: nb.logcumsumexp(nb.zeros(2, 3), -3), nb.DimError, "out of range"),
    (lambda: nb.diff(nb.tensor(3.0)), nb.ShapeError, "at least one dimension"),
    (lambda: nb.diff(nb.zeros(3), n=-1), nb.InputError, "n .* must be an int >= 0"),
    (lambda: nb.diff(nb.zeros(2, 3), dim=0, append=nb.zeros(3)), nb.ShapeError,
     "2 dimension"),
    (lambda: nb.diff(nb.zeros(2, 3), prepend=1.0), nb.ShapeError, "must be tensors"),
    (lambda: nb.diff(nb.zeros(2, 3), dim=0, append=nb.zeros(1, 2)), nb.ShapeError,
     "all sizes except dim 0 must match"),
    (lambda: nb.tensor([1, 2]).xlogy_(2), nb.DTypeError, "cannot be stored"),
    (lambda: nb.tensor([1, 2]).fmod_(2.5), nb.DTypeError, "cannot be stored"),
    (lambda: nb.tensor([1, 2]).erfinv_(), nb.DTypeError, "cannot be stored"),
])
def test_wrong_inputs_get_nnbook_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_data_free_shape_inference_runs_through_them():
    class Net(nb.nn.Module):
        def forward(self, x):
            values, indices = x.cummax(1)
            y = values + indices + x.cummin(0).indices + x.logcumsumexp(0) + x.erfinv()
            y = y + x.nansum(0) + x.nanmean(-1, keepdim=True) + x.diff(prepend=x[:, :1])
            return y + nb.fmod(x, 2) + x.xlogy(x) + x.hypot(x) + x.logaddexp(x) + x.erfc()

    trace = nb.infer_shapes(Net(), (1000, 4096))
    assert trace.error is None and trace.output_shape == (1000, 4096)
