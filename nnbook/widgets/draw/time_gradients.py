"""Drawing the gradient that reaches each time step of a recurrent layer, on a log scale.

One purple line per layer and direction (markers tell them apart); points in the vanishing
or exploding zone are red, the zones shaded as in the per-layer gradient view.  Clipping by
the total norm multiplies every step's gradient by the same factor: the clipped line (teal,
dashed) is the same curve moved down, so it tames exploding gradients and leaves vanishing
ones as they were.
"""
from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import LogLocator, MaxNLocator, NullLocator

from ..palette import GRADIENT_COLOR, INFO_COLOR, MUTED_COLOR, PROBLEM_COLOR
from .gradients import ZONE_FILL

FONT = 13
SMALL = 12
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
STYLES = ("-", "-.", ":", (0, (5, 1)))
CLIPPED_COLOR = INFO_COLOR


def clip_factor(total_norm, max_norm) -> float:
    """What clip_grad_norm_ multiplies every gradient by: min(1, max_norm / total)."""
    if total_norm is None or max_norm is None:
        return 1.0
    return min(1.0, float(max_norm) / (float(total_norm) + 1e-6))


def draw_time_norms(ax, norms: dict, thresholds=(1e-5, 1e2), factor: float = 1.0,
                    limits=None, title: str | None = None) -> list:
    """|dL/dh_t| against t, one line per name in ``norms`` (log scale).

    ``factor`` < 1 also draws each line after clipping (multiplied by it); ``limits``
    (smallest, largest) keeps the scale fixed while stepping through training.
    """
    low, high = thresholds
    values = [v for series in norms.values() for v in series]
    positive = [v for v in values + [v * factor for v in values] if v > 0]
    lo, hi = limits if limits else (min(positive, default=low), max(positive, default=high))
    floor, top = min(lo, low) / 10, max(hi, high) * 10
    lines = []
    for k, (name, series) in enumerate(norms.items()):
        steps = np.arange(len(series))
        shown = np.maximum(np.asarray(series, dtype=float), floor)
        style, marker = STYLES[k % len(STYLES)], MARKERS[k % len(MARKERS)]
        lines += ax.plot(steps, shown, color=GRADIENT_COLOR, ls=style, lw=2.5, marker=marker,
                         ms=7, label=name)
        bad = (shown < low) | (shown > high)
        ax.plot(steps[bad], shown[bad], ls="none", marker=marker, ms=8, color=PROBLEM_COLOR)
        if factor < 1.0:
            ax.plot(steps, np.maximum(shown * factor, floor), color=CLIPPED_COLOR, ls="--",
                    lw=2, marker=marker, ms=5, alpha=0.9)
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(numticks=8))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(floor, top)
    ax.axhspan(floor, low, color=ZONE_FILL, zorder=0, lw=0)
    ax.axhspan(high, top, color=ZONE_FILL, zorder=0, lw=0)
    for threshold, zone in zip(thresholds, ("vanishing", "exploding")):
        ax.axhline(threshold, color=PROBLEM_COLOR, lw=1.5, ls="--")
        ax.text(0.01, threshold, f" {zone} {'<' if zone == 'vanishing' else '>'} {threshold:g}",
                transform=ax.get_yaxis_transform(), ha="left",
                va="top" if zone == "vanishing" else "bottom", fontsize=SMALL,
                color=PROBLEM_COLOR)
    ax.set_xlabel("time step t (the loss is computed after the last one)", fontsize=FONT)
    ax.set_ylabel("|dL/dh_t|", fontsize=FONT)
    ax.tick_params(labelsize=SMALL)
    if title:
        ax.set_title(title, fontsize=FONT + 1, loc="left")
    handles = [Line2D([], [], color=GRADIENT_COLOR, ls=STYLES[k % len(STYLES)], lw=2.5,
                      marker=MARKERS[k % len(MARKERS)], label=name)
               for k, name in enumerate(norms)]
    handles.append(Line2D([], [], color=PROBLEM_COLOR, ls="none", marker="o",
                          label="vanishing / exploding"))
    if factor < 1.0:
        handles.append(Line2D([], [], color=CLIPPED_COLOR, ls="--", lw=2,
                              label=f"after clipping (× {factor:.3g})"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=SMALL,
              frameon=False)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return lines


def draw_total_norms(ax, steps, totals, current: int, max_norm=None) -> None:
    """The total gradient norm of each recorded training step (``steps``: their numbers,
    ``current``: the index of the one shown), the clip threshold in red."""
    xs = np.asarray(steps)
    ax.plot(xs, totals, color=GRADIENT_COLOR, lw=2, marker="o", ms=5,
            label="before clipping")
    if max_norm is not None:
        clipped = np.minimum(np.asarray(totals, dtype=float), float(max_norm))
        ax.plot(xs, clipped, color=CLIPPED_COLOR, lw=2, ls="--", marker="o", ms=5,
                label="after clipping")
        ax.axhline(float(max_norm), color=PROBLEM_COLOR, lw=1.5, ls="--",
                   label=f"max_norm = {float(max_norm):g}")
    ax.plot([xs[current]], [totals[current]], marker="o", ms=13, mfc="none", mec=MUTED_COLOR,
            mew=2.5, ls="none", label="step shown")
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=5))
    ax.set_xlim(xs.min() - 0.5, xs.max() + 0.5)
    ax.set_xlabel("recorded training step", fontsize=FONT)
    ax.set_ylabel("total gradient norm", fontsize=FONT)
    ax.tick_params(labelsize=SMALL)
    ax.set_title("all parameters", fontsize=FONT + 1, loc="left")
    ax.legend(fontsize=SMALL, frameon=False, loc="upper left", bbox_to_anchor=(-0.25, -0.3))
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
