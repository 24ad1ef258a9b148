"""Data-free shape inference: walk a model with each op's shape rule only.

``infer_shapes(model, (10, 3, 16, 8))`` runs the model's forward on *meta*
tensors -- a shape and a dtype, no memory -- so every op checks its inputs with
the same rule its real forward uses, and nothing is computed.  User-written
forwards are followed as they are, because they run.
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field

import numpy as np

from .. import context, dtypes
from ..errors import ArgumentError, InputError, NnbookError, ShapeError, fmt_shape, message
from ..tensor import Tensor, meta_tensor
from . import cost


@dataclass(frozen=True)
class ShapeStep:
    """One layer (or one op run directly in a container's forward) of a shape trace."""

    index: int
    path: str                 # dotted path; "" is the model itself
    layer: str                # class name, or the op's name for ops in a container
    input_shapes: tuple
    output_shape: tuple | None
    params: int = 0
    trainable: bool = True
    formula: tuple = ()       # one line per spatial dimension, numbers filled in
    mult_adds: int = 0
    depth: int = 0
    kind: str = "layer"       # "layer", "op" or "error"
    error: ShapeError | None = field(default=None, compare=False)
    container: str = ""       # for an op step: the class whose forward ran it

    @property
    def name(self) -> str:
        """'features.2 (Conv2d)', or '3 (Sum: add)' for an op in a container's forward."""
        layer = f"{self.container}: {self.layer}" if self.container else self.layer
        return context.layer_name(self.path, layer)

    @property
    def failed(self) -> bool:
        return self.error is not None


@dataclass(frozen=True)
class ShapeTrace:
    """Every step's shapes up to the end or to the first mismatch (then ``error``)."""

    model: str
    input_shapes: tuple
    steps: tuple
    output_shape: tuple | None
    error: ShapeError | None = field(default=None, compare=False)
    input_dtype: np.dtype | None = field(default=None, compare=False)  # of the walked inputs

    @property
    def ok(self) -> bool:
        return self.error is None

    def raise_error(self) -> "ShapeTrace":
        """Raise the recorded ShapeError, if any (infer_shapes itself never raises it)."""
        if self.error is not None:
            raise self.error
        return self

    def __len__(self):
        return len(self.steps)

    def __iter__(self):
        return iter(self.steps)

    def __getitem__(self, i):
        return self.steps[i]

    def __str__(self):
        rows = [(str(s.index + 1), s.name, " ".join(fmt_shape(x) for x in s.input_shapes),
                 fmt_shape(s.output_shape) if s.output_shape is not None else "FAILED")
                for s in self.steps]
        head = ("#", "layer", "input", "output")
        widths = [max(len(r[i]) for r in rows + [head]) for i in range(4)]
        lines = [f"shape trace of {self.model} on input "
                 f"{', '.join(fmt_shape(s) for s in self.input_shapes)}",
                 "  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip()]
        for r, s in zip(rows, self.steps):
            lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
            lines.extend(" " * (widths[0] + 2) + "  " + f for f in s.formula)
        if self.error is not None:
            lines += ["", f"{type(self.error).__name__}: {self.error}"]
        else:
            lines.append(f"output {fmt_shape(self.output_shape)}")
        return "\n".join(lines)

    def __repr__(self):
        state = "ok" if self.ok else f"failed at step {len(self.steps)}"
        return f"<ShapeTrace of {self.model}: {len(self.steps)} steps, {state}>"

    def _repr_html_(self):
        """The table as plain HTML (colours belong to the widgets: ShapeStepper)."""
        rows = []
        for s in self.steps:
            out = fmt_shape(s.output_shape) if s.output_shape is not None else "<b>FAILED</b>"
            formula = "<br>".join(html.escape(f) for f in s.formula)
            rows.append(f"<tr><td>{s.index + 1}</td><td><code>{html.escape(s.name)}</code></td>"
                        f"<td>{' '.join(fmt_shape(x) for x in s.input_shapes)}</td>"
                        f"<td>{out}</td><td>{formula}</td></tr>")
        tail = "" if self.error is None else f"<pre>{html.escape(str(self.error))}</pre>"
        return ("<table><tr><th>#</th><th>layer</th><th>input</th><th>output</th>"
                "<th>formula</th></tr>" + "".join(rows) + "</table>" + tail)


def check_model(model, where: str) -> None:
    """Refuse what is not a built model: the class itself (``Net`` for ``Net()``), a function."""
    from ..nn.module import Module  # nn is the floor below; loaded only when inspecting

    if isinstance(model, Module):
        return
    if isinstance(model, type) and issubclass(model, Module):
        raise ArgumentError(message(
            f"got the class {model.__name__}, not a model built from it.", where=where,
            hint=f"build it first: {where}({model.__name__}(), ...) (with its arguments)."))
    raise ArgumentError(message(
        f"needs a model (an nn.Module), got {type(model).__name__}.", where=where,
        hint="wrap a function in a module, or pass the model you call: "
        f"{where}(model, ...)."))


def _as_shapes(input_shape, where="nb.infer_shapes") -> list[tuple]:
    """(10, 3, 16, 8) -> [(10, 3, 16, 8)];  [(4, 5), (4, 3)] -> two inputs."""
    if isinstance(input_shape, Tensor):
        return [input_shape.shape]
    items = list(input_shape)
    if items and all(isinstance(s, (tuple, list, Tensor)) for s in items):
        return [tuple(s.shape) if isinstance(s, Tensor) else tuple(s) for s in items]
    if not all(isinstance(s, (int, np.integer)) and s >= 0 for s in items):
        raise InputError(message(
            f"input_shape must be a tuple of sizes like (10, 3, 16, 8), got {input_shape!r}.",
            where=where,
            hint="give the full input shape including the batch dimension; for several "
            "inputs, a list of shapes."))
    return [tuple(int(s) for s in items)]


class _Tracer(context.Observer):
    """Collects steps from module-call and op events during a shape-only forward."""

    meta = True  # ops run their shape rules only

    def __init__(self, model):
        self.model = model
        self.steps: list[ShapeStep] = []
        self.calls: list[dict] = []   # modules running now: their inputs and collected ops

    def module_started(self, module, path, inputs):
        # A layer is a module without children, or whose only child is its
        # ``parametrizations`` (nn.utils.parametrize: the weight computed at each call).
        # What a layer calls inside (its parametrizations) is part of its one step.
        enclosing = self.calls[-1] if self.calls else None
        inside = enclosing is not None and enclosing["owner"]["leaf"]
        call = {"module": module, "path": path, "inputs": inputs, "formula": [],
                "mult_adds": 0, "leaf": set(module._modules) <= {"parametrizations"},
                "inside": inside}
        call["owner"] = enclosing["owner"] if inside else call
        self.calls.append(call)

    def module_ended(self, module, path, inputs, output):
        call = self.calls.pop()
        if call["inside"]:
            return
        if call["leaf"] or len(self.calls) == 0 and not self.steps:
            self.add_layer_step(call, output)

    def op_ran(self, op, inputs, out):
        call = self.calls[-1]["owner"] if self.calls else None
        formula = tuple(op.formula(*inputs)) if hasattr(op, "formula") else ()
        macs = cost.mult_adds(op, inputs, out.shape)
        if call is not None and call["leaf"]:
            call["formula"].extend(formula)
            call["mult_adds"] += macs
            return
        path = call["path"] if call is not None else ""
        self.steps.append(ShapeStep(
            index=len(self.steps), path=path, layer=op.name,
            input_shapes=tuple(tuple(t.shape) for t in inputs), output_shape=tuple(out.shape),
            formula=formula, mult_adds=macs, depth=max(len(self.calls) - 1, 0), kind="op",
            container=type(call["module"]).__name__ if call is not None else ""))

    def add_layer_step(self, call, output):
        module = call["module"]
        params = list(module.parameters())
        self.steps.append(ShapeStep(
            index=len(self.steps), path=call["path"], layer=type(module).__name__,
            input_shapes=_shapes_of(call["inputs"]), output_shape=_shape_of(output),
            params=sum(p.numel() for p in params),
            trainable=any(p.requires_grad for p in params) if params else False,
            formula=tuple(_layer_formula(module, call)), mult_adds=call["mult_adds"],
            depth=max(len(self.calls) - 1, 0)))

    def add_error_step(self, err: ShapeError) -> ShapeError:
        """Record the failing layer and return the error, with a pointer to the producer."""
        call = self.calls[-1] if self.calls else None
        inputs = _shapes_of(call["inputs"]) if call else ()
        path = call["path"] if call else ""
        layer = type(call["module"]).__name__ if call else type(self.model).__name__
        inside = path + "." if path else ""
        producer = next((s for s in reversed(self.steps)   # not a layer inside this one
                         if s.output_shape is not None and s.output_shape in inputs
                         and not (inside and s.path.startswith(inside))), None)
        if producer is not None and producer.path != path and producer.name not in str(err):
            text = (f"{err}\n  the input {fmt_shape(producer.output_shape)} comes from step "
                    f"{producer.index + 1}, {producer.name}: change that layer or this one so "
                    "the two agree.")
            new = type(err)(text)
            new.__cause__ = err
            err = new
        self.steps.append(ShapeStep(
            index=len(self.steps), path=path, layer=layer, input_shapes=inputs,
            output_shape=None, depth=max(len(self.calls) - 2, 0), kind="error", error=err))
        return err


def _layer_formula(module, call) -> list:
    """The layer's own account of its shapes (a recurrent layer's per-step shapes and
    states, which its ops alone do not tell), else its ops' formulas."""
    inputs = call["inputs"]
    if inputs and _is_packed(inputs[0]) and hasattr(module, "packed_shape_formula"):
        return module.packed_shape_formula(inputs[0])
    if hasattr(module, "shape_formula"):
        return module.shape_formula(_shapes_of(inputs))
    return call["formula"]


def _is_packed(x) -> bool:
    from ..nn.utils.rnn import PackedSequence  # nn is the floor below

    return isinstance(x, PackedSequence)


def _shape_of(x):
    """The shape of an output: a tensor's, a packed batch's data's, or its first part's
    ((output, h_n) of a recurrent layer)."""
    if isinstance(x, Tensor):
        return tuple(x.shape)
    if isinstance(x, (tuple, list)) and x and (isinstance(x[0], Tensor) or _is_packed(x[0])):
        return _shape_of(x[0])
    return None


def _shapes_of(inputs) -> tuple:
    """The inputs' shapes: of tensors, and of a packed batch's data (N, C)."""
    return tuple(tuple(t.data.shape if _is_packed(t) else t.shape) for t in inputs
                 if isinstance(t, Tensor) or _is_packed(t))


def infer_shapes(model, input_shape, dtype=None) -> ShapeTrace:
    """Walk ``model`` on an input of ``input_shape`` using shape rules only.

    Returns a :class:`ShapeTrace`; a mismatch stops the walk and is kept in
    ``trace.error`` (call ``trace.raise_error()`` to raise it).  Nothing is
    allocated, so (1000, 3, 4096, 2048) costs as little as (1, 3, 8, 8); the
    model's parameters, buffers and training flag are left untouched.
    """
    return trace_shapes(model, input_shape, dtype, "nb.infer_shapes")


def input_dtype(model):
    """What the model reads: token indices (int64) if its first layer is an embedding,
    else its parameters' float dtype (a .double() model gets float64 inputs).

    The first layer registered is a guess at the first one called: trace_shapes walks
    again on indices when the walk stops at once in an embedding handed floats."""
    first = next((m for m in model.modules() if not list(m.children())), None)
    if first is not None and hasattr(first, "num_embeddings"):
        return np.dtype(np.int64)
    return next((p.dtype for p in model.parameters()), dtypes.default_float())


def trace_shapes(model, input_shape, dtype, where: str) -> ShapeTrace:
    """infer_shapes, with ``where`` naming the function the user called in messages."""
    check_model(model, where)
    shapes = _as_shapes(input_shape, where)
    if dtype is not None:
        return _walk(model, shapes, dtypes.numpy_dtype(dtype, where))
    trace = _walk(model, shapes, input_dtype(model))
    if trace.input_dtype.kind == "f" and _stopped_in_an_embedding(model, trace):
        # an embedding is called first though another layer was registered before it
        trace = _walk(model, shapes, np.dtype(np.int64))
    return trace


def _stopped_in_an_embedding(model, trace) -> bool:
    """True if the walk failed at its first step, in an embedding (it read floats)."""
    if len(trace.steps) != 1 or not trace.steps[0].failed:
        return False
    modules = dict(model.named_modules(remove_duplicate=False))
    return hasattr(modules.get(trace.steps[0].path), "num_embeddings")


def _walk(model, shapes, dtype) -> ShapeTrace:
    """Run the model's forward on meta tensors of ``shapes`` and ``dtype``, recording."""
    inputs = [meta_tensor(s, dtype) for s in shapes]
    tracer = _Tracer(model)
    error, output = None, None
    try:
        with context.no_grad(), context.watching(tracer):
            output = model(*inputs)
    except NnbookError as err:  # a mistake in the model: shapes, dtypes, arguments
        error = tracer.add_error_step(err)
    return ShapeTrace(model=type(model).__name__, input_shapes=tuple(shapes),
                      steps=tuple(tracer.steps), output_shape=_shape_of(output), error=error,
                      input_dtype=np.dtype(dtype))
