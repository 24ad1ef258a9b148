"""nn.utils.parametrizations: weight normalisation and spectral normalisation, registered
as parametrizations (nn.utils.parametrize), PyTorch's current way.

weight_norm: a weight's direction and its length are learned apart,
    w = g * v / ||v||      (||v|| over every dim but ``dim``: one length per output unit)
    stored as ``parametrizations.weight.original0`` = g and ``original1`` = v.

spectral_norm: the weight divided by its largest singular value sigma, so the layer
stretches no input by more than a factor 1 (how a GAN's discriminator is kept smooth).
Seen as a matrix W (one row per slice along ``dim``), sigma is estimated by power
iteration on two unit vectors kept as buffers, ``_u`` and ``_v``:
    u <- W v / ||W v||,   v <- W^T u / ||W^T u||,   sigma = u . W v
``n_power_iterations`` steps each time the weight is read in training mode, none in eval
mode; sigma's gradient flows to W only (u and v are constants for backward).
"""
from __future__ import annotations

import numbers

from ... import context
from ...context import no_grad
from ...creation import randn
from ...errors import ArgumentError, DimError, InputError, message
from ...tensor import Tensor
from ..functional_distance import normalize
from ..layers.conv1d import ConvTranspose1d, ConvTranspose2d
from ..module import Module
from . import parametrize

__all__ = ["weight_norm", "spectral_norm"]


def norm_except_dim(v: Tensor, dim: int, where: str) -> Tensor:
    """||v|| over every dim but ``dim``, which keeps its size and the others become 1 (one
    norm per slice along ``dim``); ``dim=-1`` is the norm of the whole tensor (0-d)."""
    if dim == -1:
        return v.norm()
    dim = check_dim(dim, v.ndim, where)
    shape = [1] * v.ndim
    shape[dim] = v.shape[dim]
    return v.transpose(0, dim).reshape(v.shape[dim], -1).norm(2, dim=1).reshape(shape)


def check_dim(dim, ndim: int, where: str) -> int:
    """``dim`` as a non-negative axis of a tensor with ``ndim`` dimensions."""
    if not isinstance(dim, numbers.Integral) or isinstance(dim, bool):
        raise ArgumentError(message(f"dim must be an int, got {dim!r}.", where=where,
                                    hint="dim=0: one norm per output unit (a row)."))
    if not -ndim <= dim < ndim:
        raise DimError(message(
            f"dim={dim} is out of range for a weight with {ndim} dimensions "
            f"(expected -{ndim} to {ndim - 1}).", where=where,
            hint="dim=0 is the output units of Linear and Conv layers."))
    return int(dim) % ndim


def weight_norm_from(v: Tensor, g: Tensor, dim: int) -> Tensor:
    """w = g * v / ||v|| (the norm over every dim but ``dim``)."""
    return v * (g / norm_except_dim(v, dim, "weight_norm"))


class _WeightNorm(Module):
    """The parametrization w = g * v / ||v|| (see the module docstring)."""

    def __init__(self, dim: int | None = 0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_norm_from(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        """What to store for a weight: its length g and the weight itself as v."""
        return norm_except_dim(weight, self.dim, "nn.utils.parametrizations.weight_norm"), \
            weight


def weight_norm(module, name: str = "weight", dim: int | None = 0):
    """Learn ``module.<name>`` as a length g (``parametrizations.weight.original0``) times
    a direction v (``original1``): w = g * v / ||v||, the norm over every dim but
    ``dim`` (``dim=None``: of the whole weight).  Returns the module."""
    if dim is not None and (not isinstance(dim, numbers.Integral) or isinstance(dim, bool)):
        raise ArgumentError(message(
            f"dim must be an int or None, got {dim!r}.",
            where="nn.utils.parametrizations.weight_norm",
            hint="dim=0: one length per output unit; dim=None: one for the whole weight."))
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    """The parametrization w / sigma(w), sigma by power iteration (module docstring)."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12):
        super().__init__()
        where = "nn.utils.parametrizations.spectral_norm"
        ndim = weight.ndim
        self.dim = check_dim(dim, max(ndim, 1), where)
        if not isinstance(n_power_iterations, numbers.Integral) or \
                isinstance(n_power_iterations, bool) or n_power_iterations <= 0:
            raise InputError(message(
                f"n_power_iterations must be a positive int, got {n_power_iterations!r}.",
                where=where, hint="n_power_iterations=1 (the default) is enough in training: "
                "u and v carry over from one step to the next."))
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = int(n_power_iterations)
            with no_grad():
                weight_mat = self._reshape_weight_to_matrix(weight.detach())
                rows, cols = weight_mat.shape
                u = randn(rows, dtype=weight.dtype)
                v = randn(cols, dtype=weight.dtype)
                self.register_buffer("_u", normalize(u, dim=0, eps=eps))
                self.register_buffer("_v", normalize(v, dim=0, eps=eps))
                self._power_method(weight_mat, 15)  # start close to the top singular pair

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """The weight as a matrix: one row per slice along ``dim``."""
        if self.dim != 0:
            others = [d for d in range(weight.ndim) if d != self.dim]
            weight = weight.permute(self.dim, *others)
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        """Move u and v (in place) towards W's top left and right singular vectors."""
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(normalize(weight_mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(normalize(weight_mat.T.mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:  # a vector's only singular value is its length
            return normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training and not context.shape_only():
            self._power_method(weight_mat, self.n_power_iterations)
        # copies: a later power step changes the buffers, and backward reads u and v
        u, v = self._u.clone(), self._v.clone()
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value  # any scaled copy would do; the value itself is the simplest


def spectral_norm(module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None):
    """Divide ``module.<name>`` by its spectral norm (largest singular value), estimated by
    power iteration (module docstring).  ``dim`` is the output dim: 0, or 1 for the
    transposed convolutions.  Returns the module."""
    weight = getattr(module, name, None) if isinstance(name, str) else None
    if not isinstance(weight, Tensor):
        names = [n for n, t in module.named_parameters(recurse=False)] \
            if isinstance(module, Module) else []
        raise InputError(message(
            f"{type(module).__name__} has no parameter or buffer named {name!r}.",
            where="nn.utils.parametrizations.spectral_norm",
            values=f"its parameters: {', '.join(names) or 'none'}",
            hint="spectral_norm(layer, name='weight') on the layer itself, e.g. "
            "spectral_norm(nn.Linear(5, 7))."))
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
