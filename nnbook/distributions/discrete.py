"""Distributions of counted values: Bernoulli, Categorical, OneHotCategorical.

Each takes ``probs`` or ``logits`` (exactly one) and keeps both: logits are log-odds for
a Bernoulli (``probs = sigmoid(logits)``) and unnormalised log-probabilities for the
categorical ones (``probs = softmax(logits)``).  Their draws have no gradient
(``has_rsample`` is False): REINFORCE uses ``log_prob`` of the draws instead.
"""
from __future__ import annotations

import numpy as np

from ..creation import arange, eye, tensor
from ..errors import ArgumentError, InputError, ShapeError, fmt_shape, message
from ..random import numpy_generator
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, broadcast_all, numbers_only


def _probs_or_logits(dist, probs, logits):
    if (probs is None) == (logits is None):
        raise InputError(message(
            f"takes probs or logits, exactly one; got "
            f"{'both' if probs is not None else 'neither'}.",
            where=f"distributions.{type(dist).__name__}",
            hint="probs= for probabilities, logits= for scores (a network's raw output)."))
    return ("probs", probs) if probs is not None else ("logits", logits)


def _clamped(probs: Tensor) -> Tensor:
    """probs kept a machine epsilon away from 0 and 1, so their logits are finite."""
    eps = float(np.finfo(probs._array.dtype).eps)
    return probs.clamp(eps, 1 - eps)


def _softplus(x: Tensor) -> Tensor:
    # log(1 + e^x) = max(x, 0) + log(1 + e^-|x|), without overflow; max(x, 0) written
    # (x + |x|) / 2, whose slope at 0 is 1/2, so that the whole has slope sigmoid(0) there
    return 0.5 * (x + x.abs()) + (-x.abs()).exp().log1p()


class _Coin(Distribution):
    """The base of distributions of coin tosses: ``probs`` (of a success) or ``logits``
    (its log-odds, probs = sigmoid(logits)), exactly one given; the other is computed
    from it when first read.  ``_also_expanded`` names other parameters (a Binomial's
    total_count)."""

    _also_expanded: tuple = ()

    def __init__(self, probs=None, logits=None, validate_args=None):
        name, given = self._which(probs, logits)
        (value,) = broadcast_all(given, where=f"distributions.{type(self).__name__}")
        self.__dict__[name] = value
        batch = () if numbers_only(given) else value.shape
        super().__init__(batch, validate_args=validate_args)

    def _which(self, probs, logits):
        self._given, given = _probs_or_logits(self, probs, logits)
        return self._given, given

    @property
    def probs(self):
        if "probs" not in self.__dict__:
            self.__dict__["probs"] = self.logits.sigmoid()
        return self.__dict__["probs"]

    @property
    def logits(self):
        if "logits" not in self.__dict__:
            p = _clamped(self.probs)
            self.__dict__["logits"] = p.log() - (-p).log1p()
        return self.__dict__["logits"]

    def expand(self, batch_shape, _instance=None):
        new = self._new_like()
        batch_shape = tuple(batch_shape)
        new.__dict__ = {k: v for k, v in new.__dict__.items() if k not in ("probs", "logits")}
        for name in (self._given,) + self._also_expanded:
            new.__dict__[name] = getattr(self, name).expand(batch_shape)
        new._batch_shape = batch_shape
        return new

    @property
    def _dtype(self):
        return getattr(self, self._given)._array.dtype


class Bernoulli(_Coin):
    """A coin with probability ``probs`` of 1 (or log-odds ``logits``)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _expandable = ("probs", "logits")

    mean = property(lambda self: self.probs)
    variance = property(lambda self: self.probs * (1 - self.probs))

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return mode.masked_fill(self.probs == 0.5, float("nan"))  # a fair coin has no mode

    def sample(self, sample_shape=()):
        u = self._noise(lambda g, shape: g.random(shape), sample_shape)
        return (u < self.probs.detach()).to(u.dtype)

    def log_prob(self, value):
        value = self._validate_sample(value)
        # log p(x) = x * logits - log(1 + e^logits)  (x log p + (1 - x) log(1 - p))
        return value * self.logits - _softplus(self.logits)

    def entropy(self):  # H = log(1 + e^l) - p l
        return _softplus(self.logits) - self.probs * self.logits

    def enumerate_support(self, expand=True):
        values = tensor([0.0, 1.0], dtype=self._dtype).reshape((2,) + (1,) * len(self.batch_shape))
        return values.expand((2,) + self.batch_shape) if expand else values


class Categorical(Distribution):
    """One of K classes, numbered 0..K-1, with ``probs`` (normalised along the last dim)
    or ``logits`` (normalised with a log-softmax); the last dim holds the K classes."""

    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        where = f"distributions.{type(self).__name__}"
        name, value = _probs_or_logits(self, probs, logits)
        if not isinstance(value, Tensor):
            raise ArgumentError(message(
                f"{name} must be a tensor, got {type(value).__name__}.", where=where,
                hint=f"wrap it: {type(self).__name__}({name}=nb.tensor([0.2, 0.8]))."))
        if value.ndim < 1:
            raise ShapeError(message(
                f"{name} needs a last dim of classes, got a 0-d tensor.", where=where,
                hint="for two outcomes use Bernoulli, or give [p, 1 - p]."))
        if name == "probs":
            self.__dict__["probs"] = value / value.sum(-1, keepdim=True)
        else:
            self.__dict__["logits"] = value - value.logsumexp(-1, keepdim=True)
        self._given, self._num_events = name, value.shape[-1]
        self._raw = value
        super().__init__(value.shape[:-1], validate_args=validate_args)
        if self._validate_args and name == "probs" and not (value._array >= 0).all():
            raise InputError(message(
                f"the parameter probs must be >= 0; got a negative value (shape "
                f"{fmt_shape(value.shape)}).", where=where,
                hint="to pass scores, use logits= instead of probs=."))

    @property
    def probs(self):
        if "probs" not in self.__dict__:
            self.__dict__["probs"] = self.logits.softmax(-1)
        return self.__dict__["probs"]

    @property
    def logits(self):
        if "logits" not in self.__dict__:
            eps = float(np.finfo(self.probs._array.dtype).eps)
            self.__dict__["logits"] = self.probs.clamp(eps, 1 - eps).log()
        return self.__dict__["logits"]

    def _check_parameter(self, name, constraint):
        if name == "probs" and not (self.probs._array >= 0).all():
            return  # said below, with the probs as given
        super()._check_parameter(name, constraint)

    @property
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def _dtype(self):
        return getattr(self, self._given)._array.dtype

    def expand(self, batch_shape, _instance=None):
        new = self._new_like()
        value = getattr(self, self._given)
        new.__dict__ = {k: v for k, v in new.__dict__.items() if k not in ("probs", "logits")}
        new.__dict__[self._given] = value.expand(tuple(batch_shape) + (self._num_events,))
        new._batch_shape = tuple(batch_shape)
        return new

    @property
    def mean(self):  # classes have no mean: NaN, as PyTorch
        return tensor(np.full(self.batch_shape, np.nan, dtype=self._dtype))

    variance = mean

    @property
    def mode(self):
        return self.probs.argmax(-1)

    def sample(self, sample_shape=()):
        probs = self.probs.detach()._array.astype(np.float64)
        shape = self._extended_shape(sample_shape)
        u = numpy_generator().random(shape)[..., None]  # in [0, 1), in float64
        cumulative = np.cumsum(probs, -1)
        cumulative = cumulative / cumulative[..., -1:]  # the last edge is exactly 1
        # the class is how many cumulative edges lie at or below u
        classes = (np.broadcast_to(cumulative, shape + (self._num_events,)) <= u).sum(-1)
        return tensor(np.minimum(classes, self._num_events - 1).astype(np.int64))

    def log_prob(self, value):
        value = self._validate_sample(value).long()
        shape = tuple(np.broadcast_shapes(value.shape, self.batch_shape))
        logits = self.logits.expand(shape + (self._num_events,))
        return logits.gather(-1, value.expand(shape).unsqueeze(-1)).squeeze(-1)

    def entropy(self):  # H = -sum_k p_k log p_k (0 log 0 = 0)
        finite = self.logits.clamp(min=float(np.finfo(self._dtype).min))
        return -(self.probs * finite).sum(-1)

    def enumerate_support(self, expand=True):
        values = arange(self._num_events).reshape((-1,) + (1,) * len(self.batch_shape))
        return values.expand((self._num_events,) + self.batch_shape) if expand else values

    def __repr__(self):
        return f"{type(self).__name__}({self._given}: size {fmt_shape(self._raw.shape)})"


class OneHotCategorical(Distribution):
    """A Categorical whose draws are one-hot vectors of length K (the event shape)."""

    arg_constraints = Categorical.arg_constraints
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits, validate_args=validate_args)
        k = self._categorical._num_events
        super().__init__(self._categorical.batch_shape, (k,), validate_args=validate_args)

    probs = property(lambda self: self._categorical.probs)
    logits = property(lambda self: self._categorical.logits)
    mean = property(lambda self: self._categorical.probs)
    variance = property(lambda self: self.probs * (1 - self.probs))

    @property
    def mode(self):
        return self._eye()[self._categorical.mode]

    def _eye(self):
        return eye(self.event_shape[0], dtype=self._categorical._dtype)

    def expand(self, batch_shape, _instance=None):
        new = self._new_like()
        new._categorical = self._categorical.expand(batch_shape)
        new._batch_shape = tuple(batch_shape)
        return new

    def sample(self, sample_shape=()):
        return self._eye()[self._categorical.sample(sample_shape)]

    def log_prob(self, value):
        value = self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        k = self.event_shape[0]
        values = self._eye().reshape((k,) + (1,) * len(self.batch_shape) + (k,))
        return values.expand((k,) + self.batch_shape + (k,)) if expand else values
