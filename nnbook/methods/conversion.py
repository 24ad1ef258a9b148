"""Converting a tensor: dtypes (``to``, ``float()``, ``type``) and devices (the CPU only)."""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..device import check_device

_TYPE_NAMES = {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor",
               "float16": "torch.HalfTensor", "int64": "torch.LongTensor",
               "int32": "torch.IntTensor", "int16": "torch.ShortTensor",
               "int8": "torch.CharTensor", "uint8": "torch.ByteTensor", "bool": "torch.BoolTensor"}
_TYPE_BY_NAME = {name: dtypes.as_dtype(dt) for dt, name in _TYPE_NAMES.items()}


class Conversion:
    """Tensor methods that change a tensor's dtype or device."""

    __slots__ = ()

    def to(self, *args, **kwargs):
        """``to(dtype)``, ``to(device)``, ``to(other)`` or ``to(device, dtype)``: a converted
        tensor (this one when nothing changes); only the CPU is a device here."""
        dtype = kwargs.pop("dtype", None)
        device_ = kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        kwargs.pop("copy", None)
        for a in args:
            if self._is_tensor(a):
                dtype = a.dtype
            elif isinstance(a, bool):  # PyTorch's positional non_blocking (and copy)
                continue
            elif isinstance(a, (dtypes.dtype, np.dtype, type)) and a is not str:
                dtype = a
            else:
                device_ = a
        check_device(device_, "Tensor.to")
        if dtype is None:
            return self
        target = dtypes.numpy_dtype(dtype)
        return self if target == self._array.dtype else self._cast(target)

    def type(self, dtype=None):
        """The dtype's name (PyTorch's 'torch.FloatTensor' style) or a converted tensor."""
        if dtype is None:
            return _TYPE_NAMES.get(self._array.dtype.name, self._array.dtype.name)
        if isinstance(dtype, str) and dtype in _TYPE_BY_NAME:
            dtype = _TYPE_BY_NAME[dtype]
        if isinstance(getattr(dtype, "dtype", None), dtypes.dtype):  # nb.FloatTensor & co.
            dtype = dtype.dtype
        return self.to(dtype)

    def type_as(self, other):
        return self.to(other.dtype)

    def float(self):
        return self.to(dtypes.float32)

    def double(self):
        return self.to(dtypes.float64)

    def half(self):
        return self.to(dtypes.float16)

    def long(self):
        return self.to(dtypes.int64)

    def int(self):
        return self.to(dtypes.int32)

    def short(self):
        return self.to(dtypes.int16)

    def char(self):
        return self.to(dtypes.int8)

    def byte(self):
        return self.to(dtypes.uint8)

    def bool(self):
        return self.to(dtypes.bool)

    def is_signed(self) -> bool:
        """Can this dtype hold negative numbers (floats and signed integers)?"""
        return self._array.dtype.kind in "fic"

    def is_complex(self) -> bool:
        return self._array.dtype.kind == "c"

    def cpu(self):
        return self

    @property
    def is_cuda(self) -> bool:
        return False  # nnbook computes on the CPU only

    @property
    def is_cpu(self) -> bool:
        return True

    def get_device(self) -> int:
        """The GPU's number, or -1 for a tensor on the CPU (every tensor here)."""
        return -1

    def cuda(self, *args, **kwargs):
        check_device("cuda", "Tensor.cuda")
