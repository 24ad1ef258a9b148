"""Reductions: forward against numpy, backward by gradcheck on odd non-square float64
shapes (dim as an int, a tuple, negative, or None; keepdim), and the errors for bad
arguments."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import ArgumentError, DTypeError, InputError, ShapeError


def _logsumexp(v, axis, keepdims=False):
    m = v.max(axis=axis, keepdims=True)
    out = m + np.log(np.exp(v - m).sum(axis=axis, keepdims=True))
    return out if keepdims else np.squeeze(out, axis=axis)


# (name, nnbook function, numpy reference) on a (3, 7, 5) float64 input
REDUCTIONS = [
    ("prod_all", lambda x: x.prod(), np.prod),
    ("prod_dim", lambda x: nb.prod(x, 1, keepdim=True), lambda v: v.prod(1, keepdims=True)),
    ("var_all", lambda x: x.var(), lambda v: v.var(ddof=1)),
    ("var_dims", lambda x: nb.var(x, (0, 2), correction=0), lambda v: v.var((0, 2))),
    ("var_unbiased_false", lambda x: x.var(1, False, True),
     lambda v: v.var(1, keepdims=True)),
    ("std_dim", lambda x: nb.std(x, -1), lambda v: v.std(-1, ddof=1)),
    ("std_axis_keepdims", lambda x: x.std(axis=0, keepdims=True),
     lambda v: v.std(0, ddof=1, keepdims=True)),
    ("logsumexp", lambda x: nb.logsumexp(x * 30, 1), lambda v: _logsumexp(v * 30, 1)),
    ("logsumexp_dims", lambda x: x.logsumexp((0, 2), keepdim=True),
     lambda v: _logsumexp(v, (0, 2), True)),
    ("norm", lambda x: x.norm(), lambda v: np.sqrt((v * v).sum())),
    ("norm_p1_dim", lambda x: nb.norm(x, 1, dim=1), lambda v: np.abs(v).sum(1)),
    ("norm_p3", lambda x: x.norm(3, dim=(0, 1)), lambda v: (np.abs(v) ** 3).sum((0, 1)) ** (1 / 3)),
    ("norm_inf", lambda x: x.norm(float("inf"), dim=-1), lambda v: np.abs(v).max(-1)),
    ("amax", lambda x: nb.amax(x, (0, 2)), lambda v: v.max((0, 2))),
    ("amin_keepdim", lambda x: x.amin(1, keepdim=True), lambda v: v.min(1, keepdims=True)),
    ("min_all", lambda x: nb.min(x), np.min),
    ("min_dim_values", lambda x: x.min(1).values, lambda v: v.min(1)),
    ("median_all", lambda x: x.median(), lambda v: np.sort(v, axis=None)[(v.size - 1) // 2]),
    ("median_dim", lambda x: nb.median(x[:, :6], 1).values,
     lambda v: np.sort(v[:, :6], 1)[:, 2]),
    ("kthvalue", lambda x: x.kthvalue(2, 0).values, lambda v: np.sort(v, 0)[1]),
    ("cumsum", lambda x: nb.cumsum(x, 1), lambda v: v.cumsum(1)),
    ("cumprod", lambda x: x.cumprod(-1), lambda v: v.cumprod(-1)),
]


@pytest.mark.parametrize("name,fn,ref", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_reduction_forward_matches_numpy_and_gradients_check(rng, name, fn, ref):
    x = nb.tensor(rng.standard_normal((3, 7, 5)), requires_grad=True)
    np.testing.assert_allclose(fn(x).detach().numpy(), ref(x.detach().numpy()), rtol=1e-12)
    assert nb.gradcheck(fn, (x,))


def test_products_with_zeros_have_the_gradients_of_the_others(rng):
    x = nb.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    x.data[2, 1] = 0.0
    x.data[4, :2] = 0.0
    for fn in (lambda x: x.prod(1), lambda x: x.cumprod(1), lambda x: x.prod()):
        assert nb.gradcheck(fn, (x,))
    x.grad = None
    x.prod(1).sum().backward()
    row = x.detach().numpy()[2]
    assert x.grad.numpy()[2, 1] == pytest.approx(np.prod(np.delete(row, 1)))
    assert not x.grad.numpy()[4].any()  # two zeros: every product of the others is 0


def test_max_of_all_elements_shares_the_gradient_among_ties():
    x = nb.tensor([[1.0, 3.0, 3.0], [3.0, 0.0, 2.0]], requires_grad=True)
    x.max().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 1 / 3, 1 / 3], [1 / 3, 0, 0]])
    x.grad = None
    x.amax(1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0.5, 0.5], [1, 0, 0]])


def test_var_of_one_element_is_nan_without_a_warning():
    assert np.isnan(nb.tensor([[2.0, 3.0]]).var(0).numpy()).all()


def test_index_results_are_int64_without_gradients(rng):
    x = nb.tensor(rng.standard_normal((3, 7, 5)), requires_grad=True)
    for result in (x.min(1).indices, x.argmin(2), x.median(0).indices, x.mode(1).indices,
                   x.kthvalue(3).indices, nb.count_nonzero(x > 0, (0, 1))):
        assert result.dtype == nb.int64 and not result.requires_grad


def test_numpy_names_are_accepted_wherever_pytorch_takes_them(rng):
    x = nb.tensor(rng.standard_normal((3, 7, 5)))
    for name in ("sum", "mean", "prod", "amax", "amin", "std", "var", "all", "any",
                 "argmax", "argmin", "logsumexp", "norm"):
        by_numpy = getattr(x, name)(axis=1, keepdims=True)
        by_torch = getattr(x, name)(dim=1, keepdim=True)
        np.testing.assert_array_equal(by_numpy.numpy(), by_torch.numpy())
    np.testing.assert_array_equal(x.cumsum(axis=2).numpy(), x.cumsum(2).numpy())


@pytest.mark.parametrize("call,error,match", [
    (lambda x: x.long().var(), DTypeError, "expects a floating point input"),
    (lambda x: x.std(0, unbiased=True, correction=0), ArgumentError,
     "give correction= or unbiased=, not both"),
    (lambda x: x.max(dim=(0, 1)), ShapeError, r"max reduces one dim at a time"),
    (lambda x: x.prod((0, 1)), ShapeError, "prod reduces one dim at a time"),
    (lambda x: x.unsqueeze(0).norm("nuc"), InputError,
     r"p='nuc' \(over 2 dims\).*\(1, 7, 5\)"),
    (lambda x: x.norm("inf"), InputError, "norm supports p='fro'"),
    (lambda x: x.cumsum(), ArgumentError, "cumsum needs dim"),
    (lambda x: nb.logsumexp(x), ArgumentError, "logsumexp needs dim"),
    (lambda x: x[:0].amax(0), ShapeError, "cannot take the amax of an empty tensor"),
    (lambda x: x[:0].median(), ShapeError, "cannot take the median of an empty tensor"),
    (lambda x: x.kthvalue(6, 1), InputError, "k=6 is out of range"),
    (lambda x: x.var(3), ShapeError, "dim=3 is out of range"),
])
def test_bad_arguments_are_refused_with_a_hint(call, error, match):
    with pytest.raises(error, match=match) as err:
        call(nb.zeros(7, 5))
    where, _, rest = str(err.value).partition(": ")  # the op or method, what, at, hint
    assert where and "\n  at " in rest and "\n  hint: " in rest, str(err.value)
