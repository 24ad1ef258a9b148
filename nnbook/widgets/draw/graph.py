"""Drawing the computational graph of a BackwardTrace as a layered DAG (no Graphviz).

The layout is the classic layered one, kept small:

1. layers: every op sits one below its deepest input (longest path from the leaves);
   a leaf (parameter, input) sits just above the first op that reads it;
2. an edge that skips layers gets invisible "dummy" points, one per layer it crosses,
   so it can bend around nodes instead of through them;
3. order within each layer: a few sweeps of the barycentre rule (a node moves to the
   mean position of its neighbours in the layer above, then below), keeping the
   order with the fewest crossings;
4. x coordinates: each node pulled towards its neighbours, keeping a minimum gap.

Forward runs from top to bottom; backward climbs back up.  Forward values are blue,
gradients purple, the current node is outlined in dark purple.
"""
from __future__ import annotations

import inspect as pyinspect
from dataclasses import dataclass

import numpy as np
from matplotlib.artist import Artist
from matplotlib.collections import LineCollection, PatchCollection
from matplotlib.patches import FancyBboxPatch

from ...inspect.params import FORWARD_COLOR, GRADIENT_COLOR, MUTED_COLOR

FONT = 10.5
FORWARD_FILL = "#e3eefa"
GRADIENT_FILL = "#eadcf2"
CURRENT_FILL = "#c9a6dc"
CURRENT_EDGE = "#4a148c"
CONST_FILL = "#f2f2f2"
EDGE_COLOR = "#90a4c0"

# Layout units: x in inches at the intended size (UNIT_IN), y in layers (LAYER_IN each).
UNIT_IN, LAYER_IN = 1.0, 0.62
NODE_H = 0.64                 # box height, in layers
CHAR_W = 0.094                # width of one character at FONT, in x units (bold, generous)
DUMMY_W, GAP = 0.12, 0.22


# --------------------------------------------------------------------------
# From the record to a plain graph
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class GraphNode:
    key: tuple          # ("op", id) / ("leaf", name) / ("const", index)
    kind: str           # "op", "leaf" or "const"
    title: str          # op name, parameter path, "input"
    shape: tuple

    @property
    def label(self) -> str:
        return f"{self.title}\n{compact_shape(self.shape)}"

    @property
    def width(self) -> float:
        """Box width in x units: wide enough for the longer line of the label."""
        return max(0.8, CHAR_W * max(len(line) for line in self.label.split("\n")) + 0.16)


def compact_shape(shape) -> str:
    """(10, 512, 8, 4) -> '10×512×8×4'; () -> 'scalar'."""
    return "×".join(str(int(s)) for s in shape) if len(shape) else "scalar"


def graph_parts(trace):
    """(nodes, edges) of a BackwardTrace; an edge is (source key, op key, input index).

    Each named leaf is one node however many ops read it (a shared parameter shows
    as one leaf with several edges); each unnamed constant is its own node.
    """
    nodes, edges, seen = [], [], set()
    for node in trace.graph:
        for index, ((kind, ref), shape) in enumerate(zip(node.inputs, node.input_shapes)):
            if kind == "node":
                key = ("op", ref)
            elif kind == "leaf" or ref:
                key = ("leaf", ref)
                if key not in seen:
                    seen.add(key)
                    nodes.append(GraphNode(key, "leaf" if kind == "leaf" else "const", ref,
                                           tuple(shape)))
            else:
                key = ("const", f"{node.id}.{index}")
                nodes.append(GraphNode(key, "const", "input" if index == 0 else "const",
                                       tuple(shape)))
            edges.append((key, ("op", node.id), index))
        layer = node_layer(node)
        title = f"{node.op} ({layer.split(' (')[0]})" if layer else node.op
        nodes.append(GraphNode(("op", node.id), "op", title, tuple(node.output_shape)))
    return nodes, edges


def node_layer(node) -> str | None:
    """The layer an op belongs to: recorded, or read off its parameters' paths."""
    if node.layer:
        return node.layer
    owners = {ref.rsplit(".", 1)[0] for kind, ref in node.inputs if kind == "leaf" and "." in ref}
    return owners.pop() if len(owners) == 1 else None


def argument_names(op_name: str, count: int) -> list[str]:
    """Names of an op's forward inputs, read from its ``forward`` signature (x, weight, bias)."""
    from ...ops.base import Op

    stack, found = list(Op.__subclasses__()), None
    while stack and found is None:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.__dict__.get("name") == op_name and "forward" in cls.__dict__:
            found = cls
    names = []
    if found is not None:
        params = list(pyinspect.signature(found.forward).parameters.values())[1:]
        names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                      p.POSITIONAL_OR_KEYWORD)]
    if len(names) < count:  # a custom rule, or an op with *inputs
        return ["x"] if count == 1 else [f"input{i}" for i in range(count)]
    return names[:count]


# --------------------------------------------------------------------------
# Layout
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class GraphLayout:
    positions: dict     # node key -> (x, y); y = -layer
    routes: dict        # (source, target, index) -> [(x, y), ...] through the dummy points
    layers: dict        # node key -> layer number (0 at the top)
    width: float        # extent in x (layout units)
    depth: int          # number of layers


def layered_layout(nodes, edges, widths=None, sweeps: int = 6) -> GraphLayout:
    """Positions for a DAG: ``nodes`` are keys, ``edges`` (source, target[, tag]) tuples,
    ``widths`` (optional) node key -> box width, so wide boxes keep their distance."""
    nodes = list(nodes)
    widths = dict(widths or {})
    edges = [tuple(e) if len(e) == 3 else (e[0], e[1], i) for i, e in enumerate(edges)]
    preds = {n: [] for n in nodes}
    succs = {n: [] for n in nodes}
    for u, v, _ in edges:
        preds[v].append(u)
        succs[u].append(v)
    layer = _longest_path_layers(nodes, preds, succs)

    # Dummy points for edges that skip layers; `adjacent` links consecutive layers only.
    rank_nodes = {n: [] for n in range(max(layer.values(), default=0) + 1)}
    for n in nodes:
        rank_nodes[layer[n]].append(n)
    up = {n: [] for n in nodes}
    down = {n: [] for n in nodes}
    chains = {}
    for u, v, tag in edges:
        chain = [u] + [("dummy", u, v, tag, k) for k in range(layer[u] + 1, layer[v])] + [v]
        for k, d in enumerate(chain[1:-1]):
            rank_nodes[layer[u] + 1 + k].append(d)
            up[d], down[d] = [], []
        for a, b in zip(chain, chain[1:]):
            down[a].append(b)
            up[b].append(a)
        chains[(u, v, tag)] = chain

    order = _order_layers(rank_nodes, up, down, sweeps)
    xs = _coordinates(order, up, down, widths)
    positions = {n: (xs[n], -float(layer[n])) for n in nodes}
    routes = {}
    for edge, chain in chains.items():
        routes[edge] = [(xs[d], -float(layer[chain[0]] + k)) for k, d in enumerate(chain)]
    left = min((xs[n] - widths.get(n, 1.0) / 2 for n in nodes), default=0.0)
    right = max((xs[n] + widths.get(n, 1.0) / 2 for n in nodes), default=0.0)
    return GraphLayout(positions, routes, dict(layer), right - left, len(order))


def _longest_path_layers(nodes, preds, succs) -> dict:
    layer, remaining = {}, {n: len(preds[n]) for n in nodes}
    ready = [n for n in nodes if not preds[n]]
    topo = []
    while ready:
        n = ready.pop(0)
        topo.append(n)
        layer[n] = 1 + max((layer[p] for p in preds[n]), default=-1)
        for s in succs[n]:
            remaining[s] -= 1
            if remaining[s] == 0:
                ready.append(s)
    if len(topo) != len(nodes):
        raise ValueError("layered_layout needs a graph without cycles")
    for n in topo:  # sources move down to just above their first reader
        if not preds[n] and succs[n]:
            layer[n] = min(layer[s] for s in succs[n]) - 1
    shift = min(layer.values(), default=0)
    return {n: layer[n] - shift for n in layer}


def _order_layers(rank_nodes, up, down, sweeps):
    order = [list(rank_nodes[r]) for r in sorted(rank_nodes)]
    best, best_crossings = [list(o) for o in order], _crossings(order, down)
    for sweep in range(sweeps):
        downwards = sweep % 2 == 0
        ranks = range(1, len(order)) if downwards else range(len(order) - 2, -1, -1)
        for r in ranks:
            ref = order[r - 1] if downwards else order[r + 1]
            pos = {n: i for i, n in enumerate(ref)}
            neighbours = up if downwards else down
            scale = len(ref) / max(len(order[r]), 1)

            def bary(item, pos=pos, neighbours=neighbours, scale=scale):
                i, n = item  # a node with no neighbours there keeps its relative place
                linked = [pos[m] for m in neighbours[n] if m in pos]
                return sum(linked) / len(linked) if linked else i * scale
            order[r] = [n for _, n in sorted(enumerate(order[r]), key=bary)]
        crossings = _crossings(order, down)
        if crossings < best_crossings:
            best, best_crossings = [list(o) for o in order], crossings
    return best


def _crossings(order, down) -> int:
    total = 0
    for upper, lower in zip(order, order[1:]):
        pos = {n: i for i, n in enumerate(lower)}
        pairs = [(i, pos[m]) for i, n in enumerate(upper) for m in down[n] if m in pos]
        for a in range(len(pairs)):
            for b in range(a + 1, len(pairs)):
                (i1, j1), (i2, j2) = pairs[a], pairs[b]
                if (i1 - i2) * (j1 - j2) < 0:
                    total += 1
    return total


def _coordinates(order, up, down, widths, rounds: int = 12) -> dict:
    def width(n):
        return DUMMY_W if n[0] == "dummy" else widths.get(n, 1.0)

    xs, gaps = {}, []
    for row in order:  # packed and centred to start with
        gap = [(width(a) + width(b)) / 2 + GAP for a, b in zip(row, row[1:])]
        offsets = np.concatenate([[0.0], np.cumsum(gap)])
        for n, x in zip(row, offsets - offsets[-1] / 2):
            xs[n] = float(x)
        gaps.append(offsets)
    for k in range(rounds):  # each node towards the mean of its neighbours, in order
        for r in (range(len(order)) if k % 2 == 0 else range(len(order) - 1, -1, -1)):
            row = order[r]
            wanted = np.array([np.mean([xs[m] for m in up[n] + down[n]]) if up[n] + down[n]
                               else xs[n] for n in row])
            placed = _nearest_in_order(wanted, gaps[r])
            for n, x in zip(row, placed):
                xs[n] = float(x)
    return xs


def _nearest_in_order(wanted, offsets):
    """x closest to ``wanted`` (least squares) with x[i+1] - x[i] >= the gap between them.

    With y = x - offsets the constraint is y non-decreasing: isotonic regression, solved
    by pooling adjacent violators.
    """
    target = wanted - offsets
    blocks = []  # [mean, count]
    for t in target:
        blocks.append([t, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, c2 = blocks.pop()
            m1, c1 = blocks.pop()
            blocks.append([(m1 * c1 + m2 * c2) / (c1 + c2), c1 + c2])
    y = np.concatenate([[m] * c for m, c in blocks])
    return y + offsets


# --------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------

def graph_layout(trace) -> tuple:
    """(nodes, edges, layout) of a trace; the widget keeps it between steps."""
    nodes, edges = graph_parts(trace)
    return nodes, edges, layered_layout([n.key for n in nodes], edges,
                                        {n.key: n.width for n in nodes})


def draw_graph(ax, trace, current: int | None = None, parts=None, labels: bool = True):
    """Draw ``trace``'s graph on ``ax``; ``current`` is the backward step shown (0-based;
    ``len(trace.steps)`` means backward is finished).  Returns a dict of the artists.

    Ops already done in backward are shaded purple and numbered in the engine's order,
    the current one is outlined; the edges to its inputs turn purple, labelled with the
    gradient each input receives.  ``labels=False`` leaves out the node labels (they
    never change, so a widget can draw them once: :func:`render_node_labels`).
    """
    nodes, edges, layout = parts if parts is not None else graph_layout(trace)
    steps = trace.steps
    current = len(steps) if current is None else current
    done = {("op", s.node) for s in steps[:current]}
    step = steps[current] if current < len(steps) else None
    now = ("op", step.node) if step else None
    got_grad = {u for u, v, _ in edges if v in done}
    pos = layout.positions

    # edges: forward ones thin, those into the current op purple and thick
    plain, hot = [], []
    for edge in edges:
        (hot if edge[1] == now else plain).append(layout.routes[edge])
    artists = {"edges": LineCollection(plain, colors=EDGE_COLOR, linewidths=1.3, zorder=1)}
    ax.add_collection(artists["edges"])
    if hot:
        artists["gradient_edges"] = LineCollection(hot, colors=GRADIENT_COLOR, linewidths=4,
                                                   zorder=2)
        ax.add_collection(artists["gradient_edges"])
    ends = [layout.routes[e][-1] for e in edges]
    artists["arrows"] = ax.scatter([x for x, _ in ends], [y + NODE_H / 2 + 0.05 for _, y in ends],
                                   marker="v", s=24, color=EDGE_COLOR, zorder=2)

    boxes, faces, edgecolors, widths, styles = [], [], [], [], []
    for n in nodes:
        x, y = pos[n.key]
        boxes.append(FancyBboxPatch((x - n.width / 2, y - NODE_H / 2), n.width, NODE_H,
                                    boxstyle="round,pad=0,rounding_size=0.08"))
        if n.key == now:
            faces.append(CURRENT_FILL), edgecolors.append(CURRENT_EDGE), widths.append(4)
        elif n.key in done or (n.kind == "leaf" and n.key in got_grad):
            faces.append(GRADIENT_FILL), edgecolors.append(GRADIENT_COLOR), widths.append(1.5)
        elif n.kind == "const":
            faces.append(CONST_FILL), edgecolors.append("#9e9e9e"), widths.append(1.0)
        else:
            faces.append("white" if n.kind == "op" else FORWARD_FILL)
            edgecolors.append(FORWARD_COLOR), widths.append(1.5)
        styles.append("--" if n.kind == "const" else "-")
    artists["nodes"] = PatchCollection(boxes, facecolors=faces, edgecolors=edgecolors,
                                       linewidths=widths, linestyles=styles, zorder=3)
    ax.add_collection(artists["nodes"])

    grads = []
    if step is not None:  # the gradient each input receives, just below that input
        for (u, v, index) in edges:
            if v != now:
                continue
            norm = step.grad_norms[index] if index < len(step.grad_norms) else None
            x, y = pos[u]  # just below the input that receives it
            y -= NODE_H / 2 + 0.17 + 0.3 * sum(1 for e in edges if e[0] == u and e[1] == now
                                               and e[2] < index)
            text = "no gradient" if norm is None else f"‖g‖ {norm:.3g}"
            grads.append(ax.text(x, y, text, ha="center", va="center", fontsize=FONT - 0.5,
                                 color=GRADIENT_COLOR, fontweight="bold", zorder=6,
                                 bbox=dict(boxstyle="round,pad=0.12", fc="white",
                                           ec=GRADIENT_COLOR, lw=1)))
    artists["gradients"] = grads
    if labels:
        artists["labels"] = draw_node_labels(ax, (nodes, edges, layout), backward_order(trace))
    frame_graph(ax, (nodes, edges, layout))
    return artists


def draw_node_labels(ax, parts, order=None) -> list:
    """The text in every box: op name (and layer) or leaf name, and the output shape;
    ``order`` (op key -> backward step, 0-based) numbers each op beside its box."""
    nodes, _, layout = parts
    texts = []
    for n in nodes:
        x, y = layout.positions[n.key]
        color = "black" if n.kind == "op" else MUTED_COLOR if n.kind == "const" \
            else FORWARD_COLOR
        texts.append(ax.text(x, y, n.label, ha="center", va="center", fontsize=FONT,
                             color=color, fontweight="bold" if n.kind == "op" else "normal",
                             linespacing=1.05, zorder=5))
        if order and n.key in order:
            texts.append(ax.text(x + n.width / 2 + 0.04, y + NODE_H / 2, str(order[n.key] + 1),
                                 ha="left", va="top", fontsize=FONT - 1.5,
                                 color=GRADIENT_COLOR, fontweight="bold", zorder=5))
    return texts


def backward_order(trace) -> dict:
    """op key -> its step in the engine's backward order (0-based)."""
    return {("op", s.node): s.order for s in trace.steps}


def frame_graph(ax, parts) -> None:
    """Axis limits that fit every box, and no axes lines."""
    nodes, _, layout = parts
    pos = layout.positions
    ax.set_xlim(min(pos[n.key][0] - n.width / 2 for n in nodes) - 0.1,
                max(pos[n.key][0] + n.width / 2 for n in nodes) + 0.3)
    ys = [p[1] for p in pos.values()]
    ax.set_ylim(min(ys) - NODE_H / 2 - 0.15, max(ys) + NODE_H / 2 + 0.1)
    ax.set_axis_off()


class PastedImage(Artist):
    """An RGBA image pasted at a pixel offset, as is: no resampling (unlike figimage)."""

    def __init__(self, image, x, y):
        super().__init__()
        self.image, self.x, self.y = image, x, y
        self.set_zorder(5)  # above the Axes

    def draw(self, renderer):
        gc = renderer.new_gc()
        renderer.draw_image(gc, self.x, self.y, self.image[::-1])
        gc.restore()


def render_node_labels(parts, figsize, rect, dpi, order=None, legend_left=None):
    """The node labels alone (and the colour legend at ``legend_left``, if given), rendered
    once as an RGBA image the size of the figure.

    Text is most of the cost of a redraw; labels never change, so a widget pastes this
    image (:class:`PastedImage`) instead of drawing them again.  Returns (image, x, y):
    the image cropped to its content and its offset in pixels from the figure's lower left.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    fig.patch.set_alpha(0)
    ax = fig.add_axes(rect)
    ax.patch.set_alpha(0)
    draw_node_labels(ax, parts, order)
    frame_graph(ax, parts)
    if legend_left is not None:
        draw_graph_legend(fig, legend_left)
    canvas.draw()
    image = np.asarray(canvas.buffer_rgba())
    rows = np.flatnonzero(image[:, :, 3].any(axis=1))
    cols = np.flatnonzero(image[:, :, 3].any(axis=0))
    if not rows.size:
        return image[:1, :1].copy(), 0, 0
    top, bottom, left, right = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    return image[top:bottom, left:right].copy(), int(left), int(image.shape[0] - bottom)


# --------------------------------------------------------------------------
# The current step, as the three kinds of argument of a backward rule
# --------------------------------------------------------------------------

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
    index: int          # backward step, 0-based
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
        node = trace.node(ref)
        layer = node_layer(node)
        return f"{node.op} ({layer})" if layer else node.op
    if kind == "leaf":
        return ref
    return ref or "a constant (no gradient)"


def step_view(trace, index: int) -> StepView:
    """What backward step ``index`` of ``trace`` receives and sends, ready to print."""
    from ...inspect.params import value_summary

    step = trace.steps[index]
    node = trace.node(step.node)
    names = argument_names(node.op, len(node.inputs))
    args = []
    for i, ((kind, ref), shape) in enumerate(zip(node.inputs, node.input_shapes)):
        value = trace.node(ref).out if kind == "node" else None
        grad = step.grads[i] if i < len(step.grads) else None
        args.append(Argument(names[i], tuple(shape), _source_text(trace, kind, ref), kind,
                             value_summary(value) if value is not None else None,
                             value_summary(grad) if grad is not None else None))
    out = value_summary(node.out) if node.out is not None else None
    return StepView(index, len(trace.steps), node.op, node_layer(node), tuple(args), out,
                    value_summary(step.dout))


PANEL_FONT = 13


def draw_graph_legend(fig, left: float, bottom: float = 0.02) -> list:
    """Two lines saying what the colours of the graph mean (figure texts)."""
    line = PANEL_FONT * 1.32 / (fig.get_figheight() * 72)
    return [fig.text(left, bottom + 1.6 * line, "blue: forward values (parameters, inputs, "
                     "ops not yet reached)", color=FORWARD_COLOR, fontsize=PANEL_FONT - 2,
                     va="bottom", ha="left"),
            fig.text(left, bottom, "purple: backward done · thick: current op · n: order",
                     color=GRADIENT_COLOR, fontsize=PANEL_FONT - 2, va="bottom", ha="left")]


def draw_step_panel(fig, trace, current: int, left: float = 0.6, top: float = 0.98,
                    legend: bool = True):
    """Text beside the graph: the current op's forward inputs, out and dout, and what it
    returns -- the three kinds of argument of ``bprop(self, *inputs, out, dout)``.

    Figure texts from (``left``, ``top``) in figure fractions (no Axes: cheaper); the
    colour legend at the foot unless ``legend=False`` (a widget pastes it with the labels).
    """
    from ...inspect.params import value_summary

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
        put(f"backward finished ({total} steps)", size=PANEL_FONT + 2, weight="bold",
            mono=False)
        put(["gradients that reached the leaves", "(what backward() adds to .grad)"],
            color=GRADIENT_COLOR, mono=False)
        width = max((len(name) for name, _, _ in trace.leaf_grads), default=4)
        put([f"{name:<{width}} {compact_shape(shape):<11} ‖g‖ {value_summary(g).norm:.3g}"
             for name, shape, g in trace.leaf_grads], color=GRADIENT_COLOR)
        return texts
    view = step_view(trace, current)
    put(f"backward step {current + 1} of {total}", size=PANEL_FONT + 2, weight="bold",
        mono=False, gap=0.2)
    put(f"{view.op}" + (f"  in {view.layer}" if view.layer else ""), color=CURRENT_EDGE,
        size=PANEL_FONT + 1, weight="bold", mono=False)
    width = max(len(a.name) for a in view.arguments)
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
