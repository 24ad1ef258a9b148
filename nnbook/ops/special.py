"""Special functions: the gamma family, Bessel's I0 and I1, sinc, the normal distribution's
integral and its inverse, and the entropy terms (torch.special).

numpy has none of them, so each is computed here in float64 by a method named in its
comment (a series, a recurrence with an asymptotic expansion, Newton's method), written
for the last digit or two, and converted back to the input's float dtype.  The methods
hand these ops floating point arrays (integers become the default float first).
"""
from __future__ import annotations

import math

import numpy as np

from .base import quiet
from .elementwise import Binary, Unary, _float_dtype
from .explog import _erfc, erfinv

_SQRT_PI = math.sqrt(math.pi)
_SQRT_2 = math.sqrt(2.0)
_SQRT_2PI = math.sqrt(2 * math.pi)
# Bernoulli numbers B2, B4, ..., B20: the coefficients of the asymptotic expansions
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
              43867 / 798, -174611 / 330)


def _f64(x):
    return np.asarray(x, dtype=np.float64)


# -- the gamma family ----------------------------------------------------------------------

def _lgamma_one(v: float) -> float:
    if math.isnan(v):
        return v
    if math.isinf(v) or (v <= 0 and v == math.floor(v)):  # the poles, and +-inf
        return math.inf
    return math.lgamma(v)


_lgamma = np.vectorize(_lgamma_one, otypes=[np.float64])


@quiet
def lgamma(x: np.ndarray) -> np.ndarray:
    """log|Gamma(x)| by Python's math.lgamma, element by element; inf at the poles
    (0, -1, -2, ...) and at +-inf."""
    return _lgamma(_f64(x)) if np.size(x) else _f64(x).copy()


@quiet
def digamma(x: np.ndarray) -> np.ndarray:
    """psi(x) = d/dx log Gamma(x).

    For x >= 10 the asymptotic expansion
        psi(z) = log z - 1/(2z) - sum_k B_2k / (2k z**2k)
    is exact to rounding with the eight terms used (the next is below 1e-17).  Smaller
    positive x is first carried up by the recurrence psi(x) = psi(x + 1) - 1/x.  Negative
    x is reflected: psi(x) = psi(1 - x) - pi / tan(pi x), where tan is taken of x minus
    its nearest integer (exact) so that large x keep their digits.  The sums run in
    numpy's longdouble, whose extra digits (on x86) absorb their roundings."""
    x = _f64(x)
    negative = x < 0
    z = np.where(negative, 1 - x, x).astype(np.longdouble)  # (extra digits for the sums)
    shifted = np.zeros_like(z)
    small = z < 10
    while small.any():  # psi(z) = psi(z + 1) - 1/z
        shifted = np.where(small, shifted + 1 / np.where(small, z, 1), shifted)
        z = np.where(small, z + 1, z)
        small = z < 10
    inv2 = 1 / (z * z)
    series, power = 0.0, inv2
    for k, b in enumerate(_BERNOULLI[:8], start=1):
        series = series + b / (2 * k) * power
        power = power * inv2
    result = np.log(z) - 0.5 / z - series - shifted
    fraction = x - np.round(x)
    pi = np.longdouble("3.14159265358979323846264338327950288")
    reflected = result - pi / np.tan(pi * fraction)
    result = np.where(negative, reflected, result).astype(np.float64)
    result = np.where(negative & (fraction == 0), np.nan, result)  # the poles -1, -2, ...
    return np.where(x == 0, -np.copysign(np.inf, x), result)  # psi(+-0) = -+inf


@quiet
def polygamma(n: int, x: np.ndarray) -> np.ndarray:
    """psi^(n)(x), the n-th derivative of digamma, for n >= 1:
        psi^(n)(x) = (-1)**(n+1) n! zeta(n+1, x),   zeta(s, x) = sum_k>=0 (x + k)**-s.
    The first terms of zeta's sum are added directly until x + k >= 20 + 2n, the rest by
    the Euler-Maclaurin expansion
        zeta(s, z) = z**(1-s)/(s-1) + z**-s/2 + sum_j B_2j/(2j)! s(s+1)...(s+2j-2) z**(1-s-2j)
    (ten terms), in longdouble as digamma.  The direct sum holds for negative x too (away
    from the poles), where its terms of both signs cancel."""
    if n == 0:
        return digamma(x)
    x = _f64(x)
    s = n + 1
    start = 20.0 + 2 * n
    z = np.where(np.isfinite(x), x, start).astype(np.longdouble)  # (extra digits: the
    direct = np.zeros_like(z)                                      # sum may cancel)
    small = z < start
    while small.any():
        direct = np.where(small, direct + np.where(small, z, 1) ** -s, direct)
        z = np.where(small, z + 1, z)
        small = z < start
    tail = z ** (1 - s) / (s - 1) + 0.5 * z ** -s
    rising, factorial, power = float(s), 2.0, z ** (-s - 1)  # s, (2j)!, z**(1-s-2j)
    for j, b in enumerate(_BERNOULLI, start=1):
        tail = tail + b / factorial * rising * power
        rising *= (s + 2 * j - 1) * (s + 2 * j)
        factorial *= (2 * j + 1) * (2 * j + 2)
        power = power / (z * z)
    factorial = float(math.factorial(n)) if n <= 170 else math.inf  # (171! overflows)
    result = (-1) ** (n + 1) * factorial * (direct + tail).astype(np.float64)
    pole = (x <= 0) & (x == np.floor(x))
    result = np.where(pole, (-1) ** (n + 1) * np.inf, result)
    result = np.where(x == np.inf, 0.0, result)
    return np.where(np.isnan(x) | (x == -np.inf), np.nan, result)


class Lgamma(Unary):
    name = "lgamma"

    def forward(self, x):
        self.x = x
        return lgamma(x).astype(_float_dtype(x.dtype), copy=False)

    def backward(self, grad_out):  # y = log|Gamma(x)|;  dy/dx = digamma(x)
        return (grad_out * digamma(self.x).astype(self.x.dtype, copy=False),)


class Digamma(Unary):
    name = "digamma"

    def forward(self, x):
        self.x = x
        return digamma(x).astype(_float_dtype(x.dtype), copy=False)

    def backward(self, grad_out):  # y = psi(x);  dy/dx = psi^(1)(x)
        return (grad_out * polygamma(1, self.x).astype(self.x.dtype, copy=False),)


class Polygamma(Unary):
    """psi^(n)(x), the n-th derivative of digamma (n = 0 is digamma itself)."""

    name = "polygamma"

    def __init__(self, n):
        self.n = n

    def forward(self, x):
        self.x = x
        return polygamma(self.n, x).astype(_float_dtype(x.dtype), copy=False)

    def backward(self, grad_out):  # y = psi^(n)(x);  dy/dx = psi^(n+1)(x)
        return (grad_out * polygamma(self.n + 1, self.x).astype(self.x.dtype, copy=False),)


# -- Bessel's I0 and I1 ----------------------------------------------------------------------

@quiet
def bessel_i(nu: int, x: np.ndarray, scaled: bool) -> np.ndarray:
    """The modified Bessel function I_nu(x) for nu = 0 or 1; times exp(-|x|) if ``scaled``.

    For |x| <= 20, the power series I_nu(x) = sum_k (x/2)**(2k+nu) / (k! (k+nu)!), whose
    terms are all positive (80 terms: the last is below 1e-30 of the sum), summed in
    numpy's longdouble: each term carries the rounding of the k steps that made it, and
    the extra digits (on x86, 11 bits) absorb them.  Beyond, the
    asymptotic expansion
        I_nu(x) = e**x / sqrt(2 pi x) sum_k (-1)**k a_k / x**k,
        a_k = prod_j=1..k (4 nu**2 - (2j - 1)**2) / (8j),
    whose terms shrink until k is about 2x (30 terms: the last is below 1e-17), also in
    longdouble (e**x too, which is then finite up to x = 11356 before the result is cast).
    I0 is even and I1 odd."""
    x = _f64(x)
    a = np.abs(x)
    near = a <= 20
    half = np.where(near, a, 0.0).astype(np.longdouble) / 2  # (extra digits where the
    q = half * half                                          # platform has them)
    term = half ** nu / math.factorial(nu)
    series = term
    for k in range(1, 80):
        term = term * q / (k * (k + nu))
        series = series + term
    series = series.astype(np.float64)
    if scaled:
        series = series * np.exp(-a)
    far = np.where(near, 21.0, a).astype(np.longdouble)
    coefficient, total = 1.0, 1.0
    for k in range(1, 31):
        coefficient *= (4 * nu * nu - (2 * k - 1) ** 2) / (8 * k)
        total = total + (-1) ** k * coefficient / far ** k
    growth = 1.0 if scaled else np.exp(far)
    with np.errstate(over="ignore", invalid="ignore"):
        asymptotic = (growth / np.sqrt(2 * np.longdouble(math.pi) * far) * total).astype(
            np.float64)
    result = np.where(near, series, asymptotic)
    if nu == 1:
        result = np.copysign(result, x)
    return np.where(np.isnan(x), np.nan, result)


class BesselI(Unary):
    """I0, I1 and their scaled forms I0e = exp(-|x|) I0, I1e = exp(-|x|) I1."""

    keeps_output = True

    def __init__(self, nu, scaled=False):
        self.nu, self.scaled = nu, scaled

    @property
    def name(self):
        return f"i{self.nu}{'e' if self.scaled else ''}"

    def forward(self, x):
        self.x = x
        self.y = bessel_i(self.nu, x, self.scaled).astype(_float_dtype(x.dtype), copy=False)
        return self.y

    def backward(self, grad_out):
        x, y = self.x, self.y
        other = bessel_i(1 - self.nu, x, self.scaled).astype(x.dtype, copy=False)
        if self.nu == 0:  # I0' = I1;  (e**-|x| I0)' = I1e - sign(x) I0e
            grad = other - np.sign(x) * y if self.scaled else other
        else:  # I1' = I0 - I1/x;  (e**-|x| I1)' = I0e - I1e (sign(x) + 1/x);  1/2 at x = 0
            with np.errstate(divide="ignore", invalid="ignore"):
                grad = other - y / x - (np.sign(x) * y if self.scaled else 0)
            grad = np.where(x == 0, 0.5, grad)
        return (grad_out * grad,)


# -- sinc ------------------------------------------------------------------------------

class Sinc(Unary):
    """sin(pi x) / (pi x), and 1 at x = 0 (numpy's sinc, the normalised one)."""

    name = "sinc"

    def forward(self, x):
        self.x = x
        return np.sinc(x).astype(_float_dtype(x.dtype), copy=False)

    def backward(self, grad_out):  # y = sin(pi x)/(pi x);  dy/dx = (cos(pi x) - y)/x, 0 at 0
        x = self.x
        with np.errstate(divide="ignore", invalid="ignore"):
            grad = (np.cos(math.pi * x) - np.sinc(x)) / x
        return (grad_out * np.where(x == 0, 0, grad),)


# -- the normal distribution -------------------------------------------------------------

@quiet
def erfcx(x: np.ndarray) -> np.ndarray:
    """The scaled complementary error function exp(x**2) erfc(x), finite where erfc
    underflows.

    For 0 <= x < 7: exp(x**2) erfc(x), with x**2 split into hi**2 + rest (hi, x's upper
    26 bits, squares without rounding; rest is small), so that exp's argument loses
    nothing that matters.
    For x >= 7, the asymptotic series 1/(x sqrt(pi)) sum_n (-1)**n (2n-1)!! / (2x**2)**n,
    40 terms, before they stop shrinking (at x = 7 the last is below 1e-20).
    For x < 0: erfcx(x) = 2 exp(x**2) - erfcx(-x) (inf from about x = -26.6 on)."""
    x = _f64(x)
    a = np.abs(x)
    hi = _upper_bits(a)
    rest = (a - hi) * (a + hi)  # a**2 = hi**2 + rest: hi**2 exact, rest tiny beside it
    exp_square = np.exp(hi * hi) * np.exp(rest)
    near = exp_square * _erfc(np.where(a < 7, a, 0.0))
    far = np.where(a >= 7, a, 7.0)
    term, total = np.ones_like(far), np.ones_like(far)
    for n in range(1, 41):
        term = term * -(2 * n - 1) / (2 * far * far)
        total = total + term
    positive = np.where(a < 7, near, total / (far * _SQRT_PI))
    result = np.where(x < 0, 2 * exp_square - positive, positive)
    return np.where(x == -np.inf, np.inf, np.where(np.isnan(x), np.nan, result))


def _upper_bits(a: np.ndarray) -> np.ndarray:
    """a with its lower 27 bits of mantissa cleared (Veltkamp's split): its square is exact."""
    split = a * 134217729.0  # 2**27 + 1
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(split), split - (split - a), a)


class Erfcx(Unary):
    name = "erfcx"
    keeps_output = True

    def forward(self, x):
        self.x = x
        self.y = erfcx(x).astype(_float_dtype(x.dtype), copy=False)
        return self.y

    def backward(self, grad_out):  # y = e**(x**2) erfc(x);  dy/dx = 2x y - 2/sqrt(pi)
        return (grad_out * (2 * self.x * self.y - 2 / _SQRT_PI),)


class Ndtr(Unary):
    """The standard normal's cumulative distribution, Phi(x) = erfc(-x / sqrt 2) / 2."""

    name = "ndtr"

    def forward(self, x):
        self.x = x
        return (0.5 * _erfc(-x / _SQRT_2)).astype(_float_dtype(x.dtype), copy=False)

    def backward(self, grad_out):  # y = Phi(x);  dy/dx = exp(-x**2/2) / sqrt(2 pi)
        return (grad_out * np.exp(-self.x * self.x / 2) / _SQRT_2PI,)


@quiet
def log_ndtr(x: np.ndarray) -> np.ndarray:
    """log Phi(x), without Phi's underflow on the left or its rounding to 1 on the right:
    for x < 0, log(erfcx(-x/sqrt 2) / 2) - x**2/2; for x >= 0, log1p(-Phi(-x))."""
    x = _f64(x)
    left = np.log(erfcx(-np.minimum(x, 0) / _SQRT_2) / 2) - x * x / 2
    right = np.log1p(-0.5 * _erfc(np.maximum(x, 0) / _SQRT_2))
    return np.where(x < 0, left, right)


class LogNdtr(Unary):
    name = "log_ndtr"

    def forward(self, x):
        self.x = x
        return log_ndtr(x).astype(_float_dtype(x.dtype), copy=False)

    def backward(self, grad_out):
        # y = log Phi(x);  dy/dx = phi(x) / Phi(x) = sqrt(2/pi) / erfcx(-x / sqrt 2)
        return (grad_out * math.sqrt(2 / math.pi) / erfcx(-self.x / _SQRT_2),)


@quiet
def ndtri(p: np.ndarray) -> np.ndarray:
    """The inverse of Phi: the x with Phi(x) = p.

    In the middle (1/4 <= p <= 3/4), x = sqrt 2 erfinv(2p - 1), where 2p - 1 is exact.  In
    the tails, Newton's method on log Phi(x) = log p from Winitzki's guess, with the step
    (log Phi(x) - log p) / (d/dx log Phi(x)): log Phi is nearly a parabola there, so a few
    steps reach the last digit even for p = 1e-300.  Phi(-x) = 1 - p for the upper tail
    (1 - p is exact for p >= 1/2)."""
    p = _f64(p)
    upper = p > 0.5
    tail = np.where(upper, 1 - p, p)  # in (0, 1/2]
    c = 2 * tail  # erfc(-x / sqrt 2) = 2 tail, x < 0
    k = 0.147  # Winitzki's guess for erfinv(1 - c): log(1 - (1-c)**2) = log(c (2 - c))
    log_term = np.log(c) + np.log(2 - c)
    first = 2 / (math.pi * k) + log_term / 2
    x = -_SQRT_2 * np.sqrt(np.sqrt(first * first - log_term / k) - first)
    x = np.where(np.isfinite(x), x, -1.0)
    target = np.log(tail)
    for _ in range(8):
        slope = math.sqrt(2 / math.pi) / erfcx(-x / _SQRT_2)
        x = x - (log_ndtr(x) - target) / slope
    x = np.where(upper, -x, x)
    middle = (p >= 0.25) & (p <= 0.75)
    x = np.where(middle, _SQRT_2 * erfinv(np.where(middle, 2 * p - 1, 0.0)), x)
    x = np.where(p == 0, -np.inf, np.where(p == 1, np.inf, x))
    return np.where((p < 0) | (p > 1) | np.isnan(p), np.nan, x)


class Ndtri(Unary):
    name = "ndtri"
    keeps_output = True

    def forward(self, x):
        self.y = ndtri(x).astype(_float_dtype(x.dtype), copy=False)
        return self.y

    def backward(self, grad_out):  # p = Phi(y);  dy/dp = 1 / phi(y) = sqrt(2 pi) e**(y**2/2)
        return (grad_out * _SQRT_2PI * np.exp(self.y * self.y / 2),)


# -- entropy terms ---------------------------------------------------------------------

class Entr(Unary):
    """-x log x, the entropy of one probability: 0 at x = 0, -inf for x < 0."""

    name = "entr"

    def forward(self, x):
        self.x = x
        with np.errstate(divide="ignore", invalid="ignore"):
            y = np.where(x > 0, -x * np.log(np.where(x > 0, x, 1)), 0.0)
        return np.where(x < 0, -np.inf, np.where(np.isnan(x), np.nan, y)).astype(
            _float_dtype(x.dtype))

    def backward(self, grad_out):  # y = -x log x;  dy/dx = -(1 + log x)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (grad_out * -(1 + np.log(self.x)),)


class Xlog1py(Binary):
    """x * log(1 + y), with 0 where x is 0 (unless y is NaN)."""

    name = "xlog1py"
    ints_to_float = True

    def forward(self, x, y):
        self.x, self.y = x, y
        zero = (x == 0) & ~np.isnan(y)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(zero, 0, x * np.log1p(y))

    def backward(self, grad_out):  # z = x log(1 + y);  dz/dx = log(1 + y), dz/dy = x / (1 + y)
        x, y = self.x, self.y
        with np.errstate(divide="ignore", invalid="ignore"):
            grad_x = grad_out * np.where((x == 0) & (y <= -1), 0, np.log1p(y))
            return grad_x, grad_out * x / (1 + y)
