"""nnbook: watch a neural network compute.

    import nnbook as nb
    x = nb.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    x.grad                      # tensor([2., 4.])

``import nnbook`` loads numpy and the core (tensors, ops, autograd); ``nb.nn``,
``nb.optim``, ``nb.inspect`` and the functions built on them load on first use,
and the widgets (``nnbook.widgets``) need the ``widgets`` extra.
ARCHITECTURE.md describes how the package is built, floor by floor.
"""
import importlib

from . import autograd, errors
from .context import (enable_grad, inference_mode, is_grad_enabled, no_grad,
                      reference_ops, set_grad_enabled)
from .creation import (arange, as_tensor, bernoulli, cat, concat, concatenate, empty,
                       empty_like, eye, from_numpy, full, full_like, linspace, logspace,
                       multinomial, normal, ones, ones_like, rand, rand_like, randint, randn,
                       randn_like, randperm, stack, tensor, zeros, zeros_like)
from .device import device
from .dtypes import (bfloat16, bool, cdouble, cfloat, complex64, complex128, double, dtype,
                     float, float16, float32, float64, get_default_dtype, half, int, int8,
                     int16, int32, int64, long, set_default_dtype, short, uint8)
from .errors import (AnomalyError, ArgumentError, BackwardError, CheckpointError,
                     ContractError, DimError, DTypeError, GradcheckError, InputError,
                     NnbookError, ShapeError, SignatureError, TeachingWarning)
from .kernels import get_num_threads, set_num_threads
from .random import (Generator, default_generator, get_rng_state, initial_seed, manual_seed,
                     seed, set_rng_state)
from .tensor import Tensor

__version__ = "0.1.0"


def _method(name):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"nb.{name}(x, ...) is x.{name}(...)."
    return fn


exp, log, sqrt, tanh, sigmoid, relu, abs, clamp, clip = map(
    _method, ("exp", "log", "sqrt", "tanh", "sigmoid", "relu", "abs", "clamp", "clip"))
sum, mean, max, argmax, all, any = map(_method, ("sum", "mean", "max", "argmax", "all", "any"))
reshape, flatten, permute, transpose, matmul, squeeze, unsqueeze = map(
    _method, ("reshape", "flatten", "permute", "transpose", "matmul", "squeeze", "unsqueeze"))

# Loaded on first use (PEP 562), so `import nnbook` stays close to `import numpy`.
_LAZY_MODULES = ("nn", "optim", "inspect", "serialization", "data", "widgets")
_LAZY_NAMES = {
    "gradcheck": ("autograd.gradcheck", "gradcheck"),
    "gradcheck_report": ("autograd.gradcheck", "gradcheck_report"),
    "GradcheckReport": ("autograd.gradcheck", "GradcheckReport"),
    "detect_anomaly": ("autograd.anomaly", "detect_anomaly"),
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
