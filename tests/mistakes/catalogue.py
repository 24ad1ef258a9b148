"""The catalogue of mistakes students make, and the one check every entry must pass.

An entry is the code a student would write, split in two: ``setup`` builds the state
(a model, an optimizer, a tensor, a file; or nothing), ``act`` is the line that goes
wrong.  :func:`check` runs ``act`` and requires

* exactly the nnbook error class the entry names, which is also the builtin a Python
  user would catch (a ShapeError is a ValueError, a DimError an IndexError...);
* the four parts of the message: where (the first line starts with the layer path or
  the function, e.g. ``0 (Linear)`` or ``Tensor.item``), what was expected and what came
  (``said``, a regex over the message before its ``at`` line), the user's line
  (``at tests/mistakes/<file>.py, line N``, N a line of the entry itself) and a
  ``hint:`` that points the right way (``hint``, a regex over the hint);
* that nothing changed: every tensor, parameter, buffer, optimizer setting and state,
  every file in the test's folder, nnbook's random generator, grad mode and the module
  stack are as they were before the call (bytes and version counters included).

Each entry is one :func:`mistake` call in a test file of this folder, so its ``act``
is a line of that file -- the line the message must point at.
"""
from __future__ import annotations

import inspect
import json
import pathlib
import re
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

import nnbook as nb
from nnbook import context, errors
from nnbook.nn.guard import BuildInForwardError
from nnbook.nn.module import ModuleAttributeError
from nnbook.nn.utils.norm_hooks import NormHookError

# Each nnbook error class and the builtin it must also be.
BUILTIN = {
    errors.ShapeError: ValueError,
    errors.DimError: IndexError,
    errors.InputError: ValueError,
    errors.ArgumentError: TypeError,
    errors.DTypeError: TypeError,
    errors.BackwardError: RuntimeError,
    errors.CheckpointError: ValueError,
    errors.SignatureError: TypeError,
    errors.ContractError: RuntimeError,
    errors.GradcheckError: AssertionError,
    errors.AnomalyError: FloatingPointError,
    ModuleAttributeError: AttributeError,
    errors.MissingNameError: AttributeError,
    errors.MissingRuleError: NotImplementedError,
    BuildInForwardError: RuntimeError,
    NormHookError: RuntimeError,
}


@dataclass(frozen=True)
class Mistake:
    setup: Callable | None   # () -> state, (tmp_path) -> state, or None (no state)
    act: Callable            # (state) -> raises; () -> raises when there is no setup
    error: type              # the exact nnbook error class
    where: str               # the message's first line starts with this
    said: str                # regex: what was expected and what came
    hint: str                # regex: where the hint points
    also: Callable | None    # a function of the test file whose lines may be "the line"


def mistake(name: str, setup, act, error, where: str, said: str, hint: str, also=None):
    """One catalogue entry, as a pytest parameter with ``name`` as its id."""
    return pytest.param(Mistake(setup, act, error, where, said, hint, also), id=name)


# ---------------------------------------------------------------------------
# The check
# ---------------------------------------------------------------------------

def check(m: Mistake, tmp_path: pathlib.Path) -> str:
    """Run one entry and check everything above; returns the message."""
    state = _build(m.setup, tmp_path)
    before = snapshot_all(state, tmp_path)
    with pytest.raises(errors.NnbookError) as info:
        m.act(state) if m.setup is not None else m.act()
    err = info.value
    text = str(err)
    assert type(err) is m.error, f"expected {m.error.__name__}, got {type(err).__name__}:\n{text}"
    assert isinstance(err, BUILTIN[m.error]), f"{m.error.__name__} is not a {BUILTIN[m.error]}"
    _check_message(m, text)
    after = snapshot_all(state, tmp_path)
    assert after == before, f"the failed call changed the state:\n{_difference(before, after)}"
    return text


def _build(setup, tmp_path):
    if setup is None:
        return None
    return setup(tmp_path) if inspect.signature(setup).parameters else setup()


_AT = re.compile(r"\n  at (?P<file>.+?), line (?P<line>\d+)(?::|\n|$)")


def _check_message(m: Mistake, text: str) -> None:
    first = text.split("\n", 1)[0]
    assert re.match(re.escape(m.where) + r"[:,(]", first), \
        f"the message should start with {m.where!r}:\n{text}"
    found = _AT.search(text)
    assert found, f"the message does not say the user's line ('at ...'):\n{text}"
    filename = pathlib.Path(m.act.__code__.co_filename)
    assert pathlib.Path(found["file"]).name == filename.name, \
        f"the line should be in {filename.name}:\n{text}"
    lines = _code_lines(m.act.__code__)
    if m.also is not None:  # a function's lines, from its decorators to its end
        also = _code_lines(m.also.__code__)
        lines |= set(range(m.also.__code__.co_firstlineno, max(also) + 1))
    assert int(found["line"]) in lines, \
        f"line {found['line']} is not a line of the entry ({sorted(lines)}):\n{text}"
    before_at = text[:found.start()]
    assert re.search(m.said, before_at, re.S), \
        f"what was expected and what came should match {m.said!r}:\n{text}"
    head, sep, hint = text.partition("\n  hint: ")
    assert sep, f"the message has no hint:\n{text}"
    assert re.search(m.hint, hint, re.S), f"the hint should match {m.hint!r}:\n{text}"


def _code_lines(code) -> set:
    lines = {line for _, _, line in code.co_lines() if line is not None}
    for const in code.co_consts:
        if inspect.iscode(const):
            lines |= _code_lines(const)
    return lines


# ---------------------------------------------------------------------------
# State: everything a failed call must leave as it was
# ---------------------------------------------------------------------------

def snapshot_all(state, tmp_path):
    from nnbook.nn import guard

    return {
        "state": snapshot(state),
        "files": snapshot(tmp_path),
        "generator": json.dumps(nb.default_generator.numpy.bit_generator.state, default=str),
        "grad mode": context.grad_enabled,
        "module stack": list(context.module_stack),
        "observers": list(context.observers),
        "default dtype": nb.get_default_dtype(),
        "build allowed": guard._allowed,
    }


def snapshot(obj, seen=None):
    """A comparable picture of ``obj``: arrays by their bytes, modules by their parameters,
    buffers and flags, optimizers by settings and state, paths by their files' bytes."""
    seen = set() if seen is None else seen
    if isinstance(obj, (str, bytes, int, float, bool, type(None), type)):
        return obj
    if isinstance(obj, (dict, list, tuple)):  # containers: by value (their ids may be reused)
        if isinstance(obj, dict):
            return ("dict", [(snapshot(k, seen), snapshot(v, seen)) for k, v in obj.items()])
        return (type(obj).__name__, [snapshot(v, seen) for v in obj])
    if id(obj) in seen:  # an object met before (a shared parameter): once is enough
        return ("seen", id(obj))
    seen.add(id(obj))
    if isinstance(obj, nb.Tensor):
        return ("tensor", type(obj).__name__, _array(obj._array), obj._counter[0],
                obj.requires_grad, id(obj.grad_fn), snapshot(obj.grad, seen))
    if isinstance(obj, np.ndarray):
        return _array(obj)
    if isinstance(obj, pathlib.Path):
        return _path(obj)
    if isinstance(obj, nb.nn.Module):
        return _module(obj, seen)
    if isinstance(obj, nb.optim.Optimizer):
        return _optimizer(obj, seen)
    if isinstance(obj, nb.Generator):
        return json.dumps(obj.numpy.bit_generator.state, default=str)
    if callable(obj) or not hasattr(obj, "__dict__"):
        return ("object", type(obj).__name__, id(obj))
    return ("object", type(obj).__name__, snapshot(dict(vars(obj)), seen))


def _array(a: np.ndarray):
    return ("array", a.shape, a.dtype.str, np.ascontiguousarray(a).tobytes())


def _path(path: pathlib.Path):
    if path.is_dir():
        return ("dir", [(str(p.relative_to(path)), p.read_bytes() if p.is_file() else None)
                        for p in sorted(path.rglob("*"))])
    return ("file", path.read_bytes() if path.exists() else None)


def _module(module, seen):
    d = module.__dict__
    if "_parameters" not in d:  # built without super().__init__(): its plain attributes
        return ("module", type(module).__name__, snapshot(dict(d), seen))
    plain = {k: v for k, v in d.items()
             if not k.startswith("_") and k not in d["_parameters"] and k not in d["_buffers"]
             and k not in d["_modules"]}
    return ("module", type(module).__name__,
            [(path, type(m).__name__, m.training, sorted(m._modules))
             for path, m in module.named_modules(remove_duplicate=False)],
            [(n, snapshot(p, seen)) for n, p in module.named_parameters(remove_duplicate=False)],
            [(n, snapshot(b, seen)) for n, b in module.named_buffers(remove_duplicate=False)],
            snapshot(plain, seen))


def _optimizer(opt, seen):
    groups = [({k: snapshot(v, seen) for k, v in g.items() if k != "params"},
               [snapshot(p, seen) for p in g["params"]]) for g in opt.param_groups]
    state = [(id(p), {k: snapshot(v, seen) for k, v in s.items()})
             for p, s in opt.state.items()]
    return ("optimizer", type(opt).__name__, groups, state, sorted(opt._warned))


def _difference(before, after) -> str:
    lines = [f"  {key} changed" for key in before if before[key] != after[key]]
    return "\n".join(lines) or "  (the pictures differ)"
