"""nn.utils: gradient clipping, parameters as one vector, padded and packed sequences
(nn.utils.rnn), parametrizations (weight and spectral normalisation) and pruning, with
PyTorch's names.

    loss.backward()
    nb.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    optimizer.step()

``parametrize``, ``parametrizations``, ``prune`` and the older hook-based
``weight_norm`` and ``spectral_norm`` load on first use.
"""
import importlib

from ...errors import MissingNameError
from . import rnn
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["rnn", "clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "parameters_to_vector", "vector_to_parameters", "parametrize", "parametrizations",
           "prune", "weight_norm", "remove_weight_norm", "spectral_norm",
           "remove_spectral_norm"]

_LAZY_MODULES = ("parametrize", "parametrizations", "prune")
_LAZY_NAMES = {name: "norm_hooks" for name in ("weight_norm", "remove_weight_norm",
                                               "spectral_norm", "remove_spectral_norm")}


def __getattr__(name):
    if name in _LAZY_MODULES:
        value = importlib.import_module(f".{name}", __name__)
    elif name in _LAZY_NAMES:
        value = getattr(importlib.import_module(f".{_LAZY_NAMES[name]}", __name__), name)
    elif name.startswith("__"):
        raise AttributeError(f"module 'nnbook.nn.utils' has no attribute '{name}'")
    else:  # a typo, or a part of PyTorch nnbook leaves out
        raise MissingNameError("nn.utils", name, __dir__)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
