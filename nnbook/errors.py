"""nnbook's exceptions and the one place their messages are put together.

Every error a user can cause has four parts (see ARCHITECTURE.md):

    where: the layer path and class, or the op, and the user's source line
    what:  what was expected and what came
    the values involved (shapes, dtypes, arguments)
    hint:  a concrete fix

Each class also derives from the builtin a Python user would catch, so
``except ValueError`` still works for a shape mistake.
"""
from __future__ import annotations

import os
import re
import sys

import numpy as np

from .context import current_layer, layer_name  # noqa: F401  (re-exported)

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class NnbookError(Exception):
    """Base class of every error nnbook raises on purpose."""

    @property
    def _render_traceback_(self):
        """How IPython shows this error: your own lines and the message, nnbook's frames
        hidden (``nb.show_full_tracebacks()`` shows everything again)."""
        if _full_tracebacks:
            raise AttributeError("_render_traceback_")  # IPython then shows the usual one
        return lambda: short_traceback(self)


_full_tracebacks = os.environ.get("NNBOOK_FULL_TRACEBACKS", "").strip().lower() in (
    "1", "true", "yes")


def show_full_tracebacks(full: bool = True) -> None:
    """In a notebook, show nnbook's own frames in tracebacks too (off by default: an
    nnbook error shows your lines and its message).  Also: NNBOOK_FULL_TRACEBACKS=1."""
    global _full_tracebacks
    _full_tracebacks = bool(full)


def short_traceback(error: BaseException) -> list[str]:
    """The lines of a traceback that are the user's, then the error: what a student needs."""
    import linecache
    import traceback

    lines = ["-" * 75, f"{type(error).__name__:<42}Traceback (most recent call last)"]
    hidden = 0
    for frame in traceback.extract_tb(error.__traceback__):
        if _IPYTHON_FRAME.search(frame.filename):  # the shell running the cell
            continue
        if _is_library_frame(frame.filename):
            hidden += 1
            continue
        where = describe_file(frame.filename)
        lines.append(f"{where[0].upper() + where[1:]}, line {frame.lineno}")
        for number in range(max(1, frame.lineno - 2), frame.lineno + 1):
            text = linecache.getline(frame.filename, number).rstrip()
            if text or number == frame.lineno:
                mark = "----> " if number == frame.lineno else "      "
                lines.append(f"{mark}{number} {text}")
        lines.append("")
    if hidden:
        lines.append(f"({hidden} frame(s) inside nnbook hidden; "
                     "nb.show_full_tracebacks() shows them)")
        lines.append("")
    lines.append(f"{type(error).__name__}: {error}")
    return ["\n".join(lines)]


class ShapeError(NnbookError, ValueError):
    """Inputs whose shapes an op or a layer cannot take."""


class InputError(NnbookError, ValueError):
    """An argument a function cannot use (a value, not a shape)."""


class DimError(ShapeError, IndexError):
    """An axis (``dim``) or index out of range."""


class ArgumentError(NnbookError, TypeError):
    """An argument of a type the function cannot take (a string where a number goes)."""


class DTypeError(NnbookError, TypeError):
    """Inputs of a dtype an op cannot take (e.g. gradients of integers)."""


class BackwardError(NnbookError, RuntimeError):
    """Misuse of backward(), or a failure while running it."""


class AnomalyError(NnbookError, FloatingPointError):
    """detect_anomaly() found the first NaN or inf."""


class GradcheckError(NnbookError, AssertionError):
    """Analytical and numerical gradients disagree."""


class CheckpointError(NnbookError, ValueError):
    """A checkpoint or state dict that cannot be saved or loaded safely."""


class SignatureError(NnbookError, TypeError):
    """A custom backward rule whose parameters break the contract."""


class ContractError(NnbookError, RuntimeError):
    """A custom backward rule returned gradients that break the contract."""


class MissingRuleError(NnbookError, NotImplementedError):
    """Something nnbook has no rule for: a KL divergence between two families, a
    reparameterised draw (rsample) of a discrete distribution."""


class MissingNameError(NnbookError, AttributeError):
    """A name nnbook does not have: a typo, or a part of PyTorch nnbook leaves out.

    ``hasattr()`` asks for names that are not there all the time (matplotlib and pandas
    probe for theirs), so the message, with its "did you mean", is written only when
    someone reads it.
    """

    def __init__(self, owner: str, name: str, known, elsewhere=()):
        super().__init__(name)
        self.owner, self.missing, self._known, self._elsewhere = owner, name, known, elsewhere
        self.name = name
        self._site = user_site(2)  # (file, line): turned into text only when read

    def __str__(self):
        known = sorted(n for n in self._known() if not n.startswith("_"))
        close = close_matches(self.missing, known)
        missing = (f"if {self.missing} is a PyTorch name, nnbook does not have it "
                   "(docs/pytorch.md lists what nnbook covers and where it differs)")
        hint = f"did you mean {' or '.join(repr(c) for c in close)}? Or, {missing}." \
            if close else f"{missing[0].upper()}{missing[1:]}: write it with the operations " \
            f"nnbook has (dir({self.owner}) lists them)."
        for place, names in self._elsewhere:  # nn.relu -> nn.functional.relu
            if self.missing in names():
                hint = f"{self.missing} is {place}."
                break
        return message(f"nnbook's {self.owner} has no attribute '{self.missing}'.",
                       where=f"{self.owner}.{self.missing}",
                       line=describe_frame(*self._site) if self._site else False, hint=hint)


def close_matches(word: str, candidates, n: int = 3, cutoff: float = 0.6) -> list[str]:
    """The names a typo was probably meant to be (for "did you mean" hints)."""
    import difflib  # only when a message needs it

    return difflib.get_close_matches(word, list(candidates), n=n, cutoff=cutoff)


class TeachingWarning(UserWarning):
    """Teaching mode found a custom backward rule that disagrees with the numbers."""


# --------------------------------------------------------------------------
# Where did it happen?  The module-call stack and the user's source line.
# --------------------------------------------------------------------------

_IPYTHON_FRAME = re.compile(r"[/\\](IPython|ipykernel)[/\\]")
_IPYKERNEL_FILE = re.compile(r"ipykernel_\d+[/\\]\d+\.py$")


def describe_file(filename: str) -> str:
    """A short, stable name for a source file (notebook cells get no temp path)."""
    if _IPYKERNEL_FILE.search(filename) or filename.startswith("<ipython-input"):
        return _notebook_cell(filename)
    try:
        rel = os.path.relpath(filename)
    except ValueError:  # another drive on Windows
        return filename
    return filename if rel.startswith(".." + os.sep + "..") else rel


def _notebook_cell(filename: str) -> str:
    # A cell's temporary file name changes on every run, and its execution count differs
    # between a kernel that keeps history and nbval's: say only that it is a cell.
    return "a notebook cell"


# Frames that are never the user's: nnbook's own, Python's frozen modules, and numpy's
# (np.errstate's wrapper sits between nnbook's functions where it silences warnings).
_LIBRARY_PREFIXES = (_PACKAGE_DIR, "<frozen", os.path.dirname(np.__file__))


def _is_library_frame(filename: str) -> bool:
    return filename.startswith(_LIBRARY_PREFIXES)


def user_frame(skip: int = 1):
    """The innermost stack frame that is not nnbook's own code (or None)."""
    frame = sys._getframe(skip)
    while frame is not None and _is_library_frame(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def user_site(skip: int = 1):
    """(file name, line number) of the user's code that called us, or None: cheap enough
    to keep for every op, turned into text only when a message needs it."""
    frame = sys._getframe(skip + 1)
    while frame is not None and frame.f_code.co_filename.startswith(_LIBRARY_PREFIXES):
        frame = frame.f_back
    return None if frame is None else (frame.f_code.co_filename, frame.f_lineno)


def user_line(skip: int = 1) -> str | None:
    """'train.py, line 12: y = conv(x)' for the user's code that called us."""
    frame = user_frame(skip + 1)
    if frame is None:
        return None
    return describe_frame(frame.f_code.co_filename, frame.f_lineno)


def describe_frame(filename: str, lineno: int) -> str:
    import linecache

    text = linecache.getline(filename, lineno).strip()
    where = f"{describe_file(filename)}, line {lineno}"
    return f"{where}: {text}" if text else where


def warn_from_user_code(warning: Warning) -> None:
    """warnings.warn, attributed to the user's line rather than to nnbook's code."""
    import warnings

    # stacklevel 1 is this function; 2 its caller; count up to the first user frame.
    level, frame = 2, sys._getframe(1)
    while frame is not None and _is_library_frame(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    warnings.warn(warning, stacklevel=level)


def message(what: str, *, where: str | None = None, values: str | None = None,
            hint: str | None = None, line: str | None = None) -> str:
    """Assemble the four-part message.

    ``where`` defaults to the running layer; ``line`` to the user's source line.
    """
    if where is None:
        where = current_layer()
    head = f"{where}: {what}" if where else what
    parts = [head]
    if values:
        parts.append("  " + values.replace("\n", "\n  "))
    if line is None:
        line = user_line(2)
    if line:
        parts.append(f"  at {line}")
    if hint:
        parts.append(f"  hint: {hint}")
    return "\n".join(parts)


def fmt_shape(shape) -> str:
    """(10, 3, 16, 8) -- always a tuple, never numpy's repr."""
    shape = tuple(int(s) for s in shape)
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
