"""A convolution drawn cell by cell: the padded input, one output pixel's receptive
field, the output grid, and which input channels feed which output channels.

Plain functions on a matplotlib ``Axes``; they draw a
:class:`~nnbook.inspect.conv_geometry.ConvGeometry` and its taps and compute nothing
of their own.  One cell is one unit, rows grow downwards (row r is at y = −r).
"""
from __future__ import annotations

from matplotlib.collections import LineCollection, PatchCollection
from matplotlib.patches import FancyArrowPatch, Rectangle

from .shapes import (
    INPUT,
    INPUT_FILL,
    LABEL_SIZE,
    LAYER,
    MUTED,
    OUTPUT,
    OUTPUT_FILL,
    PADDING,
    PADDING_FILL,
    SANS,
    SMALL_SIZE,
    TEXT,
    TEXT_SIZE,
    draw_text_lines,
    error_blocks,
    fmt_count,
    fmt_shape,
)

TAP_FILL = "#ffb74d"              # a kernel tap on the input: the layer's colour, stronger
PADDING_TAP_FILL = "#fff3e0"      # a kernel tap on a padding zero: pale
GROUP_COLOURS = ("#6a1b9a", "#e65100", "#00838f", "#ad1457", "#558b2f", "#4e342e",
                 "#283593", "#9e9d24")
GAP = 2.5                         # cells between the input and the output grid
INDEX_SIZE = 9


def _cells(ax, cells, x0, face, edge, width=1.0, zorder=1):
    """Unit squares at (row, col) as one collection (hundreds draw as fast as one)."""
    squares = [Rectangle((x0 + c, -r - 1), 1, 1) for r, c in cells]
    return ax.add_collection(PatchCollection(squares, facecolors=face, edgecolors=edge,
                                             linewidths=width, zorder=zorder),
                             autolim=False)


def draw_conv_grid(ax, geometry, taps, out_pos) -> dict:
    """The padded input with ``taps`` highlighted, and the output with ``out_pos`` filled.

    Returns the artists by kind: 'input', 'padding', 'taps', 'output' and 'chosen'
    are collections of unit squares (one path per cell); 'footprint' and 'arrow'
    patches; 'text' a list.
    """
    (top, bottom), (left, right) = geometry.pads
    height, width = geometry.in_hw
    rows, cols = geometry.padded_hw
    out_h, out_w = geometry.out_hw
    x_out = cols + GAP
    # Cell size in points (equal aspect: the tighter axis decides), leaving 18 points
    # under the grid for its label; at least 6 rows and 14 columns of room, so a tiny
    # grid is not blown up.  Text goes in the cells only where it fits.
    box, fig = ax.get_position(), ax.figure
    wide, high = max(x_out + out_w + 1.5, 14), max(rows, out_h, 6) + 0.3
    cell = min(72 * box.width * fig.get_figwidth() / wide,
               (72 * box.height * fig.get_figheight() - 18) / high)
    x_range, y_range = (-1.2, wide - 1.2), (0.3 - high - 18 / cell, 0.3)
    small = cell >= 18

    drawn = {"text": []}
    padded = [(r, c) for r in range(rows) for c in range(cols)]
    is_input = [top <= r < top + height and left <= c < left + width for r, c in padded]
    inside = [rc for rc, real in zip(padded, is_input) if real]
    ring = [rc for rc, real in zip(padded, is_input) if not real]
    drawn["input"] = _cells(ax, inside, 0, INPUT_FILL, INPUT)
    drawn["padding"] = _cells(ax, ring, 0, PADDING_FILL, "#bdbdbd")
    if ring:  # the border of the real input, over the ring
        drawn["border"] = ax.add_patch(Rectangle((left, -top - height), width, height,
                                                 fill=False, edgecolor=INPUT, linewidth=2.5))
    _draw_taps(ax, drawn, taps, (top, left), cell, small, (x_out, out_pos))
    chosen = tuple(out_pos)
    drawn["output"] = _cells(ax, [(r, c) for r in range(out_h) for c in range(out_w)
                                  if (r, c) != chosen], x_out, OUTPUT_FILL, OUTPUT)
    drawn["chosen"] = _cells(ax, [chosen], x_out, OUTPUT, LAYER, 3, zorder=3)
    drawn["text"] += _grid_labels(ax, geometry, taps, small, ring, x_out)
    ax.set_xlim(*x_range)
    ax.set_ylim(*y_range)
    ax.set_aspect("equal", adjustable="box")
    ax.set_anchor("N")
    ax.set_axis_off()
    return drawn


def _draw_taps(ax, drawn, taps, corner, cell, small, output) -> None:
    """The cells the kernel reads (with their kernel indices when there is room), its
    dilated footprint, and the arrow to the output pixel they make."""
    (top, left), (x_out, out_pos) = corner, output
    drawn["taps"] = _cells(ax, [(t.row + top, t.col + left) for t in taps], 0,
                           [PADDING_TAP_FILL if t.padding else TAP_FILL for t in taps], LAYER,
                           2.5, zorder=3)
    if small:
        for t in taps:
            drawn["text"].append(ax.text(t.col + left + 0.5, -t.row - top - 0.5,
                                         f"{t.kernel_row},{t.kernel_col}", ha="center",
                                         va="center", fontsize=INDEX_SIZE, color=TEXT,
                                         family=SANS, zorder=4))
    if not taps:
        return
    # the dilated kernel's footprint, 3 points outside the taps
    r0, r1 = min(t.row for t in taps) + top, max(t.row for t in taps) + top
    c0, c1 = min(t.col for t in taps) + left, max(t.col for t in taps) + left
    pad = 3 / cell
    drawn["footprint"] = ax.add_patch(Rectangle(
        (c0 - pad, -r1 - 1 - pad), c1 - c0 + 1 + 2 * pad, r1 - r0 + 1 + 2 * pad, fill=False,
        edgecolor=LAYER, linewidth=2, linestyle="--", zorder=5))
    h, w = out_pos
    drawn["arrow"] = ax.add_patch(FancyArrowPatch(
        (c1 + 1 + pad, -(r0 + r1 + 1) / 2), (x_out + w, -h - 0.5), arrowstyle="-|>",
        mutation_scale=18, linewidth=2, color=LAYER, zorder=6,
        connectionstyle="arc3,rad=-0.15"))

def _grid_labels(ax, geometry, taps, small, ring, x_out) -> list:
    """The row and column numbers the taps read, and the titles under and over the grids."""
    (top, _), (left, _) = geometry.pads
    height, width = geometry.in_hw
    rows, cols = geometry.padded_hw
    out_h, out_w = geometry.out_hw
    texts = []
    index = dict(fontsize=INDEX_SIZE, family=SANS, textcoords="offset points")
    if small:  # numbers of row/column 0 and of those the taps read (padding: −1, H, …)
        tapped_rows = {t.row for t in taps}
        tapped_cols = {t.col for t in taps}
        for row in sorted(tapped_rows | {0}):
            texts.append(ax.annotate(
                str(row).replace("-", "\u2212"), (0, -row - top - 0.5), xytext=(-7, 0),
                ha="right", va="center", color=LAYER if row in tapped_rows else MUTED, **index))
        for col in sorted(tapped_cols | {0}):
            texts.append(ax.annotate(
                str(col).replace("-", "\u2212"), (col + left + 0.5, 0), xytext=(0, 5),
                ha="center", va="bottom", color=LAYER if col in tapped_cols else MUTED, **index))
    title = dict(textcoords="offset points", ha="center", va="bottom", fontsize=LABEL_SIZE,
                 fontweight="bold", family=SANS)
    lift = 17 if small else 5
    texts.append(ax.annotate(f"input {height}×{width}", (cols / 2, 0), xytext=(0, lift),
                             color=INPUT, **title))
    texts.append(ax.annotate(f"output {out_h}×{out_w}", (x_out + out_w / 2, 0),
                             xytext=(0, lift), color=OUTPUT, **title))
    if ring:
        texts.append(ax.annotate(
            f"padded with zeros to {rows}×{cols}", (cols / 2, -rows), xytext=(0, -3),
            textcoords="offset points", ha="center", va="top", fontsize=SMALL_SIZE,
            color=PADDING, family=SANS))
    return texts


def draw_group_diagram(ax, in_channels, out_channels, connections, groups=None) -> dict:
    """Input channels (left) joined to the output channels (right) that read them.

    ``connections`` is ``group_connections(...)``: [(out_channel, input range), …];
    lines are coloured by group.
    """
    span = max(in_channels, out_channels) - 1 or 1

    def y_of(k, n):  # spread n dots over the same height
        return -(k * span / (n - 1) if n > 1 else span / 2)

    by_group = {}  # group g reads inputs g·len … (g+1)·len − 1
    for o, inputs in connections:
        segments = by_group.setdefault(inputs.start // len(inputs), [])
        segments += [[(0, y_of(c, in_channels)), (1, y_of(o, out_channels))] for c in inputs]
    lines = [ax.add_collection(LineCollection(segments, colors=GROUP_COLOURS[g % len(
        GROUP_COLOURS)], linewidths=1.6, alpha=0.85, zorder=1), autolim=False)
        for g, segments in by_group.items()]
    size = 70 if max(in_channels, out_channels) <= 8 else 35  # marker area, points²
    ins = [y_of(k, in_channels) for k in range(in_channels)]
    outs = [y_of(k, out_channels) for k in range(out_channels)]
    dots = [ax.scatter([0] * in_channels, ins, s=size, color=INPUT, zorder=2),
            ax.scatter([1] * out_channels, outs, s=size, color=OUTPUT, zorder=2)]
    labels = []  # the first and last channel on each side: how they are numbered
    for x, ys, colour, side in ((0, ins, INPUT, -1), (1, outs, OUTPUT, 1)):
        for k in sorted({0, len(ys) - 1}):
            labels.append(ax.annotate(str(k), (x, ys[k]), xytext=(7 * side, 0),
                                      textcoords="offset points", va="center",
                                      ha="right" if side < 0 else "left",
                                      fontsize=INDEX_SIZE, color=colour, family=SANS))
    head = dict(textcoords="offset points", xytext=(0, 8), va="bottom", fontsize=SMALL_SIZE,
                fontweight="bold", family=SANS)
    labels.append(ax.annotate("in", (0, 0), ha="center", color=INPUT, **head))
    labels.append(ax.annotate("out", (1, 0), ha="center", color=OUTPUT, **head))
    if groups is not None:
        labels.append(ax.annotate(f"groups={groups}", (0.5, -span), xytext=(0, -12),
                                  textcoords="offset points", ha="center", va="top",
                                  fontsize=LABEL_SIZE, fontweight="bold", color=TEXT,
                                  family=SANS))
        if groups > 1:  # what the colours of the lines mean
            labels.append(ax.annotate("one colour per group", (0.5, -span),
                                      xytext=(0, -14 - 1.5 * LABEL_SIZE),
                                      textcoords="offset points", ha="center", va="top",
                                      fontsize=SMALL_SIZE, color=MUTED, family=SANS))
    ax.set_xlim(-0.45, 1.45)
    ax.set_ylim(-span - 0.3, 0.3)
    ax.set_axis_off()
    return {"lines": lines, "dots": dots, "labels": labels}


def conv_title(geometry) -> str:
    """'conv2d: input 4×7×5 → output 6×4×3' (C×H×W, one sample)."""
    c, (h, w) = geometry.in_channels, geometry.in_hw
    text = f"conv2d: input {c}×{h}×{w}"
    if geometry.ok:
        text += f" → output {geometry.out_channels}×{geometry.out_hw[0]}×{geometry.out_hw[1]}"
    return text


def draw_conv_text(ax, geometry, tap_lines=(), wrap=80, error_size=TEXT_SIZE, x=0.0, top=1.0,
                   coords="axes fraction") -> list:
    """The formulas with numbers filled in, or the op's explanation of an invalid setting.

    The text starts at (x, top) in ``coords`` (e.g. "figure fraction").
    """
    place = dict(x=x, top=top, coords=coords, wrap=wrap)
    if not geometry.ok:
        return draw_text_lines(ax, error_blocks(geometry.error, wrap, error_size), **place)
    blocks = [("\n".join(geometry.formula), {"mono": True})]
    if tap_lines:
        blocks.append(("\n".join(tap_lines), {"mono": True, "color": LAYER}))
    weight = fmt_shape(geometry.weight_shape)
    blocks.append((f"weight {weight} + bias ({geometry.out_channels},) = "
                   f"{fmt_count(geometry.params)} parameters", {"size": SMALL_SIZE,
                                                              "color": MUTED}))
    return draw_text_lines(ax, blocks, **place)


__all__ = ["conv_title", "draw_conv_grid", "draw_conv_text", "draw_group_diagram"]
