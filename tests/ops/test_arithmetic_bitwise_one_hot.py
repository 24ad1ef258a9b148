"""Arithmetic by name (``nb.add(x, y, alpha=2)``, ``x.div(y, rounding_mode='trunc')``), the
operators that combine masks (``& | ^ ~``), ``nb.softmax`` and ``F.one_hot``: forward
against numpy, gradients by gradcheck (float64, odd non-square shapes), dtypes, and the
errors for what PyTorch refuses."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import DTypeError, InputError
from nnbook.nn import functional as F


def _pair(rng, shape_b=(5,)):
    a = nb.tensor(rng.standard_normal((3, 7, 5)), requires_grad=True)
    b = nb.tensor(rng.standard_normal(shape_b) + 3.0, requires_grad=True)  # away from 0
    return a, b


# (name, nnbook function of a and b, numpy reference)
ARITHMETIC = [
    ("add_alpha", lambda a, b: nb.add(a, b, alpha=-2.5), lambda a, b: a - 2.5 * b),
    ("add_method_alpha", lambda a, b: a.add(b, alpha=3), lambda a, b: a + 3 * b),
    ("sub_alpha", lambda a, b: nb.sub(a, b, alpha=0.5), lambda a, b: a - 0.5 * b),
    ("subtract_method", lambda a, b: a.subtract(b, alpha=2), lambda a, b: a - 2 * b),
    ("mul", lambda a, b: nb.mul(a, b), np.multiply),
    ("multiply_method", lambda a, b: a.multiply(b), np.multiply),
    ("div", lambda a, b: nb.div(a, b), np.divide),
    ("divide_method", lambda a, b: a.divide(b), np.divide),
    ("true_divide", lambda a, b: nb.true_divide(a, b), np.divide),
]


@pytest.mark.parametrize("name,fn,ref", ARITHMETIC, ids=[c[0] for c in ARITHMETIC])
def test_arithmetic_by_name_matches_numpy_and_gradients_check(rng, name, fn, ref):
    a, b = _pair(rng)
    np.testing.assert_allclose(fn(a, b).detach().numpy(),
                               ref(a.detach().numpy(), b.detach().numpy()), rtol=1e-12)
    assert nb.gradcheck(fn, (a, b))


def test_a_number_as_the_first_argument(rng):
    x = nb.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    v = x.detach().numpy()
    np.testing.assert_allclose(nb.sub(1.5, x, alpha=2).detach().numpy(), 1.5 - 2 * v)
    np.testing.assert_allclose(nb.div(2, x).detach().numpy(), 2 / v)
    assert nb.gradcheck(lambda x: nb.add(2.0, x, alpha=-3), (x,))
    assert nb.mul(3, nb.arange(4, dtype=nb.int32)).dtype == nb.int32


@pytest.mark.parametrize("mode,ref", [("trunc", np.trunc), ("floor", np.floor)])
def test_rounded_division_of_floats_rounds_and_has_zero_gradients(rng, mode, ref):
    a, b = _pair(rng, (7, 1))
    a = nb.tensor(a.detach().numpy() * 9, requires_grad=True)
    out = nb.div(a, b, rounding_mode=mode)
    np.testing.assert_allclose(out.detach().numpy(),
                               ref(a.detach().numpy() / b.detach().numpy()), rtol=1e-12)
    out.sum().backward()
    assert not a.grad.numpy().any() and not b.grad.numpy().any()


def test_rounded_division_of_integers_keeps_integers(rng):
    a = rng.integers(-50, 50, (7, 5))
    b = rng.choice([-7, -3, -1, 2, 5], (5,))
    x, y = nb.tensor(a), nb.tensor(b)
    trunc = x.div(y, rounding_mode="trunc")
    assert trunc.dtype == nb.int64
    np.testing.assert_array_equal(trunc.numpy(), np.trunc(a / b).astype(np.int64))
    np.testing.assert_array_equal(nb.div(x, y, rounding_mode="floor").numpy(), a // b)
    np.testing.assert_array_equal(nb.div(x, -3, rounding_mode="trunc").numpy(),
                                  np.trunc(a / -3).astype(np.int64))
    assert nb.div(x, y).dtype == nb.float32  # true division of integers: the default float


def test_alpha_on_integers_and_booleans():
    i = nb.arange(5, dtype=nb.int32)
    assert nb.add(i, i, alpha=3).dtype == nb.int32
    np.testing.assert_array_equal(nb.add(i, 2, alpha=3).numpy(), np.arange(5) + 6)
    t, f = nb.tensor([True, False]), nb.tensor([True, True])
    np.testing.assert_array_equal(nb.add(t, f, alpha=2).numpy(), [True, True])
    np.testing.assert_array_equal(nb.add(t, f, alpha=0).numpy(), [True, False])
    with pytest.raises(InputError, match="alpha=0.5 cannot scale int32"):
        i.add(i, alpha=0.5)
    with pytest.raises(InputError, match="only scales bool operands"):
        nb.add(i, i, alpha=True)


def test_in_place_add_and_sub_take_alpha_as_before(rng):
    w = nb.tensor(rng.standard_normal((7, 5)))
    g = nb.tensor(rng.standard_normal((7, 5)))
    expected = w.numpy() - 0.1 * g.numpy() + 0.2 * g.numpy()
    w.add_(g, alpha=-0.1).sub_(g, alpha=-0.2)
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-12)


# -- & | ^ ~ -------------------------------------------------------------------------------
def test_masks_combine_with_and_or_xor_not(rng):
    x = nb.tensor(rng.standard_normal((7, 5)))
    v = x.numpy()
    p, q = x > 0, x.abs() > 1
    np.testing.assert_array_equal((p & q).numpy(), (v > 0) & (np.abs(v) > 1))
    np.testing.assert_array_equal((p | q).numpy(), (v > 0) | (np.abs(v) > 1))
    np.testing.assert_array_equal((p ^ q).numpy(), (v > 0) ^ (np.abs(v) > 1))
    np.testing.assert_array_equal((~p).numpy(), v <= 0)
    np.testing.assert_array_equal((True & q).numpy(), np.abs(v) > 1)
    np.testing.assert_array_equal(nb.bitwise_or(p, False).numpy(), v > 0)
    assert (p & q).dtype == nb.bool


def test_bits_of_integers(rng):
    a, b = rng.integers(-40, 40, (7, 5)), rng.integers(0, 40, (5,))
    x, y = nb.tensor(a, dtype=nb.int32), nb.tensor(b)
    np.testing.assert_array_equal((x & y).numpy(), a & b)
    assert (x & y).dtype == nb.int64  # int32 with int64 promotes, as for +
    np.testing.assert_array_equal(x.bitwise_xor(6).numpy(), a ^ 6)
    assert x.bitwise_xor(6).dtype == nb.int32
    np.testing.assert_array_equal(nb.bitwise_not(x).numpy(), ~a)


def test_in_place_and_or_xor_bump_the_version():
    mask = nb.tensor([True, False, True])
    before = mask._version
    mask &= nb.tensor([True, True, False])
    mask |= nb.tensor([False, True, False])
    mask ^= True
    np.testing.assert_array_equal(mask.numpy(), [False, False, True])
    assert mask._version == before + 3


def test_bitwise_ops_refuse_floats():
    x = nb.randn(3)
    with pytest.raises(DTypeError, match=r"\| \(bitwise_or\) takes integer or bool"):
        x | (x > 0)
    with pytest.raises(DTypeError, match="bitwise_not"):
        nb.bitwise_not(x)
    with pytest.raises(DTypeError, match="float32"):
        (x > 0) & 0.5


# -- softmax as a function and a method; one_hot ----------------------------------------------
def test_softmax_and_log_softmax_functions_and_methods_are_fs(rng):
    x = nb.tensor(rng.standard_normal((3, 7, 5)), requires_grad=True)
    for dim in (0, 1, -1):
        np.testing.assert_array_equal(nb.softmax(x, dim).detach().numpy(),
                                      F.softmax(x, dim=dim).detach().numpy())
        np.testing.assert_array_equal(x.log_softmax(dim=dim).detach().numpy(),
                                      F.log_softmax(x, dim).detach().numpy())
    assert nb.gradcheck(lambda x: x.softmax(1) * nb.log_softmax(x, -1), (x,))
    assert x.float().softmax(0, dtype=nb.float64).dtype == nb.float64


def test_one_hot_rows(rng):
    labels = rng.integers(0, 6, (7, 3))
    out = F.one_hot(nb.tensor(labels), num_classes=9)
    assert out.shape == (7, 3, 9) and out.dtype == nb.int64
    np.testing.assert_array_equal(out.numpy(), np.eye(9, dtype=np.int64)[labels])
    counted = F.one_hot(nb.tensor(labels))
    assert counted.shape == (7, 3, labels.max() + 1)
    assert F.one_hot(nb.tensor(2), 4).tolist() == [0, 0, 1, 0]
    assert F.one_hot(nb.zeros(0, dtype=nb.int64), 3).shape == (0, 3)


def test_one_hot_refuses_what_pytorch_refuses():
    with pytest.raises(DTypeError, match="int64, got int32"):
        F.one_hot(nb.tensor([1, 0], dtype=nb.int32), 3)
    with pytest.raises(InputError, match="smaller than num_classes=2"):
        F.one_hot(nb.tensor([0, 2]), 2)
    with pytest.raises(InputError, match="must not be negative"):
        F.one_hot(nb.tensor([-2, 1]))
    with pytest.raises(InputError, match="cannot count the classes of an empty tensor"):
        F.one_hot(nb.zeros(0, dtype=nb.int64))
    with pytest.raises(InputError, match="num_classes must be an int"):
        F.one_hot(nb.tensor([1]), 2.0)


def test_one_hot_in_a_shape_only_pass():
    class Encode(nb.nn.Module):
        def forward(self, y):
            return F.one_hot(y, num_classes=11).float().sum(1)

    shapes = nb.infer_shapes(Encode(), (7, 3), dtype=nb.int64)
    assert shapes.output_shape == (7, 11)
