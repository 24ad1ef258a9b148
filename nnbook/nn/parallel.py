"""``nnbook.nn.parallel``: PyTorch's wrappers that split a batch over several devices.

``nn.DataParallel(model)`` copies a model to every GPU and splits each batch between
them.  With no GPU -- PyTorch without CUDA, and nnbook always -- it just runs the model,
so a script that wraps its model unconditionally runs here unchanged: the wrapper holds
the model as ``.module`` (its state_dict keys start with ``module.``) and passes every
call through.

``from nnbook.nn.parallel import DistributedDataParallel as DDP`` works too, so a script
that wraps its model only when launched on several GPUs runs here; calling ``DDP(...)``
raises UnsupportedError (nnbook trains in one process).
"""
from __future__ import annotations

from ..errors import ArgumentError, message
from ..unsupported import Refused
from .module import Module

DistributedDataParallel = Refused("nnbook.nn.parallel.DistributedDataParallel", "distributed")


class DataParallel(Module):
    """Runs ``module`` as it is: there are no GPUs to split the batch over.

    ``device_ids``, ``output_device`` and ``dim`` are accepted and unused, as in a
    PyTorch without CUDA, which keeps only ``device_ids = []``.
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not callable(module):
            raise ArgumentError(message(
                f"wraps a model (an nn.Module), got a {type(module).__name__}.",
                where="nn.DataParallel", hint="build the model first and wrap it: "
                "nn.DataParallel(Net())."))
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
