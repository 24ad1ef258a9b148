"""GradientFlow: gradient statistics per layer, step by step through training.

    flow = GradientFlow(model)
    flow                                   # show it, then train:
    for step in range(50):
        optimizer.zero_grad(); loss = ...; loss.backward()
        flow.record()                      # one call per step
        optimizer.step()

Bars in layer order, coloured by the kind of layer; a slider goes back over the
recorded steps.  Thresholds mark the vanishing and exploding zones.  Under the chart (and
in the text) each step also gets what nnbook.inspect.activity measures: the fraction of
dead ReLU units and of saturated sigmoid or tanh outputs in the forward before it, and the
update-to-data ratio of each weight over the optimizer step before it.  The statistics come from
:class:`nnbook.inspect.GradientHistory`; the zones from
:func:`nnbook.inspect.flow.gradient_flow`.
"""
from __future__ import annotations

import html

import ipywidgets as widgets

from ..errors import InputError, message
from ..inspect.activity import snapshot, update_ratios, watch_activations
from ..inspect.flow import STATS, flow_range, gradient_flow, is_bias
from ..inspect.records import GradientHistory
from ._base import NnbookWidget
from ._following import FollowsTraining
from .draw.gradients import draw_gradient_bars, empty_flow
from .palette import GRADIENT_COLOR, MUTED_COLOR, PROBLEM_COLOR, layer_kind

STAT_OPTIONS = (("norm", "norm"), ("mean", "mean"), ("max |grad|", "max_abs"))


class GradientFlow(FollowsTraining, NnbookWidget):
    """Per-parameter gradient norm, mean or max |grad| over recorded training steps."""

    figsize = (11.0, 5.2)
    png_dpi = 110  # 1210 px wide: readable on a projector

    def __init__(self, model=None, history: GradientHistory | None = None,
                 thresholds=(1e-5, 1e2), stat: str = "norm", log: bool = True,
                 biases: bool = False, redraw_interval: float = 0.25):
        super().__init__()
        if history is None and model is None:
            raise InputError(message(
                "needs a model or a recorded history.", where="GradientFlow", line=None,
                hint="GradientFlow(model), or GradientFlow(history=history) with a "
                "nb.inspect.GradientHistory you recorded."))
        if stat not in STATS:
            raise InputError(message(
                f"stat must be one of {', '.join(STATS)}, got {stat!r}.",
                where="GradientFlow", line=None, hint="stat='norm' is the usual view."))
        low, high = (float(t) for t in thresholds)
        if not 0 < low < high:
            raise InputError(message(
                f"thresholds must be (low, high) with 0 < low < high, got "
                f"{tuple(thresholds)}.", where="GradientFlow", line=None,
                hint="the default (1e-5, 1e2) marks vanishing below 1e-5 and exploding "
                "above 100."))
        self.history = history if history is not None else GradientHistory(model)
        self.model = model if model is not None else self.history.model
        self.thresholds = (low, high)
        self.redraw_interval = redraw_interval  # record() redraws at most this often
        self._ranges: dict = {}   # (stat, biases) -> [steps covered, (lo, hi) or None]
        self._last_draw, self._stale = 0.0, False
        # activations and updates, per index into the history (steps recorded here only)
        self._live: dict = {}          # layer path -> ActivationStats of its last output
        self._activity: dict = {}      # history index -> (activations, update ratios)
        self._before = None            # the parameters at the last record()
        if self.model is not None:
            watch_activations(self.model, self._live)

        self.stat_dropdown = widgets.Dropdown(options=STAT_OPTIONS, value=stat,
                                              description="statistic")
        self.log_checkbox = widgets.Checkbox(value=log, description="log scale", indent=False)
        self.bias_checkbox = widgets.Checkbox(value=biases, description="show biases",
                                              indent=False)
        n = len(self.history)
        self.step_slider = widgets.IntSlider(value=max(n - 1, 0), min=0, max=max(n - 1, 0),
                                      description="step", disabled=n == 0,
                                      continuous_update=True)
        self.play = widgets.Play(value=self.step_slider.value, min=0, max=self.step_slider.max,
                                 interval=400, description="play")
        widgets.link((self.play, "value"), (self.step_slider, "value"))
        widgets.link((self.play, "max"), (self.step_slider, "max"))
        for control in (self.stat_dropdown, self.log_checkbox, self.bias_checkbox,
                        self.step_slider):
            control.observe(self._changed, names="value")
        self._setup([widgets.HBox([self.play, self.step_slider]),
                     widgets.HBox([self.stat_dropdown, self.log_checkbox, self.bias_checkbox])])

    # -- feeding it -------------------------------------------------------------------
    def record(self, step: int | None = None):
        """Record the gradient statistics of the model now and show that step.

        Call once per training step, after ``loss.backward()``.  Drawing is throttled
        (at most every ``redraw_interval`` seconds); the newest step is drawn when the
        cell finishes, or when the widget is shown or read.
        """
        stats = self.history.record(step)
        newest = len(self.history) - 1
        ratios = update_ratios(self._before, self.model) if self._before is not None else {}
        self._activity[newest] = (dict(self._live), ratios)
        self._before = snapshot(self.model)
        self._show_newest(newest)
        return stats

    def _changed(self, change) -> None:
        if not self._quiet:
            self.redraw()

    # -- what is shown ------------------------------------------------------------------
    def current(self):
        """(step number, GradStats) of the step the slider shows, or None before any record."""
        if not len(self.history):
            return None
        i = min(self.step_slider.value, len(self.history) - 1)
        return self.history.steps[i], self.history.stats[i]

    def bars(self):
        """FlowBars of the current view (what the chart draws)."""
        current = self.current()
        if current is None:
            return ()
        return gradient_flow(current[1], self.stat_dropdown.value, self.thresholds,
                             self.bias_checkbox.value)

    def _limits(self):
        """One scale for all recorded steps, so the bars can be compared while stepping."""
        key = (self.stat_dropdown.value, self.bias_checkbox.value)
        covered, limits = self._ranges.get(key, (0, None))
        n = len(self.history)
        if covered < n:
            new = flow_range(self.history.stats[covered:], *key)
            if limits is None or new is None:
                limits = limits or new
            else:  # the smallest non-zero and the largest magnitude seen so far
                positive = [v for v in (limits[0], new[0]) if v > 0]
                limits = (min(positive) if positive else 0.0, max(limits[1], new[1]))
            self._ranges[key] = (n, limits)
        return limits

    def draw(self, fig) -> None:
        current = self.current()
        ax = fig.add_subplot()
        if current is None:
            empty_flow(ax, "nothing recorded yet:\ncall flow.record() after loss.backward(), "
                           "once per training step")
            return
        step, stats = current
        lines = self.activity_lines()
        fig.subplots_adjust(left=0.09, right=0.89, top=0.9, bottom=0.3 if lines else 0.22)
        room = int((fig.get_figwidth() - 0.25) * 72 / (0.6 * 12))  # 12-pt characters
        for i, line in enumerate(lines):
            fig.text(0.01, 0.07 - 0.055 * i, _fit(line, room), fontsize=12, color=MUTED_COLOR,
                     ha="left", va="bottom")
        draw_gradient_bars(ax, stats, self.stat_dropdown.value, self.log_checkbox.value,
                           self.thresholds, self.bias_checkbox.value, limits=self._limits(),
                           title=f"step {step}  ({self.step_slider.value + 1} of "
                                 f"{len(self.history)} recorded)", kinds=self.kinds())

    def kinds(self) -> dict:
        """Parameter path -> kind of its layer ('Linear', 'Conv', 'BatchNorm', 'other')."""
        modules = dict(self.model.named_modules())
        return {path: layer_kind(modules.get(path.rpartition(".")[0], self.model))
                for path, _ in self.model.named_parameters()}

    def activity(self):
        """(activations, update ratios) of the step shown: {layer path: ActivationStats}
        and {parameter path: ratio}; empty for a step recorded without this widget."""
        current = self.current()
        if current is None:
            return {}, {}
        return self._activity.get(min(self.step_slider.value, len(self.history) - 1), ({}, {}))

    def activity_lines(self) -> list:
        """Two short lines: activations in the last forward, updates of the last step."""
        activations, ratios = self.activity()
        lines = []
        parts = []
        for kind in ("ReLU", "Sigmoid", "Tanh"):  # one part per kind of activation
            of_kind = [a for a in activations.values() if a.kind == kind]
            if of_kind:
                parts.append(f"{of_kind[0].what} {kind} by layer " + ", ".join(
                    f"{a.path} {a.fraction:.0%}" for a in of_kind))
        if parts:
            lines.append("activations: " + "; ".join(parts))
        shown = {p: r for p, r in ratios.items() if self.bias_checkbox.value or not is_bias(p)}
        if shown:
            lines.append("update/data (last step): " + ", ".join(
                f"{p} {'--' if r is None else format(r, '.0e')}" for p, r in shown.items()))
        elif activations:
            lines.append("update/data: from the second recorded step on")
        return lines

    def _zones(self):
        bars = self.bars()
        return ([b.path for b in bars if b.zone == "vanishing"],
                [b.path for b in bars if b.zone == "exploding"],
                [b.path for b in bars if b.zone == "none"])

    def describe(self) -> str:
        current = self.current()
        if current is None:
            return "GradientFlow: nothing recorded yet (call record() after loss.backward())"
        low, high = self.thresholds
        vanishing, exploding, missing = self._zones()
        lines = [f"GradientFlow: step {current[0]} ({self.step_slider.value + 1} of "
                 f"{len(self.history)} recorded), {self.stat_dropdown.value}, "
                 f"{'log' if self.log_checkbox.value else 'linear'} scale"]
        lines.append(f"  vanishing (< {low:g}): {_names(vanishing)}")
        lines.append(f"  exploding (> {high:g}): {_names(exploding)}")
        if missing:
            lines.append(f"  no gradient: {_names(missing)}")
        # the text view stays at 5 short lines: activity fills what is left
        lines += [_fit(f"  {line}", 158) for line in self.activity_lines()][:5 - len(lines)]
        return "\n".join(lines)

    def caption_html(self) -> str:
        current = self.current()
        if current is None:
            return (f'<div style="font-size:15px;color:{MUTED_COLOR};">nothing recorded yet: '
                    "call <code>flow.record()</code> after <code>loss.backward()</code>, once "
                    "per training step.</div>")
        low, high = self.thresholds
        vanishing, exploding, missing = self._zones()
        stat = html.escape(STATS[self.stat_dropdown.value])
        parts = [f'<b style="color:{GRADIENT_COLOR};">{stat}</b> per parameter, in layer '
                 f"order, step {current[0]}"]
        for names, what in ((vanishing, f"▼ vanishing (&lt; {low:g})"),
                            (exploding, f"▲ exploding (&gt; {high:g})"),
                            (missing, "∅ no gradient")):
            if names:
                parts.append(f'<span style="color:{PROBLEM_COLOR};font-weight:bold;">{what}: '
                             f"{html.escape(', '.join(names))}</span>")
        if not (vanishing or exploding or missing):
            parts.append(f'<span style="color:{GRADIENT_COLOR};">all within '
                         f"[{low:g}, {high:g}]</span>")
        parts += [html.escape(line) for line in self.activity_lines()]
        return '<div style="font-size:15px;line-height:1.5;">' + "<br>".join(parts) + "</div>"


def _fit(line: str, width: int) -> str:
    """One line of the picture, cut to ``width`` characters (the text view has it all)."""
    return line if len(line) <= width else line[:width - 2] + " …"


def _names(paths) -> str:
    if not paths:
        return "none"
    return ", ".join(paths[:5]) + (f", ... ({len(paths) - 5} more)" if len(paths) > 5 else "")
