"""Tensor methods by family, mixed into :class:`nnbook.tensor.Tensor`.

Each family is a small class whose methods build ops and run them with
``self._op(op, *others)``; ``nb.sin(x)`` and the other functions are these methods
(``nnbook/functions.py``).  They know nothing of how a Tensor is made.
"""
from .conversion import Conversion
from .maths import Maths
from .reductions import MaxResult, MinResult, Reductions
from .shapes import Shapes

__all__ = ["Conversion", "Maths", "MaxResult", "MinResult", "Reductions", "Shapes"]
