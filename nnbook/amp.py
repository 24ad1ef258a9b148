"""Mixed precision (``nb.amp.autocast``, ``nb.amp.GradScaler``): accepted, and switched off.

On a GPU, PyTorch's autocast runs some ops in float16 or bfloat16 for speed, and a
GradScaler multiplies the loss so that small float16 gradients do not round to
zero.  nnbook computes every op in its tensors' own dtype (float32 by default),
where gradients do not underflow, so:

* ``with nb.autocast("cpu", dtype=nb.bfloat16):`` runs the block unchanged (a
  one-time note says so; ``enabled=False`` or ``dtype=nb.float32`` say nothing);
* ``GradScaler`` is switched off, as PyTorch switches it off without a GPU:
  ``scale(loss)`` returns the loss, ``step(opt)`` calls ``opt.step()``,
  ``unscale_`` and ``update`` do nothing, ``get_scale()`` is 1.0.

So the usual AMP training loop runs here and computes what it computes in float32.
"""
from __future__ import annotations

import functools

from . import dtypes
from .device import device as _device
from .errors import ArgumentError, message
from .notes import note


class autocast:
    """``autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``: a ``with``
    block or a decorator that leaves every op in its inputs' dtype."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ArgumentError(message(
                f"device_type must be a string such as 'cpu' or 'cuda', got {device_type!r}.",
                where="nb.autocast", hint="e.g. nb.autocast('cpu', dtype=nb.bfloat16)."))
        self.device = _device(device_type).type  # an unknown name raises here, as in PyTorch
        self.fast_dtype = None if dtype is None else dtypes.as_dtype(dtype, "nb.autocast")
        self.enabled = bool(enabled)

    def _note(self):
        if not self.enabled or self.fast_dtype == dtypes.float32:
            return
        lower = self.fast_dtype.name if self.fast_dtype is not None else (
            "bfloat16" if self.device == "cpu" else "float16")
        note(f"autocast('{self.device}') would run some ops in {lower}; nnbook runs every "
             "op in its inputs' own dtype (float32 by default), so nothing changes inside "
             "this block.", where="nb.autocast",
             hint="nothing to change; the line can stay for PyTorch.")

    def __enter__(self):
        self._note()
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self.enabled):
                return fn(*args, **kwargs)
        return run


def is_autocast_enabled(device_type=None) -> bool:
    """False: no autocast block ever changes a dtype here."""
    return False


def is_autocast_available(device_type: str) -> bool:
    """Whether ``autocast(device_type)`` may be used: it may, and changes nothing."""
    return _device(device_type).type in ("cpu", "cuda", "mps", "xpu")


class GradScaler:
    """``GradScaler(device='cuda', init_scale=2.**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True)``, always switched off: its methods pass through."""

    def __init__(self, device="cuda", init_scale=2.0**16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        self.device = _device(device).type
        self._init_scale, self._growth_factor = float(init_scale), float(growth_factor)
        self._backoff_factor, self._growth_interval = float(backoff_factor), int(growth_interval)
        if enabled:
            note("GradScaler is switched off: nnbook computes in float32, where small "
                 "gradients do not round to zero, so there is nothing to scale "
                 "(scale(loss) returns the loss, step(optimizer) calls optimizer.step()).",
                 where="nb.amp.GradScaler", hint="nothing to change; the lines can stay "
                 "for PyTorch.")

    def is_enabled(self) -> bool:
        return False

    def scale(self, outputs):
        return outputs

    def unscale_(self, optimizer) -> None:
        pass

    def step(self, optimizer, *args, **kwargs):
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None) -> None:
        pass

    def get_scale(self) -> float:
        return 1.0

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor) -> None:
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor) -> None:
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval) -> None:
        self._growth_interval = int(new_interval)

    def state_dict(self) -> dict:
        return {}  # a switched-off scaler has no state (PyTorch's answer too)

    def load_state_dict(self, state_dict) -> None:
        pass
