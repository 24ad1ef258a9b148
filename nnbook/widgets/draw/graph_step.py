"""The current backward step, as the three kinds of argument of a backward rule: what
``step_view`` reads off a BackwardTrace, and the text panel beside the graph.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...inspect.values import value_summary
from ..palette import FORWARD_COLOR, GRADIENT_COLOR
from .graph import CURRENT_EDGE, PANEL_FONT, draw_graph_legend
from .graph_layout import compact_shape, layer_path, op_title, signed_text


@dataclass(frozen=True)
class Argument:
    name: str           # x, weight, bias ... as in the op's forward
    shape: tuple
    source: str         # where the value comes from / where its gradient goes
    kind: str           # "node", "leaf" or "const"
    value: object       # ValueSummary of the forward value, or None if not recorded
    grad: object        # ValueSummary of the gradient sent back, or None (no gradient)


@dataclass(frozen=True)
class StepView:
    index: int          # backward step, 0-based (shown as index + 1: steps count from 1)
    total: int
    op: str
    layer: str | None
    arguments: tuple    # Argument per forward input
    out: object         # ValueSummary of the op's output
    dout: object        # ValueSummary of the gradient arriving at the output

    @property
    def signature(self) -> str:
        return f"bprop({', '.join(a.name for a in self.arguments)}, out, dout)"


def _source_text(trace, kind, ref) -> str:
    if kind == "node":
        return op_title(trace.node(ref))
    if kind == "leaf":
        return ref
    return ref or "a constant (no gradient)"


def step_view(trace, index: int) -> StepView:
    """What backward step ``index`` of ``trace`` receives and sends, ready to print."""
    step = trace.steps[index]
    node = trace.node(step.node)
    names = node.input_names or [f"input{i}" for i in range(len(node.inputs))]
    args = []
    for i, ((kind, ref), shape) in enumerate(zip(node.inputs, node.input_shapes)):
        value = trace.node(ref).out if kind == "node" else \
            node.input_values[i] if i < len(node.input_values) else None
        grad = step.grads[i] if i < len(step.grads) else None
        args.append(Argument(names[i], tuple(shape), _source_text(trace, kind, ref), kind,
                             value_summary(value) if value is not None else None,
                             value_summary(grad) if grad is not None else None))
    out = value_summary(node.out) if node.out is not None else None
    return StepView(index, len(trace.steps), node.op, layer_path(node), tuple(args), out,
                    value_summary(step.dout))


def _v(summary) -> str:
    """A scalar's value with its sign (signed mode)."""
    return "?" if summary is None else signed_text(summary.head[0])


def draw_step_panel(fig, trace, current: int, left: float = 0.6, top: float = 0.98,
                    legend: bool = True, signed: bool = False):
    """Text beside the graph: the current op's forward inputs, out and dout, and what it
    returns -- the three kinds of argument of ``bprop(self, *inputs, out, dout)``.

    Figure texts from (``left``, ``top``) in figure fractions (no Axes: cheaper); the
    colour legend at the foot unless ``legend=False`` (a widget pastes it with the labels).
    ``signed`` (a graph of scalars) prints every value and gradient with its sign.
    """
    line = PANEL_FONT * 1.32 / (fig.get_figheight() * 72)   # one line, in figure fraction
    cursor = [top]
    texts = []

    def put(lines, color="black", size=PANEL_FONT, weight="normal", mono=True, gap=0.4):
        lines = lines if isinstance(lines, list) else [lines]
        texts.append(fig.text(left, cursor[0], "\n".join(lines), color=color, fontsize=size,
                              fontweight=weight, va="top", ha="left",
                              family="DejaVu Sans Mono" if mono else None, linespacing=1.32))
        cursor[0] -= line * (len(lines) * size / PANEL_FONT + gap)

    if legend:
        texts += draw_graph_legend(fig, left)
    total = len(trace.steps)
    if current >= total:
        _finished_panel(put, trace, signed)
        return texts
    view = step_view(trace, current)
    put(f"backward step {current + 1} of {total}", size=PANEL_FONT + 2, weight="bold",
        mono=False, gap=0.2)
    put(f"{view.op}" + (f"  in {view.layer}" if view.layer else ""), color=CURRENT_EDGE,
        size=PANEL_FONT + 1, weight="bold", mono=False)
    width = max(len(a.name) for a in view.arguments)
    if signed:
        _signed_panel(put, view, width, current)
        return texts
    put(["1. forward inputs"] + [f"  {a.name:<{width}} {compact_shape(a.shape):<11} ← {a.source}"
                                for a in view.arguments], color=FORWARD_COLOR)
    out = view.out
    put(["2. out: this op's result", f"  {compact_shape(out.shape if out else ())}"]
        + ([f"  mean {out.mean:.3g}  std {out.std:.3g}"] if out and out.shape else [])
        + ([f"  value {out.head[0]:.4g}"] if out and not out.shape else []),
        color=FORWARD_COLOR)
    put(["3. dout = ∂loss/∂out, arriving", f"  {compact_shape(view.dout.shape):<11} "
         f"‖dout‖ {view.dout.norm:.3g}"]
        + (["  (backward starts here: ∂loss/∂loss = 1)"] if current == 0 else []),
        color=GRADIENT_COLOR)
    put(["returns one gradient per input"] + [
        f"  grad {a.name:<{width}} ‖g‖ {a.grad.norm:<9.3g} → {a.source}"
        if a.grad is not None else f"  grad {a.name:<{width}} None: a constant"
        for a in view.arguments],
        color=GRADIENT_COLOR, gap=1.0)
    names = [a.name for a in view.arguments]
    put(["as a custom backward rule:",
         f"  def bprop(self, {', '.join(names)}, out, dout):",
         f"      return {', '.join('grad_' + n for n in names)}"], color="#424242")
    return texts


def _finished_panel(put, trace, signed):
    """After the last step: the gradients that reached the leaves."""
    total = len(trace.steps)
    put(f"backward finished ({total} steps)", size=PANEL_FONT + 2, weight="bold", mono=False)
    put(["gradients that reached the leaves", "(what backward() adds to .grad)"],
        color=GRADIENT_COLOR, mono=False)
    width = max((len(name) for name, _, _ in trace.leaf_grads), default=4)
    put([f"{name:<{width}} grad {signed_text(np.asarray(g).reshape(-1)[0])}" if signed else
         f"{name:<{width}} {compact_shape(shape):<11} ‖g‖ {value_summary(g).norm:.3g}"
         for name, shape, g in trace.leaf_grads], color=GRADIENT_COLOR)


def _signed_panel(put, view, width, current):
    """The step panel for a graph of scalars: every number with its sign."""
    put(["1. forward inputs"] + [f"  {a.name:<{width}} = {_v(a.value):<9} ← {a.source}"
                                for a in view.arguments], color=FORWARD_COLOR)
    put(["2. out: this op's result", f"  out = {_v(view.out)}"], color=FORWARD_COLOR)
    put(["3. dout = ∂loss/∂out, arriving", f"  dout = {_v(view.dout)}"]
        + (["  (backward starts here: ∂loss/∂loss = 1)"] if current == 0 else []),
        color=GRADIENT_COLOR)
    put(["returns one gradient per input"] + [
        f"  grad {a.name:<{width}} = {_v(a.grad):<9} → {a.source}"
        if a.grad is not None else f"  grad {a.name:<{width}} None: a constant"
        for a in view.arguments], color=GRADIENT_COLOR, gap=1.0)
