"""The general checks, for any code of yours: ``check_function`` (an nb.autograd.Function),
``check_bprop`` (a Module with bprop) and ``check_layer`` (a layer and its parameters).
"""
from __future__ import annotations

import copy
import inspect

import numpy as np

from .. import nn
from ..autograd import Function
from ..autograd.custom import positional_names
from ..autograd.function import FunctionCtx
from ..errors import fmt_shape
from ..tensor import Tensor, _wrap
from .gradients import _check_gradients
from .harness import (
    _GENERIC_UNFINISHED,
    SEED,
    _arg_names,
    _attempt,
    _check_forward,
    _fresh,
    _Leaf,
    _make_args,
    _name,
    _quiet,
    _seeded,
)
from .results import CheckResult, _Checks, _count


def check_function(fn, *inputs, expected=None, title=None, todo_hint=_GENERIC_UNFINISHED,
                   _label="the expected values", _after_forward=(), _after_gradients=()
                   ) -> CheckResult:
    """Check an ``nb.autograd.Function`` subclass on example inputs.

    ``expected(*inputs)`` (optional) gives the right forward values to compare with.
    Floating point inputs are checked as float64 copies; other arguments pass as given.

    >>> check_function(Cube, nb.randn(3, 4), expected=lambda x: x ** 3).passed
    True
    """
    checks = _Checks(title or f"check_function({_name(fn)})")
    with _quiet():
        if not (isinstance(fn, type) and issubclass(fn, Function)):
            checks.fail(f"{_name(fn)} is not a subclass of nb.autograd.Function",
                        "define class MyFn(nb.autograd.Function): with @staticmethod forward("
                        "ctx, ...) and backward(ctx, grad_output), and pass the class itself "
                        "(not MyFn.apply, not an instance).")
            return checks.result()
        checks.ok(f"{fn.__name__} is an nb.autograd.Function")
        params = list(inspect.signature(fn.backward).parameters)
        grad_name = params[1] if len(params) > 1 else "grad_output"
        args, leaves = _make_args(inputs, _arg_names(fn.forward, len(inputs)),
                                  f"backward returned None for '{{name}}': return {grad_name} "
                                  "times d out / d {name} in its place.")
        if not _has_leaves(checks, leaves):
            return checks.result()
        ref = None if expected is None else (lambda: expected(*_fresh(args)))
        if _check_forward(checks, "forward", lambda: fn.apply(*args), leaves, ref, _label,
                          todo_hint) is None:
            checks.skip("backward is checked once the forward works")
            return checks.result()
        for extra in _after_forward:
            extra(checks, fn)
        if checks.stopped:
            checks.skip("backward is checked once the forward works")
        else:
            needs = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
            _check_gradients(checks, "backward", lambda: fn.apply(*args), leaves, grad_name,
                             todo_hint, record=lambda: fn.forward(FunctionCtx(needs), *args))
        for extra in _after_gradients if not checks.stopped else ():
            extra(checks, fn)
    return checks.result()


def check_values(fn, *inputs, expected, title=None, todo_hint=_GENERIC_UNFINISHED,
                 _label="the expected values") -> CheckResult:
    """Check a plain function built from nnbook operations: ``fn(*inputs)`` against
    ``expected(*inputs)``, value by value (no backward of yours to check: autograd
    differentiates nnbook operations by itself).

    Floating point inputs are passed as float64 copies; other arguments (masks, sizes) as
    given.

    >>> check_values(my_softmax, nb.randn(3, 5), expected=lambda x: x.softmax(-1)).passed
    True
    """
    checks = _Checks(title or f"check_values({_name(fn)})")
    with _quiet():
        if not callable(fn):
            checks.fail(f"{_name(fn)} is not a function",
                        "pass the function itself: check_values(my_fn, x), not my_fn(x).")
            return checks.result()
        name = getattr(fn, "__name__", "the function")
        try:
            names, _ = positional_names(fn, skip_first=False)
        except (TypeError, ValueError):  # a builtin without a signature
            names = []
        names = [names[i] if i < len(names) else f"input {i}" for i in range(len(inputs))]
        args, leaves = _make_args(inputs, names, "")
        _check_forward(checks, name, lambda: fn(*args), leaves,
                       lambda: expected(*_fresh(args)), _label, todo_hint)
    return checks.result()


def check_bprop(module, *inputs, expected=None, title=None, todo_hint=_GENERIC_UNFINISHED,
                _label="the expected values") -> CheckResult:
    """Check a Module's ``bprop(self, *inputs, out, dout)`` (class or instance) on inputs."""
    checks = _Checks(title or f"check_bprop({_name(module)})")
    with _quiet():
        cls = module if isinstance(module, type) else type(module)
        if not issubclass(cls, nn.Module):
            checks.fail(f"{_name(module)} is not an nb.nn.Module",
                        "define class MyModule(nb.nn.Module): with forward(self, ...) and "
                        "bprop(self, ..., out, dout).")
            return checks.result()
        if not callable(getattr(cls, "bprop", None)):
            checks.fail(f"{cls.__name__} has no bprop method, so autograd differentiates its "
                        "forward by itself and there is no rule of yours to check",
                        "add def bprop(self, x, ..., out, dout): returning one gradient per "
                        "input of forward.")
            return checks.result()
        if isinstance(module, type):
            ok, module = _attempt(checks, f"{cls.__name__}()", cls, todo_hint)
            if not ok:
                return checks.result()
        names = _arg_names(cls.forward, len(inputs))
        checks.ok(f"{cls.__name__} is an nb.nn.Module with "
                  f"bprop(self, {', '.join(names + ['out', 'dout'])})")
        args, leaves = _make_args(inputs, names, "bprop returned None for '{name}': return "
                                  "dout times d out / d {name} in its place.")
        if not _has_leaves(checks, leaves):
            return checks.result()
        ref = None if expected is None else (lambda: expected(*_fresh(args)))
        if _check_forward(checks, "forward", lambda: module(*args), leaves, ref, _label,
                          todo_hint) is None:
            checks.skip("bprop is checked once the forward works")
            return checks.result()
        _check_gradients(checks, "bprop", lambda: module(*args), leaves, "dout", todo_hint,
                         record=lambda: module.forward(*args))
    return checks.result()


def check_layer(layer, *args, input_shape, reference=None, expected=None, title=None,
                todo_hint=_GENERIC_UNFINISHED, _after_build=(), _after_gradients=(), **kwargs
                ) -> CheckResult:
    """Check a layer: a Module class built with ``*args, **kwargs``, or an instance.

    Registration of its parameters (Parameters, not plain tensors or lists), their names
    and shapes, ``state_dict`` keys, the output for an input of ``input_shape``, and the
    gradients of the input and of every parameter, by numerical derivatives in float64.
    ``reference``: a Module class (built with the same arguments) or instance to compare
    with, after copying this layer's state_dict into it; or ``expected(x)`` for a layer
    without parameters.

    >>> check_layer(MyLinear, 7, 5, input_shape=(3, 7), reference=nb.nn.Linear).passed
    True
    """
    call = _call_text(layer, args, kwargs)
    checks = _Checks(title or f"check_layer({call})")
    with _quiet():
        built = _build_layer(checks, layer, args, kwargs, reference, call, todo_hint)
        if built is None:
            return checks.result()
        layer, reference = built
        if _check_registration(checks, layer, reference):
            for extra in _after_build:
                extra(checks, layer)
        if checks.stopped:
            checks.skip("the forward and the gradients are checked once these pass")
            return checks.result()
        layer.double()
        for _, param in layer.named_parameters():
            param.data = np.ascontiguousarray(param._array)  # perturbed in place below
        if reference is not None:
            reference = copy.deepcopy(reference).double()
            reference.load_state_dict(layer.state_dict())
            expected = reference
        x_name = (_arg_names(type(layer).forward, 1) or ["input"])[0]
        x = np.random.default_rng(SEED).standard_normal(input_shape)
        (x,), leaves = _make_args([x], [x_name], "no gradient reached the input '{name}': "
                                  "compute the output from it with nnbook operations (not "
                                  "numpy, not .data), so that autograd can follow.")
        ref = None if expected is None else (lambda: expected(_wrap(x._array.copy())))
        label = (f"{type(reference).__name__} with your parameters copied in"
                 if reference is not None else "the expected values")
        if _check_forward(checks, "forward", lambda: layer(x), leaves, ref, label,
                          todo_hint) is None:
            checks.skip("the gradients are checked once the forward works")
            return checks.result()
        for name, param in layer.named_parameters():
            leaves.append(_Leaf(name, param, f"'{name}' got no gradient: the forward must use "
                                "it through nnbook operations (not numpy, not .data), so that "
                                "autograd can follow it."))
        _check_gradients(checks, "backward", lambda: layer(x), leaves, "the output gradient",
                         todo_hint, contract=False)
        for extra in _after_gradients:
            extra(checks, type(layer))
    return checks.result()


def _build_layer(checks, layer, args, kwargs, reference, call, todo_hint):
    """(the layer, the reference) built (or a copy of the student's instance), or None
    once ``checks`` says why the layer cannot be checked."""
    if not (isinstance(layer, nn.Module) or
            (isinstance(layer, type) and issubclass(layer, nn.Module))):
        checks.fail(f"{_name(layer)} is not an nb.nn.Module",
                    "define class MyLayer(nb.nn.Module): calling super().__init__() first "
                    "in __init__.")
        return None
    with _seeded(SEED):
        if isinstance(layer, type):
            ok, layer = _attempt(checks, f"{call}", lambda: layer(*args, **kwargs), todo_hint)
        else:
            ok, layer = True, copy.deepcopy(layer)  # the student's layer stays as it was
        if ok and isinstance(reference, type):
            reference = reference(*args, **kwargs)
    if not ok:
        checks.skip("the rest is checked once the layer can be built")
        return None
    if "_parameters" not in vars(layer):
        checks.fail(f"{type(layer).__name__}.__init__ does not call super().__init__(), so "
                    "the layer has nowhere to register its parameters",
                    f"add super().__init__() as the first line of "
                    f"{type(layer).__name__}.__init__.")
        return None
    checks.ok(f"{call} builds an nb.nn.Module")
    return layer, reference


def _has_leaves(checks, leaves) -> bool:
    if leaves:
        return True
    checks.fail("none of the inputs is a floating point tensor, so there is no gradient to "
                "check", "pass example inputs such as nb.randn(3, 5).")
    return False


def _call_text(layer, args, kwargs) -> str:
    if not isinstance(layer, type):
        return type(layer).__name__
    shown = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return f"{layer.__name__}({', '.join(shown)})"


def _check_registration(checks, layer, reference) -> bool:
    """Parameters registered (not plain tensors or lists), named and shaped as the reference."""
    registered = dict(layer.named_parameters())
    for attr, value in vars(layer).items():
        if attr.startswith("_") or attr in layer._parameters or attr in layer._buffers:
            continue
        kind = _tensor_kind(value)
        if kind:
            checks.fail(f"self.{attr} is a plain {kind}, not an nb.nn.Parameter: the layer "
                        "does not register it, so parameters(), state_dict() and an optimizer "
                        "never see it",
                        f"wrap it: self.{attr} = nb.nn.Parameter(...).")
            return False
        if isinstance(value, (list, tuple, dict)):
            items = value.values() if isinstance(value, dict) else value
            held = sum(bool(_tensor_kind(v)) or isinstance(v, nn.Parameter) for v in items)
            if held:
                checks.fail(f"self.{attr} is a plain {type(value).__name__} holding "
                            f"{_count(held, 'tensor')}: the layer cannot see inside it, so "
                            "parameters(), state_dict() and an optimizer miss them",
                            "give each parameter its own attribute: self.weight = "
                            "nb.nn.Parameter(...), self.bias = nb.nn.Parameter(...).")
                return False
    listed = ", ".join(f"{n} {fmt_shape(p.shape)}" for n, p in registered.items())
    if reference is None:
        checks.ok(f"registers its parameters: {listed}" if registered else "has no parameters")
    else:
        wanted = dict(reference.named_parameters())
        label = type(reference).__name__
        if list(registered) != list(wanted) and sorted(registered) == sorted(wanted):
            _another_order(checks, "parameters", list(registered), list(wanted), label)
            return False
        if list(registered) != list(wanted):
            checks.fail(f"the parameters are named {list(registered)}; {label} names them "
                        f"{list(wanted)}",
                        f"use PyTorch's names ({', '.join('self.' + n for n in wanted)}): "
                        "state_dict keys, and so checkpoints, are built from them.")
            return False
        checks.ok(f"registers its parameters as {label} does: {listed}")
        for name, param in registered.items():
            want = wanted[name].shape
            if param.shape != want:
                other = (": the same sizes in another order"
                         if sorted(param.shape) == sorted(want) else "")
                checks.fail(f"'{name}' has shape {fmt_shape(param.shape)}, but {label}'s has "
                            f"{fmt_shape(want)}{other}",
                            f"create '{name}' with shape {fmt_shape(want)}, as {label} does.")
                return False
    return _check_state_dict_keys(checks, layer, reference)


def _check_state_dict_keys(checks, layer, reference) -> bool:
    keys = list(layer.state_dict())
    wanted = None if reference is None else list(reference.state_dict())
    if wanted is not None and keys != wanted:
        if sorted(keys) == sorted(wanted):
            _another_order(checks, "state_dict keys", keys, wanted, type(reference).__name__)
        else:
            checks.fail(f"state_dict keys are {keys}; {type(reference).__name__}'s are {wanted}",
                        "register exactly the parameters and buffers the reference has.")
        return False
    checks.ok(f"state_dict keys: {keys}")
    return True


def _another_order(checks, what, found, wanted, label):
    """The right names, registered in another order: a module registers its parameters
    (and so orders parameters(), state_dict() and an optimizer's lists) in the order
    __init__ assigns them."""
    first = next(i for i, (f, w) in enumerate(zip(found, wanted)) if f != w)
    checks.fail(f"the {what} are registered in another order: {label} has {wanted}, yours "
                f"{found} (the names are right, the order is not: '{found[first]}' comes "
                f"where {label} has '{wanted[first]}')",
                f"assign them in __init__ in {label}'s order ({', '.join(wanted)}): a list of "
                "PyTorch weights loaded by position, e.g. zip(model.parameters(), weights), "
                "would otherwise put each value into the wrong parameter.")


def _tensor_kind(value) -> str:
    if isinstance(value, nn.Parameter):
        return ""
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return "numpy array"
    return ""
