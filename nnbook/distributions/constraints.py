"""Constraints: the set of values a parameter or a sample may take (PyTorch's
``torch.distributions.constraints``).

    constraints.positive.check(nb.tensor([1.0, -2.0]))    # tensor([ True, False])

``check(value)`` answers per element, or per event for a constraint on whole vectors
(``simplex``: one answer for each vector of the last dim).  Each constraint also says
what it means in words (``describe``), which is what a distribution's error shows.
"""
from __future__ import annotations

import numpy as np

from ..errors import MissingRuleError, message
from ..tensor import Tensor, _wrap


def _array(value) -> np.ndarray:
    return value._array if isinstance(value, Tensor) else np.asarray(value)


class Constraint:
    """A set of allowed values.  ``event_dim`` is how many rightmost dims form one value
    that is checked as a whole; ``is_discrete`` says whether the values are counted."""

    is_discrete = False
    event_dim = 0

    def holds(self, x: np.ndarray) -> np.ndarray:  # a bool array of x's shape
        """Where x is allowed.  Each constraint below defines it; a constraint of your own
        defines it, or ``check`` as in PyTorch."""
        name = type(self).__name__
        raise MissingRuleError(message(
            f"{name} says nothing about which values it allows.", where=f"{name}.check",
            hint=f"define {name}.check(self, value) returning a bool tensor (as in PyTorch), "
            f"or {name}.holds(self, x) returning a bool numpy array."))

    def check(self, value) -> Tensor:
        """A bool tensor: True where ``value`` satisfies the constraint."""
        x = _array(value)
        ok = np.asarray(self.holds(x), dtype=bool)
        for _ in range(self.event_dim - (x.ndim - ok.ndim)):  # vectors answer as a whole
            ok = ok.all(-1)
        return _wrap(ok)

    def describe(self) -> str:
        return repr(self)

    def __repr__(self):
        return f"{type(self).__name__[1:]}()"


class _Real(Constraint):
    def holds(self, x):
        return x == x  # everything but NaN

    def describe(self):
        return "a real number (not NaN)"


class _Boolean(Constraint):
    is_discrete = True

    def holds(self, x):
        return (x == 0) | (x == 1)

    def describe(self):
        return "0 or 1"


class _GreaterThan(Constraint):
    def __init__(self, lower_bound, inclusive=False):
        self.lower_bound, self.inclusive = lower_bound, inclusive

    def holds(self, x):
        bound = _array(self.lower_bound)
        return x >= bound if self.inclusive else x > bound

    def describe(self):
        return f"{'>=' if self.inclusive else '>'} {_short(self.lower_bound)}"

    def __repr__(self):
        return f"{'GreaterThanEq' if self.inclusive else 'GreaterThan'}" \
               f"(lower_bound={_short(self.lower_bound)})"


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def holds(self, x):
        return x < _array(self.upper_bound)

    def describe(self):
        return f"< {_short(self.upper_bound)}"

    def __repr__(self):
        return f"LessThan(upper_bound={_short(self.upper_bound)})"


class _Interval(Constraint):
    """lower <= x <= upper (``half_open_interval``: lower <= x < upper)."""

    def __init__(self, lower_bound, upper_bound, half_open=False):
        self.lower_bound, self.upper_bound, self.half_open = lower_bound, upper_bound, half_open

    def holds(self, x):
        low, high = _array(self.lower_bound), _array(self.upper_bound)
        return (x >= low) & ((x < high) if self.half_open else (x <= high))

    def describe(self):
        close = ")" if self.half_open else "]"
        return f"in [{_short(self.lower_bound)}, {_short(self.upper_bound)}{close}"

    def __repr__(self):
        name = "HalfOpenInterval" if self.half_open else "Interval"
        return f"{name}(lower_bound={_short(self.lower_bound)}, " \
               f"upper_bound={_short(self.upper_bound)})"


class _IntegerInterval(_Interval):
    is_discrete = True

    def holds(self, x):
        return (x % 1 == 0) & super().holds(x)

    def describe(self):
        return f"a whole number from {_short(self.lower_bound)} to {_short(self.upper_bound)}"

    def __repr__(self):
        return f"IntegerInterval(lower_bound={_short(self.lower_bound)}, " \
               f"upper_bound={_short(self.upper_bound)})"


class _IntegerGreaterThan(_GreaterThan):
    """Whole numbers >= lower_bound (counts: ``nonnegative_integer``, ``positive_integer``)."""

    is_discrete = True

    def __init__(self, lower_bound):
        super().__init__(lower_bound, inclusive=True)

    def holds(self, x):
        return (x % 1 == 0) & super().holds(x)

    def describe(self):
        return f"a whole number >= {_short(self.lower_bound)}"

    def __repr__(self):
        return f"IntegerGreaterThan(lower_bound={_short(self.lower_bound)})"


class _Simplex(Constraint):
    """Vectors (the last dim) of non-negative numbers that sum to 1."""

    event_dim = 1

    def holds(self, x):
        return (x >= 0).all(-1) & (np.abs(x.sum(-1) - 1) < 1e-6)

    def describe(self):
        return "vectors (the last dim) of numbers >= 0 that sum to 1"


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def holds(self, x):
        return ((x == 0) | (x == 1)).all(-1) & (x.sum(-1) == 1)

    def describe(self):
        return "one-hot vectors (the last dim): one 1, zeros elsewhere"


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal."""

    event_dim = 2

    def holds(self, x):
        lower = (np.triu(x, 1) == 0).all((-2, -1))
        return lower & (np.diagonal(x, 0, -2, -1) > 0).all(-1)

    def describe(self):
        return "lower-triangular matrices with a positive diagonal"


class _PositiveDefinite(Constraint):
    """Symmetric matrices whose eigenvalues are all positive."""

    event_dim = 2

    def holds(self, x):
        symmetric = np.isclose(x, np.swapaxes(x, -1, -2), atol=1e-6).all((-2, -1))
        if x.shape[-1] == 0 or not symmetric.all():
            return symmetric
        return symmetric & (np.linalg.eigvalsh(x) > 0).all(-1)

    def describe(self):
        return "symmetric positive-definite matrices"


class _Independent(Constraint):
    """``base`` with the rightmost ``reinterpreted_batch_ndims`` dims checked as one."""

    def __init__(self, base, reinterpreted_batch_ndims):
        self.base, self.reinterpreted_batch_ndims = base, int(reinterpreted_batch_ndims)
        self.is_discrete = base.is_discrete
        self.event_dim = base.event_dim + self.reinterpreted_batch_ndims

    def holds(self, x):
        return self.base.holds(x)

    def describe(self):
        return self.base.describe()

    def __repr__(self):
        return f"IndependentConstraint({self.base!r}, {self.reinterpreted_batch_ndims})"


class _Dependent(Constraint):
    """A constraint that depends on other parameters (checked by the distribution)."""

    def holds(self, x):
        return np.ones(x.shape, dtype=bool)

    def describe(self):
        return "(depends on the other parameters)"


def _short(bound) -> str:
    values = _array(bound)
    if values.ndim == 0 or (values.size and (values == values.flat[0]).all()):
        return f"{float(values.flat[0]):g}"  # one number, also when repeated
    return getattr(bound, "_bound_name", "the given bounds")  # Uniform's names its bounds


def _named(bound, name):
    """``bound`` (a tensor) as a constraint's messages call it: 'high' rather than its values."""
    named = bound.detach()
    named._bound_name = name
    return named


real = _Real()
real_vector = _Independent(real, 1)
boolean = _Boolean()
positive = _GreaterThan(0.0)
nonnegative = _GreaterThan(0.0, inclusive=True)
unit_interval = _Interval(0.0, 1.0)
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
simplex = _Simplex()
one_hot = _OneHot()
lower_cholesky = _LowerCholesky()
positive_definite = _PositiveDefinite()
dependent = _Dependent()
greater_than = _GreaterThan
less_than = _LessThan
interval = _Interval
integer_interval = _IntegerInterval
integer_greater_than = _IntegerGreaterThan
independent = _Independent


def greater_than_eq(lower_bound):
    return _GreaterThan(lower_bound, inclusive=True)


def half_open_interval(lower_bound, upper_bound):
    return _Interval(lower_bound, upper_bound, half_open=True)
