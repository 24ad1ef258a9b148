"""Independent: the rightmost batch dims of a distribution read as one event.

A Normal with loc of shape (64, 10) is 640 numbers; ``Independent(normal, 1)`` is 64
vectors of 10, so ``log_prob`` sums the 10 log-probabilities of each vector (a diagonal
Gaussian, as a VAE's encoder gives).
"""
from __future__ import annotations

from ..errors import ArgumentError, InputError, message
from . import constraints
from .distribution import Distribution


def _sum_rightmost(value, n: int):
    return value.sum(tuple(range(-n, 0))) if n > 0 else value


class Independent(Distribution):
    """``base_distribution`` with its last ``reinterpreted_batch_ndims`` batch dims moved
    into the event shape."""

    arg_constraints: dict = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        where = "distributions.Independent"
        if not isinstance(base_distribution, Distribution):
            raise ArgumentError(message(
                f"expects a distribution, got {type(base_distribution).__name__}.",
                where=where, hint="Independent(Normal(loc, scale), 1)."))
        n, batch = reinterpreted_batch_ndims, base_distribution.batch_shape
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= len(batch):
            raise InputError(message(
                f"reinterpreted_batch_ndims must be a whole number from 0 to the "
                f"{len(batch)} batch dims of the base distribution; got {n!r}.", where=where,
                hint="1 reads the last batch dim as a vector: Independent(Normal(...), 1)."))
        self.base_dist, self.reinterpreted_batch_ndims = base_distribution, n
        cut = len(batch) - n
        super().__init__(batch[:cut], batch[cut:] + base_distribution.event_shape,
                         validate_args=validate_args)

    has_rsample = property(lambda self: self.base_dist.has_rsample)
    has_enumerate_support = False
    support = property(lambda self: constraints.independent(self.base_dist.support,
                                                           self.reinterpreted_batch_ndims))
    mean = property(lambda self: self.base_dist.mean)
    mode = property(lambda self: self.base_dist.mode)
    variance = property(lambda self: self.base_dist.variance)
    stddev = property(lambda self: self.base_dist.stddev)

    @property
    def _dtype(self):
        return self.base_dist._dtype

    def expand(self, batch_shape, _instance=None):
        new = self._new_like()
        event = self.event_shape[:self.reinterpreted_batch_ndims]
        new.base_dist = self.base_dist.expand(tuple(batch_shape) + tuple(event))
        new._batch_shape = tuple(batch_shape)
        return new

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"
