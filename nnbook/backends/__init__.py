"""``nb.backends``: PyTorch's switches for its GPU and CPU libraries, answered for nnbook.

nnbook has one backend, numpy, so ``nb.backends.mps.is_available()`` and
``nb.backends.cudnn.is_available()`` are False, and the switches tutorials set
(``cudnn.benchmark = True``, ``cuda.matmul.allow_tf32 = True``) are plain
attributes that keep what is assigned and change nothing.

The top-level switches of the same kind live here too: ``nb.use_deterministic_algorithms``
(nnbook is always deterministic: the same seed gives the same numbers) and
``nb.set_float32_matmul_precision`` (numpy multiplies float32 in full precision).
"""
from __future__ import annotations

from ..errors import InputError, message
from . import cuda, cudnn, mps  # noqa: F401  (the submodules PyTorch code imports)

_state = {"deterministic": False, "warn_only": False, "matmul_precision": "highest"}


def use_deterministic_algorithms(mode, *, warn_only=False) -> None:
    """Recorded for ``are_deterministic_algorithms_enabled()``; nnbook is deterministic anyway."""
    _state["deterministic"], _state["warn_only"] = bool(mode), bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _state["warn_only"]


def set_float32_matmul_precision(precision: str) -> None:
    """'highest', 'high' or 'medium': recorded; numpy always multiplies float32 in float32."""
    if precision not in ("highest", "high", "medium"):
        raise InputError(message(
            f"precision must be 'highest', 'high' or 'medium', got {precision!r}.",
            where="nb.set_float32_matmul_precision",
            hint="nnbook computes float32 matmuls in full precision whichever you pick."))
    _state["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    return _state["matmul_precision"]
