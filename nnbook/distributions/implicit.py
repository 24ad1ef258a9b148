"""Gradients for gamma, beta and Dirichlet draws, by implicit reparameterisation.

A normal draw is ``loc + scale * eps``, so its gradient is plain.  A gamma draw has no
such form, but it is x = F^-1(u; alpha) for a uniform u, F the gamma's cumulative
distribution.  Holding u still while alpha moves keeps F(x(alpha); alpha) = u, so

    dx/dalpha = -(dF/dalpha)(x; alpha) / p(x; alpha)        (p = dF/dx, the density)

whichever sampler made x (numpy's, here).  This file computes F and dF/dalpha, divided
by p, for the gamma (F = P(a, x), the regularised incomplete gamma function) and the
beta (F = I_x(a, b), the regularised incomplete beta function), from a series and a
continued fraction differentiated term by term, in float64 (to about 1e-12; PyTorch
approximates the same derivatives within about 1e-4).  Below them, the ops that give
draws these gradients, and the gamma's cdf.
"""
from __future__ import annotations

import numpy as np

from ..ops.base import Op, quiet
from ..ops.elementwise import Binary
from ..ops.special import digamma, lgamma

_EPS = 1e-17        # a term this small beside the sum changes nothing in float64
_MAX_TERMS = 100_000  # the series need about 10 sqrt(a) terms where x is near a
_MAX_STEPS = 5_000    # the fraction settles in under 1000 steps, even for a = 1e6


def _f64(x):
    return np.asarray(x, dtype=np.float64)


# -- the gamma: P(a, x) = 1/Gamma(a) int_0^x t^(a-1) e^-t dt -------------------------------

def _gamma_series(a, x):
    """S and dS/da in P(a, x) = x^a e^-x / Gamma(a + 1) * S, where
    S = sum_n t_n,  t_0 = 1,  t_n = t_(n-1) x / (a + n)  (for x < a + 1 the terms shrink)."""
    s, ds = np.ones_like(x), np.zeros_like(x)
    term, harmonic = np.ones_like(x), np.zeros_like(x)
    for n in range(1, _MAX_TERMS):
        term = term * x / (a + n)
        harmonic = harmonic + 1 / (a + n)  # d log t_n / da = -(1/(a+1) + ... + 1/(a+n))
        s, ds = s + term, ds - term * harmonic
        if np.all(term * (1 + harmonic) <= _EPS * (s - ds)):
            break
    return s, ds


def _gamma_fraction(a, x):
    """C and dC/da in Q(a, x) = 1 - P(a, x) = x^a e^-x / Gamma(a) * C, where (x >= a + 1)

        C = 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...))).

    C is the limit of A_n / B_n, with A_n = b_n A_(n-1) + a_n A_(n-2) (B_n alike) for
    b_n = x + 2n - 1 - a, a_1 = 1, a_n = -(n - 1)(n - 1 - a); the derivatives of A_n and
    B_n follow by differentiating that recurrence.  All are divided by B_n at each step
    (only ratios count), which keeps them finite."""
    A0, A, B0, B = np.ones_like(x), np.zeros_like(x), np.zeros_like(x), np.ones_like(x)
    dA0, dA, dB0, dB = (np.zeros_like(x) for _ in range(4))  # (A0 is A_(n-2), A is A_(n-1))
    c, dc = np.zeros_like(x), np.zeros_like(x)
    active = np.ones(x.shape, dtype=bool)  # an element stops once C and dC/da settle
    for n in range(1, _MAX_STEPS):
        a_n, da_n = (1.0, 0.0) if n == 1 else (-(n - 1) * (n - 1 - a), n - 1.0)
        b_n = x + 2 * n - 1 - a  # d b_n / da = -1
        A0, A, dA0, dA = A, b_n * A + a_n * A0, dA, b_n * dA - A + a_n * dA0 + da_n * A0
        B0, B, dB0, dB = B, b_n * B + a_n * B0, dB, b_n * dB - B + a_n * dB0 + da_n * B0
        A0, A, B0, dA0, dA, dB0, dB = (v / B for v in (A0, A, B0, dA0, dA, dB0, dB))
        B = np.ones_like(x)
        c_new, dc_new = A, dA - A * dB  # C = A/B, dC = (dA - C dB) / B
        moving = (np.abs(c_new - c) > 1e-15 * c_new) \
            | (np.abs(dc_new - dc) > 1e-15 * (np.abs(dc_new) + c_new))
        c, dc = np.where(active, c_new, c), np.where(active, dc_new, dc)
        active &= moving
        if not active.any():
            break
    return c, dc


@quiet
def regularized_gamma(a, x):
    """P(a, x) and dx/da = -(dP/da) / p(x) of a Gamma(a, 1) draw at x (p its density).

    For x < a + 1 by the series: P / p = x S / a, so dx/da = -(x/a) (S (log x - psi(a+1))
    + dS/da).  Beyond, by the fraction: Q / p = x C, so dx/da = x (C (log x - psi(a)) +
    dC/da).  Neither divides by p, which underflows far in the tails.  (P itself is good
    to about a * 1e-16 relative: its prefactor's exponent is a difference of numbers of
    size a.)"""
    a, x = np.broadcast_arrays(_f64(a), _f64(x))
    cdf = np.where(x == 0, 0.0, np.where((x == np.inf) | ((a == 0) & (x > 0)), 1.0, np.nan))
    grad = np.zeros(x.shape)
    inside = (a > 0) & (x > 0) & (x < np.inf)
    low, high = inside & (x < a + 1), inside & (x >= a + 1)
    if low.any():
        al, xl = a[low], x[low]
        s, ds = _gamma_series(al, xl)
        cdf[low] = np.exp(al * np.log(xl) - xl - lgamma(al + 1)) * s
        grad[low] = -(xl / al) * (s * (np.log(xl) - digamma(al + 1)) + ds)
    if high.any():
        ah, xh = a[high], x[high]
        c, dc = _gamma_fraction(ah, xh)
        cdf[high] = 1 - np.exp(ah * np.log(xh) - xh - lgamma(ah)) * c
        grad[high] = xh * (c * (np.log(xh) - digamma(ah)) + dc)
    return cdf, grad


# -- the beta: I_x(a, b) = 1/B(a, b) int_0^x t^(a-1) (1-t)^(b-1) dt -------------------------

def _beta_series(x, p, q):
    """S, dS/dp and dS/dq in I_x(p, q) = x^p (1-x)^q / (p B(p, q)) * S, where
    S = sum_n t_n,  t_0 = 1,  t_n = t_(n-1) x (p + q + n - 1) / (p + n)."""
    s, ds_p, ds_q = np.ones_like(x), np.zeros_like(x), np.zeros_like(x)
    term, up, down = np.ones_like(x), np.zeros_like(x), np.zeros_like(x)
    for n in range(1, _MAX_TERMS):
        ratio = x * (p + q + n - 1) / (p + n)
        term = term * ratio
        up = up + 1 / (p + q + n - 1)  # d log t_n / dq = up,  d log t_n / dp = up - down
        down = down + 1 / (p + n)
        s, ds_p, ds_q = s + term, ds_p + term * (up - down), ds_q + term * up
        if np.all((ratio < 1) & (term * (1 + up + down) <= _EPS * s)):
            break
    return s, ds_p, ds_q


@quiet
def beta_draw_grads(x, a, b):
    """dx/da and dx/db of a Beta(a, b) draw at x: -(dI/da) / p(x) and -(dI/db) / p(x).

    The series of I_x(a, b) converges fast when x is small beside the mean, that of
    I_(1-x)(b, a) = 1 - I_x(a, b) when 1 - x is: each element takes the one that needs
    fewer terms (its terms grow for n up to about ((p+q-1) x - p) / (1-x), then shrink
    by about x).  I / p = x (1-x) S / a, and log I is differentiated as in the gamma."""
    x, a, b = np.broadcast_arrays(_f64(x), _f64(a), _f64(b))
    grad_a, grad_b = np.zeros(x.shape), np.zeros(x.shape)
    inside = (x > 0) & (x < 1) & (a > 0) & (b > 0)
    grad_a[~inside] = grad_b[~inside] = np.where(np.isnan(x + a + b)[~inside], np.nan, 0.0)

    def terms_needed(x, p, q):
        return np.maximum(0, ((p + q - 1) * x - p) / (1 - x)) + 1 / (1 - x)

    direct = inside & (terms_needed(x, a, b) <= terms_needed(1 - x, b, a))
    flipped = inside & ~direct
    psi_ab = digamma(a + b)
    if direct.any():  # dI/da / p = x(1-x)/a (S (log x - 1/a - psi(a) + psi(a+b)) + dS/da)
        xd, ad, bd, common = x[direct], a[direct], b[direct], psi_ab[direct]
        s, ds_a, ds_b = _beta_series(xd, ad, bd)
        k = xd * (1 - xd) / ad
        grad_a[direct] = -k * (s * (np.log(xd) - 1 / ad - digamma(ad) + common) + ds_a)
        grad_b[direct] = -k * (s * (np.log1p(-xd) - digamma(bd) + common) + ds_b)
    if flipped.any():  # I = 1 - J, J = I_(1-x)(b, a): dI/da = -dJ/da, with J's a second
        xf, af, bf, common = x[flipped], a[flipped], b[flipped], psi_ab[flipped]
        s, ds_b, ds_a = _beta_series(1 - xf, bf, af)
        k = xf * (1 - xf) / bf
        grad_a[flipped] = k * (s * (np.log(xf) - digamma(af) + common) + ds_a)
        grad_b[flipped] = k * (s * (np.log1p(-xf) - 1 / bf - digamma(bf) + common) + ds_b)
    return grad_a, grad_b


# -- the ops ---------------------------------------------------------------------------------

def _gamma_draws(generator, alpha: np.ndarray) -> np.ndarray:
    """Gamma(alpha, 1) draws in alpha's dtype, at least its smallest normal number (as
    PyTorch's); NaN where alpha is not > 0."""
    valid = alpha > 0
    draws = generator.standard_gamma(np.where(valid, alpha, 1.0).astype(np.float64))
    tiny = np.finfo(alpha.dtype).tiny
    return np.where(valid, np.maximum(draws.astype(alpha.dtype), tiny), np.nan)


class StandardGamma(Op):
    """x ~ Gamma(alpha, 1), one draw per element of alpha, from ``generator``."""

    name = "standard_gamma"

    def __init__(self, generator):
        self.generator = generator

    def infer(self, alpha):
        return alpha.shape

    def forward(self, alpha):
        self.alpha = alpha
        self.x = _gamma_draws(self.generator, alpha)
        return self.x

    def backward(self, grad_out):  # dx/dalpha = -(dP/dalpha)(x; alpha) / p(x; alpha)
        _, grad = regularized_gamma(self.alpha, self.x)
        return (grad_out * grad.astype(self.x.dtype),)


class DirichletDraw(Op):
    """x ~ Dirichlet(alpha) along the last dim: gamma draws divided by their sum."""

    name = "dirichlet_draw"

    def __init__(self, generator):
        self.generator = generator

    def infer(self, alpha):
        return alpha.shape

    def forward(self, alpha):
        gammas = _gamma_draws(self.generator, alpha)
        x = gammas / gammas.sum(-1, keepdims=True)
        info = np.finfo(alpha.dtype)
        self.alpha, self.x = alpha, np.clip(x, info.tiny, 1 - info.eps)
        return self.x

    def backward(self, grad_out):
        return (dirichlet_backward(self.x, self.alpha, grad_out),)


def dirichlet_backward(x, alpha, grad_out):
    """The gradient reaching alpha from ``grad_out`` at a Dirichlet draw x.

    x_j alone is a Beta(alpha_j, total - alpha_j) draw, whose dx_j/dalpha_j is d_j.  As
    PyTorch, a change of alpha_j moves x_j by d_j and every other x_i by -x_i d_j / (1 - x_j),
    keeping the sum 1:  dx_i/dalpha_j = g_j (delta_ij - x_i),  g_j = d_j / (1 - x_j)."""
    total = alpha.sum(-1, keepdims=True)
    d, _ = beta_draw_grads(x, alpha, total - alpha)
    g = (d / (1 - x.astype(np.float64))).astype(x.dtype)
    return g * (grad_out - (x * grad_out).sum(-1, keepdims=True))


class RegularizedGamma(Binary):
    """P(a, x) = 1/Gamma(a) int_0^x t^(a-1) e^-t dt: the Gamma(a, 1) cdf at x."""

    name = "gammainc"
    ints_to_float = True

    def forward(self, a, x):
        cdf, self.draw_grad = regularized_gamma(a, x)
        self.a, self.x = a, x
        return cdf.astype(np.result_type(a, x))

    def backward(self, grad_out):
        # dP/dx = p(x) = x^(a-1) e^-x / Gamma(a);  dP/da = -p(x) dx/da (dx/da: a draw's)
        a, x = _f64(self.a), _f64(self.x)
        log_x = np.log(x)
        density = np.exp(np.where(a == 1, 0.0, (a - 1) * log_x) - x - lgamma(a))
        dtype = np.result_type(self.a, self.x)
        return (grad_out * (-density * self.draw_grad).astype(dtype),
                grad_out * density.astype(dtype))
