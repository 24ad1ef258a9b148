"""The computational graph of a BackwardTrace as a plain graph, laid out as a layered DAG
(no Graphviz, no matplotlib).

The layout is the classic layered one, kept small:

1. layers: every op sits one below its deepest input (longest path from the leaves);
   a leaf (parameter, input) sits just above the first op that reads it;
2. an edge that skips layers gets invisible "dummy" points, one per layer it crosses,
   so it can bend around nodes instead of through them;
3. order within each layer: a few sweeps of the barycentre rule (a node moves to the
   mean position of its neighbours in the layer above, then below), keeping the
   order with the fewest crossings;
4. x coordinates: each node pulled towards its neighbours, keeping a minimum gap.

Forward runs from top to bottom; backward climbs back up.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Layout units: x in inches at the intended size (UNIT_IN), y in layers (LAYER_IN each).
UNIT_IN, LAYER_IN = 1.0, 0.7
NODE_H = 0.64                 # box height, in layers
CHAR_W = 0.108                # width of one character at graph.FONT, in x units (bold, generous)
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
    value: float | None = None  # signed mode: the scalar this node holds (None otherwise)

    @property
    def label(self) -> str:
        if self.value is not None:  # "= -0.846": a value, never read as a shape or a name
            return f"{self.title}\n= {signed_text(self.value)}"
        return f"{self.title}\n{compact_shape(self.shape)}"

    @property
    def width(self) -> float:
        """Box width in x units: wide enough for the longer line of the label."""
        least = 1.3 if self.value is not None else 0.8  # room for a signed gradient below
        return max(least, CHAR_W * max(len(line) for line in self.label.split("\n")) + 0.16)


def signed_text(value) -> str:
    """A scalar with its sign and 4 significant digits: -0.846, 2, 1.5e-05."""
    return f"{float(value):.4g}"


def is_scalar_trace(trace) -> bool:
    """True if every value in the graph is one number (then signed values can be shown)."""
    return bool(trace.graph) and all(
        int(np.prod(n.output_shape)) == 1 and all(int(np.prod(s)) == 1 for s in n.input_shapes)
        for n in trace.graph)


def _scalar(array, signed):
    return float(np.asarray(array).reshape(-1)[0]) if signed and array is not None else None


def compact_shape(shape) -> str:
    """(10, 512, 8, 4) -> '10×512×8×4'; () -> 'scalar'."""
    return "×".join(str(int(s)) for s in shape) if len(shape) else "scalar"


def graph_parts(trace, signed: bool = False):
    """(nodes, edges) of a BackwardTrace; an edge is (source key, op key, input index).

    Each named leaf is one node however many ops read it (a shared parameter shows
    as one leaf with several edges); each unnamed constant is its own node.
    ``signed`` (a graph of scalars) puts each node's value, with its sign, in its label;
    an unnamed constant is then titled "constant" (so "= 2" reads as its value).
    """
    nodes, edges, seen = [], [], set()
    for node in trace.graph:
        values = node.input_values or (None,) * len(node.inputs)
        for index, ((kind, ref), shape) in enumerate(zip(node.inputs, node.input_shapes)):
            value = _scalar(values[index], signed)
            if kind == "node":
                key = ("op", ref)
            elif kind == "leaf" or ref:
                key = ("leaf", ref)
                if key not in seen:
                    seen.add(key)
                    nodes.append(GraphNode(key, "leaf" if kind == "leaf" else "const", ref,
                                           tuple(shape), value))
            else:
                key = ("const", f"{node.id}.{index}")
                title = "constant" if signed else "input" if index == 0 else "const"
                nodes.append(GraphNode(key, "const", title, tuple(shape), value))
            edges.append((key, ("op", node.id), index))
        title = op_title(node)
        nodes.append(GraphNode(("op", node.id), "op", title, tuple(node.output_shape),
                               _scalar(node.out, signed)))
    return nodes, edges


def node_layer(node) -> str | None:
    """The layer an op ran in ('3.1 (Conv2d)'), or read off its parameters' paths."""
    if node.layer:
        return node.layer
    owners = {ref.rsplit(".", 1)[0] for kind, ref in node.inputs if kind == "leaf" and "." in ref}
    return owners.pop() if len(owners) == 1 else None


def layer_path(node) -> str | None:
    """The dotted path of the layer an op ran in ('3.1'); None for the outermost model."""
    if node.layer:  # 'path (Class)', or 'Class' alone for the outermost model
        return node.layer.split(" (")[0] if " (" in node.layer else None
    return node_layer(node)


def op_title(node) -> str:
    """'conv2d (3.1)': the op and the path of its layer (the outermost model's ops: the op)."""
    path = layer_path(node)
    return f"{node.op} ({path})" if path else node.op


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


def graph_layout(trace, signed: bool = False) -> tuple:
    """(nodes, edges, layout) of a trace; the widget keeps it between steps."""
    nodes, edges = graph_parts(trace, signed)
    return nodes, edges, layered_layout([n.key for n in nodes], edges,
                                        {n.key: n.width for n in nodes})
