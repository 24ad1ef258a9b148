"""Activations: elementwise functions, and softmax over one dimension.

Each layer keeps its arguments under PyTorch's names and prints them as PyTorch does
(``LeakyReLU(negative_slope=0.2)``); ``inplace=True`` is accepted and a new tensor is
returned, as for ``F.relu``.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import default_float
from ...errors import InputError, ShapeError, fmt_shape, message, warn_from_user_code
from ...ops.activations import check_slopes
from .. import functional as F
from .. import init
from ..module import Module
from ..parameter import Parameter
from ._args import check_device, positive_int


class ReLU(Module):
    """max(x, 0).  ``inplace`` is accepted for PyTorch code; a new tensor is returned."""

    preserves_channels = True  # for hints: the channel count passes through

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """1 / (1 + exp(-x))."""

    preserves_channels = True  # for hints: the channel count passes through

    def forward(self, input):
        return F.sigmoid(input)


class Tanh(Module):
    """tanh(x)."""

    preserves_channels = True  # for hints: the channel count passes through

    def forward(self, input):
        return F.tanh(input)


class _SoftmaxLike(Module):
    preserves_channels = True  # for hints: the channel count passes through
    _function = None

    def __init__(self, dim: int | None = None):
        super().__init__()
        if dim is None:
            cls = type(self).__name__
            raise InputError(message(
                f"{cls} needs dim: which dimension holds the classes?", where=cls,
                hint=f"for scores of shape (N, C) write {cls}(dim=1). (Lua's "
                f"nn.{cls.replace('max', 'Max')}() and old PyTorch guessed the dimension; "
                "guessing is deprecated.)"))
        self.dim = dim

    def forward(self, input):
        return type(self)._function(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_SoftmaxLike):
    """exp(x) / sum(exp(x)) along ``dim``: probabilities that sum to 1."""

    _function = staticmethod(F.softmax)


class LogSoftmax(_SoftmaxLike):
    """log(softmax(x)) along ``dim``, computed stably; pair it with NLLLoss."""

    _function = staticmethod(F.log_softmax)


class _Elementwise(Module):
    """An activation with no arguments: ``_function(input)``."""

    preserves_channels = True  # for hints: the channel count passes through
    _function = None

    def forward(self, input):
        return type(self)._function(input)


class _InPlaceFlag(_Elementwise):
    """An activation whose only argument is PyTorch's ``inplace`` (accepted, not used)."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class SiLU(_InPlaceFlag):
    """x * sigmoid(x) (swish)."""

    _function = staticmethod(F.silu)


class Mish(_InPlaceFlag):
    """x * tanh(softplus(x))."""

    _function = staticmethod(F.mish)


class SELU(_InPlaceFlag):
    """scale * ELU(x, alpha) with the constants that keep activations standardised."""

    _function = staticmethod(F.selu)


class Hardsigmoid(_InPlaceFlag):
    """0 below -3, 1 above 3, x / 6 + 1/2 between."""

    _function = staticmethod(F.hardsigmoid)


class Hardswish(_InPlaceFlag):
    """x * hardsigmoid(x)."""

    _function = staticmethod(F.hardswish)


class Softsign(_Elementwise):
    """x / (1 + |x|)."""

    _function = staticmethod(F.softsign)


class Tanhshrink(_Elementwise):
    """x - tanh(x)."""

    _function = staticmethod(F.tanhshrink)


class _Shrink(Module):
    """An activation with one argument, ``lambd``: ``_function(input, lambd)``."""

    preserves_channels = True  # for hints: the channel count passes through
    _function = None

    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return type(self)._function(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Hardshrink(_Shrink):
    """x where |x| > lambd, 0 elsewhere."""

    _function = staticmethod(F.hardshrink)


class Softshrink(_Shrink):
    """x - lambd above lambd, x + lambd below -lambd, 0 between."""

    _function = staticmethod(F.softshrink)


class GLU(Module):
    """The gated linear unit: the first half of ``dim`` times the sigmoid of the second
    (the features halve: (N, 2·F) -> (N, F) with the default dim=-1)."""

    def __init__(self, dim: int = -1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def shape_formula(self, input_shapes) -> list:
        """For nb.infer_shapes: the halved dimension."""
        if not input_shapes or not -len(input_shapes[0]) <= self.dim < len(input_shapes[0]):
            return []
        size = input_shapes[0][self.dim]
        return [f"dim {self.dim}: {size} / 2 = {size // 2} values, gated by the other {size // 2}"]

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax2d(Module):
    """Softmax over the channels of each pixel: (N, C, H, W) or (C, H, W), dimension -3."""

    preserves_channels = True  # for hints: the channel count passes through

    def forward(self, input):
        ndim = getattr(input, "ndim", None)
        if ndim is not None and ndim not in (3, 4):
            raise ShapeError(message(
                f"expects a 3-D input (C, H, W) or a 4-D input (N, C, H, W), got {ndim}-D "
                f"with shape {fmt_shape(input.shape)}.",
                hint="Softmax2d is a softmax over the channels of images; for scores "
                "(N, C) use Softmax(dim=1)."))
        return F.softmax(input, -3)


class LogSigmoid(_Elementwise):
    """log(sigmoid(x))."""

    _function = staticmethod(F.logsigmoid)


class LeakyReLU(Module):
    """x where x > 0, negative_slope * x elsewhere."""

    preserves_channels = True

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class ELU(Module):
    """x where x > 0, alpha * (exp(x) - 1) elsewhere."""

    preserves_channels = True
    _function = staticmethod(F.elu)

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return type(self)._function(input, self.alpha)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class CELU(ELU):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""

    _function = staticmethod(F.celu)


class GELU(Module):
    """x * Phi(x); approximate='tanh' for the tanh approximation."""

    preserves_channels = True

    def __init__(self, approximate: str = "none"):
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise InputError(message(
                f"approximate={approximate!r} is not 'none' or 'tanh'.", where="GELU",
                hint="'none' uses the exact erf; 'tanh' the faster approximation."))
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    """log(1 + exp(beta x)) / beta; x itself where beta x > threshold."""

    preserves_channels = True

    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    """clamp(x, min_val, max_val)."""

    preserves_channels = True

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value: float | None = None, max_value: float | None = None):
        super().__init__()
        for old, new, value in (("min_value", "min_val", min_value),
                                ("max_value", "max_val", max_value)):
            if value is not None:  # PyTorch's old names, still accepted there with a warning
                warn_from_user_code(FutureWarning(message(
                    f"{old}= is the old name of {new}=.", where=type(self).__name__,
                    hint=f"write {new}={value!r}.", line=False)))
        min_val = min_val if min_value is None else min_value
        max_val = max_val if max_value is None else max_value
        if max_val <= min_val:
            cls = type(self).__name__
            raise InputError(message(
                f"max_val={max_val} must be greater than min_val={min_val}.", where=cls,
                hint="give the lower limit first: Hardtanh(-1.0, 1.0)."))
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + \
            (", inplace=True" if self.inplace else "")


class ReLU6(Hardtanh):
    """min(max(x, 0), 6)."""

    def __init__(self, inplace: bool = False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Threshold(Module):
    """x where x > threshold, ``value`` elsewhere."""

    preserves_channels = True

    def __init__(self, threshold: float, value: float, inplace: bool = False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + \
            (", inplace=True" if self.inplace else "")


class Softmin(Module):
    """softmax(-x) along ``dim``."""

    preserves_channels = True

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmin(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class PReLU(Module):
    """x where x > 0, weight * x elsewhere, the slope learned: one (``num_parameters=1``)
    or one per channel (``num_parameters=C``).  Starts at ``init`` (0.25)."""

    preserves_channels = True

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None):
        super().__init__()
        check_device("PReLU", device)
        self.num_parameters = positive_int("PReLU", "num_parameters", num_parameters)
        self.init = init
        dtype = np.dtype(dtype or default_float())
        self.weight = Parameter(np.empty((self.num_parameters,), dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """Randomised leaky relu: x where x > 0, a x elsewhere, with a drawn for each element
    from Uniform(lower, upper) while training and the mean (lower + upper) / 2 in eval mode."""

    preserves_channels = True

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False):
        super().__init__()
        check_slopes(lower, upper, "RReLU")
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace}"
