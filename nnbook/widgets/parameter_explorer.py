"""ParameterExplorer: what the model holds, what the optimizer holds, what got a gradient.

    explorer = ParameterExplorer(model, optimizer)
    explorer               # the tree of parameters and buffers, problems in red
    loss.backward(); explorer.refresh()
    explorer.show_dropdown.value = "problems"   # the picture shows only what is wrong

The "show" menu picks what the picture holds: every parameter, the problems only, or the
parameters of one module (and its children); the table above the picture stays whole.

The analysis is :func:`nnbook.inspect.params.parameter_report`; this only shows it
(the table above the picture: :func:`nnbook.widgets.params_table.report_html`).
"""
from __future__ import annotations

import ipywidgets as widgets

from ..inspect.param_flags import PROBLEMS
from ..inspect.params import parameter_report, show_choices
from ._base import NnbookWidget
from .draw.params import draw_parameters
from .params_table import report_html


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
        self.show_dropdown = widgets.Dropdown(options=show_choices(self.report), value="all",
                                              description="show")
        self.show_dropdown.observe(lambda _: self.redraw(), names="value")
        self.figsize = self._size()
        self._setup([widgets.HBox([self.refresh_button, self.show_dropdown])])

    @property
    def rows(self) -> tuple:
        """The parameter rows the picture shows (see the "show" menu)."""
        return self.report.selected(self.show_dropdown.value)

    def _size(self):
        return (12.0, 0.42 * max(len(self.rows), 2) + 1.5)

    def refresh(self) -> None:
        """Read the model, the optimizer and the gradients again, and redraw."""
        self.report = parameter_report(self.model, self.optimizer)
        choices = show_choices(self.report)
        if choices != list(self.show_dropdown.options):
            keep = self.show_dropdown.value
            self.show_dropdown.options = choices  # (a module may have been added)
            self.show_dropdown.value = keep if keep in dict(choices).values() else "all"
        self.redraw()

    # -- the view -----------------------------------------------------------------
    def redraw(self) -> None:
        size = self._size()
        if tuple(self.figure.get_size_inches()) != size:
            self.figure.set_size_inches(*size)
        super().redraw()

    def draw(self, fig) -> None:
        empty = "✔ no problems found" if self.show_dropdown.value == "problems" else \
            "this module holds no parameters"
        draw_parameters(fig, self.report, self.rows, self._showing(), empty)

    def _showing(self) -> str:
        """'' for everything, else what the picture is narrowed to, e.g. 'problems only'."""
        show = self.show_dropdown.value
        if show == "all":
            return ""
        label = dict((v, k) for k, v in self.show_dropdown.options)[show]
        if show != "problems":
            label = f"inside {label}"
        return f"{label}: {len(self.rows)} of {len(self.report.parameters)} parameter tensors"

    def caption_html(self) -> str:
        return report_html(self.report)

    def describe(self) -> str:
        r = self.report
        lines = [r.headline()]
        lines += [f"  {line}" for line in r.findings()]
        if r.ok and r.backward_seen:
            lines.append("  every parameter is in the optimizer and got a gradient"
                         if r.optimizer else "  every parameter got a gradient")
        if self._showing():
            lines.append(f"  showing {self._showing()}")
        return "\n".join(lines)

    def problems(self) -> dict:
        """flag -> labels of the rows with that problem (only flags that occur)."""
        return {f: [row.label for row in self.report.flagged(f)] for f in PROBLEMS
                if self.report.flagged(f)}


__all__ = ["ParameterExplorer"]
