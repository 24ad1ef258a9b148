"""Which parameters a model holds, which the optimizer holds, and which got a gradient.

    report = nb.inspect.parameter_report(model, optimizer)
    print(report)                  # a table, with the problems listed underneath
    report.flagged("not_in_model") # the rows the optimizer holds but the model doesn't

The checks behind the flags are in ``param_flags.py``; the widgets draw the report
(``nnbook.widgets.ParameterExplorer``).
"""
from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np

from .. import context
from ..errors import ArgumentError, InputError, fmt_shape, message
from ..nn.parameter import locations
from .param_flags import FLAGS, PROBLEMS, flags_of
from .shapes import check_model


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
        return f"<pre>{html.escape(str(self))}</pre>"


def parameter_report(model, optimizer=None) -> ParameterReport:
    """Check ``model``'s parameters against ``optimizer`` and the last backward.

    >>> report = nb.inspect.parameter_report(model, optimizer)
    >>> [r.label for r in report.flagged("not_in_optimizer")]
    ['conv1.weight', 'conv1.bias', ...]
    """
    where = "nb.inspect.parameter_report"
    if hasattr(model, "param_groups") and hasattr(optimizer, "named_parameters"):
        raise ArgumentError(message(
            f"got an optimizer ({type(model).__name__}) as the model and a model "
            f"({type(optimizer).__name__}) as the optimizer.", where=where,
            hint="these look swapped: parameter_report(model, optimizer)."))
    check_model(model, where)
    if optimizer is not None and not hasattr(optimizer, "param_groups"):
        raise ArgumentError(message(
            f"optimizer must be an nb.optim optimizer (or None), got "
            f"{type(optimizer).__name__}.", where=where,
            hint="pass the optimizer that updates the model: parameter_report(model, opt), "
            "or leave it out to check the model alone."))
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
    for module_path, _name, t, kind in model_tensors:
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
    choices += [(context.layer_name(path, cls), path) for path, cls in report.modules if path]
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
    flags = flags_of(kind, trainable, in_model, in_optimizer, grad_norm, backward_seen,
                     shared=len(paths) > 1)
    return ParameterRow(kind, path, label, module, paths, tuple(t.shape), t.numel(),
                        trainable, in_model, in_optimizer, group, grad_norm, flags)


def _stray_label(p, held, optimizer, index) -> str:
    """How to find a tensor only the optimizer holds: its path in another model, or its slot."""
    found = locations(p)  # most recently used model first
    if found:
        other, path = found[0]
        return f"{path} of another {type(other).__name__}"
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
