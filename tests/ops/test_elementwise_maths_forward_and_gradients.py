"""Elementwise maths: forward against numpy, backward by gradcheck on odd non-square
float64 shapes, the dtypes PyTorch gives, and the errors for bad arguments."""
import math

import numpy as np
import pytest
from against_torch import above_one, normal, positive, unit

import nnbook as nb
from nnbook.errors import DTypeError, ShapeError

_erf = np.vectorize(math.erf)

# (name, nnbook function, numpy reference, input maker)
UNARY = [
    ("sin", lambda x: nb.sin(x), np.sin, normal),
    ("cos", lambda x: x.cos(), np.cos, normal),
    ("tan", lambda x: x.tan(), np.tan, unit),
    ("asin", lambda x: nb.asin(x), np.arcsin, unit),
    ("acos", lambda x: x.acos(), np.arccos, unit),
    ("atan", lambda x: nb.arctan(x), np.arctan, normal),
    ("sinh", lambda x: x.sinh(), np.sinh, normal),
    ("cosh", lambda x: nb.cosh(x), np.cosh, normal),
    ("asinh", lambda x: x.asinh(), np.arcsinh, normal),
    ("acosh", lambda x: nb.acosh(x), np.arccosh, above_one),
    ("atanh", lambda x: x.atanh(), np.arctanh, unit),
    ("exp2", lambda x: nb.exp2(x), np.exp2, normal),
    ("expm1", lambda x: x.expm1(), np.expm1, normal),
    ("log2", lambda x: nb.log2(x), np.log2, positive),
    ("log10", lambda x: x.log10(), np.log10, positive),
    ("log1p", lambda x: nb.log1p(x), np.log1p, positive),
    ("rsqrt", lambda x: x.rsqrt(), lambda v: 1 / np.sqrt(v), positive),
    ("square", lambda x: nb.square(x), np.square, normal),
    ("reciprocal", lambda x: x.reciprocal(), np.reciprocal, positive),
    ("erf", lambda x: nb.erf(x), _erf, normal),
    ("logit", lambda x: (x * 0.4 + 0.5).logit(), lambda v: np.log((v * 0.4 + 0.5) /
                                                                   (0.5 - v * 0.4)), unit),
    ("softplus", lambda x: nb.nn.functional.softplus(x, beta=2.0),
     lambda v: np.log1p(np.exp(2 * v)) / 2, normal),
    ("neg", lambda x: nb.negative(x), np.negative, normal),
    ("sign", lambda x: x.sign(), np.sign, normal),
    ("floor", lambda x: nb.floor(x * 3), lambda v: np.floor(v * 3), normal),
    ("ceil", lambda x: (x * 3).ceil(), lambda v: np.ceil(v * 3), normal),
    ("trunc", lambda x: nb.trunc(x * 3), lambda v: np.trunc(v * 3), normal),
    ("round", lambda x: (x * 3).round(), lambda v: np.round(v * 3), normal),
    ("round_decimals", lambda x: nb.round(x, decimals=2), lambda v: np.round(v, 2), normal),
    ("frac", lambda x: (x * 3).frac(), lambda v: v * 3 - np.trunc(v * 3), normal),
    ("clamp_min", lambda x: nb.clamp_min(x, 0.2), lambda v: np.maximum(v, 0.2), normal),
    ("clamp_max", lambda x: x.clamp_max(-0.1), lambda v: np.minimum(v, -0.1), normal),
]


@pytest.mark.parametrize("name,fn,ref,domain", UNARY, ids=[u[0] for u in UNARY])
def test_unary_forward_matches_numpy_and_gradients_check(rng, name, fn, ref, domain):
    x = nb.tensor(domain(3, 7, 5)(rng), requires_grad=True)
    np.testing.assert_allclose(fn(x).detach().numpy(), ref(x.detach().numpy()), rtol=1e-12,
                               atol=1e-15)
    assert nb.gradcheck(fn, (x,))


def test_steps_have_zero_gradients_as_in_pytorch(rng):
    x = nb.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    (x.floor() + x.ceil() + x.round() + x.trunc() + x.sign()).sum().backward()
    assert x.grad is not None and not x.grad.numpy().any()


# (name, nnbook function of two tensors, numpy reference, second input's shape)
BINARY = [
    ("atan2", lambda a, b: nb.atan2(a, b), np.arctan2, (5,)),
    ("maximum", lambda a, b: nb.maximum(a, b), np.maximum, (7, 1)),
    ("minimum", lambda a, b: a.minimum(b), np.minimum, (5,)),
    ("max_two", lambda a, b: a.max(b), np.maximum, (7, 5)),
    ("min_two", lambda a, b: nb.min(a, b), np.minimum, (3, 1, 5)),
    ("clamp_tensor_low", lambda a, b: a.clamp(min=b), np.maximum, (5,)),
    ("clamp_tensor_high", lambda a, b: nb.clamp(a, max=b), np.minimum, (7, 1)),
    ("lerp_weight_tensor", lambda a, w: a.lerp(a * 2, w), lambda a, w: a + w * a, (5,)),
]


@pytest.mark.parametrize("name,fn,ref,shape", BINARY, ids=[b[0] for b in BINARY])
def test_binary_forward_matches_numpy_and_gradients_check(rng, name, fn, ref, shape):
    a = nb.tensor(rng.standard_normal((3, 7, 5)), requires_grad=True)
    b = nb.tensor(rng.standard_normal(shape), requires_grad=True)
    np.testing.assert_allclose(fn(a, b).detach().numpy(),
                               ref(a.detach().numpy(), b.detach().numpy()), rtol=1e-12)
    assert nb.gradcheck(fn, (a, b))


def test_clamp_with_both_tensor_bounds_and_gradients(rng):
    x, low, high = (nb.tensor(rng.standard_normal(s), requires_grad=True)
                    for s in ((7, 5), (5,), (7, 1)))
    expected = np.minimum(np.maximum(x.detach().numpy(), low.detach().numpy()),
                          high.detach().numpy())
    np.testing.assert_allclose(nb.clamp(x, low, high).detach().numpy(), expected)
    assert nb.gradcheck(lambda x, lo, hi: x.clamp(lo, hi), (x, low, high))


def test_where_picks_and_sends_gradients_to_the_picked_side(rng):
    condition = nb.tensor(rng.random((7, 5)) < 0.5)
    x = nb.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    y = nb.tensor(rng.standard_normal((5,)), requires_grad=True)
    out = nb.where(condition, x, y)
    expected = np.where(condition.numpy(), x.detach().numpy(), y.detach().numpy())
    np.testing.assert_array_equal(out.detach().numpy(), expected)
    assert nb.gradcheck(lambda x, y: nb.where(condition, x, y), (x, y))


def test_integers_become_the_default_float_but_rounding_keeps_them():
    i = nb.tensor([[1, -2, 3]], dtype=nb.int32)
    assert i.sin().dtype == nb.float32 and nb.log2(i.abs()).dtype == nb.float32
    assert i.reciprocal().dtype == nb.float32 and nb.atan2(i, i).dtype == nb.float32
    for kept in (i.floor(), i.ceil(), i.round(), i.trunc(), i.sign(), i.square(), i.neg()):
        assert kept.dtype == nb.int32
    assert i.clamp(min=0.5).dtype == nb.float32  # a float bound lifts the kind, as in PyTorch
    assert i.clamp(0, 2).dtype == nb.int32


def _four_parts(err, where):
    text = str(err.value)
    assert text.startswith(where) and "\n  at " in text and "\n  hint: " in text, text


def test_frac_of_integers_is_refused():
    with pytest.raises(DTypeError, match="frac needs a floating point tensor") as err:
        nb.tensor([1, 2]).frac()
    _four_parts(err, "frac")


def test_clamp_without_bounds_is_refused():
    with pytest.raises(nb.InputError, match="clamp needs min, max or both") as err:
        nb.zeros(3).clamp()
    _four_parts(err, "clamp")


def test_where_needs_a_boolean_condition():
    with pytest.raises(DTypeError, match="condition must be a boolean") as err:
        nb.where(nb.tensor([1, 0]), nb.zeros(2), nb.ones(2))
    _four_parts(err, "where")


@pytest.mark.parametrize("fn", [lambda a, b: nb.atan2(a, b), lambda a, b: a.lerp(b, 0.5),
                                lambda a, b: nb.maximum(a, b),
                                lambda a, b: nb.where(a > 0, a, b)])
def test_shapes_that_do_not_broadcast_are_named(fn):
    with pytest.raises(ShapeError, match=r"shapes \(7, 5\) and \(4,\) cannot be broadcast"):
        fn(nb.zeros(7, 5), nb.zeros(4))


def test_outside_the_domain_gives_nan_without_warnings():
    x = nb.tensor([2.0, -1.0, 0.0])
    assert np.isnan(x.asin().numpy()[0]) and np.isnan(x.log2().numpy()[1])
    assert x.atanh().numpy()[2] == 0 and np.isinf(nb.tensor([1.0]).atanh().numpy()[0])
