"""``nb.accelerator``: PyTorch's device-neutral questions, answered for the CPU.

    device = nb.accelerator.current_accelerator().type if nb.accelerator.is_available() \\
        else "cpu"                                          # "cpu" here

There is no accelerator: ``is_available()`` is False, ``current_accelerator()`` None
and ``device_count()`` 0; what needs one raises, as in PyTorch without a GPU.
"""
from __future__ import annotations

from .errors import message
from .unsupported import UnsupportedError


def is_available() -> bool:
    return False


def current_accelerator(check_available: bool = False):
    return None


def device_count() -> int:
    return 0


def _none(name):
    raise UnsupportedError(message(
        "there is no accelerator here: nnbook computes on the CPU.",
        where=f"nb.accelerator.{name}",
        hint="guard the line with `if nb.accelerator.is_available():` (False here)."))


def current_device_index() -> int:
    _none("current_device_index")


def set_device_index(device) -> None:
    _none("set_device_index")


def synchronize(device=None) -> None:
    _none("synchronize")
