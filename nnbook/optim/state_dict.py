"""An optimizer's state dict: made in PyTorch's layout, and checked in full before any
of it is loaded.

    {'state': {0: {'momentum_buffer': ...}, ...},            # by parameter number
     'param_groups': [{'lr': 0.1, ..., 'params': [0, 1]}],  # settings, numbers
     'kind': 'SGD'}                                          # nnbook's addition

After nb.save and nb.load the numbers come back as strings ('0') and lists of
dicts as dicts ({'0': {...}}); both layouts load.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import numpy as np

from .. import dtypes
from ..errors import ArgumentError, CheckpointError, InputError, fmt_shape, message
from ..tensor import Tensor, _wrap
from .checks import SCHEDULER_KEYS, describe


def make_state_dict(opt) -> dict:
    index, groups, state = {}, [], {}
    for group in opt.param_groups:
        for p in group["params"]:
            index[id(p)] = len(index)
        groups.append({**{k: v for k, v in group.items() if k != "params"},
                       "params": [index[id(p)] for p in group["params"]]})
    for group in opt.param_groups:
        for p in group["params"]:
            if opt.state.get(p):
                state[index[id(p)]] = {k: _copy(v) for k, v in opt.state[p].items()}
    return {"state": state, "param_groups": groups, "kind": type(opt).__name__}


def _copy(value):
    """A state entry as a Tensor with memory of its own (PyTorch's are references)."""
    if isinstance(value, Tensor):
        return _wrap(value.numpy().copy())
    return _wrap(value.copy()) if isinstance(value, np.ndarray) else value


def check_state_dict(opt, state_dict) -> tuple[list, dict]:
    """The settings of each group and the new state, or a CheckpointError: this
    changes nothing, so the caller can apply the result all at once."""
    name = type(opt).__name__
    where = f"{name}.load_state_dict"

    def refuse(what, values=None, hint="load a state dict saved from the same kind of "
               "optimizer, built over the same model in the same way."):
        raise CheckpointError(message(what + " Nothing was loaded.", where=where,
                                      values=values, hint=hint))

    if not isinstance(state_dict, Mapping):
        refuse(f"it needs a dict made by optimizer.state_dict(), got "
               f"{type(state_dict).__name__}.")
    kind = state_dict.get("kind")
    if kind is not None and not isinstance(kind, str):
        refuse(f"the state dict's 'kind' should name an optimizer, got {kind!r:.40}.")
    if kind is not None and kind != name:
        refuse(f"the state dict was saved from {kind!s:.40}, and this optimizer is {name}.",
               values=f"saved: {kind!s:.40}   here: {name}",
               hint=f"build the same kind of optimizer as was saved ({kind!s:.40}) before "
               f"loading; to switch to {name}, don't load the old state: {name} starts "
               "fresh.")
    groups = _saved_groups(state_dict.get("param_groups"))
    if groups is None:
        refuse("the state dict has no list of parameter groups ('param_groups').",
               values=f"its keys: {', '.join(map(str, list(state_dict)[:8]))}",
               hint=_not_an_optimizer_hint(state_dict))
    if len(groups) != len(opt.param_groups):
        refuse(f"the state dict has {len(groups)} parameter group(s), this {name} has "
               f"{len(opt.param_groups)}.")
    saved_state = state_dict.get("state", {})
    if not isinstance(saved_state, Mapping):
        refuse(f"the saved 'state' is a {type(saved_state).__name__}, not a dict.")
    _refuse_foreign_keys(opt, groups, saved_state, refuse)
    params, settings = {}, []
    for i, (mine, saved) in enumerate(zip(opt.param_groups, groups)):
        ids = _indices(saved.get("params"))
        if ids is None:
            refuse(f"saved group {i} has no list of parameter numbers ('params').")
        if len(ids) != len(mine["params"]):
            refuse(f"saved group {i} holds {len(ids)} parameter(s), the matching group here "
                   f"holds {len(mine['params'])}.",
                   hint="build the model and the optimizer exactly as when it was saved.")
        for saved_id, p in zip(ids, mine["params"]):
            if saved_id in params:
                refuse(f"parameter number {saved_id} appears twice in the saved groups.")
            params[saved_id] = (p, i)
        new = {k: _setting(v, opt.defaults.get(k, 0.0)) for k, v in saved.items()
               if k != "params"}
        try:
            opt._check_settings({**mine, **new}, where=where)
        except (InputError, ArgumentError) as err:  # lr=nan in a file: as wrong as in code
            first, _, rest = str(err).partition("\n")
            raise CheckpointError(f"{first.rstrip('.')}, in saved group {i}. Nothing was "
                                  f"loaded.\n{rest}") from None
        settings.append(new)
    state = _check_state(opt, saved_state, params, settings, refuse)
    return settings, state


def _not_an_optimizer_hint(state_dict: Mapping) -> str:
    values = list(state_dict.values())
    if values and all(isinstance(v, (Tensor, np.ndarray)) for v in values):
        return ("this looks like a model's state dict (path -> tensor): load it with "
                "model.load_state_dict(...); the optimizer's comes from "
                "optimizer.state_dict().")
    inner = [k for k, v in state_dict.items() if isinstance(v, Mapping) and "param_groups" in v]
    part = f"checkpoint[{inner[0]!r}]" if inner else "checkpoint['optimizer']"
    return ("pass what optimizer.state_dict() returned (from a checkpoint holding more, the "
            f"part saved from it: {part}).")


def _refuse_foreign_keys(opt, groups: list, saved_state: Mapping, refuse) -> None:
    """Settings or state entries this kind of optimizer does not have: a state dict of
    another kind (SGD's momentum buffers offered to Adam), with or without its 'kind'."""
    name = type(opt).__name__
    settings = sorted({str(k) for g in groups for k in g} - {"params"} - set(opt.defaults)
                      - set(SCHEDULER_KEYS))
    known = set(opt._state_tensors or ()) | set(opt._state_numbers)
    entries = sorted({str(k) for entry in saved_state.values() if isinstance(entry, Mapping)
                      for k in entry} - known) if opt._state_tensors is not None else []
    if not settings and not entries:
        return
    found = [f"{what} {', '.join(map(repr, keys))}" for what, keys in
             (("setting(s)", settings), ("state entries", entries)) if keys]
    refuse(f"the state dict holds {' and '.join(found)}, which {name} does not have.",
           values=f"{name}'s settings: {', '.join(opt.defaults)}\n{name}'s state entries: "
           f"{', '.join(sorted(known)) if opt._state_tensors is not None else 'any'}",
           hint="it was probably saved from another kind of optimizer (SGD keeps "
           "momentum_buffer; Adam keeps step, exp_avg and exp_avg_sq); load it into that "
           f"kind, or don't load it: {name} then starts fresh.")


def _check_state(opt, saved_state, params: dict, settings: list, refuse) -> dict:
    new_state = {}
    for key, entry in saved_state.items():
        saved_id = _index(key)
        if saved_id not in params:
            refuse(f"the saved state is for parameter number {key!s:.20}, which no saved "
                   "group lists.")
        p, group = params[saved_id]
        if not isinstance(entry, Mapping):
            refuse(f"the saved state of parameter {saved_id} is a {type(entry).__name__}, "
                   "not a dict.")
        if entry:
            settings_of_group = {**opt.param_groups[group], **settings[group]}
            lacking = [k for k in opt._required_state(settings_of_group) if k not in entry]
            if lacking:
                refuse(f"the saved state of {describe(p)} lacks {', '.join(lacking)}.",
                       values=f"it holds: {', '.join(map(str, entry))}",
                       hint="the state dict is incomplete; save it again from the "
                       "optimizer, or start this optimizer fresh (skip loading).")
        new_state[p] = {str(k): _state_value(opt, str(k), v, p, refuse)
                        for k, v in entry.items()}
    return new_state


def _state_value(opt, key: str, value, p, refuse):
    try:
        array = np.asarray(value)
    except Exception:  # numpy refuses some objects outright
        array = np.asarray(None, dtype=object)
    if array.dtype.kind not in "biuf":
        refuse(f"the saved '{key}' of {describe(p)} is not a number or numeric array "
               f"(it is {type(value).__name__}, dtype {array.dtype}).")
    numbers_only = key in opt._state_numbers or (opt._state_tensors is None and
                                                 array.ndim == 0)
    if numbers_only:
        number = array.item() if array.size == 1 else None
        if number is None or not math.isfinite(number) or number < 0:
            refuse(f"the saved '{key}' of {describe(p)} must be one finite number >= 0, "
                   f"got {array.tolist()!r:.60}.")
        if key == "step":  # a 0-d float tensor, as the optimizer's own
            return _wrap(np.array(number, dtype=step_dtype()))
        return number
    if array.shape != p.shape:
        refuse(f"the saved '{key}' has shape {fmt_shape(array.shape)}, but the parameter it "
               f"belongs to has shape {fmt_shape(p.shape)}.",
               values=f"parameter: {describe(p)}",
               hint="build the model and the optimizer exactly as when it was saved.")
    return _wrap(array.astype(p.dtype, copy=True))


def step_dtype() -> np.dtype:
    """The dtype of a step count: float64 if that is the default dtype, else float32."""
    return np.dtype(np.float64 if dtypes.default_float() == np.float64 else np.float32)


def _saved_groups(groups):
    """A list of group dicts, from a list or from nb.load's {'0': {...}, '1': {...}}."""
    if isinstance(groups, Mapping):
        if not all(str(k).isdigit() for k in groups):
            return None
        groups = [groups[k] for k in sorted(groups, key=lambda k: int(k))]
    if not isinstance(groups, (list, tuple)) or \
            not all(isinstance(g, Mapping) for g in groups):
        return None
    return list(groups)


def _indices(value):
    """A group's 'params' as a list of ints (nb.load gives an int array), or None."""
    if isinstance(value, (list, tuple)) and not value:
        return []
    try:
        array = np.asarray(value)
    except Exception:  # numpy refuses some objects outright
        return None
    if value is None or array.dtype.kind not in "iu" or array.ndim > 1:
        return None
    return [int(i) for i in array.reshape(-1)]


def _index(key):
    if isinstance(key, numbers.Integral) and not isinstance(key, bool):
        return int(key)
    return int(key) if isinstance(key, str) and key.isdigit() else None


def _setting(value, default):
    """A setting read back from a state dict, in the type of its default if it can be."""
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        value = np.asarray(value).tolist()
    if isinstance(default, tuple) and isinstance(value, (list, tuple)):
        return tuple(value)
    if isinstance(default, bool) and isinstance(value, (bool, int)):
        return bool(value)
    return value
