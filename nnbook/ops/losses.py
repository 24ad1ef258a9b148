"""Losses: nll_loss and cross_entropy (class indices or probabilities), and mse_loss.

Notation in the derivative comments:

    p = softmax(z) along the class axis,  log p = z - logsumexp(z)
    N samples, C classes; inputs (N, C) or (N, C, d1, ...), targets (N,) or (N, d1, ...)
    s_i = d(reduced loss) / d(loss of element i): grad_out, or grad_out / denominator for 'mean'

What the two classification losses share -- checking scores, targets and class
weights -- is :class:`ClassLoss` in ``ops/class_targets.py``.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import InputError, fmt_shape, message
from .base import Op, check_float, is_real
from .class_targets import ClassLoss
from .softmax import log_softmax_array

REDUCTIONS = ("none", "mean", "sum")


def check_reduction(reduction, where: str) -> str:
    """'none', 'mean' or 'sum'; anything else is refused (the one check of ``reduction``)."""
    if isinstance(reduction, str) and reduction in REDUCTIONS:
        return reduction
    raise InputError(message(
        f"reduction={reduction!r} is not one of 'none', 'mean', 'sum'.", where=where,
        hint="use reduction='mean' (average over the elements), 'sum', or 'none' "
        "for one loss value per element."))


def reduce(losses: np.ndarray, reduction: str, denom) -> np.ndarray:
    """Apply 'none' / 'sum' / 'mean' (dividing by ``denom``); 0/0 gives nan as in PyTorch."""
    if reduction == "none":
        return losses
    total = losses.sum(dtype=losses.dtype)
    if reduction == "sum":
        return np.asarray(total)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(total / np.asarray(denom, dtype=losses.dtype))


def loss_scale(grad_out, reduction, denom, shape):
    """s_i = d(reduced loss)/d(loss_i), one per element: g, g, or g / denom."""
    if reduction == "none":
        return grad_out.reshape(shape)
    if reduction == "mean":
        with np.errstate(divide="ignore", invalid="ignore"):
            grad_out = grad_out / np.asarray(denom, dtype=grad_out.dtype)
    return np.broadcast_to(grad_out, shape)


# ---------------------------------------------------------------------------
# Classification
# ---------------------------------------------------------------------------

class NllLoss(ClassLoss):
    """loss_i = -w[t_i] * x[i, t_i]; 'mean' divides by sum_i w[t_i] (ignored ones excluded)."""

    name = "nll_loss"

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(weight, ignore_index, check_reduction(reduction, self.where))

    def forward(self, x, target):
        x, target = self.batched(x, target)
        self.in_shape = x.shape
        self.picked, self.valid, self.w_elem = self.targets(x, target)
        self.denom = self.w_elem.sum()
        chosen = np.take_along_axis(x, self.picked, axis=1)[:, 0]
        with np.errstate(invalid="ignore"):  # 0 * -inf where a weight is 0
            losses = np.where(self.valid, -self.w_elem * chosen, 0).astype(x.dtype)
        return self.unbatched(reduce(losses, self.reduction, self.denom))

    def backward(self, grad_out):  # loss_i = -w_t x[i, t];  dloss_i/dx[i, t] = -w_t, 0 elsewhere
        s = loss_scale(grad_out, self.reduction, self.denom, self.valid.shape)
        with np.errstate(invalid="ignore"):
            at_target = np.where(self.valid, -self.w_elem * s, 0)
        grad_x = np.zeros(self.in_shape, dtype=grad_out.dtype)
        np.put_along_axis(grad_x, self.picked, at_target[:, None], axis=1)
        return (self.unbatched(grad_x), None)


class CrossEntropy(ClassLoss):
    """log_softmax and nll_loss fused into one node; the gradient is p - onehot.

    With label smoothing e, the target of element i is the distribution
    q_ic = (1 - e) w_t [c = t_i] + (e / C) w_c, and loss_i = -sum_c q_ic log p_ic.
    A float target of the input's shape holds class probabilities q instead of indices.
    """

    name = "cross_entropy"
    soft_targets = True

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(weight, ignore_index, check_reduction(reduction, self.where))
        e = label_smoothing
        if not is_real(e) or not 0.0 <= e <= 1.0:
            self.fail(f"label_smoothing={e!r} must be a number between 0.0 and 1.0.",
                      hint="0.0 means no smoothing; 0.1 is a common choice.", cls=InputError)
        self.label_smoothing = e

    def forward(self, x, target):
        self.soft = self.is_soft(x, target)
        x, target = self.batched(x, target)
        self.logp = log_softmax_array(x, 1)
        if self.soft:
            losses = self._soft_forward(x, target)
        else:
            losses = self._hard_forward(x, target)
        return self.unbatched(reduce(losses.astype(x.dtype), self.reduction, self.denom))

    def _hard_forward(self, x, target):
        e, classes = self.label_smoothing, x.shape[1]
        self.picked, self.valid, self.w_elem = self.targets(x, target)
        self.denom = self.w_elem.sum()
        with np.errstate(invalid="ignore"):  # 0 * -inf where a weight is 0
            losses = -(1 - e) * self.w_elem * np.take_along_axis(self.logp, self.picked, 1)[:, 0]
        if e > 0:
            w = self.class_weights(x)
            weighted = self.logp if w is None else self.logp * w
            losses = losses - (e / classes) * weighted.sum(axis=1)
        return np.where(self.valid, losses, 0)

    def _soft_forward(self, x, target):
        e, classes = self.label_smoothing, x.shape[1]
        q = target * (1 - e) + e / classes if e > 0 else target
        w = self.class_weights(x)
        self.q = q if w is None else q * w
        # 'mean' averages over the elements (N * d1 * ...), not over the weights
        self.denom = x.shape[0] * math.prod(x.shape[2:])
        return -(self.q * self.logp).sum(axis=1)

    def backward(self, grad_out):  # loss_i = -sum_c q_ic log p_ic;  dz_ic = p_ic sum_c q_ic - q_ic
        p = np.exp(self.logp)
        if self.soft:
            grads = self._soft_backward(grad_out, p)
        else:
            grads = (self._hard_backward(grad_out, p), None)
        return tuple(None if g is None else self.unbatched(g) for g in grads)

    def _hard_backward(self, grad_out, p):
        e, classes = self.label_smoothing, p.shape[1]
        s = loss_scale(grad_out, self.reduction, self.denom, self.valid.shape)
        s = np.where(self.valid, s, 0)
        w = self.class_weights(p)
        # sum_c q_ic: the target class' share plus the smoothing spread over all classes
        q_total = (1 - e) * self.w_elem
        if e > 0:
            q_total = q_total + (e / classes) * (classes if w is None else w.sum()) * self.valid
        with np.errstate(invalid="ignore"):
            grad = p * (s * q_total)[:, None]
            if e > 0:
                grad -= (s * (e / classes))[:, None] * (1 if w is None else w)
            at_target = np.take_along_axis(grad, self.picked, 1)
            at_target -= (s * (1 - e) * self.w_elem)[:, None]
        np.put_along_axis(grad, self.picked, at_target, axis=1)
        return grad

    def _soft_backward(self, grad_out, p):
        e = self.label_smoothing
        s = loss_scale(grad_out, self.reduction, self.denom, p.shape[:1] + p.shape[2:])[:, None]
        grad_x = s * (p * self.q.sum(axis=1, keepdims=True) - self.q)
        grad_target = None
        if self.needs_input_grad[1]:  # d loss_i / d target_ic = -(1 - e) w_c log p_ic
            w = self.class_weights(p)
            grad_target = -(1 - e) * s * (self.logp if w is None else self.logp * w)
        return grad_x, grad_target


# ---------------------------------------------------------------------------
# Regression
# ---------------------------------------------------------------------------

class MseLoss(Op):
    """loss_i = w_i (x_i - t_i)**2; 'mean' divides by n (or by sum w when weighted).

    Unlike PyTorch, shapes must match exactly: (N, 1) against (N,) would broadcast to
    (N, N) and compare every prediction with every target.
    """

    name = "mse_loss"

    def __init__(self, reduction="mean"):
        self.reduction = check_reduction(reduction, self.where)

    def infer(self, x, target, weight=None):
        check_float(self, x)
        check_float(self, target, "target")
        if x.shape != target.shape:
            self._shape_mismatch(x, target)
        if weight is not None and weight.shape != x.shape:
            self.fail(f"weight must have the input's shape {fmt_shape(x.shape)}, got "
                      f"{fmt_shape(weight.shape)}.",
                      hint="give one weight per element (expand a per-sample weight: "
                      "w.reshape(N, 1).expand(input.shape)).")
        return x.shape if self.reduction == "none" else ()

    def _shape_mismatch(self, x, target):
        try:
            both = np.broadcast_shapes(x.shape, target.shape)
            spread = f"; broadcasting would compare them as {fmt_shape(both)}"
            note = " (PyTorch would broadcast with only a warning; nnbook refuses.)"
        except ValueError:
            spread = note = ""
        if x.shape == target.shape + (1,):
            hint = "the prediction has an extra size-1 dimension: use input.squeeze(-1)."
        elif target.shape == x.shape + (1,):
            hint = "the target has an extra size-1 dimension: use target.squeeze(-1)."
        elif math.prod(x.shape) == math.prod(target.shape):
            hint = f"same number of values: target.reshape{fmt_shape(x.shape)} if they line up."
        else:
            hint = "the prediction and the target must describe the same elements."
        self.fail(f"input and target must have the same shape, got {fmt_shape(x.shape)} "
                  f"and {fmt_shape(target.shape)}{spread}.",
                  values=f"input {fmt_shape(x.shape)}   target {fmt_shape(target.shape)}",
                  hint=hint + note)

    def forward(self, x, target, weight=None):
        self.diff, self.weight = x - target, weight
        sq = self.diff * self.diff
        losses = sq if weight is None else sq * weight
        self.denom = sq.size if weight is None else weight.sum()
        out = reduce(losses, self.reduction, self.denom)
        if weight is not None and self.needs_input_grad[2]:  # what d/dw reads
            self.sq, self.out = sq, out.copy()
        return out

    def backward(self, grad_out):  # l = w (x - t)**2;  dx = 2 w (x - t), dt = -dx, dw = (x - t)**2
        s = loss_scale(grad_out, self.reduction, self.denom, self.diff.shape)
        w = self.weight
        grad_x = 2 * s * self.diff if w is None else 2 * s * w * self.diff
        need = self.needs_input_grad
        grad_w = None
        if len(need) > 2 and need[2]:
            # 'mean' is sum(w sq) / sum(w):  d/dw_i = (sq_i - mean) / sum(w)
            grad_w = s * (self.sq - self.out) if self.reduction == "mean" else s * self.sq
        return (grad_x if need[0] else None, -grad_x if need[1] else None, grad_w)[:len(need)]
