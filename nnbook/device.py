"""Devices: nnbook computes on the CPU, and says so clearly when asked for anything else.

``nb.device('cpu')``, ``t.device`` and ``device=`` arguments exist so that the
usual PyTorch line runs unchanged::

    device = "cuda" if nb.cuda.is_available() else "cpu"   # always "cpu" here
    model.to(device); x = x.to(device)

Naming another device is fine (``nb.device('cuda')`` is just a name, as in
PyTorch); putting a tensor or a model there raises an error that shows how to
write that line.
"""
from __future__ import annotations

from . import dtypes
from .errors import ArgumentError, InputError, message

_KNOWN = ("cpu", "cuda", "mps", "xpu", "meta", "xla", "hip", "mtia", "privateuseone")


class device:
    """A device name, PyTorch style: ``device('cpu')``, ``device('cuda', 0)``,
    ``device('cuda:1')``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        self.type, self.index = _parse(type, index, "nb.device")

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = device(other)
            except (InputError, ArgumentError):
                return False
        return isinstance(other, device) and (self.type, self.index) == (other.type,
                                                                         other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"


def _parse(text, index, where: str) -> tuple:
    """('cuda', 0) from 'cuda:0' (or from 'cuda' and index 0), checked."""
    if not isinstance(text, str):
        raise ArgumentError(message(f"a device is named by a string, got {text!r}.",
                                    where=where, hint="e.g. nb.device('cpu')."))
    name, _, number = text.partition(":")
    if name not in _KNOWN:
        raise InputError(message(f"unknown device type '{name}'.", where=where,
                                 hint=_unknown_device_hint(name)))
    if number:
        if index is not None or not number.isdigit():
            raise InputError(message(f"invalid device string '{text}'.", where=where,
                                     hint="write 'cuda:0' or device('cuda', 0)."))
        index = int(number)
    return name, index


def _unknown_device_hint(name: str) -> str:
    if name in dtypes.names():
        return f"a string names a device; to change the dtype pass the dtype: x.to(nb.{name})."
    if name.rstrip("0123456789") in ("float", "int", "uint", "complex"):
        return "a string names a device; to change the dtype pass one: x.to(nb.float64)."
    return "nnbook computes on 'cpu'; PyTorch also names 'cuda' and 'mps'."


CPU = device("cpu")


def check_device(value, where: str) -> None:
    """Accept None, 'cpu' and the CPU device; stop anything else with the portable line."""
    if value is None:
        return
    if isinstance(value, int) and not isinstance(value, bool):
        value = device("cuda", value)  # PyTorch reads a bare int as a CUDA device
    name, index = (value.type, value.index) if isinstance(value, device) else \
        _parse(value, None, where)
    if name != "cpu":
        shown = name if index is None else f"{name}:{index}"
        raise InputError(message(
            f"nnbook computes on the CPU only; it cannot put tensors on '{shown}'.", where=where,
            hint="write the device line so it works everywhere: device = 'cuda' if "
            "nb.cuda.is_available() else 'cpu' (nnbook answers False, so it picks 'cpu')."))


def set_default_device(device) -> None:
    """Where new tensors go: only the CPU (or None, which means the CPU) is accepted."""
    check_device(device, "nb.set_default_device")


def get_default_device() -> device:
    return CPU
