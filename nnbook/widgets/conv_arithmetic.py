"""ConvArithmetic: which input pixels one output pixel of a convolution reads.

    ConvArithmetic()                                   # 7×5 input, 3×2 kernel, stride (2, 1), …
    ConvArithmetic(in_height=6, in_width=9, stride=2, padding=(0, 1), groups=1)

Sliders set the input size, kernel, stride, padding, dilation, channels and groups,
and pick an output pixel; the picture shows its receptive field on the padded
input.  The arithmetic lives in :mod:`nnbook.inspect.conv_geometry` (checked by the
Conv2d op's own shape rule), so an impossible setting shows the op's explanation.
"""
from __future__ import annotations

import html

import ipywidgets as widgets

from ..inspect.conv_geometry import conv_geometry, group_connections, receptive_field, tap_formulas
from ..ops.base import pair
from ._base import NnbookWidget
from .draw.conv import conv_title, draw_conv_grid, draw_conv_text, draw_group_diagram
from .draw.shapes import ERROR, INPUT, LAYER, OUTPUT, TEXT, draw_text_lines, split_error

# name: (description, min, max) of each setting's slider
SETTINGS = {
    "in_height": ("input H", 1, 16), "in_width": ("input W", 1, 16),
    "kernel_height": ("kernel H", 1, 7), "kernel_width": ("kernel W", 1, 7),
    "stride_h": ("stride H", 1, 4), "stride_w": ("stride W", 1, 4),
    "padding_h": ("padding H", 0, 4), "padding_w": ("padding W", 0, 4),
    "dilation_h": ("dilation H", 1, 4), "dilation_w": ("dilation W", 1, 4),
    "in_channels": ("in channels", 1, 12), "out_channels": ("out channels", 1, 12),
    "groups": ("groups", 1, 12),
}
ROWS = (("in_height", "in_width"), ("kernel_height", "kernel_width"), ("stride_h", "stride_w"),
        ("padding_h", "padding_w"), ("dilation_h", "dilation_w"),
        ("in_channels", "out_channels", "groups"))


def _span(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}–{last}"


def _groups_text(connections) -> str:
    """'output channels 0–2 read input channels 0–1; 3–5 read 2–3'."""
    runs = []  # [first output, last output, input range]
    for o, inputs in connections:
        if runs and runs[-1][2] == inputs:
            runs[-1][1] = o
        else:
            runs.append([o, o, inputs])
    parts = [(_span(a, b), _span(r.start, r.stop - 1)) for a, b, r in runs]
    (outs, ins), rest = parts[0], parts[1:]
    return f"output channels {outs} read input channels {ins}" + \
        "".join(f"; {outs} read {ins}" for outs, ins in rest)


def _slider(description, low, high, value) -> widgets.IntSlider:
    return widgets.IntSlider(value=value, min=min(low, value), max=max(high, value),
                             description=description, style={"description_width": "90px"},
                             layout=widgets.Layout(width="300px"))


class ConvArithmetic(NnbookWidget):
    """Controls for a 2-D convolution and a picture of one output pixel's receptive field."""

    figsize = (8.0, 5.0)

    def __init__(self, in_height=7, in_width=5, kernel_height=3, kernel_width=2,
                 stride=(2, 1), padding=(1, 0), dilation=(1, 2), in_channels=4,
                 out_channels=6, groups=2, out_pos=(0, 0), **kwargs):
        super().__init__(**kwargs)
        (s_h, s_w), (p_h, p_w), (d_h, d_w) = (pair(value, name, "ConvArithmetic") for name, value
                                              in (("stride", stride), ("padding", padding),
                                                  ("dilation", dilation)))
        values = dict(in_height=in_height, in_width=in_width, kernel_height=kernel_height,
                      kernel_width=kernel_width, stride_h=s_h, stride_w=s_w, padding_h=p_h,
                      padding_w=p_w, dilation_h=d_h, dilation_w=d_w, in_channels=in_channels,
                      out_channels=out_channels, groups=groups)
        self.controls = {name: _slider(*SETTINGS[name], int(values[name])) for name in SETTINGS}
        self.out_row = _slider("output row", 0, 0, 0)
        self.out_col = _slider("output col", 0, 0, 0)
        self.controls.update(out_row=self.out_row, out_col=self.out_col)
        for name, control in self.controls.items():
            setattr(self, name, control)
        self._quiet = False  # True while the code itself moves the output sliders
        self._update_geometry(out_pos)
        for name in SETTINGS:
            self.controls[name].observe(self._on_setting, names="value")
        self.out_row.observe(self._on_position, names="value")
        self.out_col.observe(self._on_position, names="value")
        rows = [widgets.HBox([self.controls[n] for n in row]) for row in ROWS]
        self._setup(rows + [widgets.HBox([self.out_row, self.out_col])])

    # -- view state -------------------------------------------------------------------
    def _update_geometry(self, out_pos=None) -> None:
        v = {name: control.value for name, control in self.controls.items()}
        self.geometry = conv_geometry(
            (v["in_height"], v["in_width"]), (v["kernel_height"], v["kernel_width"]),
            (v["stride_h"], v["stride_w"]), (v["padding_h"], v["padding_w"]),
            (v["dilation_h"], v["dilation_w"]), v["in_channels"], v["out_channels"],
            v["groups"])
        ok = self.geometry.ok
        self._quiet = True
        try:
            for slider, axis in ((self.out_row, 0), (self.out_col, 1)):
                slider.disabled = not ok
                if ok:
                    slider.max = self.geometry.out_hw[axis] - 1  # clamps the value
            if ok and out_pos is not None:
                self.out_row.value = min(out_pos[0], self.out_row.max)
                self.out_col.value = min(out_pos[1], self.out_col.max)
        finally:
            self._quiet = False

    def _on_setting(self, change) -> None:
        self._update_geometry()
        self.redraw()

    def _on_position(self, change) -> None:
        if not self._quiet:
            self.redraw()

    @property
    def out_pos(self) -> tuple:
        return (self.out_row.value, self.out_col.value)

    def taps(self) -> list:
        """The receptive field of the chosen output pixel (empty for an invalid setting)."""
        g = self.geometry
        if not g.ok:
            return []
        return receptive_field(g.in_hw, g.kernel_hw, g.stride, g.padding, g.dilation,
                               self.out_pos)

    # -- rendering ----------------------------------------------------------------------
    def draw(self, fig) -> None:
        # Two Axes at most (each costs ~10 ms to make); text goes in figure coordinates.
        g = self.geometry
        self.drawn = {}  # the grid's artists by kind, for tests and the curious
        # an invalid setting shows only its message: a short picture, not a mostly blank one
        fig.set_size_inches(self.figsize if g.ok else (self.figsize[0], 2.3))
        if not g.ok:
            ax = fig.add_axes((0, 0, 1, 1))
            ax.set_axis_off()
            draw_text_lines(ax, [(conv_title(g) + " → no output: these settings do not fit",
                                  {"size": 15, "bold": True, "color": ERROR})],
                            x=0.02, top=0.96)
            draw_conv_text(ax, g, wrap=62, error_size=14, x=0.03, top=0.74)
            return
        grid = fig.add_axes((0.01, 0.27, 0.7, 0.58))
        draw_text_lines(grid, [(conv_title(g), {"size": 15, "bold": True, "color": TEXT})],
                        x=0.02, top=0.985, coords="figure fraction")
        self.drawn = draw_conv_grid(grid, g, self.taps(), self.out_pos)
        connections = group_connections(g.in_channels, g.out_channels, g.groups)
        draw_group_diagram(fig.add_axes((0.75, 0.38, 0.2, 0.45)), g.in_channels,
                           g.out_channels, connections, g.groups)
        draw_conv_text(grid, g, tap_formulas(g, self.out_pos), x=0.03, top=0.26,
                       coords="figure fraction")

    def _settings_text(self) -> str:
        g = self.geometry

        def show(p):
            return str(p[0]) if p[0] == p[1] else f"({p[0]}, {p[1]})"
        return (f"kernel {g.kernel_hw[0]}×{g.kernel_hw[1]}, stride {show(g.stride)}, "
                f"padding {show(g.padding)}, dilation {show(g.dilation)}, "
                f"groups {g.groups}")

    def describe(self) -> str:
        g = self.geometry
        if not g.ok:
            what = split_error(g.error)["what"]
            return f"ConvArithmetic: invalid settings: {what.split(': ', 1)[-1]}"
        taps = self.taps()
        padding = sum(t.padding for t in taps)
        (h, w), (h_out, w_out) = g.in_hw, g.out_hw
        return (f"ConvArithmetic: {g.in_channels}×{h}×{w} -> {g.out_channels}×{h_out}×{w_out}, "
                f"{self._settings_text()}; output {self.out_pos} reads {len(taps)} "
                f"input{'s' if len(taps) > 1 else ''}, {padding} of them padding")

    def caption_html(self) -> str:
        g, esc = self.geometry, html.escape
        if not g.ok:
            parts = split_error(g.error)
            return (f"<div style='font-size:15px;color:{ERROR};border-left:4px solid {ERROR};"
                    f"padding-left:8px'><b>{esc(parts['type'])}: {esc(parts['what'])}</b>"
                    f"<pre style='color:{ERROR};margin:4px 0'>{esc(chr(10).join(parts['values']))}"
                    f"</pre><div><b>hint:</b> {esc(parts['hint'])}</div></div>")
        taps = self.taps()
        reads = ", ".join(f"({t.row}, {t.col})" + ("*" if t.padding else "") for t in taps)
        formula = "".join(f"<div><code>{esc(line)}</code></div>" for line in g.formula)
        where = "".join(f"<div><code style='color:{LAYER}'>{esc(line)}</code></div>"
                        for line in tap_formulas(g, self.out_pos))
        groups = f"groups={g.groups}: " + _groups_text(
            group_connections(g.in_channels, g.out_channels, g.groups))
        return (f"<div style='font-size:15px;line-height:1.5'>"
                f"<div><span style='color:{INPUT}'><b>input</b> {g.in_hw[0]}×{g.in_hw[1]}</span>"
                f" → <span style='color:{OUTPUT}'><b>output</b> {g.out_hw[0]}×{g.out_hw[1]}"
                f"</span></div>{formula}{where}"
                f"<div>output <b>{self.out_pos}</b> reads input pixels {esc(reads)}"
                f"{' (* = padding zero)' if any(t.padding for t in taps) else ''}</div>"
                f"<div>{esc(groups)}</div></div>")
