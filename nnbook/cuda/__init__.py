"""``nb.cuda``: what a CPU-only PyTorch answers, so the usual device line runs unchanged.

    device = "cuda" if nb.cuda.is_available() else "cpu"     # "cpu" here

Queries answer as PyTorch does on a machine without a GPU (``is_available()`` is
False, ``device_count()`` 0, memory counters 0); seeding and ``empty_cache()`` do
nothing.  Anything that needs a GPU (``synchronize``, ``set_device``, ``Event``...)
raises :class:`nnbook.UnsupportedError` with the guard to write instead.
"""
from __future__ import annotations

import importlib

from ..unsupported import Refused


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def is_initialized() -> bool:
    return False


def manual_seed(seed) -> None:
    """Nothing to seed: nnbook draws every random number from ``nb.manual_seed``'s generator."""


def manual_seed_all(seed) -> None:
    """Nothing to seed (see ``manual_seed``)."""


def seed() -> None:
    """Nothing to seed (see ``manual_seed``)."""


def seed_all() -> None:
    """Nothing to seed (see ``manual_seed``)."""


def empty_cache() -> None:
    """No GPU memory to give back."""


def memory_allocated(device=None) -> int:
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


def memory_reserved(device=None) -> int:
    return 0


def max_memory_reserved(device=None) -> int:
    return 0


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(f"module 'nnbook.cuda' has no attribute '{name}'")
    if name == "amp":  # a submodule: `nb.cuda.amp.GradScaler` without importing it first
        return importlib.import_module(f"{__name__}.amp")
    return Refused(f"nb.cuda.{name}", "cuda")  # synchronize, set_device, Event, Stream...
