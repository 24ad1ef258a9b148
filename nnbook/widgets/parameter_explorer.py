"""ParameterExplorer: what the model holds, what the optimizer holds, what got a gradient.

    explorer = ParameterExplorer(model, optimizer)
    explorer               # the tree of parameters and buffers, problems in red
    loss.backward(); explorer.refresh()

The analysis is :func:`nnbook.inspect.params.parameter_report`; this only shows it.
"""
from __future__ import annotations

import ipywidgets as widgets

from ..inspect.params import PROBLEMS, parameter_report, report_html
from ._base import NnbookWidget
from .draw.params import draw_parameters


class ParameterExplorer(NnbookWidget):
    """The named parameters and buffers of ``model``, checked against ``optimizer``."""

    def __init__(self, model, optimizer=None):
        super().__init__()
        self.model, self.optimizer = model, optimizer
        self.report = parameter_report(model, optimizer)
        self.refresh_button = widgets.Button(
            description="refresh", icon="refresh",
            tooltip="re-read parameters and gradients (e.g. after the next backward)")
        self.refresh_button.on_click(lambda _: self.refresh())
        self.figsize = self._size()
        self._setup([self.refresh_button])

    def _size(self):
        return (12.0, 0.42 * max(len(self.report.parameters), 2) + 1.5)

    def refresh(self) -> None:
        """Read the model, the optimizer and the gradients again, and redraw."""
        self.report = parameter_report(self.model, self.optimizer)
        size = self._size()
        if tuple(self.figure.get_size_inches()) != size:
            self.figure.set_size_inches(*size)
        self.redraw()

    # -- the view -----------------------------------------------------------------
    def draw(self, fig) -> None:
        draw_parameters(fig, self.report)

    def caption_html(self) -> str:
        return report_html(self.report)

    def describe(self) -> str:
        r = self.report
        lines = [r.headline()]
        lines += [f"  {line}" for line in r.findings()]
        if r.ok and r.backward_seen:
            lines.append("  every parameter is in the optimizer and got a gradient"
                         if r.optimizer else "  every parameter got a gradient")
        return "\n".join(lines)

    def problems(self) -> dict:
        """flag -> labels of the rows with that problem (only flags that occur)."""
        return {f: [row.label for row in self.report.flagged(f)] for f in PROBLEMS
                if self.report.flagged(f)}


__all__ = ["ParameterExplorer"]
