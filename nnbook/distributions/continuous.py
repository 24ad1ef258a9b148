"""Distributions of one real number: Normal, Uniform, Exponential, Laplace.

Each draws by reparameterisation (``rsample``): a parameter-free noise from nnbook's
generator, moved and stretched by the parameters, so gradients reach them.
"""
from __future__ import annotations

import math

import numpy as np

from ..creation import zeros_like
from ..errors import InputError, message
from . import constraints
from .distribution import Distribution, broadcast_all, numbers_only


class _Scalar(Distribution):
    """A family of one-number distributions with parameters of one broadcast shape."""

    has_rsample = True

    def _setup(self, names, values, validate_args):
        where = f"distributions.{type(self).__name__}"
        for name, value in zip(names, broadcast_all(*values, where=where)):
            self.__dict__[name] = value
        batch = () if numbers_only(*values) else getattr(self, names[0]).shape
        self._expandable = tuple(names)
        super().__init__(batch, validate_args=validate_args)

    @property
    def _dtype(self):
        return getattr(self, self._expandable[0])._array.dtype


class Normal(_Scalar):
    """The normal (Gaussian) distribution N(loc, scale**2); ``scale`` is the standard
    deviation, not the variance."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self._setup(("loc", "scale"), (loc, scale), validate_args)

    mean = mode = property(lambda self: self.loc)
    stddev = property(lambda self: self.scale)
    variance = property(lambda self: self.scale.pow(2))

    def rsample(self, sample_shape=()):
        eps = self._noise(lambda g, shape: g.standard_normal(shape), sample_shape)
        return self.loc + eps * self.scale  # x = mu + sigma * eps: dx/dmu = 1, dx/dsigma = eps

    def log_prob(self, value):
        value = self._validate_sample(value)
        # log N(x; mu, sigma) = -(x - mu)^2 / (2 sigma^2) - log sigma - log sqrt(2 pi)
        return -((value - self.loc) ** 2) / (2 * self.scale ** 2) - self.scale.log() \
            - 0.5 * math.log(2 * math.pi)

    def cdf(self, value):
        value = self._validate_sample(value, "cdf")
        return 0.5 * (1 + ((value - self.loc) / (self.scale * math.sqrt(2))).erf())

    def icdf(self, value):
        value = _probability(self, value)
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)

    def entropy(self):  # H = 1/2 + 1/2 log(2 pi) + log sigma
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()


class Uniform(_Scalar):
    """The uniform distribution on [low, high)."""

    def __init__(self, low, high, validate_args=None):
        self._setup(("low", "high"), (low, high), validate_args)

    @property
    def arg_constraints(self):
        return {"low": constraints.less_than(constraints._named(self.high, "high")),
                "high": constraints.greater_than(constraints._named(self.low, "low"))}

    @property
    def support(self):
        return constraints.interval(self.low, self.high)

    mean = property(lambda self: (self.high + self.low) / 2)
    mode = property(lambda self: self.high * float("nan"))
    stddev = property(lambda self: (self.high - self.low) / 12 ** 0.5)
    variance = property(lambda self: (self.high - self.low).pow(2) / 12)

    def rsample(self, sample_shape=()):
        below_one = np.nextafter(self._dtype.type(1), self._dtype.type(0))
        # in [0, 1), also after rounding to float32
        u = self._noise(lambda g, shape: np.minimum(g.random(shape), below_one), sample_shape)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        value = self._validate_sample(value)
        inside = (self.low <= value).type_as(self.low) * (value < self.high).type_as(self.low)
        return inside.log() - (self.high - self.low).log()  # log 0 = -inf outside

    def cdf(self, value):
        value = self._validate_sample(value, "cdf")
        return ((value - self.low) / (self.high - self.low)).clamp(0, 1)

    def icdf(self, value):
        return _probability(self, value) * (self.high - self.low) + self.low

    def entropy(self):
        return (self.high - self.low).log()


class Exponential(_Scalar):
    """The exponential distribution with ``rate`` (mean 1 / rate)."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative

    def __init__(self, rate, validate_args=None):
        self._setup(("rate",), (rate,), validate_args)

    mean = stddev = property(lambda self: self.rate.reciprocal())
    mode = property(lambda self: zeros_like(self.rate))
    variance = property(lambda self: self.rate.pow(-2))

    def rsample(self, sample_shape=()):
        e = self._noise(lambda g, shape: g.standard_exponential(shape), sample_shape)
        return e / self.rate  # an Exponential(1) draw, stretched

    def log_prob(self, value):
        value = self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        value = self._validate_sample(value, "cdf")
        return 1 - (-self.rate * value).exp()

    def icdf(self, value):
        return -(-_probability(self, value)).log1p() / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()


class Laplace(_Scalar):
    """The Laplace (double exponential) distribution, density exp(-|x - loc| / scale) /
    (2 scale)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self._setup(("loc", "scale"), (loc, scale), validate_args)

    mean = mode = property(lambda self: self.loc)
    stddev = property(lambda self: math.sqrt(2) * self.scale)
    variance = property(lambda self: 2 * self.scale.pow(2))

    def rsample(self, sample_shape=()):
        # u uniform in (-1, 1): the inverse cdf, loc - scale sign(u) log(1 - |u|)
        low = float(np.finfo(self._dtype).eps) - 1  # above -1, where log(1 - |u|) is -inf
        u = self._noise(lambda g, shape: g.uniform(low, 1.0, shape), sample_shape)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        value = self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        value = self._validate_sample(value, "cdf")
        z = value - self.loc
        return 0.5 - 0.5 * z.sign() * (-z.abs() / self.scale).expm1()

    def icdf(self, value):
        term = _probability(self, value) - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self):
        return 1 + (2 * self.scale).log()


def _probability(dist, value):
    """icdf's argument: a tensor of probabilities in [0, 1]."""
    value = dist._validate_sample_type(value, "icdf")
    if dist._validate_args and not ((value >= 0) & (value <= 1)).all().item():
        raise InputError(message(
            "icdf takes probabilities in [0, 1]; got values outside.",
            where=f"distributions.{type(dist).__name__}.icdf",
            hint="icdf(p) is the value below which a fraction p of draws falls."))
    return value

