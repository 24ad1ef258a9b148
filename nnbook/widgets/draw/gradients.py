"""Drawing gradient statistics per parameter: bars in layer order, zones marked.

Healthy gradients are purple (the colour of gradients everywhere in nnbook); bars in
the vanishing or exploding zone are red, pale for vanishing and dark for exploding. Given
the kind of layer of each parameter (``kinds``), the bars take the colour of their kind
instead (LAYER_KIND_COLORS), and a bar in a zone keeps it, hatched with a red edge; the
legend explains every colour drawn.
"""
from __future__ import annotations

from matplotlib.patches import Patch
from matplotlib.ticker import LogLocator, NullLocator

from ...inspect.flow import gradient_flow
from ..palette import GRADIENT_COLOR, LAYER_KIND_COLORS, MUTED_COLOR, PROBLEM_COLOR

FONT = 13
SMALL = 12
ZONE_COLORS = {"healthy": GRADIENT_COLOR, "vanishing": "#e57373", "exploding": "#8e0000",
               "none": "#bdbdbd"}
ZONE_FILL = "#fff0ef"
STAT_LABELS = {"norm": "‖grad‖ (norm)", "mean": "mean of grad", "max_abs": "max |grad|"}


def draw_gradient_bars(ax, stats, stat: str = "norm", log: bool = True,
                       thresholds=(1e-5, 1e2), biases: bool = False, limits=None,
                       title: str | None = None, kinds: dict | None = None):
    """Bars of one statistic per parameter, in layer order, coloured by zone.

    ``stats``: GradStats of one step; ``limits``: (smallest, largest) magnitude to keep
    the scale fixed while stepping (e.g. from ``flow_range``); ``kinds``: parameter path ->
    kind of layer (a key of LAYER_KIND_COLORS), to colour the bars by kind; returns the bars.
    """
    flow = gradient_flow(stats, stat, thresholds, biases)
    colours = [_bar_colour(b, kinds) for b in flow]
    low, high = thresholds
    xs = list(range(len(flow)))
    values = [b.value for b in flow]
    if log:  # magnitudes; a zero or a missing gradient sits on the floor of the axis
        shown = [abs(v) if v else 0.0 for v in values]
        lo, hi = limits if limits else _magnitudes(values)
        floor = min(lo if lo > 0 else low, low) / 10
        top = max(hi, high) * 10
        heights = [max(v, floor) - floor for v in shown]
        bars = ax.bar(xs, heights, bottom=floor, width=0.7, color=colours)
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(numticks=8))
        ax.yaxis.set_minor_locator(NullLocator())
        ax.set_ylim(floor, top)
        ax.axhspan(floor, low, color=ZONE_FILL, zorder=0, lw=0)
        ax.axhspan(high, top, color=ZONE_FILL, zorder=0, lw=0)
    else:
        shown = [v if v is not None else 0.0 for v in values]
        lo, hi = limits if limits else _magnitudes(values)
        top = (hi or 1.0) * 1.2
        bottom = -top if stat == "mean" else 0.0  # a mean has a sign: keep 0 in the middle
        bars = ax.bar(xs, shown, width=0.7, color=colours)
        ax.set_ylim(bottom, top)
        ax.axhline(0, color="#9e9e9e", lw=1)
    _draw_thresholds(ax, thresholds, log)
    _label_bars(ax, xs, flow, bars, log)
    ax.set_xticks(xs, [b.path for b in flow], rotation=30 if len(flow) > 4 else 0,
                  ha="right" if len(flow) > 4 else "center", fontsize=SMALL + 0.5)
    for tick, b in zip(ax.get_xticklabels(), flow):
        tick.set_color(PROBLEM_COLOR if b.zone in ("vanishing", "exploding", "none")
                       else "black")
    ax.set_xlim(-0.6, len(flow) - 0.4)
    ax.tick_params(axis="y", labelsize=SMALL)
    label = STAT_LABELS[stat]
    ax.set_ylabel(("|mean of grad|" if stat == "mean" else label) if log else label,
                  fontsize=FONT)
    if title:
        ax.set_title(title, fontsize=FONT + 1, loc="left")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    _draw_legend(ax, flow, bars, kinds)
    return bars


def _draw_legend(ax, flow, bars, kinds) -> None:
    """The zones' colours; or, with kinds, the kinds drawn and how a bar in a zone looks."""
    if kinds is None:
        handles = [Patch(color=ZONE_COLORS[z], label=z) for z in
                   ("healthy", "vanishing", "exploding")]
    else:  # the kinds drawn, then how a bar in a zone looks
        shown_kinds = [k for k in LAYER_KIND_COLORS if any(kinds.get(b.path) == k for b in flow)]
        handles = [Patch(color=LAYER_KIND_COLORS[k], label=k) for k in shown_kinds]
        handles.append(Patch(facecolor="white", edgecolor=PROBLEM_COLOR, hatch="///",
                             label="in a red zone"))
        for bar, b in zip(bars, flow):
            if b.zone in ("vanishing", "exploding"):
                bar.set_hatch("///")
                bar.set_edgecolor(PROBLEM_COLOR)
                bar.set_linewidth(1.5)
    ax.legend(handles=handles, loc="lower right", fontsize=SMALL, ncol=len(handles),
              frameon=False, bbox_to_anchor=(1.0, 1.0), borderaxespad=0.2)


def _bar_colour(bar, kinds):
    """The zone's colour, or the layer kind's when kinds are given (grey: no gradient)."""
    if kinds is None or bar.zone == "none":
        return ZONE_COLORS[bar.zone]
    return LAYER_KIND_COLORS.get(kinds.get(bar.path, "other"), LAYER_KIND_COLORS["other"])


def _draw_thresholds(ax, thresholds, log: bool) -> None:
    """Dashed red lines where the vanishing and exploding zones begin, labelled."""
    top = ax.get_ylim()[1]
    for threshold, zone in zip(thresholds, ("vanishing", "exploding")):
        # on a linear axis a line at 1e-5 would sit on zero: draw only the visible ones
        if log or 0.03 * top < threshold <= top:
            ax.axhline(threshold, color=PROBLEM_COLOR, lw=1.5, ls="--")
            ax.text(1.01, threshold, f"{zone}\n{'<' if zone == 'vanishing' else '>'} "
                    f"{threshold:g}", transform=ax.get_yaxis_transform(), ha="left",
                    va="top" if zone == "vanishing" else "bottom", fontsize=SMALL,
                    color=PROBLEM_COLOR, clip_on=False)


def _label_bars(ax, xs, flow, bars, log: bool) -> None:
    """'no grad' where there is no gradient; the value on its bar when few bars are drawn."""
    for x, b, bar in zip(xs, flow, bars):
        if b.value is None:
            ax.text(x, 0.02, "no\ngrad", transform=ax.get_xaxis_transform(), ha="center",
                    va="bottom", fontsize=SMALL, color=PROBLEM_COLOR, fontweight="bold")
        elif len(flow) <= 16:  # the value on top of its bar (below it when negative)
            up = b.value >= 0 or log
            ax.text(x, bar.get_y() + bar.get_height() if up else bar.get_y(), f"{b.value:.2g}",
                    ha="center", va="bottom" if up else "top",
                    fontsize=SMALL if len(flow) <= 10 else SMALL - 1.5,
                    color=ZONE_COLORS[b.zone] if b.zone != "vanishing" else PROBLEM_COLOR)


def _magnitudes(values):
    sizes = [abs(v) for v in values if v is not None]
    nonzero = [v for v in sizes if v > 0]
    return (min(nonzero) if nonzero else 0.0, max(sizes) if sizes else 0.0)


def empty_flow(ax, message: str):
    """The chart before anything was recorded: a short instruction, no axes."""
    ax.set_axis_off()
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=FONT + 2,
            color=MUTED_COLOR, transform=ax.transAxes)
