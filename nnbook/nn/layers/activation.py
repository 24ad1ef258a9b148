"""Elementwise activations, softmax over one dimension, and Dropout."""
from __future__ import annotations

from ...errors import InputError, message
from .. import functional as F
from ...ops.dropout import check_probability
from ..module import Module


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


class Dropout(Module):
    """While training, zero each value with probability p and scale the rest by 1/(1-p).

    In ``model.eval()`` it passes the input through unchanged.  Random draws come from
    nnbook's generator, so ``nb.manual_seed`` makes them reproducible.
    """

    preserves_channels = True  # for hints: the channel count passes through

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        self.p = check_probability(p, "Dropout")
        self.inplace = inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
