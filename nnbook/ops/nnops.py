"""Neural-network ops: softmax, the classification and regression losses, batch norm, dropout.

Each op is one class: a shape rule (``infer``), ``forward`` and ``backward`` side by side,
with the local derivative in a one-line comment.  Notation used below:

    p = softmax(z) along the class axis,  log p = z - logsumexp(z)
    N samples, C classes; inputs (N, C) or (N, C, d1, ...), targets (N,) or (N, d1, ...)
    s_i = d(reduced loss) / d(loss of element i): grad_out, or grad_out / denominator for 'mean'
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..errors import DimError, DTypeError, InputError, fmt_shape
from .base import Op, normalize_dim

REDUCTIONS = ("none", "mean", "sum")


# ---------------------------------------------------------------------------
# Checks shared by several ops
# ---------------------------------------------------------------------------

def check_float(op: Op, x, what="input"):
    if x.dtype.kind != "f":
        op.fail(f"expects a floating point {what}, got {x.dtype.name}.",
                values=f"{what} {fmt_shape(x.shape)} {x.dtype.name}",
                hint=f"convert it first: {what}.float().", cls=DTypeError)


def check_reduction(op: Op, reduction):
    if not isinstance(reduction, str) or reduction not in REDUCTIONS:
        op.fail(f"reduction={reduction!r} is not one of 'none', 'mean', 'sum'.",
                hint="use reduction='mean' (average over the elements), 'sum', or 'none' "
                "for one loss value per element.", cls=InputError)


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _reduce(losses: np.ndarray, reduction: str, denom) -> np.ndarray:
    """Apply 'none' / 'sum' / 'mean' (dividing by ``denom``); 0/0 gives nan as in PyTorch."""
    if reduction == "none":
        return losses
    total = losses.sum(dtype=losses.dtype)
    if reduction == "sum":
        return np.asarray(total)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(total / np.asarray(denom, dtype=losses.dtype))


def _loss_scale(grad_out, reduction, denom, shape):
    """s_i = d(reduced loss)/d(loss_i), one per element: g, g, or g / denom."""
    if reduction == "none":
        return grad_out.reshape(shape)
    if reduction == "mean":
        with np.errstate(divide="ignore", invalid="ignore"):
            grad_out = grad_out / np.asarray(denom, dtype=grad_out.dtype)
    return np.broadcast_to(grad_out, shape)


# ---------------------------------------------------------------------------
# Softmax and log-softmax
# ---------------------------------------------------------------------------

def _shifted(x: np.ndarray, axis) -> np.ndarray:
    """x - max(x) along ``axis``: the same softmax, and exp() can no longer overflow."""
    if x.size == 0:
        return x
    return x - np.max(x, axis=axis, keepdims=True)


def log_softmax_array(x: np.ndarray, axis) -> np.ndarray:
    """log p = (z - max z) - log(sum exp(z - max z)), stable for any z."""
    z = _shifted(x, axis)
    with np.errstate(divide="ignore"):
        return z - np.log(np.sum(np.exp(z), axis=axis, keepdims=True))


class Softmax(Op):
    name = "softmax"

    def __init__(self, dim):
        self.dim = dim

    def infer(self, x):
        check_float(self, x)
        axis = normalize_dim(self, self.dim, x.ndim)
        self.axis = axis if x.ndim else None
        return x.shape

    def forward(self, x):
        e = np.exp(_shifted(x, self.axis))
        self.y = e / np.sum(e, axis=self.axis, keepdims=True)
        return self.y

    def backward(self, grad_out):  # y = softmax(x);  dx = y * (g - sum(g * y))  (no Jacobian)
        y = self.y
        return (y * (grad_out - np.sum(grad_out * y, axis=self.axis, keepdims=True)),)


class LogSoftmax(Softmax):
    name = "log_softmax"

    def forward(self, x):
        self.y = log_softmax_array(x, self.axis)
        return self.y

    def backward(self, grad_out):  # y = log softmax(x);  dx = g - softmax(x) * sum(g)
        return (grad_out - np.exp(self.y) * np.sum(grad_out, axis=self.axis, keepdims=True),)


# ---------------------------------------------------------------------------
# Classification losses: nll_loss and cross_entropy
# ---------------------------------------------------------------------------

class _ClassLoss(Op):
    """What nll_loss and cross_entropy share: checking scores, targets and class weights.

    Scores are (N, C), (N, C, d1, ...) or one sample (C,); targets hold class indices
    (N,), (N, d1, ...) or () respectively.  Internally a single sample is made a batch of one.
    """

    soft_targets = False  # cross_entropy also takes class probabilities

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        self.weight = None if weight is None else np.asarray(weight)
        self.ignore_index = ignore_index
        self.reduction = reduction

    # -- shape rule ----------------------------------------------------------
    def infer(self, x, target):
        check_reduction(self, self.reduction)
        ignore = self.ignore_index
        if not isinstance(ignore, numbers.Integral) or isinstance(ignore, bool):
            self.fail(f"ignore_index must be an int, got {ignore!r}.",
                      hint="the default -100 ignores nothing; give the label to skip, "
                      "e.g. ignore_index=0 for padding.", cls=InputError)
        check_float(self, x)
        if x.ndim == 0:
            self.fail("expects class scores of shape (N, C), (N, C, d1, ...) or (C,), "
                      "got a scalar.", hint="keep one score per class: the last layer "
                      "should output C values per sample.")
        classes = x.shape[1] if x.ndim > 1 else x.shape[0]
        self._check_weight(x, classes)
        expected = x.shape[:1] + x.shape[2:] if x.ndim > 1 else ()
        self.soft = self.soft_targets and target.dtype.kind == "f" and target.shape == x.shape
        if self.soft:
            return expected if self.reduction == "none" else ()
        if target.dtype.kind not in "iu":
            self._bad_target_dtype(x, target)
        if target.shape != expected:
            self._bad_target_shape(x, target, expected)
        return expected if self.reduction == "none" else ()

    def _check_weight(self, x, classes):
        w = self.weight
        if w is None:
            return
        if w.dtype.kind not in "fiu":
            self.fail(f"weight must hold numbers, got dtype {w.dtype.name}.", cls=DTypeError,
                      hint="give one float weight per class, e.g. nb.tensor([1.0, 5.0]).")
        if w.shape != (classes,):
            self.fail(f"weight must hold one value per class: shape ({classes},), got "
                      f"{fmt_shape(w.shape)}.",
                      values=f"input {fmt_shape(x.shape)}   weight {fmt_shape(w.shape)}",
                      hint=f"the input has {classes} classes in dimension "
                      f"{1 if x.ndim > 1 else 0}; give weight with {classes} entries.")

    def _bad_target_dtype(self, x, target):
        soft = (" (or, for class probabilities, a float target of the input's shape "
                f"{fmt_shape(x.shape)})") if self.soft_targets else ""
        self.fail(f"target must hold class indices as integers, got {target.dtype.name}.",
                  values=f"input {fmt_shape(x.shape)}   target {fmt_shape(target.shape)} "
                  f"{target.dtype.name}",
                  hint=f"class indices must be integers: pass target.long(){soft}.",
                  cls=DTypeError)

    def _bad_target_shape(self, x, target, expected):
        values = f"input {fmt_shape(x.shape)}   target {fmt_shape(target.shape)}"
        if x.ndim > 1 and target.ndim >= 1 and target.shape[0] != x.shape[0]:
            self.fail(f"input has {x.shape[0]} samples but target has {target.shape[0]}.",
                      values=values,
                      hint="scores and labels of one batch must have the same first "
                      "dimension; check how the batch and its labels were sliced.")
        if target.shape == x.shape:
            hint = ("the target looks one-hot; it should hold one class index per sample: "
                    "use target.argmax(1).")
        elif target.shape == expected + (1,):
            hint = f"drop the extra dimension: target.reshape{fmt_shape(expected)}."
        elif x.ndim == 1:
            hint = ("a 1-D input is read as the scores of one sample (target: one index); "
                    "for a batch give scores of shape (N, C).")
        else:
            hint = "for scores (N, C, d1, ...) the target is (N, d1, ...): one index per position."
        self.fail(f"expects target of shape {fmt_shape(expected)} for input of shape "
                  f"{fmt_shape(x.shape)}, got {fmt_shape(target.shape)}.",
                  values=values, hint=hint)

    # -- helpers for forward/backward ---------------------------------------
    def _batched(self, x, target):
        """A single sample (C,) becomes a batch of one (1, C)."""
        self.one_sample = x.ndim == 1
        if self.one_sample:
            return x[None], target[None]
        return x, target

    def _unbatched(self, out):
        return out.reshape(out.shape[1:]) if self.one_sample and out.ndim else out

    def _check_target_values(self, target, classes):
        """Every label must lie in [0, C) unless it is ignore_index."""
        bad = ((target < 0) | (target >= classes)) & (target != self.ignore_index)
        if not bad.any():
            return
        pos = tuple(int(i) for i in np.argwhere(bad)[0])
        value = int(target[pos])
        shape = target.shape
        if self.one_sample:
            pos, shape = pos[1:], shape[1:]
        where = f" at position {pos[0] if len(pos) == 1 else pos}" if pos else ""
        if value == classes and classes > 0:
            hint = (f"labels seem to count from 1; use target - 1, or give the last layer "
                    f"{classes + 1} outputs if there really are {classes + 1} classes.")
        elif value < 0:
            hint = (f"negative labels are only allowed as ignore_index "
                    f"(now {self.ignore_index}); pass ignore_index={value} to skip them.")
        else:
            hint = (f"the scores have {classes} classes, so labels must lie in 0..{classes - 1}; "
                    f"widen the last layer to at least {int(target.max()) + 1} outputs or "
                    "fix the labels.")
        self.fail(f"target value {value}{where} is out of range for {classes} classes "
                  f"(valid: 0 to {classes - 1}).",
                  values=f"target {fmt_shape(shape)}   min {int(target.min())}   "
                  f"max {int(target.max())}",
                  hint=hint, cls=DimError)

    def _class_weights(self, x):
        """Weights reshaped to broadcast along the class axis: (1, C, 1, ...), or None."""
        if self.weight is None:
            return None
        return self.weight.astype(x.dtype).reshape((1, -1) + (1,) * (x.ndim - 2))

    def _targets(self, x, target):
        """(picked class per element (N, 1, d...), valid mask, weight of each element)."""
        self._check_target_values(target, x.shape[1])
        valid = target != self.ignore_index
        picked = np.where(valid, target, 0)[:, None]
        if self.weight is None:
            w_elem = valid.astype(x.dtype)
        else:
            w_elem = self.weight.astype(x.dtype)[picked[:, 0]] * valid
        return picked, valid, w_elem


class NllLoss(_ClassLoss):
    """loss_i = -w[t_i] * x[i, t_i]; 'mean' divides by sum_i w[t_i] (ignored ones excluded)."""

    name = "nll_loss"

    def forward(self, x, target):
        x, target = self._batched(x, target)
        self.in_shape, self.in_dtype = x.shape, x.dtype
        self.picked, self.valid, self.w_elem = self._targets(x, target)
        self.denom = self.w_elem.sum()
        chosen = np.take_along_axis(x, self.picked, axis=1)[:, 0]
        with np.errstate(invalid="ignore"):  # 0 * -inf where a weight is 0
            losses = np.where(self.valid, -self.w_elem * chosen, 0).astype(x.dtype)
        return self._unbatched(_reduce(losses, self.reduction, self.denom))

    def backward(self, grad_out):  # loss_i = -w_t x[i, t];  dloss_i/dx[i, t] = -w_t, 0 elsewhere
        s = _loss_scale(grad_out, self.reduction, self.denom, self.valid.shape)
        with np.errstate(invalid="ignore"):
            at_target = np.where(self.valid, -self.w_elem * s, 0)
        grad_x = np.zeros(self.in_shape, dtype=grad_out.dtype)
        np.put_along_axis(grad_x, self.picked, at_target[:, None], axis=1)
        return (self._unbatched(grad_x), None)


class CrossEntropy(_ClassLoss):
    """log_softmax and nll_loss fused into one node; the gradient is p - onehot.

    With label smoothing e, the target of element i is the distribution
    q_ic = (1 - e) w_t [c = t_i] + (e / C) w_c, and loss_i = -sum_c q_ic log p_ic.
    A float target of the input's shape holds class probabilities instead of indices.
    """

    name = "cross_entropy"
    soft_targets = True

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(weight, ignore_index, reduction)
        self.label_smoothing = label_smoothing

    def infer(self, x, target):
        e = self.label_smoothing
        if not _is_number(e) or not 0.0 <= e <= 1.0:
            self.fail(f"label_smoothing={e!r} must be a number between 0.0 and 1.0.",
                      hint="0.0 means no smoothing; 0.1 is a common choice.", cls=InputError)
        shape = super().infer(x, target)
        if self.soft and self.ignore_index != -100:
            self.fail("ignore_index is not supported with class-probability targets "
                      f"(got ignore_index={self.ignore_index}).",
                      hint="give probability rows of zeros to ignore elements, or use "
                      "integer class indices.", cls=InputError)
        return shape

    def forward(self, x, target):
        x, target = self._batched(x, target)
        self.logp = log_softmax_array(x, 1)
        if self.soft:
            losses = self._soft_forward(x, target)
        else:
            losses = self._hard_forward(x, target)
        return self._unbatched(_reduce(losses.astype(x.dtype), self.reduction, self.denom))

    def _hard_forward(self, x, target):
        e, classes = self.label_smoothing, x.shape[1]
        self.picked, self.valid, self.w_elem = self._targets(x, target)
        self.denom = self.w_elem.sum()
        with np.errstate(invalid="ignore"):  # 0 * -inf where a weight is 0
            losses = -(1 - e) * self.w_elem * np.take_along_axis(self.logp, self.picked, 1)[:, 0]
        if e > 0:
            w = self._class_weights(x)
            weighted = self.logp if w is None else self.logp * w
            losses = losses - (e / classes) * weighted.sum(axis=1)
        return np.where(self.valid, losses, 0)

    def _soft_forward(self, x, target):
        e, classes = self.label_smoothing, x.shape[1]
        q = target * (1 - e) + e / classes if e > 0 else target
        w = self._class_weights(x)
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
        return tuple(None if g is None else self._unbatched(g) for g in grads)

    def _hard_backward(self, grad_out, p):
        e, classes = self.label_smoothing, p.shape[1]
        s = _loss_scale(grad_out, self.reduction, self.denom, self.valid.shape)
        s = np.where(self.valid, s, 0)
        w = self._class_weights(p)
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
        s = _loss_scale(grad_out, self.reduction, self.denom, p.shape[:1] + p.shape[2:])[:, None]
        grad_x = s * (p * self.q.sum(axis=1, keepdims=True) - self.q)
        grad_target = None
        if self.needs_input_grad[1]:  # d loss_i / d target_ic = -(1 - e) w_c log p_ic
            w = self._class_weights(p)
            grad_target = -(1 - e) * s * (self.logp if w is None else self.logp * w)
        return grad_x, grad_target


# ---------------------------------------------------------------------------
# Regression loss
# ---------------------------------------------------------------------------

class MseLoss(Op):
    """loss_i = w_i (x_i - t_i)**2; 'mean' divides by n (or by sum w when weighted).

    Unlike PyTorch, shapes must match exactly: (N, 1) against (N,) would broadcast to
    (N, N) and compare every prediction with every target.
    """

    name = "mse_loss"

    def __init__(self, reduction="mean"):
        self.reduction = reduction

    def infer(self, x, target, weight=None):
        check_reduction(self, self.reduction)
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
        self.diff = x - target
        self.weight = weight
        sq = self.diff * self.diff
        self.sq = sq
        losses = sq if weight is None else sq * weight
        self.denom = sq.size if weight is None else weight.sum()
        out = _reduce(losses, self.reduction, self.denom)
        self.out = out
        return out

    def backward(self, grad_out):  # l = w (x - t)**2;  dx = 2 w (x - t), dt = -dx, dw = (x - t)**2
        s = _loss_scale(grad_out, self.reduction, self.denom, self.diff.shape)
        w = self.weight
        grad_x = 2 * s * self.diff if w is None else 2 * s * w * self.diff
        need = self.needs_input_grad
        grad_w = None
        if len(need) > 2 and need[2]:
            # 'mean' is sum(w sq) / sum(w):  d/dw_i = (sq_i - mean) / sum(w)
            grad_w = s * (self.sq - self.out) if self.reduction == "mean" else s * self.sq
        return (grad_x if need[0] else None, -grad_x if need[1] else None, grad_w)[:len(need)]


# ---------------------------------------------------------------------------
# Batch normalisation
# ---------------------------------------------------------------------------

class BatchNorm(Op):
    """y = w * (x - mean) / sqrt(var + eps) + b, per channel (dimension 1).

    Training: mean and (biased) var of this batch, and the running estimates move
    towards them in place: r = (1 - m) r + m * stat, using the unbiased variance.
    Evaluation: the running estimates.  ``momentum=None`` means a cumulative average
    (m = 1 / batches seen), which needs ``num_batches_tracked`` (a 0-d int array,
    incremented in place in training, as PyTorch's BatchNorm modules do).
    Inputs: ``(x,)``, ``(x, weight)`` or ``(x, weight, bias)``.
    """

    name = "batch_norm"

    def __init__(self, training, momentum=0.1, eps=1e-5, running_mean=None, running_var=None,
                 num_batches_tracked=None):
        self.training, self.momentum, self.eps = bool(training), momentum, eps
        self.running_mean, self.running_var = running_mean, running_var
        self.num_batches_tracked = num_batches_tracked

    def infer(self, x, weight=None, bias=None):
        check_float(self, x)
        if x.ndim < 2:
            self.fail(f"expects input (N, C), (N, C, L) or (N, C, H, W), got shape "
                      f"{fmt_shape(x.shape)}.",
                      hint="batch norm normalises each channel (dimension 1) over a batch; "
                      "add the batch dimension: x.reshape(1, -1).")
        channels = x.shape[1]
        for what, arr in (("weight", weight), ("bias", bias),
                          ("running_mean", self.running_mean), ("running_var", self.running_var)):
            if arr is not None and tuple(arr.shape) != (channels,):
                self.fail(f"{what} must hold one value per channel: shape ({channels},), "
                          f"got {fmt_shape(arr.shape)}.",
                          values=f"input {fmt_shape(x.shape)} ({channels} channels in dimension 1)",
                          hint=f"make the layer BatchNorm for {channels} channels, or check "
                          "that the layer before outputs the channels you expect.")
        self._check_settings()
        count = x.shape[0] * math.prod(x.shape[2:])
        if self.training and count <= 1:
            self.fail(f"expected more than 1 value per channel when training, got input of "
                      f"shape {fmt_shape(x.shape)}.",
                      hint="a batch statistic needs at least 2 values per channel: use a "
                      "batch of 2 or more, or call model.eval() to normalise a single "
                      "sample with the running statistics.")
        return x.shape

    def _check_settings(self):
        if (self.running_mean is None) != (self.running_var is None):
            self.fail("running_mean and running_var must be given together (or both None).",
                      cls=InputError, hint="pass both running statistics, or neither.")
        if not self.training and self.running_mean is None:
            self.fail("evaluation mode needs running_mean and running_var, got None.",
                      cls=InputError, hint="normalise with batch statistics "
                      "(training=True), or keep running statistics (track_running_stats=True).")
        if not _is_number(self.eps) or self.eps < 0:
            self.fail(f"eps={self.eps!r} must be a number >= 0.", cls=InputError,
                      hint="the default 1e-5 keeps the division away from zero.")
        if self.momentum is None:
            if self.training and self.running_mean is not None and self.num_batches_tracked is None:
                self.fail("momentum=None (a cumulative average) needs the count of batches "
                          "seen, and none was given.", cls=InputError,
                          hint="give a float momentum such as 0.1, or use the BatchNorm "
                          "module, which keeps num_batches_tracked.")
        elif not _is_number(self.momentum):
            self.fail(f"momentum={self.momentum!r} must be a float or None.", cls=InputError,
                      hint="the default is 0.1: running = 0.9 running + 0.1 batch.")

    def forward(self, x, weight=None, bias=None):
        self.axes = (0,) + tuple(range(2, x.ndim))  # every axis except channels
        self.bshape = (1, -1) + (1,) * (x.ndim - 2)  # per-channel values broadcast like this
        self.count = x.size // x.shape[1]
        if self.training:
            mean = x.mean(axis=self.axes)
            centred = x - mean.reshape(self.bshape)
            var = (centred * centred).mean(axis=self.axes)  # biased: divides by n
            self._update_running(mean, var)
        else:
            mean = self.running_mean.astype(x.dtype, copy=False)
            var = self.running_var.astype(x.dtype, copy=False)
            centred = x - mean.reshape(self.bshape)
        self.inv_std = (1 / np.sqrt(var + self.eps)).astype(x.dtype)  # (C,)
        # in place where an array is new and ours: fewer fresh arrays, the same arithmetic
        centred *= self.inv_std.reshape(self.bshape)
        self.x_hat, self.weight = centred, weight
        out = centred.copy() if weight is None else centred * weight.reshape(self.bshape)
        if bias is not None:
            out += bias.reshape(self.bshape)
        return out

    def _update_running(self, mean, var):
        if self.running_mean is None:
            return
        if self.num_batches_tracked is not None:
            self.num_batches_tracked += 1
        m = (1.0 / float(self.num_batches_tracked) if self.momentum is None
             else float(self.momentum))
        unbiased = var * (self.count / (self.count - 1))  # n / (n - 1), as PyTorch
        self.running_mean[...] = (1 - m) * self.running_mean + m * mean
        self.running_var[...] = (1 - m) * self.running_var + m * unbiased

    def backward(self, grad_out):
        # dw = sum(g x_hat), db = sum(g).  Training, where mean and var depend on x:
        #   dx = w inv_std (g - mean(g) - x_hat mean(g x_hat))
        # Evaluation (constants):  dx = w inv_std g
        need = self.needs_input_grad
        g, b = grad_out, self.bshape
        sum_g = g.sum(axis=self.axes)
        g_xhat = g * self.x_hat
        sum_g_xhat = g_xhat.sum(axis=self.axes)
        grad_x = None
        if need[0]:
            scale = self.inv_std if self.weight is None else self.weight * self.inv_std
            if self.training:  # in place on new arrays of ours: fewer fresh arrays
                n = self.count
                grad_x = g - (sum_g / n).reshape(b)
                grad_x -= np.multiply(self.x_hat, (sum_g_xhat / n).reshape(b), out=g_xhat)
                grad_x *= scale.reshape(b)
            else:
                grad_x = g * scale.reshape(b)
        grads = (grad_x, sum_g_xhat, sum_g)
        return tuple(gr if want else None for gr, want in zip(grads, need))


# ---------------------------------------------------------------------------
# Dropout
# ---------------------------------------------------------------------------

class Dropout(Op):
    """Inverted dropout: zero each element with probability p, scale the rest by 1/(1-p).

    The mask comes from ``generator`` (a numpy Generator); ``F.dropout`` passes
    nnbook's seeded one, so ``nb.manual_seed`` makes it repeatable.
    """

    name = "dropout"

    def __init__(self, generator, p=0.5, training=True):
        self.p, self.training, self.generator = p, bool(training), generator

    def infer(self, x):
        p = self.p
        if not _is_number(p) or not 0 <= p <= 1:
            self.fail(f"p={p!r} must be a probability between 0 and 1.", cls=InputError,
                      hint="p is the fraction of elements set to zero: p=0.5 drops half, "
                      "p=0.1 keeps 90%.")
        check_float(self, x)
        return x.shape

    def forward(self, x):
        if not self.training or self.p == 0:
            self.mask = None
            return x
        if self.p == 1:
            self.mask = np.zeros_like(x)
        else:
            keep = self.generator.random(x.shape, dtype=np.float32) >= self.p  # kept with probability 1 - p
            self.mask = keep * x.dtype.type(1 / (1 - self.p))
        return x * self.mask

    def backward(self, grad_out):  # y = x m / (1 - p);  dy/dx = m / (1 - p)
        return (grad_out if self.mask is None else grad_out * self.mask,)
