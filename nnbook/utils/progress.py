"""``progress(iterable)``: a one-line text bar for a long loop, in a notebook or a terminal.

    for xb, yb in progress(loader, desc="epoch 1"):
        ...
    # epoch 1  60% [############--------]  30/50

The line is redrawn in place (a carriage return), only when the bar moves, so a long
loop writes about a hundred updates, and it shows no clock: the same loop prints the
same text.  (``tqdm(loader)`` works as well, if tqdm is installed.)
"""
from __future__ import annotations

import sys

_WIDTH = 20


class progress:
    """Wrap an iterable; iterating yields its items and redraws the bar."""

    def __init__(self, iterable, desc: str = "", total: int | None = None, file=None):
        self.iterable, self.desc, self.file = iterable, desc, file
        if total is None:
            try:
                total = len(iterable)
            except TypeError:  # a generator: count only
                total = None
        self.total = total

    def __len__(self) -> int:
        return len(self.iterable)

    def line(self, done: int) -> str:
        """The text of the bar after ``done`` items."""
        head = f"{self.desc}  " if self.desc else ""
        if not self.total:
            return f"{head}{done}"
        filled = min(_WIDTH, _WIDTH * done // self.total)
        width = len(str(self.total))
        return (f"{head}{100 * done // self.total:3d}% [{'#' * filled}{'-' * (_WIDTH - filled)}]"
                f" {done:{width}d}/{self.total}")

    def _moment(self, done: int) -> int:
        """What must change for the line to be redrawn: the percentage, or for an unknown
        total the count's leading two digits (about a hundred updates per power of ten)."""
        if self.total:
            return 100 * done // self.total
        return done // 10 ** max(0, len(str(done)) - 2) * 10 ** max(0, len(str(done)) - 2)

    def __iter__(self):
        out = self.file if self.file is not None else sys.stdout
        shown, done = None, 0
        for item in self.iterable:
            if self._moment(done) != shown:
                shown = self._moment(done)
                out.write("\r" + self.line(done))
                out.flush()
            yield item
            done += 1
        out.write("\r" + self.line(done) + "\n")
        out.flush()
