"""What a check returns: its findings as lines, in words and in HTML.

``_Checks`` collects the lines while a check runs; ``CheckResult`` is what the student
sees.
"""
from __future__ import annotations

import html
from dataclasses import dataclass

PASS, FAIL, UNFINISHED, SKIP = "\u2713", "\u2717", "\u2026", "\u00b7"  # ✓ ✗ … ·


@dataclass(frozen=True)
class Line:
    """One finding: ``mark`` is ✓ (works), ✗ (wrong), … (not written yet) or · (skipped)."""

    mark: str
    text: str
    detail: str = ""


class CheckResult:
    """The findings of one check: ``.passed``, ``.status``, ``.lines``, ``.next_step``.

    Printing it (or leaving it as a cell's last value) shows the findings in words.
    """

    def __init__(self, title: str, lines, next_step: str | None = None):
        self.title = title
        self.lines = tuple(lines)
        self.next_step = next_step

    @property
    def status(self) -> str:
        """'passed', 'failed', or 'todo' (some part still raises NotImplementedError)."""
        marks = {line.mark for line in self.lines}
        if UNFINISHED in marks:
            return "todo"
        return "failed" if FAIL in marks or PASS not in marks else "passed"

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def __bool__(self):
        return self.passed

    def headline(self) -> str:
        good = sum(line.mark == PASS for line in self.lines)
        bad = sum(line.mark == FAIL for line in self.lines)
        if self.status == "passed":
            return f"{self.title}: all {good} checks pass"
        if self.status == "todo":
            return (f"{self.title}: not finished yet ({_count(good, 'check')} "
                    f"{'passes' if good == 1 else 'pass'} so far)")
        if good == 0:
            return f"{self.title}: {'the check fails' if bad == 1 else f'all {bad} checks fail'}"
        return f"{self.title}: {bad} of {good + bad} checks {'fails' if bad == 1 else 'fail'}"

    def __str__(self):
        out = [self.headline()]
        for line in self.lines:
            out.append(f"  {line.mark} {line.text}")
            if line.detail:
                out.append("      " + line.detail.replace("\n", "\n      "))
        if self.next_step:
            out.append(f"next step: {self.next_step}")
        return "\n".join(out)

    __repr__ = __str__

    def _repr_html_(self):
        items = []
        for line in self.lines:
            detail = (f"<div style='margin-left:1.4em;color:#555'>{_html(line.detail)}</div>"
                      if line.detail else "")
            items.append(f"<li>{_mark_html(line.mark)} {_html(line.text)}{detail}</li>")
        step = f"<p><b>next step:</b> {_html(self.next_step)}</p>" if self.next_step else ""
        return (f"<div><p><b>{_html(self.headline())}</b></p>"
                f"<ul style='list-style:none;padding-left:1em;margin:0'>{''.join(items)}</ul>"
                f"{step}</div>")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _html(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


def _mark_html(mark: str) -> str:
    colour = {PASS: "#2e7d32", FAIL: "#c62828", UNFINISHED: "#b26a00", SKIP: "#757575"}[mark]
    return f"<b style='color:{colour}'>{mark}</b>"


class _Checks:
    """Collects lines while a check runs; the first ✗ or … decides the next step."""

    def __init__(self, title: str):
        self.title = title
        self.lines: list[Line] = []
        self.next_step: str | None = None

    def ok(self, text, detail=""):
        self.lines.append(Line(PASS, text, detail))

    def skip(self, text):
        self.lines.append(Line(SKIP, text))

    def fail(self, text, next_step, detail=""):
        self.lines.append(Line(FAIL, text, detail))
        self.next_step = self.next_step or next_step

    def todo(self, text, next_step):
        self.lines.append(Line(UNFINISHED, text))
        self.next_step = self.next_step or next_step

    @property
    def stopped(self) -> bool:
        return any(line.mark in (FAIL, UNFINISHED) for line in self.lines)

    def result(self) -> CheckResult:
        return CheckResult(self.title, self.lines, self.next_step)
