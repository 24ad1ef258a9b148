"""Operands of mixed kinds (tensors and Python numbers) as tensors of one dtype."""
from __future__ import annotations

import numpy as np

from .. import dtypes


def promoted(x, *others) -> list:
    """``x`` and ``others`` (tensors, Python numbers, or None, which stays None) as
    tensors of the dtype PyTorch's promotion gives them together (gradients still flow)."""
    operands = (x, *others)
    dtype = dtypes.result_type(*[o for o in operands if o is not None])
    return [None if o is None else o._cast(dtype) if x._is_tensor(o)
            else x._new(np.asarray(o, dtype=dtype)) for o in operands]

