"""nnbook: watch a neural network compute.

    import nnbook as nb
    x = nb.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    x.grad                      # tensor([2., 4.])

``import nnbook`` loads numpy and the core (tensors, ops, autograd); ``nb.nn``,
``nb.optim``, ``nb.inspect`` and the functions built on them load on first use,
and the widgets (``nnbook.widgets``) need the ``widgets`` extra.
"""
import importlib

from . import autograd, errors
from .autograd import detect_anomaly
from .errors import (AnomalyError, BackwardError, CheckpointError, ContractError, DimError,
                     DTypeError, GradcheckError, InputError, NnbookError, ShapeError,
                     SignatureError, TeachingWarning)
from .ops.threads import get_num_threads, set_num_threads
from .tensor import (Tensor, arange, bool_, cat, enable_grad, float32, float64, full,
                     generator, int32, int64, is_grad_enabled, manual_seed, no_grad, ones,
                     ones_like, rand, randint, randn, stack, tensor, zeros, zeros_like)

__version__ = "0.1.0"


def _method(name):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"nb.{name}(x, ...) is x.{name}(...)."
    return fn


exp, log, sqrt, tanh, sigmoid, relu = map(_method, ("exp", "log", "sqrt", "tanh", "sigmoid",
                                                    "relu"))
sum, mean, max, argmax = map(_method, ("sum", "mean", "max", "argmax"))
reshape, flatten, permute, transpose, matmul = map(
    _method, ("reshape", "flatten", "permute", "transpose", "matmul"))

# Loaded on first use (PEP 562), so `import nnbook` stays close to `import numpy`.
_LAZY_MODULES = ("nn", "optim", "inspect", "serialization", "data", "widgets")
_LAZY_NAMES = {
    "gradcheck": ("autograd.gradcheck", "gradcheck"),
    "gradcheck_report": ("autograd.gradcheck", "gradcheck_report"),
    "GradcheckReport": ("autograd.gradcheck", "GradcheckReport"),
    "save": ("serialization", "save"),
    "load": ("serialization", "load"),
    "infer_shapes": ("inspect", "infer_shapes"),
    "summary": ("inspect", "summary"),
}


def __getattr__(name):
    if name in _LAZY_NAMES:
        module, attr = _LAZY_NAMES[name]
        value = getattr(importlib.import_module(f".{module}", __name__), attr)
    elif name in _LAZY_MODULES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module 'nnbook' has no attribute '{name}'")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY_MODULES) | set(_LAZY_NAMES))
