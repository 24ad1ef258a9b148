"""The gamma family, Bessel's I0 and I1, sinc, the normal distribution's functions, the
entropy terms and the parts of numbers on their own (no PyTorch needed): forwards against
Python's math and identities the functions must satisfy, backwards by gradcheck on odd
float64 shapes, their in-place forms and their errors.
tests/ops/test_special_functions_match_torch.py compares them with PyTorch."""
import math

import numpy as np
import pytest

import nnbook as nb


def t(a):
    return nb.tensor(np.asarray(a, dtype=np.float64))


def test_lgamma_is_pythons_and_inf_at_the_poles(rng):
    a = np.concatenate([rng.uniform(0.01, 50, 30), rng.uniform(-9.9, -0.1, 30)])
    a = a[np.abs(a - np.round(a)) > 1e-3]
    np.testing.assert_array_equal(nb.lgamma(t(a)).numpy(), [math.lgamma(v) for v in a])
    assert nb.lgamma(t([0.0, -1.0, -7.0, np.inf, -np.inf])).tolist() == [np.inf] * 5
    assert nb.lgamma(nb.tensor([1, 5])).tolist() == [0.0, pytest.approx(math.log(24))]


def test_digamma_satisfies_its_recurrence_reflection_and_known_values(rng):
    x = rng.uniform(0.05, 40, 200)
    # psi(x + 1) = psi(x) + 1/x
    np.testing.assert_allclose(nb.digamma(t(x + 1)).numpy(),
                               nb.digamma(t(x)).numpy() + 1 / x, rtol=1e-14, atol=1e-14)
    euler = 0.57721566490153286061
    assert nb.digamma(t(1.0)).item() == pytest.approx(-euler, rel=1e-15)
    assert nb.digamma(t(0.5)).item() == pytest.approx(-euler - 2 * math.log(2), rel=1e-15)
    # psi(1 - x) - psi(x) = pi / tan(pi x), for negative x too
    y = rng.uniform(-7, 7, 200)
    y = y[np.abs(y - np.round(y)) > 0.05]
    np.testing.assert_allclose(nb.digamma(t(1 - y)).numpy() - nb.digamma(t(y)).numpy(),
                               np.pi / np.tan(np.pi * y), rtol=1e-12, atol=1e-12)
    ends = nb.digamma(t([0.0, -0.0, -3.0, np.inf, -np.inf, np.nan])).numpy()
    assert ends[0] == -np.inf and ends[1] == np.inf and ends[3] == np.inf
    assert np.isnan(ends[[2, 4, 5]]).all()


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_polygamma_satisfies_its_recurrence_and_known_values(rng, n):
    x = np.concatenate([rng.uniform(0.05, 30, 100), rng.uniform(-6, 0, 100)])
    x = x[np.abs(x - np.round(x)) > 0.05]
    # psi^(n)(x + 1) = psi^(n)(x) + (-1)**n n! / x**(n+1)
    here, next_one = nb.polygamma(n, t(x)).numpy(), nb.polygamma(n, t(x + 1)).numpy()
    step = (-1) ** n * math.factorial(n) / x ** (n + 1)
    assert (np.abs(next_one - here - step) <= 1e-14 * (np.abs(here) + np.abs(step))).all()
    # psi^(n)(1) = (-1)**(n+1) n! zeta(n+1); zeta(2) = pi**2/6, zeta(4) = pi**4/90
    zeta = {1: math.pi ** 2 / 6, 3: math.pi ** 4 / 90}
    if n in zeta:
        assert nb.polygamma(n, t(1.0)).item() == pytest.approx(
            math.factorial(n) * zeta[n], rel=3e-16)
    poles = nb.polygamma(n, t([0.0, -1.0, -5.0, np.inf])).tolist()
    assert poles == [(-1) ** (n + 1) * np.inf] * 3 + [0.0]
    assert nb.polygamma(0, t(x)).tolist() == nb.digamma(t(x)).tolist()


def test_mvlgamma_is_a_sum_of_lgammas(rng):
    a = rng.uniform(3, 9, (7, 5))
    for p in (1, 2, 4):
        expected = p * (p - 1) / 4 * math.log(math.pi) + sum(
            np.vectorize(math.lgamma)(a - j / 2) for j in range(p))
        np.testing.assert_allclose(nb.mvlgamma(t(a), p).numpy(), expected, rtol=1e-14)
        np.testing.assert_allclose(nb.special.multigammaln(t(a), p).numpy(), expected,
                                   rtol=1e-14)


def bessel_series(nu, x):
    """I_nu(x) by its power series in Python's exact-enough float sums (math.fsum)."""
    return math.fsum((x / 2) ** (2 * k + nu) / (math.factorial(k) * math.factorial(k + nu))
                     for k in range(90))


def test_bessel_functions_match_their_series_and_scaled_forms(rng):
    x = np.concatenate([rng.uniform(-30, 30, 100), [0.0, -0.0, 20.0, -20.0, 20.5]])
    for nu, fn in ((0, nb.i0), (1, nb.special.i1)):
        np.testing.assert_allclose(fn(t(x)).numpy(), [bessel_series(nu, v) for v in x],
                                   rtol=4e-15)
    np.testing.assert_allclose(nb.special.i0e(t(x)).numpy(),
                               nb.i0(t(x)).numpy() * np.exp(-np.abs(x)), rtol=1e-14)
    np.testing.assert_allclose(nb.special.i1e(t(x)).numpy(),
                               nb.special.i1(t(x)).numpy() * np.exp(-np.abs(x)), rtol=1e-14)
    far = np.array([50.0, 200.0, 700.0])  # the asymptotic side: e**x I0e(x) is I0(x)
    np.testing.assert_allclose(nb.special.i0e(t(far)).numpy() * np.exp(far),
                               nb.i0(t(far)).numpy(), rtol=1e-14)
    assert nb.i0(t(1e4)).item() == np.inf and np.isfinite(nb.special.i0e(t(1e4)).item())


def test_sinc_is_1_at_0_and_sin_pi_x_over_pi_x_elsewhere(rng):
    x = rng.uniform(-5, 5, (7, 5))
    np.testing.assert_allclose(nb.sinc(t(x)).numpy(), np.sin(np.pi * x) / (np.pi * x),
                               rtol=1e-12)
    assert nb.sinc(t(0.0)).item() == 1.0 and nb.sinc(nb.tensor([1, 2])).dtype == nb.float32


def test_erfcx_and_the_normal_distribution_functions(rng):
    x = rng.uniform(-5, 5, 200)
    np.testing.assert_allclose(nb.special.erfcx(t(x)).numpy(),
                               np.exp(x * x) * np.vectorize(math.erfc)(x), rtol=2e-13)
    far = np.array([30.0, 1e3, 1e10])  # erfc underflows; erfcx ~ 1 / (x sqrt(pi))
    np.testing.assert_allclose(nb.special.erfcx(t(far)).numpy(),
                               1 / (far * math.sqrt(math.pi)) * (1 - 1 / (2 * far ** 2)),
                               rtol=1e-6)
    phi = nb.special.ndtr(t(x)).numpy()
    np.testing.assert_allclose(phi, [0.5 * math.erfc(-v / math.sqrt(2)) for v in x],
                               rtol=1e-15)
    log_phi = nb.special.log_ndtr(t(x)).numpy()  # (log1p where phi is near 1)
    upper = nb.special.ndtr(t(-x)).numpy()
    np.testing.assert_allclose(log_phi, np.where(x < 0, np.log(phi), np.log1p(-upper)),
                               rtol=1e-13)
    # log_ndtr far left: log Phi(x) ~ -x**2/2 - log(-x sqrt(2 pi))
    left = nb.special.log_ndtr(t([-1e4])).item()
    assert left == pytest.approx(-1e8 / 2 - math.log(1e4 * math.sqrt(2 * math.pi)), rel=1e-15)
    # ndtri inverts ndtr, deep into the left tail too (Phi(-37) is 6e-300)
    z = np.concatenate([rng.uniform(-37, 2, 300), rng.uniform(-1, 1, 100)])  # (Phi(8) is 1)
    back = nb.special.ndtri(nb.special.ndtr(t(z))).numpy()
    np.testing.assert_allclose(back, z, rtol=1e-13, atol=1e-15)
    ends = nb.special.ndtri(t([0.0, 1.0, 0.5, -0.1, 1.1])).numpy()
    assert ends[0] == -np.inf and ends[1] == np.inf and ends[2] == 0 and np.isnan(ends[3:]).all()


def test_entr_and_xlog1py_take_0_log_0_as_0():
    assert nb.special.entr(t([0.0, 1.0, -1.0, 0.5])).tolist() == [
        0.0, 0.0, -np.inf, pytest.approx(0.5 * math.log(2))]
    got = nb.special.xlog1py(t([0.0, 0.0, 2.0, 0.0]), t([-1.0, np.nan, 3.0, 5.0])).numpy()
    assert got[0] == 0 and np.isnan(got[1]) and got[2] == pytest.approx(2 * math.log(4))
    assert nb.special.xlog1py(2, t([1.0])).item() == pytest.approx(2 * math.log(2))


def test_the_parts_of_floats(rng):
    x = rng.standard_normal((7, 5)) * 1000
    mantissa, exponent = nb.frexp(t(x))
    assert exponent.dtype == nb.int32 and mantissa.dtype == nb.float64
    assert ((np.abs(mantissa.numpy()) >= 0.5) & (np.abs(mantissa.numpy()) < 1)).all()
    np.testing.assert_array_equal(nb.ldexp(mantissa, exponent).numpy(), x)
    np.testing.assert_array_equal(nb.copysign(t(x), -1.0).numpy(), -np.abs(x))
    assert nb.copysign(nb.tensor([1, -2]), nb.tensor([-0.0, 1.0])).tolist() == [-1.0, 2.0]
    up = nb.nextafter(t(x), t(np.inf)).numpy()
    assert (up > x).all() and (up - x <= np.abs(np.spacing(x))).all()
    assert nb.heaviside(t([-2.0, 0.0, 3.0, np.nan]), t([0.25])).tolist() == [0, 0.25, 1, 0]
    np.testing.assert_allclose(nb.deg2rad(t(x)).numpy(), x * math.pi / 180, rtol=1e-15)
    assert nb.rad2deg(nb.tensor([math.pi])).item() == pytest.approx(180.0)
    assert nb.float_power(nb.tensor([2, 3]), 2).dtype == nb.float64
    assert nb.float_power(2, nb.tensor([0.5])).item() == pytest.approx(math.sqrt(2))


def test_whole_number_ops_match_python(rng):
    a, b = rng.integers(-60, 60, (7, 5)), rng.integers(-20, 20, 5)
    assert nb.gcd(nb.tensor(a), nb.tensor(b)).tolist() == [
        [math.gcd(int(u), int(v)) for u, v in zip(row, b)] for row in a]
    assert nb.lcm(nb.tensor(a), nb.tensor(b)).tolist() == [
        [math.lcm(int(u), int(v)) for u, v in zip(row, b)] for row in a]
    s = rng.integers(0, 10, 5)
    assert (nb.tensor(a) << nb.tensor(s)).tolist() == [
        [int(u) << int(v) for u, v in zip(row, s)] for row in a]
    assert (nb.tensor(a) >> nb.tensor(s)).tolist() == [
        [int(u) >> int(v) for u, v in zip(row, s)] for row in a]
    # shifting by the width or more, or by a negative count: 0, or the sign on the right
    edge = nb.tensor([5, -5, 5, -5])
    assert (edge << nb.tensor([64, 64, -1, 70])).tolist() == [0, 0, 0, 0]
    assert (edge >> nb.tensor([64, 64, -1, 70])).tolist() == [0, -1, 0, -1]
    assert nb.bitwise_left_shift(1, nb.tensor([3])).tolist() == [8]


@pytest.mark.parametrize("fn", [
    lambda x: nb.lgamma(x.abs() + 0.2), lambda x: nb.digamma(x.abs() + 0.2),
    lambda x: nb.polygamma(2, x.abs() + 0.2), lambda x: nb.mvlgamma(x.abs() + 2, 3),
    lambda x: nb.i0(x * 5), lambda x: nb.special.i0e(x * 5),
    lambda x: nb.special.i1(x * 5), lambda x: nb.special.i1e(x * 30),
    lambda x: nb.sinc(x), lambda x: nb.deg2rad(x), lambda x: nb.float_power(x.abs(), 1.5),
    lambda x: nb.ldexp(x, nb.tensor([1, -2, 0, 3, -1])), lambda x: nb.copysign(x, -x.flip(0)),
    lambda x: nb.frexp(x * 3).mantissa, lambda x: nb.special.erfcx(x),
    lambda x: nb.special.ndtr(x), lambda x: nb.special.log_ndtr(x * 5),
    lambda x: nb.special.ndtri(x.sigmoid()), lambda x: nb.special.entr(x.abs() + 0.1),
    lambda x: nb.special.xlog1py(x, x.abs()), lambda x: nb.special.expit(x),
    lambda x: nb.special.logit(x.sigmoid()),
])
def test_gradients_pass_gradcheck(rng, fn):
    x = nb.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    assert nb.autograd.gradcheck(fn, (x,))


def test_derivatives_are_the_next_function_of_the_family(rng):
    x = nb.tensor(rng.uniform(0.3, 6, (7, 5)), requires_grad=True)
    nb.lgamma(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), nb.digamma(x).detach().numpy(), rtol=1e-15)
    x.grad = None
    nb.polygamma(2, x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), nb.polygamma(3, x).detach().numpy(), rtol=1e-15)
    z = nb.tensor([0.0, 2.0], requires_grad=True)
    nb.special.i1(z).sum().backward()
    assert z.grad[0].item() == 0.5  # I1'(0) = 1/2


def test_flat_ops_give_zero_gradients():
    x = t([0.5, -1.0, 0.0]).requires_grad_()
    (nb.heaviside(x, t([0.5])) + nb.nextafter(x, t(1.0))).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]  # both are flat between their jumps


def test_in_place_forms_change_the_tensor_and_bump_its_version(rng):
    a = rng.uniform(0.5, 4, (7, 5))
    for name, args, expected in [
            ("lgamma_", (), nb.lgamma(t(a))), ("digamma_", (), nb.digamma(t(a))),
            ("polygamma_", (1,), nb.polygamma(1, t(a))), ("i0_", (), nb.i0(t(a))),
            ("sinc_", (), nb.sinc(t(a))), ("logit_", (), nb.logit(t(a / 5))),
            ("copysign_", (-1.0,), -t(a)), ("ldexp_", (2,), t(a) * 4),
            ("nextafter_", (0.0,), nb.nextafter(t(a), t(0.0)))]:
        x = t(a / 5 if name == "logit_" else a)
        assert getattr(x, name)(*args) is x and x._version == 1, name
        np.testing.assert_array_equal(x.numpy(), expected.numpy(), err_msg=name)
    i = nb.tensor([12, -7, 3])
    i.gcd_(nb.tensor(4))
    i <<= 2
    i >>= nb.tensor([1, 0, 1])
    assert i.tolist() == [8, 4, 2] and i._version == 3


@pytest.mark.parametrize("act, error, match", [
    (lambda: nb.polygamma(-1, t([1.0])), nb.InputError, "n must be a whole number >= 0"),
    (lambda: nb.polygamma(1.5, t([1.0])), nb.InputError, "n must be a whole number"),
    (lambda: t([1.0]).polygamma_(-2), nb.InputError, "n must be a whole number"),
    (lambda: nb.ones(2).float_power_(2), nb.DTypeError, "cannot be stored in this float32"),
    (lambda: nb.tensor([3, 4]).mvlgamma_(2), nb.DTypeError, "cannot be stored in this int64"),
    (lambda: nb.tensor([3, 4]).deg2rad_(), nb.DTypeError, "cannot be stored"),
    (lambda: nb.mvlgamma(t([3.0]), 0), nb.InputError, "p must be a whole number >= 1"),
    (lambda: nb.frexp(nb.tensor([1, 2])), nb.DTypeError, "frexp takes a floating point"),
    (lambda: nb.gcd(t([1.0]), t([2.0])), nb.DTypeError, "gcd takes integer tensors"),
    (lambda: t([1.0]) << 2, nb.DTypeError, "bitwise_left_shift takes integer tensors"),
    (lambda: nb.nextafter(nb.tensor([1]), nb.tensor([2])), nb.DTypeError,
     "nextafter takes floating point"),
    (lambda: nb.heaviside(t([1.0]), nb.tensor([1])), nb.DTypeError, "one dtype"),
    (lambda: nb.heaviside(t([1.0]), 0.5), nb.ArgumentError, "values must be a tensor"),
    (lambda: nb.special.i1e([1.0]), nb.ArgumentError, "not a Tensor"),
    (lambda: nb.tensor([1, 2]).lgamma_(), nb.DTypeError, "cannot be stored"),
])
def test_wrong_inputs_get_nnbook_errors(act, error, match):
    with pytest.raises(error, match=match):
        act()
