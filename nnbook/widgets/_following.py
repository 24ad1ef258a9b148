"""Widgets that follow training: one call per step adds a step, and the view redraws.

``GradientFlow.record()``, ``TimeGradientFlow.record()`` and ``AttentionViewer.update()``
add a step and move the step slider to it. Drawing every step would slow a training loop,
so a redraw happens at most every ``redraw_interval`` seconds; a skipped one is drawn when
the notebook cell finishes (or when the PNG or the static view is asked for).
"""
from __future__ import annotations

import time
import weakref


class FollowsTraining:
    """Mixin for an NnbookWidget with a ``step_slider`` over its recorded steps."""

    redraw_interval = 0.25
    _last_draw, _stale, _quiet = 0.0, False, False

    def _show_newest(self, newest: int) -> None:
        """Move the slider to step ``newest`` without a redraw per change, then redraw
        (or mark the view stale if the last redraw was too recent)."""
        self._quiet = True
        try:
            self.step_slider.disabled = False
            self.step_slider.max = newest
            self.step_slider.value = newest
        finally:
            self._quiet = False
        if time.monotonic() - self._last_draw >= self.redraw_interval:
            self.redraw()
        else:
            self._stale = True
            _flush_after_cell(self)

    def redraw(self) -> None:
        self._stale = False
        super().redraw()
        self._last_draw = time.monotonic()

    def flush(self) -> None:
        """Draw now if a step was added without a redraw."""
        if self._stale:
            self.redraw()

    # the static view is always up to date
    def png(self) -> bytes:
        self.flush()
        return super().png()

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        self.flush()
        return super()._repr_mimebundle_(include=include, exclude=exclude, **kwargs)


# In a notebook, a throttled step is drawn when the cell finishes running.
_pending: weakref.WeakSet = weakref.WeakSet()
_hooked = False


def _flush_after_cell(widget) -> None:
    global _hooked
    _pending.add(widget)
    if _hooked:
        return
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - ipywidgets brings IPython
        return
    shell = get_ipython()
    if shell is None:
        return
    shell.events.register("post_run_cell", _flush_pending)
    _hooked = True


def _flush_pending(*_):
    for widget in list(_pending):
        widget.flush()
    _pending.clear()
