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
from . import unsupported as _unsupported
from .context import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    reference_ops,
    set_grad_enabled,
)
from .creation import (
    arange,
    as_tensor,
    bernoulli,
    cat,
    concat,
    concatenate,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    hstack,
    linspace,
    logspace,
    multinomial,
    normal,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    row_stack,
    stack,
    tensor,
    tril_indices,
    triu_indices,
    vstack,
    zeros,
    zeros_like,
)
from .device import device, get_default_device, set_default_device
from .dtype_info import finfo, iinfo
from .dtypes import (
    bfloat16,
    bool,
    cdouble,
    cfloat,
    complex64,
    complex128,
    double,
    dtype,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    set_default_dtype,
    short,
    uint8,
)
from .errors import (
    AnomalyError,
    ArgumentError,
    BackwardError,
    CheckpointError,
    ContractError,
    DimError,
    DTypeError,
    GradcheckError,
    InputError,
    NnbookError,
    ShapeError,
    SignatureError,
    TeachingWarning,
    show_full_tracebacks,
)
from .functions import *  # noqa: F403  (nb.exp(x), nb.sum(x, 1), ...: the tensor methods)
from .kernels import get_num_threads, set_num_threads
from .notes import NnbookNote
from .printing import set_printoptions
from .random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from .tensor import Tensor
from .tensor_types import (
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
    Size,
    is_complex,
    is_floating_point,
    is_tensor,
    numel,
)
from .unsupported import UnsupportedError, compile

__version__ = "0.1.0"


# Loaded on first use (PEP 562), so `import nnbook` stays close to `import numpy`.
_LAZY_MODULES = ("nn", "optim", "inspect", "serialization", "data", "widgets", "utils",
                 "cuda", "backends", "amp", "accelerator", "distributions", "linalg", "special")
_LAZY_NAMES = {
    "gradcheck": ("autograd.gradchecking", "gradcheck"),
    "gradcheck_report": ("autograd.gradchecking", "gradcheck_report"),
    "GradcheckReport": ("autograd.gradchecking", "GradcheckReport"),
    "detect_anomaly": ("autograd.anomaly", "detect_anomaly"),
    "save": ("serialization", "save"),
    "load": ("serialization", "load"),
    "infer_shapes": ("inspect", "infer_shapes"),
    "summary": ("inspect", "summary"),
    "autocast": ("amp", "autocast"),
    "is_autocast_enabled": ("amp", "is_autocast_enabled"),
    "is_autocast_available": ("amp", "is_autocast_available"),
    "use_deterministic_algorithms": ("backends", "use_deterministic_algorithms"),
    "are_deterministic_algorithms_enabled": ("backends", "are_deterministic_algorithms_enabled"),
    "is_deterministic_algorithms_warn_only_enabled":
        ("backends", "is_deterministic_algorithms_warn_only_enabled"),
    "set_float32_matmul_precision": ("backends", "set_float32_matmul_precision"),
    "get_float32_matmul_precision": ("backends", "get_float32_matmul_precision"),
}
# What nnbook does not do (nnbook/unsupported.py): `import nnbook.distributed` works, and
# calling what it holds raises UnsupportedError naming the alternative.
_STUB_MODULES = _unsupported.stub_modules()


def __getattr__(name):
    if name in _LAZY_NAMES:
        module, attr = _LAZY_NAMES[name]
        value = getattr(importlib.import_module(f".{module}", __name__), attr)
    elif name in _LAZY_MODULES:
        value = importlib.import_module(f".{name}", __name__)
    elif name in _STUB_MODULES:
        value = _STUB_MODULES[name]
    elif name in _unsupported.STUB_NAMES:
        value = _unsupported.stub_name(name)
    elif name.startswith("__"):
        raise AttributeError(f"module 'nnbook' has no attribute '{name}'")
    else:  # a typo, or a part of PyTorch nnbook leaves out: a message with a hint
        raise errors.MissingNameError(
            "nb", name, __dir__,
            elsewhere=[(f"a tensor method: x.{name}(...)", lambda: dir(Tensor))])
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY_MODULES) | set(_LAZY_NAMES) | set(_STUB_MODULES))
