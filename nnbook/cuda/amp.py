"""``nb.cuda.amp``: PyTorch's older spelling of ``nb.amp`` (``GradScaler``, ``autocast``)."""
from __future__ import annotations

from .. import amp as _amp


def autocast(enabled=True, dtype=None, cache_enabled=True):
    """``torch.cuda.amp.autocast(...)`` is ``autocast("cuda", ...)``: nothing changes here."""
    return _amp.autocast("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    """``torch.cuda.amp.GradScaler``: ``nb.amp.GradScaler("cuda", ...)``, switched off here."""

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)
