"""``nb.special``: PyTorch's ``torch.special`` functions, loaded on first use.

Most are nnbook's functions under their SciPy-style names (``expit`` is ``sigmoid``,
``gammaln`` is ``lgamma``, ``psi`` is ``digamma``); the rest are ops of
``nnbook/ops/special.py``, whose comments say how each is computed.
"""
from __future__ import annotations

from . import functions as _functions
from .errors import ArgumentError, message
from .ops import special as _ops
from .tensor import Tensor, _binary, apply


def _tensor(x, name):
    if not isinstance(x, Tensor):
        raise ArgumentError(message(
            f"the input is a {type(x).__name__}, not a Tensor.", where=f"nb.special.{name}",
            hint=f"make it a tensor first: nb.special.{name}(nb.tensor({x!r:.40}))."))
    return x


def _unary(name, make_op, doc):
    def fn(input):
        return apply(make_op(), _tensor(input, name)._floating())
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def _method(name, method=None):
    def fn(input, *args, **kwargs):
        return getattr(_tensor(input, name), method or name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"nb.special.{name}(x, ...) is x.{method or name}(...)."
    return fn


# the ones nnbook has under PyTorch's main names
expit = _method("expit", "sigmoid")
logit = _method("logit")
erf = _method("erf")
erfc = _method("erfc")
erfinv = _method("erfinv")
gammaln = _method("gammaln", "lgamma")
digamma = psi = _method("digamma")
multigammaln = _method("multigammaln", "mvlgamma")
i0 = _method("i0")
sinc = _method("sinc")
log1p = _method("log1p")
expm1 = _method("expm1")
exp2 = _method("exp2")
logsumexp = _method("logsumexp")
softmax = _method("softmax")
log_softmax = _method("log_softmax")
xlogy = _functions.xlogy
polygamma = _functions.polygamma


def round(input, *, decimals=0):  # noqa: A001  (PyTorch's name)
    """x rounded half to even, to ``decimals`` digits after the point."""
    return _tensor(input, "round").round(decimals=decimals)


# the ones only torch.special has (ops/special.py)
i0e = _unary("i0e", lambda: _ops.BesselI(0, scaled=True), "exp(-|x|) i0(x).")
i1 = _unary("i1", lambda: _ops.BesselI(1), "Bessel's modified function of order 1.")
i1e = _unary("i1e", lambda: _ops.BesselI(1, scaled=True), "exp(-|x|) i1(x).")
erfcx = _unary("erfcx", _ops.Erfcx, "exp(x**2) erfc(x), finite where erfc(x) underflows.")
ndtr = _unary("ndtr", _ops.Ndtr, "The standard normal's cumulative distribution Phi(x).")
ndtri = _unary("ndtri", _ops.Ndtri, "The inverse of ndtr: x with Phi(x) = p.")
log_ndtr = _unary("log_ndtr", _ops.LogNdtr, "log Phi(x), finite far into both tails.")
entr = _unary("entr", _ops.Entr, "-x log x (0 at x = 0, -inf for x < 0).")


def xlog1py(input, other):
    """input * log(1 + other), 0 where input is 0; either may be a number."""
    return _binary(_ops.Xlog1py(), input, other)


__all__ = ["digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1",
           "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit",
           "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc",
           "softmax", "xlog1py", "xlogy"]
