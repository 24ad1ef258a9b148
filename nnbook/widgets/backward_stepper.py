"""BackwardStepper: the graph of a loss, and backward through it one node at a time.

    loss = criterion(model(x), y)
    BackwardStepper(loss, model)     # model (optional) names the leaves by parameter path
    BackwardStepper(c, {"a": a, "b": b}, signed=True)   # scalars: values with their signs

Each step shows what the engine hands an op's backward -- the forward inputs, ``out``
and ``dout``, the three kinds of argument of ``bprop(self, x, y, out, dout)`` (the one
that was missing in the backward rule without dout) -- and the gradient it sends back
to each input.  The steps come from
:func:`nnbook.inspect.trace_backward`, which replays backward without touching any
``.grad``: stepping through it changes nothing.

Steps count from 1 ("backward step 1 of 3"), as the numbers beside the ops do.  With
``signed=True`` (the default when every value in the graph is one number) each node shows
its value and each gradient its value, with their signs; otherwise sizes show as norms.
"""
from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np

from ..errors import InputError, message
from ..errors import fmt_shape as _shape
from ..inspect.records import trace_backward
from ..inspect.values import value_summary
from ._base import PROJECTOR_IN, NnbookWidget
from .draw.graph import PastedImage, backward_order, draw_graph, render_node_labels
from .draw.graph_layout import LAYER_IN, UNIT_IN, graph_layout, is_scalar_trace, signed_text
from .draw.graph_step import draw_step_panel, step_view
from .palette import FORWARD_COLOR, GRADIENT_COLOR, MUTED_COLOR

PANEL_IN = 5.6   # width of the text panel beside the graph, in inches


def _v(summary) -> str:
    return signed_text(summary.head[0])


def _signed(array) -> str:
    return signed_text(np.asarray(array).reshape(-1)[0])


class BackwardStepper(NnbookWidget):
    """Step through the backward pass of ``loss``: prev/next buttons and a slider."""

    def __init__(self, loss, model=None, step: int = 0, signed: bool | None = None):
        super().__init__()
        if getattr(loss, "grad_fn", None) is None:
            raise InputError(message(
                "this tensor has no graph to step through: it was not computed from "
                "tensors with requires_grad=True.", where="BackwardStepper", line=None,
                hint="pass a loss computed from the model's parameters, outside "
                "nb.no_grad()."))
        self.trace = trace_backward(loss, model=model)
        if signed and not is_scalar_trace(self.trace):
            raise InputError(message(
                "signed=True shows each value as one signed number, but this graph holds "
                "tensors with more than one element.", where="BackwardStepper", line=None,
                hint="leave signed out (sizes then show as norms), or step through a "
                "graph of scalars."))
        self.signed = is_scalar_trace(self.trace) if signed is None else bool(signed)
        self.parts = graph_layout(self.trace, self.signed)
        self._labels = None
        layout = self.parts[2]
        # sized so the labels fit their boxes; a very large graph is squeezed (and crowded).
        # PROJECTOR_IN wide, its 12-pt text reads on a projector; a graph too wide for that
        # widens the picture, and its text then shows smaller at the projector's width
        self.figsize = (max(min(layout.width * UNIT_IN + 0.4, 11.0) + PANEL_IN, PROJECTOR_IN),
                        min(max(layout.depth * LAYER_IN + 0.4, 6.0), 20.0))
        total = len(self.trace.steps)
        self.prev_button = widgets.Button(description="◀ prev", tooltip="previous step")
        self.next_button = widgets.Button(description="next ▶", tooltip="next backward step")
        # the slider holds the 0-based index; the label beside it counts from 1
        self.step_slider = widgets.IntSlider(value=max(0, min(int(step), total)), min=0,
                                             max=total, description="step", readout=False,
                                             continuous_update=True)
        self.step_label = widgets.Label()
        self.prev_button.on_click(lambda _: self.go(self.step_slider.value - 1))
        self.next_button.on_click(lambda _: self.go(self.step_slider.value + 1))
        self.step_slider.observe(lambda _: self._moved(), names="value")
        self.details = widgets.HTML()  # the numbers, under the picture
        self._setup([widgets.HBox([self.prev_button, self.next_button, self.step_slider,
                                   self.step_label])],
                    extra=[self.details])
        self._moved(redraw=False)

    # -- moving ---------------------------------------------------------------------------
    def go(self, index: int) -> None:
        """Show backward step ``index`` (0-based; ``len(steps)`` = finished)."""
        self.step_slider.value = max(0, min(int(index), self.step_slider.max))

    def _moved(self, redraw=True) -> None:
        self.prev_button.disabled = self.step_slider.value == 0
        self.next_button.disabled = self.step_slider.value == self.step_slider.max
        total = self.step_slider.max
        self.step_label.value = "finished" if self.current >= total else \
            f"{self.current + 1} of {total}"
        if redraw:
            self.redraw()

    @property
    def current(self) -> int:
        return self.step_slider.value

    # -- the view -------------------------------------------------------------------------
    def draw(self, fig) -> None:
        width, height = fig.get_size_inches()
        graph_in = width - PANEL_IN
        rect = [0.1 / width, 0.15 / height, (graph_in - 0.2) / width, 1 - 0.3 / height]
        ax = fig.add_axes(rect)
        draw_graph(ax, self.trace, self.current, self.parts, labels=False, signed=self.signed)
        left = (graph_in + 0.15) / width
        key = (width, height)
        if self._labels is None or self._labels[0] != key:  # drawn once: text is slow
            self._labels = (key, render_node_labels(self.parts, (width, height), rect, self.dpi(),
                                                    backward_order(self.trace), left))
        fig.add_artist(PastedImage(*self._labels[1]))
        draw_step_panel(fig, self.trace, self.current, left=left, top=1 - 0.15 / height,
                        legend=False, signed=self.signed)

    def describe(self) -> str:
        total = len(self.trace.steps)
        head = f"BackwardStepper: {len(self.trace.graph)} ops"
        if self.current >= total:
            done = f"{head}; backward finished: gradients for {len(self.trace.leaf_grads)} leaves"
            if self.signed:
                done += "\n  " + ", ".join(f"grad {name} {_signed(g)}"
                                           for name, _, g in self.trace.leaf_grads)
            return done
        view = step_view(self.trace, self.current)
        where = f" ({view.layer})" if view.layer else ""
        if self.signed:
            grads = ", ".join(f"grad {a.name} {'None' if a.grad is None else _v(a.grad)}"
                              for a in view.arguments)
            return (f"{head}; step {self.current + 1} of {total}: {view.op}{where}\n"
                    f"  out {_v(view.out)}, dout {_v(view.dout)} -> {grads}")
        grads = ", ".join(f"{a.name} {'None' if a.grad is None else format(a.grad.norm, '.3g')}"
                          for a in view.arguments)
        return (f"{head}; step {self.current + 1} of {total}: {view.op}{where}\n"
                f"  dout {_shape(view.dout.shape)} norm {view.dout.norm:.3g} -> "
                f"grad norms: {grads}")

    def redraw(self) -> None:
        super().redraw()
        self.details.value = self.details_html()

    def caption_html(self) -> str:
        """One or two lines above the picture: what arrives and what is sent back."""
        e = html.escape
        total = len(self.trace.steps)
        if self.current >= total:
            return (f'<div style="font-size:16px;"><b>Backward finished</b> after {total} steps: '
                    f"{len(self.trace.leaf_grads)} leaves received a gradient (values below)."
                    "</div>")
        view = step_view(self.trace, self.current)
        where = f" in <b>{e(view.layer)}</b>" if view.layer else ""
        size = (lambda g: f"= {_v(g)}") if self.signed else (lambda g: f"(norm {g.norm:.3g})")
        sent = ", ".join(
            f"<b>grad {e(a.name)}</b> {size(a.grad)} → {e(a.source)}"
            if a.grad is not None
            else f'<span style="color:{MUTED_COLOR};">grad {e(a.name)} None</span>'
            for a in view.arguments)
        return (f'<div style="font-size:16px;line-height:1.45;">'
                f"<b>Backward step {view.index + 1} of {view.total}: "
                f'<span style="color:{GRADIENT_COLOR};">{e(view.op)}</span></b>{where}. '
                f'<span style="color:{GRADIENT_COLOR};"><b>dout</b> {size(view.dout)} '
                f"arrives; it returns {sent}.</span></div>")

    def details_html(self) -> str:
        """The values themselves: forward inputs, out, dout and the gradients sent back."""
        total = len(self.trace.steps)
        if self.current >= total:
            return _finished_html(self.trace, self.signed)
        return _step_html(step_view(self.trace, self.current), self.signed)


# -- the caption: the numbers themselves ---------------------------------------------------

_TD = "padding:2px 8px;text-align:left;vertical-align:top;"


def _values(summary) -> str:
    if summary is None:
        return f'<span style="color:{MUTED_COLOR};">(not recorded)</span>'
    if not summary.shape:
        return f"<b>{summary.head[0]:.4g}</b>"
    size = 1
    for s in summary.shape:
        size *= s
    return (f'<span style="font-family:monospace;">{html.escape(summary.head_text(3, size))}'
            f"</span><br><span style=\"font-size:90%;\">{html.escape(summary.text(3))}</span>")


def _row(kind, name, shape, where, values, color, fill) -> str:
    return (f'<tr style="background:{fill};">'
            f'<td style="{_TD}color:{color};font-weight:bold;">{kind}</td>'
            f'<td style="{_TD}font-family:monospace;color:{color};font-weight:bold;">{name}</td>'
            f'<td style="{_TD}font-family:monospace;">{html.escape(_shape(shape))}</td>'
            f'<td style="{_TD}">{where}</td><td style="{_TD}">{values}</td></tr>')


def _step_html(view, signed=False) -> str:
    e = html.escape
    where = f" in <b>{e(view.layer)}</b>" if view.layer else ""
    names = ", ".join(a.name for a in view.arguments)
    fwd, grad = ("#eef4fb", FORWARD_COLOR), ("#f5eefa", GRADIENT_COLOR)
    rows = []
    for a in view.arguments:
        rows.append(_row("① forward input", e(a.name), a.shape, "from " + e(a.source),
                         _values(a.value) if a.kind == "node" or signed else
                         f'<span style="color:{MUTED_COLOR};">'
                         f'{"a parameter" if a.kind == "leaf" else "data"}</span>',
                         fwd[1], fwd[0]))
    rows.append(_row("② out", "out", view.out.shape if view.out else (), "this op's result",
                     _values(view.out), fwd[1], fwd[0]))
    rows.append(_row("③ dout", "dout", view.dout.shape, "∂loss/∂out, from the ops after it",
                     _values(view.dout) if signed else
                     f"‖dout‖ = {view.dout.norm:.3g}<br>{_values(view.dout)}",
                     grad[1], grad[0]))
    rows.append(f'<tr><td colspan="5" style="{_TD}padding-top:8px;color:{GRADIENT_COLOR};">'
                "<b>returns</b> one gradient per forward input, sent back along its edge:"
                "</td></tr>")
    for a in view.arguments:
        if a.grad is None:
            rows.append(_row("gradient", f"grad {e(a.name)}", a.shape, "—",
                             f'<span style="color:{MUTED_COLOR};">None: a constant needs '
                             "no gradient</span>", grad[1], "white"))
        else:
            rows.append(_row("gradient", f"grad {e(a.name)}", a.shape, "→ " + e(a.source),
                             _values(a.grad) if signed else
                             f"‖g‖ = {a.grad.norm:.3g}<br>{_values(a.grad)}",
                             grad[1], grad[0]))
    return (f'<div style="font-size:15px;line-height:1.4;">'
            f'<div><b>The numbers</b> of <span style="color:{GRADIENT_COLOR};">{e(view.op)}'
            f"</span>{where}: its backward receives the three kinds of argument of "
            f"<code>bprop(self, {e(names)}, out, dout)</code>: the forward inputs, the "
            f"forward output <code>out</code> and the incoming gradient "
            f"<code>dout</code>.</div>"
            f'<table style="border-collapse:collapse;margin-top:4px;">{"".join(rows)}</table>'
            "</div>")


def _finished_html(trace, signed=False) -> str:
    rows = []
    for name, shape, g in trace.leaf_grads:
        s = value_summary(g)
        rows.append(_row("gradient", html.escape(name), shape, "", _values(s) if signed else
                         f"‖g‖ = {s.norm:.3g}<br>" + _values(s), GRADIENT_COLOR, "#f5eefa"))
    return ('<div style="font-size:15px;line-height:1.4;"><b>Backward finished.</b> These '
            "gradients reached the leaves: <code>loss.backward()</code> would add them to "
            "each <code>.grad</code> (this replay left every <code>.grad</code> untouched)."
            f'<table style="border-collapse:collapse;margin-top:4px;">{"".join(rows)}</table>'
            "</div>")


__all__ = ["BackwardStepper"]
