"""A ParameterReport as an HTML table: the tree of modules, problems in red, a legend.

ParameterExplorer shows it above its picture; it also works on its own::

    from IPython.display import HTML
    HTML(report_html(nb.inspect.parameter_report(model, optimizer)))
"""
from __future__ import annotations

import html

from ..errors import fmt_shape
from ..inspect.param_flags import FLAGS
from .palette import (
    FORWARD_COLOR,
    GRADIENT_COLOR,
    INFO_COLOR,
    MUTED_COLOR,
    PROBLEM_COLOR,
    PROBLEM_TINT,
)

_CELL = "padding:2px 10px;text-align:left;"
_HEADINGS = ("name", "shape", "count", "trainable", "in optimizer", "|grad|", "flags")


def report_html(report, font_px: int = 15) -> str:
    """A table of the report, indented by module, problems in red, with a legend."""
    e = html.escape
    out = [f'<div style="font-size:{font_px}px;line-height:1.35;">',
           f'<div style="font-weight:bold;margin-bottom:4px;">{e(report.headline())}</div>',
           '<table style="border-collapse:collapse;">',
           '<tr style="border-bottom:2px solid #999;">'
           + "".join(f'<th style="{_CELL}">{h}</th>' for h in _HEADINGS) + "</tr>"]
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
    out.append(_findings_html(report))
    out.append(legend_html())
    out.append("</div>")
    return "".join(out)


def _findings_html(report) -> str:
    findings = report.findings()
    if report.ok and report.backward_seen:
        held = "is in the optimizer and " if report.optimizer else ""
        findings = [f"✔ every parameter {held}got a gradient in the last backward"]
    if not findings:
        return ""
    lines = []
    for line in findings:
        color = INFO_COLOR if line.startswith((FLAGS["shared"][0], "✔")) else \
            MUTED_COLOR if line.startswith("(") else PROBLEM_COLOR
        lines.append(f'<div style="color:{color};">{html.escape(line)}</div>')
    return '<div style="margin-top:6px;">' + "".join(lines) + "</div>"


def _row_html(r, indent_em: float) -> str:
    e = html.escape
    problem = bool(r.problems)
    style = f"background:{PROBLEM_TINT};border-left:4px solid {PROBLEM_COLOR};" if problem \
        else "border-left:4px solid transparent;"
    name_color = PROBLEM_COLOR if problem else (MUTED_COLOR if r.kind == "buffer"
                                               else FORWARD_COLOR)
    name = e(r.name) + (' <span style="font-size:85%;">(buffer)</span>'
                        if r.kind == "buffer" else "")
    trainable = "yes" if r.trainable else f'<span style="color:{MUTED_COLOR};">no</span>'
    cells = [f'<td style="{_CELL}padding-left:{indent_em}em;color:{name_color};'
             f'font-weight:bold;" title="{e(r.label)}">{name}</td>',
             f'<td style="{_CELL}font-family:monospace;">{e(fmt_shape(r.shape))}</td>',
             f'<td style="{_CELL}text-align:right;">{r.count:,}</td>',
             f'<td style="{_CELL}">{trainable if r.kind == "parameter" else "—"}</td>',
             f'<td style="{_CELL}">{_optimizer_cell(r)}</td>',
             f'<td style="{_CELL}text-align:right;">{_grad_cell(r)}</td>',
             f'<td style="{_CELL}">{"<br>".join(_flag_spans(r))}</td>']
    return f'<tr style="{style}border-bottom:1px solid #e0e0e0;">{"".join(cells)}</tr>'


def _optimizer_cell(r) -> str:
    if r.in_optimizer is None or r.kind == "buffer":
        return "—"
    if r.in_optimizer:
        return f'<span style="color:{INFO_COLOR};">✔ group {r.group}</span>'
    return f'<span style="color:{PROBLEM_COLOR};font-weight:bold;">✘ no</span>'


def _grad_cell(r) -> str:
    if r.grad_norm is not None:
        return f'<span style="color:{GRADIENT_COLOR};">{r.grad_norm:.3g}</span>'
    if "no_gradient" in r.flags:
        return f'<span style="color:{PROBLEM_COLOR};font-weight:bold;">none</span>'
    return "—"


def _flag_spans(r) -> list:
    spans = []
    for f in r.flags:
        marker, meaning = FLAGS[f]
        color = INFO_COLOR if f == "shared" else PROBLEM_COLOR
        text = "shared: " + " = ".join(r.paths) if f == "shared" else meaning.split(":")[0]
        spans.append(f'<span style="color:{color};" title="{html.escape(meaning)}">{marker} '
                     f"{html.escape(text)}</span>")
    return spans


def legend_html() -> str:
    items = [f'<span style="color:{INFO_COLOR if f == "shared" else PROBLEM_COLOR};'
             f'margin-right:14px;white-space:nowrap;">{marker} {html.escape(meaning)}</span> '
             for f, (marker, meaning) in FLAGS.items()]
    return ('<div style="margin-top:6px;font-size:90%;"><b>legend</b>: '
            + "".join(items) + "</div>")
