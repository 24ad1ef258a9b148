"""Losses that compare input and target element by element, then reduce.

    l1:          l_i = |d_i|,  d = x - t
    smooth_l1:   l_i = d**2 / (2 beta) where |d| < beta, else |d| - beta / 2
    huber:       l_i = d**2 / 2 where |d| < delta, else delta (|d| - delta / 2)
    bce:         l_i = -w_i (t_i log x_i + (1 - t_i) log(1 - x_i))   (logs clamped at -100)
    bce, logits: l_i = -w_i (p t_i log sigma(x_i) + (1 - t_i) log(1 - sigma(x_i)))
    kl_div:      l_i = t_i (log t_i - x_i)   (x holds log-probabilities)

Input and target must have the same shape (as for mse_loss: broadcasting them would
compare every prediction with every target).  s_i in the comments is d(reduced
loss)/d(l_i), as in ops/losses.py.
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError, fmt_shape
from .activations import sigmoid_array
from .base import Op, check_float, is_real
from .losses import REDUCTIONS, loss_scale, reduce, shape_mismatch


class PairLoss(Op):
    """Input and target of one shape, a loss per element, then 'none' / 'mean' / 'sum'."""

    reductions = REDUCTIONS

    def __init__(self, reduction="mean"):
        if not (isinstance(reduction, str) and reduction in self.reductions):
            allowed = ", ".join(repr(r) for r in self.reductions)
            self.fail(f"reduction={reduction!r} is not one of {allowed}.", cls=InputError,
                      hint="use reduction='mean' (average over the elements), 'sum', or "
                      "'none' for one loss value per element.")
        self.reduction = reduction

    def infer(self, x, target):
        check_float(self, x)
        check_float(self, target, "target")
        if x.shape != target.shape:
            shape_mismatch(self, x, target)
        return x.shape if self.reduction == "none" else ()

    def reduced(self, losses):
        self.shape, self.denom = losses.shape, losses.size
        return reduce(losses, self.reduction, self.denom)

    def scale(self, grad_out):
        """s_i, one per element."""
        return loss_scale(grad_out, self.reduction, self.denom, self.shape)

    def both(self, grad_x, grad_t):
        need = self.needs_input_grad
        return (grad_x if need[0] else None, grad_t if need[1] else None)

    def positive_number(self, name, value, allow_zero):
        if not is_real(value) or value < 0 or (value == 0 and not allow_zero):
            bound = ">= 0" if allow_zero else "> 0"
            self.fail(f"{name}={value!r} must be a number {bound}.", cls=InputError,
                      hint=f"the default {name}=1.0 switches from squared to absolute "
                      "error at a difference of 1.")
        return float(value)


class L1Loss(PairLoss):
    name = "l1_loss"

    def forward(self, x, target):
        self.sign = np.sign(x - target)
        return self.reduced(np.abs(x - target))

    def backward(self, grad_out):  # l = |x - t|;  dl/dx = sign(x - t), dl/dt = -dl/dx
        g = self.scale(grad_out) * self.sign
        return self.both(g, -g)


class SmoothL1Loss(PairLoss):
    name = "smooth_l1_loss"

    def __init__(self, reduction="mean", beta=1.0):
        super().__init__(reduction)
        self.beta = self.positive_number("beta", beta, allow_zero=True)

    def forward(self, x, target):
        d = x - target
        self.d, self.small = d, np.abs(d) < self.beta
        with np.errstate(divide="ignore", invalid="ignore"):  # beta = 0: l1, small is empty
            quadratic = 0.5 * d * d / self.beta
        return self.reduced(np.where(self.small, quadratic, np.abs(d) - 0.5 * self.beta)
                            .astype(x.dtype))

    def backward(self, grad_out):  # dl/dd = d / beta where |d| < beta, else sign(d)
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.where(self.small, self.d / self.beta, np.sign(self.d))
        g = self.scale(grad_out) * slope
        return self.both(g, -g)


class HuberLoss(PairLoss):
    name = "huber_loss"

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        self.delta = self.positive_number("delta", delta, allow_zero=False)

    def forward(self, x, target):
        d = x - target
        self.d = d
        small = np.abs(d) < self.delta
        losses = np.where(small, 0.5 * d * d, self.delta * (np.abs(d) - 0.5 * self.delta))
        return self.reduced(losses.astype(x.dtype))

    def backward(self, grad_out):  # dl/dd = d clamped to [-delta, delta]
        g = self.scale(grad_out) * np.clip(self.d, -self.delta, self.delta)
        return self.both(g, -g)


class _Weighted(PairLoss):
    """A loss with per-element weights given as constants that broadcast to the input."""

    def __init__(self, reduction="mean", weight=None):
        super().__init__(reduction)
        self.weight = None if weight is None else np.asarray(weight)

    def check_broadcast(self, name, array, x, hint):
        if array is None:
            return
        try:
            fits = np.broadcast_shapes(array.shape, x.shape) == tuple(x.shape)
        except ValueError:
            fits = False
        if not fits:
            self.fail(f"{name} of shape {fmt_shape(array.shape)} does not broadcast to the "
                      f"input's shape {fmt_shape(x.shape)}.", hint=hint)

    def infer(self, x, target):
        shape = super().infer(x, target)
        self.check_broadcast("weight", self.weight, x,
                             "give one weight per element, or a shape that broadcasts to "
                             "the input's (e.g. (N, 1) for one weight per sample).")
        return shape

    def check_targets(self, target):
        """Targets are probabilities: a label 2 or -1 is a mistake, not a value to learn."""
        bad = (target < 0) | (target > 1)
        if bad.any():
            pos = tuple(int(i) for i in np.argwhere(bad)[0])
            self.fail(f"all elements of target should be between 0 and 1, got "
                      f"{target[pos]:g} at position {pos[0] if len(pos) == 1 else pos}.",
                      values=f"target {fmt_shape(target.shape)}   min {target.min():g}   "
                      f"max {target.max():g}", cls=InputError,
                      hint="binary cross-entropy compares probabilities; for class labels "
                      "0..C-1 use cross_entropy, or turn labels into 0/1 (e.g. "
                      "(labels == c).float()).")

    def weighted(self, values):
        return values if self.weight is None else values * self.weight


class BinaryCrossEntropy(_Weighted):
    name = "binary_cross_entropy"

    def forward(self, x, target):
        bad = (x < 0) | (x > 1) | np.isnan(x)
        if bad.any():
            pos = tuple(int(i) for i in np.argwhere(bad)[0])
            self.fail(f"all elements of input should be between 0 and 1, got {x[pos]:g} at "
                      f"position {pos[0] if len(pos) == 1 else pos}.",
                      values=f"input {fmt_shape(x.shape)}   min {np.nanmin(x):g}   "
                      f"max {np.nanmax(x):g}", cls=InputError,
                      hint="binary_cross_entropy takes probabilities: put a sigmoid before "
                      "it, or (better, more stable) give the raw scores to "
                      "binary_cross_entropy_with_logits / nn.BCEWithLogitsLoss.")
        self.check_targets(target)
        self.x, self.t = x, target
        with np.errstate(divide="ignore"):
            log_x = np.maximum(np.log(x), -100)      # PyTorch clamps the logs at -100,
            log_1mx = np.maximum(np.log1p(-x), -100)  # so x = 0 or 1 gives a finite loss
        losses = -self.weighted(target * log_x + (1 - target) * log_1mx)
        return self.reduced(losses.astype(x.dtype))

    def backward(self, grad_out):
        # dl/dx = w (x - t) / (x (1 - x))  (the denominator kept >= 1e-12)
        # dl/dt = w (log(1 - x) - log x)
        s = self.scale(grad_out)
        x, t = self.x, self.t
        grad_x = grad_t = None
        if self.needs_input_grad[0]:
            grad_x = self.weighted(s * (x - t) / np.maximum(x * (1 - x), 1e-12))
        if self.needs_input_grad[1]:
            grad_t = self.weighted(s * (np.log1p(-x) - np.log(x)))
        return grad_x, grad_t


class BinaryCrossEntropyWithLogits(_Weighted):
    """sigmoid and binary cross-entropy in one step, stable for any x.

    With lw = 1 + (p - 1) t (p: pos_weight), l = (1 - t) x + lw softplus(-x).
    """

    name = "binary_cross_entropy_with_logits"

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__(reduction, weight)
        self.pos_weight = None if pos_weight is None else np.asarray(pos_weight)

    def infer(self, x, target):
        shape = super().infer(x, target)
        self.check_broadcast("pos_weight", self.pos_weight, x,
                             "give one positive weight per class, the last dimension: "
                             f"shape ({x.shape[-1] if x.ndim else 1},).")
        return shape

    def forward(self, x, target):
        self.check_targets(target)
        self.x, self.t = x, target
        log_weight = 1 if self.pos_weight is None else 1 + (self.pos_weight - 1) * target
        self.log_weight = log_weight
        softplus_neg = np.logaddexp(0, -x)  # log(1 + exp(-x)) = -log sigma(x)
        self.softplus_neg = softplus_neg
        losses = self.weighted((1 - target) * x + log_weight * softplus_neg)
        return self.reduced(np.asarray(losses, dtype=x.dtype))

    def backward(self, grad_out):
        # dl/dx = w ((1 - t) - lw sigma(-x)),  dl/dt = w (-x + (p - 1) softplus(-x))
        s = self.scale(grad_out)
        x, t = self.x, self.t
        grad_x = grad_t = None
        if self.needs_input_grad[0]:
            grad_x = self.weighted(s * ((1 - t) - self.log_weight * sigmoid_array(-x)))
        if self.needs_input_grad[1]:
            p_minus_1 = 0 if self.pos_weight is None else self.pos_weight - 1
            grad_t = self.weighted(s * (-x + p_minus_1 * self.softplus_neg))
        return grad_x, grad_t


class KlDiv(PairLoss):
    """KL(t || exp(x)) per element; x holds log-probabilities, t probabilities (or their
    logs with ``log_target``).  'batchmean' divides the sum by the batch size."""

    name = "kl_div"
    reductions = REDUCTIONS + ("batchmean",)

    def __init__(self, reduction="mean", log_target=False):
        super().__init__(reduction)
        self.log_target = bool(log_target)

    def forward(self, x, target):
        self.x, self.t = x, target
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.log_target:
                losses = np.exp(target) * (target - x)
            else:  # t log t is 0 at t = 0
                losses = np.where(target > 0, target * np.log(np.where(target > 0, target, 1)),
                                  np.where(target == 0, 0, np.nan)) - target * x
        losses = losses.astype(x.dtype)
        if self.reduction == "batchmean":
            self.shape = losses.shape
            self.denom = x.shape[0] if x.ndim else 1
            return reduce(losses, "mean", self.denom)
        return self.reduced(losses)

    def backward(self, grad_out):
        # l = t (log t - x):            dl/dx = -t,       dl/dt = log t + 1 - x
        # l = exp(t) (t - x) (log t):   dl/dx = -exp(t),  dl/dt = exp(t) (t - x + 1)
        reduction = "mean" if self.reduction == "batchmean" else self.reduction
        s = loss_scale(grad_out, reduction, self.denom, self.shape)
        x, t = self.x, self.t
        grad_x = grad_t = None
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.needs_input_grad[0]:
                grad_x = -s * (np.exp(t) if self.log_target else t)
            if self.needs_input_grad[1]:
                grad_t = s * (np.exp(t) * (t - x + 1) if self.log_target
                              else np.where(t > 0, np.log(t) + 1 - x, np.nan))
        return grad_x, grad_t
