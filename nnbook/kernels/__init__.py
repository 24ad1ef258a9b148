"""Faster implementations of some reference ops (``nnbook/ops``), switchable off.

Each kernel is a subclass of one reference op, registered with
``@register_kernel(ReferenceOp)``: building the reference op then builds the
kernel, unless ``with nb.reference_ops():`` is on.  Kernels compute the same
numbers (to rounding; bit for bit whatever the number of threads) with im2col
GEMMs, the planes layout, scratch buffers and threads:

  threads.py      the worker threads, nb.get_num_threads / nb.set_num_threads
  scratch.py      arrays reused from call to call (release_scratch frees them)
  memory.py       glibc asked to keep freed memory for reuse (fewer page faults)
  planes.py       the layout in which every kernel offset is one long slice
  conv.py         Conv2d (and Conv1d): picks pointwise.py, depthwise.py or im2col.py
  pool.py         MaxPool2d, AvgPool2d, AdaptiveAvgPool2d (and the 1-D pools)
  norm.py         BatchNorm
  elementwise.py  ReLU
"""
from ..ops.base import load_kernels_with
from .scratch import release_scratch
from .threads import get_num_threads, set_num_threads

# Each kernel module is imported (and registers its kernels) when the first op of its
# reference module is built, so that `import nnbook` stays light.
for _family in ("conv", "pool", "norm", "elementwise"):  # ops/conv.py -> kernels/conv.py ...
    load_kernels_with(f"nnbook.ops.{_family}", f"nnbook.kernels.{_family}")
del _family

__all__ = ["get_num_threads", "release_scratch", "set_num_threads"]
