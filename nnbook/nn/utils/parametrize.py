"""nn.utils.parametrize: a tensor of a module that is computed from other tensors each
time it is read.

    class Symmetric(nn.Module):
        def forward(self, X):                  # what module.weight is made of
            return X.triu() + X.triu(1).T
        def right_inverse(self, A):            # optional: what to store for a given weight
            return A.triu()

    P.register_parametrization(linear, "weight", Symmetric())
    linear.weight              # Symmetric()(linear.parametrizations.weight.original), fresh
    linear.weight = A          # stores Symmetric().right_inverse(A) in the original

The values move to ``module.parametrizations.weight.original`` (the same Parameter the
optimizer may already hold), or to ``original0``, ``original1``... when the first
parametrization's ``right_inverse`` returns several tensors, so ``state_dict()`` keys and
``named_parameters()`` read ``parametrizations.weight.original`` as in PyTorch.  Several
parametrizations registered on one tensor run in the order they were registered.

How the read is computed: the module's class is swapped for a subclass made for it
(``ParametrizedLinear``) in which ``weight`` is a property; removing the last
parametrization gives the module its own class back.
"""
from __future__ import annotations

import contextlib
import copy
from collections.abc import Sequence

from ...context import count_write, layer_name, no_grad
from ...errors import (
    ArgumentError,
    InputError,
    MissingRuleError,
    ShapeError,
    close_matches,
    fmt_shape,
    message,
)
from ...tensor import Tensor
from ..layers.containers import ModuleList
from ..layers.holders import ModuleDict
from ..module import Module, ModuleAttributeError
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations"]

_cache_depth = 0      # how many cached() blocks are open
_cache: dict = {}     # (id(module), tensor name) -> the tensor computed in this block


@contextlib.contextmanager
def cached():
    """Inside the block each parametrized tensor is computed once, at its first read, and
    reused (an RNN reading its parametrized weight at every step computes it once)."""
    global _cache_depth
    _cache_depth += 1
    try:
        yield
    finally:
        _cache_depth -= 1
        if not _cache_depth:
            _cache.clear()


# ---------------------------------------------------------------------------
# The parametrizations of one tensor
# ---------------------------------------------------------------------------

class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in the order they run, and the tensor(s) they
    start from: ``original``, or ``original0``, ``original1``...  It is
    ``module.parametrizations.weight``; ``register_parametrization`` makes it.
    """

    def __init__(self, modules, original, unsafe: bool = False):
        if len(modules) == 0:
            raise InputError(message(
                "a ParametrizationList needs at least one parametrization.",
                where="ParametrizationList", hint="use nn.utils.parametrize."
                "register_parametrization(module, 'weight', parametrization)."))
        super().__init__(modules)
        self.unsafe = unsafe
        self._tensor_name = "tensor"
        with no_grad():  # what to store: the right inverses, last parametrization first
            new = _right_inverse(list(self), original, skip_missing=True)
        self.is_tensor = isinstance(new, Tensor)
        originals = _originals_from(new, original)
        self.ntensors = len(originals)
        if not unsafe:  # run the parametrizations once on what would be stored
            with no_grad():
                names = " and ".join(type(m).__name__ for m in self)
                _check_same_kind(self._run(originals), original, f"registering {names}")
        if self.is_tensor:  # the same tensor object keeps the values: optimizers hold it
            _set_values(original, originals[0])
            _register_tensor(self, "original", original)
        else:
            for i, tensor in enumerate(originals):
                _register_tensor(self, f"original{i}", tensor)

    def _run(self, originals) -> Tensor:
        layers = list(self)
        x = layers[0](*originals)
        for layer in layers[1:]:
            x = layer(x)
        return x

    def _originals(self) -> list:
        if self.is_tensor:
            return [self.original]
        return [getattr(self, f"original{i}") for i in range(self.ntensors)]

    def forward(self) -> Tensor:
        return self._run(self._originals())

    def right_inverse(self, value) -> None:
        """Store ``value``, the tensor the parametrized one should be, in the originals:
        each parametrization's ``right_inverse``, last to first.  Everything is checked
        before any original changes."""
        where = layer_name(f"parametrizations.{self._tensor_name}", self)
        with no_grad():
            new = _right_inverse(list(self), value, skip_missing=False, where=where)
        olds = self._originals()
        if self.is_tensor:
            news = [new]
        elif not isinstance(new, Sequence) or len(new) != len(olds):
            raise InputError(message(
                f"right_inverse must return {len(olds)} tensors (one per original), got "
                f"{_describe(new)}.", where=where,
                hint="return a tuple, as it did when the parametrization was registered."))
        else:
            news = list(new)
        for i, (old, tensor) in enumerate(zip(olds, news)):
            name = "original" if self.is_tensor else f"original{i}"
            _check_stored(tensor, old, name, self.unsafe, where)
        for old, tensor in zip(olds, news):
            _set_values(old, tensor)


def _right_inverse(layers, value, skip_missing: bool, where: str = ""):
    """``value`` through the right_inverse of each layer, last to first.  At registration
    (``skip_missing``) a layer without one passes the value on, as the identity."""
    for layer in reversed(layers):
        inverse = getattr(type(layer), "right_inverse", None)
        if inverse is None:
            if skip_missing:
                continue
            raise MissingRuleError(message(
                f"the parametrization {type(layer).__name__} has no right_inverse, so "
                "nothing tells what to store for the tensor assigned.", where=where,
                hint=f"define right_inverse(self, value) in {type(layer).__name__}, "
                "returning what its forward turns back into value; or change the "
                "originals in parametrizations.<name>.original directly."))
        try:
            value = layer.right_inverse(value)
        except NotImplementedError:
            if not skip_missing:
                raise
    return value


def _originals_from(new, original) -> list:
    """The tensors to store: ``new`` (what right_inverse gave), checked."""
    where = "nn.utils.parametrize.register_parametrization"
    if isinstance(new, Tensor):
        if new.dtype != original.dtype:
            raise InputError(message(
                f"right_inverse returned one tensor of dtype {new.dtype.name} for a tensor "
                f"of dtype {original.dtype.name}; it may not change the dtype.", where=where,
                hint="return a tensor of the original's dtype (value.to(original.dtype))."))
        return [new]
    if not isinstance(new, Sequence) or not new or \
            not all(isinstance(t, Tensor) for t in new):
        raise InputError(message(
            f"right_inverse must return a tensor or a sequence of tensors, got "
            f"{_describe(new)}.", where=where,
            hint="return the tensor(s) the parametrization's forward takes."))
    if isinstance(original, Parameter):
        return [Parameter(t.detach(), original.requires_grad) for t in new]
    return [t.detach() for t in new]


def _check_same_kind(result, like, doing: str, what: str = "the tensor") -> None:
    """The parametrizations' result must be a tensor of ``like``'s dtype and shape."""
    where = "nn.utils.parametrize.register_parametrization"
    hint = ("pass unsafe=True if the parametrization is meant to change it (it is then "
            "not checked).")
    if not isinstance(result, Tensor):
        raise InputError(message(
            f"a parametrization must return a tensor, got {_describe(result)}.",
            where=where, hint="return the computed tensor from its forward."))
    if result.dtype != like.dtype:
        raise InputError(message(
            f"{doing} would change the dtype of {what}: {like.dtype.name} -> "
            f"{result.dtype.name}.", where=where, hint=hint))
    if tuple(result.shape) != tuple(like.shape):
        raise ShapeError(message(
            f"{doing} would change the shape of {what}: {fmt_shape(like.shape)} -> "
            f"{fmt_shape(result.shape)}.", where=where, hint=hint))


def _check_stored(tensor, old, name: str, unsafe: bool, where: str) -> None:
    if not isinstance(tensor, Tensor):
        raise InputError(message(
            f"right_inverse must return a tensor for {name}, got {_describe(tensor)}.",
            where=where, hint="return the tensor the parametrization's forward takes."))
    if tensor.dtype != old.dtype:
        raise InputError(message(
            f"right_inverse returned dtype {tensor.dtype.name} for {name}, which has "
            f"dtype {old.dtype.name}.", where=where,
            hint="assign a tensor of the parametrized tensor's dtype."))
    if not unsafe and tuple(tensor.shape) != tuple(old.shape):
        raise ShapeError(message(
            f"right_inverse returned shape {fmt_shape(tensor.shape)} for {name}, which has "
            f"shape {fmt_shape(old.shape)}.", where=where,
            hint="assign a tensor of the parametrized tensor's shape."))


def _set_values(dest: Tensor, src: Tensor) -> None:
    """``dest`` takes ``src``'s values (its memory, as PyTorch's set_), and stays the same
    tensor object, so an optimizer holding it keeps training it."""
    if src is not dest:
        dest.data = src
        count_write(dest._counter)


def _register_tensor(module, name: str, tensor) -> None:
    if isinstance(tensor, Parameter):
        module.register_parameter(name, tensor)
    else:
        module.register_buffer(name, tensor)


def _describe(value) -> str:
    if isinstance(value, Tensor):
        return f"a tensor of shape {fmt_shape(value.shape)}"
    return f"a {type(value).__name__}"


# ---------------------------------------------------------------------------
# Registering and removing
# ---------------------------------------------------------------------------

def register_parametrization(module, tensor_name: str, parametrization, *,
                             unsafe: bool = False):
    """Make ``module.<tensor_name>`` the output of ``parametrization`` (an ``nn.Module``)
    applied to the stored tensor; registered again, parametrizations run in order.

    Unless ``unsafe=True``, the parametrization must keep the tensor's shape and dtype
    (checked once, here).  Returns the module.
    """
    _check_arguments(module, tensor_name, parametrization)
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        layers = module.parametrizations[tensor_name]
        if not unsafe:
            with _buffers_restored_on_error(layers):
                _check_stacked(module, tensor_name, parametrization)
        layers.append(parametrization)
        layers.unsafe |= unsafe
        return module
    original = _registered_tensor(module, tensor_name)
    layers = ParametrizationList([parametrization], original, unsafe=unsafe)
    layers._tensor_name = tensor_name
    delattr(module, tensor_name)
    if not is_parametrized(module):
        module.parametrizations = ModuleDict()
    module.parametrizations[tensor_name] = layers
    _set_class(module)
    return module


def _check_arguments(module, tensor_name, parametrization) -> None:
    where = "nn.utils.parametrize.register_parametrization"
    if not isinstance(module, Module):
        raise ArgumentError(message(
            f"expects a module first, got {type(module).__name__}.", where=where,
            hint="register_parametrization(layer, 'weight', parametrization)."))
    if not isinstance(tensor_name, str):
        raise ArgumentError(message(
            f"tensor_name must be a str, got {type(tensor_name).__name__}.", where=where,
            hint="name the parameter: register_parametrization(layer, 'weight', ...)."))
    if not isinstance(parametrization, Module):
        raise ArgumentError(message(
            f"the parametrization must be an nn.Module, got "
            f"{type(parametrization).__name__}.", where=where,
            hint="write a Module whose forward computes the tensor from the stored one "
            "(class Symmetric(nn.Module): def forward(self, X): ...) and pass an "
            "instance: Symmetric()."))


def _check_stacked(module, tensor_name: str, parametrization) -> None:
    """A parametrization registered on top of others keeps the shape and dtype of what
    they give, and so does its right_inverse."""
    current = getattr(module, tensor_name)
    result = parametrization(current)
    _check_same_kind(result, current, f"registering {type(parametrization).__name__}",
                     f"module.{tensor_name}")
    if getattr(type(parametrization), "right_inverse", None) is None:
        return
    try:
        back = parametrization.right_inverse(result)
    except NotImplementedError:
        return
    _check_same_kind(back, current, f"{type(parametrization).__name__}.right_inverse",
                     f"module.{tensor_name}")


@contextlib.contextmanager
def _buffers_restored_on_error(layers):
    """Registering a parametrization that is refused leaves the others' buffers (spectral
    norm's u and v, moved by the check's forward) as they were."""
    saved = [(b, b._array.copy(), list(b._counter)) for _, b in layers.named_buffers()]
    try:
        yield
    except Exception:
        for buffer, array, counter in saved:
            buffer._array[...] = array
            buffer._counter[:] = counter
        raise


def _registered_tensor(module, name: str) -> Tensor:
    for registry in (module._registry("_parameters"), module._buffers):
        if registry.get(name) is not None:
            return registry[name]
    cls = type(module).__name__
    names = [n for n, t in list(module._parameters.items()) + list(module._buffers.items())
             if t is not None]
    close = close_matches(name, names, n=1)
    held = "is None (the layer was built without it?)" if name in module._parameters or \
        name in module._buffers else "does not exist"
    raise InputError(message(
        f"{cls} has no parameter, buffer or parametrized tensor named '{name}': it {held}.",
        where="nn.utils.parametrize.register_parametrization",
        values=f"its parameters and buffers: {', '.join(names) or 'none'}",
        hint=f"did you mean '{close[0]}'?" if close else
        "name one of its own parameters or buffers (not a sub-module's path)."))


def is_parametrized(module, tensor_name: str | None = None) -> bool:
    """True if ``module`` has a parametrization on ``tensor_name`` (on any tensor when
    ``tensor_name`` is None)."""
    layers = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(layers, ModuleDict):
        return False
    return len(layers) > 0 if tensor_name is None else tensor_name in layers


def remove_parametrizations(module, tensor_name: str, leave_parametrized: bool = True):
    """Make ``module.<tensor_name>`` a plain parameter (or buffer) again, holding its
    current parametrized value (``leave_parametrized=True``) or the stored original."""
    if not is_parametrized(module, tensor_name):
        names = list(module.parametrizations) if is_parametrized(module) else []
        raise InputError(message(
            f"{type(module).__name__} has no parametrization on '{tensor_name}'.",
            where="nn.utils.parametrize.remove_parametrizations",
            values=f"parametrized: {', '.join(names) or 'nothing'}",
            hint="register_parametrization(module, name, ...) first; "
            "is_parametrized(module, name) tells."))
    layers = module.parametrizations[tensor_name]
    if layers.is_tensor:
        original = layers.original
        if leave_parametrized:
            with no_grad():
                _set_values(original, getattr(module, tensor_name))
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = Parameter(value.detach()) if value.requires_grad else value
    else:
        raise InputError(message(
            f"'{tensor_name}' is parametrized from {layers.ntensors} tensors, so there is no "
            "one original to leave it as (leave_parametrized=False).",
            where="nn.utils.parametrize.remove_parametrizations",
            hint="keep leave_parametrized=True: the tensor keeps its current value."))
    del module.parametrizations[tensor_name]
    if not is_parametrized(module):
        delattr(module, "parametrizations")
    _set_class(module)
    _register_tensor(module, tensor_name, original)
    return module


def type_before_parametrizations(module) -> type:
    """The module's class before any parametrization (``Linear`` for a
    ``ParametrizedLinear``)."""
    return type(module).__dict__.get("_class_before_parametrizations", type(module))


# ---------------------------------------------------------------------------
# The class with a property per parametrized tensor
# ---------------------------------------------------------------------------

def _set_class(module) -> None:
    """Give ``module`` a class of its own with a property for each parametrized name, or
    its original class when nothing is parametrized any more.  A class is never changed
    after it is made (a copied module shares its class)."""
    base = type_before_parametrizations(module)
    if not is_parametrized(module):
        module.__class__ = base
        return
    namespace = {name: _parametrized_property(name) for name in module.parametrizations}
    namespace.update(__setattr__=_set_attribute, __getattr__=_get_missing,
                     __deepcopy__=_deepcopy, __reduce_ex__=_refuse_pickle,
                     _class_before_parametrizations=base, __module__=base.__module__)
    module.__class__ = type(f"Parametrized{base.__name__}", (base,), namespace)


def _deepcopy(self, memo):
    """copy.deepcopy(module): a copy of every tensor, in a module of this same class."""
    replica = object.__new__(type(self))
    memo[id(self)] = replica
    replica.__setstate__(copy.deepcopy(self.__dict__, memo))
    return replica


def _refuse_pickle(self, protocol):
    # pickle finds a class by its name, and this one was made for one module: PyTorch
    # refuses too, so this says why and what to do instead of "attribute lookup failed"
    raise MissingRuleError(message(
        f"a parametrized module ({type(self).__name__}) cannot be pickled: its class was "
        "made for it by register_parametrization, so pickle cannot find it by name.",
        where="pickle", hint="save model.state_dict() (nb.save) "
        "and load it into a model parametrized the same way; copy.deepcopy(model) copies "
        "it in memory."))


def _parametrized_property(name: str) -> property:
    def get(self):
        layers = self._modules["parametrizations"][name]
        try:
            if not _cache_depth:
                return layers()
            key = (id(self), name)
            if key not in _cache:
                _cache[key] = layers()
            return _cache[key]
        except AttributeError as err:
            # Python would answer an AttributeError from a property with __getattr__ and
            # report the property itself missing: keep the real one for _get_missing.
            self.__dict__["_parametrization_error"] = err
            raise

    def set(self, value):
        _assign(self, name, value)

    return property(get, set, doc=f"{name}, computed by module.parametrizations.{name}")


def _get_missing(self, name):
    error = self.__dict__.pop("_parametrization_error", None)
    if error is not None and is_parametrized(self, name):
        raise error
    return type_before_parametrizations(self).__getattr__(self, name)


def _set_attribute(self, name, value) -> None:
    if is_parametrized(self, name):
        _assign(self, name, value)
    else:
        type_before_parametrizations(self).__setattr__(self, name, value)


def _assign(module, name: str, value) -> None:
    """``module.weight = value``: stored through the parametrizations' right_inverse."""
    where = layer_name(f"parametrizations.{name}", module.parametrizations[name])
    if isinstance(value, Parameter):
        raise ModuleAttributeError(message(
            f"cannot assign a Parameter to {name}: {type(module).__name__}.{name} is "
            "computed by its parametrizations.", where=where,
            hint=f"assign a tensor (module.{name} = tensor) to store it through "
            f"right_inverse, or remove_parametrizations(module, '{name}') first."))
    if not isinstance(value, Tensor):
        raise ArgumentError(message(
            f"{name} is parametrized; assigning it needs a Tensor, got {_describe(value)}.",
            where=where, hint="wrap it first: nb.tensor(value)."))
    module.parametrizations[name].right_inverse(value)
