"""The older weight_norm and spectral_norm of nn.utils: a forward pre-hook recomputes
``module.weight`` from other tensors before every call.  (``nn.utils.parametrizations``
has the current way; PyTorch marks this weight_norm deprecated, and so does nnbook.)

weight_norm(module):   parameters ``weight_g`` (lengths) and ``weight_v`` (directions);
                       before each call  weight = weight_g * weight_v / ||weight_v||.
spectral_norm(module): parameter ``weight_orig``, buffers ``weight_u`` and ``weight_v``;
                       before each call, in training mode, one power step
                           v <- W^T u / ||W^T u||,   u <- W v / ||W v||
                       (W: weight_orig as a matrix, one row per slice along ``dim``), then
                       weight = weight_orig / sigma with sigma = u . W v.

Between calls ``module.weight`` is a plain tensor attribute holding the last result
(right after spectral_norm, before the first call, the weight itself).
"""
from __future__ import annotations

import numbers

from ... import context
from ...context import no_grad
from ...creation import randn
from ...errors import InputError, NnbookError, message, warn_from_user_code
from ..functional_distance import normalize
from ..hooks import forward_pre_hooks, remove
from ..layers.conv1d import ConvTranspose1d, ConvTranspose2d
from ..lazy import UninitializedParameter
from ..module import ModuleAttributeError
from ..parameter import Parameter
from .parametrizations import check_dim, norm_except_dim, weight_norm_from

__all__ = ["weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm",
           "WeightNorm", "SpectralNorm", "NormHookError"]


class NormHookError(NnbookError, RuntimeError):
    """weight_norm or spectral_norm put twice on one parameter."""


def _own_parameter(module, name: str, fn: str) -> Parameter:
    """``module``'s own parameter ``name``, refused with a message if it has none."""
    params = module._registry("_parameters")
    param = params.get(name)
    if isinstance(param, UninitializedParameter):
        raise InputError(message(
            f"{type(module).__name__}.{name} has no shape yet: the lazy layer learns it "
            "from its first input.", where=f"nn.utils.{fn}",
            hint=f"run the model once (model(x)) before {fn}(layer)."))
    if param is None:
        own = [n for n, p in params.items() if p is not None]
        held = "is None" if name in params else "does not exist"
        raise ModuleAttributeError(message(
            f"{type(module).__name__} has no parameter '{name}' to normalise: it {held}.",
            where=f"nn.utils.{fn}", values=f"its parameters: {', '.join(own) or 'none'}",
            hint=f"{fn}(layer, name='weight') on the layer that owns the parameter."))
    return param


def _check_not_applied(module, kind: type, name: str, fn: str) -> None:
    if any(isinstance(h, kind) and h.name == name for h in forward_pre_hooks(module).values()):
        raise NormHookError(message(
            f"{type(module).__name__}.{name} already has {fn}; it cannot be applied twice.",
            where=f"nn.utils.{fn}",
            hint=f"apply it once per parameter; remove_{fn}(module, '{name}') takes it off."))


def _take_off(module, kind: type, name: str, fn: str):
    """Remove ``module``'s pre-hook of class ``kind`` for ``name`` and return it."""
    for hook_id, hook in forward_pre_hooks(module).items():
        if isinstance(hook, kind) and hook.name == name:
            hook.remove(module)
            remove(module, "_forward_pre_hooks", hook_id)
            return hook
    raise InputError(message(
        f"{type(module).__name__} has no {fn} on '{name}' to remove.",
        where=f"nn.utils.remove_{fn}", hint=f"{fn}(module, '{name}') puts it on."))


# ---------------------------------------------------------------------------
# weight_norm
# ---------------------------------------------------------------------------

class WeightNorm:
    """The forward pre-hook of ``nn.utils.weight_norm``."""

    def __init__(self, name: str, dim: int | None):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        return weight_norm_from(getattr(module, self.name + "_v"),
                                getattr(module, self.name + "_g"), self.dim)

    def __call__(self, module, inputs) -> None:
        if not context.shape_only():  # a shape-only pass keeps the weight it has
            setattr(module, self.name, self.compute_weight(module))

    def remove(self, module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        delattr(module, self.name + "_g")
        delattr(module, self.name + "_v")
        module.register_parameter(self.name, Parameter(weight.detach()))


def weight_norm(module, name: str = "weight", dim: int | None = 0):
    """Deprecated (as in PyTorch): use ``nn.utils.parametrizations.weight_norm``.

    Replaces parameter ``name`` by ``name_g`` (the lengths, ||w|| over every dim but
    ``dim``) and ``name_v`` (w itself); a forward pre-hook recomputes
    ``module.<name> = name_g * name_v / ||name_v||`` before every call."""
    warn_from_user_code(FutureWarning(
        "nn.utils.weight_norm is deprecated: use nn.utils.parametrizations.weight_norm, "
        "which keeps g and v as parametrizations.weight.original0 and original1."))
    _check_not_applied(module, WeightNorm, name, "weight_norm")
    weight = _own_parameter(module, name, "weight_norm")
    fn = WeightNorm(name, dim)
    with no_grad():
        lengths = norm_except_dim(weight, fn.dim, "nn.utils.weight_norm")
    delattr(module, name)
    module.register_parameter(name + "_g", Parameter(lengths))
    module.register_parameter(name + "_v", Parameter(weight.detach()))
    setattr(module, name, fn.compute_weight(module))
    module.register_forward_pre_hook(fn)
    return module


def remove_weight_norm(module, name: str = "weight"):
    """Make ``module.<name>`` a plain parameter again, holding its current value."""
    _take_off(module, WeightNorm, name, "weight_norm")
    return module


# ---------------------------------------------------------------------------
# spectral_norm
# ---------------------------------------------------------------------------

class SpectralNorm:
    """The forward pre-hook of ``nn.utils.spectral_norm``."""

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12):
        if not isinstance(n_power_iterations, numbers.Integral) or \
                isinstance(n_power_iterations, bool) or n_power_iterations <= 0:
            raise InputError(message(
                f"n_power_iterations must be a positive int, got {n_power_iterations!r}.",
                where="nn.utils.spectral_norm", hint="n_power_iterations=1 (the default) is "
                "enough in training: u and v carry over from one step to the next."))
        self.name, self.dim, self.eps = name, dim, eps
        self.n_power_iterations = int(n_power_iterations)

    def reshape_weight_to_matrix(self, weight):
        """The weight as a matrix: one row per slice along ``dim``."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.ndim) if d != self.dim])
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module, do_power_iteration: bool):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():  # u and v change in place; backward reads copies
                for _ in range(self.n_power_iterations):
                    v.copy_(normalize(weight_mat.T.mv(u), dim=0, eps=self.eps))
                    u.copy_(normalize(weight_mat.mv(v), dim=0, eps=self.eps))
            u, v = u.clone(), v.clone()
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    def __call__(self, module, inputs) -> None:
        if not context.shape_only():  # a shape-only pass keeps the weight it has
            setattr(module, self.name,
                    self.compute_weight(module, do_power_iteration=module.training))

    def remove(self, module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))


def spectral_norm(module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None):
    """Divide parameter ``name`` by its spectral norm before every call (module docstring).

    The parameter moves to ``name_orig``; unit vectors ``name_u`` and ``name_v`` (buffers,
    random to start with) follow one power step per training call.  ``dim`` is the output
    dim: 0, or 1 for the transposed convolutions."""
    _check_not_applied(module, SpectralNorm, name, "spectral_norm")
    weight = _own_parameter(module, name, "spectral_norm")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    fn = SpectralNorm(name, n_power_iterations, check_dim(dim, weight.ndim,
                                                          "nn.utils.spectral_norm"), eps)
    with no_grad():
        rows, cols = fn.reshape_weight_to_matrix(weight.detach()).shape
        u = normalize(randn(rows, dtype=weight.dtype), dim=0, eps=eps)
        v = normalize(randn(cols, dtype=weight.dtype), dim=0, eps=eps)
    delattr(module, name)
    module.register_parameter(name + "_orig", weight)
    setattr(module, name, weight.detach())
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    module.register_forward_pre_hook(fn)
    return module


def remove_spectral_norm(module, name: str = "weight"):
    """Make ``module.<name>`` a plain parameter again, holding weight_orig / sigma."""
    _take_off(module, SpectralNorm, name, "spectral_norm")
    return module
