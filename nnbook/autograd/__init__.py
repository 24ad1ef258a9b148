"""Reverse-mode automatic differentiation.

Two floors share this package (ARCHITECTURE.md):

* below the Tensor: ``engine`` (the backward walk) and ``saved`` (version checks),
  which know only the node protocol;
* above it: ``Function`` (custom ops), ``gradcheck``, ``grad`` / ``backward``,
  ``detect_anomaly`` and teaching mode, which build on Tensors.

So the upper names are loaded when first used (``nb.autograd.Function``), and
importing the engine never drags the Tensor in.
"""
import importlib

_LAZY = {
    "Function": "function", "FunctionCtx": "function", "once_differentiable": "function",
    "gradcheck": "gradchecking", "gradcheck_report": "gradchecking",
    "GradcheckReport": "gradchecking",
    "detect_anomaly": "anomaly", "set_detect_anomaly": "anomaly",
    "grad": "functional", "backward": "functional",
    "TEACHING_MAX_ELEMENTS": "custom", "is_teaching": "custom", "set_teaching_mode": "custom",
    "teaching_mode": "custom", "Variable": "variable",
}
_SUBMODULES = ("functional",)  # nb.autograd.functional.jacobian, as torch.autograd.functional

__all__ = sorted(_LAZY)


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'nnbook.autograd' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_SUBMODULES))
