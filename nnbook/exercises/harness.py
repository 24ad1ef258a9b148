"""Running the student's code, and comparing what it computes: the forward with expected
values, each gradient with numerical derivatives (nb.gradcheck's comparison).

Every check in ``general`` is built from these pieces; each adds ✓, ✗ or … lines to a
``_Checks`` and says what to do next.
"""
from __future__ import annotations

import contextlib
import os
import re
import traceback
import warnings
from dataclasses import dataclass

import numpy as np

from ..autograd import teaching_mode
from ..autograd.custom import positional_names
from ..errors import ContractError, NnbookError, describe_frame, fmt_shape
from ..random import default_generator
from ..tensor import Tensor, _wrap
from .results import _Checks

EPS, ATOL, RTOL = 1e-6, 1e-5, 1e-3  # nb.gradcheck's defaults
SEED = 7                            # inputs, output gradients and layer initialisation
# nnbook/, not nnbook/exercises/: a frame anywhere in nnbook (the engine, an op) is not
# the student's line.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_GENERIC_UNFINISHED = "fill in the part that raises NotImplementedError, then run the check again."


# --------------------------------------------------------------------------
# Running the student's code
# --------------------------------------------------------------------------

@contextlib.contextmanager
def _quiet():
    """No teaching-mode warnings (the check compares every gradient itself), no numpy
    overflow warnings on the cell's stderr."""
    with teaching_mode(False), warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


@contextlib.contextmanager
def _seeded(seed: int):
    """nnbook's generator seeded for a block, then put back as it was."""
    bits = default_generator.numpy.bit_generator
    saved = bits.state
    bits.state = np.random.default_rng(seed).bit_generator.state
    try:
        yield
    finally:
        bits.state = saved


def _attempt(checks: _Checks, part: str, call, todo_hint: str):
    """Run a piece of the student's code: (True, value), or (False, None) after a ✗/… line."""
    try:
        return True, call()
    except Exception as err:  # the student's code may raise anything: say what and where
        _report_error(checks, part, err, todo_hint)
        return False, None


def _report_error(checks: _Checks, part: str, err: Exception, todo_hint: str) -> None:
    cause = err
    while cause.__cause__ is not None:  # the engine wraps errors raised inside a backward
        cause = cause.__cause__
    if isinstance(cause, NotImplementedError):
        said = str(cause).split("\n")[0]
        checks.todo(f"{part} is not written yet (it raises NotImplementedError"
                    f"{': ' + said if said else ''})", todo_hint)
    elif isinstance(cause, ContractError):
        what, hint = _split_message(str(cause), strip_where=True)
        named = _shape_slip(what)
        checks.fail(f"{part} breaks the contract: {what.rstrip('.')}" +
                    (f" ({named[0]})" if named else ""),
                    hint or (named[1] if named else
                             "return one gradient per input, each with its input's shape."))
    elif isinstance(cause, NnbookError):
        what, hint = _split_message(str(cause))
        checks.fail(f"{part} raised {type(cause).__name__}: {what.rstrip('.')}",
                    hint or f"read the message above and fix {part}.", _user_line(cause))
    else:
        first = str(cause).strip().split("\n")[0]
        if "saved_tensors" in _user_line(cause) or "not enough values to unpack" in first:
            step = ("a forgotten save_for_backward: call ctx.save_for_backward(...) in forward "
                    "with every tensor backward reads from ctx.saved_tensors.")
        elif isinstance(cause, (ValueError, IndexError)):  # numpy's shape complaints
            step = (f"fix {part} at the line shown: print the shapes of the arrays on it and "
                    "compare them with the shapes in the task.")
        elif isinstance(cause, TypeError) and "argument" in first:
            step = f"give {part} the arguments the task asks for."
        else:
            step = f"read the error and fix {part} at the line shown."
        checks.fail(f"{part} raised {type(cause).__name__}" + (f": {first}" if first else ""),
                    step, _user_line(cause))


def _shape_slip(what: str):
    """(the mistake's name, the next step) when a gradient's shape differs from its input's
    in a way students often slip into, else None."""
    found = re.search(r"has shape (\([\d, ]*\)), but '\w+' has shape (\([\d, ]*\))", what)
    if not found:
        return None
    got, want = (tuple(int(n) for n in re.findall(r"\d+", s)) for s in found.groups())
    if [n for n in got if n != 1] == [n for n in want if n != 1]:
        return ("a missing or extra size-1 axis",
                "keep the axis of size 1: keepdims=True in the sum, or reshape to the input's "
                "shape.")
    if len(got) == len(want) + 1 and got[1:] == want:
        return ("a batch not summed", "sum the gradient over the batch axis (axis=0): every "
                "example adds its share to the one parameter.")
    if sorted(got) == sorted(want):
        return ("axes in the wrong order, the mistake of the swapped height and width",
                "transpose back to the input's order; test with non-square shapes.")
    return None


def _split_message(text: str, strip_where: bool = False) -> tuple[str, str]:
    """(what, hint) of an nnbook message: its first line, and its 'hint:' line."""
    lines = text.split("\n")
    what = lines[0]
    if strip_where and ": " in what and " " not in what.split(": ", 1)[0]:
        what = what.split(": ", 1)[1]  # 'Swish.backward: returned ...' -> 'returned ...'
    hint = next((line.strip()[len("hint: "):] for line in lines
                 if line.strip().startswith("hint: ")), "")
    return what, hint


def _user_line(err: Exception) -> str:
    """'at a notebook cell, line 12: ...' -- the last line of the student's own code."""
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        if not os.path.abspath(frame.filename).startswith(_PACKAGE_DIR):
            return "at " + describe_frame(frame.filename, frame.lineno)
    return ""


def _outputs(value) -> list:
    return list(value) if isinstance(value, (tuple, list)) else [value]


def _name(obj) -> str:
    return getattr(obj, "__name__", None) or type(obj).__name__


def _arg_names(forward, n: int) -> list[str]:
    names, _ = positional_names(forward)
    return [names[i] if i < len(names) else f"input {i}" for i in range(n)]


@dataclass
class _Leaf:
    name: str
    tensor: Tensor
    missing_hint: str  # the next step when no gradient reaches it


def _make_args(values, names, missing_hint):
    """float64 leaves (copies) for floating point inputs; other values pass unchanged."""
    args, leaves = [], []
    for value, name in zip(values, names):
        array = value._array if isinstance(value, Tensor) else value
        if isinstance(array, np.ndarray) and array.dtype.kind == "f":
            leaf = _wrap(np.array(array, dtype=np.float64, order="C"), requires_grad=True)
            leaves.append(_Leaf(name, leaf, missing_hint.format(name=name)))
            args.append(leaf)
        else:
            args.append(value)
    return args, leaves


def _describe_inputs(leaves) -> str:
    return ", ".join(f"{leaf.name} {fmt_shape(leaf.tensor.shape)}" for leaf in leaves)


def _fresh(args):
    """Copies of the arguments outside any graph, for a reference to run on."""
    return [_wrap(a._array.copy()) if isinstance(a, Tensor) else a for a in args]


# --------------------------------------------------------------------------
# The forward: runs, returns Tensors, matches the reference
# --------------------------------------------------------------------------

def _check_forward(checks, part, call, leaves, expected, expected_label, todo_hint):
    """✓/✗ lines for the forward; returns its outputs, or None when it did not work."""
    ok, value = _attempt(checks, part, call, todo_hint)
    if not ok:
        return None
    outs = _outputs(value)
    for out in outs:
        if not isinstance(out, Tensor):
            checks.fail(f"{part} returned a {type(out).__name__}, not an nnbook Tensor",
                        "build the result with nnbook operations on the input tensors "
                        "(or wrap a numpy result: nb.tensor(array)).")
            return None
    shapes = ", ".join(fmt_shape(o.shape) for o in outs)
    if any(o.dtype != np.float64 for o in outs):
        dtype = next(o.dtype for o in outs if o.dtype != np.float64)
        checks.fail(f"{part} returns {dtype} for float64 inputs",
                    "keep the inputs' dtype (e.g. np.zeros(shape, dtype=x.dtype)): "
                    "gradients are checked in float64.")
        return None
    bad = next((o for o in outs if not np.isfinite(o._array).all()), None)
    if bad is not None:
        checks.fail(f"{part} gives nan or inf on ordinary inputs ({_describe_inputs(leaves)})",
                    "look for a division by zero, a log of a negative number or an overflow.")
        return None
    checks.ok(f"{part} runs on {_describe_inputs(leaves)} and returns "
              f"{'a Tensor' if len(outs) == 1 else 'Tensors'} of shape {shapes}")
    if expected is None:
        checks.skip(f"{part} not compared with expected values (none given)")
        return outs
    ok, value = _attempt(checks, "expected(...)", expected, _GENERIC_UNFINISHED)
    if not ok:
        return None
    wanted = [np.asarray(w._array if isinstance(w, Tensor) else w, dtype=np.float64)
              for w in _outputs(value)]
    if [o.shape for o in outs] != [w.shape for w in wanted]:
        checks.fail(f"{part} returns shape {shapes}; {expected_label} has shape "
                    f"{', '.join(fmt_shape(w.shape) for w in wanted)}",
                    f"compare the shapes step by step with the task; the output of {part} "
                    f"should have shape {', '.join(fmt_shape(w.shape) for w in wanted)}.")
        return None
    for out, want in zip(outs, wanted):
        wrong = ~np.isclose(out._array, want, rtol=1e-6, atol=1e-9)
        if wrong.any():
            at = np.unravel_index(int(np.argmax(wrong)), wrong.shape)
            checks.fail(f"{part} differs from {expected_label}",
                        f"go through {part} again with the formula in the task; try it on "
                        "one number by hand.",
                        f"at element [{_index(at)}]: yours {float(out._array[at]):.4g}, expected "
                        f"{float(want[at]):.4g} ({int(wrong.sum())} of {wrong.size} elements "
                        "differ)")
            return None
    checks.ok(f"{part} matches {expected_label}")
    return outs


def _index(at) -> str:
    return ", ".join(str(int(i)) for i in at)
