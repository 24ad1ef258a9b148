"""``nb.finfo`` and ``nb.iinfo``: the limits of a dtype, with PyTorch's attribute names.

    nb.finfo(nb.float32).eps      # 1.1920928955078125e-07, the gap between 1 and the next float
    nb.finfo().tiny               # the default float's smallest positive normal number
    nb.iinfo(nb.int64).max        # 9223372036854775807
"""
from __future__ import annotations

import numpy as np

from . import dtypes
from .errors import DTypeError, message


class finfo:
    """Floating point limits: ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (=
    ``smallest_normal``), ``resolution``; ``dtype`` is the dtype's name."""

    def __init__(self, type=None):
        d = dtypes.get_default_dtype() if type is None else dtypes.as_dtype(type, "nb.finfo")
        if d == dtypes.bfloat16:  # numpy has no bfloat16, but its limits are standard
            self.bits, self.eps, self.max = 16, 2.0**-7, float.fromhex("0x1.fe00000000000p+127")
            self.tiny, self.resolution = 2.0**-126, 0.01
        elif d.is_floating_point:
            info = np.finfo(d.numpy)
            self.bits, self.eps, self.max = info.bits, float(info.eps), float(info.max)
            self.tiny, self.resolution = float(info.smallest_normal), 10.0**-info.precision
        else:
            raise DTypeError(message(
                f"finfo needs a floating point dtype, got {d.name}.", where="nb.finfo",
                hint=f"use nb.iinfo(nb.{d.name}) for the limits of integers."))
        self.min, self.smallest_normal, self.dtype = -self.max, self.tiny, d.name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Integer limits: ``bits``, ``max``, ``min``; ``dtype`` is the dtype's name."""

    def __init__(self, type):
        d = dtypes.as_dtype(type, "nb.iinfo")
        if d.numpy is None or d.numpy.kind not in "iu":
            raise DTypeError(message(
                f"iinfo needs an integer dtype, got {d.name}.", where="nb.iinfo",
                hint=f"use nb.finfo(nb.{d.name}) for the limits of floating point numbers."
                if d.is_floating_point else "bool has no integer limits (False < True)."))
        info = np.iinfo(d.numpy)
        self.bits, self.max, self.min, self.dtype = info.bits, int(info.max), int(info.min), d.name

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
