"""``nnbook.utils``: ``data`` (datasets and the DataLoader) and ``progress`` (a text bar).

``nb.utils`` loads on first use, like ``nb.nn``.
"""
from . import data
from .progress import progress

__all__ = ["data", "progress"]
