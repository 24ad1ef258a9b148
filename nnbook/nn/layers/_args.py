"""Checking the arguments a layer is built with, so a typo fails at construction."""
from __future__ import annotations

import numbers

from ...errors import InputError, message


def positive_int(cls: str, name: str, value, minimum: int = 1) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < minimum:
        raise InputError(message(
            f"{name} must be an int >= {minimum}, got {value!r}.", where=cls,
            hint=f"{name} counts channels, features or pixels: a whole number such as "
            f"{max(minimum, 16)}."))
    return int(value)




def check_device(cls: str, device) -> None:
    """PyTorch's ``device`` argument: nnbook computes on the CPU only."""
    if device is not None and str(device).split(":")[0] != "cpu":
        raise InputError(message(
            f"nnbook runs on the CPU only; got device={device!r}.", where=cls,
            hint="leave device out (or use device='cpu')."))


def call_text(cls: str, positional=(), **keywords) -> str:
    """'Conv2d(8, 32, 3, stride=2)': how a user would write a layer, defaults left out."""
    parts = [_short(v) for v in positional]
    parts += [f"{k}={_short(v)}" for k, v in keywords.items() if v is not None]
    return f"{cls}({', '.join(parts)})"


def _short(value) -> str:
    if isinstance(value, tuple) and len(value) in (2, 3) and len(set(value)) == 1:
        return str(value[0])
    return repr(value)
