"""Which parameters a model holds, which the optimizer holds, and which got a gradient.

Seed 000's optimizer held two tensors the model never used, while the model's own
convolutions were in no optimizer: nothing learned and nothing said so.

    report = nb.inspect.parameter_report(model, optimizer)
    print(report)                  # a table, with the problems listed underneath
    report.flagged("not_in_model") # the rows the optimizer holds but the model doesn't

and :func:`gradient_flow` sorts one step's gradient statistics into zones
(vanishing / healthy / exploding) for the gradient-flow chart.
"""
from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, fmt_shape, message

# flag -> (marker, what it means); the four problems first, then information.
FLAGS = {
    "not_in_model": ("✖", "held by the optimizer but not in the model: the model never uses it"),
    "not_in_optimizer": ("⊘", "in the model but not in the optimizer: never updated"),
    "no_gradient": ("∅", "got no gradient in the last backward: not used by the loss"),
    "zero_gradient": ("○", "its gradient is all zeros"),
    "nonfinite_gradient": ("!", "its gradient holds NaN or inf: see nb.detect_anomaly()"),
    "shared": ("⇄", "shared: one tensor under several paths"),
}
PROBLEMS = ("not_in_model", "not_in_optimizer", "no_gradient", "zero_gradient",
            "nonfinite_gradient")

# The colours of every nnbook view (nnbook.widgets.draw uses the same ones).
FORWARD_COLOR = "#1565c0"    # values, parameters
GRADIENT_COLOR = "#7b3fa0"   # gradients
PROBLEM_COLOR = "#c62828"    # anything wrong
INFO_COLOR = "#00796b"       # shared, and other plain facts
MUTED_COLOR = "#616161"


# --------------------------------------------------------------------------
# Parameter report
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class ParameterRow:
    """One parameter or buffer of the model, or a tensor only the optimizer holds."""

    kind: str                   # "parameter" or "buffer"
    path: str                   # first path in the model; "" when not in the model
    label: str                  # what to call it: the path, or how to find it otherwise
    module: str | None          # path of the module holding it ("" = the model itself)
    paths: tuple                # every path in the model (several when shared)
    shape: tuple
    count: int
    trainable: bool             # requires_grad
    in_model: bool
    in_optimizer: bool | None   # None when no optimizer was given
    group: int | None           # the optimizer's param group index
    grad_norm: float | None     # None when .grad is None
    flags: tuple = ()

    @property
    def name(self) -> str:
        """The last part of the path ('weight'), or the label when not in the model."""
        return self.path.rsplit(".", 1)[-1] if self.path else self.label

    @property
    def depth(self) -> int:
        """Tree depth: 0 for the model's own tensors, 1 inside a child, ..."""
        return 0 if not self.module else self.module.count(".") + 1

    @property
    def problems(self) -> tuple:
        return tuple(f for f in self.flags if f in PROBLEMS)


@dataclass(frozen=True)
class ParameterReport:
    """Every parameter and buffer of a model, checked against an optimizer and a backward."""

    model: str                  # class name of the model
    optimizer: str | None       # class name of the optimizer
    rows: tuple                 # ParameterRow: the model's, in registration order, then strays
    modules: tuple              # (path, class name) of modules holding anything, in order
    backward_seen: bool         # some parameter has a .grad: a backward has run

    # -- queries -----------------------------------------------------------------
    @property
    def parameters(self) -> tuple:
        """Parameter rows: the model's, then those only the optimizer holds."""
        return tuple(r for r in self.rows if r.kind == "parameter")

    @property
    def buffers(self) -> tuple:
        return tuple(r for r in self.rows if r.kind == "buffer")

    def flagged(self, flag: str) -> tuple:
        if flag not in FLAGS:
            raise InputError(message(f"unknown flag {flag!r}.", where="ParameterReport",
                                     line=None, hint=f"flags are {', '.join(FLAGS)}."))
        return tuple(r for r in self.rows if flag in r.flags)

    @property
    def total(self) -> int:
        """Number of values in the model's parameters (each shared one counted once)."""
        return sum(r.count for r in self.parameters if r.in_model)

    @property
    def trainable(self) -> int:
        return sum(r.count for r in self.parameters if r.in_model and r.trainable)

    @property
    def ok(self) -> bool:
        return not any(r.problems for r in self.rows)

    def selected(self, show: str = "all") -> tuple:
        """The parameter rows a view shows: "all", "problems", or one module's path.

        A module path selects the parameters that module and its children hold, so
        ``"block"`` shows ``block.conv1.weight`` too.
        """
        rows = self.parameters
        if show == "all":
            return rows
        if show == "problems":
            return tuple(r for r in rows if r.problems)
        if show not in {path for path, _ in self.modules}:
            choices = ", ".join(repr(v) for _, v in show_choices(self))
            raise InputError(message(f"there is nothing called {show!r} to show.",
                                     where="ParameterReport.selected", line=None,
                                     hint=f"choose one of {choices}."))
        return tuple(r for r in rows if r.module is not None and
                     (not show or r.module == show or r.module.startswith(show + ".")))

    # -- text ----------------------------------------------------------------------
    def headline(self) -> str:
        n_params = sum(1 for r in self.parameters if r.in_model)
        text = (f"{self.model}: {n_params} parameter tensor(s), {self.total:,} values "
                f"({self.trainable:,} trainable), {len(self.buffers)} buffer(s)")
        if self.optimizer:
            held = sum(1 for r in self.parameters if r.in_optimizer)
            text += f"; {self.optimizer} holds {held}"
        return text

    def findings(self) -> list[str]:
        """One line per kind of problem (or information), naming the tensors concerned."""
        lines = []
        for flag in FLAGS:
            rows = self.flagged(flag)
            if not rows:
                continue
            marker, meaning = FLAGS[flag]
            if flag == "shared":
                names = [" = ".join(r.paths) for r in rows]
            elif flag == "not_in_model":
                names = [f"{r.label} {fmt_shape(r.shape)}" for r in rows]
            else:
                names = [r.label for r in rows]
            shown = ", ".join(names[:4]) + (f", ... ({len(names) - 4} more)"
                                            if len(names) > 4 else "")
            lines.append(f"{marker} {len(rows)} {meaning.split(':')[0]}: {shown}")
        if not self.backward_seen:
            lines.append("(no gradients yet: run loss.backward() to check which "
                         "parameters get one)")
        return lines

    def __str__(self):
        lines = [self.headline()]
        lines.append(f"  {'path':<28} {'kind':<9} {'shape':<16} {'count':>9} {'train':<5} "
                     f"{'opt':<4} {'|grad|':>9}  flags")
        for r in self.rows:
            opt = "--" if r.in_optimizer is None or r.kind == "buffer" else \
                ("yes" if r.in_optimizer else "NO")
            grad = "--" if r.grad_norm is None else f"{r.grad_norm:.3g}"
            marks = " ".join(FLAGS[f][0] for f in r.flags)
            lines.append(f"  {r.label:<28} {r.kind:<9} {fmt_shape(r.shape):<16} {r.count:>9,} "
                         f"{'yes' if r.trainable else 'no':<5} {opt:<4} {grad:>9}  {marks}")
        findings = self.findings()
        if findings:
            lines += ["", *findings]
        return "\n".join(lines)

    def __repr__(self):
        problems = sum(1 for r in self.rows if r.problems)
        return (f"<ParameterReport: {self.model}, {len(self.parameters)} parameters, "
                f"{problems} with problems>")

    def _repr_html_(self):
        return report_html(self)


def parameter_report(model, optimizer=None) -> ParameterReport:
    """Check ``model``'s parameters against ``optimizer`` and the last backward.

    >>> report = nb.inspect.parameter_report(model, optimizer)
    >>> [r.label for r in report.flagged("not_in_optimizer")]
    ['conv1.weight', 'conv1.bias', ...]
    """
    param_paths = _all_paths(model.named_parameters(remove_duplicate=False))
    buffer_paths = _all_paths(model.named_buffers(remove_duplicate=False))
    held = {}  # id -> (group index, tensor)
    if optimizer is not None:
        for g, group in enumerate(optimizer.param_groups):
            for p in group["params"]:
                held.setdefault(id(p), (g, p))
    model_tensors = [(module_path, name, p, "parameter")
                     for module_path, name, p in _own(model, "_parameters")]
    model_tensors += [(module_path, name, b, "buffer")
                      for module_path, name, b in _own(model, "_buffers")]
    model_tensors.sort(key=_registration_order(model))
    strays = [p for _, p in held.values() if id(p) not in param_paths
              and id(p) not in buffer_paths]
    everything = [t for _, _, t, kind in model_tensors if kind == "parameter"] + strays
    backward_seen = any(t.grad is not None for t in everything)

    rows, seen = [], set()
    for module_path, name, t, kind in model_tensors:
        if id(t) in seen:
            continue
        seen.add(id(t))
        paths = (param_paths if kind == "parameter" else buffer_paths)[id(t)]
        rows.append(_row(t, kind, paths[0], paths[0], module_path, tuple(paths), True,
                         held, optimizer, backward_seen))
    for index, p in enumerate(strays):
        rows.append(_row(p, "parameter", "", _stray_label(p, held, optimizer, index), None,
                         (), False, held, optimizer, backward_seen))
    modules = _modules_holding(model, rows)
    return ParameterReport(type(model).__name__,
                           type(optimizer).__name__ if optimizer is not None else None,
                           tuple(rows), modules, backward_seen)


def show_choices(report: ParameterReport) -> list:
    """(label, value) pairs for a "show" control: everything, the problems, each module."""
    choices = [("every parameter", "all"), ("problems only", "problems")]
    choices += [(f"{path} ({cls})", path) for path, cls in report.modules if path]
    return choices


def _all_paths(named) -> dict:
    """id(tensor) -> every path it is registered under."""
    out: dict = {}
    for path, t in named:
        out.setdefault(id(t), []).append(path)
    return out


def _own(model, kind):
    """(module path, attribute name, tensor) for every tensor each module holds itself."""
    for module_path, module in model.named_modules():
        for name, t in module.__dict__[kind].items():
            if t is not None:
                yield module_path, name, t


def _registration_order(model):
    """Sort key: named_modules order, then the module's own parameters before its buffers."""
    order = {path: i for i, (path, _) in enumerate(model.named_modules())}
    return lambda item: (order[item[0]], item[3] != "parameter")


def _row(t, kind, path, label, module, paths, in_model, held, optimizer, backward_seen):
    trainable = bool(t.requires_grad)
    in_optimizer = None if optimizer is None else id(t) in held
    group = held[id(t)][0] if id(t) in held else None
    grad_norm = None
    if t.grad is not None:
        g = np.asarray(t.grad._array, dtype=np.float64)
        grad_norm = float(np.sqrt((g * g).sum()))
    flags = []
    if kind == "parameter":
        if not in_model:
            flags.append("not_in_model")
        if in_optimizer is False and trainable:  # frozen ones are left out on purpose
            flags.append("not_in_optimizer")
        if backward_seen and trainable and grad_norm is None:
            flags.append("no_gradient")
        if grad_norm == 0.0:
            flags.append("zero_gradient")
        elif grad_norm is not None and not np.isfinite(grad_norm):
            flags.append("nonfinite_gradient")
    if len(paths) > 1:
        flags.append("shared")
    return ParameterRow(kind, path, label, module, paths, tuple(t.shape), t.numel(),
                        trainable, in_model, in_optimizer, group, grad_norm, tuple(flags))


def _stray_label(p, held, optimizer, index) -> str:
    """How to find a tensor only the optimizer holds: its path in another model, or its slot."""
    own_paths = getattr(p, "paths", None) or []
    if own_paths:
        from ..nn.parameter import outermost_models

        models = outermost_models([p])
        return f"{own_paths[0]} of another {type(models[0]).__name__}" if models else own_paths[0]
    g = held[id(p)][0]
    slot = next(i for i, q in enumerate(optimizer.param_groups[g]["params"]) if q is p)
    if len(optimizer.param_groups) == 1:
        return f"optimizer param {slot}"
    return f"optimizer group {g} param {slot}"


def _modules_holding(model, rows) -> tuple:
    holders = {r.module for r in rows if r.module is not None}
    wanted = set()
    for path in holders:  # a module and all its ancestors, so the tree has every level
        parts = path.split(".") if path else []
        wanted.update(".".join(parts[:i]) for i in range(len(parts) + 1))
    return tuple((path, type(m).__name__) for path, m in model.named_modules() if path in wanted)


# --------------------------------------------------------------------------
# HTML: the tree, indented by module path, with a legend
# --------------------------------------------------------------------------

_CELL = "padding:2px 10px;text-align:left;"


def report_html(report: ParameterReport, font_px: int = 15) -> str:
    """A table of the report, indented by module, problems in red, with a legend."""
    e = html.escape
    out = [f'<div style="font-size:{font_px}px;line-height:1.35;">',
           f'<div style="font-weight:bold;margin-bottom:4px;">{e(report.headline())}</div>',
           '<table style="border-collapse:collapse;">',
           '<tr style="border-bottom:2px solid #999;">'
           + "".join(f'<th style="{_CELL}">{h}</th>' for h in
                     ("name", "shape", "count", "trainable", "in optimizer", "|grad|", "flags"))
           + "</tr>"]
    by_module: dict = {}
    for r in report.rows:
        if r.in_model:
            by_module.setdefault(r.module, []).append(r)
    for path, cls in report.modules:
        if path:
            indent = path.count(".")
            out.append(f'<tr><td colspan="7" style="{_CELL}padding-left:{0.5 + 1.4 * indent}em;'
                       f'color:{MUTED_COLOR};">{e(path)} <span style="font-size:85%;">'
                       f'({e(cls)})</span></td></tr>')
        for r in by_module.get(path, ()):
            out.append(_row_html(r, 0.5 + 1.4 * r.depth))
    strays = [r for r in report.rows if not r.in_model]
    if strays:
        out.append(f'<tr><td colspan="7" style="{_CELL}color:{PROBLEM_COLOR};font-weight:bold;'
                   f'border-top:2px solid {PROBLEM_COLOR};">held by the optimizer only '
                   f'(not in {e(report.model)})</td></tr>')
        out += [_row_html(r, 1.9) for r in strays]
    out.append("</table>")
    findings = report.findings()
    if report.ok and report.backward_seen:
        held = "is in the optimizer and " if report.optimizer else ""
        findings = [f"✔ every parameter {held}got a gradient in the last backward"]
    if findings:
        out.append('<div style="margin-top:6px;">')
        for line in findings:
            color = INFO_COLOR if line.startswith((FLAGS["shared"][0], "✔")) else \
                MUTED_COLOR if line.startswith("(") else PROBLEM_COLOR
            out.append(f'<div style="color:{color};">{e(line)}</div>')
        out.append("</div>")
    out.append(legend_html())
    out.append("</div>")
    return "".join(out)


def _row_html(r: ParameterRow, indent_em: float) -> str:
    e = html.escape
    problem = bool(r.problems)
    style = f"background:#fdecea;border-left:4px solid {PROBLEM_COLOR};" if problem else \
        "border-left:4px solid transparent;"
    name_color = PROBLEM_COLOR if problem else (MUTED_COLOR if r.kind == "buffer"
                                               else FORWARD_COLOR)
    name = e(r.name) + (' <span style="font-size:85%;">(buffer)</span>'
                        if r.kind == "buffer" else "")
    if r.in_optimizer is None or r.kind == "buffer":
        opt = "—"
    elif r.in_optimizer:
        opt = f'<span style="color:{INFO_COLOR};">✔ group {r.group}</span>'
    else:
        opt = f'<span style="color:{PROBLEM_COLOR};font-weight:bold;">✘ no</span>'
    if r.grad_norm is None:
        grad = "—" if "no_gradient" not in r.flags else \
            f'<span style="color:{PROBLEM_COLOR};font-weight:bold;">none</span>'
    else:
        grad = f'<span style="color:{GRADIENT_COLOR};">{r.grad_norm:.3g}</span>'
    flags = []
    for f in r.flags:
        marker, meaning = FLAGS[f]
        color = INFO_COLOR if f == "shared" else PROBLEM_COLOR
        text = meaning.split(":")[0]
        if f == "shared":
            text = "shared: " + " = ".join(r.paths)
        flags.append(f'<span style="color:{color};" title="{e(meaning)}">{marker} '
                     f"{e(text)}</span>")
    trainable = "yes" if r.trainable else f'<span style="color:{MUTED_COLOR};">no</span>'
    cells = [f'<td style="{_CELL}padding-left:{indent_em}em;color:{name_color};'
             f'font-weight:bold;" title="{e(r.label)}">{name}</td>',
             f'<td style="{_CELL}font-family:monospace;">{e(fmt_shape(r.shape))}</td>',
             f'<td style="{_CELL}text-align:right;">{r.count:,}</td>',
             f'<td style="{_CELL}">{trainable if r.kind == "parameter" else "—"}</td>',
             f'<td style="{_CELL}">{opt}</td>',
             f'<td style="{_CELL}text-align:right;">{grad}</td>',
             f'<td style="{_CELL}">{"<br>".join(flags)}</td>']
    return f'<tr style="{style}border-bottom:1px solid #e0e0e0;">{"".join(cells)}</tr>'


def legend_html() -> str:
    items = [f'<span style="color:{INFO_COLOR if f == "shared" else PROBLEM_COLOR};'
             f'margin-right:14px;white-space:nowrap;">{marker} {html.escape(meaning)}</span> '
             for f, (marker, meaning) in FLAGS.items()]
    return ('<div style="margin-top:6px;font-size:90%;"><b>legend</b>: '
            + "".join(items) + "</div>")


# --------------------------------------------------------------------------
# Gradient flow: one step's statistics, sorted into zones
# --------------------------------------------------------------------------

STATS = {"norm": "norm of the gradient", "mean": "mean of the gradient",
         "max_abs": "max |gradient|"}
ZONES = ("vanishing", "healthy", "exploding", "none")


@dataclass(frozen=True)
class FlowBar:
    """One bar of the gradient-flow chart."""

    path: str
    value: float | None         # None: the parameter got no gradient
    zone: str                   # one of ZONES; "none" when there is no gradient


def is_bias(path: str) -> bool:
    return path.rsplit(".", 1)[-1] == "bias"


def zone_of(value: float | None, thresholds=(1e-5, 1e2)) -> str:
    """'vanishing' below thresholds[0], 'exploding' above thresholds[1] (by magnitude)."""
    if value is None:
        return "none"
    low, high = thresholds
    size = abs(value)
    if not np.isfinite(size):  # NaN or inf: it has exploded past representing
        return "exploding"
    return "vanishing" if size < low else "exploding" if size > high else "healthy"


def gradient_flow(stats, stat: str = "norm", thresholds=(1e-5, 1e2),
                  biases: bool = False) -> tuple:
    """FlowBars for one step's GradStats, in layer order (biases left out unless asked)."""
    if stat not in STATS:
        raise InputError(message(f"unknown statistic {stat!r}.", where="gradient_flow",
                                 line=None, hint=f"choose one of {', '.join(STATS)}."))
    bars = []
    for s in stats:
        if is_bias(s.path) and not biases:
            continue
        value = float(getattr(s, stat)) if s.has_grad else None
        bars.append(FlowBar(s.path, value, zone_of(value, thresholds)))
    return tuple(bars)


def flow_range(all_stats, stat: str = "norm", biases: bool = False) -> tuple | None:
    """(smallest non-zero |value|, largest |value|) of ``stat`` over many steps' GradStats,
    so a chart can keep one scale while the steps change; None if there is no gradient."""
    values = [abs(b.value) for stats in all_stats
              for b in gradient_flow(stats, stat, biases=biases) if b.value is not None]
    nonzero = [v for v in values if v > 0]
    if not values:
        return None
    return (min(nonzero) if nonzero else 0.0, max(values))


# --------------------------------------------------------------------------
# A few numbers that describe an array (what a stepper shows of out, dout, grads)
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class ValueSummary:
    shape: tuple
    norm: float
    mean: float
    std: float
    min: float
    max: float
    head: tuple         # the first few values, in memory order

    def text(self, digits: int = 3) -> str:
        if not self.shape:
            return f"{self.head[0]:.{digits}g}"
        return (f"mean {self.mean:.{digits}g}, std {self.std:.{digits}g}, "
                f"min {self.min:.{digits}g}, max {self.max:.{digits}g}")

    def head_text(self, digits: int = 3, size: int | None = None) -> str:
        values = ", ".join(f"{v:.{digits}g}" for v in self.head)
        more = size is not None and size > len(self.head)
        return f"[{values}{', …' if more else ''}]"


def value_summary(array, head: int = 4) -> ValueSummary:
    """Norm, mean, std, min, max and the first ``head`` values of an array (float64 maths)."""
    a = np.asarray(array, dtype=np.float64)
    flat = a.reshape(-1)
    if not flat.size:
        return ValueSummary(tuple(a.shape), 0.0, 0.0, 0.0, 0.0, 0.0, ())
    return ValueSummary(tuple(a.shape), float(np.sqrt((flat * flat).sum())), float(flat.mean()),
                        float(flat.std()), float(flat.min()), float(flat.max()),
                        tuple(float(v) for v in flat[:head]))
