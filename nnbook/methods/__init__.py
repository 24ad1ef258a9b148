"""Tensor methods by family, mixed into :class:`nnbook.tensor.Tensor`.

Each family is a small class whose methods build ops and run them with
``self._op(op, *others)``; ``nb.sin(x)`` and the other functions are these methods
(``nnbook/functions.py``).  They know nothing of how a Tensor is made.
"""
from .comparisons import Comparisons
from .conversion import Conversion
from .factories import Factories
from .inplace import InPlace
from .linalg import Linalg
from .maths import Maths
from .memory import Memory
from .reductions import MaxResult, MinResult, Reductions
from .selection import Selection
from .shapes import Shapes
from .statistics import Statistics

__all__ = ["Comparisons", "Conversion", "Factories", "InPlace", "Linalg", "Maths",
           "MaxResult", "Memory", "MinResult", "Reductions", "Selection", "Shapes",
           "Statistics"]
