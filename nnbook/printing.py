"""How a tensor prints: laid out as PyTorch lays it out, so printed results compare.

    tensor([ 0.8005, -1.2360])          four decimals, one width for every element
    tensor([1., 2., 3.])                 whole numbers end in '.'
    tensor([1.0000e-05, 1.0000e+00])     scientific when magnitudes differ by > 1000
    tensor([[1, 2],
            [3, 4]])                     rows line up under the first bracket

More than 1000 elements are summarised with '...' (three from each end).
``nb.set_printoptions`` changes these choices, as ``torch.set_printoptions`` does.
"""
from __future__ import annotations

import math

import numpy as np

from .errors import InputError, message

PRECISION, THRESHOLD, EDGE_ITEMS, LINE_WIDTH = 4, 1000, 3, 80
SCI_MODE = None  # None: scientific notation when the numbers need it; True or False: always
# the option sets of set_printoptions(profile=...): precision, threshold, edgeitems, linewidth
PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80),
            "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None) -> None:
    """How tensors print from now on, as ``torch.set_printoptions``: ``precision`` digits
    after the point, a summary with '...' above ``threshold`` elements showing
    ``edgeitems`` at each end, lines of ``linewidth`` characters, and ``sci_mode``
    True or False to force scientific notation on or off (None: chosen by the numbers).
    ``profile`` ('default', 'short' or 'full') sets the first four, before the others."""
    global PRECISION, THRESHOLD, EDGE_ITEMS, LINE_WIDTH, SCI_MODE
    if profile is not None:
        if profile not in PROFILES:
            raise InputError(message(
                f"profile must be one of {', '.join(map(repr, PROFILES))}, got {profile!r}.",
                where="nb.set_printoptions", hint="'full' prints every element."))
        PRECISION, THRESHOLD, EDGE_ITEMS, LINE_WIDTH = PROFILES[profile]
    for name, value in (("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool)
                                  or value < 0):
            raise InputError(message(f"{name} must be a number >= 0, got {value!r}.",
                                     where="nb.set_printoptions", hint=f"e.g. {name}=4."))
    PRECISION = PRECISION if precision is None else int(precision)
    THRESHOLD = THRESHOLD if threshold is None else threshold
    EDGE_ITEMS = EDGE_ITEMS if edgeitems is None else int(edgeitems)
    LINE_WIDTH = LINE_WIDTH if linewidth is None else int(linewidth)
    SCI_MODE = sci_mode  # as PyTorch: every call sets it, None giving the automatic choice


class _Formatter:
    """One format for every element of a tensor: PyTorch's choice of mode and width."""

    def __init__(self, values: np.ndarray):
        self.floating = values.dtype.kind in "fc"
        self.sci = self.whole = False
        flat = values.ravel()
        if not self.floating:
            self.width = max((len(str(v)) for v in flat.tolist()), default=1)
            return
        flat = flat.astype(np.float64)
        finite = flat[np.isfinite(flat) & (flat != 0)]
        self.width = max((len(str(v)) for v in flat[~np.isfinite(flat)].tolist()), default=1)
        self.whole = bool(np.all(finite == np.ceil(finite)))
        if finite.size == 0:
            self.width = max(self.width, 2)  # "0."
            return
        big, small = np.abs(finite).max(), np.abs(finite).min()
        self.sci = big / small > 1000.0 or big > 1.0e8 or (not self.whole and small < 1.0e-4)
        self.sci = self.sci if SCI_MODE is None else bool(SCI_MODE)
        for v in finite.tolist():
            self.width = max(self.width, len(self._plain(v)) + (self.whole and not self.sci))

    def _plain(self, v) -> str:
        if self.sci:
            return f"{v:.{PRECISION}e}"
        return f"{v:.0f}" if self.whole else f"{v:.{PRECISION}f}"

    def format(self, v) -> str:
        if not self.floating:
            text = str(v)
        elif math.isnan(v) or math.isinf(v):
            text = str(v)
        else:
            text = self._plain(v) + ("." if self.whole and not self.sci else "")
        return text.rjust(self.width)


def _summarised(a: np.ndarray) -> np.ndarray:
    """The elements that will be shown (the edges of every long axis)."""
    if a.ndim == 0:
        return a
    if a.shape[0] > 2 * EDGE_ITEMS:
        a = np.concatenate([a[:EDGE_ITEMS], a[-EDGE_ITEMS:]])
    return np.stack([_summarised(row) for row in a]) if a.ndim > 1 else a


def _body(a: np.ndarray, fmt: _Formatter, indent: int, summarise: bool) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        items = [fmt.format(v) for v in a.tolist()]
        if summarise and len(items) > 2 * EDGE_ITEMS:
            items = items[:EDGE_ITEMS] + [" ..."] + items[-EDGE_ITEMS:]
        per_line = max(1, (LINE_WIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = range(a.shape[0])
    if summarise and a.shape[0] > 2 * EDGE_ITEMS:
        rows = list(range(EDGE_ITEMS)) + [None] + list(range(a.shape[0] - EDGE_ITEMS,
                                                             a.shape[0]))
    parts = ["..." if i is None else _body(a[i], fmt, indent + 1, summarise) for i in rows]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def tensor_repr(array: np.ndarray, suffixes=(), prefix="tensor(") -> str:
    """The text of ``print(t)``: ``tensor([...], dtype=..., grad_fn=<...>)``."""
    summarise = array.size > THRESHOLD
    shown = _summarised(array) if summarise else array
    if array.size == 0:
        body = "[]"
        if array.ndim != 1:
            suffixes = (f"size={tuple(array.shape)}",) + tuple(suffixes)
    else:
        body = _body(array, _Formatter(shown), len(prefix), summarise)
    return _with_suffixes(prefix + body, suffixes, len(prefix)) + ")"


def _with_suffixes(text: str, suffixes, indent: int) -> str:
    """``text, dtype=..., grad_fn=...``: a suffix that would run past the line width
    starts a new line, under the first bracket's column, as PyTorch breaks them.
    (PyTorch counts the last line as two characters longer than it is; so do we, so
    that the same tensors break in the same place.)"""
    line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if line + 2 + len(suffix) > LINE_WIDTH:
            text, line = f"{text},\n{' ' * indent}{suffix}", indent + len(suffix)
        else:
            text, line = f"{text}, {suffix}", line + 2 + len(suffix)
    return text
