"""Distances and similarities between vectors: pairwise_distance, cosine_similarity and
normalize, written in tensor maths (their gradients come from the ops they use).

    pairwise_distance(x1, x2) = || x1 - x2 + eps ||_p        over the last dimension
    cosine_similarity(x1, x2) = < x1 / max(||x1||, eps), x2 / max(||x2||, eps) >
    normalize(x)              = x / max(||x||_p, eps)
"""
from __future__ import annotations

import numpy as np

from ..context import no_grad
from ..ops.base import is_real
from .arguments import _fail, _tensor

__all__ = ["pairwise_distance", "cosine_similarity", "normalize"]


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of x1 - x2 (+ eps, which keeps the gradient finite at 0) along the last
    dimension; x1 and x2 broadcast."""
    x1, x2 = _tensor("pairwise_distance", "x1", x1), _tensor("pairwise_distance", "x2", x2)
    return (x1 - x2 + eps).norm(p, dim=-1, keepdim=keepdim)


def _clamped_norm(x, dim, eps):
    """||x|| along ``dim`` with its value kept >= eps, but the gradient of the plain norm
    (PyTorch clamps the norm in place, outside the graph)."""
    norm = x.norm(2, dim=dim, keepdim=True)
    with no_grad():
        lift = norm.clamp_min(eps) - norm  # 0 unless the norm is below eps
    return norm + lift


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """The cosine of the angle between x1 and x2 along ``dim``, always within [-1, 1]."""
    fn = "cosine_similarity"
    x1, x2 = _tensor(fn, "x1", x1), _tensor(fn, "x2", x2)
    if not is_real(eps) or eps < 0:
        _fail(fn, f"eps={eps!r} must be a number >= 0.",
              hint="the default 1e-8 keeps the division away from zero.")
    shape = _broadcast(fn, x1, x2)
    x1, x2 = x1.broadcast_to(shape), x2.broadcast_to(shape)
    return ((x1 / _clamped_norm(x1, dim, eps)) * (x2 / _clamped_norm(x2, dim, eps))).sum(dim)


def _broadcast(fn, x1, x2) -> tuple:
    try:
        return np.broadcast_shapes(x1.shape, x2.shape)
    except ValueError:
        _fail(fn, f"x1 of shape {tuple(x1.shape)} and x2 of shape {tuple(x2.shape)} do not "
              "broadcast together.", hint="give vectors of the same size along dim (the "
              "other dimensions may be 1 to broadcast).")


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p, eps) along ``dim``: unit vectors (rows of (N, C) by default)."""
    input = _tensor("normalize", "input", input)
    if out is not None:
        _fail("normalize", "out= is not supported by nnbook.",
              hint="use the returned tensor: y = F.normalize(x).")
    return input / input.norm(p, dim=dim, keepdim=True).clamp_min(eps)
