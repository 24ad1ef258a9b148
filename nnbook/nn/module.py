"""Module: the base class of every layer and model.

Assigning a Parameter, a Module or a buffer to an attribute registers it, so a
model can list what it holds by dotted path (``block.conv2.weight``; items of
a Sequential by index, ``features.0.weight``).  Paths are joined in one place,
:func:`~nnbook.nn.parameter.join_path`, and every message naming a layer writes
it with :func:`nnbook.context.layer_name`.  Calling a module runs ``forward``
with its path on the module stack, so an error deep inside an op can say
``features.2 (Conv2d), in conv2d: ...``.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from .. import context, dtypes
from ..autograd.custom import check_bprop_signature, run_bprop
from ..context import layer_name
from ..device import check_device
from ..device import device as device_type
from ..errors import (
    ArgumentError,
    DTypeError,
    InputError,
    NnbookError,
    close_matches,
    message,
    warn_from_user_code,
)
from ..tensor import Tensor, _wrap
from . import guard, hooks
from .lazy import materialize_for_loading
from .loading import IncompatibleKeys, check_and_load  # noqa: F401 (re-exported)
from .parameter import Parameter, join_path, note_used

_REGISTRIES = ("_parameters", "_buffers", "_modules")
# What Module.__init__ makes; a method that finds them missing means super().__init__()
# was never called.
_INTERNALS = frozenset(_REGISTRIES + ("_non_persistent", "_call_names", "training"))


class ModuleAttributeError(NnbookError, AttributeError):
    """A missing or misspelt Module attribute, or one assigned before ``super().__init__()``."""


class Module:
    """Base class of layers and models (PyTorch's ``nn.Module``).

    >>> class Net(nb.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = nb.nn.Linear(4, 2)
    ...     def forward(self, x):
    ...         return self.fc(x)
    >>> [name for name, _ in Net().named_parameters()]
    ['fc.weight', 'fc.bias']
    """

    def __new__(cls, *args, **kwargs):
        # The guard against the layer built in forward lives here, where the
        # constructor's arguments are still at hand to show, and before __init__
        # allocates any weights.
        if guard.building_forbidden():
            call = guard.describe_call(cls, args, kwargs)
            guard.check_build(call, f"self.{cls.__name__.lower()} = {call}")
        return super().__new__(cls)

    def __init__(self):
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent"] = set()
        d["_modules"] = {}
        d["_call_names"] = {}  # id(descendant) -> its name here, for call-time paths
        note_used(self)        # alive, and a candidate outermost model (nn/parameter.py)

    # ------------------------------------------------------------------ calling
    def forward(self, *args, **kwargs):
        cls = type(self)
        own = [n for n in dir(cls) if not n.startswith("_") and not hasattr(Module, n)]
        close = close_matches("forward", own, n=1, cutoff=0.7)
        hint = (f"rename {close[0]}() to forward()." if close else
                "define forward(self, x) in your class; calling the module runs it.")
        raise ModuleAttributeError(message(
            "this module has no forward() method, so calling it has nothing to run.",
            where=cls.__name__, hint=hint))

    def __call__(self, *args, **kwargs):
        stack = context.module_stack
        if stack:
            path = self._path_in(stack[-1])
        else:  # the outermost model: it names its parameters in messages from now on
            if "_modules" not in self.__dict__:  # (a layer inside one was checked when assigned)
                _raise_not_initialised(self, "calling it")
            path = ""
            note_used(self)
        stack.append((path, self))
        try:
            if self._hooked:  # register_forward_hook and friends (nn/hooks.py)
                return hooks.call_hooked(self, path, args, kwargs)
            if context.observers:
                return self._call_watched(path, args, kwargs)
            return self._call_with_bprop(args, kwargs) if self._has_bprop else \
                self.forward(*args, **kwargs)
        except TypeError as err:
            if err.__traceback__.tb_next is None:  # raised by the call itself, not in forward
                _check_call(self, path, args, kwargs)
            raise
        finally:
            stack.pop()

    def _path_in(self, caller) -> str:
        """This module's dotted path, called from the running ``(path, module)``."""
        parent_path, parent = caller
        return parent_path if parent is self else join_path(parent_path, parent._name_of(self))

    def _call_watched(self, path, args, kwargs):
        for observer in list(context.observers):
            observer.module_started(self, path, args)
        try:
            out = self._call_with_bprop(args, kwargs) if self._has_bprop else \
                self.forward(*args, **kwargs)
        except TypeError as err:
            if err.__traceback__.tb_next is None:  # raised by the call itself, not in forward
                _check_call(self, path, args, kwargs)
            raise
        for observer in list(context.observers):
            observer.module_ended(self, path, args, out)
        return out

    _hooked = False  # True while the module has hooks (set in its own __dict__)

    # ------------------------------------------------------- custom backward
    _has_bprop = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "bprop" in cls.__dict__:
            check_bprop_signature(cls)  # refused here, at the class definition
        cls._has_bprop = callable(getattr(cls, "bprop", None))

    def _call_with_bprop(self, args, kwargs):
        """forward runs unrecorded; backward is self.bprop(*inputs, out, dout)."""
        if kwargs:
            raise InputError(message(
                f"{type(self).__name__} defines bprop, so its inputs must be passed "
                f"positionally; got keyword argument(s) {', '.join(kwargs)}.",
                hint="call it as module(x, y): bprop receives the same inputs in order."))
        return run_bprop(self, args)

    def _name_of(self, module) -> str:
        """The dotted name of a descendant, relative to this module (cached by identity)."""
        names = self.__dict__["_call_names"]
        name = names.get(id(module))
        if name is not None and (name[0] == "<" or self._resolve(name) is module):
            return name
        for name, m in self.named_modules():
            if m is module and name:
                break
        else:  # held somewhere a module can't see (a plain list?)
            name = f"<unregistered {type(module).__name__}>"
        names[id(module)] = name
        return name

    def _registry(self, kind: str) -> dict:
        """``_parameters``, ``_buffers`` or ``_modules``; missing if __init__ was skipped."""
        registry = self.__dict__.get(kind)
        if registry is None:
            _raise_not_initialised(self, "using it as a module")
        return registry

    def _resolve(self, name: str):
        if "." not in name:
            return self._modules.get(name)
        module = self
        for part in name.split("."):
            module = module._modules.get(part) if module is not None else None
        return module

    # ------------------------------------------------------------ registration
    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, (Parameter, Module)):
            if params is None:
                what = "nb.nn.Parameter(...)" if isinstance(value, Parameter) else \
                    f"{type(value).__name__}(...)"
                _raise_before_init(self, f"self.{name} = {what}")
            kind = "_parameters" if isinstance(value, Parameter) else "_modules"
            self._register(kind, name, value)
        elif params is not None and name in params:
            if value is not None:
                _raise_wrong_kind(self, name, value, "parameter")
            self._register("_parameters", name, None)
        elif params is not None and name in d["_modules"]:
            if value is not None:
                _raise_wrong_kind(self, name, value, "module")
            self._register("_modules", name, None)
        elif params is not None and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                _raise_wrong_kind(self, name, value, "buffer")
            self._register("_buffers", name, value)
        else:
            if params is not None and isinstance(value, (list, tuple, dict)):
                _warn_hidden_modules(self, name, value)
            elif params is not None and isinstance(value, Tensor) and value.requires_grad \
                    and value.is_leaf:
                _warn_hidden_tensor(self, name, value)
            object.__setattr__(self, name, value)

    def _register(self, kind: str, name: str, value) -> None:
        """Put ``value`` under ``name`` in registry ``kind`` (and in no other registry)."""
        d = self.__dict__
        for other in _REGISTRIES:
            if other != kind:
                d[other].pop(name, None)
        if kind == "_modules" and value is not None:
            if "_modules" not in value.__dict__:
                raise ModuleAttributeError(message(
                    f"the {type(value).__name__} assigned to self.{name} was never "
                    "initialised: its __init__ did not call super().__init__().",
                    where=layer_name("", self),
                    hint=f"add super().__init__() as the first line of "
                    f"{type(value).__name__}.__init__."))
        d[kind][name] = value
        d[name] = value  # plain attribute lookup finds it without __getattr__ (fast)
        d["_call_names"].clear()
        if kind != "_buffers":
            d["_non_persistent"].discard(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        _check_name(self, name, "register_parameter", "_parameters")
        if param is not None and not isinstance(param, Parameter):
            _raise_wrong_kind(self, name, param, "parameter")
        self._register("_parameters", name, param)

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True):
        """A tensor the module keeps and saves but does not learn (BatchNorm's running_mean)."""
        _check_name(self, name, "register_buffer", "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            _raise_wrong_kind(self, name, tensor, "buffer")
        self._register("_buffers", name, tensor)
        if persistent:
            self._non_persistent.discard(name)
        else:
            self._non_persistent.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        _check_name(self, name, "add_module", "_modules")
        if module is not None and not isinstance(module, Module):
            _raise_wrong_kind(self, name, module, "module")
        self._register("_modules", name, module)

    register_module = add_module

    def __getattr__(self, name):
        # Only reached when ordinary lookup fails.
        d = self.__dict__
        cls = type(self).__name__
        if name.startswith("__") or name.startswith("_repr_") or name.startswith("_ipython"):
            raise AttributeError(f"'{cls}' object has no attribute '{name}'")
        if "_parameters" not in d:
            if name in _INTERNALS:  # Module's own methods reading what __init__ makes
                _raise_not_initialised(self, "using it as a module")
            raise ModuleAttributeError(message(
                f"{cls} has no attribute '{name}' because {cls}.__init__ did not call "
                "super().__init__().",
                where=cls, hint=f"add super().__init__() as the first line of {cls}.__init__."))
        for kind in _REGISTRIES:
            if name in d[kind]:
                return d[kind][name]
        known = [n for n in list(d) + dir(type(self)) if not n.startswith("_")]
        close = close_matches(name, known, n=3, cutoff=0.6)
        layers = ", ".join(layer_name(n, m)
                           for n, m in d["_modules"].items() if m is not None)
        raise ModuleAttributeError(message(
            f"this module has no attribute '{name}'.",
            where=cls,
            values=f"its layers: {layers}" if layers else None,
            hint=(f"did you mean {' or '.join(repr(c) for c in close)}?" if close else
                  "attributes exist once they are assigned (self.name = ...) in __init__; "
                  "model.named_children() lists the layers."),
        ))

    def __delattr__(self, name):
        d = self.__dict__
        for kind in _REGISTRIES:
            if name in d.get(kind, ()):
                d[kind].pop(name)
                d.pop(name, None)
                d["_call_names"].clear()
                return
        object.__delattr__(self, name)

    def __setstate__(self, state):
        # copy.deepcopy: a new module, alive, that __init__ never saw
        self.__dict__.update(state)
        self.__dict__["_call_names"] = {}
        note_used(self)

    # ----------------------------------------------------------------- walking
    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        """(path, module) for this module and every descendant, each module once."""
        children = self._modules  # (before anything is yielded: an uninitialised module fails)
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, module in children.items():
            if module is not None:
                yield from module.named_modules(memo, join_path(prefix, name), remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, kind: str, prefix: str, recurse: bool, remove_duplicate: bool):
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for module_path, module in modules:
            for name, value in module._registry(kind).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield join_path(module_path, name), value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True):
        """(path, parameter) pairs; a shared parameter is listed once, at its first path.

        All paths of a parameter: ``param.paths``.
        """
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True):
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True):
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def get_submodule(self, target: str) -> Module:
        """The module at a dotted path: ``model.get_submodule('features.2')``."""
        if target == "":
            return self
        module = self._resolve(target)
        if module is None:
            names = [n for n, _ in self.named_modules() if n]
            close = close_matches(target, names, n=3, cutoff=0.6)
            raise ModuleAttributeError(message(
                f"{type(self).__name__} has no submodule '{target}'.",
                where=type(self).__name__,
                hint=f"did you mean {' or '.join(repr(c) for c in close)}?" if close
                else "model.named_modules() lists every path."))
        return module

    # ------------------------------------------------------------------- state
    def train(self, mode: bool = True) -> Module:
        """Training mode (dropout drops, batch norm uses batch statistics) for this module
        and, through their own ``train``, every child; ``train(False)`` is ``eval()``."""
        if not isinstance(mode, (bool, np.bool_)):
            raise InputError(message(
                f"train() takes a bool, got {mode!r}.", where=f"{type(self).__name__}.train",
                hint="model.train() for training, model.eval() (or train(False)) for "
                "evaluation."))
        children = list(self.children())  # (fails before any change without __init__)
        self.__dict__["training"] = bool(mode)
        for module in children:
            module.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients: ``.grad = None`` (the default), or zeros in place."""
        for param in self.parameters():
            if set_to_none:
                param.grad = None
            elif param.grad is not None:
                param.grad.zero_()

    def apply(self, fn) -> Module:
        """Call ``fn(module)`` on every descendant and then on this module (for custom init)."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs) -> Module:
        """``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)`` (also as
        ``device=``, ``dtype=``; ``non_blocking=`` is accepted): floating point parameters
        and buffers converted in place.  Only the CPU is a device here.
        """
        where = f"{type(self).__name__}.to"
        dtype, device = kwargs.pop("dtype", None), kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, bool):  # PyTorch's positional non_blocking
                continue
            elif isinstance(a, (str, int, device_type)):
                device = a
            else:
                dtype = a
        check_device(device, where)
        if dtype is None:
            return self
        dtype = dtypes.numpy_dtype(dtype, where)
        if dtype.kind != "f":
            raise DTypeError(message(
                "a model's parameters must stay floating point; got dtype "
                f"{dtypes.of_numpy(dtype).name}.",
                where=where, hint="use nb.float32 or nb.float64."))
        for module in self.modules():  # (fails before the first change without __init__)
            for value in list(module._parameters.values()) + list(module._buffers.values()):
                if value is not None and value.dtype.kind == "f":
                    value.data = value._array.astype(dtype)
                    if value.grad is not None:
                        value.grad = _wrap(value.grad._array.astype(dtype))
        return self

    def cpu(self) -> Module:
        """The model itself: nnbook runs on the CPU only."""
        self._registry("_parameters")  # as every method, refused without super().__init__()
        return self

    def cuda(self, device=None) -> Module:
        """Refused with the portable line to write: nnbook runs on the CPU only."""
        check_device("cuda" if device is None else device, f"{type(self).__name__}.cuda")
        return self

    def float(self) -> Module:
        return self.to(np.float32)

    def double(self) -> Module:
        return self.to(np.float64)

    def half(self) -> Module:
        return self.to(np.float16)

    # -------------------------------------------------------------- state dicts
    def state_dict(self, destination=None, prefix: str = "", keep_vars: bool = False):
        """path -> tensor for every parameter and persistent buffer (PyTorch's keys).

        Values share memory with the model (``keep_vars=True`` gives the Parameters
        themselves).  A shared layer appears under each of its paths, as in PyTorch.
        ``prefix`` (e.g. ``'model.'``) is put in front of every key.
        """
        if destination is None:
            destination = OrderedDict()
        self._collect_state(destination, prefix, keep_vars)
        return destination

    def _collect_state(self, destination, prefix: str, keep_vars: bool) -> None:
        """Keys are ``prefix + name`` exactly as PyTorch writes them ('model.' + 'fc.weight')."""
        d = self.__dict__
        for name, param in self._registry("_parameters").items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in d["_buffers"].items():
            if buf is not None and name not in d["_non_persistent"]:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        for name, module in d["_modules"].items():
            if module is not None:
                module._collect_state(destination, prefix + name + ".", keep_vars)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy values from ``state_dict`` into this model's parameters and buffers.

        Everything is checked first -- missing keys, unexpected keys, shapes -- and
        reported together; nothing changes unless it all fits.  Values are cast to
        each parameter's dtype.  With ``strict=False`` missing and unexpected keys are
        allowed (shape mismatches never are); returns ``(missing_keys, unexpected_keys)``,
        printed ``<All keys matched successfully>`` when both are empty.  ``assign=True``
        makes the state dict's tensors the model's own (no copy).  Lazy layers take their
        shapes from the state dict.
        """
        undo = materialize_for_loading(self, state_dict) if hasattr(state_dict, "items") \
            else None
        try:
            return check_and_load(self, state_dict, strict, assign)
        except Exception:
            if undo is not None:
                undo()  # nothing changes unless it all fits: lazy layers stay lazy
            raise

    # -------------------------------------------------------------------- hooks
    def register_forward_pre_hook(self, hook, *, prepend: bool = False,
                                  with_kwargs: bool = False):
        """Call ``hook(module, args)`` before each forward; a returned value replaces the
        positional inputs.  Returns a handle: ``handle.remove()``."""
        return hooks.register(self, "_forward_pre_hooks", hook, "register_forward_pre_hook",
                              prepend, with_kwargs=with_kwargs)

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False):
        """Call ``hook(module, args, output)`` after each forward; a returned value replaces
        the output.  Returns a handle: ``handle.remove()``."""
        return hooks.register(self, "_forward_hooks", hook, "register_forward_hook", prepend,
                              with_kwargs=with_kwargs, always_call=always_call)

    def register_full_backward_pre_hook(self, hook, prepend: bool = False):
        """Call ``hook(module, grad_output)`` when the gradients with respect to the
        module's outputs are known; a returned tuple replaces them."""
        return hooks.register(self, "_backward_pre_hooks", hook,
                              "register_full_backward_pre_hook", prepend)

    def register_full_backward_hook(self, hook, prepend: bool = False):
        """Call ``hook(module, grad_input, grad_output)`` when the gradients with respect to
        the module's inputs are known; a returned tuple replaces grad_input."""
        return hooks.register(self, "_backward_hooks", hook, "register_full_backward_hook",
                              prepend)

    # ---------------------------------------------------------------- lookups
    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path: ``model.get_parameter('features.0.weight')``."""
        return self._get_member(target, "_parameters", "parameter", "named_parameters")

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path: ``model.get_buffer('bn.running_mean')``."""
        return self._get_member(target, "_buffers", "buffer", "named_buffers")

    def _get_member(self, target: str, kind: str, noun: str, lister: str):
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        registry = module._registry(kind)
        if name not in registry or registry[name] is None:
            names = [n for n, _ in getattr(self, lister)()]
            close = close_matches(target, names, n=3, cutoff=0.6)
            raise ModuleAttributeError(message(
                f"{type(self).__name__} has no {noun} '{target}'.",
                where=type(self).__name__,
                values=f"{layer_name(module_path, module)} has no {noun} named '{name}'",
                hint=f"did you mean {' or '.join(repr(c) for c in close)}?" if close
                else f"model.{lister}() lists every path."))
        return registry[name]

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Replace the layer at a dotted path:
        ``model.set_submodule('head.0', nn.Linear(8, 3))``.  The parent must exist; with
        ``strict=True`` the layer must exist too (otherwise it is added, as in PyTorch)."""
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and name not in parent._modules:
            raise ModuleAttributeError(message(
                f"{type(self).__name__} has no submodule '{target}' to replace.",
                where=type(self).__name__,
                hint="model.named_modules() lists every path; strict=False adds a new layer."))
        parent.add_module(name, module)  # (which refuses what is not a Module)

    def __dir__(self):
        # Registered names are attributes too; items of containers (0, 1...) are not names.
        return sorted(key for key in set(super().__dir__()) if not key[:1].isdigit())

    # ----------------------------------------------------------------- printing
    def extra_repr(self) -> str:
        """The text inside the parentheses of this module's repr (override in layers)."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, module in self._modules.items():
            text = repr(module).replace("\n", "\n  ")
            lines.append(f"({name}): {text}")
        if not self._modules and len(lines) <= 1:
            return f"{type(self).__name__}({extra})"
        return type(self).__name__ + "(\n  " + "\n  ".join(lines) + "\n)"


# -- helpers for the registry ---------------------------------------------------------

def _check_name(module: Module, name, method: str, kind: str) -> None:
    cls = type(module).__name__
    if not isinstance(name, str) or not name or "." in name or "/" in name:
        raise ModuleAttributeError(message(
            f"{method}() needs a non-empty name without '.' or '/', got {name!r}.",
            where=cls, hint="'.' joins names into paths (block.conv.weight); "
            "use an underscore instead (conv_1)."))
    d = module.__dict__
    if "_parameters" not in d:
        _raise_before_init(module, f"{method}('{name}', ...)")
    if name not in d[kind] and (name in d or hasattr(type(module), name)):
        raise ModuleAttributeError(message(
            f"{method}(): {cls} already has an attribute '{name}'.",
            where=cls, hint="choose another name."))


def _raise_not_initialised(module: Module, action: str) -> None:
    cls = type(module).__name__
    raise ModuleAttributeError(message(
        f"{cls} was never set up as a module: {cls}.__init__ did not call "
        f"super().__init__(), so {action} cannot work (it has no registry of layers, "
        "parameters and buffers).",
        where=cls, hint=f"add super().__init__() as the first line of {cls}.__init__, "
        "before assigning layers or parameters."))


def _check_call(module: Module, path: str, args, kwargs) -> None:
    """Raise an ArgumentError if ``module(*args, **kwargs)`` does not fit its forward's
    signature (the TypeError came from the call itself); return if it does fit."""
    import inspect  # only on this error path

    try:
        signature = inspect.signature(module.forward)
        signature.bind(*args, **kwargs)
        return
    except ValueError:  # no signature to read (a builtin): keep Python's error
        return
    except TypeError as err:
        problem = str(err)
    cls = type(module).__name__
    names = [p.name for p in signature.parameters.values()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p.name for p in signature.parameters.values()
                if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY,
                                                       p.POSITIONAL_OR_KEYWORD)]
    given = [_count(len(args), "input")]
    if kwargs:
        given.append(f"keyword argument(s) {', '.join(kwargs)}")
    takes = _count(len(names), "input") + (f" ({', '.join(names)})" if names else "")
    name = path.rsplit(".", 1)[-1] if path else "model"
    call = f"{'self.' if path and name.isidentifier() else ''}{name}"
    if not path and len(args) > len(names) == 1:
        hint = ("pass the model only its input; a target goes to the loss: "
                f"loss = loss_fn(model({names[0]}), target).")
    elif kwargs and "unexpected keyword" in problem:
        hint = (f"forward has no parameter {problem.rsplit(' ', 1)[-1]}; call it as "
                f"{call}({', '.join(names)}).")
    else:
        hint = f"call it with the inputs forward names: {call}({', '.join(required or names)})."
    raise ArgumentError(message(
        f"was called with {' and '.join(given)}, but {cls}.forward{signature} takes "
        f"{takes}.", where=layer_name(path, module), values=f"Python: {problem}",
        hint=hint)) from None


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _raise_before_init(module: Module, action: str) -> None:
    cls = type(module).__name__
    raise ModuleAttributeError(message(
        f"{action} came before super().__init__(), so {cls} has nowhere "
        "to register it yet.",
        where=f"{cls}.__init__",
        hint=f"call super().__init__() first in {cls}.__init__, before assigning "
        "layers or parameters."))


def _raise_wrong_kind(module: Module, name: str, value, kind: str) -> None:
    cls = type(module).__name__
    need = {"parameter": "an nb.nn.Parameter or None", "module": "a Module or None",
            "buffer": "a Tensor or None"}[kind]
    got = type(value).__name__
    hint = {
        "parameter": f"wrap it: self.{name} = nb.nn.Parameter(value); or change the values "
                     f"in place: with nb.no_grad(): self.{name}.data[...] = value.",
        "module": f"assign a layer (self.{name} = nb.nn.Linear(...)), or delete the "
                  f"layer first (del self.{name}) to reuse the name for something else.",
        "buffer": f"wrap it: self.{name} = nb.tensor(value).",
    }[kind]
    raise ModuleAttributeError(message(
        f"cannot assign a {got} to self.{name}, which is a registered {kind} of {cls}.",
        where=cls, values=f"expected {need}", hint=hint))


class HiddenModuleWarning(UserWarning):
    """Layers stored in a plain list or dict, where the model cannot see them."""


def _warn_hidden_tensor(module: Module, name: str, value) -> None:
    """A trainable-looking Tensor that is not a Parameter: the optimizer will never see it."""
    cls = type(module).__name__
    warn_from_user_code(HiddenModuleWarning(message(
        f"self.{name} is a Tensor with requires_grad=True, not a Parameter: {cls} does not "
        "register it, so it is missing from parameters(), the optimizer and state_dict().",
        where=cls, values=f"shape {tuple(value.shape)}",
        hint=f"wrap it: self.{name} = nb.nn.Parameter(tensor); or, if it is a constant, "
        "create it without requires_grad (a buffer: self.register_buffer(...)).",
        line=False)))


def _warn_hidden_modules(module: Module, name: str, value) -> None:
    items = value.values() if isinstance(value, dict) else value
    mine = {id(m) for m in module._modules.values()}
    params = [p for p in items if isinstance(p, Parameter)]
    if params:
        cls = type(module).__name__
        warn_from_user_code(HiddenModuleWarning(message(
            f"self.{name} is a plain {type(value).__name__} holding {len(params)} "
            f"Parameter(s); {cls} cannot see inside it, so they are missing from "
            "parameters(), the optimizer and state_dict().", where=cls,
            hint="register each one (self.w0 = nb.nn.Parameter(...)), or keep them in a "
            "sub-Module's attributes.", line=False)))
    hidden = [m for m in items if isinstance(m, Module) and id(m) not in mine]
    if not hidden:
        return
    cls = type(module).__name__
    fix = (f"self.{name} = nb.nn.ModuleList([...])" if not isinstance(value, dict)
           else "register each one: self.add_module(key, layer)")
    warn_from_user_code(HiddenModuleWarning(message(
        f"self.{name} is a plain {type(value).__name__} holding "
        f"{len(hidden)} layer(s) ({', '.join(type(m).__name__ for m in hidden[:3])}"
        f"{', ...' if len(hidden) > 3 else ''}); {cls} cannot see inside it, so "
        "their parameters are missing from parameters(), the optimizer and "
        "state_dict().", where=cls, hint=f"use {fix}.", line=False)))

