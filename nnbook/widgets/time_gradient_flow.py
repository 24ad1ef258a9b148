"""TimeGradientFlow: the gradient reaching each time step of a recurrent model, through training.

    flow = TimeGradientFlow(rnn, x)              # records |dL/dh_t| once now
    flow                                         # show it, then train:
    for step in range(50):
        optimizer.zero_grad(); loss = ...; loss.backward()
        total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        flow.record(total_norm=total)            # one call per step
        optimizer.step()

Each record is :func:`nnbook.inspect.gradients_over_time` (|dL/dh_t| per layer and
direction, log scale): a line falling to the left is a vanishing gradient, one rising to
the left an exploding one.  With ``clip=max_norm`` the same lines are drawn after clipping
(every gradient times min(1, max_norm / total norm), the factor clip_grad_norm_ uses) and a
second panel shows the total norm per training step against the threshold.
"""
from __future__ import annotations

import html
import math

import ipywidgets as widgets

from ..errors import InputError, message
from ..inspect.time_gradients import TimeGradients, gradients_over_time
from ._base import PROJECTOR_IN, NnbookWidget
from ._following import FollowsTraining
from .draw.gradients import empty_flow
from .draw.time_gradients import clip_factor, draw_time_norms, draw_total_norms
from .palette import GRADIENT_COLOR, INFO_COLOR, MUTED_COLOR, PROBLEM_COLOR

WHERE = "TimeGradientFlow"


class TimeGradientFlow(FollowsTraining, NnbookWidget):
    """|dL/dh_t| per time step (log scale) per recurrent layer and direction, step by step.

    ``model`` and ``x`` (and ``loss_fn``, as for ``gradients_over_time``) let :meth:`record`
    measure by itself; ``trace`` starts from a TimeGradients you computed.  ``clip``: the
    max_norm you clip with, to draw the gradients after clipping too.
    """

    figsize = (PROJECTOR_IN, 5.6)   # 1200 px: 12-pt text reads on a projector

    def __init__(self, model=None, x=None, loss_fn=None, trace: TimeGradients | None = None,
                 thresholds=(1e-5, 1e2), clip: float | None = None,
                 redraw_interval: float = 0.25):
        super().__init__()
        if trace is None and (model is None or x is None):
            raise InputError(message(
                "needs a model and its input x, or a trace.", where=WHERE, line=None,
                hint="TimeGradientFlow(rnn, x), or TimeGradientFlow(trace=trace) with "
                "trace = nb.inspect.gradients_over_time(model, x, loss_fn)."))
        if trace is not None and not isinstance(trace, TimeGradients):
            raise InputError(message(
                f"trace must be a TimeGradients, got {type(trace).__name__}.", where=WHERE,
                line=None, hint="trace = nb.inspect.gradients_over_time(model, x, loss_fn)."))
        low, high = (float(t) for t in thresholds)
        if not 0 < low < high:
            raise InputError(message(
                f"thresholds must be (low, high) with 0 < low < high, got "
                f"{tuple(thresholds)}.", where=WHERE, line=None,
                hint="the default (1e-5, 1e2) marks vanishing below 1e-5 and exploding "
                "above 100."))
        if clip is not None and not (isinstance(clip, (int, float)) and clip > 0):
            raise InputError(message(
                f"clip must be a positive max_norm, got {clip!r}.", where=WHERE, line=None,
                hint="the max_norm you pass to nn.utils.clip_grad_norm_, e.g. clip=1.0."))
        self.model, self.x, self.loss_fn = model, x, loss_fn
        self.thresholds, self.clip = (low, high), clip
        self.redraw_interval = redraw_interval
        self.traces: list = []    # (step number, TimeGradients, total norm or None)
        self._last_draw, self._stale, self._quiet = 0.0, False, False
        first = trace if trace is not None else self._measure()
        self.traces.append((0, first, None))

        self.step_slider = widgets.IntSlider(value=0, min=0, max=0, description="step",
                                             disabled=True)
        self.play = widgets.Play(value=0, min=0, max=0, interval=400, description="play")
        widgets.link((self.play, "value"), (self.step_slider, "value"))
        widgets.link((self.play, "max"), (self.step_slider, "max"))
        self.clip_checkbox = widgets.Checkbox(value=clip is not None, indent=False,
                                              description="show clipping",
                                              disabled=clip is None)
        for control in (self.step_slider, self.clip_checkbox):
            control.observe(self._changed, names="value")
        self._setup([widgets.HBox([self.play, self.step_slider, self.clip_checkbox])])

    # -- feeding it ----------------------------------------------------------------------------
    def _measure(self) -> TimeGradients:
        if self.model is None or self.x is None:
            raise InputError(message(
                "record() without a trace needs the model and x the widget was made with.",
                where=f"{WHERE}.record", line=None,
                hint="flow.record(nb.inspect.gradients_over_time(model, x, loss_fn)), or "
                "make it with TimeGradientFlow(model, x)."))
        return gradients_over_time(self.model, self.x, self.loss_fn)

    def _total_norm(self):
        """The norm of all parameter gradients now (what clip_grad_norm_ would return)."""
        if self.model is None:
            return None
        squares = [float((p.grad.numpy().astype(float) ** 2).sum())
                   for p in self.model.parameters() if p.grad is not None]
        return math.sqrt(sum(squares)) if squares else None

    def record(self, trace: TimeGradients | None = None, total_norm=None,
               step: int | None = None) -> TimeGradients:
        """Measure (or take ``trace``) and show it as the newest step.

        ``total_norm``: the value ``clip_grad_norm_`` returned (the norm before clipping);
        without it the norm of the model's ``.grad`` now is used, so call record() after
        ``loss.backward()`` and before clipping.  Drawing is throttled as in GradientFlow.
        """
        if trace is not None and not isinstance(trace, TimeGradients):
            raise InputError(message(
                f"trace must be a TimeGradients, got {type(trace).__name__}.",
                where=f"{WHERE}.record", line=None,
                hint="trace = nb.inspect.gradients_over_time(model, x, loss_fn)."))
        trace = trace if trace is not None else self._measure()
        if list(trace.norms) != list(self.traces[0][1].norms):
            raise InputError(message(
                "this trace has other recurrent layers than the first one.",
                where=f"{WHERE}.record", line=None,
                values=f"first: {list(self.traces[0][1].norms)}, now: {list(trace.norms)}",
                hint="record() follows one model through training; make a new "
                "TimeGradientFlow for another model."))
        if total_norm is None:
            total_norm = self._total_norm()
        elif hasattr(total_norm, "item"):
            total_norm = float(total_norm.item())
        number = step if step is not None else self.traces[-1][0] + 1
        self.traces.append((number, trace, None if total_norm is None else float(total_norm)))
        newest = len(self.traces) - 1
        self._show_newest(newest)
        return trace

    def _changed(self, change) -> None:
        if not self._quiet:
            self.redraw()

    # -- what is shown ----------------------------------------------------------------------------
    def current(self):
        """(step number, TimeGradients, total norm or None) of the step the slider shows."""
        return self.traces[min(self.step_slider.value, len(self.traces) - 1)]

    def factor(self) -> float:
        """What clipping multiplies this step's gradients by (1 when not shown or not known)."""
        if not self.clip_checkbox.value:
            return 1.0
        return clip_factor(self.current()[2], self.clip)

    def _limits(self):
        values = [v for _, t, total in self.traces for series in t.norms.values()
                  for v in series]
        factors = [clip_factor(total, self.clip) for _, _, total in self.traces] \
            if self.clip_checkbox.value else [1.0]
        positive = [v * f for v in values for f in (1.0, min(factors)) if v > 0]
        return (min(positive), max(positive)) if positive else None

    def zones(self, name: str) -> tuple:
        """(time steps in the vanishing zone, time steps in the exploding zone) of one line."""
        low, high = self.thresholds
        series = self.current()[1].norms[name]
        return ([t for t, v in enumerate(series) if v < low],
                [t for t, v in enumerate(series) if v > high])

    def _title(self) -> str:
        step, trace, _ = self.current()
        length = len(next(iter(trace.norms.values())))
        text = f"{trace.model}, {length} time steps, loss: {trace.loss}"
        if len(self.traces) > 1:
            text = f"step {step} ({self.step_slider.value + 1} of {len(self.traces)} " \
                   f"recorded), " + text
        return text

    def draw(self, fig) -> None:
        step, trace, total = self.current()
        totals = [t for _, _, t in self.traces]
        known = self.clip is not None and any(t is not None for t in totals)
        if known:
            main = fig.add_axes((0.08, 0.14, 0.44, 0.74))  # its legend to its right
            side = fig.add_axes((0.82, 0.5, 0.16, 0.38))   # its legend below it
        else:
            main = fig.add_axes((0.08, 0.14, 0.66, 0.74))
        if not trace.norms:
            empty_flow(main, "no recurrent layer ran")
            return
        draw_time_norms(main, trace.norms, self.thresholds, self.factor(), self._limits(),
                        title=self._title())
        if known:
            shown = [t if t is not None else float("nan") for t in totals]
            draw_total_norms(side, [n for n, _, _ in self.traces], shown,
                             min(self.step_slider.value, len(self.traces) - 1),
                             self.clip if self.clip_checkbox.value else None)

    def describe(self) -> str:
        step, trace, total = self.current()
        low, high = self.thresholds
        lines = [f"TimeGradientFlow: {self._title()}"]
        for name, series in trace.norms.items():
            vanishing, exploding = self.zones(name)
            ratio = series[0] / series[-1] if series[-1] else float("inf")
            text = (f"  {name}: |dL/dh_t| from {series[0]:.3g} (t=0) to {series[-1]:.3g} "
                    f"(t={len(series) - 1}), first/last {ratio:.3g}")
            if vanishing:
                text += f"; vanishing (< {low:g}) at t={_steps(vanishing)}"
            if exploding:
                text += f"; exploding (> {high:g}) at t={_steps(exploding)}"
            lines.append(text)
        if self.clip is not None:
            if total is None:
                lines.append(f"  clipping at {self.clip:g}: total norm not known for this "
                             "step")
            else:
                lines.append(f"  clipping at {self.clip:g}: total norm {total:.3g}, every "
                             f"gradient times {clip_factor(total, self.clip):.3g}")
        return "\n".join(lines)

    def caption_html(self) -> str:
        step, trace, total = self.current()
        esc = html.escape
        parts = [f'<b style="color:{GRADIENT_COLOR};">|dL/dh_t|</b>: how much of the loss\'s '
                 "gradient reaches the hidden state at step t (log scale); "
                 f"<span style=\"color:{PROBLEM_COLOR};\">red points</span> are in the "
                 "vanishing or exploding zone"]
        for name in trace.norms:
            vanishing, exploding = self.zones(name)
            if vanishing or exploding:
                what = []
                if vanishing:
                    what.append(f"vanishing at t={_steps(vanishing)}")
                if exploding:
                    what.append(f"exploding at t={_steps(exploding)}")
                parts.append(f'<span style="color:{PROBLEM_COLOR};font-weight:bold;">'
                             f"{esc(name)}: {esc('; '.join(what))}</span>")
        if self.clip is not None and self.clip_checkbox.value and total is not None:
            parts.append(f'<span style="color:{INFO_COLOR};">dashed teal: after clipping to '
                         f"{self.clip:g} (× {clip_factor(total, self.clip):.3g}, the same for "
                         "every step: clipping tames exploding gradients, not vanishing "
                         "ones)</span>")
        elif self.clip is not None and total is None:
            parts.append(f'<span style="color:{MUTED_COLOR};">clipping: no total norm known '
                         "for this step (record after loss.backward(), or pass total_norm)"
                         "</span>")
        return '<div style="font-size:15px;line-height:1.5;">' + "<br>".join(parts) + "</div>"


def _steps(ts) -> str:
    """'0-4' for a run of steps, '0, 2, 5' otherwise (at most 6 listed)."""
    if ts == list(range(ts[0], ts[-1] + 1)) and len(ts) > 2:
        return f"{ts[0]}-{ts[-1]}"
    return ", ".join(map(str, ts[:6])) + (", ..." if len(ts) > 6 else "")
