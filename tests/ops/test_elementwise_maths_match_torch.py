"""Elementwise maths against PyTorch: the same call, as a function and as a method, gives
the same values, dtypes and gradients (float64, odd non-square shapes)."""
import math

import numpy as np
import pytest
from against_torch import above_one, bools, check, ints, normal, positive, unit, value

torch = pytest.importorskip("torch")

X = normal(7, 5)
CASES = {
    # exponentials, logarithms and powers
    "exp2": ([X], lambda m, x: m.exp2(x)),
    "expm1": ([X], lambda m, x: x.expm1()),
    "log2": ([positive(7, 5)], lambda m, x: m.log2(x)),
    "log10": ([positive(7, 5)], lambda m, x: x.log10()),
    "log1p": ([positive(7, 5)], lambda m, x: m.log1p(x)),
    "rsqrt": ([positive(7, 5)], lambda m, x: m.rsqrt(x)),
    "square": ([X], lambda m, x: m.square(x)),
    "square_int": ([ints(-5, 5, 7, 5)], lambda m, x: m.square(x)),
    "reciprocal": ([positive(7, 5)], lambda m, x: x.reciprocal()),
    "erf": ([X], lambda m, x: m.erf(x)),
    "logit": ([unit(7, 5)], lambda m, x: m.logit((x + 1) / 2)),
    "logit_eps": ([unit(7, 5)], lambda m, x: (x * 0.6 + 0.5).logit(eps=0.2)),
    "softplus": ([X], lambda m, x: m.nn.functional.softplus(x * 9, beta=2, threshold=5)),
    "pow_scalar_base": ([X], lambda m, x: m.pow(2.0, x)),
    "pow_tensor": ([positive(7, 5), normal(5)], lambda m, x, y: m.pow(x, y)),
    # trigonometric and hyperbolic
    "sin": ([X], lambda m, x: m.sin(x)),
    "cos": ([X], lambda m, x: x.cos()),
    "tan": ([unit(7, 5)], lambda m, x: m.tan(x)),
    "asin": ([unit(7, 5)], lambda m, x: m.asin(x)),
    "acos": ([unit(7, 5)], lambda m, x: m.arccos(x)),
    "atan": ([X], lambda m, x: x.atan()),
    "atan2": ([normal(3, 7, 5), normal(7, 1)], lambda m, y, x: m.atan2(y, x)),
    "sinh": ([X], lambda m, x: m.sinh(x)),
    "cosh": ([X], lambda m, x: m.cosh(x)),
    "asinh": ([X], lambda m, x: m.asinh(x)),
    "acosh": ([above_one(7, 5)], lambda m, x: m.acosh(x)),
    "atanh": ([unit(7, 5)], lambda m, x: m.arctanh(x)),
    "sin_of_ints": ([ints(-9, 9, 7, 5)], lambda m, x: m.sin(x)),
    "asin_outside": ([value(np.array([2.0, -3.0, 0.5]))], lambda m, x: m.asin(x)),
    # sign and rounding: gradients are zero
    "neg": ([X], lambda m, x: m.neg(x)),
    "negative_int": ([ints(-5, 5, 7, 5)], lambda m, x: m.negative(x)),
    "sign": ([X], lambda m, x: m.sign(x)),
    "sign_int": ([ints(-3, 3, 7, 5)], lambda m, x: x.sign()),
    "floor": ([X], lambda m, x: m.floor(x * 3)),
    "ceil": ([X], lambda m, x: m.ceil(x * 3)),
    "trunc": ([X], lambda m, x: m.trunc(x * 3)),
    "fix": ([X], lambda m, x: m.fix(x * 3)),
    "frac": ([X], lambda m, x: m.frac(x * 3)),
    "round": ([X], lambda m, x: m.round(x * 3)),
    "round_half_even": ([value(np.array([0.5, 1.5, 2.5, -0.5, -2.5]))],
                        lambda m, x: m.round(x)),
    "round_decimals": ([X], lambda m, x: m.round(x * 100, decimals=1)),
    "round_negative_decimals": ([X], lambda m, x: m.round(x * 1000, decimals=-2)),
    "floor_int": ([ints(-5, 5, 7, 5)], lambda m, x: m.floor(x)),
    # bounds, choices and blends
    "clamp_numbers": ([X], lambda m, x: m.clamp(x, -0.5, 0.7)),
    "clamp_int_float_bound": ([ints(-5, 5, 7, 5)], lambda m, x: m.clamp(x, min=-1.5)),
    "clamp_tensors": ([X, normal(7, 5), normal(5)], lambda m, x, lo, hi: m.clamp(x, lo, hi)),
    "clamp_tensor_min": ([X, normal(5)], lambda m, x, lo: x.clamp(min=lo)),
    "clamp_tensor_max": ([X, normal(7, 1)], lambda m, x, hi: x.clip(max=hi)),
    "clamp_min": ([X], lambda m, x: m.clamp_min(x, 0.1)),
    "clamp_max": ([X], lambda m, x: x.clamp_max(0.1)),
    "maximum": ([X, normal(5)], lambda m, x, y: m.maximum(x, y)),
    "minimum": ([X, normal(7, 1)], lambda m, x, y: x.minimum(y)),
    "maximum_ties": ([value(np.array([1.0, 2.0, 3.0]))] * 2, lambda m, x, y: m.maximum(x, y)),
    "max_of_two": ([X, normal(5)], lambda m, x, y: m.max(x, y)),
    "min_of_two": ([X, normal(5)], lambda m, x, y: m.min(x, y)),
    "where": ([bools(7, 5), X, normal(5)], lambda m, c, x, y: m.where(c, x, y)),
    "where_scalar": ([bools(7, 5), X], lambda m, c, x: m.where(c, x, 0.0)),
    "where_two_scalars": ([bools(7, 5)], lambda m, c: m.where(c, 1.0, -1)),
    "where_method": ([bools(7, 5), X, normal(7, 5)], lambda m, c, x, y: x.where(c, y)),
    "where_condition_only": ([bools(3, 7, 5)], lambda m, c: m.where(c)),
    "lerp_number": ([X, normal(7, 5)], lambda m, a, b: m.lerp(a, b, 0.3)),
    "lerp_tensor": ([X, normal(5), normal(7, 1)], lambda m, a, b, w: a.lerp(b, w)),
    # arithmetic by name, with alpha= and rounding_mode=
    "add_alpha": ([X, normal(5)], lambda m, x, y: m.add(x, y, alpha=-2.5)),
    "add_method_alpha": ([X, normal(7, 1)], lambda m, x, y: x.add(y, alpha=3)),
    "sub_alpha": ([X, normal(5)], lambda m, x, y: (m.sub(x, y, alpha=0.5), x.subtract(y))),
    "sub_number_first": ([X], lambda m, x: m.sub(2.0, x, alpha=2)),
    "add_ints_alpha": ([ints(-9, 9, 7, 5), ints(-9, 9, 5)],
                       lambda m, a, b: (m.add(a, b, alpha=3), a.sub(2, alpha=-4))),
    "add_bools_alpha": ([bools(7, 5), bools(5)],
                        lambda m, p, q: (m.add(p, q, alpha=2), m.add(p, q, alpha=0))),
    "mul_div": ([X, positive(5)], lambda m, x, y: (m.mul(x, y), x.multiply(2), m.div(x, y),
                                                   x.divide(y), m.true_divide(x, y))),
    "div_trunc": ([X, positive(7, 1)], lambda m, x, y: m.div(x * 5, y, rounding_mode="trunc")),
    "div_floor": ([X, positive(5)], lambda m, x, y: x.mul(5).div(-y, rounding_mode="floor")),
    "div_ints": ([ints(-50, 50, 7, 5), value(np.array([-7, -3, 2, 5, 9]))],
                 lambda m, a, b: (m.div(a, b), m.div(a, b, rounding_mode="trunc"),
                                  a.div(b, rounding_mode="floor"),
                                  m.div(a, -4, rounding_mode="trunc"),
                                  m.div(a.int(), 2.5, rounding_mode="trunc"))),
    # softmax as a function and a method
    "softmax": ([X], lambda m, x: (m.softmax(x, 1), x.softmax(dim=0), m.log_softmax(x, -1),
                                   x.log_softmax(1))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_elementwise_maths_matches_torch(rng, name):
    makers, fn = CASES[name]
    check(fn, makers, rng)


@pytest.mark.parametrize("name", ["exp2", "sin", "erf", "log1p", "floor", "sign", "clamp"])
def test_float32_stays_float32_as_in_torch(rng, name):
    def fn(m, x):
        return getattr(m, name)(x, -0.5, 0.5) if name == "clamp" else getattr(m, name)(x)
    check(fn, [lambda r: np.abs(r.standard_normal((7, 5))).astype(np.float32)], rng,
          tol=1e-6)


def test_softplus_is_linear_past_the_threshold():
    x = [-30.0, -1.0, 0.0, 1.0, 19.0, 21.0, 40.0]
    import nnbook as nb

    mine = nb.nn.functional.softplus(nb.tensor(x, dtype=nb.float64))
    theirs = torch.nn.functional.softplus(torch.tensor(x, dtype=torch.float64))
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12)
    assert mine[-1].item() == 40.0 and math.isfinite(mine[0].item())
