"""Drawing the computational graph of a BackwardTrace, laid out by ``graph_layout``.

Forward runs from top to bottom; backward climbs back up.  Forward values are blue,
gradients purple, the current node is outlined in dark purple.
"""
from __future__ import annotations

import numpy as np
from matplotlib.artist import Artist
from matplotlib.collections import LineCollection, PatchCollection
from matplotlib.patches import FancyBboxPatch

from ..palette import FORWARD_COLOR, GRADIENT_COLOR, MUTED_COLOR
from .graph_layout import NODE_H, graph_layout, signed_text

FONT = 12   # points: 12 pt reads on a projector in a picture 12.5 in wide
FORWARD_FILL = "#e3eefa"
GRADIENT_FILL = "#eadcf2"
CURRENT_FILL = "#c9a6dc"
CURRENT_EDGE = "#4a148c"
CONST_FILL = "#f2f2f2"
EDGE_COLOR = "#90a4c0"


def draw_graph(ax, trace, current: int | None = None, parts=None, labels: bool = True,
               signed: bool = False):
    """Draw ``trace``'s graph on ``ax``; ``current`` is the backward step shown (0-based;
    ``len(trace.steps)`` means backward is finished).  Returns a dict of the artists.

    Ops already done in backward are shaded purple and numbered in the engine's order,
    the current one is outlined; the edges to its inputs turn purple, labelled with the
    gradient each input receives.  ``labels=False`` leaves out the node labels (they
    never change, so a widget can draw them once: :func:`render_node_labels`).
    ``signed`` (a graph of scalars) labels each gradient with its value and sign, not a norm.
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

    artists["nodes"] = _node_boxes(nodes, pos, now, done, got_grad)
    ax.add_collection(artists["nodes"])

    artists["gradients"] = _gradient_labels(ax, edges, pos, step, now, signed) \
        if step else []
    if labels:
        artists["labels"] = draw_node_labels(ax, (nodes, edges, layout), backward_order(trace))
    frame_graph(ax, (nodes, edges, layout))
    return artists


def _node_boxes(nodes, pos, now, done, got_grad) -> PatchCollection:
    """One rounded box per node: the current op outlined, done ones purple, constants dashed."""
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
    return PatchCollection(boxes, facecolors=faces, edgecolors=edgecolors,
                           linewidths=widths, linestyles=styles, zorder=3)


def _gradient_labels(ax, edges, pos, step, now, signed=False) -> list:
    """The gradient each input of the current op receives, just below that input."""
    grads = []
    for (u, v, index) in edges:
        if v != now:
            continue
        norm = step.grad_norms[index] if index < len(step.grad_norms) else None
        x, y = pos[u]
        y -= NODE_H / 2 + 0.17 + 0.3 * sum(1 for e in edges if e[0] == u and e[1] == now
                                           and e[2] < index)
        if norm is None:
            text = "no gradient"
        elif signed:
            text = f"g {signed_text(np.asarray(step.grads[index]).reshape(-1)[0])}"
        else:
            text = f"‖g‖ {norm:.3g}"
        grads.append(ax.text(x, y, text, ha="center", va="center", fontsize=FONT,
                             color=GRADIENT_COLOR, fontweight="bold", zorder=6,
                             bbox=dict(boxstyle="round,pad=0.12", fc="white",
                                       ec=GRADIENT_COLOR, lw=1)))
    return grads


def draw_node_labels(ax, parts, order=None) -> list:
    """The text in every box: op name (and layer) or leaf name, and the output shape;
    ``order`` (op key -> backward step, 0-based) numbers each op beside its box, counted
    from 1 as every text in nnbook counts steps."""
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
                                 ha="left", va="top", fontsize=FONT,
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


# The legend and the step panel beside the graph (graph_step.py) share this size.
PANEL_FONT = 13


def draw_graph_legend(fig, left: float, bottom: float = 0.02) -> list:
    """Three lines saying what the colours of the graph mean (figure texts)."""
    line = PANEL_FONT * 1.32 / (fig.get_figheight() * 72)
    return [fig.text(left, bottom + 3.2 * line, "grey, dashed: a constant (it needs no "
                     "gradient)", color=MUTED_COLOR, fontsize=PANEL_FONT - 1, va="bottom",
                     ha="left"),
            fig.text(left, bottom + 1.6 * line, "blue: forward values (parameters, inputs, "
                     "ops not yet reached)", color=FORWARD_COLOR, fontsize=PANEL_FONT - 1,
                     va="bottom", ha="left"),
            fig.text(left, bottom, "purple: backward done · thick: current op · "
                     "n: backward step n",
                     color=GRADIENT_COLOR, fontsize=PANEL_FONT - 1, va="bottom", ha="left")]
