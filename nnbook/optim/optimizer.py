"""Optimizer: what every optimizer shares -- parameter groups, state, zero_grad, checked
arguments and gradients, state dicts, and the warning about parameters that got no
gradient.

The layer built in forward left its optimizer holding ``w`` and ``w2``, which the
model never used: their gradients were silently zero and nothing learned.  Here
``step()`` names every parameter it holds that received no gradient from the last
backward, once.

A step either updates every parameter or none: all gradients are checked (shape,
dtype) before the first parameter changes (``p.grad`` is a plain attribute, so ``step()``
is where a wrong one is found).  Settings are refused where PyTorch refuses them and also
where they can only be a mistake; the "optimizers" rows of ``nnbook/compat.py`` list every
difference from PyTorch.

State: ``optimizer.state[p]`` is a dict of Tensors, as in PyTorch (``state[p]['exp_avg']``,
and ``state[p]['step']``, a 0-d float tensor).  Each subclass's ``_update`` sees the same
memory as plain numpy arrays, so an update reads as the maths in its docstring.
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from ..context import enable_grad, no_grad
from ..errors import InputError, message, warn_from_user_code
from ..tensor import Tensor, _wrap
from .checks import SCHEDULER_KEYS, check_number, check_param, checked_grad, describe
from .state_dict import check_state_dict, make_state_dict, step_dtype


class UnusedParameterWarning(UserWarning):
    """optimizer.step() found parameters without a gradient: probably unused in forward."""


class Optimizer:
    """Base class: holds ``param_groups`` (dicts with 'params' and the settings) and ``state``.

    Subclasses define ``defaults`` through ``__init__``, ``_update(param, grad, group,
    state)``, which changes the parameter in place, and which state entries they keep
    (load_state_dict refuses any other).
    """

    # Names of the per-parameter state entries: arrays of the parameter's shape, and
    # plain numbers.  None: the subclass does not say, so any entry is accepted.
    _state_tensors: tuple | None = None
    _state_numbers: tuple = ()

    def __init__(self, params, defaults: dict):
        name = type(self).__name__
        self.defaults = dict(defaults)
        self.param_groups: list[dict] = []
        # param -> {name: Tensor}; keys are Tensors, hashed by identity
        self.state: defaultdict = defaultdict(dict)
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
            check_param(name, index, p)
            if id(p) in seen:
                raise InputError(message(
                    f"{describe(p)} was given to {name} twice.", where=name,
                    values=f"parameter {index} of this group",
                    hint="each parameter may appear in only one group, once; when "
                    "building groups from layers, make sure no layer is in two groups."))
            seen.add(id(p))
        full = dict(self.defaults)
        full.update({k: v for k, v in group.items() if k != "params"})
        unknown = sorted(set(full) - set(self.defaults) - set(SCHEDULER_KEYS))
        if unknown:
            raise InputError(message(
                f"{name} has no setting {', '.join(map(repr, unknown))}.", where=name,
                values=f"settings: {', '.join(self.defaults)}",
                hint="check the spelling of the group's keys."))
        self._check_settings(full, where=name)
        full["params"] = params
        self.param_groups.append(full)

    def _check_settings(self, group: dict, where: str) -> None:
        """Refuse settings PyTorch refuses (negative), and nan or inf; subclasses add theirs."""
        check_number(where, "lr", group["lr"])
        check_number(where, "weight_decay", group.get("weight_decay", 0))
        for key in SCHEDULER_KEYS:  # set by a learning-rate scheduler, or by hand
            if key in group:
                check_number(where, key, group[key])

    def _required_state(self, group: dict) -> tuple:
        """State entries a parameter must have once it has any (load_state_dict checks)."""
        return ()

    # -- stepping -------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients of the last backward (backward adds to .grad)."""
        for group in self.param_groups:
            for p in group["params"]:
                if set_to_none:
                    p.grad = None
                elif p.grad is not None:
                    p.grad = _wrap(np.zeros_like(np.asarray(p.grad)))

    def step(self, closure=None):
        """Update every parameter that has a gradient; name those that have none (once).

        Every gradient is checked before the first parameter changes, so a step that
        fails leaves the parameters and the optimizer's state as they were.
        ``closure``, if given, recomputes and returns the loss (PyTorch's protocol).
        """
        loss = None
        if closure is not None:
            with enable_grad():  # the closure runs a backward, even under no_grad
                loss = closure()
        name = type(self).__name__
        todo, missing = [], []
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    if p.requires_grad:  # frozen parameters are skipped on purpose
                        missing.append(p)
                    continue
                todo.append((p, checked_grad(name, p), group))
        with no_grad():  # an update is not part of any graph
            for p, grad, group in todo:
                self._step_one(p, grad, group)
        self._opt_called = True  # schedulers check that a step came before theirs
        if missing:
            self._warn_no_grad(missing)
        return loss

    def _step_one(self, p, grad, group) -> None:
        """Run ``_update`` on numpy views of ``p``'s state Tensors; wrap what it adds."""
        tensors = self.state.get(p, {})
        arrays = {k: v.numpy() if isinstance(v, Tensor) else v for k, v in tensors.items()}
        self._update(p, grad, group, arrays)
        if not arrays:  # SGD without momentum keeps no state, as in PyTorch
            return
        tensors = self.state[p]
        for key, array in arrays.items():
            if isinstance(array, np.ndarray) and not (
                    isinstance(tensors.get(key), Tensor) and tensors[key].numpy() is array):
                tensors[key] = _wrap(array)

    def _update(self, param, grad, group, state) -> None:
        """Change ``param`` in place from ``grad`` (an array of its shape and dtype);
        ``state`` holds numpy arrays (the memory of ``self.state[param]``'s Tensors), and
        the arrays added to it become Tensors.  Subclasses define it."""
        raise AssertionError(f"{type(self).__name__} must define _update")

    def _warn_no_grad(self, missing: list) -> None:
        new = [p for p in missing if id(p) not in self._warned]
        if not new:
            return
        self._warned.update(id(p) for p in new)
        name = type(self).__name__
        total = sum(len(g["params"]) for g in self.param_groups)
        listed = "\n".join(describe(p) for p in new[:20])
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
            what, where=f"{name}.step()", values=listed,
            hint=hint + " (Each parameter is named once.)", line=False)))

    # -- state dicts ----------------------------------------------------------------
    def state_dict(self) -> dict:
        """{'state': {index: {...}}, 'param_groups': [{settings, 'params': [index, ...]}],
        'kind': 'SGD'}.

        PyTorch's layout (parameters numbered in group order), plus the optimizer's
        kind, so that it cannot be loaded into another kind.  Arrays are copies;
        ``nb.save`` stores it.
        """
        return make_state_dict(self)

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore settings and state saved by ``state_dict()`` (directly or via
        nb.save/nb.load).

        Everything is checked first -- the kind of optimizer, the groups and their
        parameter counts, every state entry's name and shape, the settings -- and
        nothing changes unless it all fits.
        """
        settings, state = check_state_dict(self, state_dict)
        # Everything checked: now change this optimizer.
        for group, saved in zip(self.param_groups, settings):
            group.update(saved)
        self.state = defaultdict(dict, state)

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        return "\n".join(lines) + "\n)"


# -- helpers -------------------------------------------------------------------------

def step_counter() -> np.ndarray:
    """A parameter's step count: a 0-d float array (PyTorch keeps a 0-d float tensor,
    float64 if that is the default dtype, else float32)."""
    return np.zeros((), dtype=step_dtype())


def _models_with_gradients(params) -> list[str]:
    """Class names of the outermost models holding ``params`` in which some other
    parameter has a gradient: evidence that a backward did run through that model."""
    from ..nn.parameter import outermost_models

    names = []
    for model in outermost_models(params):
        if any(q.grad is not None for q in model.parameters()):
            names.append(type(model).__name__)
    return names
