"""The base of every distribution: shapes, checks of parameters and values, sampling.

A distribution holds tensors of parameters.  Its ``batch_shape`` is how many independent
distributions it holds (a Normal with loc of shape (64, 10) is 640 of them); its
``event_shape`` is the shape of one draw (() for a number, (d,) for a vector).  A sample
of ``sample_shape`` has the shape ``sample_shape + batch_shape + event_shape``, and
``log_prob`` of it has the shape ``sample_shape + batch_shape``.

``sample()`` draws without gradient; ``rsample()`` (where ``has_rsample``) draws by
reparameterisation, ``loc + scale * noise``, so gradients flow into the parameters.
The draws come from nnbook's generator (``nb.manual_seed``), not from PyTorch's.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..context import no_grad
from ..creation import tensor
from ..errors import ArgumentError, InputError, MissingRuleError, ShapeError, fmt_shape, message
from ..functions import broadcast_shapes, broadcast_tensors
from ..random import numpy_generator
from ..tensor import Tensor
from . import constraints


def _values_text(array: np.ndarray) -> str:
    flat = array.reshape(-1)
    shown = ", ".join(f"{v:g}" for v in flat[:4]) + (", ..." if flat.size > 4 else "")
    return shown if array.ndim == 0 else f"[{shown}]"


class Distribution:
    """PyTorch's ``torch.distributions.Distribution``; see the module docstring."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = True  # as PyTorch (outside `python -O`): parameters are checked
    arg_constraints: dict = {}
    support = None

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Check parameters and log_prob values in every new distribution (True, the
        default) or not (False: faster, and wrong values give NaN or -inf silently)."""
        if value not in (True, False):  # a ValueError, as PyTorch's
            raise InputError(message(f"expects True or False, got {value!r}.",
                                     where="Distribution.set_default_validate_args",
                                     hint="Distribution.set_default_validate_args(False)."))
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape, self._event_shape = tuple(batch_shape), tuple(event_shape)
        if validate_args is not None:
            self._validate_args = bool(validate_args)
        if self._validate_args:
            for name, constraint in self.arg_constraints.items():
                if name in self.__dict__:
                    self._check_parameter(name, constraint)

    def _check_parameter(self, name, constraint, hint=None) -> None:
        value = getattr(self, name)
        ok = constraint.check(value)._array
        if ok.all():
            return
        bad = value._array[~ok] if ok.ndim else value._array
        raise InputError(message(
            f"the parameter {name} must be {constraint.describe()}; got {_values_text(bad)} "
            f"(shape {fmt_shape(value.shape)}).", where=f"distributions.{type(self).__name__}",
            hint=hint or PARAMETER_HINTS.get(name, f"check how {name} is computed; "
                                             "validate_args=False turns this check off.")))

    # -- shapes --------------------------------------------------------------------------
    @property
    def batch_shape(self) -> tuple:
        return self._batch_shape

    @property
    def event_shape(self) -> tuple:
        return self._event_shape

    def _extended_shape(self, sample_shape=()) -> tuple:
        if isinstance(sample_shape, int):
            sample_shape = (sample_shape,)
        if not isinstance(sample_shape, (tuple, list)) or not all(
                isinstance(s, (int, np.integer)) and s >= 0 for s in sample_shape):
            raise ArgumentError(message(
                f"sample_shape must be a tuple of sizes, got {sample_shape!r}.",
                where=f"distributions.{type(self).__name__}.sample",
                hint="d.sample((10,)) draws 10 samples of the batch."))
        return tuple(int(s) for s in sample_shape) + self._batch_shape + self._event_shape

    # -- sampling ------------------------------------------------------------------------
    def sample(self, sample_shape=()) -> Tensor:
        """Draws of shape ``sample_shape + batch_shape + event_shape``, without gradient."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()) -> Tensor:
        self._missing("rsample", "its draws cannot carry gradients (has_rsample is False)",
                      "draw with sample() and use log_prob(draws) for gradients (REINFORCE).")

    def _missing(self, what, why, hint):
        raise MissingRuleError(message(
            f"{type(self).__name__} has no {what}: {why}.",
            where=f"distributions.{type(self).__name__}.{what}", hint=hint))

    def sample_n(self, n) -> Tensor:
        return self.sample((n,))

    def _noise(self, draw, sample_shape) -> Tensor:
        """``draw(generator, shape)`` from nnbook's generator, as a tensor of the
        parameters' dtype."""
        shape = self._extended_shape(sample_shape)
        return tensor(np.asarray(draw(numpy_generator(), shape)).astype(self._dtype))

    @property
    def _dtype(self) -> np.dtype:
        return dtypes.default_float()

    # -- what every distribution has, or says it lacks ---------------------------------
    def log_prob(self, value) -> Tensor:
        self._missing("log_prob", "the class does not define it", "define log_prob(value).")

    def cdf(self, value) -> Tensor:
        self._missing("cdf", "nnbook (as PyTorch) does not compute it for this family",
                      "estimate it from draws: (d.sample((n,)) <= value).float().mean(0).")

    def icdf(self, value) -> Tensor:
        self._missing("icdf", "nnbook (as PyTorch) does not compute it for this family",
                      "draw with sample() instead.")

    def entropy(self) -> Tensor:
        self._missing("entropy", "the class does not define it",
                      "estimate it from draws: -d.log_prob(d.sample((n,))).mean(0).")

    def enumerate_support(self, expand=True) -> Tensor:
        self._missing("enumerate_support", "its values are not a finite set",
                      "only discrete distributions (Bernoulli, Categorical...) list them.")

    def perplexity(self) -> Tensor:
        return self.entropy().exp()

    @property
    def mean(self) -> Tensor:
        self._missing("mean", "the class does not define it", "define the mean property.")

    @property
    def mode(self) -> Tensor:
        self._missing("mode", "the class does not define it", "define the mode property.")

    @property
    def variance(self) -> Tensor:
        self._missing("variance", "the class does not define it",
                      "define the variance property.")

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    # -- checks of values ----------------------------------------------------------------
    def _validate_sample_type(self, value, where) -> Tensor:
        if not isinstance(value, Tensor):  # a ValueError, as PyTorch's
            raise InputError(message(
                f"expects a tensor, got {type(value).__name__}.",
                where=f"distributions.{type(self).__name__}.{where}",
                hint="wrap numbers: d.log_prob(nb.tensor(0.5))."))
        return value

    def _validate_sample(self, value, where="log_prob", support=None) -> Tensor:
        """``value`` as a tensor, checked (when validating) to be in the support (or in
        ``support`` when given) and broadcastable with the batch."""
        name = f"distributions.{type(self).__name__}.{where}"
        value = self._validate_sample_type(value, where)
        if not self._validate_args:
            return value
        event = len(self._event_shape)
        if value.shape[value.ndim - event:] != self._event_shape if event else False:
            raise ShapeError(message(
                f"expects values whose last dims are the event shape "
                f"{fmt_shape(self._event_shape)}, got shape {fmt_shape(value.shape)}.",
                where=name, hint="one value of this distribution has the event shape."))
        try:
            broadcast_shapes(value.shape, self._batch_shape + self._event_shape)
        except ShapeError:
            raise ShapeError(message(
                f"a value of shape {fmt_shape(value.shape)} does not broadcast with the batch "
                f"shape {fmt_shape(self._batch_shape)} and event shape "
                f"{fmt_shape(self._event_shape)}.", where=name,
                hint="its rightmost dims must match the batch (or be 1).")) from None
        support = self.support if support is None else support
        ok = support.check(value)._array
        if not ok.all():
            raise InputError(message(
                f"the value must be in the support, {support.describe()}; got "
                f"{_values_text(value._array[~ok] if ok.ndim else value._array)} (shape "
                f"{fmt_shape(value.shape)}).", where=name,
                hint="log_prob of a value the distribution never gives is -inf; "
                     "validate_args=False returns it instead of this error."))
        return value

    # -- new batch shapes ----------------------------------------------------------------
    def _new_like(self):
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def expand(self, batch_shape, _instance=None) -> "Distribution":
        """The same distribution repeated to ``batch_shape`` (views of the parameters)."""
        batch_shape = tuple(batch_shape)
        new = self._new_like()
        for name in self._expandable:
            value = getattr(self, name)
            new.__dict__[name] = value.expand(
                batch_shape + value.shape[len(self._batch_shape):])
        new._batch_shape = batch_shape
        return new

    _expandable: tuple = ()

    def __repr__(self):
        shown = [f"{name}: {_short_param(getattr(self, name))}" for name in self._expandable
                 if name in self.__dict__ and name in self.arg_constraints]
        return f"{type(self).__name__}({', '.join(shown)})"


def _short_param(value: Tensor) -> str:
    return f"{value.item():g}" if value.numel() == 1 else f"size {fmt_shape(value.shape)}"


PARAMETER_HINTS = {
    "scale": "a standard deviation is > 0: make it from an unconstrained number, e.g. "
             "log_std.exp() or F.softplus(raw) + 1e-5.",
    "rate": "a rate is > 0: make it from an unconstrained number, e.g. raw.exp().",
    "probs": "probabilities are in [0, 1] (for classes: >= 0); to pass scores, use "
             "logits= instead of probs=.",
    "logits": "logits are any real numbers; a NaN among them comes from an earlier step.",
    "loc": "a NaN in loc comes from an earlier step (check the network's output).",
    "concentration": "a concentration is > 0: make it from an unconstrained number, e.g. "
                     "F.softplus(raw) + 1e-3 or raw.exp().",
    "concentration1": "a concentration is > 0: make it from an unconstrained number, e.g. "
                      "F.softplus(raw) + 1e-3 or raw.exp().",
    "concentration0": "a concentration is > 0: make it from an unconstrained number, e.g. "
                      "F.softplus(raw) + 1e-3 or raw.exp().",
    "df": "degrees of freedom are > 0 (often a whole number: Chi2(3), StudentT(4)).",
    "total_count": "total_count is the number of trials: a whole number >= 0, e.g. "
                   "Binomial(10, probs=p).",
    "low": "low must be below high, element by element.",
    "high": "high must be above low, element by element.",
    "scale_tril": "scale_tril is the lower-triangular Cholesky factor: take "
                  "m.tril() with a positive diagonal (e.g. exp() of it).",
    "covariance_matrix": "a covariance matrix is symmetric positive-definite: e.g. "
                         "A @ A.T + 1e-3 * nb.eye(d).",
    "precision_matrix": "a precision matrix is symmetric positive-definite: e.g. "
                        "A @ A.T + 1e-3 * nb.eye(d).",
}


def broadcast_all(*values, where: str) -> tuple:
    """Parameters as tensors of one shape: Python numbers become tensors of the first
    tensor's dtype (the default float when all are numbers), as PyTorch's."""
    dtype = next((v.dtype for v in values if isinstance(v, Tensor)), None)
    made = []
    for value in values:
        if isinstance(value, Tensor):
            made.append(value)
        elif isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
            made.append(tensor(float(value), dtype=dtype))
        else:
            raise ArgumentError(message(
                f"expects tensors or numbers as parameters, got {type(value).__name__}.",
                where=where, hint="wrap a list: nb.tensor([0.0, 1.0])."))
    try:
        return broadcast_tensors(*made)
    except ShapeError:
        raise ShapeError(message(
            f"parameters of shapes {', '.join(fmt_shape(v.shape) for v in made)} do not "
            "broadcast together.", where=where,
            hint="give them the same shape, or sizes of 1 where one is shared.")) from None


def numbers_only(*values) -> bool:
    return all(not isinstance(v, Tensor) for v in values)


__all__ = ["Distribution", "broadcast_all", "constraints"]
