"""What nnbook does not do, and what to do instead.

nnbook computes with numpy, in one process, on the CPU.  PyTorch's GPU, distributed,
compiler, sparse and quantisation machinery has no meaning here, but a student's
script often mentions it in lines that never run on a laptop (``if ddp:
init_process_group(...)``).  So those names exist: importing them works, and
*calling* one raises :class:`UnsupportedError`, which says what nnbook does instead.

``nb.compile(model)`` is the exception: it returns the model unchanged (with a
one-time note), because tutorials call it unconditionally.
"""
from __future__ import annotations

import sys
import types

from .errors import NnbookError, message
from .notes import note


class UnsupportedError(NnbookError, RuntimeError):
    """Something PyTorch does that nnbook does not (CUDA, distributed training, TorchScript...)."""


# area (PyTorch's module or name) -> (what it is, what to do in nnbook instead)
REFUSED = {
    "cuda": ("CUDA runs PyTorch on NVIDIA GPUs; nnbook computes on the CPU",
             "guard GPU-only lines with `if nb.cuda.is_available():` (False here)"),
    "distributed": ("torch.distributed trains one model in several processes; nnbook runs "
                    "in one", "train in one process: leave out the process group and "
                    "DistributedDataParallel"),
    "multiprocessing": ("torch.multiprocessing shares tensors between processes; nnbook "
                        "runs in one", "run the work in this process"),
    "jit": ("TorchScript (torch.jit) compiles a model for deployment; nnbook runs plain "
            "Python", "call the model directly; save it with "
            "nb.save(model.state_dict(), path)"),
    "onnx": ("ONNX export writes a model for other runtimes; nnbook has no exporter",
             "save the weights with nb.save(model.state_dict(), path)"),
    "export": ("torch.export captures a graph for deployment; nnbook runs plain Python",
               "call the model directly"),
    "fx": ("torch.fx rewrites a model's graph; nnbook records graphs only to show them",
           "nb.inspect shows what a model computes"),
    "func": ("torch.func transforms functions (vmap, grad, jacrev); nnbook has "
             "Tensor.backward and nb.autograd.grad", "loop over the batch, or use "
             "nb.autograd.grad(outputs, inputs)"),
    "vmap": ("torch.vmap vectorises a function over a batch; nnbook has no function "
             "transforms", "write the function for a batch (broadcasting), or loop"),
    "sparse": ("sparse tensors store only non-zero values; nnbook's tensors are dense numpy "
               "arrays", "use a dense tensor (nb.zeros(...) and index assignment)"),
    "sparse_coo_tensor": ("sparse tensors store only non-zero values; nnbook's tensors are "
                          "dense", "build a dense tensor: t = nb.zeros(size); "
                          "t[indices[0], indices[1]] = values"),
    "sparse_csr_tensor": ("sparse tensors store only non-zero values; nnbook's tensors are "
                          "dense", "build a dense tensor with nb.zeros and index assignment"),
    "quantization": ("quantisation computes with 8-bit integers; nnbook computes in float32 "
                     "or float64", "keep the model in floating point"),
    "ao": ("torch.ao (quantisation, pruning) computes with 8-bit integers; nnbook computes in "
           "float32 or float64", "keep the model in floating point"),
    "quantize_per_tensor": ("quantised tensors hold 8-bit integers; nnbook computes in "
                            "float32 or float64", "keep the tensor in floating point"),
    "hub": ("torch.hub downloads pretrained models; nnbook downloads nothing",
            "build the model in nnbook and train it (nnbook.data has small data sets)"),
    "profiler": ("torch.profiler times GPU and CPU kernels; nnbook has no profiler",
                 "time a step with time.perf_counter(), or look at nb.summary(model, shape)"),
}

# PyTorch modules that are stubs here: importing them works, their attributes refuse
# (a few answer what a CPU-only PyTorch answers, e.g. distributed.is_available()).
STUB_MODULES = ("distributed", "multiprocessing", "jit", "onnx", "export", "fx", "func",
                "sparse", "quantization", "ao", "hub", "profiler")
# top-level names that refuse when called
STUB_NAMES = ("vmap", "sparse_coo_tensor", "sparse_csr_tensor", "quantize_per_tensor")


def refusal_message(name: str, area: str) -> str:
    what, hint = REFUSED[area]
    return message(f"{what}.", where=name, hint=f"{hint}.")


class Refused:
    """Stands for a PyTorch function or class that nnbook does not have: calling it
    (or reading any of its attributes) raises UnsupportedError."""

    def __init__(self, name: str, area: str):
        self._name, self._area = name, area

    def _refuse(self):
        raise UnsupportedError(refusal_message(self._name, self._area))

    def __call__(self, *args, **kwargs):
        self._refuse()

    def __getattr__(self, attr):
        if attr.startswith("_"):  # Python's own lookups (copy, pickle, inspect) get the usual
            raise AttributeError(attr)
        self._refuse()

    def __repr__(self):
        return f"<{self._name}: not in nnbook>"


class StubModule(types.ModuleType):
    """A PyTorch module nnbook does not have: every attribute is a Refused name."""

    def __init__(self, name: str, area: str, answers: dict | None = None):
        super().__init__(f"nnbook.{name}", f"torch.{name} is not part of nnbook: "
                         f"{REFUSED[area][0]}.")
        self._area = area
        self.__dict__.update(answers or {})

    def __getattr__(self, attr):
        if attr.startswith("_"):
            raise AttributeError(attr)
        return Refused(f"{self.__name__}.{attr}", self._area)


def _false(*args, **kwargs) -> bool:
    return False


_ANSWERS = {"distributed": {"is_available": _false, "is_initialized": _false,
                            "is_torchelastic_launched": _false}}


def stub_modules() -> dict:
    """The stub modules, also registered in sys.modules so that ``import nnbook.jit`` works."""
    stubs = {}
    for name in STUB_MODULES:
        full = f"nnbook.{name}"
        if full not in sys.modules:
            sys.modules[full] = StubModule(name, name, _ANSWERS.get(name))
        stubs[name] = sys.modules[full]
    return stubs


def stub_name(name: str) -> Refused:
    return Refused(f"nb.{name}", name)


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False, **kwargs):
    """``torch.compile``: nnbook does not compile, so ``model`` comes back unchanged.

    Works as a call (``model = nb.compile(model)``) and as a decorator, with or
    without arguments (``@nb.compile`` or ``@nb.compile(mode="max-autotune")``).
    """
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                  mode=mode, options=options, disable=disable)
    if not disable:
        note("nnbook does not compile models: this one runs as it is, step by step "
             "(the results are the same, only PyTorch's speed-up is missing).",
             where="nb.compile", hint="nothing to change; the line can stay for PyTorch.")
    return model
