"""ShapeStepper: walk a model layer by layer and watch the shapes change.

    ShapeStepper(model, (10, 3, 16, 8))          # previous / next / a slider over the steps
    ShapeStepper(broken_model, (10, 3, 16, 8), step=-1)   # straight to the failing layer
    ShapeStepper(encoder_layer, (2, 7, 12))      # attention step by step, inside the block
    ShapeStepper(nb.inspect.attention_shapes(mha, (3, 7, 10)))   # one attention call
    ShapeStepper(lstm, (3, 9, 5))                # one time step, layer by layer, then the states

The steps come from :func:`nnbook.infer_shapes`, computed once; a model that does
not fit together is shown up to its failing layer, in red, never raised.  With
``expand=True`` (the default) a MultiheadAttention is walked as the steps of
:func:`nnbook.inspect.attention_shapes` rather than as its ops, and an RNN, LSTM or GRU as
one time step of its maths (see :mod:`nnbook.widgets.sequence_steps`).
"""
from __future__ import annotations

import html

import ipywidgets as widgets

from ..errors import InputError, message
from ..inspect.attention import AttentionShapes
from ..inspect.shapes import ShapeStep, ShapeTrace, infer_shapes
from ._base import NnbookWidget
from .draw.shapes import (
    ERROR,
    INPUT,
    LAYER,
    MUTED,
    OUTPUT,
    draw_step,
    draw_step_text,
    fmt_count,
    fmt_shape,
    split_error,
)
from .sequence_steps import expand_trace, step_parameters, trace_of_attention


def layer_parameters(model, step: ShapeStep) -> list:
    """[(name, shape, count, trainable), …] of the layer a step ran (none for an op)."""
    expanded = step_parameters(model, step)
    if expanded is not None:
        return expanded
    if step.kind == "op":
        return []
    try:
        module = model.get_submodule(step.path)
    except Exception:  # a model changed after tracing: show no parameters rather than fail
        return []
    leaf = not list(module.children())
    return [(name, tuple(p.shape), p.numel(), p.requires_grad)
            for name, p in module.named_parameters(recurse=leaf)]


# Layers whose input holds indices, not features: a (B, T) batch of token positions
INDEX_LAYERS = ("Embedding", "EmbeddingBag")


def _trace(model, input_shape, expand: bool = False) -> tuple:
    """(trace, dim names per step): infer_shapes (sequence layers expanded if asked), with
    anything it does not catch itself turned into one error step."""
    try:
        if expand:
            trace, names = expand_trace(model, input_shape)
        else:
            trace = infer_shapes(model, input_shape)
            names = [None] * len(trace.steps)
        return trace, [[("T",)] * len(step.input_shapes) + [None]
                       if step.layer in INDEX_LAYERS and not name else name
                       for step, name in zip(trace.steps, names)]
    except Exception as err:  # a bug in a user's forward, a bad input_shape: show it
        step = ShapeStep(index=0, path="", layer=type(model).__name__, input_shapes=(),
                         output_shape=None, kind="error", error=err)
        return ShapeTrace(model=type(model).__name__, input_shapes=(), steps=(step,),
                          output_shape=None, error=err), [None]


class ShapeStepper(NnbookWidget):
    """Previous/next buttons and a slider over the steps of ``infer_shapes(model, input_shape)``.

    ``model`` may also be an AttentionShapes record (``nb.inspect.attention_shapes``), then
    without ``input_shape``.  ``expand=False`` shows attention and recurrent layers as
    ``infer_shapes`` traces them (ops, one step).
    """

    figsize = (8.0, 4.4)

    def __init__(self, model, input_shape=None, step: int = 0, expand: bool = True,
                 **kwargs):
        super().__init__(**kwargs)
        if isinstance(model, AttentionShapes):
            if input_shape is not None:
                raise InputError(message(
                    "takes no input_shape with an AttentionShapes record: the record has "
                    "its shapes.", where="ShapeStepper", line=None,
                    hint="ShapeStepper(nb.inspect.attention_shapes(mha, (3, 7, 10))), or "
                    "ShapeStepper(mha, [(3, 7, 10)] * 3) to trace the layer itself."))
            self.model = None
            self.trace, self.names = trace_of_attention(model)
        else:
            if input_shape is None:
                raise InputError(message(
                    f"needs the input shape to walk {type(model).__name__} on.",
                    where="ShapeStepper", line=None,
                    hint="ShapeStepper(model, (10, 3, 16, 8)): the shape of one batch."))
            self.model = model
            self.trace, self.names = _trace(model, input_shape, expand)
        self.params = [layer_parameters(self.model, s) if self.model is not None else []
                       for s in self.trace.steps]
        last = len(self.trace.steps) - 1
        start = min(max(step if step >= 0 else last + 1 + step, 0), last)
        self.previous_button = widgets.Button(description="◀ previous",
                                              layout=widgets.Layout(width="120px"))
        self.next_button = widgets.Button(description="next ▶",
                                          layout=widgets.Layout(width="120px"))
        self.slider = widgets.IntSlider(value=start, min=0, max=last, description="step",
                                        layout=widgets.Layout(width="420px"),
                                        disabled=last == 0, readout=False)
        self.step_label = widgets.Label()   # the slider holds the index; this counts from 1
        self.previous_button.on_click(lambda _: self._move(-1))
        self.next_button.on_click(lambda _: self._move(+1))
        self.slider.observe(self._on_slider, names="value")
        self._update_buttons()
        self._setup([widgets.HBox([self.previous_button, self.slider, self.step_label,
                                   self.next_button])])

    # -- view state -------------------------------------------------------------------
    @property
    def step(self) -> ShapeStep:
        return self.trace.steps[self.slider.value]

    def _move(self, delta: int) -> None:
        self.slider.value = min(max(self.slider.value + delta, 0), self.slider.max)

    def _on_slider(self, change) -> None:
        self._update_buttons()
        self.redraw()

    def _update_buttons(self) -> None:
        self.previous_button.disabled = self.slider.value == 0
        self.next_button.disabled = self.slider.value == self.slider.max
        self.step_label.value = f"{self.slider.value + 1} of {self.slider.max + 1}"

    # -- rendering ----------------------------------------------------------------------
    def _counter(self) -> str:
        # counted from 1, as every stepper and trace in nnbook counts its steps
        text = f"step {self.step.index + 1} of {len(self.trace.steps)}"
        if self.trace.error is not None and not self.step.failed:
            failing = self.trace.steps[-1]
            text += f" (fails at step {len(self.trace.steps)}, {failing.name})"
        return text

    def draw(self, fig) -> None:
        step, params = self.step, self.params[self.slider.value]
        total = sum(count for _, _, count, _ in params)
        params_text = (f"{fmt_count(total)} parameters" if params
                       else "" if step.failed else "no parameters")
        boxes = fig.add_axes((0.0, 0.29, 1.0, 0.71))
        draw_step(boxes, step, title=f"{self._counter()} · layer {step.name}",
                  params_text=params_text, names=self.names[self.slider.value])
        draw_step_text(boxes, step, params, x=0.025, top=0.28, coords="figure fraction")

    def describe(self) -> str:
        step = self.step
        inputs = " ".join(fmt_shape(s) for s in step.input_shapes) or "()"
        if step.failed:
            what = split_error(step.error)["what"]
            # the line names the layer already: 'embed (Embedding), in embedding: expects…'
            what = what.split(": ", 1)[-1] if what.startswith(step.name) else what
            result = f"FAILED: {what}"
        else:
            result = fmt_shape(step.output_shape)
        text = f"ShapeStepper: {self._counter()}, {step.name} {inputs} -> {result}"
        if self.trace.error is not None and not step.failed:
            # the text view has no red box further on: say which layer fails, and why
            failing = self.trace.steps[-1]
            what = split_error(self.trace.error)["what"]
            text += f"\n  the model fails at {failing.name}: {what.split(': ', 1)[-1]}"
        return text

    def caption_html(self) -> str:
        step, params = self.step, self.params[self.slider.value]
        esc = html.escape
        colour = ERROR if step.failed else "inherit"
        head = (f"<div style='font-size:16px;color:{colour}'><b>{esc(self._counter())}</b>"
                f" · <code>{esc(step.path or self.trace.model)}</code> "
                f"<b>{esc(step.layer)}</b>"
                + (f" <span style='color:{MUTED}'>(in {esc(step.container)})</span>"
                   if step.container else "") + "</div>")
        inputs = ", ".join(esc(fmt_shape(s)) for s in step.input_shapes) or "none"
        output = (f"<span style='color:{OUTPUT}'>{esc(fmt_shape(step.output_shape))}</span>"
                  if step.output_shape is not None
                  else f"<span style='color:{ERROR}'><b>failed</b></span>")
        flow = (f"<div><span style='color:{INPUT}'>input {inputs}</span> → "
                f"<span style='color:{LAYER}'>{esc(step.layer)}</span> → output {output}</div>")
        formula = "".join(f"<div><code>{esc(line)}</code></div>" for line in step.formula)
        return (f"<div style='font-size:15px;line-height:1.5'>{head}{flow}{formula}"
                f"{self._params_html(params)}{self._error_html(step)}</div>")

    @staticmethod
    def _params_html(params) -> str:
        if not params:
            return ""
        rows = "".join(
            f"<tr><td><code>{html.escape(name)}</code></td><td>{fmt_shape(shape)}</td>"
            f"<td style='text-align:right'>{fmt_count(count)}</td>"
            f"<td>{'' if trainable else 'frozen'}</td></tr>"
            for name, shape, count, trainable in params)
        total = fmt_count(sum(count for _, _, count, _ in params))
        return ("<table style='font-size:14px'><tr><th align='left'>parameter</th>"
                "<th align='left'>shape</th><th>count</th><th></th></tr>" + rows
                + f"<tr><td><b>total</b></td><td></td><td style='text-align:right'><b>{total}"
                "</b></td><td></td></tr></table>")

    @staticmethod
    def _error_html(step) -> str:
        if not step.failed:
            return ""
        parts = split_error(step.error)
        values = "\n".join(parts["values"])
        return (f"<div style='color:{ERROR};border-left:4px solid {ERROR};padding-left:8px'>"
                f"<b>{html.escape(parts['type'])}: {html.escape(parts['what'])}</b>"
                + (f"<pre style='color:{ERROR};margin:4px 0'>{html.escape(values)}</pre>"
                   if values else "")
                + (f"<div><b>hint:</b> {html.escape(parts['hint'])}</div>"
                   if parts["hint"] else "") + "</div>")
