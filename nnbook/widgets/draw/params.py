"""Drawing a ParameterReport: values per tensor and gradient norms, problems in red.

Plain functions: a record and a matplotlib Axes in, artists out.  Colours are the
ones of every nnbook view: blue for values, purple for gradients, red for problems.
"""
from __future__ import annotations

import numpy as np
from matplotlib.ticker import LogLocator, NullLocator

from ...inspect.param_flags import FLAGS
from ..palette import (
    FORWARD_COLOR,
    GRADIENT_COLOR,
    INFO_COLOR,
    MUTED_COLOR,
    PROBLEM_COLOR,
    PROBLEM_TINT,
)

FONT = 13          # points: the figure is 12 in wide, so 12 pt needs 11.5 (tests/projector.py)
SMALL = 12


def row_label(row) -> str:
    """'⊘ conv1.weight', '✖ optimizer param 0', 'lin.weight ⇄ again.weight'."""
    marks = " ".join(FLAGS[f][0] for f in row.problems)
    text = row.label
    if "shared" in row.flags:
        text += " ⇄ " + ", ".join(row.paths[1:])
    return f"{marks} {text}" if marks else text


def _rows_axis(ax, rows, title, labels=True):
    """Common y axis: one row per parameter, top to bottom, problems in red.

    Row names are plain texts left of the axes rather than tick labels: ticks are
    slow to build, and a refresh should stay quick.
    """
    ys = list(range(len(rows)))
    ax.set_yticks([])
    if labels:
        for y, r in zip(ys, rows):
            color = PROBLEM_COLOR if r.problems else FORWARD_COLOR if r.in_model else MUTED_COLOR
            ax.text(-0.015, y, row_label(r), transform=ax.get_yaxis_transform(), ha="right",
                    va="center", fontsize=FONT, color=color,
                    fontweight="bold" if r.problems else "normal")
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_title(title, fontsize=FONT + 1, loc="left")
    ax.tick_params(axis="x", labelsize=SMALL)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for y, r in zip(ys, rows):
        if r.problems:
            ax.axhspan(y - 0.5, y + 0.5, color=PROBLEM_TINT, zorder=0, lw=0)
    strays = [y for y, r in zip(ys, rows) if not r.in_model]
    if strays and strays[0] > 0:  # the optimizer-only tensors come last, under a red line
        ax.axhline(strays[0] - 0.5, color=PROBLEM_COLOR, lw=2, ls="--")
    return ys


def draw_parameter_counts(ax, report, rows=None):
    """Horizontal bars: how many values each parameter tensor holds (log scale)."""
    rows = list(report.parameters if rows is None else rows)
    ys = _rows_axis(ax, rows, "values per tensor")
    counts = [max(r.count, 1) for r in rows]
    colors = [FORWARD_COLOR if r.in_model else PROBLEM_COLOR for r in rows]
    bars = ax.barh(ys, counts, color=colors, alpha=0.85, height=0.6)
    _log_x(ax)
    right = max(counts) * 30
    ax.set_xlim(0.7, right)
    for y, r in zip(ys, rows):
        ax.text(max(r.count, 1) * 1.15, y, f"{r.count:,}", va="center", fontsize=SMALL,
                color=MUTED_COLOR)
    return bars


def draw_gradient_norms(ax, report, rows=None, labels=False):
    """Horizontal bars of each parameter's gradient norm (log scale); problems named in red."""
    rows = list(report.parameters if rows is None else rows)
    ys = _rows_axis(ax, rows, "gradient norm after the last backward", labels)
    # NaN/inf norms get no bar (their row is flagged in red); the scale ignores them
    norms = [r.grad_norm if r.grad_norm is not None and np.isfinite(r.grad_norm) else None
             for r in rows]
    positive = [n for n in norms if n]
    if positive:
        low, high = min(positive), max(positive)
        left, right = low / 10, high * 10 ** 1.2
    else:
        left, right = 1e-3, 1e3
    _log_x(ax)
    ax.set_xlim(left, right)
    bars = ax.barh(ys, [n if n else 0 for n in norms], left=left, color=GRADIENT_COLOR,
                   alpha=0.85, height=0.6)
    for y, r, n in zip(ys, rows, norms):
        if n:
            ax.text(n * 1.2, y, f"{n:.3g}", va="center", fontsize=SMALL, color=GRADIENT_COLOR)
        if r.problems:  # a column of text to the right of the axes
            ax.text(1.03, y, _notes(r), va="center", fontsize=SMALL,
                    color=PROBLEM_COLOR, fontweight="bold", clip_on=False,
                    transform=ax.get_yaxis_transform())
    if not report.backward_seen:
        ax.set_xticks([])
        ax.text(0.5, 0.5, "no gradients yet:\nrun loss.backward(),\nthen press refresh",
                transform=ax.transAxes, ha="center", va="center", fontsize=FONT + 1,
                color=MUTED_COLOR)
    return bars


def _log_x(ax):
    """A log x axis with a few labelled decades and no minor ticks (they cost time)."""
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(numticks=6))
    ax.xaxis.set_minor_locator(NullLocator())


def _notes(row) -> str:
    """'✖ not in the model,  ∅ no gradient': the problems of one row, in words."""
    return ",  ".join(f"{FLAGS[f][0]} {_short(f)}" for f in row.problems)


def _inches(text: str, size: float) -> float:
    """About how wide a line of text is (0.62 em per character, bold included)."""
    return len(text) * 0.62 * size / 72


def _short(flag: str) -> str:
    return {"not_in_model": "not in the model", "not_in_optimizer": "not in the optimizer",
            "no_gradient": "no gradient", "zero_gradient": "zero gradient",
            "nonfinite_gradient": "NaN/inf gradient"}[flag]


def draw_legend(fig, y: float = 0.01, rows=None):
    """One line under the plots: what the markers drawn mean (only those in ``rows``;
    every marker when ``rows`` is None)."""
    order = ("not_in_model", "not_in_optimizer", "no_gradient", "zero_gradient",
             "nonfinite_gradient")
    used = set(order) if rows is None else {f for r in rows for f in r.problems}
    shared = rows is None or any("shared" in r.flags for r in rows)
    parts = [(f"{FLAGS[f][0]} {_short(f)}", PROBLEM_COLOR) for f in order if f in used]
    if shared:
        parts.append(("⇄ shared (all paths listed)", INFO_COLOR))
    if not parts:
        parts.append(("no markers: every parameter shown is in the model and the optimizer "
                      "and got a usable gradient", MUTED_COLOR))
    x = 0.02
    texts = []
    width = fig.get_figwidth() * 72  # points
    for text, color in parts:
        texts.append(fig.text(x, y, text, color=color, fontsize=SMALL, va="bottom"))
        x += (len(text) * 0.6 * SMALL + 24) / width  # about 0.6 em per character
    return texts


def draw_parameters(fig, report, rows=None, showing: str = "",
                    empty: str = "nothing to show here: no parameter matches"):
    """The whole view: counts on the left, gradient norms on the right, a legend below.

    ``rows`` narrows the view (default: every parameter); ``showing`` says to what,
    e.g. "problems only: 2 of 6 parameter tensors", in a line above the plots; ``empty``
    is what to say when ``rows`` is empty.
    """
    rows = report.parameters if rows is None else tuple(rows)
    if showing:
        fig.text(0.02, 1 - 0.08 / fig.get_figheight(), f"showing {showing}", va="top",
                 fontsize=FONT, color=MUTED_COLOR)
    if not rows:
        fig.text(0.5, 0.5, empty, ha="center",
                 va="center", fontsize=FONT + 1, color=MUTED_COLOR)
        return None, None
    # room for the row names on the left and the problem notes on the right, so that
    # neither is cut at the edge of the picture
    width = fig.get_figwidth()
    names = max(_inches(row_label(r), FONT) for r in rows) + 0.3
    notes = max((_inches(_notes(r), SMALL) for r in rows if r.problems), default=0.0)
    top = 1 - (0.85 if showing else 0.55) / fig.get_figheight()
    grid = fig.add_gridspec(1, 2, width_ratios=(1, 1.35), wspace=0.05,
                            left=min(max(0.22, names / width), 0.4),
                            right=1 - (notes + 0.4) / width if notes else 0.97,
                            top=top, bottom=0.9 / fig.get_figheight())
    ax_count = fig.add_subplot(grid[0])
    ax_grad = fig.add_subplot(grid[1])
    draw_parameter_counts(ax_count, report, rows)
    draw_gradient_norms(ax_grad, report, rows)
    draw_legend(fig, rows=rows)
    return ax_count, ax_grad
