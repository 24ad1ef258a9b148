"""Distributions of one real number with heavy or one-sided tails: Cauchy, StudentT,
Gumbel, HalfNormal, LogNormal.

Each draws by reparameterisation from a simple noise (a normal, a uniform, a chi-squared
draw), so ``rsample`` passes gradients to the parameters.  PyTorch builds LogNormal,
HalfNormal and Gumbel as transformed distributions; here each is written out with its
own formulas, which give PyTorch's values.
"""
from __future__ import annotations

import math

import numpy as np

from ..creation import full, zeros_like
from . import constraints
from .continuous import Normal, _probability, _Scalar
from .gamma import Chi2

_EULER = 0.57721566490153286061  # Euler-Mascheroni constant: the mean of a Gumbel(0, 1)


class Cauchy(_Scalar):
    """The Cauchy (Lorentz) distribution, density 1 / (pi scale (1 + ((x - loc)/scale)^2)):
    the ratio of two standard normal numbers, moved and stretched.  It has no mean."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self._setup(("loc", "scale"), (loc, scale), validate_args)

    mean = property(lambda self: full(self.batch_shape, math.nan, dtype=self._dtype))
    mode = property(lambda self: self.loc)
    variance = property(lambda self: full(self.batch_shape, math.inf, dtype=self._dtype))

    def rsample(self, sample_shape=()):
        eps = self._noise(lambda g, shape: g.standard_cauchy(shape), sample_shape)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        value = self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - z.pow(2).log1p()

    def cdf(self, value):  # 1/2 + atan(z) / pi
        value = self._validate_sample(value, "cdf")
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value):
        return (math.pi * (_probability(self, value) - 0.5)).tan() * self.scale + self.loc

    def entropy(self):  # log(4 pi scale)
        return math.log(4 * math.pi) + self.scale.log()


class StudentT(_Scalar):
    """Student's t with ``df`` degrees of freedom, moved by ``loc`` and stretched by
    ``scale``: a normal number divided by sqrt(chi2 / df), heavier-tailed for small df."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self._setup(("df", "loc", "scale"), (df, loc, scale), validate_args)

    mode = property(lambda self: self.loc)

    @property
    def mean(self):  # loc for df > 1, none (NaN) otherwise
        return self.loc.masked_fill(self.df <= 1, math.nan)

    @property
    def variance(self):  # scale^2 df / (df - 2) for df > 2; inf for 1 < df <= 2; else NaN
        finite = self.df > 2
        df = self.df.masked_fill(~finite, 3.0)  # (so that no 1/0 reaches the gradient)
        value = (self.scale.pow(2) * df / (df - 2)).masked_fill(~finite, math.inf)
        return value.masked_fill(self.df <= 1, math.nan)

    def rsample(self, sample_shape=()):
        x = self._noise(lambda g, shape: g.standard_normal(shape), sample_shape)
        chi2 = Chi2(self.df, validate_args=False).rsample(sample_shape)
        return self.loc + self.scale * x * (chi2 / self.df).rsqrt()  # x / sqrt(chi2 / df)

    def log_prob(self, value):
        value = self._validate_sample(value)
        z, df = (value - self.loc) / self.scale, self.df
        # -(df+1)/2 log(1 + z^2/df) - log(scale sqrt(df pi) Gamma(df/2) / Gamma((df+1)/2))
        norm = self.scale.log() + 0.5 * df.log() + 0.5 * math.log(math.pi) \
            + (0.5 * df).lgamma() - (0.5 * (df + 1)).lgamma()
        return -0.5 * (df + 1) * (z.pow(2) / df).log1p() - norm

    def entropy(self):
        # log(scale sqrt(df) B(df/2, 1/2)) + (df+1)/2 (psi((df+1)/2) - psi(df/2))
        df = self.df
        log_beta = (0.5 * df).lgamma() + math.lgamma(0.5) - (0.5 * (df + 1)).lgamma()
        return self.scale.log() + 0.5 * (df + 1) * ((0.5 * (df + 1)).digamma()
                                                    - (0.5 * df).digamma()) \
            + 0.5 * df.log() + log_beta


class Gumbel(_Scalar):
    """The Gumbel (extreme value) distribution: the largest of many draws.  Density
    exp(-(z + e^-z)) / scale with z = (x - loc) / scale; cdf exp(-e^-z)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self._setup(("loc", "scale"), (loc, scale), validate_args)

    mean = property(lambda self: self.loc + self.scale * _EULER)
    mode = property(lambda self: self.loc)
    stddev = property(lambda self: (math.pi / math.sqrt(6)) * self.scale)
    variance = property(lambda self: self.stddev.pow(2))

    def rsample(self, sample_shape=()):
        info = np.finfo(self._dtype)  # u in [tiny, 1 - eps), as PyTorch: log(-log u) finite
        u = self._noise(lambda g, shape: g.uniform(info.tiny, 1 - info.eps, shape),
                        sample_shape)
        return self.loc - self.scale * (-u.log()).log()  # the inverse cdf at u

    def log_prob(self, value):
        value = self._validate_sample(value)
        y = (self.loc - value) / self.scale  # y = -z
        return (y - y.exp()) - self.scale.log()

    def cdf(self, value):
        value = self._validate_sample(value, "cdf")
        return (-((self.loc - value) / self.scale).exp()).exp()

    def icdf(self, value):  # loc - scale log(-log p)
        return self.loc - self.scale * (-_probability(self, value).log()).log()

    def entropy(self):  # log scale + 1 + euler's constant
        return self.scale.log() + (1 + _EULER)


class HalfNormal(_Scalar):
    """|x| for x ~ Normal(0, scale): twice the normal's density on x >= 0."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative

    def __init__(self, scale, validate_args=None):
        self._setup(("scale",), (scale,), validate_args)

    mean = property(lambda self: self.scale * math.sqrt(2 / math.pi))
    mode = property(lambda self: zeros_like(self.scale))
    variance = property(lambda self: self.scale.pow(2) * (1 - 2 / math.pi))

    def _normal(self):
        return Normal(zeros_like(self.scale), self.scale, validate_args=False)

    def rsample(self, sample_shape=()):
        eps = self._noise(lambda g, shape: g.standard_normal(shape), sample_shape)
        return eps.abs() * self.scale

    def log_prob(self, value):
        value = self._validate_sample(value)
        log_p = self._normal().log_prob(value) + math.log(2)
        return log_p.masked_fill(value < 0, -math.inf)  # (reached with validate_args=False)

    def cdf(self, value):  # 2 Phi(x / scale) - 1 = erf(x / (scale sqrt 2))
        value = self._validate_sample(value, "cdf")
        return 2 * self._normal().cdf(value) - 1

    def icdf(self, value):
        return self._normal().icdf((_probability(self, value) + 1) / 2)

    def entropy(self):
        return self._normal().entropy() - math.log(2)


class LogNormal(_Scalar):
    """exp(x) for x ~ Normal(loc, scale): ``loc`` and ``scale`` are the mean and standard
    deviation of the log, not of the values."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive

    def __init__(self, loc, scale, validate_args=None):
        self._setup(("loc", "scale"), (loc, scale), validate_args)

    mean = property(lambda self: (self.loc + self.scale.pow(2) / 2).exp())
    mode = property(lambda self: (self.loc - self.scale.square()).exp())

    @property
    def variance(self):  # (e^(s^2) - 1) e^(2 loc + s^2)
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def _normal(self):
        return Normal(self.loc, self.scale, validate_args=False)

    def rsample(self, sample_shape=()):
        return self._normal().rsample(sample_shape).exp()

    def log_prob(self, value):  # the normal's log-density at log y, minus log y (dy = y dx)
        value = self._validate_sample(value)
        log_y = value.log()
        return self._normal().log_prob(log_y) - log_y

    def cdf(self, value):  # the normal's cdf at log y (0 at y = 0)
        value = self._validate_sample(value, "cdf", constraints.nonnegative)
        return self._normal().cdf(value.log())

    def icdf(self, value):
        return self._normal().icdf(_probability(self, value)).exp()

    def entropy(self):
        return self._normal().entropy() + self.loc
