"""Tensors drawn to scale, one shape-inference step, and text blocks (formulas, errors).

Plain functions on a matplotlib ``Axes``; they know shape records, not widgets.
A 4-D (N, C, H, W) tensor is a box whose front face is W wide and H high (one
scale per step, so a stride that halves H visibly halves the box) and whose
depth grows with log2(C); an (N, F) tensor is a bar F long; the batch N is only
written, never drawn.
"""
from __future__ import annotations

import math
import textwrap

from matplotlib.patches import FancyArrowPatch, Polygon, Rectangle

from ...errors import fmt_shape  # (10, 3, 16, 8), the way every nnbook message writes shapes
from .. import palette

# The roles of a shape drawing, in the colours of every nnbook view.
INPUT, INPUT_FILL = palette.FORWARD_COLOR, palette.INPUT_FILL
OUTPUT, OUTPUT_FILL = palette.OUTPUT_COLOR, palette.OUTPUT_FILL
LAYER, LAYER_FILL = palette.LAYER_COLOR, palette.LAYER_FILL
ERROR, ERROR_FILL = palette.PROBLEM_COLOR, palette.PROBLEM_FILL
PADDING, PADDING_FILL = palette.PADDING_COLOR, palette.PADDING_FILL
TEXT, MUTED = palette.TEXT_COLOR, palette.MUTED_COLOR
ROLES = {"input": (INPUT, INPUT_FILL), "output": (OUTPUT, OUTPUT_FILL),
         "error": (ERROR, ERROR_FILL)}

SANS, MONO = "DejaVu Sans", "DejaVu Sans Mono"  # shipped with matplotlib: same PNG everywhere
TITLE_SIZE, LABEL_SIZE, TEXT_SIZE, SMALL_SIZE = 16, 13, 12, 11


def fmt_count(n: int) -> str:
    return f"{n:,}"


# ---------------------------------------------------------------------------
# One tensor
# ---------------------------------------------------------------------------
# Lengths are in inches of the figure (draw_step makes data units inches), so text
# set in points sits at known distances from the boxes.

LABEL_SPACE = 0.62   # below a tensor: its shape and batch size
SHAPE_SPACE = 0.38   # below a tensor: its shape only


def channel_depth(channels: int) -> float:
    """Depth of a box: grows with log2(C), so both 3 and 512 channels fit."""
    return 0.06 + 0.035 * math.log2(max(channels, 1))


def _oblique(depth: float) -> tuple:
    """The depth axis drawn up and to the right."""
    return 0.6 * depth, 0.45 * depth


def tensor_extent(shape, unit: float, feature_unit: float) -> tuple:
    """(kind, face_width, face_height, depth) of the glyph drawn for ``shape``.

    ``unit`` is the length of one pixel of H or W, ``feature_unit`` of one feature.
    """
    dims = tuple(shape)[1:]  # the batch is written, not drawn
    if len(dims) == 3:       # (C, H, W): a box
        c, h, w = dims
        return "box", max(w * unit, 0.03), max(h * unit, 0.03), channel_depth(c)
    if len(dims) == 1:       # (F,): a bar, standing up like a column vector
        return "bar", 0.12, max(dims[0] * feature_unit, 0.05), 0.0
    if len(dims) == 2:       # (L, F): a plane
        return "plane", max(dims[1] * unit, 0.03), max(dims[0] * unit, 0.03), 0.0
    return "dot", 0.25, 0.25, 0.0


def glyph_size(shape, unit: float, feature_unit: float) -> tuple:
    """Width and height of everything drawn for ``shape`` (box faces, not labels)."""
    _, w, h, depth = tensor_extent(shape, unit, feature_unit)
    dx, dy = _oblique(depth)
    return w + dx, h + dy


def draw_tensor_box(ax, shape, x, y, unit=0.1, feature_unit=None, role="input",
                    label=True, batch=True, names=("C", "H", "W")) -> list:
    """Draw ``shape`` with its front face's bottom-left corner at (x, y); return the artists.

    Boxes get H (left), W (below) and C (along the depth) written on them (``names``
    renames them, e.g. ('h', 'L', 'd') for attention heads); a bar gets F, or the one name
    ``names`` holds (('T',) for a batch of token indices); with ``label`` the whole
    shape goes underneath, and with ``batch`` the batch size.
    """
    edge, fill = ROLES[role]
    kind, w, h, depth = tensor_extent(shape, unit, feature_unit or unit)
    dims = tuple(shape)[1:]
    artists = []
    dx, dy = _oblique(depth)
    if kind == "box":  # side and top faces first, the front face over them
        artists.append(ax.add_patch(Polygon(
            [(x + w, y), (x + w + dx, y + dy), (x + w + dx, y + h + dy), (x + w, y + h)],
            closed=True, facecolor=fill, edgecolor=edge, linewidth=1.5, alpha=0.75)))
        artists.append(ax.add_patch(Polygon(
            [(x, y + h), (x + dx, y + h + dy), (x + w + dx, y + h + dy), (x + w, y + h)],
            closed=True, facecolor=fill, edgecolor=edge, linewidth=1.5, alpha=0.9)))
    artists.append(ax.add_patch(Rectangle((x, y), w, h, facecolor=fill, edgecolor=edge,
                                          linewidth=2)))
    dim_text = dict(color=edge, fontsize=SMALL_SIZE, family=SANS)
    if kind == "box":
        c, hh, ww = dims
        c_name, h_name, w_name = names
        artists.append(ax.annotate(f"{h_name}={hh}", (x, y + h / 2), xytext=(-3, 0),
                                   textcoords="offset points", ha="right", va="center",
                                   rotation=90, **dim_text))
        artists.append(ax.annotate(f"{w_name}={ww}", (x + w / 2, y), xytext=(0, -2),
                                   textcoords="offset points", ha="center", va="top",
                                   **dim_text))
        artists.append(ax.annotate(f"{c_name}={c}", (x + w + dx, y + h + dy), xytext=(2, 1),
                                   textcoords="offset points", ha="left", va="bottom",
                                   **dim_text))
    elif kind == "bar":
        bar_name = names[0] if len(names) == 1 else "F"
        artists.append(ax.annotate(f"{bar_name}={dims[0]}", (x + w, y + h / 2), xytext=(4, 0),
                                   textcoords="offset points", ha="left", va="center",
                                   **dim_text))
    if label:
        below = -17 if kind == "box" else -4
        centre = x + (w + dx) / 2
        artists.append(ax.annotate(fmt_shape(shape), (centre, y), xytext=(0, below),
                                   textcoords="offset points", ha="center", va="top",
                                   color=edge, fontsize=LABEL_SIZE, family=MONO,
                                   fontweight="bold"))
        if batch:  # says which the box is: the colours of input and output are named here
            text = f"batch {shape[0]}" if len(shape) else "scalar"
            text = f"{role}, {text}" if role in ("input", "output") else text
            artists.append(ax.annotate(text, (centre, y), xytext=(0, below - 17),
                                       textcoords="offset points", ha="center", va="top",
                                       color=MUTED, fontsize=SMALL_SIZE, family=SANS))
    return artists


def draw_missing_tensor(ax, x, y, size) -> list:
    """The output a failing step never produced: a red dashed square with a question mark."""
    box = ax.add_patch(Rectangle((x, y), size, size, facecolor=ERROR_FILL, edgecolor=ERROR,
                                 linewidth=2, linestyle="--"))
    mark = ax.text(x + size / 2, y + size / 2, "?", ha="center", va="center", color=ERROR,
                   fontsize=28, fontweight="bold", family=SANS)
    label = ax.annotate("no output", (x + size / 2, y), xytext=(0, -4),
                        textcoords="offset points", ha="center", va="top", color=ERROR,
                        fontsize=LABEL_SIZE, fontweight="bold", family=SANS)
    return [box, mark, label]


# ---------------------------------------------------------------------------
# One step of a shape trace
# ---------------------------------------------------------------------------

OP_SYMBOLS = {"add": "+", "sub": "\u2212", "mul": "\u00d7", "div": "/", "matmul": "@"}


def _labels_height(count: int) -> float:
    """Labels of ``count`` stacked tensors: shapes, one batch line, gaps for C labels."""
    return SHAPE_SPACE * count + (LABEL_SPACE - SHAPE_SPACE) + 0.22 * max(count - 1, 0)


def step_units(inputs, output, room_in, room_out, max_unit=0.45) -> tuple:
    """(unit, feature_unit): one scale for every tensor of a step, as large as fits.

    ``room_in`` (width, height) holds the inputs stacked with their labels,
    ``room_out`` the output.  Depth does not scale (it is log2 of the channels).
    """
    shapes = list(inputs) + ([output] if output is not None else [])
    features = [s[1] for s in shapes if len(s) == 2]
    count = max(len(inputs), 1)
    longest = min(room_out[1] - LABEL_SPACE, (room_in[1] - _labels_height(count)) / count)
    feature_unit = longest / max(features + [1])
    unit = max_unit
    for group, (room_w, room_h) in ((list(inputs), room_in),
                                    ([output] if output is not None else [], room_out)):
        flat = [s for s in group if len(s) in (3, 4)]
        if not flat:
            continue
        fixed_w = max(glyph_size(s, 0.0, 0.0)[0] for s in flat)
        fixed_h = sum(glyph_size(s, 0.0, 0.0)[1] for s in group) + _labels_height(len(group))
        unit = min(unit, (room_w - fixed_w) / max(s[-1] for s in flat),
                   (room_h - fixed_h) / sum(s[-2] for s in flat))
    return max(unit, 0.005), max(feature_unit, 0.0005)


def draw_step(ax, step, title=None, params_text=None, names=None) -> None:
    """Inputs (blue) → layer (orange arrow) → output (green, or red when the step failed).

    ``names``: the three names written on a 4-D box's dims (default C, H, W), or one
    such triple per tensor, the inputs first and then the output.

    Draws in inches: the Axes' data limits are set to its size in inches, so
    labels set in points keep their distance from the boxes.
    """
    fig = ax.figure
    box = ax.get_position()
    width, height = box.width * fig.get_figwidth(), box.height * fig.get_figheight()
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_aspect("equal", adjustable="box")
    ax.set_axis_off()
    failed = step.failed
    lines = 0
    if title:
        title = title_lines(title, width - 0.35)
        lines = title.count("\n") + 1
        ax.text(0.2, height - 0.05, title, ha="left", va="top", color=ERROR if failed else TEXT,
                fontsize=TITLE_SIZE, fontweight="bold", family=SANS)
    # Three columns: inputs | arrow | output.  Under each tensor its labels, above
    # it room for the C label.
    arrow_w = min(1.9, 0.24 * width)
    column_w = (width - arrow_w - 0.5) / 2
    top, bottom = height - (0.3 + 0.25 * lines if title else 0.2), 0.05
    room = (column_w - 0.45, top - bottom)
    inputs, output = step.input_shapes, step.output_shape
    unit, feature_unit = step_units(inputs, output, room, room)

    names = _per_tensor(names, len(inputs) + 1)
    _draw_input_stack(ax, inputs, unit, feature_unit, column_w, (top + bottom) / 2,
                      OP_SYMBOLS.get(step.layer, ""), names[:-1])

    colour = ERROR if failed else LAYER
    middle = (top + bottom + LABEL_SPACE) / 2
    x0, x1 = column_w + 0.15, column_w + 0.15 + arrow_w
    ax.add_patch(FancyArrowPatch((x0, middle), (x1, middle), arrowstyle="-|>",
                                 mutation_scale=28, linewidth=3, color=colour))
    layer = f"{step.container}: {step.layer}" if step.container else step.layer
    # no wider than the gap between the boxes (about 0.6 em a character, bold)
    layer = "\n".join(textwrap.wrap(layer, int((arrow_w + 0.6) * 72 / (0.6 * LABEL_SIZE))))
    ax.annotate(layer, ((x0 + x1) / 2, middle), xytext=(0, 9), textcoords="offset points",
                ha="center", va="bottom", color=colour, fontsize=LABEL_SIZE,
                fontweight="bold", family=SANS)
    if params_text:
        ax.annotate(params_text, ((x0 + x1) / 2, middle), xytext=(0, -10),
                    textcoords="offset points", ha="center", va="top", color=MUTED,
                    fontsize=SMALL_SIZE, family=SANS)

    out_left = x1 + 0.35
    if output is not None:
        w, h = glyph_size(output, unit, feature_unit)
        draw_tensor_box(ax, output, out_left + (column_w - 0.45 - w) / 2, middle - h / 2,
                        unit, feature_unit, role="output", names=names[-1])
    else:
        draw_missing_tensor(ax, out_left + (column_w - 0.45) / 2 - 0.35, middle - 0.35, 0.7)


def title_lines(title: str, inches: float) -> str:
    """The title in lines no wider than ``inches`` at TITLE_SIZE (bold sans is about 0.6 em
    a character), broken at its ' · ' first, so that no title runs off the picture."""
    chars = int(inches * 72 / (0.6 * TITLE_SIZE))
    if len(title) <= chars:
        return title
    lines = []
    for part in title.split(" · "):
        if lines and len(lines[-1]) + 3 + len(part) <= chars:
            lines[-1] += " · " + part
        else:
            lines.append(part)
    return "\n".join(wrapped for line in lines for wrapped in textwrap.wrap(line, chars))


def _per_tensor(names, count: int) -> list:
    """One (C, H, W)-like triple of dim names per tensor drawn."""
    if not names:
        return [("C", "H", "W")] * count
    if isinstance(names[0], str):
        return [tuple(names)] * count
    return [tuple(n) if n else ("C", "H", "W") for n in names]


def _draw_input_stack(ax, inputs, unit, feature_unit, column_w, centre, symbol,
                      names=None) -> None:
    """The inputs stacked in the left column around ``centre``, the batch written under
    the last; ``symbol`` ('+', '@') between them when the layer is a binary op."""
    sizes = [glyph_size(s, unit, feature_unit) for s in inputs]
    between = 0.22  # between stacked inputs: the C label of the lower one
    stacked = sum(h for _, h in sizes) + _labels_height(len(sizes))
    y = centre + stacked / 2  # top of the stack
    symbol = symbol if len(sizes) > 1 else ""
    for k, (shape, (w, h)) in enumerate(zip(inputs, sizes)):
        if k:
            y -= between
        y -= h
        x = 0.45 + (column_w - 0.45 - w) / 2
        last = k == len(sizes) - 1
        draw_tensor_box(ax, shape, x, y, unit, feature_unit, role="input", batch=last,
                        names=names[k] if names else ("C", "H", "W"))
        if symbol and k:
            ax.text(0.3, y + h + between / 2, symbol, ha="center", va="center",
                    color=LAYER, fontsize=TITLE_SIZE + 6, fontweight="bold", family=SANS)
        y -= LABEL_SPACE if last else SHAPE_SPACE


# ---------------------------------------------------------------------------
# Text blocks
# ---------------------------------------------------------------------------

def split_error(error) -> dict:
    """A four-part nnbook message as {'what', 'values', 'hint'} (the 'at' line dropped:
    inside a widget it names the widget's caller, not the model's mistake)."""
    lines = str(error).splitlines() or [""]
    values, hint = [], ""
    for line in lines[1:]:
        text = line.strip()
        if text.startswith("hint:"):
            hint = text[len("hint:"):].strip()
        elif text and not text.startswith("at "):
            values.append(text)
    return {"type": type(error).__name__, "what": lines[0], "values": values, "hint": hint}


def draw_text_lines(ax, blocks, x=0.0, top=1.0, wrap=None, coords="axes fraction") -> list:
    """Stack text blocks downwards from (x, top); return the Text artists.

    ``blocks`` are (text, style) pairs; style keys: color, size, mono, bold.  Long
    lines wrap at ``wrap`` characters.  ``coords`` is "axes fraction", or "figure
    fraction" to write anywhere on the figure without an Axes of its own.
    """
    artists, offset = [], 0.0
    for text, style in blocks:
        size = style.get("size", TEXT_SIZE)
        lines = []
        for line in text.splitlines() or [""]:
            lines.extend(textwrap.wrap(line, wrap, subsequent_indent="  ") if wrap and line
                         else [line])
        artists.append(ax.annotate(
            "\n".join(lines), (x, top), xycoords=coords, xytext=(0, -offset),
            textcoords="offset points", ha="left", va="top", fontsize=size,
            color=style.get("color", TEXT), family=MONO if style.get("mono") else SANS,
            fontweight="bold" if style.get("bold") else "normal", linespacing=1.25))
        offset += len(lines) * size * 1.25 + 3
    return artists


def error_blocks(error, wrap=76, size=TEXT_SIZE) -> list:
    """The error, ready for :func:`draw_text_lines`: red headline and hint, values between."""
    parts = split_error(error)
    blocks = [(f"{parts['type']}: {parts['what']}", {"color": ERROR, "bold": True,
                                                      "size": size})]
    if parts["values"]:
        blocks.append(("\n".join(parts["values"]), {"mono": True, "size": size - 1}))
    if parts["hint"]:
        blocks.append((f"hint: {parts['hint']}", {"color": ERROR, "size": size}))
    return blocks


def draw_step_text(ax, step, params=(), wrap=76, x=0.0, top=1.0,
                   coords="axes fraction") -> list:
    """Below the step: its formula, its parameters, or (failing) the error and hint.

    The text starts at (x, top) in ``coords`` (e.g. "figure fraction").
    """
    blocks = []
    if step.failed:
        blocks += error_blocks(step.error, wrap)
    for line in step.formula:
        blocks.append((line, {"mono": True}))
    if params and not step.failed:  # a failing step's weight shape is in the values line
        listed = "   ".join(f"{name} {fmt_shape(shape)}" for name, shape, _, _ in params[:4])
        more = f"   … {len(params) - 4} more" if len(params) > 4 else ""
        blocks.append((f"parameters: {listed}{more}", {"size": SMALL_SIZE, "color": MUTED}))
    return draw_text_lines(ax, blocks, x=x, top=top, wrap=wrap, coords=coords)
