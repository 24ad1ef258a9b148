"""nn.utils.prune: zero some entries of a parameter with a mask, and keep them zero.

    prune.l1_unstructured(layer, "weight", amount=0.3)   # the 30% smallest |w| -> 0

After pruning, ``layer.weight_orig`` is the parameter (the optimizer trains it, pruned
entries included), ``layer.weight_mask`` a buffer of 0s and 1s, and a forward pre-hook sets
``layer.weight = weight_orig * weight_mask`` before every call, so a pruned entry adds
nothing to the output and gets no gradient.  Pruning again narrows the same mask: the new
method sees only what is left (entries, or channels, still in), and its mask is combined
with the old one (a ``PruningContainer`` keeps the history).  ``prune.remove(layer,
"weight")`` makes it permanent: ``weight`` is a plain parameter again, zeros included.

``amount`` is a fraction of the entries (a float in [0, 1], rounded to the nearest count)
or a count (an int).  Random pruning draws from nnbook's generator (``nb.manual_seed``).
"""
from __future__ import annotations

import numbers
from abc import ABC, abstractmethod

import numpy as np

from ... import context
from ...context import no_grad
from ...creation import cat, ones_like, tensor
from ...errors import ArgumentError, DimError, InputError, ShapeError, fmt_shape, message
from ...random import numpy_generator
from ...tensor import Tensor
from ..hooks import forward_pre_hooks
from ..hooks import remove as remove_hook
from ..module import ModuleAttributeError
from ..parameter import Parameter

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
           "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
           "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


class BasePruningMethod(ABC):
    """A way to choose a mask.  Subclasses set ``PRUNING_TYPE`` ('unstructured',
    'structured' with a ``dim``, or 'global') and define ``compute_mask(t, default_mask)``:
    the new mask of 0s and 1s, given the importance scores ``t`` and the mask so far."""

    PRUNING_TYPE = "unstructured"
    _tensor_name = None
    _function = None  # the nn.utils.prune function that applies it, for messages

    def __call__(self, module, inputs) -> None:
        """The forward pre-hook: weight = weight_orig * weight_mask, before each call."""
        if not context.shape_only():  # a shape-only pass keeps the weight it has
            setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The mask for importance scores ``t``, starting from ``default_mask``."""

    def apply_mask(self, module):
        """The pruned tensor: the original times the mask."""
        orig = getattr(module, self._tensor_name + "_orig")
        return getattr(module, self._tensor_name + "_mask").to(orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)`` (combined with any pruning
        already there).  Everything is checked and the mask computed before the module
        changes.  Returns the method kept as the module's forward pre-hook."""
        method = cls(*args, **kwargs)
        method._tensor_name = name
        old_id, old = _pruning_hook(module, name)
        if old is None:
            current = _parameter_to_prune(module, name, cls._where())
            default_mask = ones_like(current)
        else:
            method = PruningContainer(*_history(old), method)
            current = getattr(module, name)
            default_mask = getattr(module, name + "_mask").detach().clone()
        scores = current if importance_scores is None else importance_scores
        _check_shape(scores, current, "importance_scores", f"{name}", cls._where())
        with no_grad():
            mask = method.compute_mask(scores.detach(), default_mask=default_mask)
        _check_shape(mask, current, "the mask computed", name, cls._where())
        if old is None:
            module.register_parameter(name + "_orig", current)
            delattr(module, name)
        else:
            remove_hook(module, "_forward_pre_hooks", old_id)
        module.register_buffer(name + "_mask", mask.detach())
        setattr(module, name, method.apply_mask(module))
        module.register_forward_pre_hook(method)
        return method

    @classmethod
    def _where(cls) -> str:
        return f"nn.utils.prune.{cls._function or cls.__name__ + '.apply'}"

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` with this method's mask applied (nothing is registered anywhere)."""
        scores = t if importance_scores is None else importance_scores
        _check_shape(scores, t, "importance_scores", "t", self._where())
        mask = ones_like(t) if default_mask is None else default_mask
        with no_grad():
            mask = self.compute_mask(scores.detach(), default_mask=mask)
        return t * mask

    def remove(self, module) -> None:
        """Make the pruning permanent: ``name`` becomes the parameter again (the same
        object as ``name_orig``, holding the pruned values); mask and hook go."""
        name = self._tensor_name
        with no_grad():
            pruned = self.apply_mask(module)
        if name in module.__dict__:
            delattr(module, name)
        orig = module._parameters[name + "_orig"]
        orig.data = pruned
        context.count_write(orig._counter)
        delattr(module, name + "_orig")
        delattr(module, name + "_mask")
        module.register_parameter(name, orig)


class PruningContainer(BasePruningMethod):
    """The pruning methods applied, in turn, to one tensor; its mask is the last method's,
    computed on what the earlier ones left (see ``compute_mask``)."""

    def __init__(self, *methods):
        self._pruning_methods = ()
        self._tensor_name = methods[0]._tensor_name if methods else None
        for method in methods:
            self.add_pruning_method(method)

    def add_pruning_method(self, method) -> None:
        if not isinstance(method, BasePruningMethod):
            raise ArgumentError(message(
                f"a PruningContainer holds pruning methods, got {type(method).__name__}.",
                where="nn.utils.prune.PruningContainer",
                hint="add an instance of a BasePruningMethod subclass (L1Unstructured(0.2))."))
        if self._tensor_name != method._tensor_name:
            raise InputError(message(
                f"a PruningContainer holds the methods of one tensor, "
                f"'{self._tensor_name}'; got one for '{method._tensor_name}'.",
                where="nn.utils.prune.PruningContainer",
                hint="keep one container per pruned tensor."))
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, index):
        return self._pruning_methods[index]

    def compute_mask(self, t, default_mask):
        """The last method's mask, computed only on what ``default_mask`` left: the
        entries still 1 ('unstructured'), the slices along ``dim`` with any entry
        still 1 ('structured'), or everything ('global')."""
        method = self._pruning_methods[-1]
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            index = default_mask == 1
        elif kind == "structured":
            dim = _structured_dim(method, t)
            others = [d for d in range(t.ndim) if d != dim]
            keep = default_mask.sum(others) != 0 if others else default_mask != 0
            index = (slice(None),) * dim + (keep,)
        elif kind == "global":
            index = (slice(None),) * t.ndim
        else:
            raise InputError(message(
                f"{type(method).__name__}.PRUNING_TYPE must be 'unstructured', 'structured' "
                f"or 'global', got {kind!r}.", where=method._where(),
                hint="set PRUNING_TYPE in the class."))
        mask = default_mask.to(t.dtype).clone()
        mask[index] = method.compute_mask(t[index], default_mask=default_mask[index]).to(t.dtype)
        return mask


def _structured_dim(method, t) -> int:
    dim = getattr(method, "dim", None)
    if not isinstance(dim, numbers.Integral) or not -t.ndim <= dim < t.ndim:
        raise DimError(message(
            f"a structured pruning method needs a dim of the tensor, got dim={dim!r} for "
            f"shape {fmt_shape(t.shape)}.", where=method._where(),
            hint="set self.dim in the method's __init__ (0: output units)."))
    return int(dim) % t.ndim


# ---------------------------------------------------------------------------
# The methods
# ---------------------------------------------------------------------------

class Identity(BasePruningMethod):
    """Prunes nothing: the mask stays as it is (all ones the first time)."""

    PRUNING_TYPE = "unstructured"
    _function = "identity"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` entries chosen at random."""

    PRUNING_TYPE = "unstructured"
    _function = "random_unstructured"

    def __init__(self, amount):
        self.amount = _checked_amount(amount, self._where())

    def compute_mask(self, t, default_mask):
        count = _count(self.amount, t.numel(), "entries", self._where())
        if count == 0:
            return default_mask.clone()
        pruned = numpy_generator().choice(t.numel(), size=count, replace=False)
        return _with_zeros(default_mask, pruned)

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries of smallest absolute value."""

    PRUNING_TYPE = "unstructured"
    _function = "l1_unstructured"

    def __init__(self, amount):
        self.amount = _checked_amount(amount, self._where())

    def compute_mask(self, t, default_mask):
        count = _count(self.amount, t.numel(), "entries", self._where())
        smallest = np.argsort(np.abs(t.detach().numpy()).reshape(-1), kind="stable")[:count]
        return _with_zeros(default_mask, smallest)

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole slices along ``dim`` (channels, output units) at random."""

    PRUNING_TYPE = "structured"
    _function = "random_structured"

    def __init__(self, amount, dim=-1):
        self.amount = _checked_amount(amount, self._where())
        self.dim = dim

    def compute_mask(self, t, default_mask):
        dim = _slices_dim(t, self.dim, self._where())
        count = _count(self.amount, t.shape[dim], "slices", self._where())
        if count == 0:
            return default_mask
        pruned = numpy_generator().choice(t.shape[dim], size=count, replace=False)
        return _without_slices(default_mask, dim, pruned)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` slices along ``dim`` of smallest L``n`` norm."""

    PRUNING_TYPE = "structured"
    _function = "ln_structured"

    def __init__(self, amount, n, dim=-1):
        self.amount = _checked_amount(amount, self._where())
        self.n, self.dim = n, dim

    def compute_mask(self, t, default_mask):
        dim = _slices_dim(t, self.dim, self._where())
        count = _count(self.amount, t.shape[dim], "slices", self._where())
        if count == 0:
            return default_mask
        norms = t.detach().norm(self.n, dim=[d for d in range(t.ndim) if d != dim]).numpy()
        weakest = np.argsort(-norms, kind="stable")[t.shape[dim] - count:]
        return _without_slices(default_mask, dim, weakest)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where the given ``mask`` is 0."""

    PRUNING_TYPE = "global"
    _function = "custom_from_mask"

    def __init__(self, mask):
        if not isinstance(mask, Tensor):
            raise ArgumentError(message(
                f"mask must be a Tensor, got {type(mask).__name__}.", where=self._where(),
                hint="nb.tensor(...) of 0s and 1s, the shape of the parameter."))
        self.mask = mask

    def compute_mask(self, t, default_mask):
        _check_shape(self.mask, default_mask, "mask", "the tensor", self._where())
        return default_mask * self.mask.to(default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


# ---------------------------------------------------------------------------
# The functions
# ---------------------------------------------------------------------------

def identity(module, name):
    """Set up pruning on ``module.<name>`` with a mask of ones (nothing pruned yet)."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` random entries of ``module.<name>``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the ``amount`` entries of ``module.<name>`` of smallest |value| (or smallest
    ``importance_scores``, a tensor of the same shape)."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` random slices of ``module.<name>`` along ``dim``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the ``amount`` slices of ``module.<name>`` along ``dim`` of smallest L``n``
    norm (``n``: a number, inf, -inf or 'fro')."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` where ``mask`` is 0."""
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune several tensors as if they were one: ``pruning_method(**kwargs)`` (an
    unstructured method such as ``prune.L1Unstructured, amount=0.2``) chooses among all
    their entries, so layers with small weights lose more.  ``parameters`` holds
    ``(module, name)`` pairs; ``importance_scores`` maps such a pair to its scores."""
    where = "nn.utils.prune.global_unstructured"
    pairs = _global_pairs(parameters, where)
    if importance_scores is None:
        importance_scores = {}
    if not isinstance(importance_scores, dict):
        raise ArgumentError(message(
            f"importance_scores must be a dict, got {type(importance_scores).__name__}.",
            where=where, hint="map (module, name) pairs to score tensors, or leave it out."))
    method = pruning_method(**kwargs)
    if method.PRUNING_TYPE != "unstructured":
        raise ArgumentError(message(
            f"global pruning takes an unstructured method, got {type(method).__name__} "
            f"(PRUNING_TYPE {method.PRUNING_TYPE!r}).", where=where,
            hint="pruning_method=prune.L1Unstructured or prune.RandomUnstructured."))
    tensors = [getattr(module, name) for module, name in pairs]
    scores = [importance_scores.get(pair, t) for pair, t in zip(pairs, tensors)]
    for (_, name), score, t in zip(pairs, scores, tensors):
        _check_shape(score, t, "importance_scores", name, where)
    masks = [module._buffers.get(name + "_mask") for module, name in pairs]
    default = cat([(ones_like(t) if m is None else m).detach().reshape(-1)
                   for t, m in zip(tensors, masks)])
    method._tensor_name = "all"
    with no_grad():
        mask = PruningContainer(method).compute_mask(
            cat([s.detach().reshape(-1) for s in scores]), default)
    start = 0
    for (module, name), t in zip(pairs, tensors):
        custom_from_mask(module, name, mask=mask[start:start + t.numel()].reshape(t.shape))
        start += t.numel()


def _global_pairs(parameters, where: str) -> list:
    """The (module, name) pairs, each checked before anything is pruned."""
    try:
        pairs = list(parameters)
    except TypeError:
        pairs = None
    if pairs is None or not all(isinstance(p, tuple) and len(p) == 2 for p in pairs):
        raise ArgumentError(message(
            "parameters must be an iterable of (module, name) pairs.", where=where,
            hint="parameters=[(model.fc1, 'weight'), (model.fc2, 'weight')]."))
    for module, name in pairs:
        if _pruning_hook(module, name)[1] is None:
            _parameter_to_prune(module, name, where)
    return pairs


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent (see the module docstring)."""
    for hook_id, hook in forward_pre_hooks(module).items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            remove_hook(module, "_forward_pre_hooks", hook_id)
            return module
    raise InputError(message(
        f"{type(module).__name__}.{name} is not pruned, so there is no pruning to remove.",
        where="nn.utils.prune.remove",
        hint=f"prune it first (prune.l1_unstructured(module, '{name}', amount=0.2)); "
        "prune.is_pruned(model) tells whether anything is."))


def is_pruned(module) -> bool:
    """True if ``module`` or any module inside it has a pruned tensor."""
    return any(isinstance(hook, BasePruningMethod) for m in module.modules()
               for hook in forward_pre_hooks(m).values())


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def _pruning_hook(module, name):
    """(hook id, method) of the pruning already on ``module.<name>``, or (None, None)."""
    for hook_id, hook in forward_pre_hooks(module).items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            return hook_id, hook
    return None, None


def _history(method) -> tuple:
    return tuple(method) if isinstance(method, PruningContainer) else (method,)


def _parameter_to_prune(module, name, where: str) -> Parameter:
    params = module._registry("_parameters")
    if isinstance(params.get(name), Parameter):
        return params[name]
    cls = type(module).__name__
    if isinstance(module._buffers.get(name), Tensor) or isinstance(module.__dict__.get(name),
                                                                   Tensor):
        raise ArgumentError(message(
            f"{cls}.{name} is a tensor but not a Parameter; pruning works on parameters.",
            where=where, hint="prune a parameter, e.g. 'weight' or 'bias'."))
    own = [n for n, p in params.items() if p is not None]
    held = "is None" if name in params else "does not exist"
    raise ModuleAttributeError(message(
        f"{cls} has no parameter '{name}' to prune: it {held}.", where=where,
        values=f"its parameters: {', '.join(own) or 'none'}",
        hint="name a parameter of this very layer (prune.l1_unstructured(model.fc1, "
        "'weight', amount=0.2)), not a path."))


def _check_shape(t, like, what: str, of: str, where: str) -> None:
    if not isinstance(t, Tensor):
        raise ArgumentError(message(
            f"{what} must be a Tensor, got {type(t).__name__}.", where=where,
            hint=f"a tensor of the shape of {of}, {fmt_shape(like.shape)}."))
    if tuple(t.shape) != tuple(like.shape):
        raise ShapeError(message(
            f"{what} has shape {fmt_shape(t.shape)}, but {of} has shape "
            f"{fmt_shape(like.shape)}.", where=where,
            hint=f"give one value per entry of {of}."))


def _checked_amount(amount, where: str):
    """``amount`` as PyTorch takes it: an int >= 0 (a count) or a float in [0, 1]."""
    if not isinstance(amount, numbers.Real):
        raise ArgumentError(message(
            f"amount must be an int (how many) or a float (what fraction), got "
            f"{type(amount).__name__} {amount!r}.", where=where,
            hint="amount=0.3 prunes 30%; amount=5 prunes five."))
    if (isinstance(amount, numbers.Integral) and amount < 0) or \
            (not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0):
        raise InputError(message(
            f"amount={amount} is neither a fraction in [0, 1] nor a count >= 0.",
            where=where, hint="amount=0.3 prunes 30%; amount=5 prunes five."))
    return amount


def _count(amount, size: int, what: str, where: str) -> int:
    """How many of ``size`` to prune: a count as given, or the fraction rounded (half to
    even, as Python's round)."""
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise InputError(message(
                f"amount={amount} is more than the {size} {what} there are to prune.",
                where=where, hint=f"prune at most {size}, or give a fraction (0.5)."))
        return int(amount)
    return round(amount * size)


def _slices_dim(t, dim, where: str) -> int:
    if t.ndim <= 1:
        raise InputError(message(
            f"structured pruning removes slices of a tensor with 2 or more dims, got shape "
            f"{fmt_shape(t.shape)}.", where=where,
            hint="prune a vector (a bias) with l1_unstructured or random_unstructured."))
    if not isinstance(dim, numbers.Integral) or not -t.ndim <= dim < t.ndim:
        raise DimError(message(
            f"dim={dim!r} is out of range for shape {fmt_shape(t.shape)}.", where=where,
            hint="dim=0 prunes output units (rows of a Linear weight, a Conv's filters)."))
    return int(dim) % t.ndim


def _with_zeros(default_mask, flat_indices) -> Tensor:
    """``default_mask`` with the entries at ``flat_indices`` (row-major) set to 0."""
    mask = default_mask.detach().numpy().copy()
    mask.reshape(-1)[flat_indices] = 0
    return tensor(mask)


def _without_slices(default_mask, dim: int, indices) -> Tensor:
    """``default_mask`` with the slices ``indices`` along ``dim`` set to 0."""
    mask = default_mask.detach().numpy().copy()
    mask[(slice(None),) * dim + (np.asarray(indices, dtype=np.int64),)] = 0
    return tensor(mask)
