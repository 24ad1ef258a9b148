"""``nnbook.nn.parallel``: PyTorch's multi-process wrappers, which nnbook does not have.

``from nnbook.nn.parallel import DistributedDataParallel as DDP`` works, so a script
that wraps its model only when launched on several GPUs runs here; calling ``DDP(...)``
raises UnsupportedError (nnbook trains in one process).
"""
from ..unsupported import Refused

DistributedDataParallel = Refused("nnbook.nn.parallel.DistributedDataParallel", "distributed")
DataParallel = Refused("nnbook.nn.parallel.DataParallel", "cuda")  # several GPUs
