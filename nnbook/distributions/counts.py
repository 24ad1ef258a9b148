"""Distributions of counts 0, 1, 2, ...: Poisson, Binomial, Geometric.

Their draws are whole numbers (as floats, in the parameters' dtype) and carry no
gradient (``has_rsample`` is False): a policy or a model of counts learns through
``log_prob`` of the draws.
"""
from __future__ import annotations

import numpy as np

from ..creation import arange, zeros_like
from ..errors import MissingRuleError, message
from . import constraints
from .continuous import _Scalar
from .discrete import _Coin, _softplus
from .distribution import Distribution, broadcast_all


class Poisson(_Scalar):
    """The number of events in a unit of time when they come at ``rate`` per unit:
    P(k) = rate^k e^(-rate) / k!."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer
    has_rsample = False

    def __init__(self, rate, validate_args=None):
        self._setup(("rate",), (rate,), validate_args)

    mean = variance = property(lambda self: self.rate)
    mode = property(lambda self: self.rate.floor())

    def sample(self, sample_shape=()):
        rate = self.rate.detach()._array
        return self._noise(lambda g, shape: g.poisson(np.broadcast_to(rate, shape)),
                           sample_shape)

    def log_prob(self, value):
        value = self._validate_sample(value)
        # k log(rate) - rate - log k!   (0 log 0 = 0: a rate of 0 gives 0 surely)
        return value.xlogy(self.rate) - self.rate - (value + 1).lgamma()

    def entropy(self):
        self._missing("entropy", "its sum over all counts has no closed form (PyTorch has "
                      "none either)", "estimate it from draws: "
                      "-d.log_prob(d.sample((n,))).mean(0).")


class Binomial(_Coin):
    """The number of successes in ``total_count`` tosses of a coin with ``probs`` (or
    log-odds ``logits``): P(k) = C(n, k) p^k (1 - p)^(n - k)."""

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True
    _also_expanded = ("total_count",)
    _expandable = ("total_count", "probs", "logits")

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        name, given = self._which(probs, logits)
        count, value = broadcast_all(total_count, given, where="distributions.Binomial")
        self.__dict__["total_count"], self.__dict__[name] = count.type_as(value), value
        Distribution.__init__(self, value.shape, validate_args=validate_args)  # (batch:
        # the parameters' shape, also for numbers, as PyTorch's)

    @property
    def support(self):
        return constraints.integer_interval(0, constraints._named(self.total_count,
                                                                  "total_count"))

    mean = property(lambda self: self.total_count * self.probs)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    @property
    def mode(self):  # floor((n + 1) p), at most n
        n = self.total_count
        return ((n + 1) * self.probs).floor().clamp(max=n)

    def sample(self, sample_shape=()):
        n, p = self.total_count.detach()._array, self.probs.detach()._array
        return self._noise(lambda g, shape: g.binomial(
            np.broadcast_to(n, shape).astype(np.int64), np.broadcast_to(p, shape)),
            sample_shape)

    def log_prob(self, value):
        value = self._validate_sample(value)
        n, logits = self.total_count, self.logits
        # log C(n, k) + k logits - n log(1 + e^logits)   (p = sigmoid(logits))
        log_choose = (n + 1).lgamma() - (value + 1).lgamma() - (n - value + 1).lgamma()
        return log_choose + value * logits - n * _softplus(logits)

    def _one_count(self, what) -> int:
        counts = self.total_count._array
        if counts.size and counts.min() != counts.max():
            raise MissingRuleError(message(
                f"{what} needs one total_count for the whole batch; got counts from "
                f"{counts.min():g} to {counts.max():g}.",
                where=f"distributions.Binomial.{what}", hint="split the batch by total_count "
                "(PyTorch refuses it too)."))
        return int(counts.max()) if counts.size else 0

    def enumerate_support(self, expand=True):
        values = arange(1 + self._one_count("enumerate_support"), dtype=self._dtype)
        values = values.reshape((-1,) + (1,) * len(self.batch_shape))
        return values.expand((-1,) + self.batch_shape) if expand else values

    def entropy(self):  # -sum_k P(k) log P(k), over k = 0..n
        self._one_count("entropy")
        log_p = self.log_prob(self.enumerate_support(False))
        return -(log_p.exp() * log_p).sum(0)


class Geometric(_Coin):
    """The number of failures before the first success, tossing a coin with ``probs``
    (or log-odds ``logits``): P(k) = (1 - p)^k p, for k = 0, 1, 2, ..."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer
    _expandable = ("probs", "logits")

    def __init__(self, probs=None, logits=None, validate_args=None):
        super().__init__(probs, logits, validate_args=validate_args)
        if self._validate_args and self._given == "probs":
            self._check_parameter("probs", constraints.positive, hint=(
                "a coin with probs 0 never succeeds, so the failures before a success are "
                "never counted; keep probs above 0 (probs.clamp(min=1e-6)) or give logits=."))

    mean = property(lambda self: 1 / self.probs - 1)
    mode = property(lambda self: zeros_like(self.probs))
    variance = property(lambda self: (1 / self.probs - 1) / self.probs)

    def sample(self, sample_shape=()):
        # k = floor(log u / log(1 - p)) for u uniform in (0, 1]: P(k >= j) = (1 - p)^j
        p = self.probs.detach()._array.astype(np.float64)
        tiny = float(np.finfo(self._dtype).tiny)
        return self._noise(lambda g, shape: np.floor(
            np.log(g.uniform(tiny, 1.0, shape)) / np.log1p(-p)), sample_shape)

    def log_prob(self, value):
        value = self._validate_sample(value)
        # k log(1 - p) + log p, with 0 log 0 = 0 (p = 1, k = 0: certain)
        shape = tuple(np.broadcast_shapes(value.shape, self.batch_shape))
        probs = self.probs.expand(shape).masked_fill((self.probs == 1) & (value == 0), 0.0)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):  # (-p log p - (1 - p) log(1 - p)) / p: a toss's entropy, 1/p tosses
        return (_softplus(self.logits) - self.probs * self.logits) / self.probs
