"""Module hooks: functions called around a module's forward and backward (PyTorch's API).

    register_forward_pre_hook(hook)      hook(module, args) -> None or new args
    register_forward_hook(hook)          hook(module, args, output) -> None or new output
    register_full_backward_pre_hook(h)   h(module, grad_output) -> None or new grad_output
    register_full_backward_hook(hook)    hook(module, grad_input, grad_output)
                                             -> None or new grad_input

Each returns a handle; ``handle.remove()`` (or leaving a ``with handle:`` block) takes the
hook away.  ``Module.__call__`` pays one truth test for all of this (``module._hooked``)
and comes here only when a hook is registered.

How the backward hooks see gradients: before ``forward``, the module's tensor inputs
that require grad are joined into one vector and split again (two ops that copy values
and change nothing else), and so are its outputs afterwards.  The vector of the outputs
receives every gradient with respect to the outputs at once (grad_output), the vector
of the inputs every gradient with respect to the inputs (grad_input), and a
``Tensor.register_hook`` on each vector calls the module's hooks there.
"""
from __future__ import annotations

import itertools

from .. import context
from ..autograd.engine import topological_order
from ..creation import cat, zeros_like
from ..errors import ArgumentError, ShapeError, fmt_shape, message
from ..tensor import RemovableHandle, Tensor

# The hook tables a module may hold (in its __dict__, made on first use).
TABLES = ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks", "_backward_hooks")
_ids = itertools.count()


class HookHandle(RemovableHandle):
    """A removable handle with PyTorch's ``id``; also a context manager."""

    def __init__(self, remove, hook_id: int):
        super().__init__(remove)
        self.id = hook_id

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False


def register(module, table: str, hook, method: str, prepend=False, **flags) -> HookHandle:
    """Add ``hook`` to ``module``'s ``table``; ``flags`` (with_kwargs, always_call) are kept
    beside it."""
    if not callable(hook):
        cls = type(module).__name__
        raise ArgumentError(message(
            f"{method}() needs a function to call, got {type(hook).__name__} "
            f"{_short(hook)}.", where=f"{cls}.{method}",
            hint=f"pass the function itself, not its result: {method}(my_hook) with "
            f"def my_hook(module, ...): ..."))
    d = module.__dict__
    hooks = d.setdefault(table, {})
    hook_id = next(_ids)
    entry = (hook, flags)
    if prepend:
        items = list(hooks.items())
        hooks.clear()
        hooks.update([(hook_id, entry)] + items)
    else:
        hooks[hook_id] = entry
    d["_hooked"] = True
    return HookHandle(lambda: remove(module, table, hook_id), hook_id)


def remove(module, table: str, hook_id: int) -> None:
    """Take hook ``hook_id`` out of ``module``'s ``table`` (gone already: nothing)."""
    d = module.__dict__
    d.get(table, {}).pop(hook_id, None)
    d["_hooked"] = any(d.get(name) for name in TABLES)


def forward_pre_hooks(module) -> dict:
    """{hook id: hook} of ``module``'s forward pre-hooks, in the order they run."""
    return {hook_id: hook for hook_id, (hook, _) in
            module.__dict__.get("_forward_pre_hooks", {}).items()}


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def call_hooked(module, path: str, args: tuple, kwargs: dict):
    """``module(*args, **kwargs)`` with its hooks: pre-hooks, backward wiring, forward,
    forward hooks."""
    d = module.__dict__
    for hook, flags in list(d.get("_forward_pre_hooks", {}).values()):
        if flags.get("with_kwargs"):
            result = hook(module, args, kwargs)
            if result is not None:
                args, kwargs = _args_and_kwargs(module, result)
        else:
            result = hook(module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    wiring = None
    if context.grad_enabled and (d.get("_backward_hooks") or d.get("_backward_pre_hooks")):
        wiring = _BackwardWiring(module)
        args = wiring.wrap_inputs(args)
    try:
        if context.observers:
            out = module._call_watched(path, args, kwargs)
        elif module._has_bprop:
            out = module._call_with_bprop(args, kwargs)
        else:
            out = module.forward(*args, **kwargs)
    except Exception:
        for hook, flags in list(d.get("_forward_hooks", {}).values()):
            if flags.get("always_call"):
                _run_forward_hook(module, hook, flags, args, kwargs, None)
        raise
    for hook, flags in list(d.get("_forward_hooks", {}).values()):
        result = _run_forward_hook(module, hook, flags, args, kwargs, out)
        if result is not None:
            out = result
    return out if wiring is None else wiring.wrap_outputs(out)


def _run_forward_hook(module, hook, flags, args, kwargs, out):
    if flags.get("with_kwargs"):
        return hook(module, args, kwargs, out)
    return hook(module, args, out)


def _args_and_kwargs(module, result):
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], dict):
        args = result[0] if isinstance(result[0], tuple) else (result[0],)
        return args, result[1]
    raise ArgumentError(message(
        f"a forward pre-hook registered with with_kwargs=True must return None or a pair "
        f"(args, kwargs), got {type(result).__name__}.", where=type(module).__name__,
        hint="return (args, kwargs) -- both, even if only one changed -- or None."))


# -- backward hooks ----------------------------------------------------------------

def _joined(tensors):
    """One vector holding every tensor's values, and the tensors split back out of it
    (same shapes and dtypes): gradients meet in the vector on their way back."""
    vector = cat([t.reshape(-1) for t in tensors])
    parts, start = [], 0
    for t in tensors:
        end = start + t.numel()
        parts.append(vector[start:end].reshape(t.shape).to(t.dtype))
        start = end
    return vector, parts


def _split(grad: Tensor, like: list, received: list):
    """The pieces of the vector ``grad`` for each tensor of ``like`` (None where no gradient
    arrived, as in PyTorch)."""
    pieces, start = [], 0
    for t, got in zip(like, received):
        end = start + t.numel()
        pieces.append(grad[start:end].reshape(t.shape).to(t.dtype) if got else None)
        start = end
    return tuple(pieces)


class _BackwardWiring:
    """Joins a module's inputs and outputs so its backward hooks see their gradients."""

    def __init__(self, module):
        self.module = module
        self.grad_output = None
        self.inputs = None  # the vector of the inputs, once joined

    def wrap_inputs(self, args: tuple) -> tuple:
        self.arg_is_tensor = [isinstance(a, Tensor) for a in args]
        self.tensor_args = [a for a in args if isinstance(a, Tensor)]
        wanted = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        self.wanted = wanted
        if not wanted:
            return args
        originals = [args[i] for i in wanted]
        self.inputs, parts = _joined(originals)
        self.in_like, self.in_received = originals, [False] * len(wanted)
        for k, part in enumerate(parts):
            part.register_hook(self._mark(self.in_received, k))
        self.inputs.register_hook(self._on_grad_input)
        args = list(args)
        for i, part in zip(wanted, parts):
            args[i] = part
        return tuple(args)

    def wrap_outputs(self, out):
        single = isinstance(out, Tensor)
        outs = [out] if single else list(out) if isinstance(out, (tuple, list)) else None
        if outs is None or not all(isinstance(o, Tensor) for o in outs):
            return out  # nothing a backward hook can follow
        wanted = [i for i, o in enumerate(outs) if o.requires_grad]
        if not wanted:
            return out
        originals = [outs[i] for i in wanted]
        self.out_count, self.out_wanted = len(outs), wanted
        vector, parts = _joined(originals)
        self.out_like, self.out_received = originals, [False] * len(wanted)
        for k, part in enumerate(parts):
            part.register_hook(self._mark(self.out_received, k))
        vector.register_hook(self._on_grad_output)
        # Do the outputs depend on the inputs at all?  If not, the inputs' vector never gets
        # a gradient, and the hooks must run from here.
        self.reaches_inputs = self.inputs is not None and any(
            node is self.inputs.grad_fn for node in topological_order([vector.grad_fn]))
        for i, part in zip(wanted, parts):
            outs[i] = part
        return outs[0] if single else type(out)(outs)

    @staticmethod
    def _mark(received: list, k: int):
        def mark(grad):
            received[k] = True
        return mark

    def _on_grad_output(self, grad):
        module = self.module
        pieces = _split(grad, self.out_like, self.out_received)
        grad_output = [None] * self.out_count
        for i, piece in zip(self.out_wanted, pieces):
            grad_output[i] = piece
        grad_output = tuple(grad_output)
        replaced = False
        for hook, _ in list(module.__dict__.get("_backward_pre_hooks", {}).values()):
            result = hook(module, grad_output)
            if result is not None:
                grad_output = self._check(result, grad_output, "register_full_backward_pre_hook")
                replaced = True
        self.grad_output = grad_output
        if not self.reaches_inputs:
            self._run_full_hooks(tuple(None for is_t in self.arg_is_tensor if is_t))
        if replaced:
            return cat([(g if g is not None else o * 0).reshape(-1)
                        for g, o in zip((grad_output[i] for i in self.out_wanted),
                                        self.out_like)])
        return None

    def _on_grad_input(self, grad):
        pieces = _split(grad, self.in_like, self.in_received)
        by_arg = dict(zip(self.wanted, pieces))
        # As PyTorch: once gradients reach the inputs, every tensor input has an entry, zeros
        # where none flowed (an input without requires_grad, or one forward did not use).
        tensor_indices = [i for i, is_t in enumerate(self.arg_is_tensor) if is_t]
        grad_input = tuple(by_arg.get(i) if by_arg.get(i) is not None else zeros_like(arg)
                           for i, arg in zip(tensor_indices, self.tensor_args))
        result = self._run_full_hooks(grad_input)
        if result is None:
            return None
        new = dict(zip(tensor_indices, result))
        return cat([(new[i] if new[i] is not None else x * 0).reshape(-1).to(grad.dtype)
                    for i, x in zip(self.wanted, self.in_like)])

    def _run_full_hooks(self, grad_input):
        """Call the full backward hooks; returns the last replacement grad_input, or None."""
        module, replaced = self.module, None
        for hook, _ in list(module.__dict__.get("_backward_hooks", {}).values()):
            result = hook(module, grad_input, self.grad_output)
            if result is not None:
                grad_input = replaced = self._check(result, grad_input,
                                                    "register_full_backward_hook")
        return replaced

    def _check(self, result, old: tuple, method: str) -> tuple:
        """A hook's replacement gradients: a tuple as long as the ones it got, same shapes."""
        where = f"{type(self.module).__name__} ({method})"
        result = result if isinstance(result, tuple) else (result,)
        if len(result) != len(old):
            raise ShapeError(message(
                f"the hook returned {len(result)} gradient(s) for {len(old)}.", where=where,
                line=False, hint="return a tuple with one gradient (or None) per entry of "
                "the tuple the hook received, or return None to keep them."))
        for new, before in zip(result, old):
            if new is not None and before is not None and tuple(new.shape) != tuple(before.shape):
                raise ShapeError(message(
                    f"the hook returned a gradient of shape {fmt_shape(new.shape)} where "
                    f"{fmt_shape(before.shape)} was expected.", where=where, line=False,
                    hint="a replacement gradient keeps the shape of the one it replaces."))
        return result
