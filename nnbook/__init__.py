"""nnbook: watch a neural network compute.

    import nnbook as nb
    x = nb.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    x.grad                      # tensor([2., 4.])
"""
from . import errors
from .errors import (AnomalyError, BackwardError, ContractError, SignatureError, TeachingWarning, CheckpointError, DimError, DTypeError, GradcheckError,
                     InputError, NnbookError, ShapeError)
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


exp, log, sqrt, tanh, sigmoid, relu = map(_method, ("exp", "log", "sqrt", "tanh", "sigmoid", "relu"))
sum, mean, max, argmax = map(_method, ("sum", "mean", "max", "argmax"))
reshape, flatten, permute, transpose, matmul = map(
    _method, ("reshape", "flatten", "permute", "transpose", "matmul"))

from . import autograd  # noqa: E402
from .autograd import detect_anomaly  # noqa: E402
from .gradcheck import GradcheckReport, gradcheck, gradcheck_report  # noqa: E402

from . import nn, optim
from .serialization import load, save
from . import inspect  # noqa: E402
from .inspect import infer_shapes, summary  # noqa: E402
