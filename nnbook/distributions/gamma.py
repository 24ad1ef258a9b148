"""The gamma family: Gamma, Chi2, Beta, Dirichlet.

Their draws come from gamma draws (a Beta or Dirichlet draw is gammas divided by their
sum), which no ``loc + scale * noise`` makes.  ``rsample`` still passes gradients to
the concentrations, by implicit reparameterisation (implicit.py): a draw x = F^-1(u; a)
for a uniform u held still moves by dx/da = -(dF/da) / p(x) when a moves.
"""
from __future__ import annotations

import numpy as np

from ..creation import eye, tensor
from ..errors import ArgumentError, ShapeError, message
from ..functions import stack
from ..random import numpy_generator
from ..tensor import Tensor, _binary, apply
from . import constraints
from .continuous import _Scalar
from .distribution import Distribution, broadcast_all
from .implicit import DirichletDraw, RegularizedGamma, StandardGamma


class Gamma(_Scalar):
    """The gamma distribution with shape ``concentration`` (alpha) and ``rate`` (beta):
    density beta^alpha x^(alpha-1) e^(-beta x) / Gamma(alpha) for x >= 0, mean alpha/beta."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative

    def __init__(self, concentration, rate, validate_args=None):
        self._setup(("concentration", "rate"), (concentration, rate), validate_args)

    mean = property(lambda self: self.concentration / self.rate)
    mode = property(lambda self: ((self.concentration - 1) / self.rate).clamp(min=0))
    variance = property(lambda self: self.concentration / self.rate.pow(2))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        alpha = self.concentration.expand(shape)
        x = apply(StandardGamma(numpy_generator()), alpha) / self.rate.expand(shape)
        x.data.clamp_(min=float(np.finfo(self._dtype).tiny))  # as PyTorch, outside the graph
        return x

    def log_prob(self, value):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = tensor(float(value), dtype=self.rate.dtype)  # PyTorch's Gamma takes one
        value = self._validate_sample(value)
        alpha, beta = self.concentration, self.rate
        # alpha log beta + (alpha - 1) log x - beta x - log Gamma(alpha)
        return alpha.xlogy(beta) + (alpha - 1).xlogy(value) - beta * value - alpha.lgamma()

    def cdf(self, value):  # P(alpha, beta x), the regularised incomplete gamma function
        value = self._validate_sample(value, "cdf")
        return _binary(RegularizedGamma(), self.concentration, self.rate * value)

    def entropy(self):  # alpha - log beta + log Gamma(alpha) + (1 - alpha) psi(alpha)
        alpha = self.concentration
        return alpha - self.rate.log() + alpha.lgamma() + (1 - alpha) * alpha.digamma()


class Chi2(Gamma):
    """The chi-squared distribution with ``df`` degrees of freedom: Gamma(df / 2, 1 / 2),
    the sum of df squared standard normal numbers."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        broadcast_all(df, where="distributions.Chi2")  # (refuses a list, with its name)
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)
        if self._validate_args:  # (df is computed, so the base class does not see it)
            self._check_parameter("df", constraints.positive)

    df = property(lambda self: self.concentration * 2)


class Beta(_Scalar):
    """The beta distribution on [0, 1], density x^(a-1) (1-x)^(b-1) / B(a, b) with
    a = ``concentration1`` and b = ``concentration0``; mean a / (a + b)."""

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval

    def __init__(self, concentration1, concentration0, validate_args=None):
        self._setup(("concentration1", "concentration0"), (concentration1, concentration0),
                    validate_args)

    def _stacked(self):  # (..., 2): [a, b], the Dirichlet whose first part is this Beta
        return stack([self.concentration1, self.concentration0], -1)

    mean = property(lambda self: self.concentration1 / (self.concentration1
                                                         + self.concentration0))
    mode = property(lambda self: _dirichlet_mode(self._stacked())[..., 0])

    @property
    def variance(self):  # a b / ((a + b)^2 (a + b + 1))
        a, b = self.concentration1, self.concentration0
        total = a + b
        return a * b / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):  # the first part of a Dirichlet([a, b]) draw
        shape = self._extended_shape(sample_shape)
        both = apply(DirichletDraw(numpy_generator()), self._stacked().expand(shape + (2,)))
        return both.select(-1, 0)

    def log_prob(self, value):
        value = self._validate_sample(value)
        a, b = self.concentration1, self.concentration0
        # (a-1) log x + (b-1) log(1-x) + log Gamma(a+b) - log Gamma(a) - log Gamma(b)
        return (a - 1).xlogy(value) + (b - 1).xlogy(1 - value) + (a + b).lgamma() \
            - (a.lgamma() + b.lgamma())

    def entropy(self):
        return _dirichlet_entropy(self._stacked())


class Dirichlet(Distribution):
    """A distribution over probability vectors (the last dim, of length k: the event
    shape (k,)), density prod_i x_i^(alpha_i - 1) / B(alpha); mean alpha / sum(alpha)."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True
    _expandable = ("concentration",)

    def __init__(self, concentration, validate_args=None):
        where = "distributions.Dirichlet"
        if not isinstance(concentration, Tensor):
            raise ArgumentError(message(
                f"concentration must be a tensor, got {type(concentration).__name__}.",
                where=where, hint="Dirichlet(nb.tensor([1.0, 1.0, 1.0]))."))
        if concentration.ndim < 1:
            raise ShapeError(message(
                "concentration needs a last dim (one number per part), got a 0-d tensor.",
                where=where, hint="for two parts use Beta(a, b), or give [a, b]."))
        self.__dict__["concentration"] = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:],
                         validate_args=validate_args)

    @property
    def _dtype(self):
        return self.concentration._array.dtype

    mean = property(lambda self: self.concentration / self.concentration.sum(-1, True))
    mode = property(lambda self: _dirichlet_mode(self.concentration))

    @property
    def variance(self):  # alpha_i (a0 - alpha_i) / (a0^2 (a0 + 1)),  a0 = sum(alpha)
        alpha = self.concentration
        total = alpha.sum(-1, True)
        return alpha * (total - alpha) / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return apply(DirichletDraw(numpy_generator()), self.concentration.expand(shape))

    def log_prob(self, value):
        value = self._validate_sample(value)
        alpha = self.concentration
        # sum_i (alpha_i - 1) log x_i + log Gamma(a0) - sum_i log Gamma(alpha_i)
        return (alpha - 1).xlogy(value).sum(-1) + alpha.sum(-1).lgamma() \
            - alpha.lgamma().sum(-1)

    def entropy(self):
        return _dirichlet_entropy(self.concentration)

    def __repr__(self):
        return f"Dirichlet(concentration: size {tuple(self.concentration.shape)})"


def _dirichlet_entropy(alpha):
    # log B(alpha) + (a0 - k) psi(a0) - sum_i (alpha_i - 1) psi(alpha_i),  a0 = sum(alpha)
    k, total = alpha.shape[-1], alpha.sum(-1)
    return alpha.lgamma().sum(-1) - total.lgamma() - (k - total) * total.digamma() \
        - ((alpha - 1) * alpha.digamma()).sum(-1)


def _dirichlet_mode(alpha):
    """(alpha_i - 1)+ / sum_j (alpha_j - 1)+; where every alpha_i < 1 (the density is
    highest at the corners), a corner: the first part's (1, 0, ..., 0), as PyTorch."""
    above_one = (alpha - 1).clamp(min=0)
    mode = above_one / above_one.sum(-1, True)
    corner = (alpha < 1).all(-1, keepdim=True)
    return mode.where(~corner, eye(alpha.shape[-1], dtype=mode.dtype)[0])
