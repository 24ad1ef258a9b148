"""Optimizer: what SGD and Adam share -- parameter groups, state, zero_grad, state dicts,
and the warning about parameters that got no gradient (seed 000).

Seed 000's optimizer held ``w`` and ``w2``, which the model never used: their
gradients were silently zero and nothing learned.  Here ``step()`` names every
parameter it holds that received no gradient from the last backward, once.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..errors import DTypeError, InputError, fmt_shape, message
from ..errors import warn_from_user_code
from ..context import no_grad
from ..tensor import Tensor, _wrap


class UnusedParameterWarning(UserWarning):
    """optimizer.step() found parameters without a gradient: probably unused in forward."""


class Optimizer:
    """Base class: holds ``param_groups`` (dicts with 'params' and the settings) and ``state``.

    Subclasses define ``defaults`` through ``__init__`` and ``_update(param, grad, group,
    state)``, which changes ``param.data`` in place.
    """

    def __init__(self, params, defaults: dict):
        name = type(self).__name__
        self.defaults = dict(defaults)
        self.param_groups: list[dict] = []
        self.state: dict = {}  # param -> dict (keys are Tensors, hashed by identity)
        self._warned: set = set()  # ids of parameters already named by the warning
        if isinstance(params, Tensor) or hasattr(params, "named_parameters"):
            what = "a Module" if hasattr(params, "named_parameters") else "a single Tensor"
            raise InputError(message(
                f"{name} was given {what}; it needs an iterable of parameters.",
                where=name, hint=f"pass model.parameters(): {name}(model.parameters(), "
                "lr=...), or a list: [w, b]."))
        try:
            params = list(params)
        except TypeError:
            raise InputError(message(
                f"{name} needs an iterable of parameters, got {type(params).__name__}.",
                where=name, hint=f"{name}(model.parameters(), lr=...)")) from None
        if not params:
            raise InputError(message(
                f"{name} got an empty parameter list.", where=name,
                hint="layers are registered when they are assigned as attributes in "
                "__init__ (self.fc = nb.nn.Linear(4, 2)); check that model.parameters() "
                "lists something, and that the generator was not used up already."))
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        for group in groups:
            self.add_param_group(group)

    # -- groups ---------------------------------------------------------------------
    def add_param_group(self, group: dict) -> None:
        name = type(self).__name__
        if not isinstance(group, dict) or "params" not in group:
            raise InputError(message(
                f"a parameter group must be a dict with a 'params' key, got {group!r:.60}.",
                where=name, hint="e.g. [{'params': model.fc.parameters(), 'lr': 0.1}, "
                "{'params': model.conv.parameters()}]."))
        params = group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        for index, p in enumerate(params):
            _check_param(name, index, p)
            if id(p) in seen:
                raise InputError(message(
                    f"{_describe(p)} was given to {name} twice.", where=name,
                    values=f"parameter {index} of this group",
                    hint="each parameter may appear in only one group, once; when "
                    "building groups from layers, make sure no layer is in two groups."))
            seen.add(id(p))
        full = dict(self.defaults)
        full.update({k: v for k, v in group.items() if k != "params"})
        unknown = sorted(set(full) - set(self.defaults))
        if unknown:
            raise InputError(message(
                f"{name} has no setting {', '.join(map(repr, unknown))}.", where=name,
                values=f"settings: {', '.join(self.defaults)}",
                hint="check the spelling of the group's keys."))
        self._check_settings(full)
        full["params"] = params
        self.param_groups.append(full)

    def _check_settings(self, group: dict) -> None:
        _non_negative(type(self).__name__, "lr", group["lr"])
        _non_negative(type(self).__name__, "weight_decay", group.get("weight_decay", 0))

    # -- stepping -------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients of the last backward (backward adds to .grad)."""
        for group in self.param_groups:
            for p in group["params"]:
                if set_to_none:
                    p.grad = None
                elif p.grad is not None:
                    p.grad = _wrap(np.zeros_like(p.grad._array))

    def step(self, closure=None):
        """Update every parameter that has a gradient; name those that have none (once).

        ``closure``, if given, recomputes and returns the loss (PyTorch's protocol).
        """
        loss = closure() if closure is not None else None
        missing = []
        with no_grad():  # an update is not part of any graph
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        if p.requires_grad:  # frozen parameters are skipped on purpose
                            missing.append(p)
                        continue
                    self._update(p, p.grad._array, group, self.state.setdefault(p, {}))
                    p._counter[0] += 1  # changed in place: a saved copy of it is stale now
        if missing:
            self._warn_no_grad(missing)
        return loss

    def _update(self, param, grad, group, state) -> None:
        """Change ``param.data`` in place from ``grad`` (an array); subclasses define it."""
        assert False, f"{type(self).__name__} must define _update"

    def _warn_no_grad(self, missing: list) -> None:
        new = [p for p in missing if id(p) not in self._warned]
        if not new:
            return
        self._warned.update(id(p) for p in new)
        name = type(self).__name__
        total = sum(len(g["params"]) for g in self.param_groups)
        listed = "\n".join(_describe(p) for p in new[:20])
        if len(new) > 20:
            listed += f"\n... and {len(new) - 20} more"
        unused_hint = ("they were probably not used in the forward pass that computed the "
                       "loss (a parameter the model stores but never reads, or a layer built "
                       "inside forward). Use them in forward, or leave them out of the "
                       "optimizer.")
        models = _models_with_gradients(missing) if len(missing) == total else []
        if len(missing) < total:
            what = (f"{len(new)} of its {total} parameter(s) received no "
                    "gradient from the last backward and were not updated.")
            hint = unused_hint
        elif models:
            what = (f"none of its {total} parameter(s) received a gradient "
                    f"from the last backward, although other parameters of "
                    f"{', '.join(models)} did.")
            hint = unused_hint
        else:
            what = (f"none of its {total} parameter(s) has a gradient, so "
                    "nothing was updated.")
            hint = ("call loss.backward() before optimizer.step() (and optimizer.zero_grad() "
                    "before the next forward); if you did, the loss does not depend on these "
                    "parameters: they were not used in the forward pass.")
        warn_from_user_code(UnusedParameterWarning(message(
            what, where=f"{name}.step()", values=listed, hint=hint + " (Each parameter is named once.)",
            line=False)))

    # -- state dicts ----------------------------------------------------------------
    def state_dict(self) -> dict:
        """{'state': {index: {...}}, 'param_groups': [{settings, 'params': [index, ...]}]}.

        Parameters are numbered in group order, as in PyTorch; ``nb.save`` stores it.
        """
        index = {}
        groups = []
        for group in self.param_groups:
            ids = []
            for p in group["params"]:
                index[id(p)] = len(index)
                ids.append(index[id(p)])
            groups.append({**{k: v for k, v in group.items() if k != "params"},
                           "params": ids})
        state = {}
        for group in self.param_groups:
            for p in group["params"]:
                if p in self.state and self.state[p]:
                    state[index[id(p)]] = {k: _wrap(v.copy()) if isinstance(v, np.ndarray)
                                           else v for k, v in self.state[p].items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore settings and state saved by ``state_dict()`` (directly or via nb.save/nb.load).

        The groups must hold the same numbers of parameters, of the same shapes.
        """
        name = type(self).__name__
        groups = state_dict.get("param_groups") if hasattr(state_dict, "get") else None
        if isinstance(groups, dict):  # nb.load gives {'0': {...}, '1': {...}}
            groups = [groups[k] for k in sorted(groups, key=int)]
        if not isinstance(groups, list) or len(groups) != len(self.param_groups):
            raise InputError(message(
                f"the state dict has {len(groups) if isinstance(groups, list) else 'no'} "
                f"parameter group(s), this {name} has {len(self.param_groups)}.",
                where=f"{name}.load_state_dict",
                hint="load a state dict saved from the same optimizer over the same model."))
        params = [p for g in self.param_groups for p in g["params"]]
        for mine, saved in zip(self.param_groups, groups):
            count = len(_as_list(saved.get("params", [])))
            if count != len(mine["params"]):
                raise InputError(message(
                    f"a saved parameter group holds {count} parameter(s), the matching group "
                    f"here holds {len(mine['params'])}.", where=f"{name}.load_state_dict",
                    hint="build the model and the optimizer exactly as when it was saved."))
        saved_state = {int(k): v for k, v in (state_dict.get("state") or {}).items()}
        new_state = {}
        for index, entry in saved_state.items():
            if not 0 <= index < len(params):
                raise InputError(message(
                    f"the saved state refers to parameter {index}, but there are only "
                    f"{len(params)}.", where=f"{name}.load_state_dict",
                    hint="load a state dict saved from the same optimizer."))
            p = params[index]
            new_state[p] = {k: _state_value(k, v, p, name) for k, v in entry.items()}
        # Everything checked: now change this optimizer.
        for mine, saved in zip(self.param_groups, groups):
            for key, value in saved.items():
                if key != "params" and key in self.defaults:
                    mine[key] = _setting(value, self.defaults[key])
        self.state = new_state

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        return "\n".join(lines) + "\n)"


# -- helpers -------------------------------------------------------------------------

def _describe(p) -> str:
    """'conv1.weight (6, 6, 3, 3)', or 'a parameter of shape (3, 6, 1, 1)' if in no model."""
    path = getattr(p, "path", None)
    return f"{path} {fmt_shape(p.shape)}" if path else \
        f"a parameter of shape {fmt_shape(p.shape)} (in no model)"


def _models_with_gradients(params) -> list[str]:
    """Class names of the outermost models holding ``params`` in which some other
    parameter has a gradient: evidence that a backward did run through that model."""
    from ..nn.parameter import outermost_models

    names = []
    for model in outermost_models(params):
        if any(q.grad is not None for q in model.parameters()):
            names.append(type(model).__name__)
    return names


def _check_param(name: str, index: int, p) -> None:
    if not isinstance(p, Tensor):
        raise InputError(message(
            f"item {index} of the parameters is a {type(p).__name__}, not a Tensor.",
            where=name, hint="pass model.parameters(), or tensors made with "
            "requires_grad=True."))
    if p.dtype.kind != "f":
        raise DTypeError(message(
            f"{_describe(p)} is {p.dtype.name}; only floating point tensors can be optimised.",
            where=name, hint="make it floating point: nb.tensor(data, dtype=nb.float32)."))
    if not p.is_leaf:
        raise InputError(message(
            f"item {index} of the parameters is not a leaf: it is the result of "
            f"{p.grad_fn.name}, so its gradient is not kept and updating it changes nothing "
            "the model reads.", where=name,
            hint="optimise the tensors you created (model.parameters(), or "
            "w = nb.randn(3, requires_grad=True)), not results computed from them."))


def _non_negative(name: str, key: str, value) -> None:
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or value < 0:
        raise InputError(message(
            f"{key} must be a number >= 0, got {value!r}.", where=name,
            hint="a typical learning rate is 0.01 to 0.1 for SGD and 1e-3 for Adam."
            if key == "lr" else f"{key}=0 switches it off."))


def _as_list(value) -> list:
    if isinstance(value, Tensor):
        value = value._array
    return list(np.asarray(value).reshape(-1)) if not isinstance(value, list) else value


def _setting(value, default):
    """A setting read back from a state dict, in the type of its default."""
    if isinstance(value, Tensor):
        value = value._array
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(default, tuple):
        return tuple(value)
    if isinstance(default, bool):
        return bool(value)
    return value


def _state_value(key: str, value, param, name: str):
    array = value._array if isinstance(value, Tensor) else value
    if isinstance(array, np.ndarray) and array.ndim > 0:
        if array.shape != param.shape:
            raise InputError(message(
                f"the saved '{key}' has shape {fmt_shape(array.shape)}, but the parameter "
                f"it belongs to has shape {fmt_shape(param.shape)}.",
                values=f"parameter: {_describe(param)}",
                where=f"{name}.load_state_dict",
                hint="build the model and the optimizer exactly as when it was saved."))
        return array.astype(param.dtype, copy=True)
    return np.asarray(array).item() if isinstance(array, np.ndarray) else array
