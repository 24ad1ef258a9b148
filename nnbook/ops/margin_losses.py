"""The multi-class margin losses: every wrong class should score at least a margin below
the right one(s).

    multi_margin:       l_i = w_y / C * sum_{j != y} h(margin - x_iy + x_ij)
                        h(z) = max(0, z) (p=1) or max(0, z)**2 (p=2); y = target_i
    multilabel_margin:  l_i = 1 / C * sum_{j in Y_i} sum_{k not in Y_i} max(0, 1 - x_ij + x_ik)
                        Y_i = the classes listed in target row i before its first -1

Scores are (N, C) or one sample's (C,); s_i in the comments is d(reduced loss)/d(l_i),
as in ops/losses.py.
"""
from __future__ import annotations

import numpy as np

from ..errors import DimError, DTypeError, InputError, fmt_shape
from .base import Op, check_float, is_real
from .class_targets import ClassLoss
from .embedding import first_bad
from .losses import check_reduction, loss_scale, reduce


def _scores_of_one_or_many(op: Op, x):
    """(N, C) or (C,): the shapes both margin losses take (a 0-d score is one class)."""
    check_float(op, x)
    if x.ndim > 2:
        op.fail(f"expects class scores of shape (N, C) or (C,), got {fmt_shape(x.shape)}.",
                hint="these losses take one row of C scores per sample: flatten the "
                "positions into the batch, x.reshape(-1, C), and the targets alike.")


class MultiMarginLoss(ClassLoss):
    """The multi-class hinge loss (the SVM's), with one class index per sample."""

    name = "multi_margin_loss"

    def __init__(self, p=1, margin=1.0, weight=None, reduction="mean"):
        super().__init__(weight, -100, check_reduction(reduction, self.where))
        if isinstance(p, bool) or p not in (1, 2):
            self.fail(f"p must be 1 or 2, got {p!r}.", cls=InputError,
                      hint="p=1 (the default) is the hinge max(0, z), p=2 its square.")
        if not is_real(margin):
            self.fail(f"margin must be a number, got {margin!r}.", cls=InputError,
                      hint="the margin is how far below the right class the others must "
                      "score; 1.0 is the default.")
        self.p, self.margin = int(p), float(margin)

    def infer(self, x, target):
        if x.ndim == 0 and x.dtype.kind == "f" and target.ndim == 0 and target.dtype.kind in "iu":
            return ()  # one score, one class: PyTorch takes it (the loss is 0)
        _scores_of_one_or_many(self, x)
        return super().infer(x, target)

    def forward(self, x, target):
        self.in_shape = x.shape
        x, target = self.batched(x.reshape(-1) if x.ndim == 0 else x, target)
        if (target < 0).any():
            value = int(target.reshape(-1)[np.argmax(target.reshape(-1) < 0)])
            self.fail(f"target value {value} is negative; class indices count from 0.",
                      values=f"target {fmt_shape(target.shape)}   min {int(target.min())}",
                      hint="labels are 0..C-1; this loss has no ignore_index.", cls=DimError)
        classes = x.shape[1]
        picked, _, w_elem = self.targets(x, target)  # (N, 1) target classes, w_y per sample
        z = self.margin - np.take_along_axis(x, picked, 1) + x  # (N, C)
        rival = np.arange(classes) != picked  # the target class is no rival of itself
        self.active = (z > 0) & rival
        self.z, self.picked = np.where(self.active, z, 0), picked
        self.row_scale = w_elem / classes  # w_y / C
        hinge = self.z if self.p == 1 else self.z * self.z
        self.denom = x.shape[0]  # 'mean' averages over the samples
        losses = (hinge.sum(axis=1) * self.row_scale).astype(x.dtype)
        return self.unbatched(reduce(losses, self.reduction, self.denom))

    def backward(self, grad_out):
        # dl_i/dx_ij = w_y / C * h'(z_ij) for j != y  (h' = 1, or 2 z, where z > 0)
        # dl_i/dx_iy = -sum over j != y of the same
        s = loss_scale(grad_out, self.reduction, self.denom, self.row_scale.shape)
        slope = self.active.astype(self.z.dtype) if self.p == 1 else 2 * self.z
        grad_x = slope * (s * self.row_scale)[:, None]
        np.put_along_axis(grad_x, self.picked, -grad_x.sum(axis=1, keepdims=True), axis=1)
        return grad_x.reshape(self.in_shape).astype(grad_out.dtype), None


class MultilabelMarginLoss(Op):
    """Several right classes per sample, listed by index in the target row and ended by
    -1: target [3, 0, -1, 1] means classes 3 and 0 (what follows the -1 is not read)."""

    name = "multilabel_margin_loss"

    def __init__(self, reduction="mean"):
        self.reduction = check_reduction(reduction, self.where)

    def infer(self, x, target):
        _scores_of_one_or_many(self, x)
        if target.dtype.kind not in "iu":
            self.fail(f"target must hold class indices as integers, ended by -1, got "
                      f"{target.dtype.name}.",
                      values=f"input {fmt_shape(x.shape)}   target {fmt_shape(target.shape)} "
                      f"{target.dtype.name}", cls=DTypeError,
                      hint="for 0/1 targets, one per class, use F.multilabel_soft_margin_loss "
                      "(nn.MultiLabelSoftMarginLoss); this loss wants the indices of the right "
                      "classes, e.g. [3, 0, -1, -1], as a long tensor.")
        if target.shape != x.shape:
            if x.ndim == 2 and target.shape == x.shape[:1]:
                hint = ("one class per sample is multi_margin_loss (or cross_entropy); here "
                        "each row lists the right classes, padded with -1: shape (N, C).")
            else:
                hint = "give one row of C entries per sample: class indices, then -1s."
            self.fail(f"target must have the input's shape {fmt_shape(x.shape)}, got "
                      f"{fmt_shape(target.shape)}.",
                      values=f"input {fmt_shape(x.shape)}   target {fmt_shape(target.shape)}",
                      hint=hint)
        return x.shape[:1] if self.reduction == "none" and x.ndim == 2 else ()

    def forward(self, x, target):
        one_sample = x.ndim < 2
        x = x.reshape(1, -1) if one_sample else x
        target = target.reshape(x.shape)
        classes = x.shape[1]
        bad = (target < -1) | (target >= classes)
        if bad.any():
            self.fail(f"target value {int(target[bad][0])} at position {first_bad(bad)} is out "
                      f"of range for {classes} classes (valid: 0 to {classes - 1}, and -1 to "
                      "end the list).", cls=DimError,
                      values=f"target {fmt_shape(target.shape)}   min {int(target.min())}   "
                      f"max {int(target.max())}",
                      hint="list the right classes of each sample by index (from 0), then "
                      "fill the row with -1.")
        listed = np.cumprod(target != -1, axis=1).astype(bool)  # the entries before the first -1
        rows = np.broadcast_to(np.arange(x.shape[0])[:, None], target.shape)
        count = np.zeros(x.shape, dtype=x.dtype)  # how often each class is listed
        np.add.at(count, (rows[listed], target[listed]), 1)
        # z[n, j, k] = 1 - x_nj + x_nk: listed class j against unlisted class k
        z = 1 - x[:, :, None] + x[:, None, :]
        pairs = count[:, :, None] * (count == 0)[:, None, :]
        self.weight = np.where(z > 0, pairs, 0) / classes  # (N, C, C)
        self.one_sample, self.denom = one_sample, x.shape[0]
        losses = (z * self.weight).sum(axis=(1, 2)).astype(x.dtype)
        out = reduce(losses, self.reduction, self.denom)
        return out.reshape(()) if one_sample else out

    def backward(self, grad_out):
        # dl/dx_j = -(1/C) sum_k [z_jk > 0],  dl/dx_k = (1/C) sum_j [z_jk > 0]  (pairs j, k)
        s = loss_scale(grad_out, self.reduction, self.denom, self.weight.shape[:1])
        g = self.weight * s[:, None, None]
        grad_x = (g.sum(axis=1) - g.sum(axis=2)).astype(grad_out.dtype)
        return (grad_x.reshape(grad_x.shape[1:]) if self.one_sample else grad_x), None
