"""summary(model, input_shape): the per-layer table, from a shape trace (no data needed)."""
from __future__ import annotations

import html
import math
from dataclasses import dataclass, field

import numpy as np

from .. import dtypes
from ..errors import ShapeError, fmt_shape
from .shapes import ShapeTrace, trace_shapes


@dataclass(frozen=True)
class SummaryRow:
    path: str
    layer: str
    output_shape: tuple | None
    params: int          # parameters first seen in this row (shared ones count once)
    mult_adds: int
    trainable: bool
    depth: int

    @property
    def name(self):
        return self.path or self.layer.split(" (in ")[0]


@dataclass(frozen=True)
class Summary:
    """A torchinfo-like table; ``str`` gives text, notebooks show HTML.

    Works on a model that fails part-way: the rows up to the failure, then the error.
    """

    model: str
    input_shapes: tuple
    rows: tuple
    total_params: int
    trainable_params: int
    total_mult_adds: int
    param_bytes: int
    activation_bytes: int
    input_bytes: int
    trace: ShapeTrace = field(repr=False, compare=False)

    @property
    def error(self) -> ShapeError | None:
        return self.trace.error

    def _table(self):
        head = ("layer (path)", "class", "output shape", "params", "mult-adds", "trainable")
        body = []
        for r in self.rows:
            body.append(("  " * r.depth + r.name, r.layer,
                         fmt_shape(r.output_shape) if r.output_shape is not None else "FAILED",
                         f"{r.params:,}" if r.params else "--",
                         f"{r.mult_adds:,}" if r.mult_adds else "--",
                         ("yes" if r.trainable else "no") if r.params else "--"))
        return head, body

    def __str__(self):
        head, body = self._table()
        widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
        rule = "-" * (sum(widths) + 2 * (len(widths) - 1))
        fmt = lambda row: "  ".join(c.rjust(w) if i >= 3 else c.ljust(w)  # noqa: E731
                                    for i, (c, w) in enumerate(zip(row, widths))).rstrip()
        lines = [f"{self.model} on input "
                 f"{', '.join(fmt_shape(s) for s in self.input_shapes)}", rule, fmt(head), rule]
        lines += [fmt(row) for row in body]
        lines += [rule, *self._totals()]
        if self.error is not None:
            lines += ["", f"stopped at the first mismatch -- {type(self.error).__name__}:",
                      str(self.error)]
        return "\n".join(lines)

    def _totals(self):
        return [f"total params: {self.total_params:,}",
                f"trainable params: {self.trainable_params:,}",
                f"non-trainable params: {self.total_params - self.trainable_params:,}",
                f"total mult-adds: {self.total_mult_adds:,}",
                f"input size: {_bytes(self.input_bytes)}",
                f"forward activations: {_bytes(self.activation_bytes)}",
                f"params size: {_bytes(self.param_bytes)}"]

    def __repr__(self):
        return f"<Summary of {self.model}: {len(self.rows)} rows, {self.total_params:,} params>"

    def _repr_html_(self):
        """The table as plain HTML, indented by depth (colours belong to the widgets)."""
        head, body = self._table()
        th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
        trs = []
        for r, row in zip(self.rows, body):
            cells = [f"<td>{'&nbsp;' * 2 * r.depth}<code>{html.escape(r.name)}</code></td>"]
            cells += [f"<td>{html.escape(c)}</td>" for c in row[1:]]
            trs.append(f"<tr>{''.join(cells)}</tr>")
        totals = "<br>".join(html.escape(t) for t in self._totals())
        err = "" if self.error is None else f"<pre>{html.escape(str(self.error))}</pre>"
        return (f"<div><b>{html.escape(self.model)}</b><table><tr>{th}</tr>{''.join(trs)}"
                f"</table><p>{totals}</p>{err}</div>")


def _bytes(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:,} {unit}" if unit == "B" else f"{n:,.2f} {unit}"
        n /= 1024
    return str(n)


def summary(model, input_shape, dtype=None) -> Summary:
    """The per-layer table of ``model`` on ``input_shape``, computed without data."""
    trace = trace_shapes(model, input_shape, dtype, "nb.summary")
    modules = {path: m for path, m in model.named_modules(remove_duplicate=False)}
    seen: set[int] = set()
    rows = []
    for step in trace.steps:
        new = 0
        module = modules.get(step.path) if step.kind == "layer" else None
        if module is not None:
            for p in module.parameters():
                if id(p) not in seen:
                    seen.add(id(p))
                    new += p.numel()
        # an op run directly in a container's forward: "add (in Sum)"
        layer = f"{step.layer} (in {step.container})" if step.kind == "op" and step.container \
            else step.layer
        rows.append(SummaryRow(step.path, layer, step.output_shape, new, step.mult_adds,
                               step.trainable and step.kind == "layer", step.depth))
    params = list(model.parameters())  # unique, even when shared
    in_dtype = trace.input_dtype   # what the walk read: indices for an embedding
    if dtype is None or in_dtype.kind != "f":  # activations are the parameters' floats
        dtype = next((p.dtype for p in model.parameters()), dtypes.default_float())
    itemsize = np.dtype(dtype).itemsize
    activations = sum(math.prod(s.output_shape) for s in trace.steps
                      if s.output_shape is not None) * itemsize
    return Summary(
        model=type(model).__name__, input_shapes=trace.input_shapes, rows=tuple(rows),
        total_params=sum(p.numel() for p in params),
        trainable_params=sum(p.numel() for p in params if p.requires_grad),
        total_mult_adds=sum(r.mult_adds for r in rows),
        param_bytes=sum(p.numel() * p.dtype.itemsize for p in params),
        activation_bytes=activations,
        input_bytes=sum(math.prod(s) for s in trace.input_shapes) * in_dtype.itemsize,
        trace=trace)
