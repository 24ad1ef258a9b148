"""nnbook.nn: Module, Parameter, layers and losses, with PyTorch's names.

    import nnbook as nb
    model = nb.nn.Sequential(nb.nn.Linear(4, 8), nb.nn.ReLU(), nb.nn.Linear(8, 2))
    [name for name, _ in model.named_parameters()]   # ['0.weight', '0.bias', ...]
"""
from ..errors import MissingNameError
from . import functional, init, utils
from .guard import BuildInForwardError, allow_build_in_forward
from .layers import *  # noqa: F401,F403  (the list is layers.__all__)
from .layers import __all__ as _layers
from .module import HiddenModuleWarning, Module, ModuleAttributeError
from .parallel import DataParallel
from .parameter import Parameter, paths_of

__all__ = ["functional", "init", "utils", "Module", "Parameter", "BuildInForwardError",
           "ModuleAttributeError", "HiddenModuleWarning", "allow_build_in_forward",
           "paths_of", "DataParallel", *_layers]


def __getattr__(name):
    """Only reached for a name nnbook.nn does not have: a typo, or a layer nnbook leaves out."""
    if name.startswith("__"):
        raise AttributeError(f"module 'nnbook.nn' has no attribute '{name}'")
    raise MissingNameError("nn", name, lambda: __all__, elsewhere=[
        (f"a function: nn.functional.{name}(...)", lambda: dir(functional))])
