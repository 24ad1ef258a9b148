"""Records of a real pass: module calls, the graph of ops, backward steps, gradient statistics.

Everything here is plain, frozen data with text and HTML reprs; the widgets only
draw it.  Recording is opt-in:

    with nb.inspect.record(model) as rec:
        loss = criterion(model(x), y)
        loss.backward()
    rec.calls, rec.graph, rec.backward, rec.gradients

and :func:`trace_backward` replays a loss's backward without touching ``.grad``.
"""
from __future__ import annotations

import contextlib
import html
from dataclasses import dataclass, field

import numpy as np

from .. import context
from ..autograd import engine
from ..errors import describe_frame, fmt_shape
from ..tensor import Tensor, gradients
from .shapes import check_model

# --------------------------------------------------------------------------
# The records
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class ModuleCall:
    path: str
    layer: str
    input_shapes: tuple
    output_shape: tuple | None
    depth: int

    @property
    def name(self):
        return context.layer_name(self.path, self.layer)


@dataclass(frozen=True)
class OpNode:
    """One op of the graph: its inputs are other nodes' ids or named leaves."""

    id: int
    op: str
    layer: str | None           # 'features.2 (Conv2d)' or None outside any module
    input_shapes: tuple
    output_shape: tuple
    inputs: tuple               # per input: ("node", id) or ("leaf", name) or ("const", "")
    site: str | None            # the user's source line that created it
    out: np.ndarray | None = field(default=None, repr=False, compare=False)
    input_names: tuple = ()     # the op's names for its inputs ('x', 'weight', 'bias')
    # per input: the array of a leaf or constant input (kept with ``out``), else None
    input_values: tuple = field(default=(), repr=False, compare=False)


@dataclass(frozen=True)
class BackwardStep:
    """What one node did during backward, in the engine's order."""

    order: int
    node: int                   # OpNode.id
    op: str
    layer: str | None
    dout: np.ndarray = field(repr=False, compare=False)
    grads: tuple = field(repr=False, compare=False)   # per input: array or None
    dout_norm: float = 0.0
    grad_norms: tuple = ()      # per input: float or None


@dataclass(frozen=True)
class GradStats:
    """Statistics of one parameter's gradient."""

    path: str
    shape: tuple
    norm: float
    mean: float
    max_abs: float
    zero_fraction: float
    has_grad: bool

    @classmethod
    def of(cls, path, param):
        g = param.grad
        if g is None:
            return cls(path, tuple(param.shape), 0.0, 0.0, 0.0, 1.0, False)
        d = g._array.astype(np.float64)
        return cls(path, tuple(param.shape), float(np.sqrt((d * d).sum())),
                   float(d.mean()) if d.size else 0.0,
                   float(np.abs(d).max()) if d.size else 0.0,
                   float((d == 0).mean()) if d.size else 1.0, True)


def gradient_stats(model) -> tuple:
    """GradStats of every parameter of ``model``, by path, in registration order."""
    check_model(model, "nb.inspect.gradient_stats")
    return tuple(GradStats.of(path, p) for path, p in model.named_parameters())


def _stats_table(stats) -> list[str]:
    lines = [f"  {'parameter':<28} {'shape':<16} {'norm':>10} {'mean':>10} {'max |g|':>10} "
             f"{'zeros':>6}"]
    for s in stats:
        if not s.has_grad:
            lines.append(f"  {s.path:<28} {fmt_shape(s.shape):<16} {'no gradient':>10}")
        else:
            lines.append(f"  {s.path:<28} {fmt_shape(s.shape):<16} {s.norm:>10.3g} "
                         f"{s.mean:>10.3g} {s.max_abs:>10.3g} {s.zero_fraction:>6.0%}")
    return lines


@dataclass(frozen=True)
class BackwardTrace:
    """The graph behind a tensor and what each node did in backward, in engine order."""

    graph: tuple
    steps: tuple
    leaf_grads: tuple = ()      # (name, shape, array) for every leaf that got a gradient

    def node(self, node_id) -> OpNode:
        return next(n for n in self.graph if n.id == node_id)

    def __str__(self):
        lines = [f"backward through {len(self.graph)} op(s), in the engine's order "
                 "(step 1 runs first):"]
        for s in self.steps:
            norms = ", ".join("--" if n is None else f"{n:.3g}" for n in s.grad_norms)
            where = f" in {s.layer}" if s.layer else ""
            lines.append(f"  {s.order + 1:>3}. {s.op}{where}: |dout| = {s.dout_norm:.3g} -> "
                         f"|grad| per input = [{norms}]")
        return "\n".join(lines)

    def __repr__(self):
        return f"<BackwardTrace: {len(self.graph)} ops, {len(self.steps)} steps>"

    def _repr_html_(self):
        return f"<pre>{html.escape(str(self))}</pre>"


@dataclass(frozen=True)
class Recording:
    """Everything recorded inside ``with nb.inspect.record(model):``."""

    calls: tuple
    graph: tuple
    backward: tuple
    gradients: tuple            # GradStats per parameter after the block (model given)

    def __str__(self):
        lines = [f"{len(self.calls)} module call(s):"]
        for c in self.calls:
            ins = " ".join(fmt_shape(s) for s in c.input_shapes)
            out = fmt_output_shape(c.output_shape)
            lines.append(f"  {'  ' * c.depth}{c.name}: {ins} -> {out}")
        lines.append(f"{len(self.graph)} op(s) in the graph, {len(self.backward)} backward step(s)")
        if self.gradients:
            lines += ["gradients:", *_stats_table(self.gradients)]
        return "\n".join(lines)

    def __repr__(self):
        return (f"<Recording: {len(self.calls)} calls, {len(self.graph)} ops, "
                f"{len(self.backward)} backward steps>")

    def _repr_html_(self):
        return f"<pre>{html.escape(str(self))}</pre>"


# --------------------------------------------------------------------------
# Recording
# --------------------------------------------------------------------------

class _Recorder(context.Observer):
    def __init__(self, model, keep_values: bool, sites: bool):
        self.model = model
        self.keep_values, self.sites = keep_values, sites
        self.calls, self.depth = [], 0
        self.nodes: dict[int, OpNode] = {}     # id(op) -> node
        self.steps: list[BackwardStep] = []
        self.leaf_names = _leaf_names(model)

    def module_started(self, module, path, inputs):
        self.depth += 1

    def module_ended(self, module, path, inputs, output):
        self.depth -= 1
        self.calls.append(ModuleCall(path, type(module).__name__,
                                     tuple(tuple(t.shape) for t in inputs if isinstance(t, Tensor)),
                                     _out_shape(output), self.depth))

    @property
    def wants_sites(self):
        return self.sites

    def op_ran(self, op, inputs, out):
        site = op.__dict__.get("site") if self.sites else None
        layer = context.current_layer()
        self.nodes[id(op)] = node_of(op, inputs, out, len(self.nodes), self.leaf_names,
                                     self.nodes, keep=out._array if self.keep_values else None,
                                     layer=layer, site=site)

    def backward_step(self, op, grad_out, grads):
        node = self.nodes.get(id(op))
        self.steps.append(_step(len(self.steps), node.id if node else -1, op, grad_out, grads))

    def result(self) -> Recording:
        stats = gradient_stats(self.model) if self.model is not None else ()
        return Recording(tuple(self.calls), tuple(self.nodes.values()), tuple(self.steps), stats)


def _out_shape(output):
    """A tensor's shape; for a tuple or list of outputs (an LSTM's (output, (h_n, c_n))),
    the same structure of shapes; None for anything else."""
    if isinstance(output, Tensor):
        return tuple(output.shape)
    if isinstance(output, (tuple, list)):
        return tuple(_out_shape(part) for part in output)
    return None


def _is_shape(shape) -> bool:
    return isinstance(shape, tuple) and all(isinstance(s, int) for s in shape)


def fmt_output_shape(shape) -> str:
    """(7, 3, 20), or ((7, 3, 20), ((2, 3, 20), (2, 3, 20))) for several outputs."""
    if shape is None:
        return "?"
    if _is_shape(shape):
        return fmt_shape(shape)
    return "(" + ", ".join(fmt_output_shape(part) for part in shape) + ")"


def _layer_text(op):
    layer = getattr(op, "layer", None)
    return context.layer_name(*layer) if layer else None


class _LeafNames(dict):
    """id(tensor) -> a name: parameter paths from a model (or the keys of a dict of
    tensors); every other leaf that requires grad gets 'input 0', 'input 1', ...,
    so two different tensors never share a name."""

    def __init__(self, model):
        super().__init__()
        if isinstance(model, dict):
            for name, t in model.items():
                self.setdefault(id(t), name)
        elif model is not None:
            for path, p in model.named_parameters():
                self.setdefault(id(p), path)
            for path, b in model.named_buffers():
                self.setdefault(id(b), path)
        self.unnamed = 0

    def leaf(self, t) -> str:
        name = self.get(id(t))
        if name is None:
            name = self[id(t)] = f"input {self.unnamed}"
            self.unnamed += 1
        return name


def _leaf_names(model) -> _LeafNames:
    return _LeafNames(model)


def node_of(op, inputs, out, index, leaf_names, nodes, keep=None, parents=None, layer=None,
            site=None) -> OpNode:
    refs = []
    parents = parents if parents is not None else [t.grad_fn for t in inputs]
    for t, parent in zip(inputs, parents):
        if parent is not None and id(parent) in nodes:
            refs.append(("node", nodes[id(parent)].id))
        elif parent is None and t.requires_grad:
            refs.append(("leaf", leaf_names.leaf(t)))
        else:
            refs.append(("const", leaf_names.get(id(t), "")))
    if site is None and op.__dict__.get("site"):
        site = op.site
    values = tuple(None if kind == "node" else t._array for t, (kind, _) in zip(inputs, refs)) \
        if keep is not None else ()
    return OpNode(index, op.name, layer or _layer_text(op), tuple(tuple(t.shape) for t in inputs),
                  tuple(out.shape), tuple(refs), describe_frame(*site) if site else None,
                  keep, tuple(op.input_names(len(inputs))), values)


def _norm(a):
    return None if a is None else float(np.sqrt(np.sum(np.asarray(a, dtype=np.float64) ** 2)))


def _step(order, node_id, op, grad_out, grads) -> BackwardStep:
    grads = tuple(None if g is None else np.array(g) for g in grads)
    return BackwardStep(order, node_id, op.name, _layer_text(op), np.array(grad_out), grads,
                        _norm(grad_out), tuple(_norm(g) for g in grads))


@contextlib.contextmanager
def record(model=None, keep_values: bool = False, sites: bool = True):
    """Record module calls, the op graph and backward steps made inside the block.

    ``model`` (optional) names leaf tensors by parameter path and adds gradient
    statistics at the end; ``keep_values`` keeps each op's output array;
    ``sites`` remembers the user's source line of each op (a little slower).
    The yielded object becomes a :class:`Recording` when the block ends: use
    ``rec.result`` inside the block, or the attributes after it.
    """
    recorder = _Recorder(model, keep_values, sites)
    holder = _RecordingHolder()
    try:
        with context.watching(recorder):
            yield holder
    finally:
        holder._set(recorder.result())


class _RecordingHolder:
    """Stands in for the Recording until the ``with`` block ends."""

    def __init__(self):
        self._rec = None

    def _set(self, rec):
        self._rec = rec

    def __getattr__(self, name):
        rec = self.__dict__.get("_rec")
        if rec is None:
            raise AttributeError(f"the recording is complete only after the with block; "
                                 f"'{name}' is not available yet")
        return getattr(rec, name)

    def __str__(self):
        return str(self._rec) if self._rec else "<recording in progress>"

    def __repr__(self):
        return repr(self._rec) if self._rec else "<recording in progress>"

    def _repr_html_(self):
        return self._rec._repr_html_() if self._rec else ""


def trace_backward(root: Tensor, model=None, gradient=None) -> BackwardTrace:
    """Replay the backward of ``root`` step by step without touching any ``.grad``.

    ``model`` names the leaves: a Module (parameter paths) or a dict {name: tensor}.
    The graph is kept (``retain_graph``), so ``root.backward()`` still works after.

    The graph comes from the tensors themselves, so ``out`` of every node is
    there (each node's output is held by the node that consumes it).
    """
    if root.grad_fn is None:
        if not root.requires_grad:  # no graph behind it: the error backward() would give
            gradients([root], [gradient], where="nb.inspect.trace_backward")
        return BackwardTrace((), ())  # a leaf: nothing to replay
    order = engine.topological_order([root.grad_fn])
    outputs = {id(root.grad_fn): root}
    for op in order:
        for t, parent in zip(op.inputs, op.parents):
            if parent is not None:
                outputs.setdefault(id(parent), t)
    leaf_names = _leaf_names(model)
    nodes: dict[int, OpNode] = {}
    for op in order:
        out = outputs[id(op)]
        nodes[id(op)] = node_of(op, op.inputs, out, len(nodes), leaf_names, nodes,
                                keep=out._array, parents=op.parents)
    steps = _StepCollector(nodes)
    with context.watching(steps):
        found = gradients([root], [gradient], retain_graph=True,
                          where="nb.inspect.trace_backward")
    leaves, seen = [], set()
    for op in order:
        for t, parent in zip(op.inputs, op.parents):
            if parent is None and id(t) in found and id(t) not in seen and \
                    found[id(t)][1] is not None:
                seen.add(id(t))
                leaves.append((leaf_names.leaf(t), tuple(t.shape), found[id(t)][1]))
    return BackwardTrace(tuple(nodes.values()), tuple(steps.steps), tuple(leaves))


class _StepCollector(context.Observer):
    def __init__(self, nodes):
        self.nodes, self.steps = nodes, []

    def backward_step(self, op, grad_out, grads):
        self.steps.append(_step(len(self.steps), self.nodes[id(op)].id, op, grad_out, grads))


class GradientHistory:
    """Gradient statistics per parameter path over training steps.

        history = nb.inspect.GradientHistory(model)
        for step in range(100):
            ...; loss.backward(); history.record(); optimizer.step()
        history.series("0.weight", "norm")

    Costs nothing until ``record()`` is called, once per step.
    """

    def __init__(self, model):
        check_model(model, "nb.inspect.GradientHistory")
        self.model = model
        self.steps: list[int] = []
        self.stats: list[tuple] = []

    def record(self, step: int | None = None) -> tuple:
        stats = gradient_stats(self.model)
        self.steps.append(len(self.steps) if step is None else int(step))
        self.stats.append(stats)
        return stats

    @property
    def paths(self) -> list[str]:
        return [s.path for s in self.stats[-1]] if self.stats else \
            [p for p, _ in self.model.named_parameters()]

    def series(self, path: str, stat: str = "norm") -> np.ndarray:
        """One statistic of one parameter over the recorded steps."""
        return np.array([next(getattr(s, stat) for s in step if s.path == path)
                         for step in self.stats])

    def __len__(self):
        return len(self.stats)

    def __repr__(self):
        return f"<GradientHistory: {len(self.stats)} steps, {len(self.paths)} parameters>"

    def __str__(self):
        if not self.stats:
            return "GradientHistory: nothing recorded yet (call record() after backward)"
        return "\n".join([f"GradientHistory, step {self.steps[-1]} of {len(self.stats)}:",
                          *_stats_table(self.stats[-1])])
